//! HTTP tests of the branch and hub APIs on a real server (127.0.0.1, embedded DynamoDB engine, with the deploy
//! router mounted too): every status code, the effects of promotion, token reach, pagination over 250 branches, and
//! concurrent races, including concurrent deploys whose every acknowledged version must be listed.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::Arc;

use serde_json::{Value, json};
use specpress_api::{ApiConfig, AppState};
use specpress_domain::model::{BranchName, Bundle, Documentation, Hub};
use specpress_domain::ports::SpecEngine;
use specpress_domain::ports::Store;
use specpress_domain::token::Principal;
use specpress_domain::usecases::auth::authenticate;
use specpress_domain::usecases::deploy::{DeployInput, DeployOutcome, deploy};
use specpress_domain::usecases::{manage, public};
use specpress_local::embedded::{Embedded, Storage};
use time::OffsetDateTime;

struct Server {
    base: String,
    http: reqwest::Client,
    store: Arc<dyn Store>,
    engine: Arc<dyn SpecEngine>,
    org_token: String,
    org: Principal,
    _db: Embedded,
}

fn spec(title: &str, version: &str) -> String {
    format!(
        r#"{{"openapi":"3.0.3","info":{{"title":"{title}","version":"{version}"}},"paths":{{"/v{version}":{{"get":{{"responses":{{"200":{{"description":"ok"}}}}}}}}}}}}"#
    )
}

async fn start() -> Server {
    let db = Embedded::start(Storage::Memory)
        .await
        .expect("embedded engine");
    let store: Arc<dyn Store> = Arc::new(db.store("specpress").await.expect("table"));
    let engine: Arc<dyn SpecEngine> = Arc::new(specpress_engines::Engines::default());
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .expect("bind 127.0.0.1");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let state = AppState::new(store.clone(), ApiConfig::new(base.clone()));
    let app = specpress_api::with_common_layers(
        specpress_api_branches::router(state.clone())
            .merge(specpress_api_hubs::router(state.clone()))
            // The public site: the hubs' property URLs download through it.
            .merge(specpress_site::router(state.clone()))
            .merge(specpress_api_deploy::router(state, engine.clone())),
    );
    tokio::spawn(async move {
        let _ = axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await;
    });
    let (_, token) = manage::create_org(&*store, "Acme", OffsetDateTime::now_utc())
        .await
        .expect("org");
    let org = authenticate(&*store, &token.secret)
        .await
        .expect("principal");
    Server {
        base,
        http: reqwest::Client::new(),
        store,
        engine,
        org_token: token.secret,
        org,
        _db: db,
    }
}

impl Server {
    async fn hub(&self, slug: &str) -> (Hub, String) {
        let (hub, token) = manage::create_hub(
            &*self.store,
            &self.org,
            slug,
            Some(slug),
            Some("A hub"),
            specpress_domain::model::Visibility::Public,
            OffsetDateTime::now_utc(),
        )
        .await
        .expect("hub");
        (hub, token.secret)
    }

    async fn doc(&self, slug: &str, hub: Option<&str>) -> (Documentation, String) {
        let (doc, token) = manage::create_doc(
            &*self.store,
            &self.org,
            slug,
            Some(slug),
            hub,
            specpress_domain::model::Visibility::Public,
            OffsetDateTime::now_utc(),
        )
        .await
        .expect("doc");
        (doc, token.secret)
    }

    async fn deploy(
        &self,
        doc: &str,
        branch: Option<&str>,
        definition: &str,
    ) -> Result<String, String> {
        let input = DeployInput {
            documentation: doc.to_owned(),
            bundle: Bundle {
                definition: definition.to_owned(),
                references: vec![],
            },
            branch_name: branch.map(str::to_owned),
            ..DeployInput::default()
        };
        match deploy(
            &*self.store,
            &specpress_domain::ports::NoPublisher,
            &*self.engine,
            &self.org,
            input,
            OffsetDateTime::now_utc(),
        )
        .await
        {
            Ok(DeployOutcome::Created { version, .. }) => Ok(version.id.to_string()),
            Ok(DeployOutcome::Unchanged { .. }) => Err("unchanged".into()),
            Err(e) => Err(e.to_string()),
        }
    }

    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value, reqwest::header::HeaderMap) {
        let mut r = self.http.request(method, format!("{}{path}", self.base));
        if let Some(t) = token {
            r = r.header("authorization", format!("Token {t}"));
        }
        if let Some(b) = body {
            r = r
                .header("content-type", "application/json")
                .body(b.to_string());
        }
        let resp = r.send().await.expect("request");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = resp.text().await.expect("body");
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::Null),
            headers,
        )
    }

    async fn get(&self, path: &str) -> (u16, Value, reqwest::header::HeaderMap) {
        self.call(reqwest::Method::GET, path, Some(&self.org_token), None)
            .await
    }

    async fn create_branch(&self, doc: &str, name: &str) -> (u16, Value) {
        let (s, b, _) = self
            .call(
                reqwest::Method::POST,
                &format!("/api/v1/docs/{doc}/branches"),
                Some(&self.org_token),
                Some(json!({"name": name})),
            )
            .await;
        (s, b)
    }

    async fn delete_branch(&self, doc: &str, slug: &str) -> (u16, Value) {
        let (s, b, _) = self
            .call(
                reqwest::Method::DELETE,
                &format!("/api/v1/docs/{doc}/branches/{slug}"),
                Some(&self.org_token),
                None,
            )
            .await;
        (s, b)
    }

    async fn promote(&self, doc: &str, slug: &str) -> (u16, Value) {
        let (s, b, _) = self
            .call(
                reqwest::Method::PATCH,
                &format!("/api/v1/docs/{doc}/branches/{slug}/set_default"),
                Some(&self.org_token),
                None,
            )
            .await;
        (s, b)
    }

    async fn default_branch(&self, doc: &Documentation) -> String {
        self.store
            .get_doc(doc.org_id, doc.id)
            .await
            .expect("read")
            .expect("doc exists")
            .default_branch
            .to_string()
    }

    /// `POST /api/v1/versions` with the organization token: the status and body.
    async fn deploy_over_http(&self, body: Value) -> (u16, Value) {
        let (s, b, _) = self
            .call(
                reqwest::Method::POST,
                "/api/v1/versions",
                Some(&self.org_token),
                Some(body),
            )
            .await;
        (s, b)
    }

    /// Runs `n` deploys at once (bodies from `body(i)`) and returns the ids of the 201s; any other status fails.
    async fn concurrent_deploys(
        self: &Arc<Self>,
        n: usize,
        body: impl Fn(usize) -> Value,
    ) -> Vec<String> {
        let tasks: Vec<_> = (0..n)
            .map(|i| {
                let s = self.clone();
                let body = body(i);
                tokio::spawn(async move { s.deploy_over_http(body).await })
            })
            .collect();
        let mut ids = Vec::new();
        for t in tasks {
            let (status, body) = t.await.expect("deploy task");
            assert_eq!(status, 201, "{body}");
            ids.push(body["id"].as_str().expect("id").to_owned());
        }
        ids
    }

    /// Walks `GET /docs/{doc}/versions` to the end, following `Link: rel="next"` from `first`. Returns the ids in
    /// order and every page's `X-Total-Count`.
    async fn walk_versions(&self, first: &str) -> (Vec<String>, Vec<u64>) {
        let (mut ids, mut totals) = (Vec::new(), Vec::new());
        let mut next = Some(first.to_owned());
        while let Some(path) = next.take() {
            let (status, body, headers) = self.get(&path).await;
            assert_eq!(status, 200, "{path}: {body}");
            let page = body.as_array().expect("a bare array");
            ids.extend(
                page.iter()
                    .map(|v| v["id"].as_str().expect("id").to_owned()),
            );
            totals.push(
                headers
                    .get("x-total-count")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse().ok())
                    .expect("X-Total-Count"),
            );
            next = headers
                .get("link")
                .and_then(|v| v.to_str().ok())
                .and_then(next_link);
            assert!(totals.len() <= 1_000, "runaway pagination");
        }
        (ids, totals)
    }
}

/// The target of `rel="next"` in a `Link` header.
fn next_link(link: &str) -> Option<String> {
    link.split(',').find_map(|part| {
        let (target, params) = part.split_once(';')?;
        params.contains("rel=\"next\"").then(|| {
            target
                .trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_owned()
        })
    })
}

/// Checks that a full walk of a history lists exactly the acknowledged versions, each once, newest first by position.
fn assert_lists_exactly(walked: &[String], totals: &[u64], acknowledged: &[String]) {
    let unique: HashSet<&String> = walked.iter().collect();
    assert_eq!(
        unique.len(),
        walked.len(),
        "a version listed twice: {walked:?}"
    );
    let expected: HashSet<&String> = acknowledged.iter().collect();
    let missing: Vec<_> = expected.difference(&unique).collect();
    assert!(
        missing.is_empty(),
        "acknowledged but not listed: {missing:?}"
    );
    assert_eq!(unique, expected, "listed but never acknowledged");
    assert!(
        totals.iter().all(|t| *t == acknowledged.len() as u64),
        "X-Total-Count on every page is the number of 201s: {totals:?}"
    );
}

fn slugs(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|b| b["slug"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn branch_statuses_follow_the_contract() {
    let s = start().await;
    let (doc, _) = s.doc("pets", None).await;

    let (status, _, _) = s
        .call(
            reqwest::Method::GET,
            "/api/v1/docs/pets/branches",
            None,
            None,
        )
        .await;
    assert_eq!(status, 401, "no token");
    let (status, body, _) = s.get("/api/v1/docs/nope/branches").await;
    assert_eq!(
        (status, body["message"].as_str()),
        (404, Some("Documentation does not exist"))
    );

    let (status, body) = s.create_branch("pets", "Feature/Login").await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(
        body,
        json!({"name": "Feature/Login", "slug": "feature-login", "is_default": false})
    );
    assert_eq!(
        s.create_branch("pets", "feature-login").await.0,
        204,
        "same slug, other case and punctuation"
    );
    assert_eq!(
        s.create_branch(&doc.id.to_string(), "FEATURE login")
            .await
            .0,
        204,
        "by doc id"
    );
    let (status, body) = s.create_branch("pets", "main").await;
    assert_eq!((status, body["is_default"].clone()), (201, json!(true)));

    for bad in [
        json!({"name": ""}),
        json!({"name": "a\nb"}),
        json!({"name": "latest"}),
        json!({"name": "***"}),
        json!({"name": "x".repeat(101)}),
        json!({}),
    ] {
        let (status, body, _) = s
            .call(
                reqwest::Method::POST,
                "/api/v1/docs/pets/branches",
                Some(&s.org_token),
                Some(bad.clone()),
            )
            .await;
        assert_eq!(status, 422, "{bad}: {body}");
        assert!(body["errors"]["name"].is_array(), "{body}");
    }

    let (status, body, headers) = s.get("/api/v1/docs/pets/branches").await;
    assert_eq!(status, 200);
    assert_eq!(slugs(&body), ["feature-login", "main"]);
    assert_eq!(
        headers.get("x-total-count").and_then(|v| v.to_str().ok()),
        Some("2")
    );

    let (status, body) = s.delete_branch("pets", "main").await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body["message"]
            .as_str()
            .is_some_and(|m| m.contains("default branch")),
        "{body}"
    );
    assert_eq!(s.delete_branch("pets", "ghost").await.0, 404);

    assert_eq!(s.promote("pets", "ghost").await.0, 404);
    let (status, body) = s.promote("pets", "feature-login").await;
    assert_eq!(status, 422, "empty history: {body}");
    // The first release of the documentation, on `feature-login` while `main` has none, makes it the default.
    s.deploy("pets", Some("Feature/Login"), &spec("Pets", "2"))
        .await
        .expect("deploy");
    assert_eq!(s.default_branch(&doc).await, "feature-login");
    let (status, body) = s.promote("pets", "feature-login").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(s.default_branch(&doc).await, "feature-login");

    assert_eq!(
        s.delete_branch("pets", "main").await.0,
        204,
        "no longer the default"
    );
    assert_eq!(s.delete_branch("pets", "main").await.0, 404, "already gone");
    let (_, body, _) = s.get("/api/v1/docs/pets/branches").await;
    assert_eq!(
        body,
        json!([{"name": "Feature/Login", "slug": "feature-login", "is_default": true}])
    );
}

#[tokio::test]
async fn the_first_branch_to_get_a_release_becomes_the_default_while_the_default_has_none() {
    let s = start().await;
    // GIVEN a documentation created without a release WHEN its first release goes to a branch THEN that branch is
    // the default, and a listing without `branch` shows its release
    let (doc, _) = s.doc("first", None).await;
    let temporary = s
        .deploy_over_http(json!({
            "documentation": "first", "definition": spec("First", "0"), "branch_name": "draft", "temporary": true,
        }))
        .await;
    assert_eq!(temporary.0, 201, "{temporary:?}");
    assert_eq!(
        s.default_branch(&doc).await,
        "main",
        "a temporary version publishes nothing"
    );
    let v1 = s
        .deploy("first", Some("Feature X"), &spec("First", "1"))
        .await
        .expect("deploy");
    assert_eq!(s.default_branch(&doc).await, "feature-x");
    let (status, body, _) = s.get("/api/v1/docs/first/versions").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body[0]["id"], json!(v1));
    let (status, body, _) = s.get("/api/v1/docs/first").await;
    assert_eq!(
        (status, &body["default_branch"]),
        (200, &json!("feature-x"))
    );
    // AND a later release on another branch leaves the default where it is
    s.deploy("first", Some("other"), &spec("First", "2"))
        .await
        .expect("deploy");
    assert_eq!(s.default_branch(&doc).await, "feature-x");

    // GIVEN a documentation auto-created by a deploy to a branch THEN it is created with that branch as its default
    let (status, body) = s
        .deploy_over_http(json!({
            "documentation": "auto", "definition": spec("Auto", "1"), "branch_name": "feature-y",
            "auto_create_documentation": true,
        }))
        .await;
    assert_eq!(status, 201, "{body}");
    let (_, body, _) = s.get("/api/v1/docs/auto").await;
    assert_eq!(body["default_branch"], json!("feature-y"), "{body}");

    // GIVEN a documentation whose default branch has a release THEN a release on a branch does not move it
    let (doc, _) = s.doc("released", None).await;
    s.deploy("released", None, &spec("Released", "1"))
        .await
        .expect("main");
    s.deploy("released", Some("next"), &spec("Released", "2"))
        .await
        .expect("next");
    assert_eq!(s.default_branch(&doc).await, "main");
}

#[tokio::test]
async fn promotion_changes_the_default_view_hub_listing_and_branchless_deploys() {
    let s = start().await;
    let (hub, hub_token) = s.hub("store").await;
    s.doc("orders", Some("store")).await;
    let v1 = s
        .deploy("orders", None, &spec("Orders", "1.0"))
        .await
        .expect("main");
    let v2 = s
        .deploy("orders", Some("next"), &spec("Orders", "2.0"))
        .await
        .expect("next");

    let (_, body, _) = s
        .call(
            reqwest::Method::GET,
            "/api/v1/hubs/store",
            Some(&hub_token),
            None,
        )
        .await;
    assert_eq!(body["apis"][0]["version"], json!("1.0"));
    assert_eq!(
        public::doc_definition(
            &*s.store,
            &public::find_doc(&*s.store, &public::Reader::Anonymous, "orders")
                .await
                .expect("doc")
                .doc
        )
        .await
        .expect("definition")
        .definition,
        spec("Orders", "1.0")
    );

    assert_eq!(s.promote("orders", "next").await.0, 204);

    let (status, body, _) = s
        .call(
            reqwest::Method::GET,
            &format!("/api/v1/hubs/{}", hub.id),
            Some(&hub_token),
            None,
        )
        .await;
    assert_eq!(status, 200);
    let api = &body["apis"][0];
    assert_eq!(api["version"], json!("2.0"), "{body}");
    assert_eq!(api["properties"][0]["type"], json!("OpenAPI"));
    let url = api["properties"][0]["url"].as_str().expect("property url");
    assert!(url.contains(&v2) && !url.contains(&v1), "{url}");
    let downloaded = s
        .http
        .get(url)
        .send()
        .await
        .expect("download")
        .text()
        .await
        .expect("text");
    assert_eq!(
        downloaded,
        spec("Orders", "2.0"),
        "the property URL downloads the head definition"
    );
    assert_eq!(
        public::doc_definition(
            &*s.store,
            &public::find_doc(&*s.store, &public::Reader::Anonymous, "orders")
                .await
                .expect("doc")
                .doc
        )
        .await
        .expect("definition")
        .definition,
        spec("Orders", "2.0")
    );

    let v3 = s
        .deploy("orders", None, &spec("Orders", "3.0"))
        .await
        .expect("branchless deploy");
    let version = s
        .store
        .get_version(
            v3.parse()
                .map(specpress_domain::model::VersionId)
                .expect("id"),
            OffsetDateTime::now_utc(),
        )
        .await
        .expect("read")
        .expect("v3");
    assert_eq!(
        version.branch.as_str(),
        "next",
        "a deploy without branch_name goes to the promoted branch"
    );

    let (status, body, headers) = s.get("/api/v1/docs/orders/versions").await;
    assert_eq!(status, 200);
    let ids: Vec<&str> = body
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|v| v["id"].as_str())
        .collect();
    assert_eq!(
        ids,
        [v3.as_str(), v2.as_str()],
        "newest first, default branch"
    );
    assert_eq!(
        headers.get("x-total-count").and_then(|v| v.to_str().ok()),
        Some("2")
    );
    let (_, body, _) = s.get("/api/v1/docs/orders/versions?branch=main").await;
    assert_eq!(body.as_array().map(Vec::len), Some(1));
    assert_eq!(
        s.get("/api/v1/docs/orders/versions?branch=ghost").await.0,
        404
    );
}

#[tokio::test]
async fn hubs_answer_in_the_apis_json_shape_and_respect_token_reach() {
    let s = start().await;
    let (hub, hub_token) = s.hub("alpha").await;
    let (_, other_hub_token) = s.hub("beta").await;
    let (_, doc_token) = s.doc("inventory", Some("alpha")).await;
    s.doc("empty", Some("alpha")).await;
    s.deploy(
        "inventory",
        None,
        "asyncapi: 2.6.0\ninfo:\n  title: Inventory events\n  version: 4.2.0\nchannels: {}\n",
    )
    .await
    .expect("deploy");

    let (status, body, headers) = s.get("/api/v1/hubs").await;
    assert_eq!(status, 200);
    assert_eq!(slugs(&body), ["alpha", "beta"]);
    assert_eq!(
        headers.get("x-total-count").and_then(|v| v.to_str().ok()),
        Some("2")
    );
    let h = &body[0];
    for k in [
        "id",
        "name",
        "description",
        "url",
        "created",
        "modified",
        "specificationVersion",
    ] {
        assert!(h.get(k).is_some(), "hub field {k}: {h}");
    }
    assert_eq!(h["created"].as_str().map(str::len), Some(10), "a date");
    assert_eq!(
        s.call(reqwest::Method::GET, "/api/v1/hubs", Some(&hub_token), None)
            .await
            .0,
        403,
        "organization token only"
    );
    assert_eq!(
        s.call(reqwest::Method::GET, "/api/v1/hubs", None, None)
            .await
            .0,
        401
    );

    let (status, body, _) = s
        .call(
            reqwest::Method::GET,
            "/api/v1/hubs/alpha",
            Some(&hub_token),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["id"], json!(hub.id.to_string()));
    let apis = body["apis"].as_array().expect("apis");
    assert_eq!(apis.len(), 2);
    let inv = apis
        .iter()
        .find(|a| a["slug"] == json!("inventory"))
        .expect("inventory");
    for k in [
        "id",
        "name",
        "description",
        "slug",
        "humanUrl",
        "tags",
        "version",
        "properties",
        "created",
        "modified",
    ] {
        assert!(inv.get(k).is_some(), "api field {k}: {inv}");
    }
    assert_eq!(inv["version"], json!("4.2.0"));
    assert_eq!(inv["properties"][0]["type"], json!("AsyncAPI"));
    let empty = apis
        .iter()
        .find(|a| a["slug"] == json!("empty"))
        .expect("empty");
    assert_eq!(
        (empty["version"].clone(), empty["properties"].clone()),
        (Value::Null, json!([]))
    );

    assert_eq!(
        s.get("/api/v1/hubs/alpha").await.0,
        200,
        "organization token"
    );
    assert_eq!(
        s.call(
            reqwest::Method::GET,
            "/api/v1/hubs/alpha",
            Some(&other_hub_token),
            None
        )
        .await
        .0,
        404
    );
    assert_eq!(
        s.call(
            reqwest::Method::GET,
            "/api/v1/hubs/alpha",
            Some(&doc_token),
            None
        )
        .await
        .0,
        404
    );
    assert_eq!(s.get("/api/v1/hubs/nope").await.0, 404);

    let (status, body, headers) = s
        .call(
            reqwest::Method::GET,
            "/api/v1/hubs/alpha/apis?limit=1",
            Some(&hub_token),
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(slugs(&body), ["empty"]);
    assert!(
        headers
            .get("link")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|l| l.contains("rel=\"next\""))
    );
}

#[tokio::test]
async fn a_documentation_token_never_reaches_another_documentation() {
    let s = start().await;
    let (_, token_a) = s.doc("doc-a", None).await;
    s.doc("doc-b", None).await;
    let (status, _, _) = s
        .call(
            reqwest::Method::POST,
            "/api/v1/docs/doc-a/branches",
            Some(&token_a),
            Some(json!({"name": "dev"})),
        )
        .await;
    assert_eq!(status, 201);
    for (method, path) in [
        (reqwest::Method::GET, "/api/v1/docs/doc-b/branches"),
        (reqwest::Method::POST, "/api/v1/docs/doc-b/branches"),
        (reqwest::Method::DELETE, "/api/v1/docs/doc-b/branches/dev"),
        (
            reqwest::Method::PATCH,
            "/api/v1/docs/doc-b/branches/dev/set_default",
        ),
        (reqwest::Method::GET, "/api/v1/docs/doc-b/versions"),
    ] {
        let (status, body, _) = s
            .call(
                method.clone(),
                path,
                Some(&token_a),
                Some(json!({"name": "x"})),
            )
            .await;
        assert_eq!(status, 404, "{method} {path}: {body}");
    }
}

#[tokio::test]
async fn pagination_returns_each_of_250_branches_exactly_once_by_page_and_by_cursor() {
    let s = start().await;
    let (doc, _) = s.doc("big", None).await;
    let (other, _) = s.doc("other", None).await;
    let now = OffsetDateTime::now_utc();
    for i in 0..250 {
        let name = BranchName::parse(&format!("branch-{i:03}")).expect("name");
        s.store
            .create_branch(doc.id, &name, now)
            .await
            .expect("create");
    }
    s.store
        .create_branch(other.id, &BranchName::parse("x").expect("name"), now)
        .await
        .expect("create");
    let expected: HashSet<String> = (0..250).map(|i| format!("branch-{i:03}")).collect();

    // By page number.
    let mut seen = Vec::new();
    for page in 1..=3 {
        let (status, body, headers) = s
            .get(&format!("/api/v1/docs/big/branches?page={page}&limit=100"))
            .await;
        assert_eq!(status, 200);
        let h = |n: &str| {
            headers
                .get(n)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        assert_eq!(h("x-total-count").as_deref(), Some("250"));
        assert_eq!(h("x-page"), Some(page.to_string()));
        assert_eq!(h("x-per-page").as_deref(), Some("100"));
        let link = h("link").expect("Link");
        assert_eq!(link.contains("rel=\"next\""), page < 3, "{link}");
        assert_eq!(link.contains("rel=\"prev\""), page > 1, "{link}");
        seen.extend(slugs(&body));
    }
    assert_eq!(seen.len(), 250);
    assert_eq!(seen.iter().cloned().collect::<HashSet<_>>(), expected);
    let (_, body, _) = s.get("/api/v1/docs/big/branches?page=4&limit=100").await;
    assert_eq!(body, json!([]), "past the end");

    // By cursor, following `Link: rel="next"` with the envelope.
    let mut seen = Vec::new();
    let mut next = Some("/api/v1/docs/big/branches?limit=7&envelope=true".to_owned());
    let mut pages = 0;
    while let Some(path) = next.take() {
        let (status, body, _) = s.get(&path).await;
        assert_eq!(status, 200, "{path}: {body}");
        pages += 1;
        assert_eq!(body["meta"]["total_items"], json!(250));
        assert_eq!(body["meta"]["size"], json!(7));
        assert_eq!(body["meta"]["page"], json!(pages));
        seen.extend(slugs(&body["data"]));
        next = body["links"]["next"].as_str().map(str::to_owned);
        assert_eq!(body["meta"]["has_more"], json!(next.is_some()));
        if let Some(n) = &next {
            assert!(n.contains("cursor="), "{n}");
        }
        assert!(pages <= 40, "runaway pagination");
    }
    assert_eq!(pages, 36);
    assert_eq!(seen.len(), 250, "no duplicates");
    assert_eq!(seen.into_iter().collect::<HashSet<_>>(), expected);
}

#[tokio::test]
async fn bad_pagination_parameters_are_400_naming_the_parameter() {
    let s = start().await;
    s.doc("big", None).await;
    s.doc("other", None).await;
    for i in 0..3 {
        s.create_branch("big", &format!("b{i}")).await;
        s.create_branch("other", &format!("b{i}")).await;
    }
    let (_, body, _) = s
        .get("/api/v1/docs/big/branches?limit=1&envelope=true")
        .await;
    let cursor = body["meta"]["next_cursor"]
        .as_str()
        .expect("cursor")
        .to_owned();
    let (_, body, _) = s
        .get(&format!(
            "/api/v1/docs/other/branches?limit=1&cursor={cursor}"
        ))
        .await;
    assert!(
        body["message"]
            .as_str()
            .is_some_and(|m| m.contains("cursor")),
        "a cursor is bound to its list: {body}"
    );

    let mut tampered = cursor.clone().into_bytes();
    let last = tampered.len() - 1;
    tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).expect("ascii");
    for (query, parameter) in [
        ("page=0", "page"),
        ("page=-1", "page"),
        ("page=abc", "page"),
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("per_page=500", "per_page"),
        ("limit=2.5", "limit"),
        ("cursor=garbage", "cursor"),
        (&format!("cursor={tampered}"), "cursor"),
        ("envelope=yes", "envelope"),
    ] {
        let (status, body, _) = s.get(&format!("/api/v1/docs/big/branches?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(
            body["message"]
                .as_str()
                .is_some_and(|m| m.contains(&format!("`{parameter}`"))),
            "{query}: {body}"
        );
    }
    let (status, body, _) = s
        .get(&format!(
            "/api/v1/docs/big/branches?cursor={cursor}&limit=1"
        ))
        .await;
    assert_eq!(status, 200);
    assert_eq!(slugs(&body), ["b1"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn promote_and_delete_racing_end_consistent() {
    let s = Arc::new(start().await);
    let (doc, _) = s.doc("race", None).await;
    s.deploy("race", None, &spec("Race", "0"))
        .await
        .expect("main");
    for round in 0..12 {
        let branch = format!("r{round}");
        s.deploy("race", Some(&branch), &spec("Race", &round.to_string()))
            .await
            .expect("deploy");
        let (a, b) = (s.clone(), s.clone());
        let (br1, br2) = (branch.clone(), branch.clone());
        let promote = tokio::spawn(async move { a.promote("race", &br1).await.0 });
        let delete = tokio::spawn(async move { b.delete_branch("race", &br2).await.0 });
        let (p, d) = (
            promote.await.expect("promote"),
            delete.await.expect("delete"),
        );
        let default = s.default_branch(&doc).await;
        let exists = s
            .store
            .get_branch(
                doc.id,
                &specpress_domain::model::Slug::parse(&branch).expect("slug"),
            )
            .await
            .expect("read")
            .is_some();
        match (p, d) {
            (204, 422) => assert!(
                default == branch && exists,
                "promoted first: {default} {exists}"
            ),
            (404, 204) => assert!(
                default != branch && !exists,
                "deleted first: {default} {exists}"
            ),
            other => panic!("round {round}: inconsistent outcome {other:?}"),
        }
        let head = s
            .store
            .get_branch(
                doc.id,
                &specpress_domain::model::Slug::parse(&default).expect("slug"),
            )
            .await
            .expect("read");
        assert!(
            head.is_some_and(|b| b.head.is_some()),
            "the default branch always exists with a head"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_concurrent_promotions_leave_one_winner() {
    let s = Arc::new(start().await);
    let (doc, _) = s.doc("duel", None).await;
    s.deploy("duel", None, &spec("Duel", "0"))
        .await
        .expect("main");
    for round in 0..10 {
        let (x, y) = (format!("x{round}"), format!("y{round}"));
        s.deploy("duel", Some(&x), &spec("Duel", &format!("{round}1")))
            .await
            .expect("x");
        s.deploy("duel", Some(&y), &spec("Duel", &format!("{round}2")))
            .await
            .expect("y");
        let (a, b) = (s.clone(), s.clone());
        let (x2, y2) = (x.clone(), y.clone());
        let pa = tokio::spawn(async move { a.promote("duel", &x2).await.0 });
        let pb = tokio::spawn(async move { b.promote("duel", &y2).await.0 });
        assert_eq!(
            (pa.await.expect("x"), pb.await.expect("y")),
            (204, 204),
            "each promotion applies in turn"
        );
        let default = s.default_branch(&doc).await;
        assert!(default == x || default == y, "{default}");
        // The loser can now be deleted; the winner cannot.
        let (loser, winner) = if default == x { (y, x) } else { (x, y) };
        assert_eq!(s.delete_branch("duel", &winner).await.0, 422);
        assert_eq!(s.delete_branch("duel", &loser).await.0, 204);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_deploy_racing_a_branch_delete_ends_consistent() {
    let s = Arc::new(start().await);
    let (doc, _) = s.doc("churn", None).await;
    s.deploy("churn", None, &spec("Churn", "0"))
        .await
        .expect("main");
    for round in 0..12 {
        let branch = format!("tmp{round}");
        s.deploy("churn", Some(&branch), &spec("Churn", &format!("{round}0")))
            .await
            .expect("first");
        let (a, b) = (s.clone(), s.clone());
        let br = branch.clone();
        let body = spec("Churn", &format!("{round}1"));
        let deploying = tokio::spawn(async move { a.deploy("churn", Some(&br), &body).await });
        let br = branch.clone();
        let deleting = tokio::spawn(async move { b.delete_branch("churn", &br).await.0 });
        let version = deploying
            .await
            .expect("deploy task")
            .expect("the deploy lands");
        let deleted = deleting.await.expect("delete task");
        assert_eq!(deleted, 204, "round {round}");
        let slug = specpress_domain::model::Slug::parse(&branch).expect("slug");
        let now = OffsetDateTime::now_utc();
        let stored = s
            .store
            .get_version(
                version
                    .parse()
                    .map(specpress_domain::model::VersionId)
                    .expect("id"),
                now,
            )
            .await
            .expect("read");
        assert!(stored.is_some(), "the deployed version is never lost");
        // Either the deploy landed before the delete (the branch, with the new head, is gone), or after it: then
        // the branch was recreated with the new version as its only history.
        if let Some(b) = s.store.get_branch(doc.id, &slug).await.expect("read") {
            let head = b.head.expect("a recreated branch has a head");
            assert_eq!(head.version_id.to_string(), version);
            assert_eq!(b.seq, 1, "a new history starts");
            let (status, body, _) = s
                .get(&format!("/api/v1/docs/churn/versions?branch={branch}"))
                .await;
            assert_eq!(status, 200);
            assert_eq!(
                body.as_array().map(Vec::len),
                Some(1),
                "old history is not mixed in: {body}"
            );
        }
    }
}

/// Rounds of each concurrent-deploy test: a lost version depends on the interleaving, so one round can pass by
/// luck (before the generation fix, one round lost a version about half the time).
const ROUNDS: usize = 6;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_deploys_to_a_new_branch_are_each_listed_exactly_once() {
    let s = Arc::new(start().await);
    s.doc("burst", None).await;
    for round in 0..ROUNDS {
        let ids = s
            .concurrent_deploys(50, |i| {
                json!({
                    "documentation": "burst",
                    "branch_name": format!("Fresh/Branch {round}"),
                    "definition": spec("Burst", &format!("{round}.{i}")),
                })
            })
            .await;
        let (walked, totals) = s
            .walk_versions(&format!(
                "/api/v1/docs/burst/versions?branch=fresh-branch-{round}&limit=7"
            ))
            .await;
        assert_lists_exactly(&walked, &totals, &ids);
        assert_eq!(totals.len(), 8, "50 versions in pages of 7");

        // By page number too, newest first: positions 50 down to 1.
        let mut positions = Vec::new();
        for page in 1..=6 {
            let (status, body, _) = s
                .get(&format!(
                    "/api/v1/docs/burst/versions?branch=fresh-branch-{round}&limit=10&page={page}"
                ))
                .await;
            assert_eq!(status, 200, "{body}");
            positions.extend(
                body.as_array()
                    .expect("array")
                    .iter()
                    .map(|v| v["position"].as_u64().expect("position")),
            );
        }
        assert_eq!(positions, (1..=50).rev().collect::<Vec<u64>>());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_concurrent_auto_create_deploys_to_a_new_documentation_are_each_listed_exactly_once()
{
    let s = Arc::new(start().await);
    for round in 0..ROUNDS {
        let doc = format!("born-busy-{round}");
        let ids = s
            .concurrent_deploys(20, |i| {
                json!({
                    "documentation": doc,
                    "auto_create_documentation": true,
                    "definition": spec("Born", &format!("{round}.{i}")),
                })
            })
            .await;
        let (walked, totals) = s
            .walk_versions(&format!("/api/v1/docs/{doc}/versions?limit=3"))
            .await;
        assert_lists_exactly(&walked, &totals, &ids);
        let (walked, totals) = s
            .walk_versions(&format!(
                "/api/v1/docs/{doc}/versions?branch=main&limit=100"
            ))
            .await;
        assert_lists_exactly(&walked, &totals, &ids);
        assert_eq!(totals.len(), 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn deploys_racing_a_branch_delete_and_recreate_are_listed_exactly_once_in_the_incarnation_they_joined()
 {
    let s = Arc::new(start().await);
    s.doc("phoenix", None).await;
    // The default branch has a release, so the branches raced on are never the default (a documentation's first
    // release on a branch would make it the default, which cannot be deleted).
    s.deploy("phoenix", None, &spec("Phoenix", "main"))
        .await
        .expect("main");
    for round in 0..ROUNDS {
        let branch = format!("phoenix-{round}");
        let (status, seed) = s
            .deploy_over_http(json!({
                "documentation": "phoenix",
                "branch_name": branch,
                "definition": spec("Phoenix", &format!("{round}")),
            }))
            .await;
        assert_eq!(status, 201, "{seed}");
        // Deploys on both sides of a delete followed at once by a re-creation (`POST .../branches`).
        let s2 = s.clone();
        let br = branch.clone();
        let churn = tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            let deleted = s2.delete_branch("phoenix", &br).await.0;
            let created = s2.create_branch("phoenix", &br).await.0;
            (deleted, created)
        });
        let br = branch.clone();
        let mut ids = s
            .concurrent_deploys(24, move |i| {
                json!({
                    "documentation": "phoenix",
                    "branch_name": br,
                    "definition": spec("Phoenix", &format!("{round}.{i}")),
                })
            })
            .await;
        let (deleted, created) = churn.await.expect("churn task");
        assert_eq!(deleted, 204, "round {round}");
        assert!(created == 201 || created == 204, "round {round}: {created}");
        ids.push(seed["id"].as_str().expect("id").to_owned());

        // The current branch's history: every position once, newest first, as a chain down to its first version.
        let (walked, totals) = s
            .walk_versions(&format!(
                "/api/v1/docs/phoenix/versions?branch={branch}&limit=4"
            ))
            .await;
        let mut listed = Vec::new();
        for page in 1.. {
            let (status, body, _) = s
                .get(&format!(
                    "/api/v1/docs/phoenix/versions?branch={branch}&limit=5&page={page}"
                ))
                .await;
            assert_eq!(status, 200, "{body}");
            let page = body.as_array().expect("array").clone();
            if page.is_empty() {
                break;
            }
            listed.extend(page);
        }
        let by_page: Vec<String> = listed
            .iter()
            .map(|v| v["id"].as_str().expect("id").to_owned())
            .collect();
        assert_eq!(walked, by_page, "cursor and page walks agree");
        assert!(
            totals.iter().all(|t| *t == listed.len() as u64),
            "{totals:?}"
        );
        let positions: Vec<u64> = listed
            .iter()
            .map(|v| v["position"].as_u64().expect("position"))
            .collect();
        assert_eq!(
            positions,
            (1..=listed.len() as u64).rev().collect::<Vec<_>>()
        );
        for (k, v) in listed.iter().enumerate() {
            assert!(ids.contains(&v["id"].as_str().expect("id").to_owned()));
            let below = listed
                .get(k + 1)
                .map(|p| p["id"].clone())
                .unwrap_or(Value::Null);
            assert_eq!(
                v["previous_version_id"], below,
                "round {round}: the history is one chain"
            );
        }
        // No acknowledged version was committed on top of a listed one without being listed itself.
        let listed_ids: HashSet<&str> = by_page.iter().map(String::as_str).collect();
        for id in &ids {
            let (status, v, _) = s.get(&format!("/api/v1/versions/{id}")).await;
            assert_eq!(
                status, 200,
                "every acknowledged version stays readable: {v}"
            );
            if let Some(previous) = v["previous_version_id"].as_str() {
                assert!(
                    !listed_ids.contains(previous) || listed_ids.contains(id.as_str()),
                    "round {round}: {id} follows listed {previous} but is not listed"
                );
            }
        }
    }
}

//! Specpress's own API description against the app `specpress serve` runs: every route under `/api/v1` is
//! described (method for method) and every described operation is routed; the document is served with the
//! server's own URL; and `specpress serve` publishes it as the documentation `specpress-api`.
//!
//! The routes are read from the real app, every function's router merged as `specpress serve` merges them: the
//! path templates from axum's `Debug` output of the router (the only view axum gives of its route table), the
//! methods of each template from the router itself (a request with a method no route takes is answered 405 with
//! `Allow` listing the ones it does). Reading the `Debug` output is checked in turn: every template it yields must
//! be routed, and the known routes must be among them, so a change of axum's format fails here instead of letting
//! routes go unchecked.

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use http_body_util::BodyExt as _;
use serde_json::Value;
use specpress_api::{ApiConfig, AppState};
use specpress_domain::model::OrgId;
use specpress_domain::ports::NoPublisher;
use specpress_domain::token::{Principal, Scope};
use specpress_domain::usecases::manage::{Bootstrap, bootstrap_default_org, create_doc};
use specpress_engines::Engines;
use specpress_local_server::backend::{Backend, BackendOptions};
use specpress_local_server::self_doc::{SelfDoc, publish, self_doc_id};
use specpress_local_server::webhooks::LocalWebhooks;
use time::OffsetDateTime;
use tower::ServiceExt as _;

const BASE: &str = "http://127.0.0.1:3999";

struct Harness {
    app: Router,
    state: AppState,
    engine: Arc<Engines>,
    org: OrgId,
    token: String,
    hooks: Option<LocalWebhooks>,
    backend: Option<Backend>,
    _dir: tempfile::TempDir,
}

impl Harness {
    async fn start() -> Harness {
        let dir = tempfile::tempdir().expect("temp dir");
        let backend = Backend::connect(&BackendOptions {
            data_dir: dir.path().to_path_buf(),
            table: None,
            create_table: false,
        })
        .await
        .expect("embedded engine");
        let (org, token) = match bootstrap_default_org(
            backend.store.as_ref(),
            "Local",
            None,
            OffsetDateTime::now_utc(),
        )
        .await
        .expect("bootstrap")
        {
            Bootstrap::Minted(org, token) => (org.id, token.secret.clone()),
            other => panic!("a fresh store mints: {other:?}"),
        };
        let hooks = LocalWebhooks::start(&backend.store, BASE, dir.path())
            .await
            .expect("webhooks");
        let state = AppState::new(hooks.store.clone(), ApiConfig::new(BASE));
        let engine = Arc::new(Engines::default());
        let app =
            specpress::app_with_webhooks(state.clone(), engine.clone(), hooks.service.clone());
        Harness {
            app,
            state,
            engine,
            org,
            token,
            hooks: Some(hooks),
            backend: Some(backend),
            _dir: dir,
        }
    }

    async fn send(
        &self,
        method: Method,
        uri: &str,
    ) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
        self.send_as(method, uri, None).await
    }

    async fn send_as(
        &self,
        method: Method,
        uri: &str,
        token: Option<&str>,
    ) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
        let mut req = Request::builder().method(method).uri(uri);
        if let Some(t) = token {
            req = req.header(header::AUTHORIZATION, format!("Token {t}"));
        }
        let req = req.body(Body::empty()).expect("request");
        let resp = self.app.clone().oneshot(req).await.expect("infallible");
        let status = resp.status();
        let headers = resp.headers().clone();
        let body = resp
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes()
            .to_vec();
        (status, headers, body)
    }

    async fn stop(mut self) {
        if let Some(h) = self.hooks.take() {
            h.stop().await;
        }
        if let Some(b) = self.backend.take() {
            b.close().await;
        }
    }
}

/// Path templates in axum's `Debug` output of a router: `RouteId(3): "/api/v1/docs/{doc}/branches"`, in its path
/// router (what follows, the fallback router, holds the catch-all paths of the fallback).
fn debug_paths(app: &Router) -> BTreeSet<String> {
    let text = format!("{app:?}");
    let routes = text.split("fallback_router:").next().unwrap_or("");
    assert!(
        text.starts_with("Router { path_router:"),
        "axum's Debug format of a router changed"
    );
    let mut out = BTreeSet::new();
    let mut rest = routes;
    while let Some(i) = rest.find("RouteId(") {
        rest = &rest[i + "RouteId(".len()..];
        let Some(close) = rest.find("): \"") else {
            continue;
        };
        if !rest[..close].bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let after = &rest[close + 4..];
        if let Some(end) = after.find('"') {
            let path = &after[..end];
            if path.starts_with('/') && !path.contains("__private__axum") {
                out.insert(path.to_owned());
            }
        }
    }
    out
}

/// A concrete URI for a template (`{x}` -> `x`).
fn concrete(template: &str) -> String {
    let mut out = String::new();
    let mut in_param = false;
    for c in template.chars() {
        match c {
            '{' => in_param = true,
            '}' => {
                in_param = false;
                out.push('x');
            }
            _ if in_param => {}
            c => out.push(c),
        }
    }
    out
}

/// The methods the app routes for a template: a method no route takes gets 405 and `Allow`.
async fn routed_methods(h: &Harness, template: &str) -> BTreeSet<String> {
    let probe = Method::from_bytes(b"PROBE").expect("extension method");
    let (status, headers, _) = h.send(probe, &concrete(template)).await;
    assert_eq!(
        status,
        StatusCode::METHOD_NOT_ALLOWED,
        "{template} is routed"
    );
    let allow = headers
        .get(header::ALLOW)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    allow
        .split(',')
        .map(|m| m.trim().to_ascii_uppercase())
        .filter(|m| !m.is_empty() && m != "HEAD")
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_api_route_of_the_local_server_is_described_and_every_described_operation_is_routed()
{
    let h = Harness::start().await;
    let templates = debug_paths(&h.app);
    for known in [
        "/api/v1/ping",
        "/api/v1/docs/{doc}/branches",
        "/api/v1/docs/{doc}/webhooks/{id}",
        "/doc/{doc}",
    ] {
        assert!(
            templates.contains(known),
            "the route table read from the router misses {known} (did axum's Debug format change?): {templates:#?}"
        );
    }
    let mut routed = BTreeSet::new();
    for template in &templates {
        let methods = routed_methods(&h, template).await;
        assert!(!methods.is_empty(), "{template}: no method");
        if template.starts_with("/api/v1/") {
            for m in methods {
                routed.insert((m, template.clone()));
            }
        }
    }
    let described: BTreeSet<(String, String)> = specpress_openapi::operations()
        .expect("the document parses")
        .into_iter()
        .collect();
    let undescribed: Vec<_> = routed.difference(&described).collect();
    let unrouted: Vec<_> = described.difference(&routed).collect();
    assert!(
        undescribed.is_empty(),
        "routes without a description in shared/openapi/specpress-api.yaml: {undescribed:#?}"
    );
    assert!(
        unrouted.is_empty(),
        "described operations the server does not route: {unrouted:#?}"
    );
    assert!(routed.len() >= 36, "{} operations", routed.len());
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_document_is_served_without_a_token_naming_the_server_itself() {
    let h = Harness::start().await;
    let (status, headers, body) = h.send(Method::GET, "/api/v1/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[header::CONTENT_TYPE], "application/json");
    let served: Value = serde_json::from_slice(&body).expect("json");
    assert_eq!(
        served["servers"],
        serde_json::json!([{"url": format!("{BASE}/api/v1"), "description": "This Specpress server"}])
    );
    assert_eq!(
        served,
        specpress_openapi::json(&format!("{BASE}/api/v1")).expect("document")
    );

    let (status, headers, body) = h.send(Method::GET, "/api/v1/openapi.yaml").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        headers[header::CONTENT_TYPE],
        "application/yaml; charset=utf-8"
    );
    let text = String::from_utf8(body).expect("utf-8");
    assert_eq!(text, specpress_openapi::yaml(&format!("{BASE}/api/v1")));
    assert!(
        text.contains(&format!("url: \"{BASE}/api/v1\"")),
        "{}",
        &text[..600]
    );
    h.stop().await;
}

/// The versions of the documentation's default branch, as `GET /docs/{doc}/versions` lists them (none when it has no
/// branch yet).
async fn versions_of(h: &Harness, doc: &str) -> Vec<Value> {
    let uri = format!("/api/v1/docs/{doc}/versions?limit=100");
    let (status, _, body) = h.send_as(Method::GET, &uri, Some(&h.token)).await;
    let body: Value = serde_json::from_slice(&body).expect("json");
    match status {
        StatusCode::OK => body.as_array().cloned().expect("a list"),
        StatusCode::NOT_FOUND if body["message"] == "Branch not found" => Vec::new(),
        other => panic!("versions of {doc}: {other} {body}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_is_published_once_and_again_only_when_it_changes() {
    let h = Harness::start().await;
    let store = h.state.store.as_ref();
    let engine = h.engine.as_ref();
    let now = OffsetDateTime::now_utc;
    assert_eq!(
        publish(store, &NoPublisher, engine, h.org, BASE, now())
            .await
            .expect("first"),
        SelfDoc::Published
    );
    assert_eq!(
        publish(store, &NoPublisher, engine, h.org, BASE, now())
            .await
            .expect("same"),
        SelfDoc::Unchanged
    );
    let first = versions_of(&h, "specpress-api").await;
    assert_eq!(first.len(), 1);
    assert_eq!(first[0]["title"], "Specpress API");

    // What a newer Specpress does: its document differs (here, the server it names), so a new version.
    assert_eq!(
        publish(
            store,
            &NoPublisher,
            engine,
            h.org,
            "http://127.0.0.1:4000",
            now()
        )
        .await
        .expect("changed"),
        SelfDoc::Published
    );
    assert_eq!(versions_of(&h, "specpress-api").await.len(), 2);

    // It is a documentation like the others: listed, with its id derived from the organization's.
    let p = Principal {
        org_id: h.org,
        scope: Scope::Org,
    };
    let docs = specpress_domain::usecases::manage::list_docs(store, &p, None)
        .await
        .expect("docs");
    let ours: Vec<_> = docs
        .iter()
        .filter(|d| d.slug.as_str() == "specpress-api")
        .collect();
    assert_eq!(ours.len(), 1);
    assert_eq!(ours[0].id, self_doc_id(h.org));
    assert_eq!(ours[0].name, "Specpress API");

    // Its public URL serves it.
    let (status, _, body) = h.send(Method::GET, "/doc/specpress-api.json").await;
    assert_eq!(status, StatusCode::OK);
    let served: Value = serde_json::from_slice(&body).expect("json");
    assert_eq!(served["info"]["title"], "Specpress API");
    assert_eq!(served["servers"][0]["url"], "http://127.0.0.1:4000/api/v1");
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_users_documentation_holding_the_slug_is_left_untouched() {
    let h = Harness::start().await;
    let store = h.state.store.as_ref();
    let p = Principal {
        org_id: h.org,
        scope: Scope::Org,
    };
    let (doc, _) = create_doc(
        store,
        &p,
        "Mine",
        Some("specpress-api"),
        None,
        specpress_domain::model::Visibility::Public,
        OffsetDateTime::now_utc(),
    )
    .await
    .expect("a user's documentation");
    let outcome = publish(
        store,
        &NoPublisher,
        h.engine.as_ref(),
        h.org,
        BASE,
        OffsetDateTime::now_utc(),
    )
    .await;
    assert_eq!(outcome.expect("publish"), SelfDoc::SlugTaken);
    assert!(
        versions_of(&h, "specpress-api").await.is_empty(),
        "nothing was deployed to it"
    );
    let docs = specpress_domain::usecases::manage::list_docs(store, &p, None)
        .await
        .expect("docs");
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0].id, doc.id);
    assert_eq!(docs[0].name, "Mine");
    h.stop().await;
}

#[test]
fn the_self_doc_setting_is_read_strictly() {
    use specpress::cli::Cli;
    let self_doc = |args: &[&str]| {
        let mut all = vec!["specpress", "serve"];
        all.extend_from_slice(args);
        Cli::try_from_args(all).map(|c| c.serve_options().map(|o| o.self_doc))
    };
    assert_eq!(self_doc(&[]).ok(), Some(Some(true)));
    assert_eq!(self_doc(&["--self-doc", "TRUE"]).ok(), Some(Some(true)));
    assert_eq!(self_doc(&["--self-doc", "false"]).ok(), Some(Some(false)));
    assert_eq!(self_doc(&["--self-doc", " False "]).ok(), Some(Some(false)));
    assert_eq!(self_doc(&["--no-self-doc"]).ok(), Some(Some(false)));
    let err = self_doc(&["--self-doc", "no"])
        .expect_err("refused")
        .to_string();
    assert!(
        err.contains("SPECPRESS_SELF_DOC") && err.contains("'no'"),
        "{err}"
    );
}

#[test]
fn the_reference_documentation_id_is_stable_and_differs_between_organizations() {
    let a = OrgId::new();
    let b = OrgId::new();
    assert_eq!(self_doc_id(a), self_doc_id(a));
    assert_ne!(self_doc_id(a), self_doc_id(b));
}

/// The HTTP API routes of the SAM template: (function resource, method, path pattern).
fn sam_routes() -> Vec<(String, String, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../template.yaml");
    let text = std::fs::read_to_string(&path).expect("template.yaml");
    let mut out = Vec::new();
    let mut resource = String::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("  ").and_then(|l| l.strip_suffix(':'))
            && !name.starts_with(' ')
            && name.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            resource = name.to_owned();
            continue;
        }
        if !line.contains("Type: HttpApi") {
            continue;
        }
        // `Method: GET,` and `Path: /a/b` or `Path: '/a/{b}'` (a quoted value runs to its closing quote; a bare one
        // to the next space or comma).
        let field = |key: &str| {
            let start = line.find(key)? + key.len();
            let rest = &line[start..];
            let value = match rest.strip_prefix('\'') {
                Some(quoted) => &quoted[..quoted.find('\'')?],
                None => &rest[..rest.find([' ', ',']).unwrap_or(rest.len())],
            };
            Some(value.to_owned())
        };
        if let (Some(method), Some(path)) = (field("Method: "), field("Path: ")) {
            out.push((resource.clone(), method, path));
        }
    }
    out
}

/// How specifically an API Gateway route pattern matches a path: `None` when it does not; otherwise (no greedy
/// segment, literal segments, parameter segments), larger being more specific (API Gateway picks the most specific).
fn route_match(pattern: &str, path: &str) -> Option<(bool, usize, usize)> {
    let pattern: Vec<&str> = pattern.trim_start_matches('/').split('/').collect();
    let path: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (mut literals, mut params) = (0, 0);
    for (i, p) in pattern.iter().enumerate() {
        if p.starts_with('{') && p.ends_with("+}") {
            return (path.len() > i).then_some((false, literals, params));
        }
        let seg = path.get(i)?;
        if p.starts_with('{') {
            params += 1;
        } else if p == seg {
            literals += 1;
        } else {
            return None;
        }
    }
    (pattern.len() == path.len()).then_some((true, literals, params))
}

#[test]
fn api_gateway_route_patterns_match_as_documented() {
    assert_eq!(route_match("/doc/{doc}", "/doc/x"), Some((true, 1, 1)));
    assert_eq!(route_match("/doc/{doc}", "/doc/x/y"), None);
    assert_eq!(
        route_match("/doc/{doc}/{proxy+}", "/doc/x/y/z"),
        Some((false, 1, 1))
    );
    assert_eq!(route_match("/doc/{doc}/{proxy+}", "/doc/x"), None);
    assert_eq!(route_match("/sign-in", "/sign-in"), Some((true, 1, 0)));
}

/// Every route of every Lambda function's router reaches that very function on AWS: API Gateway's most specific
/// route for the method and path (a method of its own before `ANY`) is one of that function's events. A route
/// missing from template.yaml would answer 404 on AWS while every local test passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_of_every_function_reaches_that_function_through_the_sam_template() {
    let h = Harness::start().await;
    let sam = sam_routes();
    assert!(
        sam.len() >= 35,
        "{} routes read from template.yaml",
        sam.len()
    );
    let hooks = h.hooks.as_ref().expect("webhooks").service.clone();
    let functions: Vec<(&str, Router)> = vec![
        (
            "DeployFunction",
            specpress_api_deploy::router(h.state.clone(), h.engine.clone()),
        ),
        (
            "DiffsFunction",
            specpress_api_diffs::router(h.state.clone()),
        ),
        (
            "BranchesFunction",
            specpress_api_branches::router(h.state.clone()),
        ),
        ("HubsFunction", specpress_api_hubs::router(h.state.clone())),
        ("DocsFunction", specpress_site::router(h.state.clone())),
        (
            "DocsMcpFunction",
            specpress_docs_mcp::router(h.state.clone()),
        ),
        ("TryItFunction", specpress_try_it::router(h.state.clone())),
        (
            "McpServersFunction",
            specpress_mcp_servers_api::router(h.state.clone(), hooks.sealer.clone()),
        ),
        (
            "WorkflowMcpFunction",
            specpress_workflow_mcp::router(h.state.clone(), hooks.sealer.clone()).expect("client"),
        ),
        (
            "WebhooksFunction",
            specpress_api_webhooks::router(h.state.clone(), hooks),
        ),
    ];
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (resource, router) in functions {
        let single = Harness {
            app: router.clone(),
            state: h.state.clone(),
            engine: h.engine.clone(),
            org: h.org,
            token: h.token.clone(),
            hooks: None,
            backend: None,
            _dir: tempfile::tempdir().expect("dir"),
        };
        for template in debug_paths(&router) {
            let path = concrete(&template);
            for method in routed_methods(&single, &template).await {
                let best = sam
                    .iter()
                    .filter(|(_, m, _)| *m == method || m == "ANY")
                    .filter_map(|(r, m, p)| route_match(p, &path).map(|s| ((s, m != "ANY"), r, p)))
                    .max_by_key(|(score, _, _)| *score);
                checked += 1;
                match best {
                    Some((_, r, _)) if r == resource => {}
                    Some((_, r, p)) => wrong.push(format!("{method} {template}: {resource} serves it, API Gateway sends it to {r} ({p})")),
                    None => wrong.push(format!("{method} {template}: {resource} serves it, template.yaml routes nothing there")),
                }
            }
        }
    }
    assert!(checked >= 60, "{checked} routes checked");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    h.stop().await;
}

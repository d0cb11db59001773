//! HTTP tests of the diff API on a real server (127.0.0.1, embedded DynamoDB engine), the SSRF refusals of URL
//! diffs, and end-to-end runs of the official bump-cli (`bump diff A B`).

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use futures_channel::oneshot;
use serde_json::{Value, json};
use specpress_api::{ApiConfig, AppState};
use specpress_api_diffs::engine::SpecDiffEngine;
use specpress_api_diffs::fetcher::SafeFetcher;
use specpress_api_diffs::{DiffsConfig, router_with, router_with_parts};
use specpress_domain::model::Bundle;
use specpress_domain::ports::{Comparison, DiffEngine};
use specpress_domain::{DomainError, Result as DomainResult};
use specpress_fetch::{DnsResolve, FetchPolicy, SafeClient};
use specpress_local::embedded::{Embedded, Storage};

const V1: &str = r#"{"openapi":"3.0.3","info":{"title":"Pets","version":"1.0.0"},"paths":{
  "/pets":{"get":{"responses":{"200":{"description":"ok"}}}},
  "/users":{"get":{"responses":{"200":{"description":"ok"}}}}}}"#;
/// V1 without `/users` (breaking) and with `/toys` (added).
const V2: &str = r#"{"openapi":"3.0.3","info":{"title":"Pets v2","version":"2.0.0"},"paths":{
  "/pets":{"get":{"responses":{"200":{"description":"ok"}}}},
  "/toys":{"get":{"responses":{"200":{"description":"ok"}}}}}}"#;
/// V1 plus `/toys` (not breaking).
const V3: &str = r#"{"openapi":"3.0.3","info":{"title":"Pets","version":"1.1.0"},"paths":{
  "/pets":{"get":{"responses":{"200":{"description":"ok"}}}},
  "/users":{"get":{"responses":{"200":{"description":"ok"}}}},
  "/toys":{"get":{"responses":{"200":{"description":"ok"}}}}}}"#;

struct Server {
    base: String,
    http: reqwest::Client,
    _db: Embedded,
}

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move {
        let _ = axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await;
    });
    format!("http://{addr}")
}

/// Starts the diff routes on 127.0.0.1 with `config`, or with an injected downloader.
async fn start_with(config: DiffsConfig, fetcher: Option<SafeClient>) -> Server {
    let db = Embedded::start(Storage::Memory)
        .await
        .expect("embedded engine");
    let store = db.store("specpress").await.expect("table");
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("local addr");
    let base = format!("http://{addr}");
    let state = AppState::new(
        Arc::new(store),
        ApiConfig {
            max_body_bytes: 6 * 1024 * 1024,
            ..ApiConfig::new(base.clone())
        },
    );
    let app = match fetcher {
        Some(client) => router_with_parts(
            state,
            config,
            Arc::new(SpecDiffEngine::default()),
            Arc::new(SafeFetcher::from_client(client)),
        ),
        None => router_with(state, config),
    };
    let app = specpress_api::with_common_layers(app);
    tokio::spawn(async move {
        let _ = axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await;
    });
    Server {
        base,
        http: reqwest::Client::new(),
        _db: db,
    }
}

fn no_limits() -> DiffsConfig {
    DiffsConfig {
        rate_per_minute: 0,
        ..DiffsConfig::default()
    }
}

async fn start() -> Server {
    start_with(no_limits(), None).await
}

impl Server {
    async fn post(&self, body: &Value) -> (u16, Value) {
        let r = self
            .http
            .post(format!("{}/api/v1/diffs", self.base))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .expect("request");
        let status = r.status().as_u16();
        let text = r.text().await.expect("body");
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    async fn get(&self, path: &str) -> (u16, String) {
        let r = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("request");
        (r.status().as_u16(), r.text().await.expect("body"))
    }

    async fn get_json(&self, path: &str) -> (u16, Value) {
        let (s, t) = self.get(path).await;
        (s, serde_json::from_str(&t).unwrap_or(Value::Null))
    }

    async fn create(&self, previous: &str, current: &str) -> String {
        let (s, b) = self
            .post(&json!({"previous_definition": previous, "definition": current}))
            .await;
        assert_eq!(s, 201, "{b}");
        b["id"].as_str().expect("id").to_owned()
    }
}

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    k.sort();
    k
}

#[tokio::test]
async fn create_answers_201_with_id_and_public_url_and_get_returns_default_formats() {
    let s = start().await;
    let (status, body) = s
        .post(&json!({"previous_definition": V1, "definition": V2}))
        .await;
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_str().expect("id");
    assert_eq!(body["public_url"], json!(format!("{}/diff/{id}", s.base)));

    let (status, diff) = s.get_json(&format!("/api/v1/diffs/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(
        keys(&diff),
        [
            "breaking",
            "current_version_url",
            "expires_at",
            "id",
            "markdown",
            "previous_version_url",
            "public_url",
            "text",
            "title"
        ]
    );
    assert_eq!(diff["breaking"], json!(true));
    assert_eq!(diff["title"], json!("Pets v2"));
    let text = diff["text"].as_str().expect("text");
    assert!(text.contains("/users") && text.contains("/toys"), "{text}");
    assert_eq!(
        diff["previous_version_url"],
        json!(format!("{}/diff/{id}/previous.json", s.base))
    );
}

#[tokio::test]
async fn formats_accept_rails_arrays_repeats_and_commas_and_refuse_unknown_values() {
    let s = start().await;
    let id = s.create(V1, V2).await;
    let shown = |v: &Value| {
        ["text", "markdown", "html", "details"]
            .iter()
            .filter(|k| v.get(**k).is_some())
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
    };
    let (_, v) = s
        .get_json(&format!("/api/v1/diffs/{id}?formats[]=json"))
        .await;
    assert_eq!(shown(&v), ["details"]);
    assert!(
        v["details"].as_array().is_some_and(|a| !a.is_empty()),
        "{v}"
    );
    let (_, v) = s
        .get_json(&format!(
            "/api/v1/diffs/{id}?formats%5B%5D=html&formats%5B%5D=text"
        ))
        .await;
    assert_eq!(shown(&v), ["text", "html"]);
    assert!(v["html"].as_str().is_some_and(|h| h.contains('<')));
    let (_, v) = s
        .get_json(&format!("/api/v1/diffs/{id}?formats=markdown&formats=json"))
        .await;
    assert_eq!(shown(&v), ["markdown", "details"]);
    let (_, v) = s
        .get_json(&format!(
            "/api/v1/diffs/{id}?formats=text,html,json,markdown"
        ))
        .await;
    assert_eq!(shown(&v), ["text", "markdown", "html", "details"]);
    let (status, v) = s.get_json(&format!("/api/v1/diffs/{id}?formats=pdf")).await;
    assert_eq!(status, 400, "{v}");
    assert!(
        v["message"].as_str().is_some_and(|m| m.contains("formats")),
        "{v}"
    );
    // Sixteen values are read; a seventeenth is refused rather than ignored unchecked (found by schemathesis).
    let sixteen = "formats[]=text&".repeat(16);
    let (status, v) = s.get_json(&format!("/api/v1/diffs/{id}?{sixteen}")).await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = s
        .get_json(&format!("/api/v1/diffs/{id}?{sixteen}formats[]=pdf"))
        .await;
    assert_eq!(status, 400, "{v}");
    assert!(
        v["message"]
            .as_str()
            .is_some_and(|m| m.contains("at most 16")),
        "{v}"
    );
}

#[tokio::test]
async fn missing_or_mixed_pairs_are_422_naming_the_missing_field() {
    let s = start().await;
    let cases = [
        (json!({}), "definition"),
        (json!({"definition": V2}), "previous_definition"),
        (json!({"previous_definition": V1}), "definition"),
        (json!({"url": "https://example.com/b.json"}), "previous_url"),
        (json!({"previous_url": "https://example.com/a.json"}), "url"),
        (
            json!({"previous_definition": V1, "definition": V2, "url": "https://e.com/b", "previous_url": "https://e.com/a"}),
            "url",
        ),
        (
            json!({"previous_definition": "", "definition": V2}),
            "previous_definition",
        ),
    ];
    for (body, field) in cases {
        let (status, resp) = s.post(&body).await;
        assert_eq!(status, 422, "{body} -> {resp}");
        assert!(
            resp["errors"][field].is_array(),
            "{body} should name {field}: {resp}"
        );
        assert!(
            resp["message"].as_str().is_some_and(|m| m.contains(field)),
            "{resp}"
        );
    }
}

#[tokio::test]
async fn invalid_documents_bodies_and_expiries_are_refused() {
    let s = start().await;
    let (status, resp) = s
        .post(&json!({"previous_definition": V1, "definition": "{\"openapi\": 3"}))
        .await;
    assert_eq!(status, 422, "{resp}");
    assert!(
        resp["errors"]["definition"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        "{resp}"
    );
    let (status, resp) = s
        .post(&json!({"previous_definition": "not: [an api", "definition": V1}))
        .await;
    assert_eq!(status, 422);
    assert!(resp["errors"]["previous_definition"].is_array(), "{resp}");

    for bad in ["2001-01-01T00:00:00Z", "tomorrow", "3000-01-01"] {
        let (status, resp) = s
            .post(&json!({"previous_definition": V1, "definition": V2, "expires_at": bad}))
            .await;
        assert_eq!(status, 422, "{bad}: {resp}");
        assert!(resp["errors"]["expires_at"].is_array(), "{resp}");
    }
    let (status, resp) = s
        .post(&json!({"previous_definition": V1, "definition": V2, "expires_at": "never"}))
        .await;
    assert_eq!(status, 201, "{resp}");

    let r = s
        .http
        .post(format!("{}/api/v1/diffs", s.base))
        .body("{not json")
        .send()
        .await
        .expect("request");
    assert_eq!(r.status().as_u16(), 400);
    let (status, resp) = s
        .post(&json!({"previous_definition": 12, "definition": V2}))
        .await;
    assert_eq!(status, 422, "{resp}");
}

#[tokio::test]
async fn bodies_over_the_configured_limit_are_413() {
    let s = start_with(
        DiffsConfig {
            max_body_bytes: Some(64 * 1024),
            ..no_limits()
        },
        None,
    )
    .await;
    let big = format!(
        "{{\"openapi\":\"3.0.3\",\"info\":{{\"title\":\"{}\",\"version\":\"1\"}},\"paths\":{{}}}}",
        "x".repeat(70 * 1024)
    );
    let (status, resp) = s
        .post(&json!({"previous_definition": V1, "definition": big}))
        .await;
    assert_eq!(status, 413, "{resp}");
    assert!(
        resp["message"]
            .as_str()
            .is_some_and(|m| m.contains("65536")),
        "{resp}"
    );
    let (status, _) = s
        .post(&json!({"previous_definition": V1, "definition": V2}))
        .await;
    assert_eq!(status, 201);
}

#[tokio::test]
async fn unknown_malformed_and_expired_ids_are_404() {
    let s = start().await;
    let (status, v) = s
        .get_json("/api/v1/diffs/6f1c4b9e-0000-4000-8000-000000000000")
        .await;
    assert_eq!(status, 404);
    assert_eq!(v["message"], json!("Diff not found"));
    assert_eq!(s.get("/api/v1/diffs/not-a-uuid").await.0, 404);
    assert_eq!(s.get("/api/v1/diffs/not-a-uuid/previous.json").await.0, 404);

    let soon = time::OffsetDateTime::now_utc() + time::Duration::seconds(2);
    let soon = soon
        .format(&time::format_description::well_known::Rfc3339)
        .expect("format");
    let (status, resp) = s
        .post(&json!({"previous_definition": V1, "definition": V2, "expires_at": soon}))
        .await;
    assert_eq!(status, 201, "{resp}");
    let id = resp["id"].as_str().expect("id").to_owned();
    assert_eq!(s.get(&format!("/api/v1/diffs/{id}")).await.0, 200);
    tokio::time::sleep(Duration::from_millis(2600)).await;
    assert_eq!(
        s.get(&format!("/api/v1/diffs/{id}")).await.0,
        404,
        "expired diffs are gone"
    );
    assert_eq!(s.get(&format!("/diff/{id}/current.json")).await.0, 404);
}

#[tokio::test]
async fn previous_and_current_json_return_the_two_documents() {
    let s = start().await;
    let yaml_v1 = "openapi: 3.0.3\ninfo:\n  title: Pets\n  version: 1.0.0\npaths: {}\n";
    let id = s.create(yaml_v1, V2).await;
    for path in [
        format!("/api/v1/diffs/{id}/previous.json"),
        format!("/diff/{id}/previous.json"),
    ] {
        let (status, text) = s.get(&path).await;
        assert_eq!(status, 200);
        let doc: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(doc["info"]["version"], json!("1.0.0"), "{path}");
    }
    let (status, text) = s.get(&format!("/api/v1/diffs/{id}/current.json")).await;
    assert_eq!(status, 200);
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(doc["info"]["title"], json!("Pets v2"));
    // The page at `/diff/{id}` is the docs function's (tests/tests/portal.rs).
}

#[tokio::test]
async fn the_documents_and_the_diff_are_gzip_compressed_when_asked_and_plain_otherwise() {
    use std::io::Read as _;
    let s = start().await;
    let id = s.create(V1, V2).await;
    // A client that leaves bodies as sent (the shared reqwest build may decompress, and drop `Content-Encoding`).
    let raw = reqwest::Client::builder()
        .no_gzip()
        .no_brotli()
        .no_deflate()
        .build()
        .expect("client");
    for path in [
        format!("/api/v1/diffs/{id}/current.json"),
        format!("/diff/{id}/current.json"),
        format!("/diff/{id}/previous.json"),
        format!("/api/v1/diffs/{id}"),
    ] {
        let (status, plain) = s.get(&path).await;
        assert_eq!(status, 200, "{path}");
        let r = raw
            .get(format!("{}{path}", s.base))
            .header("accept-encoding", "gzip")
            .send()
            .await
            .expect("request");
        assert_eq!(r.status().as_u16(), 200, "{path}");
        let header = |name: &str| {
            r.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_ascii_lowercase()
        };
        assert_eq!(header("content-encoding"), "gzip", "{path}");
        assert!(header("vary").contains("accept-encoding"), "{path}");
        assert_eq!(header("content-type"), "application/json", "{path}");
        let compressed = r.bytes().await.expect("body");
        let mut text = String::new();
        flate2::read::GzDecoder::new(&compressed[..])
            .read_to_string(&mut text)
            .expect("a gzip body");
        assert_eq!(text, plain, "{path}");
    }
}

#[tokio::test]
async fn the_per_client_rate_limit_answers_429_with_retry_after() {
    let s = start_with(
        DiffsConfig {
            rate_per_minute: 6,
            rate_burst: 2,
            ..DiffsConfig::default()
        },
        None,
    )
    .await;
    let body = json!({"previous_definition": V1, "definition": V3});
    assert_eq!(s.post(&body).await.0, 201);
    assert_eq!(s.post(&body).await.0, 201);
    let r = s
        .http
        .post(format!("{}/api/v1/diffs", s.base))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("request");
    assert_eq!(r.status().as_u16(), 429);
    let retry: u64 = r
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("Retry-After");
    assert!((1..=10).contains(&retry), "{retry}");
}

/// Serves `V1` at `/v1.json` and `V2` at `/v2.json` on 127.0.0.1.
async fn document_server() -> String {
    let app = Router::new()
        .route("/v1.json", axum::routing::get(|| async { V1 }))
        .route("/v2.json", axum::routing::get(|| async { V2 }))
        .route(
            "/hop",
            axum::routing::get(|| async {
                axum::response::Redirect::temporary("http://10.0.0.1/v2.json")
            }),
        );
    serve(app).await
}

#[tokio::test]
async fn url_diffs_download_from_loopback_only_when_explicitly_allowed() {
    let docs = document_server().await;
    let body = json!({"previous_url": format!("{docs}/v1.json"), "url": format!("{docs}/v2.json")});

    let allowed = start_with(
        DiffsConfig {
            fetch: FetchPolicy {
                allow_loopback: true,
                ..FetchPolicy::default()
            },
            ..no_limits()
        },
        None,
    )
    .await;
    let (status, resp) = allowed.post(&body).await;
    assert_eq!(status, 201, "{resp}");
    let (_, diff) = allowed
        .get_json(&format!(
            "/api/v1/diffs/{}",
            resp["id"].as_str().expect("id")
        ))
        .await;
    assert_eq!(diff["breaking"], json!(true));

    // A redirect to a private address is re-checked and refused even with loopback allowed.
    let (status, resp) = allowed
        .post(&json!({"previous_url": format!("{docs}/v1.json"), "url": format!("{docs}/hop")}))
        .await;
    assert_eq!(status, 422, "{resp}");
    assert!(resp["errors"]["url"].is_array(), "{resp}");

    let default = start().await;
    let (status, resp) = default.post(&body).await;
    assert_eq!(status, 422, "{resp}");
    let msg = resp["errors"]["previous_url"][0]
        .as_str()
        .expect("names previous_url");
    assert!(msg.contains("loopback"), "{msg}");
}

#[test]
fn the_environment_switch_only_accepts_true() {
    assert!(specpress_fetch::allow_loopback_from_env_value(Some("true")));
    assert!(!specpress_fetch::allow_loopback_from_env_value(Some("1")));
    assert!(!specpress_fetch::allow_loopback_from_env_value(None));
}

/// Resolves every name to one chosen address.
struct FixedResolver(IpAddr);

#[async_trait::async_trait]
impl DnsResolve for FixedResolver {
    async fn lookup(&self, _host: &str) -> std::io::Result<Vec<IpAddr>> {
        Ok(vec![self.0])
    }
}

#[tokio::test]
async fn every_refused_address_form_is_a_422_without_internal_detail() {
    let s = start().await;
    let refused = [
        "http://127.0.0.1:9001/2018-06-01/runtime/invocation/next",
        "http://127.0.0.1/",
        "http://localhost/",
        "http://[::1]/",
        "http://2130706433/",
        "http://0177.0.0.1/",
        "http://0x7f.0.0.1/",
        "http://127.1/",
        "http://0/",
        "http://10.0.0.1/",
        "http://172.16.5.4/",
        "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://2852039166/",
        "http://[fe80::1]/",
        "http://[fc00::1]/",
        "http://[fd12:3456::1]/",
        "http://224.0.0.1/",
        "http://[ff02::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:a9fe:a9fe]/",
        "http://100.64.0.1/",
        "ftp://example.com/a.json",
        "file:///etc/passwd",
        "gopher://example.com/",
        "http://user:secret@example.com/a.json",
        "not a url",
    ];
    for url in refused {
        let (status, resp) = s
            .post(&json!({"previous_url": url, "url": "https://example.com/b.json"}))
            .await;
        assert_eq!(status, 422, "{url}: {resp}");
        let msg = resp["errors"]["previous_url"][0]
            .as_str()
            .unwrap_or_default();
        assert!(
            msg.starts_with("previous_url cannot be downloaded"),
            "{url}: {msg}"
        );
        assert!(!msg.contains("secret"), "{url}: {msg}");
    }

    // A host name resolving to a private address: refused, and the address is not revealed.
    let client = SafeClient::with_resolver(
        FetchPolicy::default(),
        Arc::new(FixedResolver("10.1.2.3".parse().expect("ip"))),
    )
    .expect("client");
    let s = start_with(no_limits(), Some(client)).await;
    let (status, resp) =
        s.post(&json!({"previous_url": "http://internal.example/a.json", "url": "http://internal.example/b.json"})).await;
    assert_eq!(status, 422, "{resp}");
    let msg = resp["errors"]["previous_url"][0]
        .as_str()
        .unwrap_or_default();
    assert!(
        msg.contains("non-public") && !msg.contains("10.1.2.3"),
        "{msg}"
    );
}

// ---------------------------------------------------------------- bump-cli end to end

/// The official bump-cli (`specpress_testkit::Tool::BumpCli`; the tests that use it are ignored outside CI without
/// it).
fn bump_cli() -> PathBuf {
    specpress_testkit::tool(specpress_testkit::Tool::BumpCli)
}

fn run_bump(cli: &PathBuf, base: &str, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(cli)
        .args(args)
        .env("BUMP_HOST", base)
        .env("BUMP_POLLING_PERIOD", "50")
        .env_remove("CI")
        .env_remove("BUMP_TOKEN")
        .output()
        .expect("bump runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
async fn bump_cli_diff_works_in_every_format_and_fails_on_breaking_changes() {
    let cli = bump_cli();
    let s = start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b, c) = (
        dir.path().join("v1.json"),
        dir.path().join("v2.json"),
        dir.path().join("v3.json"),
    );
    std::fs::write(&a, V1).expect("write");
    std::fs::write(&b, V2).expect("write");
    std::fs::write(&c, V3).expect("write");
    let (a, b, c) = (
        a.to_string_lossy().into_owned(),
        b.to_string_lossy().into_owned(),
        c.to_string_lossy().into_owned(),
    );
    let base = s.base.clone();

    let runs = tokio::task::spawn_blocking(move || {
        let mut runs = Vec::new();
        for format in ["text", "markdown", "json", "html"] {
            runs.push((
                format,
                run_bump(&cli, &base, &["diff", &a, &b, "--format", format]),
            ));
        }
        runs.push((
            "fail-breaking",
            run_bump(&cli, &base, &["diff", &a, &b, "--fail-on-breaking"]),
        ));
        runs.push((
            "fail-compatible",
            run_bump(&cli, &base, &["diff", &a, &c, "--fail-on-breaking"]),
        ));
        runs
    })
    .await
    .expect("bump runs");

    for (name, (code, out, err)) in &runs {
        match *name {
            "text" => {
                assert_eq!(*code, 0, "{err}");
                assert!(out.contains("/users") && out.contains("/toys"), "{out}");
            }
            "markdown" => {
                assert_eq!(*code, 0, "{err}");
                assert!(out.contains("/users") && out.contains('#'), "{out}");
            }
            "json" => {
                assert_eq!(*code, 0, "{err}");
                let details: Value =
                    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
                assert!(details.as_array().is_some_and(|a| !a.is_empty()), "{out}");
            }
            "html" => {
                assert_eq!(*code, 0, "{err}");
                assert!(out.contains('<') && out.contains("/users"), "{out}");
            }
            "fail-breaking" => assert_eq!(*code, 1, "breaking change must fail: {out} {err}"),
            "fail-compatible" => assert_eq!(*code, 0, "no breaking change: {out} {err}"),
            _ => unreachable!(),
        }
    }
}

/// Whether a stored definition carries an expiry (`ttl`), looked up by the content address the store gives it;
/// `None` when it is not stored at all.
async fn stored_with_ttl(
    store: &specpress_store_dynamodb::DynamoStore,
    bundle: &specpress_domain::model::Bundle,
) -> Option<bool> {
    use specpress_domain::ports::BlobStore;
    let sha = store
        .encode_bundle(bundle)
        .await
        .expect("encode")
        .blob
        .sha256;
    let item = store
        .client()
        .get_item()
        .table_name(store.table())
        .key(
            "pk",
            aws_sdk_dynamodb::types::AttributeValue::S(format!("BLOB#{sha}")),
        )
        .key(
            "sk",
            aws_sdk_dynamodb::types::AttributeValue::S("CHUNK#0000".into()),
        )
        .consistent_read(true)
        .send()
        .await
        .expect("get item")
        .item?;
    Some(item.contains_key("ttl"))
}

#[tokio::test]
async fn definitions_of_a_diff_made_with_a_token_end_with_the_diffs_life_and_a_refused_pair_is_never_stored()
 {
    use specpress_domain::model::Bundle;
    use specpress_domain::usecases::diffs::{Creator, DiffDeps, DiffInput, create_diff};
    let db = Embedded::start(Storage::Memory)
        .await
        .expect("embedded engine");
    let store = db.store("specpress").await.expect("table");
    let engine = SpecDiffEngine::default();
    let fetcher = SafeFetcher::new(FetchPolicy::default()).expect("fetcher");
    let deps = || DiffDeps {
        store: &store,
        engine: &engine,
        fetcher: &fetcher,
    };
    let bundle = |text: &str| Bundle {
        definition: text.to_owned(),
        references: vec![],
    };
    let input = |previous: &str, current: &str, expires_at: &str| DiffInput {
        previous_definition: Some(previous.to_owned()),
        definition: Some(current.to_owned()),
        expires_at: Some(expires_at.to_owned()),
        ..DiffInput::default()
    };
    let now = time::OffsetDateTime::now_utc();

    // "never": both definitions end permanent (written provisionally while comparing, then extended).
    create_diff(deps(), input(V1, V2, "never"), Creator::Authenticated, now)
        .await
        .expect("diff");
    assert_eq!(stored_with_ttl(&store, &bundle(V1)).await, Some(false));
    assert_eq!(stored_with_ttl(&store, &bundle(V2)).await, Some(false));

    // Default life: both expire.
    create_diff(
        deps(),
        DiffInput {
            expires_at: None,
            ..input(V1, V3, "")
        },
        Creator::Authenticated,
        now,
    )
    .await
    .expect("diff");
    assert_eq!(stored_with_ttl(&store, &bundle(V3)).await, Some(true));

    // A refused pair, even one asking to live forever: the definitions are stored only once both have parsed, so
    // neither the valid one nor the invalid one is stored.
    let valid = V3.replace("Pets", "Refused pair");
    let refused = create_diff(
        deps(),
        input("not: [an api", &valid, "never"),
        Creator::Authenticated,
        now,
    )
    .await;
    assert!(refused.is_err(), "an invalid document is refused");
    assert_eq!(
        stored_with_ttl(&store, &bundle(&valid)).await,
        None,
        "the valid half of a refused pair is not stored"
    );
    assert_eq!(
        stored_with_ttl(&store, &bundle("not: [an api")).await,
        None,
        "the refused document is not stored"
    );
}

/// An engine that drops its "parsed" signal at once and refuses a little later, as a refused parse does.
struct SlowRefusal;

#[async_trait::async_trait]
impl DiffEngine for SlowRefusal {
    async fn compare(
        &self,
        _previous: Arc<Bundle>,
        _current: Arc<Bundle>,
        _from_urls: bool,
        parsed: oneshot::Sender<()>,
    ) -> DomainResult<Comparison> {
        drop(parsed);
        tokio::time::sleep(Duration::from_millis(50)).await;
        Err(DomainError::invalid("definition", "refused by the engine"))
    }

    async fn to_json(&self, _bundle: &Bundle) -> DomainResult<String> {
        Err(DomainError::unexpected("not used"))
    }
}

/// The real engine, except that it never says when both documents have parsed.
struct Silent(SpecDiffEngine);

#[async_trait::async_trait]
impl DiffEngine for Silent {
    async fn compare(
        &self,
        previous: Arc<Bundle>,
        current: Arc<Bundle>,
        from_urls: bool,
        parsed: oneshot::Sender<()>,
    ) -> DomainResult<Comparison> {
        drop(parsed);
        let (unheard, _) = oneshot::channel();
        self.0.compare(previous, current, from_urls, unheard).await
    }

    async fn to_json(&self, bundle: &Bundle) -> DomainResult<String> {
        self.0.to_json(bundle).await
    }
}

#[tokio::test]
async fn the_engines_refusal_is_the_answer_and_an_engine_that_never_signals_still_gets_its_inputs_stored()
 {
    use specpress_domain::usecases::diffs::{Creator, DiffDeps, DiffInput, create_diff};
    let db = Embedded::start(Storage::Memory)
        .await
        .expect("embedded engine");
    let store = db.store("specpress").await.expect("table");
    let fetcher = SafeFetcher::new(FetchPolicy::default()).expect("fetcher");
    let deps = |engine: &'static dyn DiffEngine| DiffDeps {
        store: &store,
        engine,
        fetcher: &fetcher,
    };
    let input = || DiffInput {
        previous_definition: Some(V1.to_owned()),
        definition: Some(V2.to_owned()),
        ..DiffInput::default()
    };
    let now = time::OffsetDateTime::now_utc();

    // The signal is dropped before the refusal arrives: the refusal (a 422 on its field) is still what comes back,
    // not an internal error, and nothing is stored.
    let refused = create_diff(deps(&SlowRefusal), input(), Creator::Authenticated, now).await;
    match refused {
        Err(DomainError::Invalid { field, .. }) => {
            assert_eq!(field, "definition")
        }
        other => panic!("expected the engine's refusal, got {other:?}"),
    }
    let bundle = |text: &str| Bundle {
        definition: text.to_owned(),
        references: vec![],
    };
    assert_eq!(stored_with_ttl(&store, &bundle(V1)).await, None);

    // No signal but a comparison: the two definitions are stored after it, and the diff is created.
    let silent: &'static Silent = Box::leak(Box::new(Silent(SpecDiffEngine::default())));
    let record = tokio::time::timeout(
        Duration::from_secs(60),
        create_diff(deps(silent), input(), Creator::Authenticated, now),
    )
    .await
    .expect("does not wait for a signal that never comes")
    .expect("diff");
    assert_eq!(stored_with_ttl(&store, &bundle(V1)).await, Some(true));
    assert_eq!(stored_with_ttl(&store, &bundle(V2)).await, Some(true));
    assert!(!record.previous.sha256.is_empty());
}

/// A document of about `paths` * 180 bytes: enough paths to pass the size above which the two definitions of a
/// request are unescaped on two threads.
fn large_document(title: &str, paths: usize, extra: &str) -> String {
    let mut p = serde_json::Map::new();
    for i in 0..paths {
        p.insert(
            format!("/items{i}/{{id}}"),
            json!({"get": {"description": format!("Item \"{i}\" with a quoted description"),
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}}}}),
        );
    }
    p.insert(
        extra.to_owned(),
        json!({"get": {"responses": {"200": {"description": "ok"}}}}),
    );
    json!({"openapi": "3.0.3", "info": {"title": title, "version": "1"}, "paths": p}).to_string()
}

#[tokio::test]
async fn large_definitions_are_read_exactly_and_a_non_string_one_is_a_422_naming_its_field() {
    let s = start().await;
    let previous = large_document("Big", 2_000, "/old");
    let current = large_document("Big", 2_000, "/new");
    assert!(previous.len() > 300 * 1024, "{}", previous.len());
    let (status, resp) = s
        .post(&json!({"previous_definition": previous, "definition": current}))
        .await;
    assert_eq!(status, 201, "{resp}");
    let id = resp["id"].as_str().expect("id");
    let (status, diff) = s.get_json(&format!("/api/v1/diffs/{id}")).await;
    assert_eq!(status, 200, "{diff}");
    let text = diff["text"].as_str().expect("text");
    assert!(text.contains("/old") && text.contains("/new"), "{text}");
    assert!(
        !text.contains("/items1/"),
        "unchanged paths reported: {text}"
    );
    // The stored previous definition is the document sent.
    let (status, served) = s.get_json(&format!("/diff/{id}/previous.json")).await;
    assert_eq!(status, 200, "{served}");
    let sent: Value = serde_json::from_str(&previous).expect("json");
    assert_eq!(served, sent);

    // A definition that is not a string, small or as large as the other one: 422 naming the field.
    for (field, other) in [
        ("previous_definition", "definition"),
        ("definition", "previous_definition"),
    ] {
        for wrong in [json!(12), json!({ "document": previous })] {
            let (status, resp) = s.post(&json!({field: wrong, other: current})).await;
            assert_eq!(status, 422, "{resp}");
            assert!(resp.to_string().contains(field), "{field}: {resp}");
        }
    }
}

//! "Try it" (docs/try-it.md) end to end, against the real `specpress serve`: the owner's `try_it` setting through
//! the API, the proxy `POST /doc/{doc}/try` sending to a local API on 127.0.0.1 and relaying its answer, every
//! refusal (mode off, another host, a private address without the loopback switch, a page of another site, a
//! private documentation without token, the rate limit), a huge answer cut, credentials never in the server's log,
//! and the Content-Security-Policy of the operation pages in each mode.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use reqwest::blocking::Client;
use serde_json::{Value, json};
use specpress_e2e::{specpress_binary, temp_dir};

const ORG: &str = "try-it-org-secret-0123456789";
/// What the reader types into the form: none of it may reach the server's log.
const SECRET_TOKEN: &str = "sk-live-tryit-5ecret-token";
const SECRET_QUERY: &str = "q-5ecret-in-query";
const SECRET_BODY: &str = "b-5ecret-in-body";

/// `specpress serve` with its log in a file (debug level: the most it ever writes).
struct Serve {
    child: Child,
    base: String,
    log: PathBuf,
    http: Client,
    _stdout: mpsc::Receiver<String>,
    _dir: tempfile::TempDir,
}

impl Serve {
    fn start(env: &[(&str, &str)]) -> Serve {
        let dir = temp_dir();
        let log = dir.path().join("server.log");
        let stderr = std::fs::File::create(&log).expect("log file");
        let mut cmd = Command::new(specpress_binary());
        cmd.args(["serve", "--port", "0", "--data-dir"])
            .arg(dir.path().join("data"))
            .env_remove("SPECPRESS_TABLE")
            .env("SPECPRESS_ORG_TOKEN", ORG)
            .env("SPECPRESS_LOG", "debug")
            .env("SPECPRESS_SELF_DOC", "false")
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr));
        for (k, v) in env {
            cmd.env(k, v);
        }
        // Waited for in `Drop`, and in the branch below when it does not start.
        #[allow(clippy::zombie_processes)]
        let mut child = cmd.spawn().expect("specpress serve starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let http = Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(30))
            .build()
            .expect("client");
        loop {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => {
                    if let Some(url) = line.strip_prefix("Listening on ") {
                        return Serve {
                            child,
                            base: url.trim().to_owned(),
                            log,
                            http,
                            _stdout: rx,
                            _dir: dir,
                        };
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "specpress serve did not start: {}",
                        std::fs::read_to_string(&log).unwrap_or_default()
                    );
                }
            }
        }
    }

    /// An API call with the organization token.
    fn api(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut rb = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("Authorization", format!("Token {ORG}"));
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let r = rb.send().expect("API answers");
        let s = r.status().as_u16();
        (s, r.json().unwrap_or(Value::Null))
    }

    /// Deploys `definition` to `slug` on `branch`, or creates `slug` and deploys to its default branch.
    fn publish(&self, slug: &str, branch: Option<&str>, definition: &str) {
        if branch.is_none() {
            let (s, b) = self.api(
                reqwest::Method::POST,
                "/api/v1/docs",
                Some(json!({"name": slug, "slug": slug})),
            );
            assert_eq!(s, 201, "{b}");
        }
        let mut body = json!({"documentation": slug, "definition": definition});
        if let Some(br) = branch {
            body["branch_name"] = json!(br);
        }
        let (s, b) = self.api(reqwest::Method::POST, "/api/v1/versions", Some(body));
        assert_eq!(s, 201, "{b}");
    }

    /// `PATCH /api/v1/docs/{slug}`.
    fn patch(&self, slug: &str, body: Value) -> (u16, Value) {
        self.api(
            reqwest::Method::PATCH,
            &format!("/api/v1/docs/{slug}"),
            Some(body),
        )
    }

    /// A `POST .../try` from this site's own page (its `Origin`, unless `extra` names another), with `extra`
    /// headers.
    fn try_it(&self, path: &str, body: &Value, extra: &[(&str, &str)]) -> (u16, HeaderMap, Value) {
        let mut rb = self.http.post(format!("{}{path}", self.base)).json(body);
        if !extra.iter().any(|(k, _)| k.eq_ignore_ascii_case("origin")) {
            rb = rb.header("Origin", self.base.as_str());
        }
        for (k, v) in extra {
            rb = rb.header(*k, *v);
        }
        let r = rb.send().expect("proxy answers");
        let status = r.status().as_u16();
        let headers: HeaderMap = r
            .headers()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        (status, headers, r.json().unwrap_or(Value::Null))
    }

    fn get(&self, path: &str) -> (u16, String, String) {
        let r = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .expect("page answers");
        let status = r.status().as_u16();
        let csp = r
            .headers()
            .get("content-security-policy")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        (status, csp, r.text().unwrap_or_default())
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the local API received.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<(String, HeaderMap, String)>>>);

/// `GET|POST /pets/{id}`: 203 with a header of its own, a cookie (never relayed), and what it received.
async fn pet(
    axum::extract::State(seen): axum::extract::State<Seen>,
    method: axum::http::Method,
    uri: axum::http::Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    let query = uri.query().unwrap_or("").to_owned();
    if let Ok(mut s) = seen.0.lock() {
        s.push((
            format!("{method} {}", uri.path()),
            headers.clone(),
            body.clone(),
        ));
    }
    (
        StatusCode::NON_AUTHORITATIVE_INFORMATION,
        [
            ("x-served-by", "local-api"),
            ("set-cookie", "api=1; Path=/"),
            // A reader's browser may read the answer in `direct` mode (the API's CORS policy, not ours).
            ("access-control-allow-origin", "*"),
        ],
        axum::Json(json!({"method": method.as_str(), "query": query, "body": body})),
    )
        .into_response()
}

/// `GET /huge`: 3 MiB.
async fn huge() -> String {
    "x".repeat(3 * 1024 * 1024)
}

/// Serves the local API on 127.0.0.1 from a thread of its own: its base URL and what it saw.
fn local_api() -> (String, Seen) {
    let seen = Seen::default();
    let router = Router::new()
        .route("/v1/pets/{id}", get(pet).post(pet))
        .route("/v1/huge", get(huge))
        .with_state(seen.clone());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async move {
            let Ok(listener) = tokio::net::TcpListener::bind("127.0.0.1:0").await else {
                return;
            };
            let Ok(addr) = listener.local_addr() else {
                return;
            };
            let _ = tx.send(format!("http://{addr}"));
            let _ = axum::serve(listener, router).await;
        });
    });
    (rx.recv().expect("the local API listens"), seen)
}

/// A port nothing listens on.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// An OpenAPI document whose servers are `servers`.
fn definition(servers: &[&str]) -> String {
    let servers: Vec<Value> = servers.iter().map(|u| json!({"url": u})).collect();
    json!({
        "openapi": "3.1.0",
        "info": {"title": "Pets", "version": "1.0.0"},
        "servers": servers,
        "paths": {
            "/pets/{id}": {
                "get": {
                    "operationId": "getPet",
                    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                    "responses": {"200": {"description": "A pet"}}
                },
                "post": {
                    "operationId": "updatePet",
                    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                    "requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}},
                    "responses": {"200": {"description": "Updated"}}
                }
            }
        }
    })
    .to_string()
}

fn request(url: &str) -> Value {
    json!({"method": "GET", "url": url, "headers": [["Accept", "application/json"]]})
}

#[test]
fn the_owner_turns_the_proxy_on_and_it_relays_the_answer_of_the_document_s_servers_only() {
    let (api, seen) = local_api();
    let closed = format!("http://127.0.0.1:{}/v1", closed_port());
    let site = Serve::start(&[
        ("SPECPRESS_ALLOW_LOOPBACK_URLS", "true"),
        ("SPECPRESS_TRY_BURST", "100"),
    ]);
    site.publish("pets", None, &definition(&[&format!("{api}/v1"), &closed]));
    let call = request(&format!("{api}/v1/pets/1"));

    // Off until the owner turns it on: the proxy is the 404 of an unknown documentation.
    let (s, b) = site.api(reqwest::Method::GET, "/api/v1/docs/pets", None);
    assert_eq!((s, b["try_it"].as_str()), (200, Some("off")), "{b}");
    let (s, _, off) = site.try_it("/doc/pets/try", &call, &[]);
    let (_, _, unknown) = site.try_it("/doc/nope/try", &call, &[]);
    assert_eq!((s, &off), (404, &unknown));
    assert!(off["message"].is_string(), "{off}");

    // The setting is validated like visibility, and an empty PATCH changes nothing.
    let (s, b) = site.patch("pets", json!({"try_it": "sometimes"}));
    assert_eq!(s, 422, "{b}");
    assert!(b["errors"]["try_it"].is_array(), "{b}");
    let (s, b) = site.patch("pets", json!({}));
    assert_eq!(s, 422, "{b}");
    // `null` is no value of either setting (schemathesis found it accepted beside a valid visibility): a 422 that
    // names it, and the other member is not applied either.
    for body in [
        json!({"try_it": null, "visibility": "private"}),
        json!({"visibility": null, "try_it": "direct"}),
    ] {
        let (s, b) = site.patch("pets", body.clone());
        assert_eq!(s, 422, "{body}: {b}");
        let field = if body["try_it"].is_null() {
            "try_it"
        } else {
            "visibility"
        };
        assert!(b["errors"][field].is_array(), "{body}: {b}");
    }
    let (s, b) = site.api(reqwest::Method::GET, "/api/v1/docs/pets", None);
    assert_eq!(
        (s, b["visibility"].as_str(), b["try_it"].as_str()),
        (200, Some("public"), Some("off"))
    );
    let (s, b) = site.patch("pets", json!({"try_it": "proxy"}));
    assert_eq!((s, b["try_it"].as_str()), (200, Some("proxy")), "{b}");
    assert_eq!(b["visibility"], "public");

    // Sent and relayed: status, headers (no cookie), body, time; the API got the reader's credentials, not ours.
    let send = json!({
        "method": "POST",
        "url": format!("{api}/v1/pets/7?api_key={SECRET_QUERY}"),
        "headers": [
            ["Authorization", format!("Bearer {SECRET_TOKEN}")],
            ["Content-Type", "application/json"],
            ["Cookie", "session=reader"],
            ["Connection", "close"]
        ],
        "body": format!("{{\"name\":\"{SECRET_BODY}\"}}")
    });
    let (s, _, got) = site.try_it("/doc/pets/try", &send, &[]);
    assert_eq!(s, 200, "{got}");
    assert_eq!(got["status"], 203, "{got}");
    assert_eq!(got["truncated"], false);
    assert!(got["time_ms"].is_u64(), "{got}");
    let headers: Vec<(String, String)> =
        serde_json::from_value(got["headers"].clone()).expect("pairs");
    assert!(
        headers.contains(&("x-served-by".into(), "local-api".into())),
        "{headers:?}"
    );
    assert!(
        !headers.iter().any(|(n, _)| n == "set-cookie"),
        "{headers:?}"
    );
    let echoed: Value = serde_json::from_str(got["body"].as_str().expect("text")).expect("json");
    assert_eq!(echoed["method"], "POST");
    assert_eq!(echoed["query"], format!("api_key={SECRET_QUERY}"));
    assert_eq!(echoed["body"], format!("{{\"name\":\"{SECRET_BODY}\"}}"));
    {
        let seen = seen.0.lock().expect("seen");
        let (what, h, _) = seen.last().expect("the API was called");
        assert_eq!(what, "POST /v1/pets/7");
        assert_eq!(
            h.get("authorization").and_then(|v| v.to_str().ok()),
            Some(format!("Bearer {SECRET_TOKEN}").as_str())
        );
        assert!(
            h.get("cookie").is_none(),
            "the reader's cookie never leaves"
        );
    }

    // On a branch too.
    site.publish("pets", Some("next"), &definition(&[&format!("{api}/v1")]));
    let (s, _, got) = site.try_it("/doc/pets/branches/next/try", &call, &[]);
    assert_eq!((s, got["status"].as_u64()), (200, Some(203)), "{got}");

    // Another host than the servers, a relative URL, a method no operation has: 422, nothing sent.
    let before = seen.0.lock().expect("seen").len();
    for (body, what) in [
        (request("http://127.0.0.2:9/v1/pets/1"), "another host"),
        (
            request(&format!(
                "{}/v1/pets/1",
                api.replace("127.0.0.1", "localhost")
            )),
            "another name",
        ),
        (request("/v1/pets/1"), "a relative URL"),
        (
            json!({"method": "TRACE", "url": format!("{api}/v1/pets/1")}),
            "TRACE",
        ),
    ] {
        let (s, _, b) = site.try_it("/doc/pets/try", &body, &[]);
        assert_eq!(s, 422, "{what}: {b}");
        assert!(b["message"].is_string(), "{what}: {b}");
    }
    assert_eq!(seen.0.lock().expect("seen").len(), before);

    // Not the documented JSON: 400; too large: 413.
    let (s, _, b) = site.try_it("/doc/pets/try", &json!({"url": 1}), &[]);
    assert_eq!(s, 400, "{b}");
    let big = json!({"method": "POST", "url": format!("{api}/v1/pets/1"), "body": "x".repeat(300 * 1024)});
    let (s, _, _) = site.try_it("/doc/pets/try", &big, &[]);
    assert_eq!(s, 413);

    // A page of another site, or no Origin at all: 403.
    let (s, _, b) = site.try_it(
        "/doc/pets/try",
        &call,
        &[("Origin", "https://evil.example")],
    );
    assert_eq!(s, 403, "{b}");
    let r = site
        .http
        .post(format!("{}/doc/pets/try", site.base))
        .json(&call)
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 403);

    // A huge answer is cut at 1 MiB and says so.
    let (s, _, got) = site.try_it("/doc/pets/try", &request(&format!("{api}/v1/huge")), &[]);
    assert_eq!(s, 200, "{got}");
    assert_eq!(got["truncated"], true);
    assert_eq!(got["body"].as_str().map(str::len), Some(1024 * 1024));

    // A server that does not answer: 502 with a clear message.
    let (s, _, b) = site.try_it("/doc/pets/try", &request(&format!("{closed}/pets/1")), &[]);
    assert_eq!(s, 502, "{b}");
    assert!(
        b["message"].as_str().is_some_and(|m| m.contains("connect")),
        "{b}"
    );

    // Back off: 404 again.
    let (s, b) = site.patch("pets", json!({"try_it": "off"}));
    assert_eq!((s, b["try_it"].as_str()), (200, Some("off")));
    let (s, _, _) = site.try_it("/doc/pets/try", &call, &[]);
    assert_eq!(s, 404);

    // What the reader sent never reached the log (debug level), though the requests did.
    let log = site.log();
    assert!(log.contains("try it request relayed"), "{log}");
    for secret in [SECRET_TOKEN, SECRET_QUERY, SECRET_BODY, "session=reader"] {
        assert!(!log.contains(secret), "{secret} is in the log:\n{log}");
    }
}

#[test]
fn a_private_documentation_s_proxy_takes_the_same_token_as_its_pages() {
    let (api, _) = local_api();
    let site = Serve::start(&[("SPECPRESS_ALLOW_LOOPBACK_URLS", "true")]);
    site.publish("secret", None, &definition(&[&format!("{api}/v1")]));
    let (s, b) = site.patch(
        "secret",
        json!({"visibility": "private", "try_it": "proxy"}),
    );
    assert_eq!(
        (s, b["visibility"].as_str(), b["try_it"].as_str()),
        (200, Some("private"), Some("proxy")),
        "{b}"
    );
    let call = request(&format!("{api}/v1/pets/1"));
    let (s, _, anonymous) = site.try_it("/doc/secret/try", &call, &[]);
    let (_, _, unknown) = site.try_it("/doc/nope/try", &call, &[]);
    assert_eq!((s, &anonymous), (404, &unknown));
    let token = format!("Token {ORG}");
    let (s, h, got) = site.try_it(
        "/doc/secret/try",
        &call,
        &[("Authorization", token.as_str())],
    );
    assert_eq!((s, got["status"].as_u64()), (200, Some(203)), "{got}");
    assert_eq!(
        h.get("cache-control").and_then(|v| v.to_str().ok()),
        Some("private, no-store")
    );
}

#[test]
fn without_the_loopback_switch_a_private_address_is_refused_and_each_client_is_limited() {
    let (api, seen) = local_api();
    let site = Serve::start(&[
        ("SPECPRESS_ALLOW_LOOPBACK_URLS", "false"),
        ("SPECPRESS_TRY_RATE_PER_MINUTE", "1"),
        ("SPECPRESS_TRY_BURST", "3"),
    ]);
    site.publish("pets", None, &definition(&[&format!("{api}/v1")]));
    let (s, _) = site.patch("pets", json!({"try_it": "proxy"}));
    assert_eq!(s, 200);
    let call = request(&format!("{api}/v1/pets/1"));
    for _ in 0..3 {
        let (s, _, b) = site.try_it("/doc/pets/try", &call, &[]);
        assert_eq!(s, 422, "{b}");
        assert!(
            b["message"]
                .as_str()
                .is_some_and(|m| m.contains("public internet addresses")),
            "{b}"
        );
    }
    assert!(
        seen.0.lock().expect("seen").is_empty(),
        "nothing reached the API"
    );
    let (s, h, b) = site.try_it("/doc/pets/try", &call, &[]);
    assert_eq!(s, 429, "{b}");
    let retry: u64 = h
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("Retry-After");
    assert!((1..=60).contains(&retry), "{retry}");
}

/// The `connect-src` directive of a Content-Security-Policy.
fn connect_src(csp: &str) -> &str {
    csp.split(';')
        .map(str::trim)
        .find(|d| d.starts_with("connect-src"))
        .unwrap_or("")
}

#[test]
fn a_direct_documentation_s_operation_pages_name_exactly_its_servers_in_connect_src() {
    let site = Serve::start(&[]);
    let mut def: Value = serde_json::from_str(&definition(&[
        "https://api.example.com/v1",
        "/relative",
        "https://API.example.com:443/v2",
    ]))
    .expect("json");
    def["servers"]
        .as_array_mut()
        .expect("servers")
        .push(json!({"url": "https://{region}.example.net", "variables": {"region": {"default": "eu", "enum": ["eu", "us"]}}}));
    site.publish("pets", None, &def.to_string());
    let (_, _, home) = site.get("/doc/pets");
    let operation = home
        .split("href=\"")
        .filter_map(|s| s.split('"').next())
        .find(|l| l.starts_with("/doc/pets/operation/"))
        .expect("an operation page")
        .to_owned();
    for mode in ["off", "proxy"] {
        let (s, _) = site.patch("pets", json!({"try_it": mode}));
        assert_eq!(s, 200);
        let (s, csp, _) = site.get(&operation);
        assert_eq!(
            (s, connect_src(&csp)),
            (200, "connect-src 'self'"),
            "{mode}"
        );
    }
    let (s, _) = site.patch("pets", json!({"try_it": "direct"}));
    assert_eq!(s, 200);
    let (s, csp, _) = site.get(&operation);
    assert_eq!(s, 200);
    assert_eq!(
        connect_src(&csp),
        "connect-src 'self' https://api.example.com https://eu.example.net https://us.example.net"
    );
    assert!(
        csp.contains("script-src 'self';") && csp.contains("default-src 'none'"),
        "{csp}"
    );
    let (_, home_csp, _) = site.get("/doc/pets");
    assert_eq!(connect_src(&home_csp), "connect-src 'self'");
}

/// A reader sends an operation's request from its page in headless Chromium (light desktop, dark phone), through the
/// proxy and then from the browser itself: the form's answer shows the local API's status, headers and body as text,
/// no CSP report (in `direct` mode the page's `connect-src` must name the API), and axe finds nothing with it open.
#[test]
#[cfg_attr(
    any(missing_chromium, missing_node_modules),
    ignore = "needs Chromium and node with playwright-core and axe-core (scripts/install-tools.sh)"
)]
fn a_reader_sends_the_operation_from_its_page_in_headless_chromium_through_the_proxy_and_directly()
{
    let tools = specpress_e2e::browser::tools();
    let (api, seen) = local_api();
    let site = Serve::start(&[
        ("SPECPRESS_ALLOW_LOOPBACK_URLS", "true"),
        ("SPECPRESS_TRY_BURST", "100"),
    ]);
    site.publish("pets", None, &definition(&[&format!("{api}/v1")]));
    let (_, _, home) = site.get("/doc/pets");
    let operation = home
        .split("href=\"")
        .filter_map(|s| s.split('"').next())
        .find(|l| l.starts_with("/doc/pets/operation/operation-get-pets-id"))
        .expect("the page of GET /pets/{id}")
        .to_owned();
    let out = temp_dir();
    let keep = std::env::var_os("SPECPRESS_SCREENSHOTS").map(PathBuf::from);
    for (mode, value) in [("proxy", "42"), ("direct", "43")] {
        let (s, _) = site.patch("pets", json!({"try_it": mode}));
        assert_eq!(s, 200);
        let dir = keep
            .clone()
            .unwrap_or_else(|| out.path().to_path_buf())
            .join(mode);
        std::fs::create_dir_all(&dir).expect("screenshot folder");
        let run = Command::new("node")
            .arg(specpress_e2e::repo_root().join("tests/browser/try.js"))
            .arg("--out")
            .arg(&dir)
            .arg(format!("{}{operation}", site.base))
            .args(["id", value, "203", "\"method\":\"GET\""])
            .env("SPECPRESS_CHROMIUM", &tools.0)
            .env("SPECPRESS_NODE_MODULES", &tools.1)
            .output()
            .expect("node runs");
        assert!(
            run.status.success(),
            "{mode}: {}\n{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(dir.join("try--light-desktop.png").is_file());
        let calls = seen.0.lock().map(|s| s.len()).unwrap_or(0);
        let wanted = format!("GET /v1/pets/{value}");
        let got = seen
            .0
            .lock()
            .map(|s| s.iter().filter(|(what, _, _)| *what == wanted).count())
            .unwrap_or(0);
        assert_eq!(
            got, 2,
            "{mode}: one request per view reached the API ({calls} in all)"
        );
    }
}

/// Serves, on 127.0.0.1, an API that moved: every request is redirected (307) to the same path and query on `to`.
fn moved_api(to: String) -> String {
    let router = Router::new().fallback(move |uri: axum::http::Uri| {
        let to = to.clone();
        async move {
            let target = format!(
                "{to}{}",
                uri.path_and_query().map(|p| p.as_str()).unwrap_or("/")
            );
            (StatusCode::TEMPORARY_REDIRECT, [("location", target)]).into_response()
        }
    });
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async move {
            let Ok(listener) = tokio::net::TcpListener::bind("127.0.0.1:0").await else {
                return;
            };
            let Ok(addr) = listener.local_addr() else {
                return;
            };
            let _ = tx.send(format!("http://{addr}"));
            let _ = axum::serve(listener, router).await;
        });
    });
    rx.recv().expect("the moved API listens")
}

#[test]
fn a_redirect_to_another_server_of_the_documentation_carries_none_of_the_readers_credentials() {
    // GIVEN a documentation with two servers: one that moved, redirecting every request to the other
    let (landing, seen) = local_api();
    let moved = moved_api(landing.clone());
    let site = Serve::start(&[("SPECPRESS_ALLOW_LOOPBACK_URLS", "true")]);
    site.publish(
        "pets",
        None,
        &definition(&[&format!("{moved}/v1"), &format!("{landing}/v1")]),
    );
    let (s, b) = site.patch("pets", json!({"try_it": "proxy"}));
    assert_eq!(s, 200, "{b}");

    // WHEN a reader tries an operation on the first with its token, an API key and a key in the query
    let call = json!({
        "method": "GET",
        "url": format!("{moved}/v1/pets/7?api_key={SECRET_QUERY}&page=2"),
        "headers": [
            ["Authorization", format!("Bearer {SECRET_TOKEN}")],
            ["X-Api-Key", SECRET_TOKEN],
            ["Accept", "application/json"]
        ]
    });
    let (s, _, b) = site.try_it("/doc/pets/try", &call, &[]);

    // THEN the answer comes from the second server, which received none of them, as a browser or curl would send
    assert_eq!((s, b["status"].as_u64()), (200, Some(203)), "{b}");
    let got = seen.0.lock().map(|s| s.clone()).unwrap_or_default();
    assert_eq!(got.len(), 1);
    let (what, headers, _) = &got[0];
    assert_eq!(what, "GET /v1/pets/7");
    assert_eq!(headers.get("authorization"), None, "{headers:?}");
    assert_eq!(headers.get("x-api-key"), None, "{headers:?}");
    assert_eq!(
        headers.get("accept").and_then(|v| v.to_str().ok()),
        Some("application/json")
    );
    let query = b["body"]
        .as_str()
        .and_then(|t| serde_json::from_str::<Value>(t).ok())
        .map(|v| v["query"].clone())
        .unwrap_or_default();
    assert!(
        !query.to_string().contains(SECRET_QUERY),
        "the key in the query crossed: {query}"
    );
}

//! Workflow MCP servers end to end (docs/workflows.md): the real bump-cli deploys an Arazzo document and its OpenAPI
//! source to an MCP server, its secrets are set through the API, and the official MCP client (the Python SDK, via
//! tests/mcp_client.py) lists its tools and calls them; each call runs the workflow against a local API (an axum
//! server of this test on 127.0.0.1) through the hardened client. The same workflow run by an independent
//! implementation (PyPI `arazzo-runner`, via tests/arazzo_compare.py) gives the same outputs. Hostile workflows (a
//! redirect to another host, a huge answer, an endless `goto`, an API that echoes the credentials, a server on a
//! private address) are refused or bounded, and no secret reaches a result.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use reqwest::Method;
use serde_json::{Value, json};
use specpress_e2e::{Server, bump, bump_cli, repo_root, temp_dir};

const ORG: &str = "workflow-tests-organization-token-0042";
const API_KEY: &str = "k-secret-3f9a7c";
const BEARER: &str = "t-secret-81d2e4";

/// One request the local API saw.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    headers: HashMap<String, String>,
    body: String,
}

#[derive(Clone, Default)]
struct Api {
    seen: Arc<Mutex<Vec<Seen>>>,
    polls: Arc<Mutex<HashMap<String, u32>>>,
    elsewhere: String,
}

fn record(api: &Api, method: &str, path: &str, headers: &HeaderMap, body: &str) {
    let headers = headers
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned())))
        .collect();
    if let Ok(mut seen) = api.seen.lock() {
        seen.push(Seen {
            method: method.into(),
            path: path.into(),
            headers,
            body: body.into(),
        });
    }
}

async fn pets(
    State(api): State<Api>,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let query: Vec<String> = q.iter().map(|(k, v)| format!("{k}={v}")).collect();
    record(
        &api,
        "GET",
        &format!("/pets?{}", query.join("&")),
        &headers,
        "",
    );
    if headers.get("x-api-key").and_then(|v| v.to_str().ok()) != Some(API_KEY) {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"error": "key"})),
        )
            .into_response();
    }
    let tag = q.get("tag").cloned().unwrap_or_default();
    axum::Json(json!({"pets": [
        {"id": 7, "name": "Rex", "tag": tag},
        {"id": 9, "name": "Ada", "tag": tag}
    ]}))
    .into_response()
}

async fn adopt(
    State(api): State<Api>,
    UrlPath(id): UrlPath<u64>,
    headers: HeaderMap,
    body: String,
) -> Response {
    record(
        &api,
        "POST",
        &format!("/pets/{id}/adoptions"),
        &headers,
        &body,
    );
    let bearer = format!("Bearer {BEARER}");
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(bearer.as_str()) {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"error": "token"})),
        )
            .into_response();
    }
    let Ok(b) = serde_json::from_str::<Value>(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let answer =
        json!({"id": format!("a-{id}"), "petId": id, "adopter": b["adopter"], "note": b["note"]});
    (
        StatusCode::CREATED,
        [("location", format!("/adoptions/a-{id}"))],
        axum::Json(answer),
    )
        .into_response()
}

async fn job(State(api): State<Api>, UrlPath(id): UrlPath<String>, headers: HeaderMap) -> Response {
    record(&api, "GET", &format!("/jobs/{id}"), &headers, "");
    let n = {
        let Ok(mut polls) = api.polls.lock() else {
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        };
        let n = polls.entry(id.clone()).or_insert(0);
        *n += 1;
        *n
    };
    let status = if id != "spin" && n >= 3 {
        "done"
    } else {
        "running"
    };
    axum::Json(json!({"status": status})).into_response()
}

async fn echo(State(api): State<Api>, headers: HeaderMap) -> Response {
    record(&api, "GET", "/echo", &headers, "");
    let all: serde_json::Map<String, Value> = headers
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_owned(), json!(v.to_str().ok()?))))
        .collect();
    axum::Json(Value::Object(all)).into_response()
}

async fn away(State(api): State<Api>, headers: HeaderMap) -> Response {
    record(&api, "GET", "/away", &headers, "");
    (
        StatusCode::FOUND,
        [("location", format!("{}/steal", api.elsewhere))],
    )
        .into_response()
}

async fn huge(State(api): State<Api>, headers: HeaderMap) -> Response {
    record(&api, "GET", "/huge", &headers, "");
    let filler = "x".repeat(3 * 1024 * 1024);
    axum::Json(json!({ "filler": filler })).into_response()
}

async fn steal(State(api): State<Api>, headers: HeaderMap) -> Response {
    record(&api, "GET", "/steal", &headers, "");
    StatusCode::OK.into_response()
}

/// Serves `router` on 127.0.0.1 from a thread of its own; returns its base URL.
fn serve(router: Router) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
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
    rx.recv().expect("the local API listens")
}

/// The shelter API and the host it redirects to.
fn shelter() -> (String, Api, Api) {
    let other = Api::default();
    let elsewhere = serve(
        Router::new()
            .route("/steal", get(steal))
            .with_state(other.clone()),
    );
    let api = Api {
        elsewhere,
        ..Api::default()
    };
    let url = serve(
        Router::new()
            .route("/pets", get(pets))
            .route("/pets/{id}/adoptions", post(adopt))
            .route("/jobs/{id}", get(job))
            .route("/echo", get(echo))
            .route("/away", get(away))
            .route("/huge", get(huge))
            .with_state(api.clone()),
    );
    (url, api, other)
}

fn python() -> Option<PathBuf> {
    let p = PathBuf::from(std::env::var_os("SPECPRESS_TOOLS_PYTHON")?);
    p.exists().then_some(p)
}

/// Runs a Python helper of tests/ with a JSON plan on stdin; its JSON answer.
fn helper(python: &Path, script: &str, plan: &Value) -> Value {
    let mut child = Command::new(python)
        .arg(repo_root().join("tests").join(script))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the helper starts");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(plan.to_string().as_bytes())
            .expect("plan written");
    }
    let out = child.wait_with_output().expect("the helper ends");
    assert!(
        out.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the helper prints JSON")
}

/// An MCP session with the official client: `calls` are `[tool, arguments]` pairs.
fn session(python: &Path, url: &str, token: Option<&str>, calls: Value) -> Value {
    let headers = match token {
        Some(t) => json!({"Authorization": format!("Bearer {t}")}),
        None => json!({}),
    };
    helper(
        python,
        "mcp_client.py",
        &json!({"url": url, "headers": headers, "calls": calls}),
    )
}

struct World {
    server: Server,
    _dir: tempfile::TempDir,
    docs: tempfile::TempDir,
    python: PathBuf,
    cli: PathBuf,
    api: Api,
    other: Api,
    http: reqwest::blocking::Client,
}

impl World {
    fn start() -> Option<World> {
        let python = python()?;
        let cli = bump_cli()?;
        let (api_url, api, other) = shelter();
        let dir = temp_dir();
        let server = Server::start(
            dir.path(),
            &[
                ("SPECPRESS_ORG_TOKEN", ORG),
                ("SPECPRESS_ALLOW_LOOPBACK_URLS", "true"),
            ],
        );
        // The documents, with the local API's port as the server variable's default.
        let docs = temp_dir();
        let port = api_url.rsplit(':').next().expect("a port").to_owned();
        let fixtures = repo_root().join("tests/fixtures/workflow-runs");
        for f in ["pets.openapi.yaml", "pets.arazzo.yaml"] {
            let text = std::fs::read_to_string(fixtures.join(f)).expect("fixture");
            std::fs::write(
                docs.path().join(f),
                text.replace("\"PORT\"", &format!("\"{port}\"")),
            )
            .expect("written");
        }
        Some(World {
            server,
            _dir: dir,
            docs,
            python,
            cli,
            api,
            other,
            http: reqwest::blocking::Client::new(),
        })
    }

    fn url(&self, p: &str) -> String {
        format!("{}{}", self.server.base_url, p)
    }

    fn api_call(&self, method: Method, p: &str, body: Option<Value>) -> (u16, Value) {
        let mut rb = self
            .http
            .request(method, self.url(p))
            .header("Authorization", format!("Token {ORG}"));
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let r = rb.send().expect("API answers");
        let s = r.status().as_u16();
        (s, r.json().unwrap_or(Value::Null))
    }

    fn deploy(&self, server: &str, file: &Path) -> specpress_e2e::CliRun {
        bump(
            &self.cli,
            &self.server.base_url,
            &[
                "deploy",
                file.to_str().expect("utf-8 path"),
                "--mcp-server",
                server,
                "--token",
                ORG,
            ],
        )
    }

    /// Deploys the shelter workflows to `server` and sets both secrets.
    fn shelter_server(&self, server: &str) {
        let run = self.deploy(server, &self.docs.path().join("pets.arazzo.yaml"));
        assert_eq!(run.code, 0, "{}", run.all());
        for (name, value) in [("apiKey", API_KEY), ("bearer", BEARER)] {
            let (s, b) = self.api_call(
                Method::PUT,
                &format!("/api/v1/mcp-servers/{server}/secrets/{name}"),
                Some(json!({ "value": value })),
            );
            assert_eq!(s, 204, "{b}");
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.api.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

fn call(s: &Value, i: usize) -> &Value {
    &s["calls"][i]
}

#[test]
fn an_official_client_runs_a_deployed_workflow_against_the_api_with_the_servers_secrets() {
    let Some(w) = World::start() else { return };
    w.shelter_server("shelter");
    let s = session(
        &w.python,
        &w.url("/mcp/shelter"),
        Some(ORG),
        json!([
            ["adoptPet", {"tag": "dog", "adopter": "Ana"}],
            ["waitForJob", {"jobId": "j-1"}],
            ["adoptPet", {"tag": "dog"}],
            ["noSuchTool", {}]
        ]),
    );
    assert!(s.get("connect_error").is_none(), "{s}");
    let mut names: Vec<&str> = s["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "adoptPet",
            "echoHeaders",
            "forever",
            "goAway",
            "hugeAnswer",
            "waitForJob"
        ]
    );
    let adopt_tool = s["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "adoptPet"))
        .expect("adoptPet");
    assert_eq!(
        adopt_tool["input_schema"]["required"],
        json!(["tag", "adopter"])
    );
    assert!(
        adopt_tool["description"]
            .as_str()
            .is_some_and(|d| d.contains("asks to adopt"))
    );
    assert!(
        adopt_tool["output_schema"]["properties"]
            .get("adoptionId")
            .is_some()
    );

    let adopted = call(&s, 0);
    assert_eq!(adopted["is_error"], false, "{adopted}");
    assert_eq!(
        adopted["structured"],
        json!({"adoptionId": "a-7", "petName": "Rex", "location": "/adoptions/a-7", "note": "Adopting Rex"})
    );
    // What the API received: the key on the list, the bearer token on the adoption, the rendered body.
    let seen = w.seen();
    let list = seen
        .iter()
        .find(|r| r.path.starts_with("/pets?"))
        .expect("listed");
    assert_eq!(
        list.headers.get("x-api-key").map(String::as_str),
        Some(API_KEY)
    );
    assert!(
        list.path.contains("tag=dog") && list.path.contains("limit=2"),
        "{list:?}"
    );
    let post = seen.iter().find(|r| r.method == "POST").expect("adopted");
    assert_eq!(post.path, "/pets/7/adoptions");
    assert_eq!(
        post.headers.get("authorization").map(String::as_str),
        Some(format!("Bearer {BEARER}").as_str())
    );
    assert_eq!(
        post.headers.get("x-request-source").map(String::as_str),
        Some("workflow")
    );
    assert_eq!(
        serde_json::from_str::<Value>(&post.body).expect("JSON body"),
        json!({"adopter": "Ana", "note": "Adopting Rex"})
    );

    // Retried until the job is done (the third poll).
    let waited = call(&s, 1);
    assert_eq!(waited["structured"], json!({"status": "done"}), "{waited}");
    assert_eq!(w.seen().iter().filter(|r| r.path == "/jobs/j-1").count(), 3);
    // Inputs the schema refuses: a tool error saying which, and no request.
    let refused = call(&s, 2);
    assert_eq!(refused["is_error"], true, "{refused}");
    assert!(
        refused["text"]
            .as_str()
            .is_some_and(|t| t.contains("adopter")),
        "{refused}"
    );
    // An unknown tool is a protocol error.
    assert!(call(&s, 3).get("error").is_some(), "{}", call(&s, 3));

    // The same workflow, run by arazzo-runner on the same documents and API, gives the same outputs.
    let theirs = helper(
        &w.python,
        "arazzo_compare.py",
        &json!({
            "path": w.docs.path().join("pets.arazzo.yaml"),
            "workflow": "adoptPet",
            "inputs": {"tag": "dog", "adopter": "Ana"},
            "secrets": {"apiKey": API_KEY, "bearer": BEARER}
        }),
    );
    assert_eq!(theirs["status"], "workflow_complete", "{theirs}");
    // `location` (`$response.header.Location`) is left out: arazzo-runner 0.9.6 answers null for response headers.
    assert_eq!(theirs["outputs"]["location"], Value::Null, "{theirs}");
    for output in ["adoptionId", "petName", "note"] {
        assert_eq!(
            theirs["outputs"][output], adopted["structured"][output],
            "{output}: {theirs}"
        );
    }
}

#[test]
fn hostile_workflows_are_refused_or_bounded_and_never_leak_a_secret() {
    let Some(w) = World::start() else { return };
    w.shelter_server("shelter");
    let s = session(
        &w.python,
        &w.url("/mcp/shelter"),
        Some(ORG),
        json!([
            ["echoHeaders", {}],
            ["goAway", {}],
            ["hugeAnswer", {}],
            ["forever", {}]
        ]),
    );
    assert!(s.get("connect_error").is_none(), "{s}");
    let text = s.to_string();
    assert!(!text.contains(API_KEY), "the key leaked: {text}");
    assert!(!text.contains(BEARER), "the token leaked: {text}");

    // The API echoed the key: the output carries `[redacted]` instead.
    let echoed = call(&s, 0);
    assert_eq!(echoed["is_error"], false, "{echoed}");
    assert_eq!(echoed["structured"]["key"], "[redacted]", "{echoed}");
    assert!(w.seen().iter().any(|r| r.path == "/echo"));

    // A redirect to another host: refused, naming the step; the other host never called.
    let away = call(&s, 1);
    assert_eq!(away["is_error"], true, "{away}");
    assert!(
        away["text"].as_str().is_some_and(|t| t.contains("away")),
        "{away}"
    );
    assert!(
        w.other.seen.lock().map(|s| s.is_empty()).unwrap_or(false),
        "the other host was called"
    );

    // A huge answer: refused at the cap, naming the step.
    let huge = call(&s, 2);
    assert_eq!(huge["is_error"], true, "{huge}");
    assert!(
        huge["text"].as_str().is_some_and(|t| t.contains("huge")),
        "{huge}"
    );

    // An endless goto: ends at the step budget, naming the step.
    let forever = call(&s, 3);
    assert_eq!(forever["is_error"], true, "{forever}");
    assert!(
        forever["text"].as_str().is_some_and(|t| t.contains("spin")),
        "{forever}"
    );
    let spins = w.seen().iter().filter(|r| r.path == "/jobs/spin").count();
    assert!(
        (2..=50).contains(&spins),
        "{spins} runs of the looping step"
    );

    // A document whose server is a private address: accepted as a document, refused at run time.
    let private = w.docs.path().join("private");
    std::fs::create_dir_all(&private).expect("dir");
    for f in ["pets.openapi.yaml", "pets.arazzo.yaml"] {
        let text = std::fs::read_to_string(w.docs.path().join(f)).expect("doc");
        let text = text.replace("http://127.0.0.1:{port}", "http://169.254.169.254:{port}");
        std::fs::write(private.join(f), text).expect("written");
    }
    let run = w.deploy("metadata", &private.join("pets.arazzo.yaml"));
    assert_eq!(run.code, 0, "{}", run.all());
    let (st, b) = w.api_call(
        Method::PUT,
        "/api/v1/mcp-servers/metadata/secrets/apiKey",
        Some(json!({ "value": API_KEY })),
    );
    assert_eq!(st, 204, "{b}");
    let s = session(
        &w.python,
        &w.url("/mcp/metadata"),
        Some(ORG),
        json!([["waitForJob", {"jobId": "x"}]]),
    );
    let refused = call(&s, 0);
    assert_eq!(refused["is_error"], true, "{refused}");
    assert!(
        refused["text"]
            .as_str()
            .is_some_and(|t| t.contains("poll") && t.contains("public")),
        "{refused}"
    );
}

#[test]
fn only_the_organization_token_or_the_servers_own_opens_it_and_strangers_cannot_tell_servers_apart()
{
    let Some(w) = World::start() else { return };
    w.shelter_server("shelter");
    let url = w.url("/mcp/shelter");
    let anonymous = session(&w.python, &url, None, json!([]));
    let wrong = session(&w.python, &url, Some("not-a-token"), json!([]));
    let unknown = session(
        &w.python,
        &w.url("/mcp/no-such-server"),
        Some("not-a-token"),
        json!([]),
    );
    assert!(anonymous.get("connect_error").is_some(), "{anonymous}");
    assert_eq!(
        wrong, unknown,
        "a wrong token on a real server looks like an unknown server"
    );
    // Raw HTTP: 401 with the same body for all three.
    let post = |u: &str, token: Option<&str>| {
        let mut rb = w
            .http
            .post(u)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        if let Some(t) = token {
            rb = rb.header("Authorization", format!("Bearer {t}"));
        }
        let r = rb.send().expect("answers");
        (r.status().as_u16(), r.text().unwrap_or_default())
    };
    let a = post(&url, None);
    assert_eq!(a.0, 401);
    assert_eq!(post(&url, Some("nope")), a);
    assert_eq!(post(&w.url("/mcp/no-such-server"), Some("nope")), a);

    // The server's own token, shown once at rotation, opens it; rotating again closes the old one.
    let (s, b) = w.api_call(
        Method::POST,
        "/api/v1/mcp-servers/shelter/rotate_token",
        None,
    );
    assert_eq!(s, 200, "{b}");
    let first = b["token"].as_str().expect("a token").to_owned();
    let ok = session(&w.python, &url, Some(&first), json!([]));
    assert!(ok.get("connect_error").is_none(), "{ok}");
    let (s, b) = w.api_call(
        Method::POST,
        "/api/v1/mcp-servers/shelter/rotate_token",
        None,
    );
    assert_eq!(s, 200, "{b}");
    let stale = session(&w.python, &url, Some(&first), json!([]));
    assert!(stale.get("connect_error").is_some(), "{stale}");
}

#[test]
fn every_mcp_server_has_a_public_page_of_its_tools_inputs_outputs_and_client_configuration() {
    let Some(w) = World::start() else { return };
    w.shelter_server("shelter");
    let r = w.http.get(w.url("/mcp/shelter")).send().expect("page");
    assert_eq!(r.status().as_u16(), 200);
    let csp = r
        .headers()
        .get("content-security-policy")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(csp.contains("default-src"), "{csp}");
    let html = r.text().expect("html");
    for needle in [
        "adoptPet",
        "waitForJob",
        "adopter",
        "$steps.adopt.outputs.adoptionId",
        "/mcp/shelter",
        "Authorization",
    ] {
        let escaped = needle.replace('&', "&amp;");
        assert!(html.contains(&escaped), "the page lacks {needle}");
    }
    assert!(!html.contains(API_KEY) && !html.contains(BEARER));
    let missing = w
        .http
        .get(w.url("/mcp/no-such-server"))
        .send()
        .expect("page");
    assert_eq!(missing.status().as_u16(), 404);
}

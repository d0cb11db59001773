//! End-to-end tests of the API contract's edges (issue 18, items 8, 10 and 11), against the real `specpress serve`:
//! every paginated list walked to its end by its links, cursors across a restart, logs without escape codes when
//! piped, the shape of every error answer the HTTP stack produces, query parameter strictness, validations with a
//! token, display-safe names, and concurrent token rotations.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::blocking::{Client, RequestBuilder};
use serde_json::{Value, json};
use specpress_e2e::{Server, bump, bump_cli, fixtures, repo_root, specpress_binary, temp_dir};

const ORG: &str = "contract-tests-organization-token-7";

struct Api {
    server: Server,
    _dir: tempfile::TempDir,
    http: Client,
}

fn send(rb: RequestBuilder) -> (u16, reqwest::header::HeaderMap, Value) {
    let r = rb.send().expect("request");
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    let text = r.text().unwrap_or_default();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    (status, headers, body)
}

impl Api {
    fn start(env: &[(&str, &str)]) -> Api {
        let dir = temp_dir();
        let mut all = vec![("SPECPRESS_ORG_TOKEN", ORG)];
        all.extend_from_slice(env);
        let server = Server::start(dir.path(), &all);
        Api {
            server,
            _dir: dir,
            http: Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .expect("client"),
        }
    }
    fn url(&self, path: &str) -> String {
        format!("{}{}", self.server.base_url, path)
    }
    fn get(&self, path: &str, token: &str) -> (u16, reqwest::header::HeaderMap, Value) {
        send(
            self.http
                .get(self.url(path))
                .header("Authorization", format!("Token {token}")),
        )
    }
    fn post(&self, path: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        let mut rb = self.http.post(self.url(path)).json(&body);
        if let Some(t) = token {
            rb = rb.header("Authorization", format!("Token {t}"));
        }
        let (s, _, b) = send(rb);
        (s, b)
    }
    fn created(&self, path: &str, body: Value) -> Value {
        let (s, b) = self.post(path, Some(ORG), body);
        assert!(s == 201 || s == 202, "POST {path}: {s} {b}");
        b
    }
    fn doc(&self, slug: &str, hub: Option<&str>) -> Value {
        self.created(
            "/api/v1/docs",
            json!({"name": slug, "slug": slug, "hub": hub}),
        )
    }
    fn hub(&self, slug: &str) -> Value {
        self.created("/api/v1/hubs", json!({"name": slug, "slug": slug}))
    }
    fn deploy(&self, doc: &str, title: &str) {
        let definition = std::fs::read_to_string(fixtures().join("petstore.yaml"))
            .expect("fixture")
            .replacen("title:", &format!("title: {title} #"), 1);
        let (s, b) = self.post(
            "/api/v1/versions",
            Some(ORG),
            json!({"documentation": doc, "definition": definition}),
        );
        assert_eq!(s, 201, "{b}");
    }
}

fn assert_message(status: u16, body: &Value, context: &str) {
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{context}: a JSON {{message}} body with {status}, got {body}"
    );
}

/// The `rel="next"` target of a `Link` header.
fn next_of(headers: &reqwest::header::HeaderMap) -> Option<String> {
    let link = headers.get("link")?.to_str().ok()?;
    link.split(", ").find_map(|part| {
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

/// One paginated list of the API, and how to tell its items apart.
struct ListRoute {
    path: String,
    id_field: &'static str,
}

/// Walks `route` from `limit=1` to its end, once by `Link: rel="next"` and once by the envelope's `links.next`:
/// each followed URL answers 200, the pages partition the full list, and the last page has no next.
fn walk(api: &Api, route: &ListRoute) {
    let ids = |items: &Value| -> Vec<String> {
        items
            .as_array()
            .unwrap_or_else(|| panic!("{}: an array, got {items}", route.path))
            .iter()
            .map(|i| {
                i[route.id_field]
                    .as_str()
                    .unwrap_or_else(|| panic!("{}: item without {}", route.path, route.id_field))
                    .to_owned()
            })
            .collect()
    };
    let (s, _, all) = api.get(&format!("{}?limit=100", route.path), ORG);
    assert_eq!(s, 200, "{}: {all}", route.path);
    let all = ids(&all);
    assert!(
        all.len() >= 3,
        "{}: the walk needs at least 3 items, has {}",
        route.path,
        all.len()
    );
    for envelope in [false, true] {
        let mut url = format!(
            "{}?limit=1{}",
            route.path,
            if envelope { "&envelope=true" } else { "" }
        );
        let mut seen = Vec::new();
        for _ in 0..=all.len() {
            let (s, headers, body) = api.get(&url, ORG);
            assert_eq!(s, 200, "following {url}: {body}");
            let next = if envelope {
                seen.extend(ids(&body["data"]));
                body["links"]["next"].as_str().map(str::to_owned)
            } else {
                seen.extend(ids(&body));
                next_of(&headers)
            };
            match next {
                Some(n) => {
                    assert!(
                        n.starts_with("/api/v1/"),
                        "{}: links keep the /api/v1 prefix: {n}",
                        route.path
                    );
                    url = n;
                }
                None => break,
            }
        }
        assert_eq!(
            seen, all,
            "{} (envelope {envelope}): the pages partition the list, in order",
            route.path
        );
    }
}

/// Counts the handlers that take a `ListRequest` (a paginated list) in the sources of the functions and of the
/// libraries under shared/ their routes live in.
fn paginated_handlers_in_sources() -> usize {
    let mut count = 0;
    let crates = ["functions", "shared"].into_iter().flat_map(|dir| {
        std::fs::read_dir(repo_root().join(dir))
            .expect("crates dir")
            .flatten()
    });
    for entry in crates {
        let src = entry.path().join("src");
        let Ok(files) = std::fs::read_dir(&src) else {
            continue;
        };
        for file in files.flatten() {
            let text = std::fs::read_to_string(file.path()).unwrap_or_default();
            count += text.matches(" ListRequest,").count()
                + text.matches("pagination::ListRequest,").count();
        }
    }
    count
}

#[test]
fn every_paginated_list_route_is_walked_to_its_end_by_its_links() {
    let api = Api::start(&[("SPECPRESS_ALLOW_LOOPBACK_URLS", "true")]);
    let hubs: Vec<Value> = ["h-one", "h-two", "h-three"]
        .iter()
        .map(|s| api.hub(s))
        .collect();
    for slug in ["d-one", "d-two", "d-three"] {
        api.doc(slug, Some("h-one"));
    }
    api.doc("lonely", None);
    // Branches: the default one after a deploy, and three more.
    for title in ["First", "Second", "Third"] {
        api.deploy("d-one", title);
    }
    for name in ["feature/a", "feature/b", "feature/c"] {
        api.created("/api/v1/docs/d-one/branches", json!({"name": name}));
    }
    // Webhooks, and deliveries of the first one (test pings, to an address where nothing listens).
    let hooks: Vec<Value> = (0..3)
        .map(|i| {
            api.created(
                "/api/v1/docs/d-one/webhooks",
                json!({"url": format!("http://127.0.0.1:9/hook-{i}")}),
            )
        })
        .collect();
    let hook = hooks[0]["id"].as_str().expect("webhook id");
    for _ in 0..3 {
        api.created(
            &format!("/api/v1/docs/d-one/webhooks/{hook}/test"),
            json!({}),
        );
    }

    // MCP servers, and versions of the first one (each deploy a different title: a new version).
    for slug in ["m-one", "m-two", "m-three"] {
        api.created("/api/v1/mcp-servers", json!({"name": slug, "slug": slug}));
    }
    let workflows = fixtures().join("workflows");
    let source = std::fs::read_to_string(workflows.join("petstore-openapi.yaml")).expect("fixture");
    for title in ["First", "Second", "Third"] {
        let definition = std::fs::read_to_string(workflows.join("petstore-arazzo.yaml"))
            .expect("fixture")
            .replacen("title: Petstore workflows", &format!("title: {title}"), 1);
        api.created(
            "/api/v1/mcp-servers/m-one/deploy",
            json!({"definition": definition, "references": [
                {"location": "./petstore-openapi.yaml", "name": "petstore", "content": source}
            ]}),
        );
    }

    // Reader tokens of a documentation and of a hub.
    for name in ["Partner A", "Partner B", "Partner C"] {
        api.created("/api/v1/docs/d-one/reader_tokens", json!({"name": name}));
        api.created("/api/v1/hubs/h-one/reader_tokens", json!({"name": name}));
    }

    let routes = [
        ("/api/v1/docs".to_owned(), "id"),
        ("/api/v1/hubs".to_owned(), "id"),
        (
            format!(
                "/api/v1/hubs/{}/apis",
                hubs[0]["slug"].as_str().unwrap_or("")
            ),
            "id",
        ),
        ("/api/v1/docs/d-one/branches".to_owned(), "slug"),
        ("/api/v1/docs/d-one/versions".to_owned(), "id"),
        ("/api/v1/docs/d-one/webhooks".to_owned(), "id"),
        (
            format!("/api/v1/docs/d-one/webhooks/{hook}/deliveries"),
            "id",
        ),
        ("/api/v1/mcp-servers".to_owned(), "id"),
        ("/api/v1/mcp-servers/m-one/versions".to_owned(), "id"),
        ("/api/v1/docs/d-one/reader_tokens".to_owned(), "id"),
        ("/api/v1/hubs/h-one/reader_tokens".to_owned(), "id"),
    ];
    assert_eq!(
        routes.len(),
        paginated_handlers_in_sources(),
        "a handler takes a ListRequest that this walk does not cover: add its route to the list above"
    );
    for (path, id_field) in routes {
        walk(&api, &ListRoute { path, id_field });
    }
}

#[test]
fn pagination_parameters_with_spaces_or_given_twice_are_400_naming_the_parameter() {
    let api = Api::start(&[]);
    for (query, parameter) in [
        ("limit=%2010", "`limit`"),
        ("limit=10%20", "`limit`"),
        ("limit=+10", "`limit`"),
        ("page=%201", "`page`"),
        ("limit=5&per_page=5", "`per_page`"),
        ("limit=5&per_page=6", "`per_page`"),
        ("envelope=%20true", "`envelope`"),
        ("limit=1&limit=1", "`limit`"),
    ] {
        let (s, _, b) = api.get(&format!("/api/v1/hubs?{query}"), ORG);
        assert_eq!(s, 400, "{query}: {b}");
        let message = b["message"].as_str().unwrap_or_default();
        assert!(message.contains(parameter), "{query}: {message}");
    }
    // Filters of a list are strict too: a repeated `hub` is 400 with a JSON message.
    let (s, _, b) = api.get("/api/v1/docs?hub=a&hub=b", ORG);
    assert_eq!(s, 400, "{b}");
    assert_message(s, &b, "repeated hub filter");
}

#[test]
fn a_cursor_carries_no_readable_sort_key() {
    let api = Api::start(&[]);
    for slug in ["alpha-docs", "bravo-docs", "charlie-docs"] {
        api.doc(slug, None);
    }
    let (s, _, b) = api.get("/api/v1/docs?limit=1&envelope=true", ORG);
    assert_eq!(s, 200, "{b}");
    let cursor = b["meta"]["next_cursor"].as_str().expect("a next cursor");
    use base64::Engine as _;
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .expect("base64url");
    let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    for shown in [cursor.as_bytes(), raw.as_slice(), hex.as_bytes()] {
        let text = String::from_utf8_lossy(shown);
        assert!(!text.contains("alpha"), "the sort key shows: {text}");
    }
    // A cursor edited by one character, or used on another list, is refused.
    let mut edited = cursor.to_owned().into_bytes();
    let last = edited.len() - 1;
    edited[last] = if edited[last] == b'A' { b'B' } else { b'A' };
    let edited = String::from_utf8(edited).expect("ascii");
    let (s, _, b) = api.get(&format!("/api/v1/docs?limit=1&cursor={edited}"), ORG);
    assert_eq!(s, 400, "{b}");
    let (s, _, b) = api.get(&format!("/api/v1/hubs?limit=1&cursor={cursor}"), ORG);
    assert_eq!(s, 400, "{b}");
    assert!(
        b["message"]
            .as_str()
            .unwrap_or_default()
            .contains("`cursor`")
    );
}

/// A `specpress serve` child with both output streams captured.
struct Piped {
    child: Child,
    base_url: String,
    stdout: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Piped {
    fn start(data_dir: &Path, env: &[(&str, &str)]) -> Piped {
        let mut cmd = Command::new(specpress_binary());
        cmd.args(["serve", "--port", "0", "--data-dir"])
            .arg(data_dir)
            .env_remove("SPECPRESS_TABLE")
            .env_remove("SPECPRESS_CURSOR_KEY")
            .env_remove("SPECPRESS_LOG_FORMAT")
            .env_remove("NO_COLOR")
            .env("SPECPRESS_ORG_TOKEN", ORG)
            .env("SPECPRESS_SELF_DOC", "false")
            .env("SPECPRESS_LOG", "debug")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        // Waited for in `stop`/`Drop`.
        #[allow(clippy::zombie_processes)]
        let mut child = cmd.spawn().expect("specpress serve starts");
        let stderr_buf = Arc::new(Mutex::new(Vec::new()));
        let stdout_buf = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().expect("piped stderr");
        let sink = stderr_buf.clone();
        std::thread::spawn(move || {
            let mut stderr = stderr;
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut out) = sink.lock() {
                    out.extend_from_slice(&buf[..n]);
                }
            }
        });
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        let sink = stdout_buf.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(mut out) = sink.lock() {
                    out.extend_from_slice(line.as_bytes());
                    out.push(b'\n');
                }
                if let Some(url) = line.strip_prefix("Listening on ") {
                    let _ = tx.send(url.trim().to_owned());
                }
            }
        });
        let base_url = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(url) => url,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("specpress serve did not start");
            }
        };
        Piped {
            child,
            base_url,
            stdout: stdout_buf,
            stderr: stderr_buf,
        }
    }

    /// SIGTERM, wait, and what it printed: stdout, then stderr (the logs).
    fn stop(mut self) -> Vec<u8> {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Let the reader threads drain what is left.
        std::thread::sleep(Duration::from_millis(200));
        let mut all = self.stdout.lock().map(|o| o.clone()).unwrap_or_default();
        all.extend(self.stderr.lock().map(|o| o.clone()).unwrap_or_default());
        all
    }
}

impl Drop for Piped {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn get_with(http: &Client, url: &str) -> (u16, reqwest::header::HeaderMap, Value) {
    send(
        http.get(url)
            .header("Authorization", format!("Token {ORG}")),
    )
}

#[test]
fn a_cursor_from_before_a_restart_still_works_after_it_with_the_key_kept_in_the_data_directory() {
    let dir = temp_dir();
    let http = Client::new();
    let first = Piped::start(dir.path(), &[]);
    for slug in ["one-doc", "two-doc", "three-doc"] {
        let (s, b) = {
            let (s, _, b) = send(
                http.post(format!("{}/api/v1/docs", first.base_url))
                    .header("Authorization", format!("Token {ORG}"))
                    .json(&json!({"name": slug, "slug": slug})),
            );
            (s, b)
        };
        assert_eq!(s, 201, "{b}");
    }
    let (s, headers, page1) = get_with(&http, &format!("{}/api/v1/docs?limit=1", first.base_url));
    assert_eq!(s, 200, "{page1}");
    let next = next_of(&headers).expect("a next link");
    assert!(next.contains("cursor="), "{next}");
    let output = first.stop();

    let key_file = dir.path().join("cursor.key");
    let key = std::fs::read_to_string(&key_file).expect("the key is kept in the data directory");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&key_file)
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "owner-only key file");
    }
    let output = String::from_utf8_lossy(&output);
    assert!(
        !output.contains(key.trim()),
        "the key is never printed or logged"
    );

    let second = Piped::start(dir.path(), &[]);
    let (s, _, page2) = get_with(&http, &format!("{}{next}", second.base_url));
    assert_eq!(s, 200, "the cursor works after the restart: {page2}");
    assert_eq!(page2[0]["slug"], "three-doc", "{page1} then {page2}");
    second.stop();

    // SPECPRESS_CURSOR_KEY, when set, is the key: the data directory's is not used then.
    let third = Piped::start(
        dir.path(),
        &[(
            "SPECPRESS_CURSOR_KEY",
            "another-key-of-at-least-thirty-two-bytes!",
        )],
    );
    let (s, _, b) = get_with(&http, &format!("{}{next}", third.base_url));
    assert_eq!(s, 400, "{b}");
    third.stop();
    assert_eq!(
        std::fs::read_to_string(&key_file).expect("key"),
        key,
        "the kept key is unchanged"
    );
}

#[test]
fn the_local_server_logs_no_escape_codes_when_piped_and_json_lines_when_asked() {
    let http = Client::new();
    for format in ["text", "json"] {
        let dir = temp_dir();
        let server = Piped::start(dir.path(), &[("SPECPRESS_LOG_FORMAT", format)]);
        let (s, _, _) = get_with(&http, &format!("{}/api/v1/hubs", server.base_url));
        assert_eq!(s, 200);
        let (s, _, _) = get_with(&http, &format!("{}/api/v1/nowhere", server.base_url));
        assert_eq!(s, 404);
        let output = server.stop();
        assert!(
            !output.contains(&0x1b),
            "{format}: no ANSI escape codes when piped:\n{}",
            String::from_utf8_lossy(&output)
        );
        let text = String::from_utf8_lossy(&output);
        assert!(
            text.contains("listening"),
            "{format}: logs were written: {text}"
        );
        if format == "json" {
            let log_lines: Vec<&str> = text.lines().filter(|l| l.starts_with('{')).collect();
            assert!(!log_lines.is_empty(), "{text}");
            for line in log_lines {
                let v: Value = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("a JSON log line: {e}: {line}"));
                assert!(v["level"].is_string(), "{line}");
            }
        }
    }
    // An unknown format is refused at start, naming the variable.
    let dir = temp_dir();
    let out = Command::new(specpress_binary())
        .args(["serve", "--port", "0", "--data-dir"])
        .arg(dir.path())
        .env("SPECPRESS_LOG_FORMAT", "yaml")
        .output()
        .expect("runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("SPECPRESS_LOG_FORMAT"));
}

/// Sends raw bytes on a fresh connection and returns the status and body of the answer.
fn raw(base_url: &str, request: &[u8]) -> (u16, String, String) {
    let addr = base_url.trim_start_matches("http://");
    let mut conn = std::net::TcpStream::connect(addr).expect("connect");
    conn.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    conn.write_all(request).expect("write");
    let mut answer = Vec::new();
    let _ = conn.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (status, head.to_owned(), body.to_owned())
}

#[test]
fn error_answers_produced_outside_handlers_are_json_messages() {
    let api = Api::start(&[]);
    let base = &api.server.base_url;
    let host = base.trim_start_matches("http://");

    // 405 with Allow.
    let (s, headers, b) = send(api.http.delete(api.url("/api/v1/hubs")));
    assert_eq!(s, 405);
    assert!(headers.get("allow").is_some(), "Allow is kept");
    assert_message(s, &b, "405");
    let (s, _, b) = send(api.http.put(api.url("/api/v1/ping")));
    assert_eq!(s, 405);
    assert_message(s, &b, "405 on ping");

    // Unknown routes.
    let (s, _, b) = send(api.http.get(api.url("/api/v1/nowhere")));
    assert_eq!(s, 404);
    assert_message(s, &b, "404");

    // 414: a request target over 8 KiB.
    let long = format!(
        "GET /api/v1/ping?q={} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n",
        "a".repeat(9000)
    );
    let (s, head, body) = raw(base, long.as_bytes());
    assert_eq!(s, 414, "{head}");
    assert_message(
        s,
        &serde_json::from_str(&body).unwrap_or(Value::Null),
        "414",
    );

    // 431: a header section over 32 KiB.
    let mut big = format!("GET /api/v1/ping HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for i in 0..40 {
        big.push_str(&format!("X-Filler-{i}: {}\r\n", "v".repeat(1000)));
    }
    big.push_str("\r\n");
    let (s, head, body) = raw(base, big.as_bytes());
    assert_eq!(s, 431, "{head}");
    assert_message(
        s,
        &serde_json::from_str(&body).unwrap_or(Value::Null),
        "431",
    );

    // Path parameters that are not valid UTF-8: the extractor's rejection, as JSON.
    let bad_path = format!(
        "GET /api/v1/hubs/%FF%FE HTTP/1.1\r\nHost: {host}\r\nAuthorization: Token {ORG}\r\nConnection: close\r\n\r\n"
    );
    let (s, head, body) = raw(base, bad_path.as_bytes());
    assert_eq!(s, 400, "{head}");
    assert_message(
        s,
        &serde_json::from_str(&body).unwrap_or(Value::Null),
        "bad path",
    );

    // A request line hyper cannot parse is refused by the HTTP server itself, before any layer: 400 with an empty
    // body, and the connection closed (docs/api.md, "Errors").
    let (s, head, body) = raw(base, b"NOT A REQUEST\r\n\r\n");
    assert_eq!(s, 400, "{head}");
    assert!(body.is_empty(), "{body}");
}

#[test]
fn validations_with_a_token_answer_404_for_a_documentation_it_does_not_reach() {
    let api = Api::start(&[]);
    let mine = api.doc("mine", None);
    api.doc("theirs", None);
    api.hub("hub-a");
    let hub_b = api.hub("hub-b");
    let doc_token = mine["token"].as_str().expect("token");
    let hub_b_token = hub_b["token"].as_str().expect("token");
    let definition = std::fs::read_to_string(fixtures().join("petstore.yaml")).expect("fixture");
    let validate = |token: Option<&str>, body: Value| {
        let mut body = body;
        body["definition"] = json!(definition);
        api.post("/api/v1/validations", token, body)
    };
    // Reached: 200.
    let (s, b) = validate(Some(doc_token), json!({"documentation": "mine"}));
    assert_eq!(s, 200, "{b}");
    // Another documentation, by slug or id, or one that does not exist: 404 like a deploy.
    for other in [
        "theirs",
        "absent-doc",
        "01900000-0000-7000-8000-000000000000",
    ] {
        let (s, b) = validate(Some(doc_token), json!({"documentation": other}));
        assert_eq!(s, 404, "{other}: {b}");
        assert_eq!(b["message"], "Documentation does not exist", "{other}");
    }
    // A hub out of reach: 404.
    let (s, b) = validate(
        Some(hub_b_token),
        json!({"documentation": "new-doc", "hub": "hub-a"}),
    );
    assert_eq!(s, 404, "{b}");
    // A documentation a deploy with this token would auto-create: 200 (bump-cli's dry run before the first deploy).
    let (s, b) = validate(
        Some(hub_b_token),
        json!({"documentation": "new-doc", "hub": "hub-b", "auto_create_documentation": false}),
    );
    assert_eq!(s, 200, "{b}");
    let (s, b) = validate(Some(ORG), json!({"documentation": "brand-new"}));
    assert_eq!(s, 200, "{b}");
    // Without a token, as before: documentation is not looked at.
    let (s, b) = validate(None, json!({"documentation": "theirs"}));
    assert_eq!(s, 200, "{b}");
    // Nothing was created by the validations.
    let (_, _, docs) = api.get("/api/v1/docs", ORG);
    let slugs: BTreeSet<&str> = docs
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|d| d["slug"].as_str())
        .collect();
    assert_eq!(slugs, BTreeSet::from(["mine", "theirs"]));
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn bump_cli_dry_runs_validate_reachable_and_auto_creatable_documentations_only() {
    let cli = bump_cli();
    let api = Api::start(&[]);
    let mine = api.doc("mine", None);
    api.doc("theirs", None);
    let hub = api.hub("the-hub");
    let doc_token = mine["token"].as_str().expect("token");
    let hub_token = hub["token"].as_str().expect("token");
    let base = &api.server.base_url;
    let ok = bump(
        &cli,
        base,
        &[
            "deploy",
            "petstore.yaml",
            "--dry-run",
            "--doc",
            "mine",
            "--token",
            doc_token,
        ],
    );
    assert_eq!(ok.code, 0, "{ok:?}");
    let refused = bump(
        &cli,
        base,
        &[
            "deploy",
            "petstore.yaml",
            "--dry-run",
            "--doc",
            "theirs",
            "--token",
            doc_token,
        ],
    );
    assert_ne!(refused.code, 0, "{refused:?}");
    // A first deploy rehearsed with --auto-create: bump-cli sends auto_create_documentation=false on a dry run.
    let rehearsal = bump(
        &cli,
        base,
        &[
            "deploy",
            "petstore.yaml",
            "--dry-run",
            "--auto-create",
            "--hub",
            "the-hub",
            "--doc",
            "first-api",
            "--token",
            hub_token,
        ],
    );
    assert_eq!(rehearsal.code, 0, "{rehearsal:?}");
    let (s, _, _) = api.get("/api/v1/docs/first-api/branches", ORG);
    assert_eq!(s, 404, "the dry run created nothing");
    let real = bump(
        &cli,
        base,
        &[
            "deploy",
            "petstore.yaml",
            "--auto-create",
            "--hub",
            "the-hub",
            "--doc",
            "first-api",
            "--token",
            hub_token,
        ],
    );
    assert_eq!(real.code, 0, "{real:?}");
}

#[test]
fn display_spoofing_names_and_blank_branch_names_are_422() {
    let api = Api::start(&[]);
    api.doc("spoof", None);
    let definition = std::fs::read_to_string(fixtures().join("petstore.yaml")).expect("fixture");
    for name in [
        "main\u{202E}nimda",
        "feature\u{200B}x",
        "\u{2066}x\u{2069}",
        "a\u{00AD}b",
    ] {
        let (s, b) = api.post(
            "/api/v1/docs/spoof/branches",
            Some(ORG),
            json!({ "name": name }),
        );
        assert_eq!(s, 422, "{name:?}: {b}");
        assert!(b["errors"]["name"].is_array(), "{b}");
        let (s, b) = api.post(
            "/api/v1/versions",
            Some(ORG),
            json!({"documentation": "spoof", "definition": definition, "branch_name": name}),
        );
        assert_eq!(s, 422, "{name:?}: {b}");
        assert!(b["errors"]["branch_name"].is_array(), "{b}");
    }
    for blank in [" ", "", "\u{00A0}\t"] {
        let (s, b) = api.post(
            "/api/v1/versions",
            Some(ORG),
            json!({"documentation": "spoof", "definition": definition, "branch_name": blank}),
        );
        assert_eq!(s, 422, "{blank:?}: {b}");
        assert!(b["errors"]["branch_name"].is_array(), "{b}");
    }
    // Nothing was deployed by the refused deploys; an absent branch_name deploys to the default branch.
    let (s, b) = api.post(
        "/api/v1/versions",
        Some(ORG),
        json!({"documentation": "spoof", "definition": definition}),
    );
    assert_eq!(s, 201, "{b}");
    let (s, _, b) = api.get("/api/v1/docs/spoof/branches", ORG);
    assert_eq!(s, 200, "{b}");
    let branches: Vec<&str> = b
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|b| b["slug"].as_str())
        .collect();
    assert_eq!(branches, ["main"], "{b}");
    let (s, _, b) = api.get("/api/v1/docs/spoof/versions", ORG);
    assert_eq!((s, b.as_array().map(Vec::len)), (200, Some(1)), "{b}");
    // Documentation and hub names follow the same rule.
    for (path, body) in [
        (
            "/api/v1/docs",
            json!({"name": "Pay\u{202E}ments", "slug": "payments"}),
        ),
        (
            "/api/v1/hubs",
            json!({"name": "Hub\u{200D}", "slug": "hub-zwj"}),
        ),
        ("/api/v1/docs", json!({"name": "\u{FEFF}", "slug": "bom"})),
    ] {
        let (s, b) = api.post(path, Some(ORG), body);
        assert_eq!(s, 422, "{path}: {b}");
        assert!(b["errors"]["name"].is_array(), "{b}");
    }
}

#[test]
fn concurrent_rotations_of_one_token_have_documented_outcomes() {
    let api = Api::start(&[]);
    let doc = api.doc("rotated", None);
    let first_doc_token = doc["token"].as_str().expect("token").to_owned();
    let rotate_all = |path: &str, token: &str, n: usize| -> Vec<(u16, Value)> {
        let barrier = Arc::new(std::sync::Barrier::new(n));
        let handles: Vec<_> = (0..n)
            .map(|_| {
                let barrier = barrier.clone();
                let url = api.url(path);
                let token = token.to_owned();
                let http = api.http.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    let (s, _, b) = send(
                        http.post(url)
                            .header("Authorization", format!("Token {token}"))
                            .json(&json!({})),
                    );
                    (s, b)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect()
    };
    let works = |token: &str| {
        let (s, _, _) = api.get("/api/v1/docs/rotated/branches", token);
        s == 200
    };

    // A documentation's token, rotated by several requests at once: each answers 200, and exactly one of the new
    // tokens works (the one applied last); the first token no longer does.
    for round in 0..5 {
        let answers = rotate_all("/api/v1/docs/rotated/rotate_token", ORG, 3);
        for (s, b) in &answers {
            assert_eq!(*s, 200, "round {round}: {b}");
        }
        let working = answers
            .iter()
            .filter(|(_, b)| works(b["token"].as_str().unwrap_or("")))
            .count();
        assert_eq!(working, 1, "round {round}: {answers:?}");
    }
    assert!(!works(&first_doc_token));

    // The organization's own token, rotated twice at once with the same token: exactly one 200 (its new token
    // works), the other 401 (the token it came with is gone); never 409.
    let mut org = ORG.to_owned();
    for round in 0..5 {
        let answers = rotate_all("/api/v1/org/rotate_token", &org, 2);
        let statuses: Vec<u16> = answers.iter().map(|(s, _)| *s).collect();
        let winners: Vec<&Value> = answers
            .iter()
            .filter(|(s, _)| *s == 200)
            .map(|(_, b)| b)
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {answers:?}");
        assert!(statuses.contains(&401), "round {round}: {statuses:?}");
        for (s, b) in &answers {
            if *s == 401 {
                assert_message(*s, b, "the loser");
            }
        }
        let new = winners[0]["token"].as_str().expect("token").to_owned();
        let (s, _, _) = api.get("/api/v1/hubs", &new);
        assert_eq!(s, 200, "round {round}: the winner's token works");
        let (s, _, _) = api.get("/api/v1/hubs", &org);
        assert_eq!(s, 401, "round {round}: the old token is gone");
        org = new;
    }
}

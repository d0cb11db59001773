//! The subscriptions API over HTTP on `specpress serve`: status codes, shapes, authorization, URL checks,
//! pagination, ping and the delivery log.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use specpress_e2e::{Server, temp_dir};

struct Api {
    http: reqwest::blocking::Client,
    base: String,
    token: String,
}

impl Api {
    fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value, reqwest::header::HeaderMap) {
        let url = format!("{}/api/v1{path}", self.base);
        let mut req = self.http.request(method.parse().expect("method"), url);
        if let Some(t) = token {
            req = req.header("Authorization", format!("Token {t}"));
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        let r = req.send().expect("request");
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let text = r.text().unwrap_or_default();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::Null),
            headers,
        )
    }
}

fn start(env: &[(&str, &str)]) -> (Server, Api, tempfile::TempDir) {
    let dir = temp_dir();
    let server = Server::start(dir.path(), env);
    let token = server.minted_token().expect("token");
    let api = Api {
        http: reqwest::blocking::Client::new(),
        base: server.base_url.clone(),
        token,
    };
    (server, api, dir)
}

#[test]
fn subscriptions_crud_authorization_and_url_checks() {
    let (server, api, _dir) = start(&[]);
    let t = api.token.clone();
    let (s, doc_a, _) = api.call(
        "POST",
        "/docs",
        Some(&t),
        Some(json!({"name": "A", "slug": "doc-a"})),
    );
    assert_eq!(s, 201);
    let (s, _, _) = api.call(
        "POST",
        "/docs",
        Some(&t),
        Some(json!({"name": "B", "slug": "doc-b"})),
    );
    assert_eq!(s, 201);
    let doc_token = doc_a["token"].as_str().expect("doc token").to_owned();

    // URL checks: private, metadata, loopback (not allowed on this server), bad scheme, credentials.
    for url in [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/hook",
        "http://127.0.0.1:9/hook",
        "ftp://example.com/hook",
        "https://user:pass@example.com/hook",
        "not a url",
    ] {
        let (s, body, _) = api.call(
            "POST",
            "/docs/doc-a/webhooks",
            Some(&t),
            Some(json!({"url": url})),
        );
        assert_eq!(s, 422, "{url}: {body}");
        assert!(body["errors"]["url"].is_array(), "{body}");
    }
    let (s, _, _) = api.call(
        "POST",
        "/docs/doc-a/webhooks",
        None,
        Some(json!({"url": "https://93.184.215.14/h"})),
    );
    assert_eq!(s, 401);
    let (s, _, _) = api.call(
        "POST",
        "/docs/doc-a/webhooks",
        Some(&t),
        Some(json!({"url": "https://93.184.215.14/h", "nope": 1})),
    );
    assert_eq!(s, 422, "unknown fields are refused");

    let (s, created, _) = api.call(
        "POST",
        "/docs/doc-a/webhooks",
        Some(&doc_token),
        Some(json!({"url": "https://93.184.215.14/h", "description": "ci", "branches": ["main", "Feature/X"]})),
    );
    assert_eq!(s, 201, "{created}");
    let secret = created["secret"].as_str().expect("secret");
    assert!(secret.starts_with("whsec_") && secret.len() > 40);
    assert_eq!(created["enabled"], true);
    assert_eq!(created["branches"], json!(["main", "feature-x"]));
    let id = created["id"].as_str().expect("id").to_owned();

    let (s, got, _) = api.call(
        "GET",
        &format!("/docs/doc-a/webhooks/{id}"),
        Some(&doc_token),
        None,
    );
    assert_eq!(s, 200);
    assert!(
        got.get("secret").is_none(),
        "the secret is shown only on creation and rotation"
    );
    // A documentation token never reaches another documentation's webhooks.
    let (s, _, _) = api.call("GET", "/docs/doc-b/webhooks", Some(&doc_token), None);
    assert_eq!(s, 404);
    let (s, _, _) = api.call("GET", &format!("/docs/doc-b/webhooks/{id}"), Some(&t), None);
    assert_eq!(
        s, 404,
        "a webhook is only found under its own documentation"
    );

    let (s, rotated, _) = api.call(
        "POST",
        &format!("/docs/doc-a/webhooks/{id}/rotate_secret"),
        Some(&t),
        None,
    );
    assert_eq!(s, 200);
    assert_ne!(rotated["secret"].as_str(), Some(secret));

    let (s, upd, _) = api.call(
        "PATCH",
        &format!("/docs/doc-a/webhooks/{id}"),
        Some(&t),
        Some(json!({"enabled": false, "branches": []})),
    );
    assert_eq!(s, 200);
    assert_eq!(upd["enabled"], false);
    assert_eq!(upd["branches"], json!([]));
    let (s, _, _) = api.call(
        "POST",
        &format!("/docs/doc-a/webhooks/{id}/test"),
        Some(&t),
        None,
    );
    assert_eq!(s, 422, "a disabled webhook cannot be tested");

    // Pagination: 12 webhooks, pages of 5.
    for i in 0..11 {
        let (s, _, _) = api.call(
            "POST",
            "/docs/doc-a/webhooks",
            Some(&t),
            Some(json!({"url": format!("https://93.184.215.14/h{i}")})),
        );
        assert_eq!(s, 201);
    }
    let (s, page, headers) = api.call("GET", "/docs/doc-a/webhooks?limit=5&page=3", Some(&t), None);
    assert_eq!(s, 200);
    assert_eq!(page.as_array().map(Vec::len), Some(2));
    assert_eq!(
        headers.get("x-total-count").and_then(|v| v.to_str().ok()),
        Some("12")
    );
    let (s, _, _) = api.call("GET", "/docs/doc-a/webhooks?limit=0", Some(&t), None);
    assert_eq!(s, 400);

    let (s, _, _) = api.call(
        "DELETE",
        &format!("/docs/doc-a/webhooks/{id}"),
        Some(&t),
        None,
    );
    assert_eq!(s, 204);
    let (s, _, _) = api.call(
        "DELETE",
        &format!("/docs/doc-a/webhooks/{id}"),
        Some(&t),
        None,
    );
    assert_eq!(s, 404);
    let (s, _, _) = api.call("GET", "/docs/doc-a/webhooks/not-a-uuid", Some(&t), None);
    assert_eq!(s, 404);
    server.stop();
}

#[test]
fn ping_is_delivered_and_logged_with_its_attempt() {
    // A tiny local receiver: answers 204 with a body, so the log can show status and response excerpt.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for stream in listener.incoming().flatten().take(5) {
            let mut s = stream;
            let mut buf = [0u8; 65536];
            let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
            let _ = s.read(&mut buf);
            let _ = s.write_all(
                b"HTTP/1.1 202 Accepted\r\nContent-Length: 7\r\nConnection: close\r\n\r\nthanks!",
            );
        }
    });
    let (server, api, _dir) = start(&[("SPECPRESS_ALLOW_LOOPBACK_URLS", "true")]);
    let t = api.token.clone();
    let (s, _, _) = api.call(
        "POST",
        "/docs",
        Some(&t),
        Some(json!({"name": "P", "slug": "pinged"})),
    );
    assert_eq!(s, 201);
    let (s, created, _) = api.call(
        "POST",
        "/docs/pinged/webhooks",
        Some(&t),
        Some(json!({"url": format!("http://127.0.0.1:{port}/hook")})),
    );
    assert_eq!(s, 201, "{created}");
    let id = created["id"].as_str().expect("id").to_owned();
    let (s, ping, _) = api.call(
        "POST",
        &format!("/docs/pinged/webhooks/{id}/test"),
        Some(&t),
        None,
    );
    assert_eq!(s, 202, "{ping}");
    assert_eq!(ping["event"], "ping");
    let until = Instant::now() + Duration::from_secs(20);
    let log = loop {
        let (s, log, _) = api.call(
            "GET",
            &format!("/docs/pinged/webhooks/{id}/deliveries"),
            Some(&t),
            None,
        );
        assert_eq!(s, 200);
        if log[0]["status"] == "delivered" || Instant::now() > until {
            break log;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(log[0]["status"], "delivered", "{log}");
    let attempt = &log[0]["attempts"][0];
    assert_eq!(attempt["status_code"], 202);
    assert_eq!(attempt["response"], "thanks!");
    assert!(attempt["latency_ms"].is_u64());
    let delivery = log[0]["id"].as_str().expect("delivery id");
    let (s, again, _) = api.call(
        "POST",
        &format!("/docs/pinged/webhooks/{id}/deliveries/{delivery}/redeliver"),
        Some(&t),
        None,
    );
    assert_eq!(s, 202, "{again}");
    assert_eq!(
        again["webhook_id"], log[0]["webhook_id"],
        "a redelivery keeps the webhook-id"
    );
    server.stop();
}

/// serde reads a struct from a JSON array too, so `[]` once updated a subscription (its fields are all optional)
/// and answered 200 (schemathesis found it). Every JSON body of the API is an object: anything else is 422 in the
/// documented shape, and malformed JSON stays 400.
#[test]
fn a_body_that_is_not_a_json_object_is_refused_on_every_endpoint_that_reads_json() {
    let (_server, api, _dir) = start(&[]);
    let t = api.token.clone();
    let (s, _, _) = api.call(
        "POST",
        "/docs",
        Some(&t),
        Some(json!({"name": "A", "slug": "doc-a"})),
    );
    assert_eq!(s, 201);
    let (s, _, _) = api.call(
        "POST",
        "/hubs",
        Some(&t),
        Some(json!({"name": "H", "slug": "hub-h"})),
    );
    assert_eq!(s, 201);
    let (s, hook, _) = api.call(
        "POST",
        "/docs/doc-a/webhooks",
        Some(&t),
        Some(json!({"url": "https://93.184.215.14/h"})),
    );
    assert_eq!(s, 201, "{hook}");
    let hook = format!("/docs/doc-a/webhooks/{}", hook["id"].as_str().expect("id"));
    let endpoints = [
        ("POST", "/versions".to_owned()),
        ("POST", "/validations".to_owned()),
        ("POST", "/previews".to_owned()),
        ("POST", "/diffs".to_owned()),
        ("POST", "/docs".to_owned()),
        ("PATCH", "/docs/doc-a".to_owned()),
        ("POST", "/hubs".to_owned()),
        ("PATCH", "/hubs/hub-h".to_owned()),
        ("POST", "/docs/doc-a/branches".to_owned()),
        ("POST", "/docs/doc-a/webhooks".to_owned()),
        ("PATCH", hook.clone()),
        ("PUT", hook.clone()),
    ];
    for (method, path) in &endpoints {
        for body in [
            json!([]),
            json!([{"enabled": false}]),
            json!("x"),
            json!(42),
            Value::Null,
        ] {
            let (s, b, _) = api.call(method, path, Some(&t), Some(body.clone()));
            assert_eq!(s, 422, "{method} {path} with {body}: {b}");
            assert!(
                b["message"].is_string() && b["errors"].is_object(),
                "{method} {path}: {b}"
            );
        }
        let url = format!("{}/api/v1{path}", api.base);
        let r = api
            .http
            .request(method.parse().expect("method"), url)
            .header("Authorization", format!("Token {t}"))
            .header("Content-Type", "application/json")
            .body("[1,")
            .send()
            .expect("request");
        assert_eq!(
            r.status().as_u16(),
            400,
            "{method} {path} with malformed JSON"
        );
    }
    // Nothing was changed by the refused bodies.
    let (s, got, _) = api.call("GET", &hook, Some(&t), None);
    assert_eq!(s, 200);
    assert_eq!(got["enabled"], true, "{got}");
}

/// Issue 38: filters and formats over HTTP: what is stored is answered (patterns normalized), a Slack URL is shown
/// masked in every answer, and bad filters, formats and Slack URLs are 422s naming their field.
#[test]
fn filters_and_formats_are_checked_stored_and_slack_urls_shown_masked() {
    let (_server, api, _dir) = start(&[]);
    let t = api.token.clone();
    let (s, _, _) = api.call(
        "POST",
        "/docs",
        Some(&t),
        Some(json!({"name": "F", "slug": "doc-f"})),
    );
    assert_eq!(s, 201);
    let post = |body: Value| api.call("POST", "/docs/doc-f/webhooks", Some(&t), Some(body));

    for (body, field) in [
        (
            json!({"url": "https://93.184.215.14/h", "filter": {"operations": ["GET /a/**/b"]}}),
            "filter",
        ),
        (
            json!({"url": "https://93.184.215.14/h", "filter": {"operations": ["/pets"]}}),
            "filter",
        ),
        (
            json!({"url": "https://93.184.215.14/h", "filter": {"breaking": true}}),
            "filter",
        ),
        (
            json!({"url": "https://93.184.215.14/h", "filter": {"paths": ["/a/**/b"]}}),
            "filter",
        ),
        (
            json!({"url": "https://93.184.215.14/h", "filter": {"tags": [""]}}),
            "filter",
        ),
        (
            json!({"url": "https://93.184.215.14/h", "format": "email"}),
            "format",
        ),
        (
            json!({"url": "http://93.184.215.14/services/T0/B0/X", "format": "slack"}),
            "url",
        ),
        (
            json!({"url": "http://93.184.215.14/workflows/x", "format": "teams"}),
            "url",
        ),
    ] {
        let (s, answer, _) = post(body.clone());
        assert_eq!(s, 422, "{body}: {answer}");
        assert!(answer["message"].is_string(), "{answer}");
        assert!(answer["errors"][field].is_array(), "{body}: {answer}");
    }

    let (s, created, _) = post(json!({"url": "https://93.184.215.14/h",
        "filter": {"breaking_only": true, "operations": ["get /pets/*"], "tags": ["Pets"]}}));
    assert_eq!(s, 201, "{created}");
    assert_eq!(created["format"], "standard");
    assert_eq!(
        created["filter"],
        json!({"breaking_only": true, "operations": ["GET /pets/*"], "tags": ["Pets"], "paths": []})
    );
    let id = created["id"].as_str().expect("id").to_owned();
    let (s, cleared, _) = api.call(
        "PATCH",
        &format!("/docs/doc-f/webhooks/{id}"),
        Some(&t),
        Some(json!({"filter": {"paths": ["/pets/**"]}})),
    );
    assert_eq!(s, 200);
    assert_eq!(
        cleared["filter"],
        json!({"breaking_only": false, "operations": [], "tags": [], "paths": ["/pets/**"]})
    );

    let secret_url = "https://93.184.215.14/services/T000ABCD/B000EFGH/SECRETPART";
    let (s, slack, _) = post(json!({"url": secret_url, "format": "slack"}));
    assert_eq!(s, 201, "{slack}");
    assert_eq!(slack["format"], "slack");
    assert_eq!(slack["url"], "https://93.184.215.14/services/T000...");
    let slack_id = slack["id"].as_str().expect("id").to_owned();
    let (s, one, _) = api.call(
        "GET",
        &format!("/docs/doc-f/webhooks/{slack_id}"),
        Some(&t),
        None,
    );
    assert_eq!(s, 200);
    let (s, list, _) = api.call("GET", "/docs/doc-f/webhooks", Some(&t), None);
    assert_eq!(s, 200);
    for answer in [&slack, &one, &list] {
        assert!(!answer.to_string().contains("SECRETPART"), "{answer}");
    }
    assert_eq!(one["url"], "https://93.184.215.14/services/T000...");
    // Changing the format needs the URL of the new format.
    let (s, answer, _) = api.call(
        "PATCH",
        &format!("/docs/doc-f/webhooks/{slack_id}"),
        Some(&t),
        Some(json!({"format": "teams"})),
    );
    assert_eq!(s, 422, "{answer}");
    let (s, back, _) = api.call(
        "PATCH",
        &format!("/docs/doc-f/webhooks/{slack_id}"),
        Some(&t),
        Some(json!({"format": "standard", "url": "https://93.184.215.14/plain"})),
    );
    assert_eq!(s, 200, "{back}");
    assert_eq!(back["url"], "https://93.184.215.14/plain");
}

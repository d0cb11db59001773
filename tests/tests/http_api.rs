//! HTTP-level tests of every status code of the deploy family, against the real `specpress serve` binary.

use base64::Engine as _;
use reqwest::blocking::{Client, RequestBuilder};
use serde_json::{Value, json};
use specpress_e2e::{Server, fixtures, temp_dir};

const ORG: &str = "http-tests-organization-token-42";

struct Api {
    server: Server,
    _dir: tempfile::TempDir,
    http: Client,
}

fn petstore() -> String {
    std::fs::read_to_string(fixtures().join("petstore.yaml")).unwrap()
}
fn petstore_v2() -> String {
    std::fs::read_to_string(fixtures().join("petstore-v2.yaml")).unwrap()
}
fn invalid() -> String {
    std::fs::read_to_string(fixtures().join("invalid.yaml")).unwrap()
}

impl Api {
    fn start() -> Api {
        let dir = temp_dir();
        let server = Server::start(dir.path(), &[("SPECPRESS_ORG_TOKEN", ORG)]);
        Api {
            server,
            _dir: dir,
            http: Client::new(),
        }
    }
    fn url(&self, p: &str) -> String {
        format!("{}{}", self.server.base_url, p)
    }
    fn send(rb: RequestBuilder) -> (u16, Value) {
        let r = rb.send().expect("request");
        let s = r.status().as_u16();
        let text = r.text().unwrap_or_default();
        (
            s,
            if text.is_empty() {
                Value::Null
            } else {
                serde_json::from_str(&text).unwrap_or(Value::String(text))
            },
        )
    }
    fn post(&self, p: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        let mut rb = self.http.post(self.url(p)).json(&body);
        if let Some(t) = token {
            rb = rb.header("Authorization", format!("Token {t}"));
        }
        Self::send(rb)
    }
    fn get(&self, p: &str, token: Option<&str>) -> (u16, Value) {
        let mut rb = self.http.get(self.url(p));
        if let Some(t) = token {
            rb = rb.header("Authorization", format!("Token {t}"));
        }
        Self::send(rb)
    }
    fn doc(&self, slug: &str, hub: Option<&str>) -> (String, String) {
        let (s, b) = self.post(
            "/api/v1/docs",
            Some(ORG),
            json!({"name": slug, "slug": slug, "hub": hub}),
        );
        assert_eq!(s, 201, "{b}");
        (
            b["id"].as_str().unwrap().into(),
            b["token"].as_str().unwrap().into(),
        )
    }
    fn hub(&self, slug: &str) -> String {
        let (s, b) = self.post(
            "/api/v1/hubs",
            Some(ORG),
            json!({"name": slug, "slug": slug}),
        );
        assert_eq!(s, 201, "{b}");
        b["token"].as_str().unwrap().into()
    }
    fn deploy(&self, token: &str, body: Value) -> (u16, Value) {
        self.post("/api/v1/versions", Some(token), body)
    }
}

fn assert_message(b: &Value) {
    assert!(
        b["message"].as_str().is_some_and(|m| !m.is_empty()),
        "a JSON {{message}} body: {b}"
    );
}

#[test]
fn ping_answers_pong_and_unknown_routes_are_json_404() {
    let api = Api::start();
    let (s, b) = api.get("/api/v1/ping", None);
    assert_eq!(
        (s, b),
        (
            200,
            json!({"pong": "And that's how ping-pong ball is bumped"})
        )
    );
    let (s, b) = api.get("/api/v1/nope", None);
    assert_eq!(s, 404);
    assert_message(&b);
}

#[test]
fn missing_or_wrong_tokens_are_401_with_a_message() {
    let api = Api::start();
    let body = json!({"documentation": "x", "definition": petstore()});
    let (s, b) = api.post("/api/v1/versions", None, body.clone());
    assert_eq!(s, 401);
    assert_message(&b);
    for bad in [
        "nope",
        "sp_org_0000000000000000000000000000000000000000",
        "an-unknown-but-long-enough-token",
    ] {
        let (s, b) = api.post("/api/v1/versions", Some(bad), body.clone());
        assert_eq!(s, 401, "{bad}");
        assert_message(&b);
    }
    let (s, _) = Api::send(
        api.http
            .get(api.url("/api/v1/docs"))
            .header("Authorization", "Basic %%%"),
    );
    assert_eq!(s, 401);
}

#[test]
fn wrong_tokens_meet_a_429_before_any_lookup_and_a_minted_token_is_never_locked_out() {
    // GIVEN a budget of 3 failed credential checks per client (one regained a minute), the operator's configured
    // organization token (guessable: not in the minted format) and a documentation's minted token
    let dir = temp_dir();
    let server = Server::start(
        dir.path(),
        &[
            ("SPECPRESS_ORG_TOKEN", ORG),
            ("SPECPRESS_AUTH_FAILURE_BURST", "3"),
            ("SPECPRESS_AUTH_FAILURE_RATE_PER_MINUTE", "1"),
        ],
    );
    let api = Api {
        server,
        _dir: dir,
        http: Client::new(),
    };
    let (_, doc_token) = api.doc("pets", None);

    // WHEN a client guesses wrong tokens
    for guess in [
        "guess-0000000000000000001",
        "guess-0000000000000000002",
        "nope",
    ] {
        let (s, b) = api.get("/api/v1/docs", Some(guess));
        assert_eq!(s, 401, "{guess}: {b}");
    }

    // THEN its next guesses, in every form, are refused with 429 and Retry-After, in the API's JSON shape, before
    // they are looked up (a right guess would be answered the same)
    let basic = base64::engine::general_purpose::STANDARD.encode("guess-0000000000000000003:");
    for header in [
        "Token guess-0000000000000000003".to_owned(),
        format!("Basic {basic}"),
        "Basic %%%".to_owned(),
        format!("Token {ORG}"),
    ] {
        let r = api
            .http
            .get(api.url("/api/v1/docs"))
            .header("Authorization", &header)
            .send()
            .expect("answers");
        assert_eq!(r.status().as_u16(), 429, "{header}");
        let retry: u64 = r
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
            .expect("Retry-After in seconds");
        assert!((1..=60).contains(&retry), "{retry}");
        let b: Value = r.json().expect("JSON");
        assert_message(&b);
    }
    // AND a token in the minted format is never refused: a live one works, one that is no live token is told 401
    let (s, b) = api.get("/api/v1/docs/pets", Some(&doc_token));
    assert_eq!(s, 200, "{b}");
    let unknown = specpress_domain::token::mint(specpress_domain::token::TokenKind::Doc).secret;
    let (s, _) = api.get("/api/v1/docs/pets", Some(&unknown));
    assert_eq!(
        s, 401,
        "a well-formed minted token is checked, never refused by the limit"
    );
    // (while a mistyped one, which its checksum already refuses, is a guess like any other)
    let mut typo = doc_token.clone();
    typo.replace_range(10..11, if &doc_token[10..11] == "a" { "b" } else { "a" });
    let (s, _) = api.get("/api/v1/docs/pets", Some(&typo));
    assert_eq!(s, 429);
    // AND requests without a token are not concerned
    let (s, _) = api.get("/api/v1/ping", None);
    assert_eq!(s, 200);
    let (s, _) = api.get("/api/v1/docs", None);
    assert_eq!(s, 401);
}

/// Sends `head` and then `body` on one connection, `pause` apart, and reads the whole answer (the connection is
/// asked to close). An error in writing or reading is returned as text: a reset loses the answer.
fn raw_exchange(
    base_url: &str,
    head: &str,
    body: &[u8],
    pause: std::time::Duration,
) -> Result<String, String> {
    use std::io::{Read, Write};
    let addr = base_url.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    s.write_all(head.as_bytes())
        .map_err(|e| format!("head: {e}"))?;
    std::thread::sleep(pause);
    s.write_all(body).map_err(|e| format!("body: {e}"))?;
    let mut answer = Vec::new();
    s.read_to_end(&mut answer)
        .map_err(|e| format!("read: {e}"))?;
    Ok(String::from_utf8_lossy(&answer).into_owned())
}

#[test]
fn an_answer_given_before_the_body_is_read_still_reaches_a_client_that_is_still_sending() {
    let api = Api::start();
    // A deploy of 5 MB with a wrong token: the 401 is known from the headers alone.
    let big = vec![b'a'; 5 * 1024 * 1024];
    let head = format!(
        "POST /api/v1/versions HTTP/1.1\r\nHost: x\r\nAuthorization: Token nope\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        big.len()
    );
    let answer = raw_exchange(&api.server.base_url, &head, &big, std::time::Duration::ZERO)
        .expect("the client writes its whole body and reads the answer");
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer:.200}");
    assert!(answer.contains("\"message\""), "{answer}");
    // An MCP request to an unknown documentation whose body leaves after its headers: the 404 is decided first.
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let head = format!(
        "POST /doc/no-such-doc/mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let answer = raw_exchange(
        &api.server.base_url,
        &head,
        body,
        std::time::Duration::from_millis(300),
    )
    .expect("the answer survives the body arriving after it was decided");
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer:.200}");
}

#[test]
fn the_token_header_and_all_three_basic_forms_authenticate() {
    let api = Api::start();
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    for header in [
        format!("Token {ORG}"),
        format!("Basic {}", b64(ORG)),
        format!("Basic {}", b64(&format!("{ORG}:"))),
        format!("Basic {}", b64(&format!(":{ORG}"))),
    ] {
        let (s, b) = Api::send(
            api.http
                .get(api.url("/api/v1/docs"))
                .header("Authorization", &header),
        );
        assert_eq!(s, 200, "{header}: {b}");
    }
}

#[test]
fn management_creates_hubs_and_docs_with_shown_once_tokens_and_refuses_other_tokens() {
    let api = Api::start();
    let (s, hub) = api.post("/api/v1/hubs", Some(ORG), json!({"name": "Platform APIs"}));
    assert_eq!(s, 201, "{hub}");
    assert_eq!(hub["slug"], "platform-apis");
    assert!(hub["token"].as_str().unwrap().starts_with("sp_hub_"));
    assert!(hub["id"].as_str().is_some() && hub["name"] == "Platform APIs");
    let (s, d) = api.post(
        "/api/v1/docs",
        Some(ORG),
        json!({"name": "Orders", "hub": "platform-apis"}),
    );
    assert_eq!(s, 201, "{d}");
    assert!(d["token"].as_str().unwrap().starts_with("sp_doc_"));
    assert_eq!(d["slug"], "orders");
    // Duplicate slug: 422 naming the field.
    let (s, b) = api.post("/api/v1/docs", Some(ORG), json!({"name": "Orders"}));
    assert_eq!(s, 422, "{b}");
    assert!(b["errors"]["slug"].is_array());
    // Invalid input: 422.
    let (s, _) = api.post(
        "/api/v1/hubs",
        Some(ORG),
        json!({"name": "x", "slug": "Not A Slug"}),
    );
    assert_eq!(s, 422);
    let (s, _) = api.post("/api/v1/hubs", Some(ORG), json!({}));
    assert_eq!(s, 422);
    // Hub and doc tokens cannot manage.
    for t in [hub["token"].as_str().unwrap(), d["token"].as_str().unwrap()] {
        let (s, b) = api.post("/api/v1/docs", Some(t), json!({"name": "Sneaky"}));
        assert_eq!(s, 403, "{b}");
        assert_eq!(api.get("/api/v1/docs", Some(t)).0, 403);
    }
    let (s, list) = api.get("/api/v1/docs", Some(ORG));
    assert_eq!(s, 200);
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert!(list[0].get("token").is_none(), "listings never show tokens");
}

#[test]
fn a_doc_token_never_reaches_another_doc_and_parents_reach_children() {
    let api = Api::start();
    let hub_a = api.hub("a");
    api.hub("b");
    let (_, tok_a1) = api.doc("a1", Some("a"));
    let (id_a2, _) = api.doc("a2", Some("a"));
    let (id_b1, tok_b1) = api.doc("b1", Some("b"));
    let body = |doc: &str| json!({"documentation": doc, "definition": petstore()});

    // Doc token: its own doc only. Another doc, by slug or id, is indistinguishable from a missing one.
    assert_eq!(api.deploy(&tok_a1, body("a1")).0, 201);
    for other in ["a2", id_a2.as_str(), "b1", id_b1.as_str(), "does-not-exist"] {
        let (s, b) = api.deploy(&tok_a1, body(other));
        assert_eq!(s, 404, "{other}: {b}");
        assert_eq!(b["message"], "Documentation does not exist");
    }
    // A doc token may name its own hub (bump-cli `--hub`), not another one.
    let with_hub =
        |hub: &str| json!({"documentation": "a1", "hub": hub, "definition": petstore_v2()});
    assert_eq!(api.deploy(&tok_a1, with_hub("b")).0, 404);
    assert_eq!(api.deploy(&tok_a1, with_hub("a")).0, 201);
    // Hub token: its docs, not the other hub's.
    assert_eq!(api.deploy(&hub_a, body("a2")).0, 201);
    assert_eq!(api.deploy(&hub_a, body("b1")).0, 404);
    // A version of b1 is invisible to a's tokens.
    let (s, v) = api.deploy(&tok_b1, body("b1"));
    assert_eq!(s, 201);
    let path = format!("/api/v1/versions/{}", v["id"].as_str().unwrap());
    assert_eq!(api.get(&path, Some(&tok_a1)).0, 404);
    assert_eq!(api.get(&path, Some(&hub_a)).0, 404);
    assert_eq!(api.get(&path, Some(&tok_b1)).0, 200);
    assert_eq!(api.get(&path, Some(ORG)).0, 200);
    // Auto-create with a doc token is refused (404), and with a hub token outside its hub too.
    let ac = |doc: &str, hub: &str| json!({"documentation": doc, "hub": hub, "auto_create_documentation": true, "definition": petstore()});
    assert_eq!(api.deploy(&tok_a1, ac("new-one", "a")).0, 404);
    assert_eq!(api.deploy(&hub_a, ac("new-two", "b")).0, 404);
}

#[test]
fn post_versions_covers_201_204_422_404_400_413() {
    let api = Api::start();
    let (doc_id, t) = api.doc("petstore", None);
    let (s, b) = api.deploy(
        &t,
        json!({"documentation": "petstore", "definition": petstore()}),
    );
    assert_eq!(s, 201, "{b}");
    assert_eq!(b["doc_id"], doc_id.as_str());
    assert_eq!(b["doc_name"], "petstore");
    assert!(b["id"].as_str().is_some());
    assert!(
        b["doc_public_url"]
            .as_str()
            .unwrap()
            .starts_with(&api.server.base_url)
    );
    // Unchanged: 204 with no body; also when only formatting changes (JSON instead of YAML).
    let (s, b) = api.deploy(
        &t,
        json!({"documentation": doc_id, "definition": petstore()}),
    );
    assert_eq!((s, b), (204, Value::Null));
    // Invalid document: 422 with located raw_definition messages.
    let (s, b) = api.deploy(
        &t,
        json!({"documentation": "petstore", "definition": invalid()}),
    );
    assert_eq!(s, 422, "{b}");
    assert_eq!(b["message"], "Invalid definition file");
    let msgs = b["errors"]["raw_definition"].as_array().unwrap();
    assert!(
        !msgs.is_empty()
            && msgs
                .iter()
                .all(|m| m.as_str().is_some_and(|m| m.contains("line"))),
        "{b}"
    );
    // Missing definition / documentation: 422 naming the field.
    let (s, b) = api.deploy(&t, json!({"documentation": "petstore"}));
    assert_eq!(s, 422);
    assert!(b["errors"]["definition"].is_array(), "{b}");
    let (s, b) = api.deploy(&t, json!({"definition": petstore()}));
    assert_eq!(s, 422);
    assert!(b["errors"]["documentation"].is_array(), "{b}");
    // Unknown documentation / hub: 404 with a message.
    let (s, b) = api.deploy(
        ORG,
        json!({"documentation": "ghost", "definition": petstore()}),
    );
    assert_eq!(s, 404);
    assert_message(&b);
    let (s, b) = api.deploy(
        ORG,
        json!({"documentation": "petstore", "hub": "ghost-hub", "definition": petstore()}),
    );
    assert_eq!(s, 404);
    assert_eq!(b["message"], "Hub not found");
    // Malformed JSON: 400; wrong shape: 422.
    let (s, b) = Api::send(
        api.http
            .post(api.url("/api/v1/versions"))
            .header("Authorization", format!("Token {t}"))
            .header("Content-Type", "application/json")
            .body("{not json"),
    );
    assert_eq!(s, 400);
    assert_message(&b);
    let (s, _) = api.deploy(&t, json!({"documentation": 42, "definition": petstore()}));
    assert_eq!(s, 422);
}

#[test]
fn temporary_versions_do_not_move_the_head_and_unpublished_is_an_alias() {
    let api = Api::start();
    let (_, t) = api.doc("petstore", None);
    assert_eq!(
        api.deploy(
            &t,
            json!({"documentation": "petstore", "definition": petstore()})
        )
        .0,
        201
    );
    for flag in ["temporary", "unpublished"] {
        let (s, b) = api.deploy(
            &t,
            json!({"documentation": "petstore", "definition": petstore_v2(), flag: true}),
        );
        assert_eq!(s, 201, "{flag}: {b}");
        let (s, v) = api.get(
            &format!("/api/v1/versions/{}", b["id"].as_str().unwrap()),
            Some(&t),
        );
        assert_eq!(s, 200);
        assert_eq!(v["temporary"], true);
    }
    // The head is still v1, so publishing v2 creates a version.
    assert_eq!(
        api.deploy(
            &t,
            json!({"documentation": "petstore", "definition": petstore_v2()})
        )
        .0,
        201
    );
}

#[test]
fn get_version_returns_the_diff_against_the_previous_head() {
    let api = Api::start();
    let (_, t) = api.doc("petstore", None);
    let (_, v1) = api.deploy(
        &t,
        json!({"documentation": "petstore", "definition": petstore()}),
    );
    let v1 = v1["id"].as_str().unwrap().to_owned();
    let (s, first) = api.get(&format!("/api/v1/versions/{v1}"), Some(&t));
    assert_eq!(s, 200, "{first}");
    assert!(
        first.get("diff_summary").is_none(),
        "a first version has no diff: {first}"
    );
    let (_, v2) = api.deploy(
        &t,
        json!({"documentation": "petstore", "definition": petstore_v2(), "unpublished": true}),
    );
    let v2 = v2["id"].as_str().unwrap().to_owned();
    let (s, v) = api.get(&format!("/api/v1/versions/{v2}"), Some(&t));
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["previous_version_id"], v1.as_str());
    assert_eq!(v["diff_breaking"], true, "{v}");
    assert!(
        v["diff_summary"].as_str().unwrap().contains("/pets/{id}"),
        "{v}"
    );
    assert!(v["diff_markdown"].as_str().is_some_and(|m| !m.is_empty()));
    assert!(v["diff_details"].as_array().is_some_and(|d| !d.is_empty()));
    let public = v["diff_public_url"].as_str().unwrap();
    let served = api.http.get(public).send().unwrap();
    assert_eq!(served.status().as_u16(), 200, "diff_public_url resolves");
    let page = served.text().unwrap();
    assert!(
        page.contains("Changes in") && page.contains("/pets/{id}"),
        "{page}"
    );
    // Its `.json` is the diff's details; the version's definition is at `/versions/{v}/source`.
    let details: Value = api
        .http
        .get(format!("{public}.json"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(
        details, v["diff_details"],
        "the details of GET /versions/{{id}}"
    );
    let source = public.replace("/changes/", "/versions/") + "/source";
    assert_eq!(
        api.http.get(source).send().unwrap().text().unwrap(),
        petstore_v2()
    );
    // Explicit previous_version_id.
    let (_, v3) = api.deploy(
        &t,
        json!({"documentation": "petstore", "definition": petstore(), "temporary": true, "previous_version_id": v2}),
    );
    let (_, v) = api.get(
        &format!("/api/v1/versions/{}", v3["id"].as_str().unwrap()),
        Some(&t),
    );
    assert_eq!(v["previous_version_id"], v2.as_str());
    // Unknown and malformed ids: 404.
    assert_eq!(
        api.get(
            "/api/v1/versions/3ef8f52f-9056-4113-840e-2f7183b90e06",
            Some(&t)
        )
        .0,
        404
    );
    assert_eq!(api.get("/api/v1/versions/not-a-uuid", Some(&t)).0, 404);
    assert_eq!(api.get(&format!("/api/v1/versions/{v1}"), None).0, 401);
}

#[test]
fn validations_answer_exactly_200_with_the_specification_or_422() {
    let api = Api::start();
    let (s, b) = api.post(
        "/api/v1/validations",
        None,
        json!({"documentation": "any", "definition": petstore()}),
    );
    assert_eq!((s, b), (200, json!({"specification": "openapi/v3/yaml"})));
    let json_doc = r#"{"openapi":"3.1.0","info":{"title":"J","version":"1"},"paths":{}}"#;
    let (s, b) = api.post(
        "/api/v1/validations",
        Some(ORG),
        json!({"documentation": "any", "definition": json_doc}),
    );
    assert_eq!((s, b), (200, json!({"specification": "openapi/v3/json"})));
    let (s, b) = api.post(
        "/api/v1/validations",
        Some(ORG),
        json!({"documentation": "any", "definition": invalid()}),
    );
    assert_eq!(s, 422);
    assert!(
        b["errors"]["raw_definition"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        "{b}"
    );
    let (s, _) = api.post(
        "/api/v1/validations",
        Some("a-wrong-token-of-enough-length"),
        json!({"definition": petstore()}),
    );
    assert_eq!(s, 401);
}

#[test]
fn previews_are_created_updated_and_served_and_unknown_ones_are_404() {
    let api = Api::start();
    let (s, p) = api.post("/api/v1/previews", None, json!({"definition": petstore()}));
    assert_eq!(s, 201, "{p}");
    let id = p["id"].as_str().unwrap().to_owned();
    assert!(p["expires_at"].as_str().is_some());
    let url = p["public_url"].as_str().unwrap().to_owned();
    assert!(url.ends_with(&format!("/preview/{id}")));
    // The preview is a rendered page; its source is at `.yaml` (as posted).
    let page = api.http.get(&url).send().unwrap();
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(page.text().unwrap().contains("<h1>Petstore</h1>"));
    assert_eq!(
        api.http
            .get(format!("{url}.yaml"))
            .send()
            .unwrap()
            .text()
            .unwrap(),
        petstore()
    );
    let (s, u) = Api::send(
        api.http
            .put(api.url(&format!("/api/v1/previews/{id}")))
            .json(&json!({"definition": petstore_v2()})),
    );
    assert_eq!(s, 200, "{u}");
    assert_eq!(u["id"], id.as_str());
    assert!(u["expires_at"].as_str().unwrap() >= p["expires_at"].as_str().unwrap());
    assert_eq!(
        api.http
            .get(format!("{url}.yaml"))
            .send()
            .unwrap()
            .text()
            .unwrap(),
        petstore_v2()
    );
    let (s, _) = Api::send(
        api.http
            .put(api.url("/api/v1/previews/3ef8f52f-9056-4113-840e-2f7183b90e06"))
            .json(&json!({"definition": petstore()})),
    );
    assert_eq!(s, 404);
    let (s, b) = api.post("/api/v1/previews", None, json!({"definition": invalid()}));
    assert_eq!(s, 422, "{b}");
    assert_eq!(
        api.http
            .get(api.url("/preview/not-an-id"))
            .send()
            .unwrap()
            .status()
            .as_u16(),
        404
    );
}

#[test]
fn token_rotation_revokes_the_old_token_at_once() {
    let api = Api::start();
    let (_, old) = api.doc("rot", None);
    let (s, b) = api.post("/api/v1/docs/rot/rotate_token", Some(ORG), json!({}));
    assert_eq!(s, 200, "{b}");
    let new = b["token"].as_str().unwrap();
    let body = json!({"documentation": "rot", "definition": petstore()});
    assert_eq!(api.deploy(&old, body.clone()).0, 401);
    assert_eq!(api.deploy(new, body).0, 201);
    assert_eq!(
        api.post("/api/v1/docs/ghost/rotate_token", Some(ORG), json!({}))
            .0,
        404
    );
}

#[test]
fn a_failed_auto_create_leaves_no_documentation_behind() {
    let api = Api::start();
    api.hub("h");
    let (s, _) = api.deploy(
        ORG,
        json!({"documentation": "half", "hub": "h", "auto_create_documentation": true, "definition": invalid()}),
    );
    assert_eq!(s, 422);
    let (_, docs) = api.get("/api/v1/docs", Some(ORG));
    assert_eq!(docs, json!([]), "no partial state");
    let (s, b) = api.deploy(
        ORG,
        json!({"documentation": "half", "hub": "h", "auto_create_documentation": true, "documentation_name": "Half", "definition": petstore()}),
    );
    assert_eq!(s, 201, "{b}");
    assert_eq!(b["doc_name"], "Half");
    let served = api
        .http
        .get(format!("{}.yaml", b["doc_public_url"].as_str().unwrap()))
        .send()
        .unwrap();
    assert_eq!(served.text().unwrap(), petstore());
}

#[test]
fn a_deploy_applies_the_same_branch_name_rules_as_branch_creation() {
    let api = Api::start();
    let (_doc_id, t) = api.doc("rules", None);
    for bad in ["latest", "HEAD", "???", &"ab-".repeat(33)] {
        let (s, b) = api.deploy(
            &t,
            json!({"documentation": "rules", "definition": petstore(), "branch_name": bad}),
        );
        assert_eq!(s, 422, "branch {bad:?}: {b}");
        assert!(
            b["errors"]["branch_name"]
                .as_array()
                .is_some_and(|m| !m.is_empty()),
            "branch {bad:?}: {b}"
        );
    }
    let (s, b) = api.deploy(
        &t,
        json!({"documentation": "rules", "definition": petstore(), "branch_name": "Feature/Login v2"}),
    );
    assert_eq!(s, 201, "{b}");
    let (s, b) = api.get("/api/v1/docs/rules/branches", Some(&t));
    assert_eq!(s, 200, "{b}");
    assert!(
        b.as_array()
            .is_some_and(|l| l.iter().any(|br| br["slug"] == "feature-login-v2")),
        "{b}"
    );
}

#[test]
fn public_urls_name_documentations_by_slug_and_redirect_the_id_form() {
    let api = Api::start();
    let (doc_id, t) = api.doc("petstore", None);
    let (s, b) = api.deploy(
        &t,
        json!({"documentation": "petstore", "definition": petstore()}),
    );
    assert_eq!(s, 201, "{b}");
    let public = api.url("/doc/petstore");
    assert_eq!(
        b["doc_public_url"],
        public.as_str(),
        "bump-cli prints this URL"
    );
    let served = api.http.get(&public).send().unwrap();
    assert_eq!(served.status().as_u16(), 200);
    assert!(served.text().unwrap().contains("<h1>Petstore</h1>"));

    // The id form keeps working, by a permanent redirect to the slug form (its suffix kept).
    let no_follow = Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    for (from, to) in [
        (format!("/doc/{doc_id}"), "/doc/petstore".to_owned()),
        (
            format!("/doc/{doc_id}.json"),
            "/doc/petstore.json".to_owned(),
        ),
        (
            format!("/doc/{doc_id}/changes/{}", b["id"].as_str().unwrap()),
            format!("/doc/petstore/changes/{}", b["id"].as_str().unwrap()),
        ),
    ] {
        let r = no_follow.get(api.url(&from)).send().unwrap();
        assert_eq!(r.status().as_u16(), 308, "{from}");
        assert_eq!(r.headers()["location"].to_str().unwrap(), to, "{from}");
    }
    // `.json` gives the definition as JSON, whatever it was written in; `.yaml` as deployed.
    let as_json: Value = api
        .http
        .get(api.url("/doc/petstore.json"))
        .send()
        .unwrap()
        .json()
        .expect("JSON");
    assert_eq!(as_json["info"]["title"], "Petstore", "{as_json}");
    let as_yaml = api.http.get(api.url("/doc/petstore.yaml")).send().unwrap();
    assert!(
        as_yaml.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/yaml")
    );
    assert_eq!(as_yaml.text().unwrap(), petstore());
    // Unknown slugs and ids are 404.
    for p in [
        "/doc/no-such-doc",
        "/doc/3ef8f52f-9056-4113-840e-2f7183b90e06",
        "/doc/NOT%20A%20SLUG",
    ] {
        assert_eq!(api.get(p, None).0, 404, "{p}");
    }
    // The change URL of a version uses the slug too.
    let (_, b2) = api.deploy(
        &t,
        json!({"documentation": "petstore", "definition": petstore_v2()}),
    );
    let (s, v) = api.get(
        &format!("/api/v1/versions/{}", b2["id"].as_str().unwrap()),
        Some(&t),
    );
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        v["diff_public_url"],
        api.url(&format!(
            "/doc/petstore/changes/{}",
            b2["id"].as_str().unwrap()
        ))
        .as_str()
    );
    // The contract's singular `/change/` form redirects to `/changes/`.
    let r = no_follow
        .get(api.url(&format!(
            "/doc/petstore/change/{}",
            b2["id"].as_str().unwrap()
        )))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 308);
}

#[test]
fn auto_created_documentations_are_named_after_the_document_title_and_hubs_list_its_description() {
    let api = Api::start();
    let hub = api.hub("shop");
    // No documentation_name: the document's info.title names it.
    let (s, b) = api.deploy(
        &hub,
        json!({"documentation": "pets-api", "hub": "shop", "auto_create_documentation": true, "definition": petstore()}),
    );
    assert_eq!(s, 201, "{b}");
    assert_eq!(b["doc_name"], "Petstore", "{b}");
    // An explicit name wins.
    let (s, b) = api.deploy(
        &hub,
        json!({"documentation": "named", "hub": "shop", "auto_create_documentation": true,
               "documentation_name": "Named API", "definition": petstore()}),
    );
    assert_eq!(s, 201, "{b}");
    assert_eq!(b["doc_name"], "Named API");
    // The hub lists each API with its name and its document's description (not its title).
    let (s, h) = api.get("/api/v1/hubs/shop", Some(&hub));
    assert_eq!(s, 200, "{h}");
    let pets = h["apis"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["slug"] == "pets-api")
        .expect("listed");
    assert_eq!(pets["name"], "Petstore");
    assert_eq!(pets["description"], "A small pet store.", "{pets}");
    assert_eq!(pets["humanUrl"], api.url("/doc/pets-api").as_str());
    assert_eq!(
        h["url"],
        api.url("/hub/shop").as_str(),
        "the hub's public page"
    );
}

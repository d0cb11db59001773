//! The public site's sign-in, end to end against the real `specpress serve` (issue 27): signing out ends the
//! session on the server (a copied cookie opens nothing any more), failed credential checks are limited per client
//! (429 with `Retry-After`: a page on the site, JSON on the MCP servers and "Try it"; a valid token never slowed),
//! sign-in posts are accepted only from this service's own origin, and every answer of every router carries the
//! security headers.

use reqwest::Method;
use reqwest::blocking::{Client, RequestBuilder};
use serde_json::{Value, json};
use specpress_e2e::site::header;
use specpress_e2e::{Server, fixtures, temp_dir};

const ORG: &str = "sessions-tests-organization-token-42";

/// A server with one private documentation `vault` (and a public `open` one), its own settings in `env`.
struct World {
    server: Server,
    _dir: tempfile::TempDir,
    http: Client,
}

impl World {
    fn start(env: &[(&str, &str)]) -> World {
        let dir = temp_dir();
        let mut env = env.to_vec();
        env.push(("SPECPRESS_ORG_TOKEN", ORG));
        let server = Server::start(dir.path(), &env);
        let http = Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("HTTP client");
        let w = World {
            server,
            _dir: dir,
            http,
        };
        let petstore = std::fs::read_to_string(fixtures().join("petstore.yaml")).expect("fixture");
        for (slug, visibility) in [("vault", "private"), ("open", "public")] {
            let (s, b) = w.api(
                Method::POST,
                "/api/v1/docs",
                Some(json!({"name": slug, "slug": slug, "visibility": visibility})),
            );
            assert_eq!(s, 201, "{b}");
            let (s, b) = w.api(
                Method::POST,
                "/api/v1/versions",
                Some(json!({"documentation": slug, "definition": petstore})),
            );
            assert_eq!(s, 201, "{b}");
        }
        w
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.base_url)
    }

    fn api(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut rb = self
            .http
            .request(method, self.url(path))
            .header("Authorization", format!("Token {ORG}"));
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let r = rb.send().expect("API answers");
        let s = r.status().as_u16();
        (s, r.json().unwrap_or(Value::Null))
    }

    /// A form post from this site's own pages (the `Origin` a browser sends).
    fn post_form(&self, path: &str, body: &str) -> RequestBuilder {
        self.http
            .post(self.url(path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Origin", self.server.base_url.clone())
            .body(body.to_owned())
    }

    /// Signs in with `token`; answers the session cookie (`name=value`).
    fn sign_in(&self, token: &str) -> String {
        let r = self
            .post_form("/sign-in", &format!("token={token}&next=%2Fdoc%2Fvault"))
            .send()
            .expect("sign-in answers");
        assert_eq!(r.status().as_u16(), 303, "a valid token signs in");
        let cookie = header(r.headers(), "set-cookie");
        cookie.split(';').next().expect("name=value").to_owned()
    }

    /// GET `path` with extra headers: status, headers, body.
    fn get(
        &self,
        path: &str,
        headers: &[(&str, &str)],
    ) -> (u16, reqwest::header::HeaderMap, String) {
        let mut rb = self.http.get(self.url(path));
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        let r = rb.send().expect("GET answers");
        let s = r.status().as_u16();
        let h = r.headers().clone();
        (s, h, r.text().unwrap_or_default())
    }
}

#[test]
fn signing_out_ends_the_session_for_every_copy_of_its_cookie() {
    let w = World::start(&[]);
    let cookie = w.sign_in(ORG);
    let copy = cookie.clone();
    let other = w.sign_in(ORG);
    assert_ne!(cookie, other, "each sign-in is a session of its own");
    let (s, _, _) = w.get("/doc/vault", &[("Cookie", cookie.as_str())]);
    assert_eq!(s, 200, "the session shows the private documentation");

    let r = w
        .post_form("/sign-out", "")
        .header("Cookie", cookie.as_str())
        .send()
        .expect("sign-out answers");
    assert_eq!(r.status().as_u16(), 303);
    assert!(header(r.headers(), "set-cookie").contains("Max-Age=0"));

    // The copy an attacker kept is nobody now, and is dropped.
    let (s, h, _) = w.get("/doc/vault", &[("Cookie", copy.as_str())]);
    assert_eq!(s, 404, "a signed-out session opens nothing");
    assert!(header(&h, "set-cookie").contains("Max-Age=0"));
    let (s, _, form) = w.get("/sign-in", &[("Cookie", copy.as_str())]);
    assert_eq!(s, 200);
    assert!(form.contains(r#"name="token""#), "the form again: {form}");
    // Another session of the same token lives on.
    let (s, _, _) = w.get("/doc/vault", &[("Cookie", other.as_str())]);
    assert_eq!(s, 200, "signing out ends that session only");
}

#[test]
fn failed_credential_checks_are_limited_per_client_and_a_valid_token_is_never_slowed() {
    let w = World::start(&[
        ("SPECPRESS_AUTH_FAILURE_BURST", "3"),
        ("SPECPRESS_AUTH_FAILURE_RATE_PER_MINUTE", "1"),
    ]);
    let valid = format!("Token {ORG}");
    // A documentation's token, minted by the service.
    let (s, b) = w.api(Method::POST, "/api/v1/docs/open/rotate_token", None);
    assert_eq!(s, 200, "{b}");
    let minted = b["token"].as_str().expect("a token").to_owned();
    for _ in 0..30 {
        let (s, _, _) = w.get("/doc/vault", &[("Authorization", valid.as_str())]);
        assert_eq!(s, 200, "a valid token spends nothing");
    }
    let cookie = w.sign_in(ORG);
    for _ in 0..10 {
        let (s, _, _) = w.get("/doc/vault", &[("Cookie", cookie.as_str())]);
        assert_eq!(s, 200, "a live session spends nothing");
    }

    // Three failures: a wrong token on a page, a forged cookie, a refused sign-in.
    let (s, _, _) = w.get(
        "/doc/vault",
        &[("Authorization", "Token not-the-organization-token-1")],
    );
    assert_eq!(s, 404, "a wrong token reads as anonymous");
    let forged = format!("{cookie}x");
    let (s, _, _) = w.get("/doc/open", &[("Cookie", forged.as_str())]);
    assert_eq!(s, 200, "a forged cookie reads as anonymous");
    let r = w
        .post_form("/sign-in", "token=not-the-organization-token-2&next=%2F")
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 401);

    // The budget is spent: credentials are no longer checked, even the right ones.
    let (s, h, page) = w.get(
        "/doc/vault",
        &[("Authorization", "Token not-the-organization-token-3")],
    );
    assert_eq!(s, 429, "{page}");
    let retry: u64 = header(&h, "retry-after")
        .parse()
        .expect("Retry-After in seconds");
    assert!((1..=60).contains(&retry), "{retry}");
    assert!(
        header(&h, "content-type").starts_with("text/html"),
        "a page, as the site answers"
    );
    assert!(page.contains("Too many attempts"), "{page}");
    let (s, _, _) = w.get("/doc/vault", &[("Authorization", valid.as_str())]);
    assert_eq!(
        s, 429,
        "a guess that happens to be right is not answered either"
    );
    let r = w
        .post_form("/sign-in", &format!("token={ORG}&next=%2F"))
        .send()
        .expect("answers");
    assert_eq!(
        r.status().as_u16(),
        429,
        "sign-in is refused before the token is checked"
    );
    assert!(!header(r.headers(), "retry-after").is_empty());
    assert!(r.headers().get("set-cookie").is_none());
    let form = r.text().expect("body");
    assert!(
        form.contains(r#"name="token""#),
        "the sign-in form again: {form}"
    );
    // The MCP servers and "Try it" answer the same refusal as JSON (their clients read JSON), never a page.
    let mcp = w
        .http
        .post(w.url("/doc/open/mcp"))
        .header("Authorization", valid.as_str())
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .expect("answers");
    let proxy = w
        .http
        .post(w.url("/doc/open/try"))
        .header("Authorization", valid.as_str())
        .header("Origin", w.server.base_url.as_str())
        .header("Content-Type", "application/json")
        .body(r#"{"method":"GET","url":"https://api.example.com/"}"#)
        .send()
        .expect("answers");
    for (what, r) in [("MCP", mcp), ("Try it", proxy)] {
        assert_eq!(r.status().as_u16(), 429, "{what}");
        assert!(!header(r.headers(), "retry-after").is_empty(), "{what}");
        assert!(
            header(r.headers(), "content-type").starts_with("application/json"),
            "{what}"
        );
        let body: Value = r.json().expect("JSON");
        assert!(body["message"].is_string(), "{what}: {body}");
    }
    // Readers without credentials are not concerned.
    let (s, _, _) = w.get("/doc/open", &[]);
    assert_eq!(s, 200);
    // The pages follow the API's rule: a token the service minted is never slowed (it cannot be guessed).
    let minted_header = format!("Token {minted}");
    let (s, h, _) = w.get("/doc/open", &[("Authorization", minted_header.as_str())]);
    assert_eq!(s, 200, "a minted token reads while the budget is spent");
    assert_eq!(header(&h, "cache-control"), "private, no-store");
    // The API shares the budget: the configured organization token (not in the minted format, so guessable) waits
    // like any guess, a token the service minted goes through.
    let (s, b) = w.api(Method::GET, "/api/v1/docs", None);
    assert_eq!(s, 429, "{b}");
    let r = w
        .http
        .get(w.url("/api/v1/docs/open"))
        .header("Authorization", format!("Token {minted}"))
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 200);
}

#[test]
fn sign_in_posts_are_accepted_only_from_this_service_s_own_origin() {
    let w = World::start(&[]);
    let base = w.server.base_url.clone();
    let https = base.replacen("http://", "https://", 1);
    let form = format!("token={ORG}&next=%2F");
    let post = |headers: &[(&str, &str)]| {
        let mut rb = w
            .http
            .post(w.url("/sign-in"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(form.clone());
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        rb.send().expect("answers")
    };
    for (headers, why) in [
        (vec![], "neither Origin nor Sec-Fetch-Site"),
        (vec![("Origin", "https://evil.example")], "another site"),
        (
            vec![
                ("Origin", "https://evil.example"),
                ("X-Forwarded-Host", "evil.example"),
            ],
            "another site naming itself in X-Forwarded-Host",
        ),
        (
            vec![("Origin", https.as_str())],
            "the same host over another scheme",
        ),
        (vec![("Sec-Fetch-Site", "cross-site")], "a cross-site post"),
        (
            vec![("Sec-Fetch-Site", "same-site")],
            "a sibling site's post",
        ),
    ] {
        let r = post(&headers);
        assert_eq!(r.status().as_u16(), 403, "{why}");
        assert!(r.headers().get("set-cookie").is_none(), "{why}");
    }
    for (headers, why) in [
        (vec![("Origin", base.as_str())], "this service's origin"),
        (
            vec![("Sec-Fetch-Site", "same-origin")],
            "a same-origin post without Origin",
        ),
    ] {
        let r = post(&headers);
        assert_eq!(r.status().as_u16(), 303, "{why}");
    }
    let r = w
        .http
        .post(w.url("/sign-out"))
        .header("Origin", "https://evil.example")
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 403, "sign-out too");
}

/// The Content-Security-Policy of the public pages.
const PAGE_CSP: &str = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' https: data:; \
     font-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
/// The Content-Security-Policy of everything else.
const JSON_CSP: &str = "default-src 'none'; frame-ancestors 'none'";

#[test]
fn every_answer_of_every_router_carries_the_security_headers() {
    let w = World::start(&[]);
    let fixture = |name: &str| std::fs::read_to_string(fixtures().join(name)).expect("fixture");
    let (s, diff) = w.api(
        Method::POST,
        "/api/v1/diffs",
        Some(json!({"previous_definition": fixture("petstore.yaml"), "definition": fixture("petstore-v2.yaml")})),
    );
    assert_eq!(s, 201, "{diff}");
    let diff_id = diff["id"].as_str().expect("diff id");
    let (_, _, home) = w.get("/doc/open", &[]);
    let stylesheet = home
        .split('"')
        .find(|p| p.starts_with("/static/") && p.ends_with(".css"))
        .expect("the page links its stylesheet")
        .to_owned();
    let token = format!("Token {ORG}");
    /// A path, the headers sent, the status expected, and the CSP's first directive.
    type Case<'a> = (String, Vec<(&'a str, &'a str)>, u16, &'a str);
    let cases: Vec<Case<'_>> = vec![
        (
            "/api/v1/docs".into(),
            vec![("Authorization", token.as_str())],
            200,
            JSON_CSP,
        ),
        ("/api/v1/docs".into(), vec![], 401, JSON_CSP),
        (
            "/api/v1/hubs".into(),
            vec![("Authorization", token.as_str())],
            200,
            JSON_CSP,
        ),
        (
            "/api/v1/docs/no-such-doc".into(),
            vec![("Authorization", token.as_str())],
            404,
            JSON_CSP,
        ),
        (format!("/api/v1/diffs/{diff_id}"), vec![], 200, JSON_CSP),
        ("/api/v1/no-such-route".into(), vec![], 404, JSON_CSP),
        ("/no/such/path".into(), vec![], 404, JSON_CSP),
        (
            format!("/diff/{diff_id}/previous.json"),
            vec![],
            200,
            JSON_CSP,
        ),
        (
            format!("/diff/{diff_id}/current.json"),
            vec![],
            200,
            JSON_CSP,
        ),
        (format!("/diff/{diff_id}"), vec![], 200, PAGE_CSP),
        ("/doc/open".into(), vec![], 200, PAGE_CSP),
        ("/doc/open.json".into(), vec![], 200, PAGE_CSP),
        ("/doc/vault".into(), vec![], 404, PAGE_CSP),
        ("/sign-in".into(), vec![], 200, PAGE_CSP),
        (stylesheet, vec![], 200, PAGE_CSP),
    ];
    for (path, headers, status, csp) in cases {
        let (s, h, body) = w.get(&path, &headers);
        assert_eq!(s, status, "{path}: {body:.200}");
        assert_eq!(header(&h, "content-security-policy"), csp, "{path}");
        assert_eq!(header(&h, "x-content-type-options"), "nosniff", "{path}");
        assert_eq!(
            header(&h, "referrer-policy"),
            "strict-origin-when-cross-origin",
            "{path}"
        );
        assert_eq!(header(&h, "x-frame-options"), "DENY", "{path}");
        assert_eq!(
            header(&h, "cross-origin-opener-policy"),
            "same-origin",
            "{path}"
        );
    }
    // An answer made outside any handler (a method the route does not have) carries them too.
    let r = w
        .http
        .delete(w.url("/api/v1/docs"))
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 405);
    assert_eq!(header(r.headers(), "content-security-policy"), JSON_CSP);
    assert_eq!(header(r.headers(), "x-frame-options"), "DENY");
}

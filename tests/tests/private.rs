//! Private documentation, end to end against the real `specpress serve`: every public URL of a private
//! documentation answers an anonymous reader exactly as an unknown slug does (404, same page), answers a reader
//! with a token that reaches it (in `Authorization`, or through a sign-in session) with the page, marked
//! `private, no-store` and `noindex`, and stops doing so the moment that token is rotated. Hub listings, feeds,
//! search, sitemaps and `llms.txt` leave private documentation out for anonymous readers; a private hub hides itself
//! and every documentation in it.

use reqwest::Method;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use specpress_e2e::fixtures;
use specpress_e2e::site::{Site, header};

const ORG: &str = "private-tests-organization-token-42";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(name)).expect("fixture")
}

/// What a reader presents.
#[derive(Clone, Copy)]
enum As<'a> {
    Anonymous,
    Token(&'a str),
    Cookie(&'a str),
}

fn get(site: &Site, who: As<'_>, path: &str) -> (u16, HeaderMap, String) {
    let mut rb = site.http.get(site.url(path));
    match who {
        As::Anonymous => {}
        As::Token(t) => rb = rb.header("Authorization", format!("Token {t}")),
        As::Cookie(c) => rb = rb.header("Cookie", c),
    }
    let r = rb.send().expect("GET answers");
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    (status, headers, r.text().unwrap_or_default())
}

/// An API call with a given token.
fn api_as(
    site: &Site,
    token: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut rb = site
        .http
        .request(method, site.url(path))
        .header("Authorization", format!("Token {token}"));
    if let Some(b) = body {
        rb = rb.json(&b);
    }
    let r = rb.send().expect("API answers");
    let s = r.status().as_u16();
    (s, r.json().unwrap_or(Value::Null))
}

fn create(site: &Site, path: &str, body: Value) -> Value {
    let (s, b) = site.api(Method::POST, path, Some(body));
    assert_eq!(s, 201, "{b}");
    b
}

/// Every public URL of the documentation `slug` (which holds `v1`, `v2` on main and one version on `next`), found
/// by walking it as a reader who may see it: its pages as its `llms.txt` lists them, their Markdown variants, and
/// the portal's URLs.
fn urls_of(site: &Site, who: As<'_>, slug: &str, doc_id: &str, v1: &str, v2: &str) -> Vec<String> {
    let (s, _, llms) = get(site, who, &format!("/doc/{slug}/llms.txt"));
    assert_eq!(s, 200, "llms.txt with access");
    let base = &site.server.base_url;
    let mut urls: Vec<String> = llms
        .split(['(', ')', ' ', '\n'])
        .filter_map(|w| w.strip_prefix(base.as_str()))
        .filter(|p| p.starts_with(&format!("/doc/{slug}")))
        // The MCP server llms.txt names is an endpoint for MCP clients, not a page.
        .filter(|p| !p.ends_with("/mcp"))
        .map(str::to_owned)
        .collect();
    urls.sort();
    urls.dedup();
    assert!(
        urls.iter().any(|u| u.contains("/operation/")),
        "llms.txt lists operation pages: {urls:?}"
    );
    for u in [
        format!("/doc/{slug}"),
        format!("/doc/{slug}.json"),
        format!("/doc/{slug}.yaml"),
        format!("/doc/{slug}.md"),
        format!("/doc/{doc_id}"),
        format!("/doc/{slug}/schemas"),
        format!("/doc/{slug}/changes"),
        format!("/doc/{slug}/changes.atom"),
        format!("/doc/{slug}/changes.rss"),
        format!("/doc/{slug}/changes/{v2}"),
        format!("/doc/{slug}/changes/{v2}.json"),
        format!("/doc/{slug}/change/{v2}"),
        format!("/doc/{slug}/compare?from={v1}&to={v2}"),
        format!("/doc/{slug}/compare"),
        format!("/doc/{slug}/search?q=pets"),
        format!("/doc/{slug}/search.json?q=pets"),
        format!("/doc/{slug}/llms.txt"),
        format!("/doc/{slug}/sitemap.xml"),
        format!("/doc/{slug}/versions/{v1}/source"),
        format!("/doc/{slug}/branches/next"),
        format!("/doc/{slug}/branches/next/changes"),
        format!("/doc/{slug}/branches/next/changes.atom"),
        format!("/doc/{slug}/branches/next/search?q=pets"),
        format!("/doc/{slug}/branches/next/search.json?q=pets"),
        format!("/doc/{slug}/branches/next.md"),
        format!("/doc/{slug}/v/{v1}"),
        format!("/doc/{slug}/v/{v1}.md"),
        format!("/doc/{slug}/v/{v1}.json"),
        format!("/doc/{slug}/v/{v1}/search?q=pets"),
        format!("/doc/{slug}/compare.json?from={v1}&to={v2}"),
    ] {
        if !urls.contains(&u) {
            urls.push(u);
        }
    }
    urls
}

/// The same URL with an unknown documentation in place of `slug` (and of its id).
fn unknown(url: &str, slug: &str, doc_id: &str) -> String {
    url.replace(doc_id, "00000000-0000-4000-8000-000000000000")
        .replacen(&format!("/doc/{slug}"), "/doc/no-such-doc-here", 1)
}

/// Asserts that an anonymous reader gets exactly what the unknown documentation's URL gives.
fn assert_hidden(site: &Site, who: As<'_>, urls: &[String], slug: &str, doc_id: &str) {
    for u in urls {
        let (s, h, body) = get(site, who, u);
        let twin = unknown(u, slug, doc_id);
        let (ts, th, tbody) = get(site, who, &twin);
        assert_eq!(s, 404, "{u} is hidden");
        assert_eq!(ts, 404, "{twin} is unknown");
        assert_eq!(
            header(&h, "content-type"),
            header(&th, "content-type"),
            "{u}: same kind of answer as an unknown documentation"
        );
        assert_eq!(
            body.replace(slug, "no-such-doc-here")
                .replace(doc_id, "00000000-0000-4000-8000-000000000000"),
            tbody,
            "{u}: the same page as an unknown documentation"
        );
        assert!(
            !body.contains("Petstore") && !body.contains("List pets"),
            "{u}: nothing of the document shows"
        );
    }
}

/// Asserts that a reader who may see the documentation gets every URL, privately.
fn assert_shown(site: &Site, who: As<'_>, urls: &[String]) {
    for u in urls {
        let (s, h, body) = get(site, who, u);
        assert!(
            s == 200 || s == 308 || s == 307,
            "{u} is shown to a reader with access: {s} {body:.300}"
        );
        assert_eq!(header(&h, "cache-control"), "private, no-store", "{u}");
        assert_eq!(header(&h, "x-robots-tag"), "noindex", "{u}");
        if s == 200 && header(&h, "content-type").starts_with("text/html") {
            assert!(
                body.contains(r#"<meta name="robots" content="noindex"#),
                "{u}: the page itself says noindex"
            );
            assert!(
                body.contains("You are signed in") && body.contains(r#"href="/sign-in""#),
                "{u}: the footer names the session"
            );
        }
    }
}

struct World {
    site: Site,
    doc_id: String,
    doc_token: String,
    hub_token: String,
    v1: String,
    v2: String,
}

fn world() -> World {
    let site = Site::start(ORG);
    let hub = create(
        &site,
        "/api/v1/hubs",
        json!({"name": "Internal", "slug": "internal"}),
    );
    let doc = create(
        &site,
        "/api/v1/docs",
        json!({"name": "Vault", "slug": "vault", "hub": "internal"}),
    );
    create(
        &site,
        "/api/v1/docs",
        json!({"name": "Open", "slug": "open", "hub": "internal"}),
    );
    let v1 = site.deploy("vault", None, fixture("petstore.yaml"))["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let v2 = site.deploy("vault", None, fixture("petstore-v2.yaml"))["id"]
        .as_str()
        .expect("id")
        .to_owned();
    site.deploy("vault", Some("next"), fixture("petstore.yaml"));
    site.deploy(
        "open",
        None,
        fixture("petstore.yaml").replace("Petstore", "Open store"),
    );
    World {
        doc_id: doc["id"].as_str().expect("id").to_owned(),
        doc_token: doc["token"].as_str().expect("token").to_owned(),
        hub_token: hub["token"].as_str().expect("token").to_owned(),
        v1,
        v2,
        site,
    }
}

#[test]
fn every_public_url_of_a_private_documentation_is_a_404_to_anonymous_readers_and_a_page_to_token_holders_until_rotation()
 {
    let w = world();
    let site = &w.site;
    let urls = urls_of(site, As::Anonymous, "vault", &w.doc_id, &w.v1, &w.v2);
    assert!(urls.len() >= 25, "{} URLs walked", urls.len());
    // Public: every URL answers anyone.
    for u in &urls {
        let (s, _, _) = get(site, As::Anonymous, u);
        assert!(s == 200 || s == 307 || s == 308, "{u} public: {s}");
    }

    let (s, b) = site.api(
        Method::PATCH,
        "/api/v1/docs/vault",
        Some(json!({"visibility": "private"})),
    );
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["visibility"], "private");
    let (s, b) = site.api(Method::GET, "/api/v1/docs/vault", None);
    assert_eq!((s, b["visibility"].as_str()), (200, Some("private")));

    assert_hidden(site, As::Anonymous, &urls, "vault", &w.doc_id);
    // A token that does not reach it is no better than none.
    let other = create(
        site,
        "/api/v1/docs",
        json!({"name": "Other", "slug": "other"}),
    );
    let other_token = other["token"].as_str().expect("token");
    assert_hidden(site, As::Token(other_token), &urls[..6], "vault", &w.doc_id);
    // Tokens that reach it: its own, its hub's, the organization's.
    assert_shown(site, As::Token(&w.doc_token), &urls);
    assert_shown(site, As::Token(&w.hub_token), &urls[..6]);
    assert_shown(site, As::Token(ORG), &urls[..6]);

    // The hub's pages list it to token holders only.
    for hub_url in [
        "/hub/internal",
        "/hub/internal/changes.atom",
        "/hub/internal/changes.rss",
        "/hub/internal/llms.txt",
        "/hub/internal/sitemap.xml",
        "/hub/internal/search?q=pets",
        "/hub/internal/search.json?q=pets",
    ] {
        let (s, _, body) = get(site, As::Anonymous, hub_url);
        assert_eq!(s, 200, "{hub_url}");
        assert!(
            !body.contains("/doc/vault"),
            "{hub_url} leaves the private documentation out"
        );
        assert!(
            !body.contains("Vault"),
            "{hub_url} leaves the private documentation out"
        );
        assert!(
            body.contains("/doc/open"),
            "{hub_url} still lists the public one"
        );
        let (s, h, body) = get(site, As::Token(&w.hub_token), hub_url);
        assert_eq!(s, 200, "{hub_url}");
        assert!(
            body.contains("/doc/vault"),
            "{hub_url} lists it to a hub token holder"
        );
        assert_eq!(header(&h, "cache-control"), "private, no-store");
    }

    // Rotation: the old token reaches nothing any more.
    let (s, b) = site.api(Method::POST, "/api/v1/docs/vault/rotate_token", None);
    assert_eq!(s, 200, "{b}");
    let rotated = b["token"].as_str().expect("new token").to_owned();
    // A sample of the URLs (a dead minted token spends none of the client's budget: docs/auth.md).
    assert_hidden(
        site,
        As::Token(&w.doc_token),
        &urls[..4],
        "vault",
        &w.doc_id,
    );
    assert_shown(site, As::Token(&rotated), &urls[..6]);

    // Public again: anyone reads it.
    let (s, b) = site.api(
        Method::PATCH,
        "/api/v1/docs/vault",
        Some(json!({"visibility": "public"})),
    );
    assert_eq!((s, b["visibility"].as_str()), (200, Some("public")));
    let (s, h, body) = get(site, As::Anonymous, "/doc/vault");
    assert_eq!(s, 200);
    assert_eq!(header(&h, "cache-control"), "public, no-cache");
    assert!(!body.contains("You are signed in"));
    // A validator kept from an anonymous visit is no 304 for a signed-in reader: their page differs.
    let etag = header(&h, "etag").to_owned();
    let r = site
        .http
        .get(site.url("/doc/vault"))
        .header("If-None-Match", &etag)
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 304, "anonymous revalidation");
    let r = site
        .http
        .get(site.url("/doc/vault"))
        .header("If-None-Match", &etag)
        .header("Authorization", format!("Token {ORG}"))
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 200, "a signed-in reader gets the page");
}

/// Signs in through the form; answers the session cookie (`name=value`).
fn sign_in(site: &Site, token: &str, next: &str) -> String {
    let r = site
        .http
        .post(site.url("/sign-in"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Origin", site.server.base_url.clone())
        .body(format!(
            "token={}&next={}",
            token,
            next.replace('/', "%2F")
                .replace('?', "%3F")
                .replace('&', "%26")
                .replace('=', "%3D")
        ))
        .send()
        .expect("sign-in answers");
    assert_eq!(r.status().as_u16(), 303, "a valid token signs in");
    assert_eq!(
        header(r.headers(), "location"),
        next,
        "back where the reader was going"
    );
    let cookie = header(r.headers(), "set-cookie").to_owned();
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Lax"), "{cookie}");
    assert!(
        !cookie.contains("Secure"),
        "served over plain HTTP here: {cookie}"
    );
    assert!(
        !cookie.contains(token),
        "the cookie never carries the token"
    );
    cookie.split(';').next().expect("name=value").to_owned()
}

#[test]
fn a_sign_in_session_shows_a_private_documentation_until_its_token_is_rotated() {
    let w = world();
    let site = &w.site;
    let (s, _) = site.api(
        Method::PATCH,
        "/api/v1/docs/vault",
        Some(json!({"visibility": "private"})),
    );
    assert_eq!(s, 200);
    let urls = urls_of(
        site,
        As::Token(&w.doc_token),
        "vault",
        &w.doc_id,
        &w.v1,
        &w.v2,
    );

    // The 404 page offers to sign in and come back.
    let (s, _, page) = get(site, As::Anonymous, "/doc/vault/changes");
    assert_eq!(s, 404);
    assert!(
        page.contains(r#"href="/sign-in?next=%2Fdoc%2Fvault%2Fchanges""#),
        "{page}"
    );
    let (s, h, form) = get(
        site,
        As::Anonymous,
        "/sign-in?next=%2Fdoc%2Fvault%2Fchanges",
    );
    assert_eq!(s, 200);
    assert_eq!(header(&h, "cache-control"), "no-store");
    assert!(form.contains(r#"name="token" type="password""#), "{form}");
    assert!(form.contains(r#"value="/doc/vault/changes""#), "{form}");

    // A wrong token: 401 and the form again, no cookie.
    let r = site
        .http
        .post(site.url("/sign-in"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Origin", site.server.base_url.clone())
        .body("token=sp_doc_not-a-real-token-at-all-000000&next=%2Fdoc%2Fvault")
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 401);
    assert!(r.headers().get("set-cookie").is_none());
    // A post from another site is refused.
    let r = site
        .http
        .post(site.url("/sign-in"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Origin", "https://evil.example")
        .body(format!("token={}&next=%2F", w.doc_token))
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 403);
    assert!(r.headers().get("set-cookie").is_none());
    // An outside return path is not followed.
    let r = site
        .http
        .post(site.url("/sign-in"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Origin", site.server.base_url.clone())
        .body(format!(
            "token={}&next=https%3A%2F%2Fevil.example%2F",
            w.doc_token
        ))
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(header(r.headers(), "location"), "/sign-in");

    let cookie = sign_in(site, &w.doc_token, "/doc/vault/changes");
    assert_shown(site, As::Cookie(&cookie), &urls);
    let (s, _, signed) = get(site, As::Cookie(&cookie), "/sign-in");
    assert_eq!(s, 200);
    assert!(signed.contains("a documentation token"), "{signed}");

    // A forged or edited cookie is nobody, and is dropped.
    let forged = format!("{cookie}x");
    let (s, h, _) = get(site, As::Cookie(&forged), "/doc/vault");
    assert_eq!(s, 404);
    assert!(header(&h, "set-cookie").contains("Max-Age=0"));

    // Rotating the token ends the session at once.
    let (s, _) = site.api(Method::POST, "/api/v1/docs/vault/rotate_token", None);
    assert_eq!(s, 200);
    assert_hidden(site, As::Cookie(&cookie), &urls, "vault", &w.doc_id);
    let (_, h, _) = get(site, As::Cookie(&cookie), "/doc/vault");
    assert!(
        header(&h, "set-cookie").contains("Max-Age=0"),
        "the dead session's cookie is dropped"
    );

    // Signing out ends a session too.
    let cookie = sign_in(site, ORG, "/doc/vault");
    let (s, _, _) = get(site, As::Cookie(&cookie), "/doc/vault");
    assert_eq!(s, 200);
    let r = site
        .http
        .post(site.url("/sign-out"))
        .header("Cookie", &cookie)
        .header("Origin", site.server.base_url.clone())
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 303);
    assert!(header(r.headers(), "set-cookie").contains("Max-Age=0"));
}

#[test]
fn a_private_hub_hides_itself_and_every_documentation_in_it() {
    let w = world();
    let site = &w.site;
    let (s, b) = api_as(
        site,
        &w.hub_token,
        Method::PATCH,
        "/api/v1/hubs/internal",
        Some(json!({"visibility": "private"})),
    );
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["visibility"], "private");
    for u in [
        "/hub/internal",
        "/hub/internal/changes.atom",
        "/hub/internal/llms.txt",
        "/hub/internal/sitemap.xml",
        "/hub/internal/search?q=pets",
        "/hub/internal/search.json?q=pets",
    ] {
        let (s, _, body) = get(site, As::Anonymous, u);
        let twin = u.replace("internal", "no-such-hub");
        let (ts, _, tbody) = get(site, As::Anonymous, &twin);
        assert_eq!((s, ts), (404, 404), "{u}");
        assert_eq!(body.replace("internal", "no-such-hub"), tbody, "{u}");
        let (s, _, _) = get(site, As::Token(&w.hub_token), u);
        assert_eq!(s, 200, "{u} with the hub's token");
    }
    // Its documentations are private too, although their own setting is public.
    for d in ["open", "vault"] {
        let (s, _, _) = get(site, As::Anonymous, &format!("/doc/{d}"));
        assert_eq!(s, 404, "/doc/{d}");
        let (s, h, _) = get(site, As::Token(&w.hub_token), &format!("/doc/{d}"));
        assert_eq!(s, 200, "/doc/{d}");
        assert_eq!(header(&h, "x-robots-tag"), "noindex");
    }
    let (s, b) = site.api(Method::GET, "/api/v1/docs/open", None);
    assert_eq!((s, b["visibility"].as_str()), (200, Some("public")));
    // The API is unchanged: the hub reads, deploys go on.
    let (s, b) = api_as(
        site,
        &w.hub_token,
        Method::GET,
        "/api/v1/hubs/internal",
        None,
    );
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["apis"].as_array().map(Vec::len), Some(2));
    site.deploy("open", None, fixture("petstore-v2.yaml"));
}

#[test]
fn changing_visibility_takes_the_organization_or_hub_token_and_a_well_formed_body() {
    let w = world();
    let site = &w.site;
    let patch =
        |token: &str, path: &str, body: Value| api_as(site, token, Method::PATCH, path, Some(body));
    // A documentation token may not change its own documentation's visibility.
    let (s, b) = patch(
        &w.doc_token,
        "/api/v1/docs/vault",
        json!({"visibility": "private"}),
    );
    assert_eq!(s, 403, "{b}");
    assert!(
        b["message"]
            .as_str()
            .is_some_and(|m| m.contains("organization token")),
        "{b}"
    );
    // The hub's token may, for a documentation of its hub.
    let (s, b) = patch(
        &w.hub_token,
        "/api/v1/docs/vault",
        json!({"visibility": "private"}),
    );
    assert_eq!((s, b["visibility"].as_str()), (200, Some("private")), "{b}");
    // Another hub's token does not even see it.
    let other = create(
        site,
        "/api/v1/hubs",
        json!({"name": "Other", "slug": "other-hub"}),
    );
    let other_token = other["token"].as_str().expect("token");
    let (s, _) = patch(
        other_token,
        "/api/v1/docs/vault",
        json!({"visibility": "public"}),
    );
    assert_eq!(s, 404);
    let (s, _) = patch(
        other_token,
        "/api/v1/hubs/internal",
        json!({"visibility": "public"}),
    );
    assert_eq!(s, 404);
    let (s, _) = patch(
        &w.doc_token,
        "/api/v1/hubs/internal",
        json!({"visibility": "public"}),
    );
    assert_eq!(s, 404, "a documentation token does not reach the hub");
    // Bad bodies: 422 {message, errors}, nothing changed.
    for body in [
        json!({"visibility": "secret"}),
        json!({"visibility": "PRIVATE"}),
        json!({"visiblity": "public"}),
        json!({}),
        json!({"visibility": null}),
        json!({"visibility": 1}),
    ] {
        let (s, b) = patch(ORG, "/api/v1/docs/vault", body.clone());
        assert_eq!(s, 422, "{body} -> {b}");
        assert!(b["errors"].is_object(), "{b}");
        let (s, b) = patch(ORG, "/api/v1/hubs/internal", body.clone());
        assert_eq!(s, 422, "{body} -> {b}");
    }
    let (s, b) = site.api(Method::GET, "/api/v1/docs/vault", None);
    assert_eq!(
        (s, b["visibility"].as_str()),
        (200, Some("private")),
        "unchanged"
    );
    let (s, _) = patch(
        ORG,
        "/api/v1/docs/no-such-doc",
        json!({"visibility": "public"}),
    );
    assert_eq!(s, 404);
    let (s, _) = api_as(
        site,
        "sp_org_not-a-token-at-all-0000000000",
        Method::PATCH,
        "/api/v1/docs/vault",
        Some(json!({"visibility": "public"})),
    );
    assert_eq!(s, 401);
    // Created private from the start: never public for a moment.
    let made = create(
        site,
        "/api/v1/docs",
        json!({"name": "Born private", "slug": "born-private", "visibility": "private"}),
    );
    assert_eq!(made["visibility"], "private");
    site.deploy("born-private", None, fixture("petstore.yaml"));
    let (s, _, _) = get(site, As::Anonymous, "/doc/born-private");
    assert_eq!(s, 404);
    let (s, b) = site.api(
        Method::POST,
        "/api/v1/docs",
        Some(json!({"name": "Bad", "visibility": "hidden"})),
    );
    assert_eq!(s, 422, "{b}");
}

/// Creates a reader token with the organization token; answers the 201 body.
fn reader_token(site: &Site, path: &str, body: Value) -> Value {
    let (s, b) = site.api(Method::POST, path, Some(body));
    assert_eq!(s, 201, "{path}: {b}");
    b
}

/// A request with or without a token: status and body.
fn call(
    site: &Site,
    token: Option<&str>,
    method: &Method,
    path: &str,
    body: &Value,
) -> (u16, String) {
    let mut rb = site.http.request(method.clone(), site.url(path));
    if let Some(t) = token {
        rb = rb.header("Authorization", format!("Token {t}"));
    }
    if !body.is_null() {
        rb = rb.json(body);
    }
    let r = rb.send().expect("answers");
    (r.status().as_u16(), r.text().unwrap_or_default())
}

/// Every write and management read of `/api/v1`, as a reader token might try them on the world's objects.
fn api_calls(w: &World) -> Vec<(Method, String, Value)> {
    let definition = fixture("petstore.yaml");
    vec![
        (
            Method::POST,
            "/api/v1/versions".into(),
            json!({"documentation": "vault", "definition": definition}),
        ),
        (
            Method::POST,
            "/api/v1/previews".into(),
            json!({"definition": definition}),
        ),
        (
            Method::POST,
            "/api/v1/validations".into(),
            json!({"documentation": "vault", "definition": definition}),
        ),
        (Method::POST, "/api/v1/hubs".into(), json!({"name": "Mine"})),
        (Method::POST, "/api/v1/docs".into(), json!({"name": "Mine"})),
        (Method::GET, "/api/v1/docs".into(), Value::Null),
        (Method::GET, "/api/v1/docs/vault".into(), Value::Null),
        (
            Method::PATCH,
            "/api/v1/docs/vault".into(),
            json!({"visibility": "public"}),
        ),
        (
            Method::PATCH,
            "/api/v1/docs/vault".into(),
            json!({"sso_readers": true}),
        ),
        (
            Method::POST,
            "/api/v1/docs/vault/rotate_token".into(),
            Value::Null,
        ),
        (
            Method::POST,
            "/api/v1/hubs/internal/rotate_token".into(),
            Value::Null,
        ),
        (Method::POST, "/api/v1/org/rotate_token".into(), Value::Null),
        (Method::GET, "/api/v1/hubs".into(), Value::Null),
        (Method::GET, "/api/v1/hubs/internal".into(), Value::Null),
        (
            Method::GET,
            "/api/v1/hubs/internal/apis".into(),
            Value::Null,
        ),
        (
            Method::PATCH,
            "/api/v1/hubs/internal".into(),
            json!({"visibility": "public"}),
        ),
        (
            Method::GET,
            "/api/v1/docs/vault/reader_tokens".into(),
            Value::Null,
        ),
        (
            Method::POST,
            "/api/v1/docs/vault/reader_tokens".into(),
            json!({"name": "mine"}),
        ),
        (
            Method::GET,
            "/api/v1/hubs/internal/reader_tokens".into(),
            Value::Null,
        ),
        (
            Method::POST,
            "/api/v1/hubs/internal/reader_tokens".into(),
            json!({"name": "mine"}),
        ),
        (
            Method::GET,
            "/api/v1/docs/vault/branches".into(),
            Value::Null,
        ),
        (
            Method::DELETE,
            "/api/v1/docs/vault/branches/next".into(),
            Value::Null,
        ),
        (
            Method::GET,
            "/api/v1/docs/vault/versions".into(),
            Value::Null,
        ),
        (
            Method::GET,
            format!("/api/v1/versions/{}", w.v1),
            Value::Null,
        ),
        (Method::GET, "/api/v1/webhooks".into(), Value::Null),
        (
            Method::POST,
            "/api/v1/webhooks".into(),
            json!({"url": "https://hooks.example.com/x", "events": ["version.created"]}),
        ),
        (Method::GET, "/api/v1/mcp-servers".into(), Value::Null),
        (
            Method::POST,
            "/api/v1/diffs".into(),
            json!({"definition": definition}),
        ),
    ]
}

#[test]
fn a_reader_token_opens_what_it_names_on_every_reader_surface_cannot_write_and_dies_when_revoked_or_expired()
 {
    let w = world();
    let site = &w.site;
    let urls = urls_of(site, As::Anonymous, "vault", &w.doc_id, &w.v1, &w.v2);
    for d in ["vault", "open"] {
        let (s, b) = site.api(
            Method::PATCH,
            &format!("/api/v1/docs/{d}"),
            Some(json!({"visibility": "private"})),
        );
        assert_eq!(s, 200, "{b}");
    }

    // Created by the documentation's own token; the secret is in this answer only.
    let (s, created) = api_as(
        site,
        &w.doc_token,
        Method::POST,
        "/api/v1/docs/vault/reader_tokens",
        Some(json!({"name": "Partner X"})),
    );
    assert_eq!(s, 201, "{created}");
    let token = created["token"].as_str().expect("token").to_owned();
    assert!(token.starts_with("sp_read_"), "{token}");
    assert_eq!(created["name"], "Partner X");
    assert!(created["expires_at"].is_null(), "{created}");
    assert!(created["created_at"].is_string(), "{created}");
    let id = created["id"].as_str().expect("id").to_owned();

    // Every reader surface of what it names, privately; a sibling in the same hub stays hidden.
    assert_shown(site, As::Token(&token), &urls);
    let (s, _, _) = get(site, As::Token(&token), "/doc/open");
    assert_eq!(s, 404, "never a sibling");
    let (s, _, body) = get(site, As::Token(&token), "/hub/internal");
    assert_eq!(s, 200);
    assert!(
        body.contains("/doc/vault") && !body.contains("/doc/open"),
        "the hub lists what the token opens only"
    );

    // Every write and management read answers exactly as with no token at all.
    for (method, path, body) in api_calls(&w) {
        let with = call(site, Some(&token), &method, &path, &body);
        let without = call(site, None, &method, &path, &body);
        if with.0 < 300 {
            // What anyone may do without a token (a preview, a diff) is done again: new ids, the same status.
            assert_eq!(with.0, without.0, "{method} {path}");
            assert!(
                !path.contains("vault") && !path.contains("internal"),
                "{method} {path}: {with:?}"
            );
        } else {
            assert_eq!(with, without, "{method} {path}");
        }
    }
    let (s, d) = site.api(Method::GET, "/api/v1/docs/vault", None);
    assert_eq!(
        (s, d["visibility"].as_str()),
        (200, Some("private")),
        "nothing changed"
    );
    let (s, _, _) = get(site, As::Token(&w.doc_token), "/doc/vault");
    assert_eq!(s, 200, "the documentation token was not rotated");

    // Listed without its secret, with its last use.
    let (s, list) = site.api(Method::GET, "/api/v1/docs/vault/reader_tokens", None);
    assert_eq!(s, 200, "{list}");
    let entries = list.as_array().expect("a list");
    assert_eq!(entries.len(), 1, "{list}");
    assert_eq!(entries[0]["id"], id.as_str());
    assert_eq!(entries[0]["name"], "Partner X");
    assert!(
        entries[0].get("token").is_none(),
        "never the secret: {list}"
    );
    assert!(!list.to_string().contains(&token), "never the secret");
    assert!(entries[0]["last_used_at"].is_string(), "used: {list}");

    // A session started with it; revoking ends the token and the session at once.
    let cookie = sign_in(site, &token, "/doc/vault");
    let (s, _, _) = get(site, As::Cookie(&cookie), "/doc/vault");
    assert_eq!(s, 200, "the session opens it");
    let (s, _, _) = get(site, As::Cookie(&cookie), "/doc/open");
    assert_eq!(s, 404, "the session opens what the token names only");
    let (s, _) = site.api(
        Method::DELETE,
        &format!("/api/v1/docs/vault/reader_tokens/{id}"),
        None,
    );
    assert_eq!(s, 204);
    let (s, _) = site.api(
        Method::DELETE,
        &format!("/api/v1/docs/vault/reader_tokens/{id}"),
        None,
    );
    assert_eq!(s, 404, "already revoked");
    assert_hidden(site, As::Token(&token), &urls[..6], "vault", &w.doc_id);
    let (s, h, _) = get(site, As::Cookie(&cookie), "/doc/vault");
    assert_eq!(s, 404, "the session ended with its token");
    assert!(
        header(&h, "set-cookie").contains("Max-Age=0"),
        "the cookie is dropped"
    );
    let (_, list) = site.api(Method::GET, "/api/v1/docs/vault/reader_tokens", None);
    assert_eq!(list, json!([]));

    // An expiry: live until then, dead from then on (its sessions too).
    let soon = time::OffsetDateTime::now_utc() + time::Duration::seconds(3);
    let soon = soon
        .format(&time::format_description::well_known::Rfc3339)
        .expect("formatted");
    let expiring = reader_token(
        site,
        "/api/v1/docs/vault/reader_tokens",
        json!({"name": "Short", "expires_at": soon}),
    );
    assert!(expiring["expires_at"].is_string(), "{expiring}");
    let short = expiring["token"].as_str().expect("token").to_owned();
    let (s, _, _) = get(site, As::Token(&short), "/doc/vault");
    assert_eq!(s, 200);
    let cookie = sign_in(site, &short, "/doc/vault");
    std::thread::sleep(std::time::Duration::from_secs(4));
    let (s, _, _) = get(site, As::Token(&short), "/doc/vault");
    assert_eq!(s, 404, "expired");
    let (s, _, _) = get(site, As::Cookie(&cookie), "/doc/vault");
    assert_eq!(s, 404, "its session expired with it");

    // A hub's reader token opens the hub and every documentation in it, and nothing outside.
    let (s, b) = site.api(
        Method::PATCH,
        "/api/v1/hubs/internal",
        Some(json!({"visibility": "private"})),
    );
    assert_eq!(s, 200, "{b}");
    let outside = create(
        site,
        "/api/v1/docs",
        json!({"name": "Outside", "slug": "outside", "visibility": "private"}),
    );
    site.deploy("outside", None, fixture("petstore.yaml"));
    assert_eq!(outside["visibility"], "private");
    let (s, hub_reader) = api_as(
        site,
        &w.hub_token,
        Method::POST,
        "/api/v1/hubs/internal/reader_tokens",
        Some(json!({"name": "Hub partner"})),
    );
    assert_eq!(s, 201, "{hub_reader}");
    let hub_reader = hub_reader["token"].as_str().expect("token").to_owned();
    for u in [
        "/hub/internal",
        "/hub/internal/llms.txt",
        "/doc/vault",
        "/doc/open",
        "/doc/open.md",
    ] {
        let (s, h, _) = get(site, As::Token(&hub_reader), u);
        assert_eq!(s, 200, "{u}");
        assert_eq!(header(&h, "cache-control"), "private, no-store", "{u}");
    }
    let (s, _, _) = get(site, As::Token(&hub_reader), "/doc/outside");
    assert_eq!(s, 404, "nothing outside its hub");
    let (s, _, _) = get(site, As::Token(ORG), "/doc/outside");
    assert_eq!(s, 200);
}

#[test]
fn reader_tokens_take_a_name_a_future_expiry_and_a_token_that_reaches_what_they_name() {
    let w = world();
    let site = &w.site;
    let past = "2001-01-01T00:00:00Z";
    for (body, field, words) in [
        (json!({}), "name", "name is required"),
        (json!({"name": ""}), "name", "name must be 1 to"),
        (json!({"name": 7}), "name", "name must be a string"),
        (
            json!({"name": "x", "expires_at": "tomorrow"}),
            "expires_at",
            "RFC 3339",
        ),
        (
            json!({"name": "x", "expires_at": past}),
            "expires_at",
            "in the future",
        ),
        (
            json!({"name": "x", "scope": "all"}),
            "body",
            "unknown field",
        ),
    ] {
        let (s, b) = site.api(
            Method::POST,
            "/api/v1/docs/vault/reader_tokens",
            Some(body.clone()),
        );
        assert_eq!(s, 422, "{body}: {b}");
        assert!(b["errors"][field].is_array(), "{body}: {b}");
        assert!(b.to_string().contains(words), "{body}: {b}");
    }
    // A documentation token reaches its own documentation only; a hub token its hub and its documentations.
    let other = create(
        site,
        "/api/v1/docs",
        json!({"name": "Other", "slug": "other"}),
    );
    let other_token = other["token"].as_str().expect("token");
    let (s, _) = api_as(
        site,
        other_token,
        Method::POST,
        "/api/v1/docs/vault/reader_tokens",
        Some(json!({"name": "x"})),
    );
    assert_eq!(s, 404);
    let (s, _) = api_as(
        site,
        other_token,
        Method::GET,
        "/api/v1/docs/vault/reader_tokens",
        None,
    );
    assert_eq!(s, 404);
    let (s, _) = api_as(
        site,
        &w.doc_token,
        Method::POST,
        "/api/v1/hubs/internal/reader_tokens",
        Some(json!({"name": "x"})),
    );
    assert_eq!(s, 404);
    let (s, b) = api_as(
        site,
        &w.hub_token,
        Method::POST,
        "/api/v1/docs/vault/reader_tokens",
        Some(json!({"name": "x"})),
    );
    assert_eq!(s, 201, "{b}");
    // A token of another documentation cannot revoke it, nor can an unknown id be revoked.
    let id = b["id"].as_str().expect("id");
    let (s, _) = api_as(
        site,
        other_token,
        Method::DELETE,
        &format!("/api/v1/docs/vault/reader_tokens/{id}"),
        None,
    );
    assert_eq!(s, 404);
    let (s, _) = site.api(
        Method::DELETE,
        &format!("/api/v1/docs/open/reader_tokens/{id}"),
        None,
    );
    assert_eq!(s, 404, "not a token of that documentation");
    let (s, _) = site.api(
        Method::DELETE,
        "/api/v1/docs/vault/reader_tokens/not-an-id",
        None,
    );
    assert_eq!(s, 404);
    let (_, list) = site.api(Method::GET, "/api/v1/docs/vault/reader_tokens", None);
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
}

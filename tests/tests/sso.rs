//! Sign-in with the organization's OpenID provider (issue 40), end to end: the real `specpress serve`, a real OpenID
//! provider run locally (npm `oidc-provider`, tests/oidc/provider.mjs), and the whole login driven in headless
//! Chromium (tests/browser/sso.js): the sign-in page offers the provider, the provider's login and consent pages
//! are filled, and the reader comes back signed in to the private documentation that admits provider readers.
//!
//! Also from outside: `PUT`/`GET`/`DELETE /api/v1/sso` (organization token only, the client secret never answered,
//! clear 422s), `allowed_domains` refusing a reader of another domain as a stranger, a forged callback refused,
//! a documentation not admitting provider readers staying closed, and removing the provider ending its sessions.

use reqwest::Method;
use serde_json::{Value, json};
use specpress_e2e::site::Site;
use specpress_e2e::{fixtures, temp_dir};
use specpress_testkit::oidc::OidcProvider;

const ORG: &str = "sso-tests-organization-token-42";
const CLIENT_ID: &str = "specpress-docs";
const CLIENT_SECRET: &str = "a-client-secret-long-enough-for-hs256";

fn provider_for(site: &Site) -> OidcProvider {
    let redirect = site.url("/sign-in/oidc/callback");
    OidcProvider::start(
        &json!({
            "clients": [{"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "redirect_uris": [redirect]}],
            "accounts": {"ann@example.com": {"groups": ["staff"]}},
        })
        .to_string(),
    )
}

fn private_doc(site: &Site, slug: &str, sso_readers: bool) {
    site.create_doc(slug, slug, None);
    let definition = std::fs::read_to_string(fixtures().join("petstore.yaml")).expect("fixture");
    site.deploy(slug, None, definition);
    let (s, b) = site.api(
        Method::PATCH,
        &format!("/api/v1/docs/{slug}"),
        Some(json!({"visibility": "private", "sso_readers": sso_readers})),
    );
    assert_eq!(s, 200, "{b}");
}

/// The browser's sign-in through the provider as `login`, returning to `next`: the script's JSON result.
fn browser_sign_in(
    site: &Site,
    login: &str,
    next: &str,
    name: &str,
    out: &std::path::Path,
) -> Value {
    let (chromium, modules) = specpress_e2e::browser::tools();
    let url = site.url(&format!("/sign-in?next={next}"));
    let run = std::process::Command::new("node")
        .arg(specpress_e2e::repo_root().join("tests/browser/sso.js"))
        .args(["--out"])
        .arg(out)
        .args(["--login", login, "--name", name, &url])
        .env("SPECPRESS_CHROMIUM", &chromium)
        .env("SPECPRESS_NODE_MODULES", &modules)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    if let Some(keep) = std::env::var_os("SPECPRESS_SCREENSHOTS").map(std::path::PathBuf::from) {
        let _ = std::fs::create_dir_all(&keep);
        for shot in ["sign-in", "after"] {
            let file = format!("sso-{name}--{shot}.png");
            let _ = std::fs::copy(out.join(format!("{name}--{shot}.png")), keep.join(file));
        }
    }
    assert!(
        run.status.success(),
        "the browser sign-in failed: {stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(out.join(format!("{name}--sign-in.png")).exists());
    serde_json::from_str(stdout.trim()).expect("one JSON line")
}

/// A page fetched with a session cookie: its status.
fn status_with_session(site: &Site, path: &str, session: &str) -> u16 {
    site.http
        .get(site.url(path))
        .header("Cookie", format!("specpress_session={session}"))
        .send()
        .expect("answers")
        .status()
        .as_u16()
}

#[test]
#[cfg_attr(
    any(missing_chromium, missing_node_modules),
    ignore = "needs Chromium, and node with playwright-core, axe-core and oidc-provider (scripts/install-tools.sh)"
)]
fn a_reader_signs_in_through_the_organization_s_provider_in_a_browser_and_only_what_admits_them_opens()
 {
    let site = Site::start_with(ORG, &[("SPECPRESS_ALLOW_LOOPBACK_URLS", "true")]);
    let provider = provider_for(&site);
    private_doc(&site, "vault", true);
    private_doc(&site, "closed", false);

    // GIVEN the organization's provider, set with the organization token, only example.com readers admitted
    let put = json!({
        "issuer": provider.issuer,
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "allowed_domains": ["example.com"],
    });
    let (s, b) = site.api(Method::PUT, "/api/v1/sso", Some(put));
    assert_eq!(s, 200, "{b}");
    // THEN the answer shows what to register at the provider, never the secret
    assert_eq!(b["redirect_uri"], json!(site.url("/sign-in/oidc/callback")));
    assert_eq!(b["client_secret_set"], json!(true));
    assert_eq!(b["allowed_domains"], json!(["example.com"]));
    assert!(!b.to_string().contains(CLIENT_SECRET), "{b}");
    let (s, shown) = site.api(Method::GET, "/api/v1/sso", None);
    assert_eq!(s, 200);
    assert_eq!(shown["issuer"], json!(provider.issuer));
    assert!(!shown.to_string().contains(CLIENT_SECRET));

    // AND an anonymous reader gets the private documentation as an unknown one
    assert_eq!(site.get("/doc/vault").0, 404);
    // AND the sign-in page offers the provider only for a page that admits its readers
    let (_, _, page) = site.get("/sign-in?next=/doc/vault");
    assert!(page.contains("Sign in with 127.0.0.1"), "{page}");
    for other in ["/doc/closed", "/doc/no-such-doc", "/"] {
        let (_, _, page) = site.get(&format!("/sign-in?next={other}"));
        assert!(!page.contains("Sign in with"), "offered for {other}");
    }

    // WHEN a reader of example.com signs in through the provider in a browser
    let out = temp_dir();
    let ann = browser_sign_in(
        &site,
        "ann@example.com",
        "/doc/vault",
        "admitted",
        out.path(),
    );
    // THEN they come back to the documentation, signed in
    assert_eq!(ann["offered"], json!(true), "{ann}");
    assert_eq!(ann["url"], json!(site.url("/doc/vault")), "{ann}");
    assert_eq!(ann["status"], json!(200), "{ann}");
    let session = ann["session"]
        .as_str()
        .expect("a session cookie")
        .to_owned();
    assert_eq!(status_with_session(&site, "/doc/vault", &session), 200);
    assert_eq!(status_with_session(&site, "/doc/vault.md", &session), 200);
    // AND a private documentation that does not admit provider readers stays closed to them
    assert_eq!(status_with_session(&site, "/doc/closed", &session), 404);
    // AND the session opens nothing of the API
    let r = site
        .http
        .get(site.url("/api/v1/docs/vault"))
        .header("Cookie", format!("specpress_session={session}"))
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 401);

    // WHEN a reader of another domain signs in at the same provider
    let eve = browser_sign_in(
        &site,
        "eve@elsewhere.test",
        "/doc/vault",
        "refused",
        out.path(),
    );
    // THEN they get the refusal a stranger gets, and no session
    assert_eq!(eve["status"], json!(401), "{eve}");
    assert_eq!(eve["session"], Value::Null, "{eve}");
    assert!(
        eve["url"]
            .as_str()
            .unwrap_or_default()
            .contains("/sign-in/oidc/callback")
    );

    // AND a callback that no sign-in of this browser started is refused
    let (s, _, _) = site.get("/sign-in/oidc/callback?code=forged&state=forged");
    assert_eq!(s, 401);

    // WHEN the organization removes its provider
    let (s, _) = site.api(Method::DELETE, "/api/v1/sso", None);
    assert_eq!(s, 204);
    // THEN the sessions it started open nothing any more, and the page no longer offers it
    assert_eq!(status_with_session(&site, "/doc/vault", &session), 404);
    let (_, _, page) = site.get("/sign-in?next=/doc/vault");
    assert!(!page.contains("Sign in with"));
    let (s, _) = site.api(Method::GET, "/api/v1/sso", None);
    assert_eq!(s, 404);
}

#[test]
fn the_provider_settings_take_the_organization_token_only_and_answer_clear_422s() {
    let site = Site::start_with(ORG, &[("SPECPRESS_ALLOW_LOOPBACK_URLS", "true")]);
    let (s, doc) = site.api(
        Method::POST,
        "/api/v1/docs",
        Some(json!({"name": "Orders", "slug": "orders"})),
    );
    assert_eq!(s, 201, "{doc}");
    let doc_token = doc["token"]
        .as_str()
        .expect("the documentation's token")
        .to_owned();
    let valid =
        json!({"issuer": "https://login.example.com", "client_id": "c", "client_secret": "s3cret"});

    // Without a token, and with a documentation's token: no provider can be set or read.
    let r = site
        .http
        .put(site.url("/api/v1/sso"))
        .json(&valid)
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 401);
    let r = site
        .http
        .put(site.url("/api/v1/sso"))
        .header("Authorization", format!("Token {doc_token}"))
        .json(&valid)
        .send()
        .expect("answers");
    assert_eq!(
        r.status().as_u16(),
        403,
        "a documentation token sets no provider"
    );
    let (s, _) = site.api(Method::GET, "/api/v1/sso", None);
    assert_eq!(s, 404, "none set yet");

    // Clear 422s naming the member at fault.
    for (body, field) in [
        (
            json!({"issuer": "http://login.example.com", "client_id": "c", "client_secret": "s"}),
            "issuer",
        ),
        (
            json!({"issuer": "https://login.example.com", "client_id": "", "client_secret": "s"}),
            "client_id",
        ),
        (
            json!({"issuer": "https://login.example.com", "client_id": "c"}),
            "client_secret",
        ),
        (
            json!({"issuer": "https://login.example.com", "client_id": "c", "client_secret": "s", "allowed_groups": ["a"]}),
            "groups_claim",
        ),
        (
            json!({"issuer": "https://login.example.com", "client_id": "c", "client_secret": "s", "allowed_domains": ["not a domain"]}),
            "allowed_domains",
        ),
    ] {
        let (s, b) = site.api(Method::PUT, "/api/v1/sso", Some(body.clone()));
        assert_eq!(s, 422, "{body} -> {b}");
        assert!(b.to_string().contains(field), "{body} -> {b}");
    }

    // Set, then changed without the secret while the issuer and client stay: the stored secret is kept.
    let (s, b) = site.api(Method::PUT, "/api/v1/sso", Some(valid));
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["provider"], json!("login.example.com"));
    let (s, b) = site.api(
        Method::PUT,
        "/api/v1/sso",
        Some(json!({"issuer": "https://login.example.com", "client_id": "c", "groups_claim": "groups", "allowed_groups": ["staff"]})),
    );
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["allowed_groups"], json!(["staff"]));
    assert!(!b.to_string().contains("s3cret"));
}

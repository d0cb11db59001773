//! Readers without deploy rights (issue 40), end to end against the real `specpress serve`: the reader settings of
//! a documentation and a hub (`PATCH` with `sso_readers` and `embed_origins`, shown by `GET`), and reader tokens
//! (`sp_read_...`) over every reader surface and every write.

use reqwest::Method;
use serde_json::{Value, json};
use specpress_e2e::site::Site;

const ORG: &str = "reader-access-organization-token-42";

/// An API call with a given token (`None`: no `Authorization`).
fn api_as(
    site: &Site,
    token: Option<&str>,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut rb = site.http.request(method, site.url(path));
    if let Some(t) = token {
        rb = rb.header("Authorization", format!("Token {t}"));
    }
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

fn message(b: &Value) -> String {
    b["message"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn patch_sets_sso_readers_and_embed_origins_of_a_documentation_and_a_hub_with_clear_422s() {
    let site = Site::start(ORG);
    let hub = create(
        &site,
        "/api/v1/hubs",
        json!({"name": "Partners", "slug": "partners"}),
    );
    let hub_token = hub["token"].as_str().unwrap().to_owned();
    let doc = create(
        &site,
        "/api/v1/docs",
        json!({"name": "Orders", "slug": "orders", "hub": "partners"}),
    );
    let doc_token = doc["token"].as_str().unwrap().to_owned();

    // Defaults, shown by GET of one documentation and one hub.
    let (s, d) = site.api(Method::GET, "/api/v1/docs/orders", None);
    assert_eq!(s, 200, "{d}");
    assert_eq!(d["sso_readers"], json!(false));
    assert_eq!(d["embed_origins"], json!([]));
    let (s, h) = site.api(Method::GET, "/api/v1/hubs/partners", None);
    assert_eq!(s, 200, "{h}");
    assert_eq!(h["sso_readers"], json!(false));
    assert_eq!(h["embed_origins"], json!([]));

    // Set on the documentation (normalized origins, repeats dropped); the answer and GET show them, and the other
    // settings stay.
    let (s, d) = site.api(
        Method::PATCH,
        "/api/v1/docs/orders",
        Some(json!({"sso_readers": true, "embed_origins": ["https://WWW.Example.com:443/", "https://www.example.com", "https://partner.example.org:8443"]})),
    );
    assert_eq!(s, 200, "{d}");
    assert_eq!(d["sso_readers"], json!(true));
    assert_eq!(
        d["embed_origins"],
        json!([
            "https://www.example.com",
            "https://partner.example.org:8443"
        ])
    );
    assert_eq!(d["visibility"], "public");
    let (_, again) = site.api(Method::GET, "/api/v1/docs/orders", None);
    assert_eq!(again["sso_readers"], json!(true));
    assert_eq!(again["embed_origins"], d["embed_origins"]);
    // One member at a time leaves the other as it is.
    let (s, d) = site.api(
        Method::PATCH,
        "/api/v1/docs/orders",
        Some(json!({"visibility": "private"})),
    );
    assert_eq!(s, 200, "{d}");
    assert_eq!(d["visibility"], "private");
    assert_eq!(d["sso_readers"], json!(true));
    assert_eq!(d["embed_origins"].as_array().map(Vec::len), Some(2));
    let (s, d) = site.api(
        Method::PATCH,
        "/api/v1/docs/orders",
        Some(json!({"embed_origins": []})),
    );
    assert_eq!(s, 200, "{d}");
    assert_eq!(d["embed_origins"], json!([]));
    assert_eq!(d["sso_readers"], json!(true));

    // The hub, with its own token.
    let (s, h) = api_as(
        &site,
        Some(&hub_token),
        Method::PATCH,
        "/api/v1/hubs/partners",
        Some(json!({"sso_readers": true, "embed_origins": ["https://portal.example.com"]})),
    );
    assert_eq!(s, 200, "{h}");
    assert_eq!(h["sso_readers"], json!(true));
    assert_eq!(h["embed_origins"], json!(["https://portal.example.com"]));
    assert_eq!(h["visibility"], "public", "visibility untouched");
    let (_, h) = site.api(Method::GET, "/api/v1/hubs/partners", None);
    assert_eq!(h["embed_origins"], json!(["https://portal.example.com"]));

    // Clear 422s naming the member; nothing is changed by a refused body, not even its valid members.
    let cases = [
        (
            json!({"sso_readers": "yes"}),
            "sso_readers must be true or false",
        ),
        (
            json!({"sso_readers": null}),
            "sso_readers must be true or false",
        ),
        (
            json!({"embed_origins": "https://a.example"}),
            "embed_origins must be a list",
        ),
        (
            json!({"embed_origins": [7]}),
            "embed_origins[0] must be a string",
        ),
        (
            json!({"embed_origins": ["http://a.example"]}),
            "only https origins",
        ),
        (
            json!({"embed_origins": ["https://*.example.com"]}),
            "embed_origins[0]",
        ),
        (
            json!({"embed_origins": ["https://a.example/path"]}),
            "no path",
        ),
        (
            json!({"embed_origins": (0..21).map(|i| format!("https://a{i}.example")).collect::<Vec<_>>()}),
            "at most 20",
        ),
        (
            json!({"visibility": "private", "embed_origins": ["ftp://a.example"]}),
            "only https origins",
        ),
        (json!({}), "is required"),
        (json!({"sso_reader": true}), "unknown field"),
    ];
    for (body, expected) in &cases {
        for path in ["/api/v1/docs/orders", "/api/v1/hubs/partners"] {
            let (s, b) = site.api(Method::PATCH, path, Some(body.clone()));
            assert_eq!(s, 422, "{path} {body}: {b}");
            assert!(message(&b).contains(expected), "{path} {body}: {b}");
        }
    }
    let (_, h) = site.api(Method::GET, "/api/v1/hubs/partners", None);
    assert_eq!(
        h["visibility"], "public",
        "the refused body changed nothing"
    );
    let (_, d) = site.api(Method::GET, "/api/v1/docs/orders", None);
    assert_eq!(d["sso_readers"], json!(true));
    assert_eq!(d["embed_origins"], json!([]));

    // Who readers are is the owner's: a documentation token gets 403 and changes nothing; no token gets 401.
    let (s, b) = api_as(
        &site,
        Some(&doc_token),
        Method::PATCH,
        "/api/v1/docs/orders",
        Some(json!({"sso_readers": false})),
    );
    assert_eq!(s, 403, "{b}");
    let (s, _) = api_as(
        &site,
        None,
        Method::PATCH,
        "/api/v1/docs/orders",
        Some(json!({"sso_readers": false})),
    );
    assert_eq!(s, 401);
    let (_, d) = site.api(Method::GET, "/api/v1/docs/orders", None);
    assert_eq!(d["sso_readers"], json!(true));
    // Lists stay as they were (no per-entry settings).
    let (s, list) = site.api(Method::GET, "/api/v1/docs", None);
    assert_eq!(s, 200, "{list}");
}

//! Specpress's own API, described by an OpenAPI 3.1 document.
//!
//! The document is written by hand in `shared/openapi/specpress-api.yaml` and included in the binary. What keeps
//! it true:
//! - `functions/specpress/tests/own_api.rs` enumerates the routes of the app `specpress serve` runs (every
//!   function's router, merged) and fails when a route under `/api/v1` has no operation here, or an operation has
//!   no route, method for method;
//! - the tests of this crate validate it with Specpress's own validator (the spec engine) and `scripts/test.sh`
//!   with `openapi-spec-validator`;
//! - `scripts/schemathesis.sh` runs schemathesis against a live `specpress serve` with it (every check).
//!
//! It is served at `GET /api/v1/openapi.json` and `/api/v1/openapi.yaml` (the deploy function) with `servers` set
//! to the serving server's own base, and `specpress serve` publishes it as the documentation [`SLUG`].

use std::sync::OnceLock;

use serde_json::Value;

/// The document as written in the repository.
pub const SOURCE: &str = include_str!("../specpress-api.yaml");

/// Slug of the documentation `specpress serve` publishes the document as.
pub const SLUG: &str = "specpress-api";

/// Name of that documentation.
pub const NAME: &str = "Specpress API";

/// Where the API lives under a server's public base.
pub const API_PREFIX: &str = "/api/v1";

/// The `servers` section as written in [`SOURCE`]; [`yaml`] and [`json`] replace its URL.
const SERVERS_IN_SOURCE: &str =
    "\nservers:\n  - url: http://127.0.0.1:3000/api/v1\n    description: This Specpress server\n";

/// The base URL of the API of a server whose public base is `public_base` (`http://host:port`, no trailing slash).
pub fn api_base(public_base: &str) -> String {
    format!("{}{API_PREFIX}", public_base.trim_end_matches('/'))
}

/// The document as YAML, with `servers` naming `api_base` (see [`api_base`]).
pub fn yaml(api_base: &str) -> String {
    // A JSON string is a YAML double-quoted scalar: any URL text is carried over exactly.
    let quoted = Value::String(api_base.to_owned()).to_string();
    SOURCE.replacen(
        SERVERS_IN_SOURCE,
        &format!("\nservers:\n  - url: {quoted}\n    description: This Specpress server\n"),
        1,
    )
}

fn parsed() -> &'static Result<Value, String> {
    static DOC: OnceLock<Result<Value, String>> = OnceLock::new();
    DOC.get_or_init(|| {
        let doc = specpress_apispec::parse(SOURCE, &[], &specpress_apispec::Limits::default())
            .map_err(|e| format!("the OpenAPI document does not parse: {e:?}"))?;
        serde_json::from_str(&doc.to_json())
            .map_err(|e| format!("the OpenAPI document is not JSON: {e}"))
    })
}

/// The document as a JSON value, with `servers` naming `api_base`. `Err` only if the included document does not
/// parse, which the tests of this crate rule out.
pub fn json(api_base: &str) -> Result<Value, String> {
    let mut doc = parsed().clone()?;
    if let Some(root) = doc.as_object_mut() {
        root.insert(
            "servers".to_owned(),
            serde_json::json!([{"url": api_base, "description": "This Specpress server"}]),
        );
    }
    Ok(doc)
}

/// HTTP methods an OpenAPI path item can hold operations under.
pub const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Every operation of the document as (upper-case method, full path under the server root, e.g.
/// `/api/v1/docs/{doc}/branches`), sorted.
pub fn operations() -> Result<Vec<(String, String)>, String> {
    let doc = parsed().as_ref().map_err(Clone::clone)?;
    let paths = doc
        .get("paths")
        .and_then(Value::as_object)
        .ok_or("the document has no paths")?;
    let mut out = Vec::new();
    for (path, item) in paths {
        let Some(item) = item.as_object() else {
            continue;
        };
        for method in METHODS {
            if item.contains_key(method) {
                out.push((method.to_ascii_uppercase(), format!("{API_PREFIX}{path}")));
            }
        }
    }
    out.sort();
    Ok(out)
}

//! How the public site answers, once for every presenter: validators (`ETag`, 304), revalidated answers, redirects
//! that never echo raw text, the public origin of absolute URLs, and the content types.

use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use sha2::{Digest, Sha256};
use specpress_api::ApiConfig;
use specpress_domain::urls;
use specpress_reader::DocView;

/// The path of the documentation `slug` names on the request's hostname.
fn doc_path_of(slug: &str) -> String {
    match specpress_domain::model::Slug::parse(slug) {
        Ok(s) => urls::doc_path(&s),
        Err(_) => format!("/doc/{slug}"),
    }
}

pub use specpress_reader::rfc3339_seconds;

/// What a path may carry as it is: unreserved characters, sub-delimiters and `/`, `:`, `@` (RFC 3986 `pchar`).
/// Everything else (controls, spaces, `%`, `?`, `#`, quotes, non-ASCII) is percent-encoded.
const PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// A path (decoded text allowed) percent-encoded for a `Location`.
pub fn encode_path(path: &str) -> String {
    utf8_percent_encode(path, PATH).to_string()
}

/// A redirect to `path` (decoded text allowed: it is percent-encoded here) with an already-encoded `query` (a
/// request's raw query, or one written with `form_urlencoded`). Never fails: a query that cannot be a header value
/// is dropped.
pub fn redirect(status: StatusCode, path: &str, query: Option<&str>) -> Response {
    let path = encode_path(path);
    let location = match query.filter(|q| !q.is_empty()) {
        Some(q) => HeaderValue::from_str(&format!("{path}?{q}")),
        None => HeaderValue::from_str(&path),
    }
    .or_else(|_| HeaderValue::from_str(&path))
    .unwrap_or_else(|_| HeaderValue::from_static("/"));
    (status, [(header::LOCATION, location)]).into_response()
}

/// A temporary redirect (307): where the target may change (the default branch).
pub fn moved_temporarily(path: &str) -> Response {
    redirect(StatusCode::TEMPORARY_REDIRECT, path, None)
}

/// A permanent redirect (308): the id form to the slug form, an alias to its page.
pub fn moved_permanently(path: &str) -> Response {
    redirect(StatusCode::PERMANENT_REDIRECT, path, None)
}

/// The id form of a documentation URL answered with the slug form: the same path after the key, and the query.
pub fn to_slug_form(slug: &str, uri: &Uri, key: &str) -> Response {
    let rest = percent_encoding::percent_decode_str(uri.path())
        .decode_utf8_lossy()
        .strip_prefix(&format!("/doc/{key}"))
        .map(str::to_owned)
        .unwrap_or_default();
    redirect(
        StatusCode::PERMANENT_REDIRECT,
        &urls::href_with(format!("{}{rest}", doc_path_of(slug)), ""),
        uri.query(),
    )
}

/// The origin of absolute URLs (feeds, sitemaps, llms.txt, the MCP client configuration): the configured public
/// base, else the request's host.
pub fn origin_of(config: &ApiConfig, headers: &HeaderMap) -> String {
    specpress_api::urls::public_base(config, headers)
}

/// A build identity for validators: a page changes when the renderer does.
pub fn build_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let mut h = Sha256::new();
        h.update(env!("CARGO_PKG_VERSION"));
        for a in specpress_render::assets() {
            h.update(&a.name);
        }
        if let Some(size) = std::env::current_exe()
            .ok()
            .and_then(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
        {
            h.update(size.to_le_bytes());
        }
        hex::encode(&h.finalize()[..6])
    })
}

/// A strong validator, fed with everything an answer shows (the build first).
pub struct Validator(Sha256);

impl Default for Validator {
    fn default() -> Self {
        Validator::new()
    }
}

impl Validator {
    /// A validator of this build.
    pub fn new() -> Self {
        let mut h = Sha256::new();
        h.update(build_id());
        Validator(h)
    }

    /// A validator of this build and of everything the chrome of `view` shows (name, branches, base).
    pub fn of_view(view: &DocView) -> Self {
        Validator::new().add_view(view)
    }

    /// Adds everything the chrome of `view` shows (its privacy too: `noindex`, the MCP configuration's token).
    pub fn add_view(mut self, view: &DocView) -> Self {
        view.fingerprint(|b| self.0.update(b));
        self.0.update([u8::from(view.private)]);
        self
    }

    /// Adds a part.
    pub fn add(mut self, part: impl AsRef<[u8]>) -> Self {
        self.0.update(part);
        self
    }

    /// The `ETag` value.
    pub fn etag(self) -> String {
        format!("\"{}\"", hex::encode(&self.0.finalize()[..12]))
    }
}

/// Whether the request's `If-None-Match` matches `etag` (a list, weak tags and `*` included).
pub fn etag_matches(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| {
            let t = t.trim();
            t == "*" || t.trim_start_matches("W/") == etag
        })
}

/// 304 when the request already holds `etag`; otherwise `None` and the answer is to be made.
pub fn not_modified(headers: &HeaderMap, etag: &str) -> Option<Response> {
    if !etag_matches(headers, etag) {
        return None;
    }
    let value = HeaderValue::from_str(etag).ok()?;
    Some(
        (
            StatusCode::NOT_MODIFIED,
            [
                (header::ETAG, value),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            ],
        )
            .into_response(),
    )
}

/// Text shown to a reader (a page, Markdown, a feed, search results, a diff's details), with its validator: its
/// control and bidirectional characters neutralized ([`specpress_render::neutral`]), then [`data`].
pub fn revalidated(content_type: &'static str, body: String, etag: &str) -> Response {
    data(content_type, specpress_render::neutral_owned(body), etag)
}

/// An answer with its validator, cacheable but revalidated on every use (a deploy or a promotion shows at once; a
/// 304 costs little), sent as it is: the definitions themselves (`.json`, `.yaml`, a version's source).
pub fn data(content_type: &'static str, body: impl IntoResponse, etag: &str) -> Response {
    let mut resp = (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "public, no-cache"),
        ],
        body,
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(etag) {
        resp.headers_mut().insert(header::ETAG, v);
    }
    resp
}

/// Content types of the site's answers.
pub mod types {
    pub const HTML: &str = "text/html; charset=utf-8";
    pub const MARKDOWN: &str = "text/markdown; charset=utf-8";
    pub const TEXT: &str = "text/plain; charset=utf-8";
    pub const XML: &str = "application/xml; charset=utf-8";
    pub const JSON: &str = "application/json; charset=utf-8";
    pub const YAML: &str = "application/yaml; charset=utf-8";
}

/// A rendered HTML page with its validator, revalidated on every view.
pub fn html_page(html: String, etag: &str) -> Response {
    revalidated(types::HTML, html, etag)
}

/// An HTML page never stored (previews, public diffs, the compare form).
pub fn html_no_store(status: StatusCode, html: String, cache: &'static str) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, types::HTML),
            (header::CACHE_CONTROL, cache),
        ],
        specpress_render::neutral_owned(html),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_if_none_match_list_or_a_weak_tag_matches_the_etag() {
        let mut h = HeaderMap::new();
        h.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_static("\"a\", W/\"b\""),
        );
        assert!(etag_matches(&h, "\"b\""));
        assert!(!etag_matches(&h, "\"c\""));
        assert!(not_modified(&h, "\"a\"").is_some());
    }

    #[test]
    fn a_redirect_percent_encodes_what_it_echoes_and_never_fails() {
        let r = redirect(
            StatusCode::TEMPORARY_REDIRECT,
            "/doc/x/\r\nX:1 é%?#",
            Some("q=a+b"),
        );
        assert_eq!(
            r.headers()[header::LOCATION],
            "/doc/x/%0D%0AX:1%20%C3%A9%25%3F%23?q=a+b"
        );
        let r = redirect(StatusCode::PERMANENT_REDIRECT, "/doc/x/\0", None);
        assert_eq!(r.headers()[header::LOCATION], "/doc/x/%00");
        assert_eq!(
            encode_path("/doc/pets/schema/Pet_v1.2"),
            "/doc/pets/schema/Pet_v1.2"
        );
    }
}

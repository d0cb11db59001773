//! How the public site answers, once for every presenter: error pages for what the reader layer could not find,
//! validators (`ETag`, 304), revalidated answers, redirects that never echo raw text, and the page chrome of a
//! documentation view.

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use sha2::{Digest, Sha256};
use specpress_domain::model::Version;
use specpress_reader::{DocView, Missing, ReadError};
use specpress_render::{
    Alternate, AssetUrls, BranchLink, McpScope, McpServer, NavLink, PageContext, VersionInfo,
};
use time::format_description::well_known::Rfc3339;

use crate::DocsState;
use crate::headers::error_page;

/// An answer that is either the page or an error already shaped for its reader.
pub type Answer = Result<Response, Response>;

/// The 404 page of something missing.
pub fn missing(st: &DocsState, what: Missing) -> Response {
    error_page(
        &st.assets,
        StatusCode::NOT_FOUND,
        what.title(),
        what.message(),
    )
}

/// A 404 page with its own words (a changelog page number, a preview's page).
pub fn not_found(st: &DocsState, title: &str, message: &str) -> Response {
    error_page(&st.assets, StatusCode::NOT_FOUND, title, message)
}

/// A read that gave no answer, as a page: a 404 page for what is missing, the generic 500 page for a failure
/// (details logged).
pub fn page_error(st: &DocsState, e: ReadError) -> Response {
    match e {
        ReadError::Missing(m) => missing(st, m),
        ReadError::Failed(e) => {
            tracing::error!(error = %e, "public page failed");
            error_page(
                &st.assets,
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "This page could not be shown. Try again in a moment.",
            )
        }
    }
}

/// A read that gave no answer, as JSON (`{message}`, the API's error shape).
pub fn json_error(e: ReadError) -> Response {
    match e {
        ReadError::Missing(m) => specpress_api::ApiError::from(
            specpress_domain::DomainError::NotFound(m.message().into()),
        )
        .into_response(),
        ReadError::Failed(e) => specpress_api::ApiError::from(e).into_response(),
    }
}

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
        &format!("/doc/{slug}{rest}"),
        uri.query(),
    )
}

/// The origin of absolute URLs (feeds, sitemaps, llms.txt, the MCP client configuration): the configured public
/// base, else the request's host.
pub fn origin_of(st: &DocsState, parts: &axum::http::request::Parts) -> String {
    origin_from(st, &parts.headers)
}

/// [`origin_of`] a request's headers.
pub fn origin_from(st: &DocsState, headers: &HeaderMap) -> String {
    specpress_api::urls::public_base(&st.app.config, headers)
}

/// A time as RFC 3339, to the second.
pub fn rfc3339_seconds(t: time::OffsetDateTime) -> String {
    t.replace_nanosecond(0)
        .unwrap_or(t)
        .format(&Rfc3339)
        .unwrap_or_default()
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

/// One branch of the switcher, owned.
#[derive(Debug, Clone)]
pub struct OwnedBranchLink {
    pub name: String,
    pub href: String,
    pub current: bool,
    pub default: bool,
}

/// The version a page shows, owned.
#[derive(Debug, Clone)]
pub struct OwnedVersion {
    pub id: String,
    pub published_at: String,
    pub api_version: String,
}

/// The MCP server a page is about, owned (see [`McpServer`]).
#[derive(Debug, Clone)]
pub struct OwnedMcp {
    /// `/doc/pets/mcp`, `/doc/pets/branches/next/mcp`, `/hub/vets/mcp`.
    pub href: String,
    /// The absolute URL, on the pages that show the client configuration (and whose validator holds the origin).
    pub url: Option<String>,
    /// The documentation's or hub's slug.
    pub name: String,
    pub scope: McpScope,
    /// A token is needed (private).
    pub token: bool,
}

impl OwnedMcp {
    /// The MCP server of `view`: the documentation on the branch shown.
    pub fn of_view(view: &DocView) -> OwnedMcp {
        OwnedMcp {
            href: format!("{}/mcp", view.base),
            url: None,
            name: view.doc.slug.to_string(),
            scope: McpScope::Documentation,
            token: view.private,
        }
    }

    /// The MCP server of the hub `slug`.
    pub fn of_hub(slug: &str, token: bool) -> OwnedMcp {
        OwnedMcp {
            href: format!("/hub/{slug}/mcp"),
            url: None,
            name: slug.to_owned(),
            scope: McpScope::Hub,
            token,
        }
    }

    /// The same, with its absolute URL on `origin` (the client configuration is shown).
    pub fn on(mut self, origin: &str) -> OwnedMcp {
        self.url = Some(format!("{origin}{}", self.href));
        self
    }

    /// The [`McpServer`] these parts make.
    pub fn server(&self) -> McpServer<'_> {
        McpServer {
            href: &self.href,
            url: self.url.as_deref(),
            name: &self.name,
            scope: self.scope,
            token: self.token,
        }
    }
}

/// The renderer's mode of a documentation's `try_it` setting.
fn try_it_mode(setting: specpress_domain::model::TryIt) -> specpress_render::TryItMode {
    use specpress_domain::model::TryIt;
    match setting {
        TryIt::Off => specpress_render::TryItMode::Off,
        TryIt::Direct => specpress_render::TryItMode::Direct,
        TryIt::Proxy => specpress_render::TryItMode::Proxy,
    }
}

/// Everything a [`PageContext`] borrows, owned: built on the async side, lent to a render on the CPU gate.
#[derive(Debug, Clone)]
pub struct Chrome {
    pub base: String,
    pub doc_name: String,
    pub branches: Vec<OwnedBranchLink>,
    pub version: Option<OwnedVersion>,
    pub assets: Arc<AssetUrls>,
    /// Header links: (label, href, current).
    pub links: Vec<(String, String, bool)>,
    pub search_action: Option<String>,
    /// `<link rel="alternate">`: (href, media type, title).
    pub alternates: Vec<(String, String, String)>,
    pub noindex: bool,
    /// The page is answered to a signed-in reader (see [`crate::request::signed_in`]).
    pub signed_in: bool,
    /// The MCP server of the documentation or hub the page is about (the footer link, the home page's
    /// configuration).
    pub mcp: Option<OwnedMcp>,
    /// Whether and how operation pages offer "Try it" (the documentation's `try_it`; off for everything else).
    pub try_it: specpress_render::TryItMode,
}

impl Chrome {
    /// A chrome with a title and nothing else (previews, public diffs, hubs fill in what they have).
    pub fn bare(st: &DocsState, base: String, name: String) -> Chrome {
        Chrome {
            base,
            doc_name: name,
            branches: Vec::new(),
            version: None,
            assets: st.assets.clone(),
            links: Vec::new(),
            search_action: None,
            alternates: Vec::new(),
            noindex: true,
            signed_in: crate::request::signed_in(),
            mcp: None,
            try_it: specpress_render::TryItMode::Off,
        }
    }

    /// The chrome of a page about `view` showing `version` (its branch switcher, links, search form, feeds, MCP
    /// server).
    pub fn of_view(st: &DocsState, view: &DocView, version: Option<&Version>) -> Chrome {
        Chrome {
            base: view.base.clone(),
            doc_name: view.doc.name.clone(),
            branches: view
                .branches
                .iter()
                .map(|b| OwnedBranchLink {
                    name: b.name.name().to_owned(),
                    href: view.branch_href(b.name.slug()),
                    current: b.name.slug() == view.branch.name.slug(),
                    default: b.name.slug() == &view.doc.default_branch,
                })
                .collect(),
            version: version.map(|v| OwnedVersion {
                id: v.id.to_string(),
                published_at: rfc3339_seconds(v.created_at),
                api_version: v.analysis.api_version.clone(),
            }),
            assets: st.assets.clone(),
            links: vec![
                ("Reference".to_owned(), view.base.clone(), false),
                (
                    "Changelog".to_owned(),
                    format!("{}/changes", view.base),
                    false,
                ),
            ],
            search_action: Some(format!("{}/search", view.base)),
            alternates: vec![
                (
                    format!("{}/changes.atom", view.base),
                    "application/atom+xml".to_owned(),
                    format!("{} changelog (Atom)", view.doc.name),
                ),
                (
                    format!("{}/changes.rss", view.base),
                    "application/rss+xml".to_owned(),
                    format!("{} changelog (RSS)", view.doc.name),
                ),
            ],
            noindex: view.private,
            signed_in: crate::request::signed_in(),
            mcp: Some(OwnedMcp::of_view(view)),
            try_it: try_it_mode(view.doc.try_it),
        }
    }

    /// Calls `f` with the [`PageContext`] these parts make.
    pub fn with<R>(&self, f: impl FnOnce(&PageContext<'_>) -> R) -> R {
        let branches: Vec<BranchLink<'_>> = self
            .branches
            .iter()
            .map(|b| BranchLink {
                name: &b.name,
                href: &b.href,
                current: b.current,
                default: b.default,
            })
            .collect();
        let links: Vec<NavLink<'_>> = self
            .links
            .iter()
            .map(|(label, href, current)| NavLink {
                label,
                href,
                current: *current,
            })
            .collect();
        let alternates: Vec<Alternate<'_>> = self
            .alternates
            .iter()
            .map(|(href, media_type, title)| Alternate {
                href,
                media_type,
                title,
            })
            .collect();
        let ctx = PageContext {
            base: &self.base,
            doc_name: &self.doc_name,
            branches: &branches,
            version: self.version.as_ref().map(|v| VersionInfo {
                id: &v.id,
                published_at: &v.published_at,
                api_version: &v.api_version,
            }),
            assets: &self.assets,
            links: &links,
            search_action: self.search_action.as_deref(),
            alternates: &alternates,
            noindex: self.noindex,
            session_href: self.signed_in.then_some(crate::request::SIGN_IN_PATH),
            mcp: self.mcp.as_ref().map(OwnedMcp::server),
            try_it: self.try_it,
        };
        f(&ctx)
    }
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

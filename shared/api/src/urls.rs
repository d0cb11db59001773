//! Public URLs: the scheme lives in [`specpress_domain::urls`] (documentations by slug); this module adds the
//! request-derived base ([`PublicBase`]).

pub use specpress_domain::urls::{branch_url, change_url, diff_url, doc_url, hub_url, preview_url};

use specpress_domain::model::{PreviewId, Slug, VersionId};

/// `{base}/doc/{doc_slug}`: the documentation on its default branch.
pub fn doc_public_url(base: &str, doc: &Slug) -> String {
    doc_url(base, doc)
}

/// `{base}/doc/{doc_slug}/changes/{version_id}`: what one published version changed.
pub fn diff_public_url(base: &str, doc: &Slug, version: VersionId) -> String {
    change_url(base, doc, version)
}

/// `{base}/preview/{id}`: a live preview.
pub fn preview_public_url(base: &str, id: PreviewId) -> String {
    preview_url(base, id)
}

/// The base of public URLs for this request: the configured `public_base_url`, or, when that is empty (a Lambda
/// behind an API whose URL is not known at deploy time), `https://<Host>` from the request (`X-Forwarded-Proto`
/// honoured; a loopback Host without it is `http`). A Host with unexpected characters falls back to `localhost`.
#[derive(Debug, Clone)]
pub struct PublicBase(pub String);

impl axum::extract::FromRequestParts<crate::AppState> for PublicBase {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &crate::AppState,
    ) -> Result<Self, Self::Rejection> {
        Ok(PublicBase(public_base(&state.config, &parts.headers)))
    }
}

/// The base of public URLs for a request with these headers (what [`PublicBase`] extracts; the public pages use it
/// for the absolute URLs of feeds). Without `X-Forwarded-Proto`, a loopback host (`specpress serve` answering plain
/// HTTP on its own port) is `http`, any other `https`.
pub fn public_base(config: &crate::ApiConfig, headers: &axum::http::HeaderMap) -> String {
    if !config.public_base_url.is_empty() {
        return config.public_base_url.clone();
    }
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    let host = header("x-forwarded-host")
        .or_else(|| header("host"))
        .filter(|h| {
            !h.is_empty()
                && h.len() <= 255
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b))
        })
        .unwrap_or("localhost");
    let proto = match header("x-forwarded-proto") {
        Some("http") => "http",
        Some(_) => "https",
        None if host.starts_with("127.0.0.1") || host.starts_with("localhost") => "http",
        None => "https",
    };
    format!("{proto}://{host}")
}

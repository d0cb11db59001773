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
    let host = valid_host(header(headers, "x-forwarded-host").or_else(|| header(headers, "host")))
        .unwrap_or("localhost");
    format!("{}://{host}", scheme(headers, host))
}

/// The origin (`scheme://host[:port]`) this service is reached at, for checking a request's `Origin`: the origin
/// of the configured public URL when there is one, else the `Host` header with the scheme [`public_base`] would
/// use. Never `X-Forwarded-Host`, which any client may send. `None` when there is no usable `Host`.
pub fn own_origin(config: &crate::ApiConfig, headers: &axum::http::HeaderMap) -> Option<String> {
    if !config.public_base_url.is_empty() {
        let base = &config.public_base_url;
        let (scheme, rest) = base.split_once("://")?;
        let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
        return Some(format!("{scheme}://{authority}"));
    }
    let host = valid_host(header(headers, "host"))?;
    Some(format!("{}://{host}", scheme(headers, host)))
}

fn header<'a>(headers: &'a axum::http::HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

/// A Host value made of the characters a host and port may have, else `None`.
fn valid_host(host: Option<&str>) -> Option<&str> {
    host.filter(|h| {
        !h.is_empty()
            && h.len() <= 255
            && h.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b))
    })
}

/// The scheme of a request to `host`: `X-Forwarded-Proto` when set, else `http` for a loopback host and `https`
/// for any other.
fn scheme(headers: &axum::http::HeaderMap, host: &str) -> &'static str {
    match header(headers, "x-forwarded-proto") {
        Some("http") => "http",
        Some(_) => "https",
        None if host.starts_with("127.0.0.1") || host.starts_with("localhost") => "http",
        None => "https",
    }
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderMap, HeaderValue};

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn the_own_origin_is_the_configured_one_else_the_host_never_a_forwarded_host() {
        let configured = crate::ApiConfig::new("https://docs.example/base/");
        assert_eq!(
            own_origin(&configured, &headers(&[("host", "evil.example")])).as_deref(),
            Some("https://docs.example")
        );
        let derived = crate::ApiConfig::new("");
        let h = headers(&[
            ("host", "docs.example"),
            ("x-forwarded-host", "evil.example"),
        ]);
        assert_eq!(
            own_origin(&derived, &h).as_deref(),
            Some("https://docs.example")
        );
        assert_eq!(public_base(&derived, &h), "https://evil.example");
        assert_eq!(
            own_origin(&derived, &headers(&[("host", "127.0.0.1:3000")])).as_deref(),
            Some("http://127.0.0.1:3000")
        );
        let h = headers(&[("host", "docs.example"), ("x-forwarded-proto", "http")]);
        assert_eq!(
            own_origin(&derived, &h).as_deref(),
            Some("http://docs.example")
        );
        assert_eq!(own_origin(&derived, &headers(&[("host", "a b")])), None);
        assert_eq!(own_origin(&derived, &HeaderMap::new()), None);
    }
}

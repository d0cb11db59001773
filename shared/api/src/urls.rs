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
/// behind an API whose URL is not known at deploy time), derived from the request ([`public_base`]: its `Host`,
/// never a client's `X-Forwarded-Host` unless `SPECPRESS_TRUST_FORWARDED_HOST` says a proxy sets it).
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
/// for the absolute URLs of feeds): the configured public URL when there is one, else `scheme://host` of the
/// request ([`request_host`], [`scheme`]). A host with unexpected characters, or none, is `localhost`.
///
/// Any client can send forwarding headers, and what this answers is written into API answers (`doc_public_url`)
/// and feeds that caches may keep and hand to others, so they count only when the operator says a proxy in front
/// sets them (`trust_forwarded_host`).
pub fn public_base(config: &crate::ApiConfig, headers: &axum::http::HeaderMap) -> String {
    if let Some(site) = specpress_domain::urls::host_site() {
        // Answered on a custom hostname (`crate::hosts`): every absolute URL stays on it.
        return site.origin;
    }
    if !config.public_base_url.is_empty() {
        return config.public_base_url.clone();
    }
    let host = request_host(config, headers).unwrap_or("localhost");
    format!("{}://{host}", scheme(config, headers, host))
}

/// The origin (`scheme://host[:port]`) this service is reached at, for checking a request's `Origin`: the origin
/// of the configured public URL when there is one, else the one [`public_base`] derives (the `Host` header, or the
/// proxy's `X-Forwarded-Host` when trusted, never a client's). `None` when there is no usable host.
pub fn own_origin(config: &crate::ApiConfig, headers: &axum::http::HeaderMap) -> Option<String> {
    if let Some(site) = specpress_domain::urls::host_site() {
        return Some(site.origin);
    }
    if !config.public_base_url.is_empty() {
        let base = &config.public_base_url;
        let (scheme, rest) = base.split_once("://")?;
        let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
        return Some(format!("{scheme}://{authority}"));
    }
    let host = request_host(config, headers)?;
    Some(format!("{}://{host}", scheme(config, headers, host)))
}

fn header<'a>(headers: &'a axum::http::HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

/// A forwarding header as the nearest proxy wrote it: the last entry of a list (`a, b`: a proxy that appends rather
/// than replaces leaves what the client sent first).
fn forwarded<'a>(headers: &'a axum::http::HeaderMap, name: &str) -> Option<&'a str> {
    header(headers, name)
        .and_then(|v| v.rsplit(',').next())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// The host a request reached: the trusted proxy's `X-Forwarded-Host` when `trust_forwarded_host` is set and it is
/// a valid host, else the `Host` header. `None` when neither is a valid host.
pub fn request_host<'a>(
    config: &crate::ApiConfig,
    headers: &'a axum::http::HeaderMap,
) -> Option<&'a str> {
    trusted_forwarded_host(config, headers).or_else(|| valid_host(header(headers, "host")))
}

/// The host the trusted proxy reports (`X-Forwarded-Host`, its last entry) when `trust_forwarded_host` is set and
/// the header is usable, else `None`: when it is `Some`, it is what [`request_host`] answers.
pub fn trusted_forwarded_host<'a>(
    config: &crate::ApiConfig,
    headers: &'a axum::http::HeaderMap,
) -> Option<&'a str> {
    if config.trust_forwarded_host {
        valid_host(forwarded(headers, "x-forwarded-host"))
    } else {
        None
    }
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

/// Whether `host` (with or without a port) names this machine: `localhost`, `127.x.x.x` or `[::1]`.
fn is_loopback(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => host.split(':').next().unwrap_or(host),
    };
    name.eq_ignore_ascii_case("localhost") || name.starts_with("127.") || name == "::1"
}

/// The scheme of public URLs on `host`: the trusted proxy's `X-Forwarded-Proto` (`http` or `https`) when
/// `trust_forwarded_host` is set, else `http` for a loopback host (`specpress serve` answering plain HTTP on its own
/// port) and `https` for any other (API Gateway serves HTTPS only, and says so in the `X-Forwarded-Proto` it sets
/// itself). A client's `X-Forwarded-Proto` is not read otherwise: it could only pick `http` or `https` for the same
/// host, but a downgraded link in a cached feed would reach other readers.
fn scheme(config: &crate::ApiConfig, headers: &axum::http::HeaderMap, host: &str) -> &'static str {
    if let Some(s) = forwarded_scheme(config, headers) {
        return s;
    }
    if is_loopback(host) { "http" } else { "https" }
}

/// The trusted proxy's `X-Forwarded-Proto` (`http` or `https`), when `trust_forwarded_host` is set.
pub fn forwarded_scheme(
    config: &crate::ApiConfig,
    headers: &axum::http::HeaderMap,
) -> Option<&'static str> {
    if !config.trust_forwarded_host {
        return None;
    }
    match forwarded(headers, "x-forwarded-proto") {
        Some(p) if p.eq_ignore_ascii_case("https") => Some("https"),
        Some(p) if p.eq_ignore_ascii_case("http") => Some("http"),
        _ => None,
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

    fn trusting(trust: bool) -> crate::ApiConfig {
        crate::ApiConfig {
            trust_forwarded_host: trust,
            ..crate::ApiConfig::new("")
        }
    }

    #[test]
    fn without_the_setting_a_forged_forwarded_host_or_scheme_never_reaches_a_public_url() {
        // GIVEN no configured public URL and the default setting
        let derived = trusting(false);
        // WHEN a client sends forwarding headers of its choosing
        let h = headers(&[
            ("host", "docs.example"),
            ("x-forwarded-host", "evil.example"),
            ("x-forwarded-proto", "http"),
        ]);
        // THEN the public base and the own origin are the Host's, on https
        assert_eq!(public_base(&derived, &h), "https://docs.example");
        assert_eq!(
            own_origin(&derived, &h).as_deref(),
            Some("https://docs.example")
        );
        // and a loopback host (specpress serve) is plain http whatever the client says.
        let h = headers(&[
            ("host", "127.0.0.1:3000"),
            ("x-forwarded-host", "evil.example"),
            ("x-forwarded-proto", "https"),
        ]);
        assert_eq!(public_base(&derived, &h), "http://127.0.0.1:3000");
        assert_eq!(
            public_base(&derived, &headers(&[("host", "[::1]:3000")])),
            "http://[::1]:3000"
        );
        assert_eq!(
            public_base(&derived, &headers(&[("host", "localhost.evil.example")])),
            "https://localhost.evil.example",
            "only the host localhost itself is loopback"
        );
    }

    #[test]
    fn with_the_setting_the_proxy_s_forwarded_host_and_scheme_make_the_public_base() {
        let trusted = trusting(true);
        let h = headers(&[
            ("host", "abc123.execute-api.eu-west-1.amazonaws.com"),
            ("x-forwarded-host", "docs.example"),
            ("x-forwarded-proto", "https"),
        ]);
        assert_eq!(public_base(&trusted, &h), "https://docs.example");
        assert_eq!(
            own_origin(&trusted, &h).as_deref(),
            Some("https://docs.example")
        );
        // A proxy that appends: the last entry is its own.
        let h = headers(&[
            ("host", "internal:8080"),
            ("x-forwarded-host", "evil.example, docs.example:8443"),
            ("x-forwarded-proto", "https, http"),
        ]);
        assert_eq!(public_base(&trusted, &h), "http://docs.example:8443");
        // Without the headers, or with an unusable one, the Host as before.
        let h = headers(&[("host", "127.0.0.1:3000")]);
        assert_eq!(public_base(&trusted, &h), "http://127.0.0.1:3000");
        let h = headers(&[
            ("host", "docs.example"),
            ("x-forwarded-host", "a b"),
            ("x-forwarded-proto", "gopher"),
        ]);
        assert_eq!(public_base(&trusted, &h), "https://docs.example");
    }

    #[test]
    fn a_configured_public_url_wins_over_every_header() {
        let configured = crate::ApiConfig {
            trust_forwarded_host: true,
            ..crate::ApiConfig::new("https://docs.example/base/")
        };
        let h = headers(&[
            ("host", "evil.example"),
            ("x-forwarded-host", "evil.example"),
        ]);
        assert_eq!(public_base(&configured, &h), "https://docs.example/base");
        assert_eq!(
            own_origin(&configured, &h).as_deref(),
            Some("https://docs.example")
        );
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
        assert_eq!(public_base(&derived, &h), "https://docs.example");
        assert_eq!(
            own_origin(&derived, &headers(&[("host", "127.0.0.1:3000")])).as_deref(),
            Some("http://127.0.0.1:3000")
        );
        assert_eq!(own_origin(&derived, &headers(&[("host", "a b")])), None);
        assert_eq!(own_origin(&derived, &HeaderMap::new()), None);
        assert_eq!(public_base(&derived, &HeaderMap::new()), "http://localhost");
    }
}

//! The security headers of every answer of every function (pages, JSON, errors, the fallback): the layer
//! [`security_headers`] is part of [`with_common_layers`](crate::with_common_layers), which both the HTTP Lambda
//! helper and `specpress serve` wrap around their routers.
//!
//! - `Content-Security-Policy`: a router may set its own first (the public pages set theirs, which lets their
//!   stylesheet, script and images load); anything else gets [`JSON_CSP`], which allows nothing. Answers under
//!   `/api/` always get [`JSON_CSP`]: they are JSON, never a page.
//! - `X-Content-Type-Options: nosniff`, `Referrer-Policy: strict-origin-when-cross-origin`, `X-Frame-Options: DENY`,
//!   `Cross-Origin-Opener-Policy: same-origin`, unless the router set them (no `X-Frame-Options` on a page whose
//!   policy's `frame-ancestors` names origins: embed mode, `specpress_site`).

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;

/// The Content-Security-Policy of answers that are not pages (JSON, text, errors): nothing may load or frame them.
pub const JSON_CSP: &str = "default-src 'none'; frame-ancestors 'none'";

/// The Content-Security-Policy of every public page (documentation, hubs, MCP server pages): nothing inline, nothing
/// from elsewhere but images.
pub const PAGE_CSP: &str = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' https: data:; \
     font-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// Adds the security headers a response does not carry yet, with `csp` as its Content-Security-Policy.
pub fn add_security_headers(h: &mut HeaderMap, csp: &'static str) {
    let set = |h: &mut HeaderMap, name: HeaderName, value: &'static str| {
        h.entry(name).or_insert(HeaderValue::from_static(value));
    };
    set(h, header::CONTENT_SECURITY_POLICY, csp);
    set(h, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(
        h,
        header::REFERRER_POLICY,
        "strict-origin-when-cross-origin",
    );
    // A page framed by named origins (embed mode) carries `frame-ancestors` listing them; `X-Frame-Options` cannot
    // name several, so it is left out there rather than contradict them.
    let framed = h
        .get(header::CONTENT_SECURITY_POLICY)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|csp| {
            csp.split(';').any(|d| {
                let mut words = d.split_whitespace();
                words.next() == Some("frame-ancestors") && words.next() != Some("'none'")
            })
        });
    if !framed {
        set(h, header::X_FRAME_OPTIONS, "DENY");
    }
    set(
        h,
        HeaderName::from_static("cross-origin-opener-policy"),
        "same-origin",
    );
}

/// The layer: every answer leaves with the security headers (see the module documentation).
pub async fn security_headers(req: Request, next: Next) -> Response {
    let api = req.uri().path().starts_with("/api/");
    let mut resp = next.run(req).await;
    let h = resp.headers_mut();
    if api {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(JSON_CSP),
        );
    }
    add_security_headers(h, JSON_CSP);
    resp
}

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::body::Body;
    use axum::response::IntoResponse;
    use axum::routing::get;
    use tower::ServiceExt;

    use super::*;

    async fn headers_of(app: Router, path: &str) -> HeaderMap {
        let resp = app
            .oneshot(
                axum::http::Request::builder()
                    .uri(path)
                    .body(Body::empty())
                    .expect("request"),
            )
            .await
            .expect("answer");
        resp.headers().clone()
    }

    #[tokio::test]
    async fn every_answer_gets_the_headers_and_a_page_keeps_its_own_policy_outside_the_api() {
        let page = || async {
            (
                [(header::CONTENT_SECURITY_POLICY, "default-src 'self'")],
                "<p>page</p>",
            )
                .into_response()
        };
        let app = crate::with_common_layers(
            Router::new()
                .route("/doc/x", get(page))
                .route("/api/v1/x", get(page))
                .route("/plain", get(|| async { "text" })),
        );
        for (path, csp) in [
            ("/doc/x", "default-src 'self'"),
            ("/api/v1/x", JSON_CSP),
            ("/plain", JSON_CSP),
            ("/no-such-route", JSON_CSP),
        ] {
            let h = headers_of(app.clone(), path).await;
            assert_eq!(h[header::CONTENT_SECURITY_POLICY], csp, "{path}");
            assert_eq!(h[header::X_CONTENT_TYPE_OPTIONS], "nosniff", "{path}");
            assert_eq!(h[header::X_FRAME_OPTIONS], "DENY", "{path}");
            assert_eq!(
                h[header::REFERRER_POLICY],
                "strict-origin-when-cross-origin",
                "{path}"
            );
            assert_eq!(h["cross-origin-opener-policy"], "same-origin", "{path}");
        }
    }
}

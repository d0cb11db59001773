//! What the pages of one request know of it beyond their own route: the path asked for and whether the reader is
//! signed in. [`scope`] sets it around each handler (inside the readers middleware, which resolved the reader); the
//! page shell ([`crate::assets`]) and the pages read it. The site's own paths live here too, so that the sign-in
//! pages and the shell both depend on this module and not on each other.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use specpress_api::readers::Viewer;

/// Where the sign-in form lives.
pub const SIGN_IN_PATH: &str = "/sign-in";
/// Where the sign-out form posts.
pub const SIGN_OUT_PATH: &str = "/sign-out";

/// What the pages of one request need to know of it beyond their own route.
#[derive(Debug, Clone, Default)]
struct RequestInfo {
    /// The path and query asked for (the sign-in link of a 404 page returns there).
    target: String,
    /// The reader presented live credentials (the footer says they are signed in).
    member: bool,
}

tokio::task_local! {
    /// Set by [`scope`] around the handler of each request.
    static REQUEST: RequestInfo;
}

/// The middleware: runs the request's handler with its information (its reader from the readers middleware).
pub async fn scope(req: Request, next: Next) -> Response {
    let info = RequestInfo {
        // The path the reader asked for: on a custom hostname, the one before `Host`-based routing rewrote it.
        target: req
            .extensions()
            .get::<axum::extract::OriginalUri>()
            .map_or(req.uri(), |o| &o.0)
            .path_and_query()
            .map(|p| p.as_str().to_owned())
            .unwrap_or_default(),
        member: req
            .extensions()
            .get::<Viewer>()
            .is_some_and(Viewer::is_member),
    };
    REQUEST.scope(info, next.run(req)).await
}

/// The path and query of the request being answered (empty outside a request).
pub fn request_target() -> String {
    REQUEST.try_with(|r| r.target.clone()).unwrap_or_default()
}

/// Whether the request being answered comes from a signed-in reader (a token or a session): its pages name the
/// session in their footer. `false` outside a request.
pub fn signed_in() -> bool {
    REQUEST.try_with(|r| r.member).unwrap_or(false)
}

/// Where a signed-in reader's pages point for the session, if the request being answered has one.
pub fn session_href() -> Option<&'static str> {
    signed_in().then_some(SIGN_IN_PATH)
}

/// The sign-in link of a 404 page, returning to the page asked for.
pub fn sign_in_href() -> String {
    let target = request_target();
    if target.is_empty() || target.starts_with(SIGN_IN_PATH) {
        return SIGN_IN_PATH.to_owned();
    }
    let next: String = form_urlencoded::byte_serialize(target.as_bytes()).collect();
    format!("{SIGN_IN_PATH}?next={next}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_sign_in_link_returns_to_the_page_asked_for_inside_a_request_only() {
        assert_eq!(sign_in_href(), SIGN_IN_PATH);
        assert!(!signed_in());
        let info = RequestInfo {
            target: "/doc/vault?x=1".into(),
            member: true,
        };
        let (href, member) = REQUEST
            .scope(info, async { (sign_in_href(), session_href()) })
            .await;
        assert_eq!(href, "/sign-in?next=%2Fdoc%2Fvault%3Fx%3D1");
        assert_eq!(member, Some(SIGN_IN_PATH));
    }
}

//! What the pages of one request know of it beyond their own route: the path asked for and whether the reader is
//! signed in. [`crate::access::readers`] sets it around each handler ([`scope`]); the page shell
//! ([`crate::headers`]) and the pages read it. The site's own paths live here too, so that access and headers both
//! depend on this module and not on each other.

use std::future::Future;

/// Where the sign-in form lives.
pub const SIGN_IN_PATH: &str = "/sign-in";
/// Where the sign-out form posts.
pub const SIGN_OUT_PATH: &str = "/sign-out";

/// What the pages of one request need to know of it beyond their own route.
#[derive(Debug, Clone, Default)]
pub(crate) struct RequestInfo {
    /// The path and query asked for (the sign-in link of a 404 page returns there).
    pub(crate) target: String,
    /// The reader presented live credentials (the footer says they are signed in).
    pub(crate) member: bool,
}

tokio::task_local! {
    /// Set by [`scope`] around the handler of each request.
    static REQUEST: RequestInfo;
}

/// Runs `f` (a request's handler) with `info` as its request's information.
pub(crate) async fn scope<F: Future>(info: RequestInfo, f: F) -> F::Output {
    REQUEST.scope(info, f).await
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
        let (href, member) = scope(info, async { (sign_in_href(), session_href()) }).await;
        assert_eq!(href, "/sign-in?next=%2Fdoc%2Fvault%3Fx%3D1");
        assert_eq!(member, Some(SIGN_IN_PATH));
    }
}

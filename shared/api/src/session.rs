//! Reader sessions of private documentation: a signed-in reader's browser holds a cookie that names a stored
//! session ([`specpress_domain::session::Session`]), sealed with the process key (the pagination cursors' key and
//! AEAD, [`crate::pagination`]).
//!
//! - The cookie carries the session's random id, encrypted and authenticated (XChaCha20-Poly1305 through
//!   [`specpress_pagination::CursorCodec`] under its own scope, so no cursor opens as a session nor the reverse), and
//!   its expiry, [`SESSION_HOURS`] after signing in. A reader can neither read nor forge nor extend it.
//! - Every request with the cookie reads the session, then looks its token's hash up as a token would be: signing
//!   out deletes the session, so a copy of the cookie opens nothing any more; a token rotated since (or revoked with
//!   its documentation or hub) no longer resolves, so its sessions end at once, everywhere.
//! - The cookie is `HttpOnly`, `SameSite=Lax`, `Path=/`, and `Secure` when the service is served over HTTPS.

use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use specpress_domain::session::SessionId;
use specpress_pagination::CursorCodec;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "specpress_session";
/// How long a session lasts after signing in.
pub const SESSION_HOURS: u64 = 12;
/// Longest cookie value accepted (a sealed id is about 100 characters).
const MAX_COOKIE_VALUE: usize = 512;
/// The associated data that binds a sealed value to this use (`v1` cookies named a token hash: they open no more).
const SCOPE: &str = "specpress-session-v2";

fn codec() -> &'static CursorCodec {
    static CODEC: OnceLock<CursorCodec> = OnceLock::new();
    CODEC.get_or_init(|| {
        crate::pagination::cursor_codec()
            .clone()
            .with_ttl(Duration::from_secs(SESSION_HOURS * 3_600))
    })
}

/// How long a session lasts.
pub fn session_life() -> time::Duration {
    time::Duration::hours(SESSION_HOURS as i64)
}

/// The cookie value naming session `id`, valid [`SESSION_HOURS`] from `now`.
pub fn seal(id: &SessionId, now: SystemTime) -> String {
    codec().encode(SCOPE, 0, id.as_bytes(), now)
}

/// The session a cookie value names, if it is one of ours and has not expired.
pub fn open(value: &str, now: SystemTime) -> Option<SessionId> {
    if value.is_empty() || value.len() > MAX_COOKIE_VALUE {
        return None;
    }
    let found = codec().decode(SCOPE, value, now).ok()?;
    SessionId::from_bytes(&found.position)
}

/// The session cookie's value in a request's `Cookie` headers, if any.
pub fn cookie_value(headers: &axum::http::HeaderMap) -> Option<&str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value.trim())
}

/// The `Set-Cookie` value that starts a session.
pub fn start_cookie(value: &str, secure: bool) -> String {
    format!(
        "{SESSION_COOKIE}={value}; Path=/; Max-Age={}; HttpOnly; SameSite=Lax{}",
        SESSION_HOURS * 3_600,
        if secure { "; Secure" } else { "" }
    )
}

/// The `Set-Cookie` value that ends a session (the browser drops the cookie).
pub fn end_cookie(secure: bool) -> String {
    format!(
        "{SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax{}",
        if secure { "; Secure" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, HeaderValue, header};

    fn now() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000)
    }

    #[test]
    fn a_sealed_session_opens_to_its_id_until_it_expires() {
        let id = SessionId::new();
        let value = seal(&id, now());
        assert!(!value.contains(&id.to_hex()), "the id is not readable");
        assert_eq!(open(&value, now()), Some(id));
        let almost = now() + Duration::from_secs(SESSION_HOURS * 3_600 - 1);
        assert_eq!(open(&value, almost), Some(id));
        let after = now() + Duration::from_secs(SESSION_HOURS * 3_600);
        assert_eq!(open(&value, after), None);
    }

    #[test]
    fn an_edited_or_foreign_value_opens_to_nothing() {
        let value = seal(&SessionId::new(), now());
        let mut edited = value.clone().into_bytes();
        let last = edited.len() - 1;
        edited[last] = if edited[last] == b'A' { b'B' } else { b'A' };
        assert_eq!(open(&String::from_utf8(edited).unwrap(), now()), None);
        // A pagination cursor is sealed with the same key but for another use: it is not a session.
        let cursor = crate::pagination::cursor_codec().encode("branches:x", 0, &[7u8; 16], now());
        assert_eq!(open(&cursor, now()), None);
        assert_eq!(open("", now()), None);
        assert_eq!(open(&"a".repeat(4000), now()), None);
    }

    #[test]
    fn the_cookie_is_found_among_others() {
        let mut h = HeaderMap::new();
        h.append(
            header::COOKIE,
            HeaderValue::from_static("a=1; specpress_session=abc ; b=2"),
        );
        assert_eq!(cookie_value(&h), Some("abc"));
        let mut h = HeaderMap::new();
        h.append(header::COOKIE, HeaderValue::from_static("a=1"));
        h.append(
            header::COOKIE,
            HeaderValue::from_static("specpress_session=xyz"),
        );
        assert_eq!(cookie_value(&h), Some("xyz"));
        assert_eq!(cookie_value(&HeaderMap::new()), None);
    }

    #[test]
    fn cookies_are_http_only_lax_and_secure_over_https() {
        let c = start_cookie("v", true);
        assert!(c.starts_with(
            "specpress_session=v; Path=/; Max-Age=43200; HttpOnly; SameSite=Lax; Secure"
        ));
        assert!(!start_cookie("v", false).contains("Secure"));
        assert!(end_cookie(false).contains("Max-Age=0"));
    }
}

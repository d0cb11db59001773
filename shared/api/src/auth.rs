//! Token authentication extractors.
//!
//! Accepted `Authorization` forms (bump-api.md §2): `Token <t>` (also `Token token="<t>"` and `Bearer <t>`), and the
//! deprecated Basic forms older clients send: `Basic base64(t)`, `Basic base64(t:)`, `Basic base64(:t)`.
//! Tokens are never logged.

use axum::extract::FromRequestParts;
use axum::http::HeaderMap;
use axum::http::request::Parts;
use base64::Engine as _;
use specpress_domain::DomainError;
use specpress_domain::token::{Principal, TokenHash};
use specpress_domain::usecases::auth::authenticate;

use crate::{ApiError, AppState};

/// The authenticated caller. Missing or invalid credentials: 401 `{message}`.
#[derive(Debug, Clone)]
pub struct Auth(pub Principal);

/// The authenticated caller and the hash of the token it presented (token rotation replaces that very token).
#[derive(Debug, Clone)]
pub struct AuthToken(pub Principal, pub TokenHash);

/// An optional caller (`POST /validations`): no header is fine, a wrong token is still 401.
#[derive(Debug, Clone)]
pub struct MaybeAuth(pub Option<Principal>);

/// Extracts the token text from the `Authorization` header, if any form matches.
pub fn presented_token(headers: &HeaderMap) -> Option<String> {
    let value = headers
        .get(axum::http::header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .trim();
    let (scheme, rest) = value.split_once(' ')?;
    let rest = rest.trim();
    if scheme.eq_ignore_ascii_case("token") || scheme.eq_ignore_ascii_case("bearer") {
        let t = rest
            .strip_prefix("token=")
            .map(|t| t.trim_matches('"'))
            .unwrap_or(rest);
        return (!t.is_empty()).then(|| t.to_owned());
    }
    if scheme.eq_ignore_ascii_case("basic") {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(rest)
            .ok()?;
        let text = String::from_utf8(decoded).ok()?;
        let t = match text.split_once(':') {
            Some((user, "")) => user,
            Some(("", pass)) => pass,
            Some((user, _)) => user,
            None => text.as_str(),
        };
        return (!t.is_empty()).then(|| t.to_owned());
    }
    None
}

impl FromRequestParts<AppState> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let token = presented_token(&parts.headers).ok_or(DomainError::Unauthorized)?;
        Ok(Auth(authenticate(state.store.as_ref(), &token).await?))
    }
}

impl FromRequestParts<AppState> for AuthToken {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let token = presented_token(&parts.headers).ok_or(DomainError::Unauthorized)?;
        let principal = authenticate(state.store.as_ref(), &token).await?;
        Ok(AuthToken(principal, TokenHash::of(&token)))
    }
}

impl FromRequestParts<AppState> for MaybeAuth {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        if parts
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .is_none()
        {
            return Ok(MaybeAuth(None));
        }
        Auth::from_request_parts(parts, state)
            .await
            .map(|a| MaybeAuth(Some(a.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(v: &str) -> HeaderMap {
        let mut m = HeaderMap::new();
        m.insert(axum::http::header::AUTHORIZATION, v.parse().unwrap());
        m
    }

    fn b64(s: &str) -> String {
        base64::engine::general_purpose::STANDARD.encode(s)
    }

    #[test]
    fn every_documented_header_form_yields_the_token() {
        let t = "sp_doc_abc";
        for header in [
            format!("Token {t}"),
            format!("token {t}"),
            format!("Token token=\"{t}\""),
            format!("Bearer {t}"),
            format!("Basic {}", b64(t)),
            format!("Basic {}", b64(&format!("{t}:"))),
            format!("Basic {}", b64(&format!(":{t}"))),
        ] {
            assert_eq!(presented_token(&h(&header)).as_deref(), Some(t), "{header}");
        }
    }

    #[test]
    fn malformed_headers_yield_nothing() {
        for header in [
            "Token",
            "Token ",
            "Basic !!!",
            "Basic ",
            &format!("Basic {}", b64(":")),
            "Digest x",
        ] {
            assert_eq!(presented_token(&h(header)), None, "{header}");
        }
        assert_eq!(presented_token(&HeaderMap::new()), None);
    }
}

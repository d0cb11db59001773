//! Token authentication extractors, and the failed-credential limit every route that checks a credential shares.
//!
//! Accepted `Authorization` forms (bump-api.md §2): `Token <t>` (also `Token token="<t>"` and `Bearer <t>`), and the
//! deprecated Basic forms older clients send: `Basic base64(t)`, `Basic base64(t:)`, `Basic base64(:t)`.
//! Tokens are never logged.
//!
//! # The failed-credential limit ([`CredentialLimit`], docs/auth.md)
//!
//! Each client (`limit::client_of`: an IPv4 address, an IPv6 /64) has a budget of failed credential checks
//! (`SPECPRESS_AUTH_FAILURE_*`, `AppState::auth_failures`). A check that fails spends one; once the budget is
//! spent, a credential is refused with 429 and `Retry-After` *before* it is looked up or compared, so a right
//! guess cannot be told from a wrong one and guessing stops being answered.
//!
//! "Checked before any lookup" and "a valid token is never locked out by others behind the same address" pull
//! against each other: any check that tells a valid credential apart while the client is over budget answers a
//! guesser too. The way out is the token format: a token Specpress minted carries about 190 random bits and a
//! checksum ([`check_format`]), so guessing one is hopeless at any rate. A **well-formed minted token is never
//! refused by the limit and never spends it** (its format is checked locally, no lookup); what the limit protects
//! is every credential that could be guessed: an operator-chosen `SPECPRESS_ORG_TOKEN` (20 characters may be
//! short), anything not in the minted format. The consequence, documented: such a configured organization token is
//! refused, like any guess, while its client is over budget, so behind an address shared with a guesser it waits
//! for the budget to refill; a minted token never does.

use std::time::Duration;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{Extensions, HeaderMap, header};
use base64::Engine as _;
use specpress_domain::DomainError;
use specpress_domain::token::{Principal, TokenHash, check_format};
use specpress_domain::usecases::auth::authenticate;

use crate::limit::{RateLimiter, client_of};
use crate::{ApiError, AppState};

/// Whether the failed-credential limit lets `credential` alone whatever the client's budget: a token in the format
/// Specpress mints (its checksum right), which cannot be guessed at any rate. `None` (a credential that is not a
/// token: an `Authorization` header that does not parse, a session cookie) is never exempt.
pub fn exempt_from_limit(credential: Option<&str>) -> bool {
    credential.is_some_and(|t| check_format(t).is_some())
}

/// The failed-credential limit as one request meets it (see the module documentation).
#[derive(Debug)]
pub struct CredentialLimit<'a> {
    limiter: Option<&'a RateLimiter>,
    client: String,
}

impl<'a> CredentialLimit<'a> {
    /// The limit of the request whose extensions are `extensions` (its client), under `limiter` (`None`: no limit).
    pub fn new(limiter: Option<&'a RateLimiter>, extensions: &Extensions) -> Self {
        CredentialLimit {
            limiter,
            client: client_of(extensions),
        }
    }

    /// The limit of a request under the process's budget (`AppState::auth_failures`).
    pub fn of(state: &'a AppState, extensions: &Extensions) -> Self {
        Self::new(state.auth_failures.as_deref(), extensions)
    }

    /// Before `credential` is looked up or compared: `Err(retry_after)` when the client's budget is spent, unless
    /// the credential is exempt ([`exempt_from_limit`]). Takes nothing.
    pub fn admit(&self, credential: Option<&str>) -> Result<(), Duration> {
        match self.limiter {
            Some(l) if !exempt_from_limit(credential) => l.peek(&self.client),
            _ => Ok(()),
        }
    }

    /// `credential` did not open anything: one failure spent from the client's budget (none for an exempt one).
    pub fn failed(&self, credential: Option<&str>) {
        if let Some(l) = self.limiter
            && !exempt_from_limit(credential)
        {
            // A client that spent the last of its budget meanwhile was already answered: its next one is refused.
            let _ = l.check(&self.client);
        }
    }
}

/// The principal of the request's token, under the failed-credential limit: 401 without a token or with one that
/// is not live, 429 (`ApiError::TooManyFailures`) when the client's budget is spent and the token may be guessed.
async fn principal_of(parts: &Parts, state: &AppState) -> Result<(Principal, String), ApiError> {
    let presented = parts.headers.contains_key(header::AUTHORIZATION);
    if !presented {
        return Err(DomainError::Unauthorized.into());
    }
    let limit = CredentialLimit::of(state, &parts.extensions);
    let token = presented_token(&parts.headers);
    limit
        .admit(token.as_deref())
        .map_err(ApiError::TooManyFailures)?;
    let Some(token) = token else {
        limit.failed(None);
        return Err(DomainError::Unauthorized.into());
    };
    match authenticate(state.store.as_ref(), &token).await {
        Ok(p) => Ok((p, token)),
        Err(DomainError::Unauthorized) => {
            limit.failed(Some(&token));
            Err(DomainError::Unauthorized.into())
        }
        Err(e) => Err(e.into()),
    }
}

/// The authenticated caller. Missing or invalid credentials: 401 `{message}`.
#[derive(Debug, Clone)]
pub struct Auth(pub Principal);

/// The authenticated caller and the hash of the token it presented (token rotation replaces that very token).
#[derive(Debug, Clone)]
pub struct AuthToken(pub Principal, pub TokenHash);

/// An optional caller (`POST /validations`): no header is fine (nor a reader token: as no token), a wrong token is
/// still 401.
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
        let (principal, _) = principal_of(parts, state).await?;
        Ok(Auth(principal))
    }
}

impl FromRequestParts<AppState> for AuthToken {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let (principal, token) = principal_of(parts, state).await?;
        Ok(AuthToken(principal, TokenHash::of(&token)))
    }
}

impl FromRequestParts<AppState> for MaybeAuth {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        if parts.headers.get(header::AUTHORIZATION).is_none() {
            return Ok(MaybeAuth(None));
        }
        // A reader token (issue 40) is no API token: here, as everywhere in the API, it is answered as no token.
        if presented_token(&parts.headers)
            .is_some_and(|t| check_format(&t) == Some(specpress_domain::token::TokenKind::Read))
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
        m.insert(header::AUTHORIZATION, v.parse().unwrap());
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

    #[test]
    fn only_a_well_formed_minted_token_is_exempt_from_the_failure_limit() {
        let minted = specpress_domain::token::mint(specpress_domain::token::TokenKind::Org).secret;
        assert!(exempt_from_limit(Some(&minted)));
        let mut typo = minted.clone();
        typo.pop();
        typo.push(if minted.ends_with('a') { 'b' } else { 'a' });
        for guessable in [
            Some("short-organization-token-0001"),
            Some(typo.as_str()),
            Some("sp_org_short"),
            None,
        ] {
            assert!(!exempt_from_limit(guessable), "{guessable:?}");
        }
    }

    #[test]
    fn an_exhausted_budget_refuses_guessable_credentials_before_any_check_but_never_a_minted_token()
    {
        // GIVEN a budget of 2 failures, both spent by one client
        let limiter = RateLimiter::new(1, 2).expect("enabled");
        let ext = Extensions::new();
        let limit = CredentialLimit::new(Some(&limiter), &ext);
        let minted = specpress_domain::token::mint(specpress_domain::token::TokenKind::Doc).secret;
        for _ in 0..2 {
            assert!(limit.admit(Some("guess-0000000000000000")).is_ok());
            limit.failed(Some("guess-0000000000000000"));
        }
        // WHEN it presents more
        // THEN a guessable credential is refused before anything is looked at, a minted token is let through
        assert!(
            limit
                .admit(Some("organization-token-chosen-by-op"))
                .is_err()
        );
        assert!(limit.admit(None).is_err());
        assert!(limit.admit(Some(&minted)).is_ok());
        // AND a minted token that fails spends nothing
        let fresh = RateLimiter::new(1, 1).expect("enabled");
        let fresh_limit = CredentialLimit::new(Some(&fresh), &ext);
        fresh_limit.failed(Some(&minted));
        assert!(fresh_limit.admit(Some("guess-0000000000000000")).is_ok());
    }
}

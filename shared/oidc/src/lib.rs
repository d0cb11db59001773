//! Sign-in with an organization's OpenID provider (issue 40): the relying party, on the `openidconnect` crate, with
//! every request through `shared/fetch` ([`http`]). It implements the domain's
//! [`IdentityProvider`](specpress_domain::ports::IdentityProvider) port.
//!
//! - **Discovery**: `{issuer}/.well-known/openid-configuration` and the provider's keys (JWKS); the document must
//!   name exactly the configured issuer. Kept per issuer for [`METADATA_LIFE`].
//! - **Authorization URL**: the authorization code flow with PKCE (S256), a random `state` and `nonce`
//!   ([`LoginSecrets`], which the caller keeps for the callback); scopes `openid email`, and the scope named like
//!   the groups claim when the provider lists it.
//! - **Code exchange and ID token**: the token endpoint (client secret, basic authentication) with the PKCE
//!   verifier; the ID token's signature through the provider's keys (the algorithms its metadata lists), `iss`
//!   equal to the issuer, `aud` holding the client id and no untrusted other audience, `exp` and `iat` within
//!   [`CLOCK_SKEW`], the `nonce` of this sign-in. An ID token signed with a key the cached keys do not hold has the
//!   keys fetched again once (the provider rotated them) before it is refused.
//! - **Identity**: `sub`, `email` and `email_verified` (false when absent), and the groups claim read from the
//!   verified token. The domain decides who may read ([`specpress_domain::sso::SsoSettings::admit`]).
//!
//! An `http` issuer reaches the provider only on loopback and only when the client's policy allows loopback
//! (`SPECPRESS_ALLOW_LOOPBACK_URLS=true`, never on Lambda); the domain refuses such an issuer otherwise.

mod http;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use openidconnect::core::{
    CoreAuthenticationFlow, CoreClient, CoreIdToken, CoreJsonWebKeySet, CoreProviderMetadata,
};
use openidconnect::{
    AuthorizationCode, ClaimsVerificationError, ClientId, ClientSecret, CsrfToken, IssuerUrl,
    Nonce, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, RequestTokenError, Scope,
    SignatureVerificationError, TokenResponse as _,
};
use specpress_domain::DomainError;
use specpress_domain::ports::IdentityProvider;
use specpress_domain::sso::{Identity, LoginSecrets, ProviderConfig};
use specpress_fetch::{FetchPolicy, SafeClient};

use crate::http::FetchHttp;

/// How long a provider's discovery document and keys are reused.
pub const METADATA_LIFE: Duration = Duration::from_secs(3600);
/// Clock difference tolerated on `exp` and `iat`.
pub const CLOCK_SKEW: Duration = Duration::from_secs(60);
/// Most providers kept in memory at once.
const MAX_CACHED_PROVIDERS: usize = 256;
/// Most groups read from a token, and longest group kept.
const MAX_GROUPS: usize = 200;
const GROUP_MAX: usize = 256;

/// Why a sign-in step failed.
#[derive(Debug, thiserror::Error)]
pub enum OidcError {
    /// The provider could not be reached or answered something unusable (discovery, keys, token endpoint).
    #[error("the identity provider could not be used: {0}")]
    Provider(String),
    /// The provider refused the code, or the ID token failed a check.
    #[error("the sign-in was refused: {0}")]
    Refused(String),
    /// The configuration cannot work (an issuer or redirect URL that is not a URL).
    #[error("the identity provider settings are not usable: {0}")]
    Config(String),
}

impl From<OidcError> for DomainError {
    fn from(e: OidcError) -> Self {
        match e {
            OidcError::Refused(why) => {
                tracing::info!(reason = %why, "ID token or code refused");
                DomainError::Unauthorized
            }
            other => DomainError::unexpected(other),
        }
    }
}

struct Cached {
    metadata: Arc<CoreProviderMetadata>,
    fetched: Instant,
}

/// The relying party. Build it once per process; cheap to share.
pub struct OidcClient {
    http: FetchHttp,
    providers: Mutex<HashMap<String, Cached>>,
    skew: Duration,
}

impl std::fmt::Debug for OidcClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OidcClient")
            .field("skew", &self.skew)
            .finish_non_exhaustive()
    }
}

/// The fetch policy for providers: no redirects, small answers, 10 s per exchange; loopback as the caller says.
pub fn provider_policy(allow_loopback: bool) -> FetchPolicy {
    FetchPolicy {
        allow_loopback,
        max_redirects: 0,
        max_body_bytes: 1024 * 1024,
        ..FetchPolicy::default()
    }
}

impl OidcClient {
    /// A relying party over its own hardened client ([`provider_policy`]).
    pub fn new(allow_loopback: bool) -> Result<Self, OidcError> {
        let client = SafeClient::new(provider_policy(allow_loopback))
            .map_err(|e| OidcError::Config(e.to_string()))?;
        Ok(Self::with_client(client))
    }

    /// A relying party over a given client (tests choose its resolver).
    pub fn with_client(client: SafeClient) -> Self {
        OidcClient {
            http: FetchHttp(client),
            providers: Mutex::new(HashMap::new()),
            skew: CLOCK_SKEW,
        }
    }

    /// The provider's metadata and keys: from memory while fresh, else discovered.
    async fn metadata(&self, issuer: &str) -> Result<Arc<CoreProviderMetadata>, OidcError> {
        if let Some(c) = self.lock().get(issuer)
            && c.fetched.elapsed() < METADATA_LIFE
        {
            return Ok(Arc::clone(&c.metadata));
        }
        let url =
            IssuerUrl::new(issuer.to_owned()).map_err(|e| OidcError::Config(e.to_string()))?;
        let metadata = CoreProviderMetadata::discover_async(url, &self.http)
            .await
            .map_err(|e| OidcError::Provider(format!("discovery failed: {}", chain(&e))))?;
        Ok(self.remember(issuer, metadata))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Cached>> {
        self.providers.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn remember(&self, issuer: &str, metadata: CoreProviderMetadata) -> Arc<CoreProviderMetadata> {
        let metadata = Arc::new(metadata);
        let mut cache = self.lock();
        if cache.len() >= MAX_CACHED_PROVIDERS
            && !cache.contains_key(issuer)
            && let Some(oldest) = cache
                .iter()
                .min_by_key(|(_, c)| c.fetched)
                .map(|(k, _)| k.clone())
        {
            cache.remove(&oldest);
        }
        cache.insert(
            issuer.to_owned(),
            Cached {
                metadata: Arc::clone(&metadata),
                fetched: Instant::now(),
            },
        );
        metadata
    }

    /// The provider's keys fetched again (it rotated them), remembered with its metadata.
    async fn refresh_keys(
        &self,
        issuer: &str,
        metadata: &CoreProviderMetadata,
    ) -> Result<Arc<CoreProviderMetadata>, OidcError> {
        let keys = CoreJsonWebKeySet::fetch_async(metadata.jwks_uri(), &self.http)
            .await
            .map_err(|e| {
                OidcError::Provider(format!(
                    "fetching the provider's keys failed: {}",
                    chain(&e)
                ))
            })?;
        Ok(self.remember(issuer, metadata.clone().set_jwks(keys)))
    }

    fn client(
        metadata: &CoreProviderMetadata,
        config: &ProviderConfig,
        redirect_uri: &str,
    ) -> Result<
        CoreClient<
            openidconnect::EndpointSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointMaybeSet,
            openidconnect::EndpointMaybeSet,
        >,
        OidcError,
    > {
        let redirect = RedirectUrl::new(redirect_uri.to_owned())
            .map_err(|e| OidcError::Config(e.to_string()))?;
        Ok(CoreClient::from_provider_metadata(
            metadata.clone(),
            ClientId::new(config.client_id.clone()),
            Some(ClientSecret::new(config.client_secret.expose().to_owned())),
        )
        .set_redirect_uri(redirect))
    }

    /// The authorization URL of a new sign-in returning to `redirect_uri`, and its secrets.
    pub async fn authorization(
        &self,
        config: &ProviderConfig,
        redirect_uri: &str,
    ) -> Result<(String, LoginSecrets), OidcError> {
        let metadata = self.metadata(&config.issuer).await?;
        let client = Self::client(&metadata, config, redirect_uri)?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .add_scope(Scope::new("email".into()))
            .set_pkce_challenge(challenge);
        if let Some(claim) = &config.groups_claim {
            let listed = metadata
                .scopes_supported()
                .is_some_and(|s| s.iter().any(|x| x.as_str() == claim));
            if listed {
                request = request.add_scope(Scope::new(claim.clone()));
            }
        }
        let (url, state, nonce) = request.url();
        Ok((
            url.to_string(),
            LoginSecrets {
                state: state.secret().clone(),
                nonce: nonce.secret().clone(),
                pkce_verifier: verifier.secret().clone(),
            },
        ))
    }

    /// Exchanges `code` (with the sign-in's PKCE verifier) and verifies the ID token; the identity it vouches for.
    pub async fn identity(
        &self,
        config: &ProviderConfig,
        redirect_uri: &str,
        secrets: &LoginSecrets,
        code: &str,
    ) -> Result<Identity, OidcError> {
        let metadata = self.metadata(&config.issuer).await?;
        let client = Self::client(&metadata, config, redirect_uri)?;
        let response = client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|e| OidcError::Provider(format!("the provider has no token endpoint: {e}")))?
            .set_pkce_verifier(PkceCodeVerifier::new(secrets.pkce_verifier.clone()))
            .request_async(&self.http)
            .await
            .map_err(|e| match e {
                RequestTokenError::ServerResponse(r) => OidcError::Refused(format!(
                    "the token endpoint refused the code: {}",
                    r.error()
                )),
                other => OidcError::Provider(format!("token endpoint: {}", chain(&other))),
            })?;
        let id_token = response
            .id_token()
            .ok_or_else(|| OidcError::Refused("the token endpoint returned no ID token".into()))?;
        let nonce = Nonce::new(secrets.nonce.clone());
        let claims = match self.verify(&metadata, config, redirect_uri, id_token, &nonce) {
            Err(ClaimsVerificationError::SignatureVerification(
                SignatureVerificationError::NoMatchingKey,
            )) => {
                let fresh = self.refresh_keys(&config.issuer, &metadata).await?;
                self.verify(&fresh, config, redirect_uri, id_token, &nonce)
            }
            other => other,
        }
        .map_err(|e| OidcError::Refused(format!("ID token: {}", chain(&e))))?;
        Ok(Identity {
            subject: claims.subject.clone(),
            email: claims.email.clone(),
            email_verified: claims.email_verified,
            groups: match &config.groups_claim {
                Some(claim) => groups_of(id_token, claim),
                None => Vec::new(),
            },
        })
    }

    fn verify(
        &self,
        metadata: &CoreProviderMetadata,
        config: &ProviderConfig,
        redirect_uri: &str,
        id_token: &CoreIdToken,
        nonce: &Nonce,
    ) -> Result<Verified, ClaimsVerificationError> {
        let client = Self::client(metadata, config, redirect_uri)
            .map_err(|e| ClaimsVerificationError::Other(e.to_string()))?;
        let skew = chrono_duration(self.skew);
        let verifier = client
            .id_token_verifier()
            // `exp` is compared with a clock `skew` behind; `iat` may be at most `skew` ahead.
            .set_time_fn(move || chrono::Utc::now() - skew)
            .set_issue_time_verifier_fn(move |iat| {
                if iat > chrono::Utc::now() + skew {
                    Err(format!("issued in the future ({iat})"))
                } else {
                    Ok(())
                }
            });
        let claims = id_token.claims(&verifier, nonce)?;
        Ok(Verified {
            subject: claims.subject().as_str().to_owned(),
            email: claims.email().map(|e| e.as_str().to_owned()),
            email_verified: claims.email_verified().unwrap_or(false),
        })
    }
}

/// What a verified ID token says of its subject.
struct Verified {
    subject: String,
    email: Option<String>,
    email_verified: bool,
}

/// An error with its sources, for the log (fetch errors never carry a URL's query, a header or a body).
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

fn chrono_duration(d: Duration) -> chrono::Duration {
    chrono::Duration::from_std(d).unwrap_or_else(|_| chrono::Duration::seconds(60))
}

/// The groups a verified ID token lists under `claim` (an array of strings, or one string); anything else is no
/// group. Read from the token's own payload, whose signature was just verified.
fn groups_of(id_token: &CoreIdToken, claim: &str) -> Vec<String> {
    use base64::Engine as _;
    let compact = id_token.to_string();
    let Some(payload) = compact.split('.').nth(1) else {
        return Vec::new();
    };
    let Ok(bytes) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload) else {
        return Vec::new();
    };
    let Ok(serde_json::Value::Object(map)) = serde_json::from_slice::<serde_json::Value>(&bytes)
    else {
        return Vec::new();
    };
    let keep = |s: &str| (!s.is_empty() && s.len() <= GROUP_MAX).then(|| s.to_owned());
    match map.get(claim) {
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(|v| v.as_str().and_then(keep))
            .take(MAX_GROUPS)
            .collect(),
        Some(serde_json::Value::String(s)) => keep(s).into_iter().collect(),
        _ => Vec::new(),
    }
}

#[async_trait]
impl IdentityProvider for OidcClient {
    async fn authorization_url(
        &self,
        config: &ProviderConfig,
        redirect_uri: &str,
    ) -> specpress_domain::Result<(String, LoginSecrets)> {
        Ok(self.authorization(config, redirect_uri).await?)
    }

    async fn identity(
        &self,
        config: &ProviderConfig,
        redirect_uri: &str,
        secrets: &LoginSecrets,
        code: &str,
    ) -> specpress_domain::Result<Identity> {
        Ok(OidcClient::identity(self, config, redirect_uri, secrets, code).await?)
    }
}

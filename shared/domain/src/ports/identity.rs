//! An OpenID provider, as the sign-in use cases need it (the adapter: `specpress-oidc`).

use async_trait::async_trait;

use crate::error::Result;
use crate::sso::{Identity, LoginSecrets, ProviderConfig};

/// The authorization code flow with PKCE (S256), `state` and `nonce`, against the provider `config` names.
#[async_trait]
pub trait IdentityProvider: Send + Sync {
    /// The provider's authorization URL for a new sign-in returning to `redirect_uri`, and the sign-in's secrets.
    /// `Unexpected` when the provider cannot be discovered.
    async fn authorization_url(
        &self,
        config: &ProviderConfig,
        redirect_uri: &str,
    ) -> Result<(String, LoginSecrets)>;
    /// Exchanges `code` and verifies the ID token (issuer, audience, expiry, signature through the provider's keys,
    /// nonce). `Unauthorized` when the provider refuses the code or the token fails any check; `Unexpected` when
    /// the provider cannot be reached.
    async fn identity(
        &self,
        config: &ProviderConfig,
        redirect_uri: &str,
        secrets: &LoginSecrets,
        code: &str,
    ) -> Result<Identity>;
}

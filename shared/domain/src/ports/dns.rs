//! DNS TXT lookups (hostname verification; the adapter: `specpress-dns`).

use async_trait::async_trait;

/// A lookup that got no answer (timeout, server failure, refused): what happened, for the owner's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LookupFailed(pub String);

/// Looks TXT records up.
#[async_trait]
pub trait TxtResolver: Send + Sync {
    /// The TXT records at `name`, each record's character strings joined; empty when the name has none (no such
    /// name, or no TXT record there).
    async fn txt_records(&self, name: &str) -> Result<Vec<String>, LookupFailed>;
}

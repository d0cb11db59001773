//! Downloading a definition by URL (public diffs by URL), through the hardened HTTP client.

use async_trait::async_trait;

use crate::error::Result;

/// Downloads a definition for URL comparisons through the hardened HTTP client.
#[async_trait]
pub trait DocumentFetcher: Send + Sync {
    /// The body of `url`. A refused or failed download is `Invalid` on `field` with a message that says why
    /// without internal detail.
    async fn fetch(&self, field: &str, url: &str) -> Result<String>;
}

//! [`DocumentFetcher`] over the hardened `specpress-fetch` client.

use async_trait::async_trait;
use specpress_domain::ports::DocumentFetcher;
use specpress_domain::{DomainError, Result};
use specpress_fetch::{FetchPolicy, SafeClient};

/// Downloads definitions with the SSRF-safe client (http/https only, public addresses only unless loopback is
/// explicitly allowed, 3 s connect, 10 s total, 5 MiB decompressed body, at most 3 re-checked redirects).
#[derive(Debug, Clone)]
pub struct SafeFetcher {
    client: SafeClient,
}

impl SafeFetcher {
    /// Builds the client once per process.
    pub fn new(policy: FetchPolicy) -> std::result::Result<Self, specpress_fetch::FetchError> {
        Ok(SafeFetcher {
            client: SafeClient::new(policy)?,
        })
    }

    /// Wraps an existing client (tests with a custom resolver).
    pub fn from_client(client: SafeClient) -> Self {
        SafeFetcher { client }
    }
}

#[async_trait]
impl DocumentFetcher for SafeFetcher {
    async fn fetch(&self, field: &str, url: &str) -> Result<String> {
        let refused = |e: specpress_fetch::FetchError| {
            // The detail (resolved addresses, library errors) goes to the log only.
            tracing::info!(field, detail = %e.detail(), "URL download refused or failed");
            DomainError::invalid(
                field,
                format!("{field} cannot be downloaded: {}", e.user_message()),
            )
        };
        let body = self
            .client
            .get(url)
            .await
            .and_then(|b| b.error_for_status())
            .map_err(refused)?;
        String::from_utf8(body.bytes.to_vec())
            .map_err(|_| DomainError::invalid(field, format!("{field} did not return UTF-8 text")))
    }
}

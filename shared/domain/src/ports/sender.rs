//! Outbound HTTP for webhook deliveries (the hardened client in production).

use async_trait::async_trait;

/// The result of one HTTP POST to a subscriber.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PostOutcome {
    /// An HTTP response.
    Response {
        /// Status code.
        status: u16,
        /// Raw `Retry-After` header.
        retry_after: Option<String>,
        /// First bytes of the body, lossy UTF-8.
        body_excerpt: String,
    },
    /// The 15 s budget ran out.
    Timeout,
    /// No response: DNS, connect, TLS, refused address. A user-safe description.
    Failed(String),
}

/// Outbound HTTP for webhooks (the hardened client in production).
#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// Checks a subscriber URL (scheme, public address); the error is a user-safe sentence.
    async fn check_url(&self, url: &str) -> std::result::Result<(), String>;
    /// POSTs `body` with `headers` to `url`: no redirects followed, 15 s timeout.
    async fn post(&self, url: &str, headers: &[(String, String)], body: &[u8]) -> PostOutcome;
}

//! [`FetchSender`]: the [`WebhookSender`] port over the hardened HTTP client (`specpress-fetch`): public
//! addresses only (loopback only with `SPECPRESS_ALLOW_LOOPBACK_URLS=true`), no redirects, no environment
//! proxies, 15 s per attempt, 2 KB of the response kept.

use std::time::Duration;

use async_trait::async_trait;
use http::{HeaderMap, HeaderName, HeaderValue};
use specpress_domain::ports::{PostOutcome, WebhookSender};
use specpress_fetch::{FetchError, FetchPolicy, SafeClient};

/// The request timeout of one delivery attempt.
pub const DELIVERY_TIMEOUT: Duration = Duration::from_secs(15);

/// Posts webhooks through the hardened client. Cheap to clone.
#[derive(Clone, Debug)]
pub struct FetchSender {
    client: SafeClient,
    timeout: Duration,
}

impl FetchSender {
    /// A sender with the webhook policy (15 s, no redirects); `allow_loopback` for local development and tests.
    pub fn new(allow_loopback: bool) -> Result<Self, FetchError> {
        let policy = FetchPolicy {
            allow_loopback,
            ..FetchPolicy::webhook()
        };
        Ok(FetchSender {
            client: SafeClient::new(policy)?,
            timeout: DELIVERY_TIMEOUT,
        })
    }

    /// Overrides the per-attempt timeout (tests).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

#[async_trait]
impl WebhookSender for FetchSender {
    async fn check_url(&self, url: &str) -> Result<(), String> {
        self.client
            .check_url_resolved(url)
            .await
            .map(|_| ())
            .map_err(|e| {
                tracing::info!(detail = %e.detail(), "subscriber URL refused");
                e.user_message()
            })
    }

    async fn post(&self, url: &str, headers: &[(String, String)], body: &[u8]) -> PostOutcome {
        let mut map = HeaderMap::new();
        for (k, v) in headers {
            if let (Ok(k), Ok(v)) = (
                HeaderName::try_from(k.as_str()),
                HeaderValue::try_from(v.as_str()),
            ) {
                map.insert(k, v);
            }
        }
        match self
            .client
            .post_json(url, &map, body.to_vec(), self.timeout)
            .await
        {
            Ok(o) => PostOutcome::Response {
                status: o.status.as_u16(),
                retry_after: o
                    .headers
                    .get(http::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned),
                body_excerpt: String::from_utf8_lossy(&o.body_prefix).into_owned(),
            },
            Err(e) if e.is_timeout() => PostOutcome::Timeout,
            Err(e) => {
                tracing::info!(detail = %e.detail(), "webhook attempt failed without a response");
                PostOutcome::Failed(e.user_message())
            }
        }
    }
}

//! Per-client rate limit for the unauthenticated diff endpoints: a token bucket per client address.
//!
//! In `specpress serve` the client is the TCP peer address (`ConnectInfo`); behind API Gateway it is the request
//! context's `sourceIp`; otherwise every caller shares one bucket. The bucket map is bounded: when it grows past
//! [`MAX_CLIENTS`], buckets that have refilled completely (idle clients) are dropped first. API Gateway throttling
//! (template.yaml) is the stage-wide ceiling in AWS; this limiter is the per-client one.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use lambda_http::RequestExt;
use lambda_http::request::RequestContext;

/// Most clients tracked at once.
pub const MAX_CLIENTS: usize = 10_000;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    last: Instant,
}

/// A token bucket per client: `burst` requests at once, refilled at `per_minute` per minute.
#[derive(Debug)]
pub struct RateLimiter {
    per_minute: u32,
    burst: u32,
    buckets: Mutex<HashMap<String, Bucket>>,
}

impl RateLimiter {
    /// A limiter; `None` when `per_minute` is 0 (disabled).
    pub fn new(per_minute: u32, burst: u32) -> Option<Arc<Self>> {
        (per_minute > 0).then(|| {
            Arc::new(RateLimiter {
                per_minute,
                burst: burst.max(1),
                buckets: Mutex::default(),
            })
        })
    }

    fn rate_per_sec(&self) -> f64 {
        f64::from(self.per_minute) / 60.0
    }

    /// Takes one token for `client` at `now`; `Err(retry_after)` when the bucket is empty.
    pub fn check(&self, client: &str, now: Instant) -> Result<(), Duration> {
        let mut buckets = match self.buckets.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let burst = f64::from(self.burst);
        let rate = self.rate_per_sec();
        if buckets.len() >= MAX_CLIENTS && !buckets.contains_key(client) {
            buckets.retain(|_, b| {
                b.tokens + now.saturating_duration_since(b.last).as_secs_f64() * rate < burst
            });
            if buckets.len() >= MAX_CLIENTS {
                // Still full of active clients: drop the stalest half rather than grow without bound.
                let mut ages: Vec<(String, Instant)> =
                    buckets.iter().map(|(k, b)| (k.clone(), b.last)).collect();
                ages.sort_by_key(|(_, t)| *t);
                for (k, _) in ages.into_iter().take(MAX_CLIENTS / 2) {
                    buckets.remove(&k);
                }
            }
        }
        let b = buckets.entry(client.to_owned()).or_insert(Bucket {
            tokens: burst,
            last: now,
        });
        let elapsed = now.saturating_duration_since(b.last).as_secs_f64();
        b.tokens = (b.tokens + elapsed * rate).min(burst);
        b.last = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64(((1.0 - b.tokens) / rate).max(0.0)))
        }
    }
}

/// The client address of a request, as well as the runtime knows it.
pub fn client_key(req: &Request) -> String {
    if let Some(ConnectInfo(addr)) = req.extensions().get::<ConnectInfo<SocketAddr>>() {
        return addr.ip().to_string();
    }
    match req.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(c)) => c.http.source_ip.clone().unwrap_or_default(),
        Some(RequestContext::ApiGatewayV1(c)) => c.identity.source_ip.clone().unwrap_or_default(),
        _ => String::new(),
    }
}

/// Middleware: 429 `{message}` with `Retry-After` when the client's bucket is empty.
pub async fn rate_limit(
    State(limiter): State<Arc<RateLimiter>>,
    req: Request,
    next: Next,
) -> Response {
    let key = client_key(&req);
    match limiter.check(&key, Instant::now()) {
        Ok(()) => next.run(req).await,
        Err(retry) => {
            let secs = retry.as_secs().max(1);
            let mut resp = (
                StatusCode::TOO_MANY_REQUESTS,
                axum::Json(serde_json::json!({
                    "message": format!("Too many diff requests from this client; retry in {secs} s")
                })),
            )
                .into_response();
            if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
                resp.headers_mut().insert(header::RETRY_AFTER, v);
            }
            resp
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_refill_at_the_configured_rate() {
        let l = RateLimiter::new(60, 3).expect("enabled");
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(l.check("a", t0).is_ok());
        }
        let retry = l.check("a", t0).expect_err("bucket empty");
        assert!(
            retry <= Duration::from_secs(1) && retry > Duration::from_millis(900),
            "{retry:?}"
        );
        assert!(
            l.check("b", t0).is_ok(),
            "other clients have their own bucket"
        );
        assert!(
            l.check("a", t0 + Duration::from_millis(1010)).is_ok(),
            "one token per second"
        );
        assert!(l.check("a", t0 + Duration::from_millis(1020)).is_err());
    }

    #[test]
    fn zero_rate_disables_the_limiter() {
        assert!(RateLimiter::new(0, 10).is_none());
    }

    #[test]
    fn the_bucket_map_stays_bounded() {
        let l = RateLimiter::new(60, 1).expect("enabled");
        let t0 = Instant::now();
        for i in 0..(MAX_CLIENTS + 10) {
            let _ = l.check(&format!("c{i}"), t0);
        }
        let len = l.buckets.lock().map(|b| b.len()).unwrap_or(0);
        assert!(len <= MAX_CLIENTS, "{len}");
    }
}

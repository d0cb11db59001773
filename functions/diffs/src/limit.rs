//! Per-client rate limit for the unauthenticated diff endpoints, with `governor`'s keyed GCRA limiter (a token
//! bucket without the bucket: one timestamp per client, updated with a compare-and-swap).
//!
//! In `specpress serve` the client is the TCP peer address (`ConnectInfo`); behind API Gateway it is the request
//! context's `sourceIp`; otherwise every caller shares one bucket. The map of clients is bounded: when it reaches
//! [`MAX_CLIENTS`], clients whose bucket has refilled completely (idle ones) are dropped; if it is still full, every
//! bucket starts over full, since that many clients active at once on one instance have defeated a per-client
//! limit anyway. API Gateway throttling (template.yaml) is the stage-wide ceiling in AWS; this limiter is the
//! per-client one.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::DashMapStateStore;
use governor::{Quota, RateLimiter as Gcra};
use lambda_http::RequestExt;
use lambda_http::request::RequestContext;

/// Most clients tracked at once (give or take [`SIZE_CHECK_EVERY`]).
pub const MAX_CLIENTS: usize = 10_000;

/// Counting the clients visits every shard of the map, so it is done once every this many checks.
pub const SIZE_CHECK_EVERY: u32 = 256;

type Keyed<C> = Gcra<String, DashMapStateStore<String>, C, NoOpMiddleware<<C as Clock>::Instant>>;

/// A bucket per client: `burst` requests at once, refilled at `per_minute` per minute.
#[derive(Debug)]
pub struct RateLimiter<C: Clock = DefaultClock> {
    quota: Quota,
    clock: C,
    /// Replaced by an empty one, under the write lock, only when it is full of active clients.
    gcra: RwLock<Keyed<C>>,
    checks: AtomicU32,
}

impl RateLimiter {
    /// A limiter; `None` when `per_minute` is 0 (disabled).
    pub fn new(per_minute: u32, burst: u32) -> Option<Arc<Self>> {
        Self::with_clock(per_minute, burst, DefaultClock::default()).map(Arc::new)
    }
}

impl<C: Clock + Clone> RateLimiter<C> {
    fn with_clock(per_minute: u32, burst: u32, clock: C) -> Option<Self> {
        let quota = Quota::per_minute(NonZeroU32::new(per_minute)?)
            .allow_burst(NonZeroU32::new(burst.max(1))?);
        Some(RateLimiter {
            quota,
            gcra: RwLock::new(Gcra::dashmap_with_clock(quota, clock.clone())),
            clock,
            checks: AtomicU32::new(0),
        })
    }

    /// Takes one token for `client`; `Err(retry_after)` when its bucket is empty.
    pub fn check(&self, client: &str) -> Result<(), Duration> {
        {
            let gcra = self.gcra.read().unwrap_or_else(|p| p.into_inner());
            let count_now = self
                .checks
                .fetch_add(1, Ordering::Relaxed)
                .is_multiple_of(SIZE_CHECK_EVERY);
            if !count_now || gcra.len() < MAX_CLIENTS {
                return Self::take(&gcra, client, &self.clock);
            }
            gcra.retain_recent();
            if gcra.len() < MAX_CLIENTS {
                return Self::take(&gcra, client, &self.clock);
            }
        }
        let mut gcra = self.gcra.write().unwrap_or_else(|p| p.into_inner());
        if gcra.len() >= MAX_CLIENTS {
            *gcra = Gcra::dashmap_with_clock(self.quota, self.clock.clone());
        }
        Self::take(&gcra, client, &self.clock)
    }

    fn take(gcra: &Keyed<C>, client: &str, clock: &C) -> Result<(), Duration> {
        gcra.check_key(&client.to_owned())
            .map_err(|not_until| not_until.wait_time_from(clock.now()))
    }

    /// How many clients are tracked.
    pub fn clients(&self) -> usize {
        self.gcra.read().unwrap_or_else(|p| p.into_inner()).len()
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
    match limiter.check(&key) {
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
    use governor::clock::FakeRelativeClock;

    use super::*;

    #[test]
    fn burst_then_refill_at_the_configured_rate() {
        let clock = FakeRelativeClock::default();
        let l = RateLimiter::with_clock(60, 3, clock.clone()).expect("enabled");
        for _ in 0..3 {
            assert!(l.check("a").is_ok());
        }
        let retry = l.check("a").expect_err("bucket empty");
        assert!(
            retry <= Duration::from_secs(1) && retry > Duration::from_millis(900),
            "{retry:?}"
        );
        assert!(l.check("b").is_ok(), "other clients have their own bucket");
        clock.advance(Duration::from_millis(1010));
        assert!(l.check("a").is_ok(), "one token per second");
        clock.advance(Duration::from_millis(10));
        assert!(l.check("a").is_err());
    }

    #[test]
    fn zero_rate_disables_the_limiter() {
        assert!(RateLimiter::new(0, 10).is_none());
    }

    #[test]
    fn the_client_map_stays_bounded_and_idle_clients_go_first() {
        let clock = FakeRelativeClock::default();
        let l = RateLimiter::with_clock(60, 1, clock.clone()).expect("enabled");
        let every = SIZE_CHECK_EVERY as usize;
        for i in 0..MAX_CLIENTS {
            let _ = l.check(&format!("idle{i}"));
        }
        assert_eq!(l.clients(), MAX_CLIENTS);
        // Two seconds later every bucket has refilled: the next size check drops the idle clients, and a client
        // still within its window keeps its empty bucket.
        clock.advance(Duration::from_secs(2));
        assert!(l.check("busy").is_ok());
        for i in 0..every {
            assert!(l.check(&format!("new{i}")).is_ok());
        }
        assert!(
            l.clients() <= 1 + every,
            "idle clients dropped: {}",
            l.clients()
        );
        assert!(l.check("busy").is_err(), "an active client keeps its state");
        // All active at once: the map starts over rather than grows.
        for i in 0..(MAX_CLIENTS + 2 * every) {
            let _ = l.check(&format!("c{i}"));
        }
        assert!(l.clients() <= MAX_CLIENTS + every, "{}", l.clients());
    }
}

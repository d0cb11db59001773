//! Per-client rate limits, with `governor`'s keyed GCRA limiter (a token bucket without the bucket: one timestamp
//! per client, updated with a compare-and-swap). Used by the unauthenticated diff routes (every request takes a
//! cell) and by the public site's credential checks (only failures take one, [`RateLimiter::peek`] refusing a
//! client whose bucket is empty before anything is checked).
//!
//! In `specpress serve` the client is the TCP peer address (`ConnectInfo`); behind API Gateway it is the request
//! context's `sourceIp`; otherwise every caller shares one bucket. An IPv4 client is keyed by its address, an IPv6
//! client by its /64 ([`client_key_of`]): a host is handed a whole /64 and may use any address in it, so keying by
//! address would give one client 2^64 buckets. The map of clients is bounded: when it reaches
//! [`MAX_CLIENTS`], clients whose bucket has refilled completely (idle ones) are dropped; if it is still full, every
//! bucket starts over full, since that many clients active at once on one instance have defeated a per-client
//! limit anyway. API Gateway throttling (template.yaml) is the stage-wide ceiling in AWS; this limiter is the
//! per-client one.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::http::{Extensions, HeaderValue, header};
use axum::response::Response;
use dashmap::DashMap;
use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::nanos::Nanos;
use governor::state::keyed::ShrinkableKeyedStateStore;
use governor::state::{InMemoryState, NotKeyed, StateStore};
use governor::{Quota, RateLimiter as Gcra};
use lambda_http::RequestExt;
use lambda_http::request::RequestContext;

/// Most clients tracked at once (give or take [`SIZE_CHECK_EVERY`]).
pub const MAX_CLIENTS: usize = 10_000;

/// Counting the clients visits every shard of the map, so it is done once every this many checks.
pub const SIZE_CHECK_EVERY: u32 = 256;

/// One client, and whether the check only looks at its bucket or takes a cell from it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Probe {
    client: String,
    look_only: bool,
}

/// Governor's in-memory state of each client, in a `DashMap` (as its own `DashMapStateStore`), with one addition:
/// a probe that only looks runs the GCRA decision on the state without storing its outcome.
#[derive(Default)]
struct Clients(DashMap<String, InMemoryState>);

/// The stored theoretical arrival time of a state (0 for a fresh one), read without changing it.
fn tat_of(state: &InMemoryState) -> Nanos {
    match state.measure_and_replace(&NotKeyed::NonKey, Err::<((), Nanos), _>) {
        Err(Some(tat)) => tat,
        _ => Nanos::new(0),
    }
}

impl StateStore for Clients {
    type Key = Probe;

    fn measure_and_replace<T, F, E>(&self, key: &Probe, f: F) -> Result<T, E>
    where
        F: Fn(Option<Nanos>) -> Result<(T, Nanos), E>,
    {
        if key.look_only {
            let Some(state) = self.0.get(&key.client) else {
                return f(None).map(|(t, _)| t);
            };
            // The closure never answers `Ok`, so nothing is stored: the decision comes back as the error.
            let decided = state.measure_and_replace(&NotKeyed::NonKey, |tat| {
                Err::<(T, Nanos), Result<T, E>>(f(tat).map(|(t, _)| t))
            });
            return match decided {
                Ok(t) => Ok(t),
                Err(decision) => decision,
            };
        }
        if let Some(state) = self.0.get(&key.client) {
            return state.measure_and_replace(&NotKeyed::NonKey, f);
        }
        let state = self.0.entry(key.client.clone()).or_default();
        state.measure_and_replace(&NotKeyed::NonKey, f)
    }
}

impl ShrinkableKeyedStateStore<Probe> for Clients {
    fn retain_recent(&self, drop_below: Nanos) {
        self.0.retain(|_, state| tat_of(state) > drop_below);
    }

    fn shrink_to_fit(&self) {
        self.0.shrink_to_fit();
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

type Keyed<C> = Gcra<Probe, Clients, C, NoOpMiddleware<<C as Clock>::Instant>>;

/// A bucket per client: `burst` cells at once, refilled at `per_minute` per minute.
pub struct RateLimiter<C: Clock = DefaultClock> {
    quota: Quota,
    clock: C,
    /// Replaced by an empty one, under the write lock, only when it is full of active clients.
    gcra: RwLock<Keyed<C>>,
    checks: AtomicU32,
}

impl<C: Clock> std::fmt::Debug for RateLimiter<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter")
            .field("quota", &self.quota)
            .finish_non_exhaustive()
    }
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
            gcra: RwLock::new(Gcra::new(quota, Clients::default(), clock.clone())),
            clock,
            checks: AtomicU32::new(0),
        })
    }

    /// Takes one cell for `client`; `Err(retry_after)` when its bucket is empty.
    pub fn check(&self, client: &str) -> Result<(), Duration> {
        self.decide(client, false)
    }

    /// Whether [`check`](Self::check) would take a cell for `client` now, without taking it; `Err(retry_after)`
    /// when its bucket is empty.
    pub fn peek(&self, client: &str) -> Result<(), Duration> {
        self.decide(client, true)
    }

    fn decide(&self, client: &str, look_only: bool) -> Result<(), Duration> {
        let probe = Probe {
            client: client.to_owned(),
            look_only,
        };
        {
            let gcra = self.gcra.read().unwrap_or_else(|p| p.into_inner());
            let count_now = self
                .checks
                .fetch_add(1, Ordering::Relaxed)
                .is_multiple_of(SIZE_CHECK_EVERY);
            if look_only || !count_now || gcra.len() < MAX_CLIENTS {
                return Self::take(&gcra, &probe, &self.clock);
            }
            gcra.retain_recent();
            if gcra.len() < MAX_CLIENTS {
                return Self::take(&gcra, &probe, &self.clock);
            }
        }
        let mut gcra = self.gcra.write().unwrap_or_else(|p| p.into_inner());
        if gcra.len() >= MAX_CLIENTS {
            *gcra = Gcra::new(self.quota, Clients::default(), self.clock.clone());
        }
        Self::take(&gcra, &probe, &self.clock)
    }

    fn take(gcra: &Keyed<C>, probe: &Probe, clock: &C) -> Result<(), Duration> {
        gcra.check_key(probe)
            .map_err(|not_until| not_until.wait_time_from(clock.now()))
    }

    /// How many clients are tracked.
    pub fn clients(&self) -> usize {
        self.gcra.read().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// The client of a request (its extensions) as every limit keys it ([`client_key_of`]), as well as the runtime
/// knows its address.
pub fn client_of(extensions: &Extensions) -> String {
    if let Some(ConnectInfo(addr)) = extensions.get::<ConnectInfo<SocketAddr>>() {
        return client_key_of(&addr.ip().to_string());
    }
    let source = match extensions.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(c)) => c.http.source_ip.as_deref(),
        Some(RequestContext::ApiGatewayV1(c)) => c.identity.source_ip.as_deref(),
        _ => None,
    };
    source.map(client_key_of).unwrap_or_default()
}

/// The key of a client address: an IPv4 address as it is; an IPv6 address as its /64 (`2001:db8:1:2::/64`); an
/// IPv4 address written as IPv6 (`::ffff:192.0.2.1`, which a dual-stack socket reports) as that IPv4 address; any
/// other text (not an address) as it is.
pub fn client_key_of(address: &str) -> String {
    let text = address.trim();
    match text.parse::<IpAddr>() {
        Ok(IpAddr::V4(v4)) => v4.to_string(),
        Ok(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let network = u128::from(v6) & !((1u128 << 64) - 1);
                format!("{}/64", Ipv6Addr::from(network))
            }
        },
        Err(_) => text.to_owned(),
    }
}

/// The client address of a request.
pub fn client_key<B>(req: &axum::http::Request<B>) -> String {
    client_of(req.extensions())
}

/// Whole seconds to wait (at least 1), as a `Retry-After` says them.
pub fn retry_after_secs(retry: Duration) -> u64 {
    retry.as_secs_f64().ceil().max(1.0) as u64
}

/// Sets `Retry-After` on a 429 answer.
pub fn set_retry_after(resp: &mut Response, retry: Duration) {
    if let Ok(v) = HeaderValue::from_str(&retry_after_secs(retry).to_string()) {
        resp.headers_mut().insert(header::RETRY_AFTER, v);
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
    fn a_peek_tells_what_a_check_would_decide_and_takes_nothing() {
        let clock = FakeRelativeClock::default();
        let l = RateLimiter::with_clock(60, 2, clock.clone()).expect("enabled");
        for _ in 0..10 {
            assert!(l.peek("a").is_ok(), "a fresh client may go");
        }
        assert_eq!(l.clients(), 0, "looking records nothing");
        assert!(l.check("a").is_ok());
        assert!(l.peek("a").is_ok());
        assert!(l.check("a").is_ok(), "peeks took none of the two cells");
        let retry = l.peek("a").expect_err("bucket empty");
        assert!(retry > Duration::from_millis(900), "{retry:?}");
        assert!(l.check("a").is_err());
        clock.advance(Duration::from_millis(1010));
        assert!(l.peek("a").is_ok());
        assert!(
            l.peek("a").is_ok(),
            "still one cell: peeking does not take it"
        );
        assert!(l.check("a").is_ok());
        assert!(l.peek("a").is_err());
    }

    #[test]
    fn ipv6_clients_are_keyed_by_their_64_and_ipv4_ones_by_their_address() {
        assert_eq!(client_key_of("192.0.2.7"), "192.0.2.7");
        assert_eq!(client_key_of("::ffff:192.0.2.7"), "192.0.2.7");
        for a in [
            "2001:db8:1:2::1",
            "2001:db8:1:2:ffff:ffff:ffff:ffff",
            "2001:0db8:0001:0002:abcd::9",
        ] {
            assert_eq!(client_key_of(a), "2001:db8:1:2::/64", "{a}");
        }
        assert_eq!(client_key_of("2001:db8:1:3::1"), "2001:db8:1:3::/64");
        assert_eq!(client_key_of("::1"), "::/64");
        assert_eq!(client_key_of("not an address"), "not an address");
    }

    #[test]
    fn addresses_of_one_ipv6_64_share_one_bucket() {
        // GIVEN a limit of 2 and one /64 whose host moves to a fresh address each time
        let clock = FakeRelativeClock::default();
        let l = RateLimiter::with_clock(60, 2, clock).expect("enabled");
        let key = |i: u32| client_key_of(&format!("2001:db8:aa:bb::{i:x}"));
        // WHEN it sends from three addresses of the /64
        assert!(l.check(&key(1)).is_ok());
        assert!(l.check(&key(2)).is_ok());
        // THEN the third is refused: one bucket, not one per address
        assert!(l.check(&key(3)).is_err());
        assert!(
            l.check(&client_key_of("2001:db8:aa:bc::1")).is_ok(),
            "another /64"
        );
    }

    #[test]
    fn zero_rate_disables_the_limiter() {
        assert!(RateLimiter::new(0, 10).is_none());
    }

    #[test]
    fn retry_after_is_whole_seconds_rounded_up() {
        assert_eq!(retry_after_secs(Duration::from_millis(10)), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(5_900)), 6);
        assert_eq!(retry_after_secs(Duration::from_secs(6)), 6);
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

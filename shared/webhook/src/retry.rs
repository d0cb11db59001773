//! The delivery retry policy: schedule, jitter, `Retry-After`, outcome classification and the
//! auto-disable rule. Pure functions: callers pass the clock and the random number generator.

use std::time::{Duration, SystemTime};

use rand::Rng;

/// Delays between attempts, in seconds: the Svix schedule. With the immediate first attempt this
/// gives 8 attempts over about 27.6 hours (reliability.md §1.2, §1.5).
pub const DEFAULT_SCHEDULE_SECS: [u64; 7] = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000];
/// Relative jitter applied to each scheduled delay (±20%, Svix's `JITTER_DELTA`), so that many
/// deliveries failing together do not retry in lock-step against a recovering receiver.
pub const DEFAULT_JITTER: f64 = 0.2;
/// Largest `Retry-After` we honour: 12 h, the most SQS `ChangeMessageVisibility` can defer a
/// message. A receiver cannot park a delivery for longer than that (or forever).
pub const DEFAULT_MAX_RETRY_AFTER: Duration = Duration::from_secs(12 * 3_600);
/// An endpoint failing continuously for this long is disabled (Svix: 5 days).
pub const DEFAULT_DISABLE_AFTER: Duration = Duration::from_secs(5 * 24 * 3_600);

/// What one delivery attempt produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// The receiver answered with this HTTP status. `retry_after` is the already-parsed
    /// `Retry-After` header, if any (see [`parse_retry_after`]).
    Response {
        /// HTTP status code.
        status: u16,
        /// Parsed `Retry-After`, if the response carried a valid one.
        retry_after: Option<Duration>,
    },
    /// The request timed out (15 s for webhooks).
    Timeout,
    /// DNS, connect, TLS or transport failure, or a refused (non-public) address.
    ConnectionError,
}

impl AttemptOutcome {
    /// A [`AttemptOutcome::Response`] from a status and the raw `Retry-After` header value, if
    /// any (an unparseable value is dropped).
    pub fn from_response(status: u16, retry_after: Option<&str>, now: SystemTime) -> Self {
        Self::Response {
            status,
            retry_after: retry_after.and_then(|v| parse_retry_after(v, now)),
        }
    }
}

/// The class of an attempt's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutcomeClass {
    /// Any 2xx.
    Success,
    /// 410 Gone: the receiver asks us to stop; disable the subscription now.
    Gone,
    /// Everything else: 1xx, 3xx (redirects are not followed: the subscriber must update the
    /// URL), 4xx, 5xx, timeouts and connection errors.
    Retryable,
}

/// Classifies an attempt: 2xx success, 410 gone, everything else retried.
///
/// 4xx other than 410 is retried on purpose: a receiver misconfiguration (401 after a bad
/// deploy, 404 during a migration) is usually temporary, and the 5-day disable rule bounds the
/// cost (the same choice as Svix and Stripe).
pub fn classify(outcome: &AttemptOutcome) -> OutcomeClass {
    match outcome {
        AttemptOutcome::Response { status, .. } if (200..300).contains(status) => {
            OutcomeClass::Success
        }
        AttemptOutcome::Response { status: 410, .. } => OutcomeClass::Gone,
        _ => OutcomeClass::Retryable,
    }
}

/// What to do after an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// 2xx: mark the delivery delivered; the endpoint's failure streak ends.
    Delivered,
    /// 410: disable the subscription at once, no further attempts.
    DisableNow,
    /// The endpoint has been failing continuously for the disable window: disable it.
    DisableFailingTooLong,
    /// Try again after this delay.
    RetryIn(Duration),
    /// The schedule is exhausted: mark the delivery failed (the message goes to the DLQ).
    Exhausted,
}

/// Parses a `Retry-After` value: delta-seconds (`120`) or an HTTP-date
/// (`Wed, 21 Oct 2015 07:28:00 GMT`) relative to `now`. A date in the past means "now"
/// (zero). Anything else is ignored (`None`), so a malformed header falls back to the schedule.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Very long digit strings saturate instead of failing: the result is clamped later.
        return Some(Duration::from_secs(
            value.parse::<u64>().unwrap_or(u64::MAX),
        ));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Multiplies a duration by a non-negative finite factor without ever panicking
/// (`Duration::mul_f64` panics on overflow).
fn scale_duration(d: Duration, factor: f64) -> Duration {
    Duration::try_from_secs_f64(d.as_secs_f64() * factor).unwrap_or(Duration::MAX)
}

/// The retry policy of webhook deliveries.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    schedule: Vec<Duration>,
    jitter: f64,
    scale: f64,
    max_retry_after: Duration,
    disable_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self::new(
            DEFAULT_SCHEDULE_SECS
                .iter()
                .map(|s| Duration::from_secs(*s))
                .collect(),
        )
    }
}

impl RetryPolicy {
    /// A policy with the given delays between attempts (the first attempt is always
    /// immediate), ±20% jitter, scale 1, 12 h `Retry-After` cap and 5-day disable window.
    pub fn new(schedule: Vec<Duration>) -> Self {
        Self {
            schedule,
            jitter: DEFAULT_JITTER,
            scale: 1.0,
            max_retry_after: DEFAULT_MAX_RETRY_AFTER,
            disable_after: DEFAULT_DISABLE_AFTER,
        }
    }

    /// Sets the relative jitter, clamped to `[0, 1]` (non-finite values mean no jitter).
    pub fn with_jitter(mut self, jitter: f64) -> Self {
        self.jitter = if jitter.is_finite() {
            jitter.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self
    }

    /// Multiplies every delay, including honoured `Retry-After` values, by `scale`, so tests can
    /// run the real schedule compressed (e.g. `0.001`: 5 s becomes 5 ms). Negative or
    /// non-finite values are ignored.
    pub fn with_scale(mut self, scale: f64) -> Self {
        if scale.is_finite() && scale >= 0.0 {
            self.scale = scale;
        }
        self
    }

    /// Caps honoured `Retry-After` values (before scaling).
    pub fn with_max_retry_after(mut self, cap: Duration) -> Self {
        self.max_retry_after = cap;
        self
    }

    /// Sets the continuous-failure window after which an endpoint is disabled.
    pub fn with_disable_after(mut self, window: Duration) -> Self {
        self.disable_after = window;
        self
    }

    /// Total attempts a delivery gets: the immediate one plus one per scheduled delay.
    pub fn max_attempts(&self) -> u32 {
        u32::try_from(self.schedule.len())
            .unwrap_or(u32::MAX)
            .saturating_add(1)
    }

    /// The scaled, unjittered delay before the next attempt, after `attempts_made` attempts
    /// (`0` gives zero: the first attempt is immediate). `None` when the schedule is exhausted.
    pub fn base_delay(&self, attempts_made: u32) -> Option<Duration> {
        if attempts_made == 0 {
            return Some(Duration::ZERO);
        }
        let idx = usize::try_from(attempts_made - 1).ok()?;
        self.schedule
            .get(idx)
            .map(|d| scale_duration(*d, self.scale))
    }

    /// The delay before the next attempt after `attempts_made` failed attempts, with jitter
    /// drawn from `rng`, and at least the (capped, scaled) `retry_after` when one is given.
    /// `None` when the schedule is exhausted: a `Retry-After` never adds attempts.
    pub fn next_delay<R: Rng + ?Sized>(
        &self,
        attempts_made: u32,
        retry_after: Option<Duration>,
        rng: &mut R,
    ) -> Option<Duration> {
        let base = self.base_delay(attempts_made)?;
        let jittered = if self.jitter > 0.0 && !base.is_zero() {
            let u: f64 = rng.random_range(-1.0..=1.0);
            scale_duration(base, 1.0 + self.jitter * u)
        } else {
            base
        };
        let floor = retry_after
            .map(|ra| scale_duration(ra.min(self.max_retry_after), self.scale))
            .unwrap_or(Duration::ZERO);
        Some(jittered.max(floor))
    }

    /// Whether an endpoint whose current failure streak began at `failing_since` has been
    /// failing for the whole disable window at `now`. A clock that went backwards never
    /// disables.
    pub fn failing_too_long(&self, failing_since: SystemTime, now: SystemTime) -> bool {
        now.duration_since(failing_since)
            .map(|elapsed| elapsed >= self.disable_after)
            .unwrap_or(false)
    }

    /// The full decision after an attempt.
    ///
    /// * `attempts_made`: attempts of this delivery so far, including the one just made.
    /// * `failing_since`: when the endpoint's current streak of failures began (any delivery),
    ///   or `None` if its last attempt succeeded; this attempt's failure starts a streak at `now`.
    ///
    /// `Retry-After` is honoured only on 429 and 503, the statuses where it means "come back
    /// later"; elsewhere it is ignored.
    pub fn decide<R: Rng + ?Sized>(
        &self,
        attempts_made: u32,
        outcome: &AttemptOutcome,
        failing_since: Option<SystemTime>,
        now: SystemTime,
        rng: &mut R,
    ) -> Decision {
        match classify(outcome) {
            OutcomeClass::Success => Decision::Delivered,
            OutcomeClass::Gone => Decision::DisableNow,
            OutcomeClass::Retryable => {
                if self.failing_too_long(failing_since.unwrap_or(now), now) {
                    return Decision::DisableFailingTooLong;
                }
                let retry_after = match outcome {
                    AttemptOutcome::Response {
                        status: 429 | 503,
                        retry_after,
                    } => *retry_after,
                    _ => None,
                };
                match self.next_delay(attempts_made.max(1), retry_after, rng) {
                    Some(d) => Decision::RetryIn(d),
                    None => Decision::Exhausted,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    fn status(code: u16) -> AttemptOutcome {
        AttemptOutcome::Response {
            status: code,
            retry_after: None,
        }
    }

    #[test]
    fn classification_follows_the_documented_table() {
        for s in [200, 201, 202, 204, 299] {
            assert_eq!(classify(&status(s)), OutcomeClass::Success, "{s}");
        }
        assert_eq!(classify(&status(410)), OutcomeClass::Gone);
        for s in [
            100, 301, 302, 304, 307, 400, 401, 404, 409, 429, 500, 502, 503, 504,
        ] {
            assert_eq!(classify(&status(s)), OutcomeClass::Retryable, "{s}");
        }
        assert_eq!(classify(&AttemptOutcome::Timeout), OutcomeClass::Retryable);
        assert_eq!(
            classify(&AttemptOutcome::ConnectionError),
            OutcomeClass::Retryable
        );
    }

    #[test]
    fn default_schedule_is_immediate_then_svix_delays_then_exhausted() {
        let p = RetryPolicy::default().with_jitter(0.0);
        let mut rng = StdRng::seed_from_u64(1);
        assert_eq!(p.max_attempts(), 8);
        let delays: Vec<u64> = (0..8)
            .map(|n| p.next_delay(n, None, &mut rng).map(|d| d.as_secs()))
            .collect::<Option<Vec<_>>>()
            .expect("8 attempts");
        assert_eq!(
            delays,
            vec![0, 5, 300, 1_800, 7_200, 18_000, 36_000, 36_000]
        );
        assert_eq!(p.next_delay(8, None, &mut rng), None);
    }

    #[test]
    fn jitter_stays_within_twenty_percent_and_varies() {
        let p = RetryPolicy::default();
        let mut rng = StdRng::seed_from_u64(42);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..500 {
            let d = p
                .next_delay(2, None, &mut rng)
                .expect("delay")
                .as_secs_f64();
            assert!((240.0..=360.0).contains(&d), "{d}");
            seen.insert(d.to_bits());
        }
        assert!(seen.len() > 100, "jitter should spread the delays");
    }

    #[test]
    fn scale_compresses_the_schedule_for_tests() {
        let p = RetryPolicy::default().with_jitter(0.0).with_scale(0.001);
        let mut rng = StdRng::seed_from_u64(1);
        assert_eq!(
            p.next_delay(1, None, &mut rng),
            Some(Duration::from_millis(5))
        );
        assert_eq!(
            p.next_delay(2, None, &mut rng),
            Some(Duration::from_millis(300))
        );
        let ignored = RetryPolicy::default().with_scale(-1.0).with_scale(f64::NAN);
        assert_eq!(ignored, RetryPolicy::default());
    }

    #[test]
    fn retry_after_parses_seconds_and_http_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_000);
        assert_eq!(
            parse_retry_after("120", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(parse_retry_after(" 0 ", now), Some(Duration::ZERO));
        // 2015-10-21 07:28:00 GMT is 1445412480: 480 s after `now`.
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now),
            Some(Duration::from_secs(480))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        for bad in ["", "-5", "1.5", "soon", "12 s"] {
            assert_eq!(parse_retry_after(bad, now), None, "{bad:?}");
        }
        assert_eq!(
            parse_retry_after("99999999999999999999999", now),
            Some(Duration::from_secs(u64::MAX))
        );
    }

    #[test]
    fn retry_after_on_429_and_503_is_a_floor_and_is_capped() {
        let p = RetryPolicy::default().with_jitter(0.0);
        let mut rng = StdRng::seed_from_u64(1);
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        for code in [429, 503] {
            let outcome = AttemptOutcome::Response {
                status: code,
                retry_after: Some(Duration::from_secs(120)),
            };
            assert_eq!(
                p.decide(1, &outcome, None, now, &mut rng),
                Decision::RetryIn(Duration::from_secs(120))
            );
            // Shorter than the schedule: the schedule wins (a receiver cannot make us hammer).
            let outcome = AttemptOutcome::Response {
                status: code,
                retry_after: Some(Duration::from_secs(1)),
            };
            assert_eq!(
                p.decide(2, &outcome, None, now, &mut rng),
                Decision::RetryIn(Duration::from_secs(300))
            );
            let outcome = AttemptOutcome::Response {
                status: code,
                retry_after: Some(Duration::from_secs(10 * 24 * 3_600)),
            };
            assert_eq!(
                p.decide(1, &outcome, None, now, &mut rng),
                Decision::RetryIn(DEFAULT_MAX_RETRY_AFTER)
            );
        }
        // Ignored on other statuses.
        let outcome = AttemptOutcome::Response {
            status: 500,
            retry_after: Some(Duration::from_secs(120)),
        };
        assert_eq!(
            p.decide(1, &outcome, None, now, &mut rng),
            Decision::RetryIn(Duration::from_secs(5))
        );
    }

    #[test]
    fn outcome_from_a_raw_response_parses_retry_after() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        assert_eq!(
            AttemptOutcome::from_response(429, Some("30"), now),
            AttemptOutcome::Response {
                status: 429,
                retry_after: Some(Duration::from_secs(30))
            }
        );
        assert_eq!(
            AttemptOutcome::from_response(503, Some("later"), now),
            AttemptOutcome::Response {
                status: 503,
                retry_after: None
            }
        );
    }

    #[test]
    fn retry_after_is_scaled_with_the_schedule() {
        let p = RetryPolicy::default().with_jitter(0.0).with_scale(0.01);
        let mut rng = StdRng::seed_from_u64(1);
        assert_eq!(
            p.next_delay(1, Some(Duration::from_secs(120)), &mut rng),
            Some(Duration::from_millis(1_200))
        );
    }

    #[test]
    fn decide_covers_success_gone_retry_and_exhaustion() {
        let p = RetryPolicy::default().with_jitter(0.0);
        let mut rng = StdRng::seed_from_u64(1);
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        assert_eq!(
            p.decide(3, &status(204), Some(now), now, &mut rng),
            Decision::Delivered
        );
        assert_eq!(
            p.decide(1, &status(410), None, now, &mut rng),
            Decision::DisableNow
        );
        assert_eq!(
            p.decide(1, &AttemptOutcome::Timeout, None, now, &mut rng),
            Decision::RetryIn(Duration::from_secs(5))
        );
        assert_eq!(
            p.decide(7, &status(500), None, now, &mut rng),
            Decision::RetryIn(Duration::from_secs(36_000))
        );
        assert_eq!(
            p.decide(8, &status(500), None, now, &mut rng),
            Decision::Exhausted
        );
    }

    #[test]
    fn endpoint_failing_for_five_days_is_disabled_but_not_a_moment_earlier() {
        let p = RetryPolicy::default();
        let mut rng = StdRng::seed_from_u64(1);
        let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let five_days = Duration::from_secs(5 * 24 * 3_600);
        assert!(!p.failing_too_long(start, start + five_days - Duration::from_secs(1)));
        assert!(p.failing_too_long(start, start + five_days));
        assert!(!p.failing_too_long(start + five_days, start), "clock skew");
        assert_eq!(
            p.decide(
                2,
                &AttemptOutcome::ConnectionError,
                Some(start),
                start + five_days,
                &mut rng
            ),
            Decision::DisableFailingTooLong
        );
        // A success wins even at the end of the window.
        assert_eq!(
            p.decide(2, &status(200), Some(start), start + five_days, &mut rng),
            Decision::Delivered
        );
    }
}

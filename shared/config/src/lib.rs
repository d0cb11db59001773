//! The one configuration of every Specpress process, and the one tracing set-up ([`logging::init_tracing`]).
//!
//! A Lambda function reads it once with [`Config::from_env`] (through its Lambda helper), which fails fast naming
//! the variable; `specpress serve` builds the same type ([`Config::local_from_env`], then its command-line options
//! override what they name). Every variable name and default is the one template.yaml and the README list. Settings
//! that were always tolerant (the diff and page tuning knobs: a malformed value is ignored with a warning, the
//! default applies) stay so; every other malformed value stops the process at start.
//!
//! This crate depends on no HTTP server and no AWS SDK: HTTP functions, workers and the local server all take it.

pub mod logging;

use std::time::Duration;

/// Default request body limit, counted after a `Content-Encoding: gzip` body is decompressed: room for the largest
/// real documents (GitHub's 13 MB description, twice in a diff, JSON-escaped). AWS Lambda refuses request payloads
/// over 6 MB before the function runs; larger bodies reach a function gzip-compressed.
pub const DEFAULT_MAX_BODY_BYTES: usize = 64 * 1024 * 1024;
/// Default largest API document (the definition and each reference), checked before parsing.
pub const DEFAULT_MAX_DOCUMENT_BYTES: usize = 32 * 1024 * 1024;
/// Default age of an outbox event before the sweeper sends it.
pub const DEFAULT_OUTBOX_GRACE: Duration = Duration::from_secs(30);
/// Default per-client rate of the diff routes, requests per minute.
pub const DEFAULT_DIFF_RATE_PER_MINUTE: u32 = 120;
/// Default per-client burst of the diff routes.
pub const DEFAULT_DIFF_RATE_BURST: u32 = 30;
/// Default rate at which a client's failed credential checks on the public site refill, per minute.
pub const DEFAULT_AUTH_FAILURE_RATE_PER_MINUTE: u32 = 10;
/// Default number of failed credential checks a client may make at once on the public site.
pub const DEFAULT_AUTH_FAILURE_BURST: u32 = 10;
/// Default of `SPECPRESS_MCP_RATE_PER_MINUTE`.
pub const DEFAULT_MCP_RATE_PER_MINUTE: u32 = 300;
/// Default of `SPECPRESS_MCP_BURST`.
pub const DEFAULT_MCP_BURST: u32 = 60;
/// Default of `SPECPRESS_TRY_RATE_PER_MINUTE`: a person trying requests by hand sends a few a minute; 60 lets a
/// page's reader click freely while one client cannot make the proxy a load generator.
pub const DEFAULT_TRY_RATE_PER_MINUTE: u32 = 60;
/// Default of `SPECPRESS_TRY_BURST`.
pub const DEFAULT_TRY_BURST: u32 = 20;
/// Default budget of the docs function's parsed-document cache.
pub const DEFAULT_PAGE_CACHE_BYTES: u64 = 256 * 1024 * 1024;
/// Default budget of the docs function's search indexes.
pub const DEFAULT_SEARCH_CACHE_BYTES: u64 = 64 * 1024 * 1024;
/// Longest anonymous diff life accepted, in days (the longest explicit `expires_at`, 3660 days).
pub const MAX_ANONYMOUS_DIFF_DAYS: u32 = 3660;

/// Where the process runs: what logs look like, and what an over-limit answer advises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    /// `specpress serve` (and the operator commands): the operator sets the limits.
    Local,
    /// AWS Lambda behind API Gateway: 6 MB request payloads at most.
    Lambda,
}

/// A missing or malformed variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("environment variable {name}: {problem}")]
pub struct ConfigError {
    /// The variable.
    pub name: &'static str,
    /// What is wrong.
    pub problem: String,
}

fn problem(name: &'static str, problem: impl Into<String>) -> ConfigError {
    ConfigError {
        name,
        problem: problem.into(),
    }
}

/// Configuration of the webhook event path.
#[derive(Clone, PartialEq)]
pub struct WebhookConfig {
    /// `SPECPRESS_WEBHOOK_SECRET_KEY`: base64 of the 32-byte key sealing webhook secrets at rest (required by the
    /// webhook functions, see [`WebhookConfig::secret_key`]; `specpress serve` keeps a generated one in its data
    /// directory when unset).
    pub secret_key: Option<String>,
    /// `SPECPRESS_WEBHOOK_RETRY_SCALE`: multiplies the retry schedule (tests: `0.001`); `None` is 1.
    pub retry_scale: Option<f64>,
    /// `SPECPRESS_OUTBOX_GRACE_SECS`: how old an unsent outbox event must be before the sweeper sends it
    /// (default 30 s).
    pub outbox_grace: Duration,
    /// `SPECPRESS_ALLOW_LOOPBACK_URLS`: `true` (exactly, any case) allows loopback subscriber and download URLs;
    /// never honoured inside Lambda (the HTTP client refuses it there).
    pub allow_loopback_urls: bool,
}

impl std::fmt::Debug for WebhookConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookConfig")
            .field("secret_key", &self.secret_key.as_ref().map(|_| "***"))
            .field("retry_scale", &self.retry_scale)
            .field("outbox_grace", &self.outbox_grace)
            .field("allow_loopback_urls", &self.allow_loopback_urls)
            .finish()
    }
}

impl WebhookConfig {
    /// The 32 bytes of the sealing key; `Err` naming `SPECPRESS_WEBHOOK_SECRET_KEY` when it is unset or not the
    /// base64 of 32 bytes.
    pub fn secret_key(&self) -> Result<[u8; 32], ConfigError> {
        use base64::Engine as _;
        const NAME: &str = "SPECPRESS_WEBHOOK_SECRET_KEY";
        let text = self
            .secret_key
            .as_deref()
            .ok_or_else(|| problem(NAME, "is not set (base64 of 32 random bytes)"))?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .map_err(|_| problem(NAME, "is not valid base64"))?;
        bytes
            .try_into()
            .map_err(|_| problem(NAME, "must be 32 bytes (base64-encoded)"))
    }
}

/// Settings of the public diff routes (`POST /diffs`). Malformed or out-of-range values are ignored with a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffsSettings {
    /// `SPECPRESS_DIFF_MAX_BODY_BYTES`: largest `POST /diffs` body; `None` uses [`Config::max_body_bytes`].
    pub max_body_bytes: Option<usize>,
    /// `SPECPRESS_DIFF_RATE_PER_MINUTE`: per-client requests per minute (default 120; 0 disables the limiter).
    pub rate_per_minute: u32,
    /// `SPECPRESS_DIFF_RATE_BURST`: per-client burst (default 30).
    pub rate_burst: u32,
    /// `SPECPRESS_ANONYMOUS_DIFF_MAX_DAYS`: longest life of a diff created without a token, 1 to 3660 days
    /// (`None`: the default, 30).
    pub anonymous_max_days: Option<u32>,
    /// `SPECPRESS_ANONYMOUS_DIFF_QUOTA_BYTES`: bytes all anonymous diffs keep together, at least 1 (`None`: the
    /// default, 1 GiB).
    pub anonymous_quota_bytes: Option<u64>,
}

impl Default for DiffsSettings {
    fn default() -> Self {
        DiffsSettings {
            max_body_bytes: None,
            rate_per_minute: DEFAULT_DIFF_RATE_PER_MINUTE,
            rate_burst: DEFAULT_DIFF_RATE_BURST,
            anonymous_max_days: None,
            anonymous_quota_bytes: None,
        }
    }
}

/// Per-client limit of failed credential checks on the public site (sign-in attempts, tokens presented to pages,
/// session cookies that do not open). Malformed values are ignored with a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthSettings {
    /// `SPECPRESS_AUTH_FAILURE_RATE_PER_MINUTE`: failures a client regains per minute (default 10; 0 disables the
    /// limit).
    pub failure_rate_per_minute: u32,
    /// `SPECPRESS_AUTH_FAILURE_BURST`: failures a client may make at once (default 10).
    pub failure_burst: u32,
}

impl Default for AuthSettings {
    fn default() -> Self {
        AuthSettings {
            failure_rate_per_minute: DEFAULT_AUTH_FAILURE_RATE_PER_MINUTE,
            failure_burst: DEFAULT_AUTH_FAILURE_BURST,
        }
    }
}

/// Settings of the public pages (the docs function). Malformed values are ignored with a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocsSettings {
    /// `SPECPRESS_PAGE_CACHE_BYTES`: memory budget of the parsed documents kept for the pages (default 256 MiB).
    pub page_cache_bytes: u64,
    /// `SPECPRESS_SEARCH_CACHE_BYTES`: memory budget of the search indexes (default 64 MiB).
    pub search_cache_bytes: u64,
    /// `SPECPRESS_MCP_RATE_PER_MINUTE`: MCP requests a client regains per minute on the documentation's MCP servers
    /// (default 300; 0 disables the limit).
    pub mcp_rate_per_minute: u32,
    /// `SPECPRESS_MCP_BURST`: MCP requests a client may make at once (default 60).
    pub mcp_burst: u32,
    /// `SPECPRESS_TRY_RATE_PER_MINUTE`: requests a client regains per minute on the "Try it" proxy
    /// (`POST /doc/{doc}/try`, default 60; 0 disables the limit).
    pub try_rate_per_minute: u32,
    /// `SPECPRESS_TRY_BURST`: "Try it" proxy requests a client may make at once (default 20).
    pub try_burst: u32,
}

impl Default for DocsSettings {
    fn default() -> Self {
        DocsSettings {
            page_cache_bytes: DEFAULT_PAGE_CACHE_BYTES,
            search_cache_bytes: DEFAULT_SEARCH_CACHE_BYTES,
            mcp_rate_per_minute: DEFAULT_MCP_RATE_PER_MINUTE,
            mcp_burst: DEFAULT_MCP_BURST,
            try_rate_per_minute: DEFAULT_TRY_RATE_PER_MINUTE,
            try_burst: DEFAULT_TRY_BURST,
        }
    }
}

/// Everything a Specpress process is configured with.
#[derive(Clone, PartialEq)]
pub struct Config {
    /// Where the process runs.
    pub runtime: Runtime,
    /// `SPECPRESS_TABLE`: the DynamoDB table. Required on Lambda; `specpress serve` uses its embedded engine when
    /// it is unset.
    pub table: Option<String>,
    /// `SPECPRESS_PUBLIC_URL`: base of every `*_public_url`, no trailing slash. Empty: derived from each request's
    /// `Host` on Lambda; `http://HOST:PORT` for `specpress serve`.
    pub public_url: String,
    /// `SPECPRESS_TRUST_FORWARDED_HOST`: `true` when every request reaches the service through a proxy that sets
    /// `X-Forwarded-Host` and `X-Forwarded-Proto` itself (CloudFront with an origin request policy or a function that
    /// sets them, a reverse proxy): without `SPECPRESS_PUBLIC_URL`, public URLs then name the host and scheme the
    /// proxy reports. `false` (the default): they never follow a client's forwarding headers, only its `Host`
    /// (which API Gateway routes by). `true` or `false`, any case; anything else stops the process at start.
    pub trust_forwarded_host: bool,
    /// `SPECPRESS_MAX_BODY_BYTES`: request body limit, counted decompressed (default 64 MiB; Lambda's own 6 MB
    /// payload ceiling applies on the wire before that).
    pub max_body_bytes: usize,
    /// `SPECPRESS_MAX_DOCUMENT_BYTES`: largest API document, each file (default 32 MiB).
    pub max_document_bytes: usize,
    /// `SPECPRESS_QUEUE_URL`: the SQS webhook queue (required by the webhook functions; the deploy function sends
    /// committed events there when set).
    pub queue_url: Option<String>,
    /// `SPECPRESS_DEAD_LETTER_QUEUE_URL`: its dead-letter queue.
    pub dead_letter_queue_url: Option<String>,
    /// `SPECPRESS_CURSOR_KEY`: key of the pagination cursors (at least 32 bytes). Unset: `specpress serve` keeps one
    /// in its data directory; a Lambda generates a random one (cursors then work within one instance only).
    pub cursor_key: Option<String>,
    /// The webhook event path.
    pub webhooks: WebhookConfig,
    /// The public diff routes.
    pub diffs: DiffsSettings,
    /// The public pages.
    pub docs: DocsSettings,
    /// The limit of failed credential checks on the public site.
    pub auth: AuthSettings,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("runtime", &self.runtime)
            .field("table", &self.table)
            .field("public_url", &self.public_url)
            .field("trust_forwarded_host", &self.trust_forwarded_host)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_document_bytes", &self.max_document_bytes)
            .field("queue_url", &self.queue_url)
            .field("dead_letter_queue_url", &self.dead_letter_queue_url)
            .field("cursor_key", &self.cursor_key.as_ref().map(|_| "***"))
            .field("webhooks", &self.webhooks)
            .field("diffs", &self.diffs)
            .field("docs", &self.docs)
            .field("auth", &self.auth)
            .finish()
    }
}

impl Default for Config {
    /// Every default, nothing set: what a process configured by nothing would use (tests, in-process apps).
    fn default() -> Self {
        Config {
            runtime: Runtime::Local,
            table: None,
            public_url: String::new(),
            trust_forwarded_host: false,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
            queue_url: None,
            dead_letter_queue_url: None,
            cursor_key: None,
            webhooks: WebhookConfig {
                secret_key: None,
                retry_scale: None,
                outbox_grace: DEFAULT_OUTBOX_GRACE,
                allow_loopback_urls: false,
            },
            diffs: DiffsSettings::default(),
            docs: DocsSettings::default(),
            auth: AuthSettings::default(),
        }
    }
}

/// Reads variables: trimmed, empty values count as unset.
struct Vars<F>(F);

impl<F: Fn(&str) -> Option<String>> Vars<F> {
    fn get(&self, name: &str) -> Option<String> {
        (self.0)(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    }

    /// A value that must parse when set (fails fast, naming the variable).
    fn strict<T: std::str::FromStr>(
        &self,
        name: &'static str,
        what: &str,
    ) -> Result<Option<T>, ConfigError> {
        match self.get(name) {
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| problem(name, format!("must be {what}"))),
            None => Ok(None),
        }
    }

    /// A switch: `true` or `false` (any case), unset is `false`; anything else fails fast, naming the variable.
    fn switch(&self, name: &'static str) -> Result<bool, ConfigError> {
        match self.get(name) {
            None => Ok(false),
            Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
            Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
            Some(_) => Err(problem(name, "must be `true` or `false`")),
        }
    }

    /// A tuning knob: a malformed or out-of-range value is ignored with a warning.
    fn lenient<T: std::str::FromStr + PartialOrd>(
        &self,
        name: &'static str,
        range: std::ops::RangeInclusive<T>,
    ) -> Option<T> {
        let raw = self.get(name)?;
        match raw.parse::<T>() {
            Ok(v) if range.contains(&v) => Some(v),
            _ => {
                tracing::warn!(
                    variable = name,
                    "ignoring a malformed or out-of-range setting"
                );
                None
            }
        }
    }
}

impl Config {
    /// The configuration of a Lambda function, from the process environment. Fails fast naming the first missing
    /// (`SPECPRESS_TABLE`) or malformed variable.
    pub fn from_env() -> Result<Self, ConfigError> {
        let config = Config::from_lookup(Runtime::Lambda, |name| std::env::var(name).ok())?;
        if config.table.is_none() {
            return Err(problem("SPECPRESS_TABLE", "is required"));
        }
        Ok(config)
    }

    /// The environment part of `specpress serve`'s configuration (its command-line options then override the
    /// fields they name: table, public URL, limits).
    pub fn local_from_env() -> Result<Self, ConfigError> {
        Config::from_lookup(Runtime::Local, |name| std::env::var(name).ok())
    }

    /// The configuration from a variable lookup (the environment in production, a map in tests).
    pub fn from_lookup(
        runtime: Runtime,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let env = Vars(lookup);
        let retry_scale = env.strict::<f64>("SPECPRESS_WEBHOOK_RETRY_SCALE", "a number")?;
        let grace = env
            .strict::<f64>("SPECPRESS_OUTBOX_GRACE_SECS", "a number of seconds")?
            .map(|g| {
                (g.is_finite() && g >= 0.0)
                    .then(|| Duration::from_secs_f64(g))
                    .ok_or_else(|| {
                        problem("SPECPRESS_OUTBOX_GRACE_SECS", "must be a number of seconds")
                    })
            })
            .transpose()?;
        let diffs = DiffsSettings {
            max_body_bytes: env.lenient("SPECPRESS_DIFF_MAX_BODY_BYTES", 0..=usize::MAX),
            rate_per_minute: env
                .lenient("SPECPRESS_DIFF_RATE_PER_MINUTE", 0..=u32::MAX)
                .unwrap_or(DEFAULT_DIFF_RATE_PER_MINUTE),
            rate_burst: env
                .lenient("SPECPRESS_DIFF_RATE_BURST", 0..=u32::MAX)
                .unwrap_or(DEFAULT_DIFF_RATE_BURST),
            anonymous_max_days: env.lenient(
                "SPECPRESS_ANONYMOUS_DIFF_MAX_DAYS",
                1..=MAX_ANONYMOUS_DIFF_DAYS,
            ),
            anonymous_quota_bytes: env
                .lenient("SPECPRESS_ANONYMOUS_DIFF_QUOTA_BYTES", 1..=u64::MAX),
        };
        let docs = DocsSettings {
            page_cache_bytes: env
                .lenient("SPECPRESS_PAGE_CACHE_BYTES", 0..=u64::MAX)
                .unwrap_or(DEFAULT_PAGE_CACHE_BYTES),
            search_cache_bytes: env
                .lenient("SPECPRESS_SEARCH_CACHE_BYTES", 0..=u64::MAX)
                .unwrap_or(DEFAULT_SEARCH_CACHE_BYTES),
            mcp_rate_per_minute: env
                .lenient("SPECPRESS_MCP_RATE_PER_MINUTE", 0..=u32::MAX)
                .unwrap_or(DEFAULT_MCP_RATE_PER_MINUTE),
            mcp_burst: env
                .lenient("SPECPRESS_MCP_BURST", 1..=u32::MAX)
                .unwrap_or(DEFAULT_MCP_BURST),
            try_rate_per_minute: env
                .lenient("SPECPRESS_TRY_RATE_PER_MINUTE", 0..=u32::MAX)
                .unwrap_or(DEFAULT_TRY_RATE_PER_MINUTE),
            try_burst: env
                .lenient("SPECPRESS_TRY_BURST", 1..=u32::MAX)
                .unwrap_or(DEFAULT_TRY_BURST),
        };
        let auth = AuthSettings {
            failure_rate_per_minute: env
                .lenient("SPECPRESS_AUTH_FAILURE_RATE_PER_MINUTE", 0..=u32::MAX)
                .unwrap_or(DEFAULT_AUTH_FAILURE_RATE_PER_MINUTE),
            failure_burst: env
                .lenient("SPECPRESS_AUTH_FAILURE_BURST", 1..=u32::MAX)
                .unwrap_or(DEFAULT_AUTH_FAILURE_BURST),
        };
        Ok(Config {
            runtime,
            table: env.get("SPECPRESS_TABLE"),
            public_url: env
                .get("SPECPRESS_PUBLIC_URL")
                .map(|u| u.trim_end_matches('/').to_owned())
                .unwrap_or_default(),
            trust_forwarded_host: env.switch("SPECPRESS_TRUST_FORWARDED_HOST")?,
            max_body_bytes: env
                .strict("SPECPRESS_MAX_BODY_BYTES", "a byte count")?
                .unwrap_or(DEFAULT_MAX_BODY_BYTES),
            max_document_bytes: env
                .strict("SPECPRESS_MAX_DOCUMENT_BYTES", "a byte count")?
                .unwrap_or(DEFAULT_MAX_DOCUMENT_BYTES),
            queue_url: env.get("SPECPRESS_QUEUE_URL"),
            dead_letter_queue_url: env.get("SPECPRESS_DEAD_LETTER_QUEUE_URL"),
            cursor_key: env.get("SPECPRESS_CURSOR_KEY"),
            webhooks: WebhookConfig {
                secret_key: env.get("SPECPRESS_WEBHOOK_SECRET_KEY"),
                retry_scale,
                outbox_grace: grace.unwrap_or(DEFAULT_OUTBOX_GRACE),
                allow_loopback_urls: env
                    .get("SPECPRESS_ALLOW_LOOPBACK_URLS")
                    .is_some_and(|v| v.eq_ignore_ascii_case("true")),
            },
            diffs,
            docs,
            auth,
        })
    }

    /// The webhook queue URL; `Err` naming `SPECPRESS_QUEUE_URL` when unset (the webhook functions need it).
    pub fn require_queue_url(&self) -> Result<&str, ConfigError> {
        self.queue_url
            .as_deref()
            .ok_or_else(|| problem("SPECPRESS_QUEUE_URL", "is not set"))
    }

    /// The DynamoDB table; `Err` naming `SPECPRESS_TABLE` when unset.
    pub fn require_table(&self) -> Result<&str, ConfigError> {
        self.table
            .as_deref()
            .ok_or_else(|| problem("SPECPRESS_TABLE", "is required"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An environment of these variables only (also used by the logging tests).
    pub(crate) fn lookup(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn every_default_is_the_documented_one() {
        let c = Config::from_lookup(Runtime::Lambda, lookup(&[("SPECPRESS_TABLE", "t")]))
            .expect("valid");
        assert_eq!(c.table.as_deref(), Some("t"));
        assert_eq!(c.public_url, "");
        assert!(!c.trust_forwarded_host);
        assert_eq!(c.max_body_bytes, 64 * 1024 * 1024);
        assert_eq!(c.max_document_bytes, 32 * 1024 * 1024);
        assert_eq!(c.webhooks.outbox_grace, Duration::from_secs(30));
        assert_eq!(c.webhooks.retry_scale, None);
        assert!(!c.webhooks.allow_loopback_urls);
        assert_eq!(c.diffs, DiffsSettings::default());
        assert_eq!(c.diffs.rate_per_minute, 120);
        assert_eq!(c.diffs.rate_burst, 30);
        assert_eq!(c.docs.page_cache_bytes, 256 * 1024 * 1024);
        assert_eq!(c.docs.search_cache_bytes, 64 * 1024 * 1024);
        assert_eq!(c.auth.failure_rate_per_minute, 10);
        assert_eq!(c.auth.failure_burst, 10);
    }

    #[test]
    fn the_try_it_proxy_limit_is_read_and_tolerates_malformed_values() {
        let c = Config::from_lookup(Runtime::Lambda, lookup(&[])).expect("valid");
        assert_eq!(
            (c.docs.try_rate_per_minute, c.docs.try_burst),
            (DEFAULT_TRY_RATE_PER_MINUTE, DEFAULT_TRY_BURST)
        );
        assert_eq!((DEFAULT_TRY_RATE_PER_MINUTE, DEFAULT_TRY_BURST), (60, 20));
        let c = Config::from_lookup(
            Runtime::Lambda,
            lookup(&[
                ("SPECPRESS_TRY_RATE_PER_MINUTE", "0"),
                ("SPECPRESS_TRY_BURST", "5"),
            ]),
        )
        .expect("valid");
        assert_eq!((c.docs.try_rate_per_minute, c.docs.try_burst), (0, 5));
        let c = Config::from_lookup(
            Runtime::Lambda,
            lookup(&[
                ("SPECPRESS_TRY_RATE_PER_MINUTE", "often"),
                ("SPECPRESS_TRY_BURST", "0"),
            ]),
        )
        .expect("tolerated");
        assert_eq!((c.docs.try_rate_per_minute, c.docs.try_burst), (60, 20));
    }

    #[test]
    fn the_failed_credential_limit_is_read_and_tolerates_malformed_values() {
        let c = Config::from_lookup(
            Runtime::Lambda,
            lookup(&[
                ("SPECPRESS_AUTH_FAILURE_RATE_PER_MINUTE", "0"),
                ("SPECPRESS_AUTH_FAILURE_BURST", "3"),
            ]),
        )
        .expect("valid");
        assert_eq!(
            c.auth,
            AuthSettings {
                failure_rate_per_minute: 0,
                failure_burst: 3
            }
        );
        let c = Config::from_lookup(
            Runtime::Lambda,
            lookup(&[
                ("SPECPRESS_AUTH_FAILURE_RATE_PER_MINUTE", "often"),
                ("SPECPRESS_AUTH_FAILURE_BURST", "0"),
            ]),
        )
        .expect("tolerated");
        assert_eq!(c.auth, AuthSettings::default());
    }

    #[test]
    fn a_lambda_without_a_table_or_with_a_malformed_limit_fails_naming_the_variable() {
        let missing = Config::from_lookup(Runtime::Lambda, lookup(&[]))
            .expect("valid")
            .require_table()
            .map(str::to_owned)
            .expect_err("required");
        assert_eq!(missing.name, "SPECPRESS_TABLE");
        for (name, value) in [
            ("SPECPRESS_MAX_BODY_BYTES", "lots"),
            ("SPECPRESS_MAX_DOCUMENT_BYTES", "-1"),
            ("SPECPRESS_WEBHOOK_RETRY_SCALE", "fast"),
            ("SPECPRESS_OUTBOX_GRACE_SECS", "-5"),
        ] {
            let e = Config::from_lookup(Runtime::Lambda, lookup(&[(name, value)]))
                .expect_err("refused");
            assert_eq!(e.name, name);
            assert!(e.to_string().contains(name), "{e}");
        }
    }

    #[test]
    fn tuning_knobs_ignore_malformed_and_out_of_range_values() {
        let c = Config::from_lookup(
            Runtime::Lambda,
            lookup(&[
                ("SPECPRESS_DIFF_RATE_PER_MINUTE", "many"),
                ("SPECPRESS_ANONYMOUS_DIFF_MAX_DAYS", "0"),
                ("SPECPRESS_ANONYMOUS_DIFF_QUOTA_BYTES", " 5000 "),
                ("SPECPRESS_PAGE_CACHE_BYTES", "big"),
            ]),
        )
        .expect("tolerated");
        assert_eq!(c.diffs.rate_per_minute, DEFAULT_DIFF_RATE_PER_MINUTE);
        assert_eq!(c.diffs.anonymous_max_days, None);
        assert_eq!(c.diffs.anonymous_quota_bytes, Some(5000));
        assert_eq!(c.docs.page_cache_bytes, DEFAULT_PAGE_CACHE_BYTES);
    }

    #[test]
    fn the_sealing_key_must_be_32_base64_bytes_and_never_shows() {
        use base64::Engine as _;
        let good = base64::engine::general_purpose::STANDARD.encode([1u8; 32]);
        let c = Config::from_lookup(
            Runtime::Lambda,
            lookup(&[("SPECPRESS_WEBHOOK_SECRET_KEY", &good)]),
        )
        .expect("valid");
        assert_eq!(c.webhooks.secret_key().expect("key"), [1u8; 32]);
        assert!(!format!("{c:?}").contains(&good));
        let short = base64::engine::general_purpose::STANDARD.encode([1u8; 16]);
        for bad in [short.as_str(), "not base64!"] {
            let c = Config::from_lookup(
                Runtime::Lambda,
                lookup(&[("SPECPRESS_WEBHOOK_SECRET_KEY", bad)]),
            )
            .expect("read");
            assert_eq!(
                c.webhooks.secret_key().expect_err("refused").name,
                "SPECPRESS_WEBHOOK_SECRET_KEY"
            );
        }
        let none = Config::from_lookup(Runtime::Lambda, lookup(&[])).expect("valid");
        assert!(none.webhooks.secret_key().is_err());
        assert!(none.require_queue_url().is_err());
    }

    #[test]
    fn forwarded_hosts_are_trusted_only_when_said_so_and_a_misspelt_switch_stops_the_start() {
        for (value, trusted) in [
            ("true", true),
            (" TRUE ", true),
            ("false", false),
            ("", false),
        ] {
            let c = Config::from_lookup(
                Runtime::Lambda,
                lookup(&[("SPECPRESS_TRUST_FORWARDED_HOST", value)]),
            )
            .expect("valid");
            assert_eq!(c.trust_forwarded_host, trusted, "{value:?}");
        }
        for value in ["1", "yes", "on"] {
            let e = Config::from_lookup(
                Runtime::Lambda,
                lookup(&[("SPECPRESS_TRUST_FORWARDED_HOST", value)]),
            )
            .expect_err("refused");
            assert_eq!(e.name, "SPECPRESS_TRUST_FORWARDED_HOST", "{value}");
        }
    }

    #[test]
    fn loopback_urls_need_the_exact_word_true() {
        for (value, allowed) in [
            ("true", true),
            (" TRUE ", true),
            ("1", false),
            ("yes", false),
        ] {
            let c = Config::from_lookup(
                Runtime::Local,
                lookup(&[("SPECPRESS_ALLOW_LOOPBACK_URLS", value)]),
            )
            .expect("valid");
            assert_eq!(c.webhooks.allow_loopback_urls, allowed, "{value}");
        }
    }
}

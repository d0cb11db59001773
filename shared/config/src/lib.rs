//! The one configuration of every Specpress process, and the one tracing set-up ([`logging::init_tracing`]).
//!
//! [`Config`] declares each setting once, with clap: its environment variable, its command-line option, its default
//! and its validation. A Lambda function reads it from the environment alone ([`Config::from_env`], through its
//! Lambda helper), failing fast naming the variable; `specpress serve` flattens the same [`Config`] into its command
//! line, so every setting is an option and a variable there ([`env_command`] gives that command the same reading of
//! the environment). Every variable name and default is the one template.yaml, the README and docs/limits.md list.
//!
//! How a value is read ([`settings`]): trimmed, and a variable set to nothing (or blanks) counts as unset. Settings
//! that were always tolerant (the diff, page and rate-limit tuning knobs: a malformed or out-of-range value is
//! ignored with a warning naming the variable, the default applies) stay so; every other malformed value stops the
//! process at start.
//!
//! This crate depends on no HTTP server and no AWS SDK: HTTP functions, workers and the local server all take it.

pub mod logging;
pub mod settings;

use std::time::Duration;

use clap::{ArgAction, Args, Command, FromArgMatches};

pub use settings::{ConfigError, Knob};
use settings::{problem, strict, tuning, tuning_knob};

/// Default request body limit, counted after a `Content-Encoding: gzip` body is decompressed: room for the largest
/// real documents (GitHub's 13 MB description, twice in a diff, JSON-escaped). AWS Lambda refuses request payloads
/// over 6 MB before the function runs; larger bodies reach a function gzip-compressed.
pub const DEFAULT_MAX_BODY_BYTES: usize = 64 * 1024 * 1024;
/// Default largest API document (the definition and each reference), checked before parsing.
pub const DEFAULT_MAX_DOCUMENT_BYTES: usize = 32 * 1024 * 1024;
/// Default age of an outbox event before the sweeper sends it.
pub const DEFAULT_OUTBOX_GRACE: Duration = Duration::from_secs(30);
/// Default budget of a delivery invocation whose deadline cannot be real, in seconds: the template's timeout of the
/// delivery function.
pub const DEFAULT_LOCAL_FUNCTION_TIMEOUT_SECS: u64 = 60;
/// Default per-client rate of the diff routes, requests per minute.
pub const DEFAULT_DIFF_RATE_PER_MINUTE: u32 = 120;
/// Default per-client burst of the diff routes.
pub const DEFAULT_DIFF_RATE_BURST: u32 = 30;
/// Default longest life of a diff created without a token, in days.
pub const DEFAULT_ANONYMOUS_DIFF_MAX_DAYS: u32 = 30;
/// Default bytes all diffs created without a token keep together (1 GiB).
pub const DEFAULT_ANONYMOUS_DIFF_QUOTA_BYTES: u64 = 1 << 30;
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

/// Where the data is kept: a group of its own, which the operator commands take without the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Args)]
pub struct Storage {
    /// Use this DynamoDB table (real AWS, or moto via AWS_ENDPOINT_URL) instead of the embedded engine; required
    /// by the Lambda functions.
    #[arg(long, env = "SPECPRESS_TABLE", value_parser = strict(settings::text, "a table name"))]
    pub table: Option<String>,
}

/// Configuration of the webhook event path.
#[derive(Clone, PartialEq, Args)]
pub struct WebhookConfig {
    /// Base64 of the 32-byte key sealing webhook secrets at rest (required by the webhook functions; `specpress
    /// serve` keeps a generated one in its data directory when unset).
    #[arg(
        long = "webhook-secret-key",
        env = "SPECPRESS_WEBHOOK_SECRET_KEY",
        hide_env_values = true,
        value_parser = strict(settings::text, "the base64 of 32 bytes")
    )]
    pub secret_key: Option<String>,
    /// Multiplies the webhook retry schedule (tests: 0.001); unset is 1.
    #[arg(
        long = "webhook-retry-scale",
        env = "SPECPRESS_WEBHOOK_RETRY_SCALE",
        value_name = "FACTOR",
        value_parser = strict(settings::number, "a number")
    )]
    pub retry_scale: Option<f64>,
    /// How old an unsent outbox event must be before the sweeper sends it, in seconds.
    #[arg(
        long = "outbox-grace-secs",
        env = "SPECPRESS_OUTBOX_GRACE_SECS",
        value_name = "SECONDS",
        default_value = "30",
        value_parser = strict(settings::seconds, "a number of seconds")
    )]
    pub outbox_grace: Duration,
    /// `true` (any case) allows loopback subscriber and download URLs, any other value does not; never honoured
    /// inside Lambda (the HTTP client refuses it there).
    #[arg(
        long = "allow-loopback-urls",
        env = "SPECPRESS_ALLOW_LOOPBACK_URLS",
        value_name = "true|false",
        action = ArgAction::Set,
        default_value = "false",
        value_parser = strict(settings::exactly_true, "`true` or `false`")
    )]
    pub allow_loopback_urls: bool,
    /// The delivery function's budget, in seconds (1 to 900), when an invocation's deadline cannot be real (local
    /// emulators); scripts/aws-local.sh sets the template's timeout.
    #[arg(
        long = "local-function-timeout",
        env = "SPECPRESS_LOCAL_FUNCTION_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = DEFAULT_LOCAL_FUNCTION_TIMEOUT_SECS,
        value_parser = tuning(1..=900, DEFAULT_LOCAL_FUNCTION_TIMEOUT_SECS)
    )]
    pub local_function_timeout: u64,
}

impl std::fmt::Debug for WebhookConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookConfig")
            .field("secret_key", &self.secret_key.as_ref().map(|_| "***"))
            .field("retry_scale", &self.retry_scale)
            .field("outbox_grace", &self.outbox_grace)
            .field("allow_loopback_urls", &self.allow_loopback_urls)
            .field("local_function_timeout", &self.local_function_timeout)
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
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct DiffsSettings {
    /// Largest `POST /diffs` body in bytes; unset: the request body limit (`SPECPRESS_MAX_BODY_BYTES`).
    #[arg(
        id = "diff_max_body_bytes",
        long = "diff-max-body-bytes",
        env = "SPECPRESS_DIFF_MAX_BODY_BYTES",
        value_name = "BYTES",
        default_value = "",
        hide_default_value = true,
        value_parser = tuning_knob::<usize>(0..=usize::MAX)
    )]
    pub max_body_bytes: Knob<usize>,
    /// Per-client requests per minute on the diff routes (0 disables the limit).
    #[arg(
        long = "diff-rate-per-minute",
        env = "SPECPRESS_DIFF_RATE_PER_MINUTE",
        default_value_t = DEFAULT_DIFF_RATE_PER_MINUTE,
        value_parser = tuning(0..=u32::MAX, DEFAULT_DIFF_RATE_PER_MINUTE)
    )]
    pub rate_per_minute: u32,
    /// Per-client burst on the diff routes.
    #[arg(
        long = "diff-rate-burst",
        env = "SPECPRESS_DIFF_RATE_BURST",
        default_value_t = DEFAULT_DIFF_RATE_BURST,
        value_parser = tuning(0..=u32::MAX, DEFAULT_DIFF_RATE_BURST)
    )]
    pub rate_burst: u32,
    /// Longest life of a diff created without a token, 1 to 3660 days.
    #[arg(
        long = "anonymous-diff-max-days",
        env = "SPECPRESS_ANONYMOUS_DIFF_MAX_DAYS",
        value_name = "DAYS",
        default_value_t = DEFAULT_ANONYMOUS_DIFF_MAX_DAYS,
        value_parser = tuning(1..=MAX_ANONYMOUS_DIFF_DAYS, DEFAULT_ANONYMOUS_DIFF_MAX_DAYS)
    )]
    pub anonymous_max_days: u32,
    /// Bytes all diffs created without a token keep together (at least 1).
    #[arg(
        long = "anonymous-diff-quota-bytes",
        env = "SPECPRESS_ANONYMOUS_DIFF_QUOTA_BYTES",
        value_name = "BYTES",
        default_value_t = DEFAULT_ANONYMOUS_DIFF_QUOTA_BYTES,
        value_parser = tuning(1..=u64::MAX, DEFAULT_ANONYMOUS_DIFF_QUOTA_BYTES)
    )]
    pub anonymous_quota_bytes: u64,
}

/// Per-client limit of failed credential checks on the public site (sign-in attempts, tokens presented to pages,
/// session cookies that do not open). Malformed values are ignored with a warning.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct AuthSettings {
    /// Failed credential checks a client regains per minute on the public site (0 disables the limit).
    #[arg(
        long = "auth-failure-rate-per-minute",
        env = "SPECPRESS_AUTH_FAILURE_RATE_PER_MINUTE",
        default_value_t = DEFAULT_AUTH_FAILURE_RATE_PER_MINUTE,
        value_parser = tuning(0..=u32::MAX, DEFAULT_AUTH_FAILURE_RATE_PER_MINUTE)
    )]
    pub failure_rate_per_minute: u32,
    /// Failed credential checks a client may make at once on the public site.
    #[arg(
        long = "auth-failure-burst",
        env = "SPECPRESS_AUTH_FAILURE_BURST",
        default_value_t = DEFAULT_AUTH_FAILURE_BURST,
        value_parser = tuning(1..=u32::MAX, DEFAULT_AUTH_FAILURE_BURST)
    )]
    pub failure_burst: u32,
}

/// Settings of the public pages (the docs function). Malformed values are ignored with a warning.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct DocsSettings {
    /// Memory budget of the parsed documents kept for the public pages, in bytes.
    #[arg(
        long = "page-cache-bytes",
        env = "SPECPRESS_PAGE_CACHE_BYTES",
        value_name = "BYTES",
        default_value_t = DEFAULT_PAGE_CACHE_BYTES,
        value_parser = tuning(0..=u64::MAX, DEFAULT_PAGE_CACHE_BYTES)
    )]
    pub page_cache_bytes: u64,
    /// Memory budget of the search indexes, in bytes.
    #[arg(
        long = "search-cache-bytes",
        env = "SPECPRESS_SEARCH_CACHE_BYTES",
        value_name = "BYTES",
        default_value_t = DEFAULT_SEARCH_CACHE_BYTES,
        value_parser = tuning(0..=u64::MAX, DEFAULT_SEARCH_CACHE_BYTES)
    )]
    pub search_cache_bytes: u64,
    /// MCP requests a client regains per minute on the documentations' MCP servers (0 disables the limit).
    #[arg(
        long = "mcp-rate-per-minute",
        env = "SPECPRESS_MCP_RATE_PER_MINUTE",
        default_value_t = DEFAULT_MCP_RATE_PER_MINUTE,
        value_parser = tuning(0..=u32::MAX, DEFAULT_MCP_RATE_PER_MINUTE)
    )]
    pub mcp_rate_per_minute: u32,
    /// MCP requests a client may make at once.
    #[arg(
        long = "mcp-burst",
        env = "SPECPRESS_MCP_BURST",
        default_value_t = DEFAULT_MCP_BURST,
        value_parser = tuning(1..=u32::MAX, DEFAULT_MCP_BURST)
    )]
    pub mcp_burst: u32,
    /// "Try it" proxy requests a client regains per minute (`POST /doc/{doc}/try`; 0 disables the limit).
    #[arg(
        long = "try-rate-per-minute",
        env = "SPECPRESS_TRY_RATE_PER_MINUTE",
        default_value_t = DEFAULT_TRY_RATE_PER_MINUTE,
        value_parser = tuning(0..=u32::MAX, DEFAULT_TRY_RATE_PER_MINUTE)
    )]
    pub try_rate_per_minute: u32,
    /// "Try it" proxy requests a client may make at once.
    #[arg(
        long = "try-burst",
        env = "SPECPRESS_TRY_BURST",
        default_value_t = DEFAULT_TRY_BURST,
        value_parser = tuning(1..=u32::MAX, DEFAULT_TRY_BURST)
    )]
    pub try_burst: u32,
}

/// Outbound mail (issue 38, docs/mail.md). Which transport: on Lambda, Amazon SES when `SPECPRESS_MAIL_FROM` is set,
/// no mail otherwise; in `specpress serve`, SMTP when `SPECPRESS_SMTP_URL` is set, else `.eml` files in the data
/// directory's `outbox/` folder. A malformed value stops the process at start.
#[derive(Clone, Default, PartialEq, Eq, Args)]
pub struct MailSettings {
    /// The SMTP server of `specpress serve`: `smtp://host:port` (plain), `smtp://host:587?tls=required` (STARTTLS),
    /// `smtps://user:password@host:465` (TLS). Unset: mail is written as `.eml` files into the data directory's
    /// `outbox/` folder.
    #[arg(
        long = "smtp-url",
        env = "SPECPRESS_SMTP_URL",
        value_name = "URL",
        hide_env_values = true,
        value_parser = strict(settings::smtp_url, "an smtp:// or smtps:// URL with a host (smtp://127.0.0.1:2525)")
    )]
    pub smtp_url: Option<String>,
    /// The sender of every mail, `Name <address>` or an address (`Specpress <docs@example.com>`); on AWS the SES
    /// identity mail is sent from (unset there: no mail). Unset locally: `Specpress <specpress@localhost>`.
    #[arg(
        long = "mail-from",
        env = "SPECPRESS_MAIL_FROM",
        value_name = "SENDER",
        value_parser = strict(settings::mail_from, "a sender, `Name <docs@example.com>` or `docs@example.com`")
    )]
    pub mail_from: Option<String>,
    /// The Amazon SES configuration set every mail is sent with (template.yaml's: its event destination publishes
    /// bounces and complaints to the topic the `mail-events` function reads). Unset: none.
    #[arg(
        long = "ses-configuration-set",
        env = "SPECPRESS_SES_CONFIGURATION_SET",
        value_name = "NAME",
        value_parser = strict(settings::text, "a configuration set name")
    )]
    pub ses_configuration_set: Option<String>,
}

impl std::fmt::Debug for MailSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MailSettings")
            .field("smtp_url", &self.smtp_url.as_ref().map(|_| "***"))
            .field("mail_from", &self.mail_from)
            .field("ses_configuration_set", &self.ses_configuration_set)
            .finish()
    }
}

/// The local sender when `SPECPRESS_MAIL_FROM` is unset.
pub const DEFAULT_LOCAL_MAIL_FROM: &str = "Specpress <specpress@localhost>";

/// Everything a Specpress process is configured with.
#[derive(Clone, PartialEq, Args)]
pub struct Config {
    /// Where the process runs.
    #[arg(skip = Runtime::Local)]
    pub runtime: Runtime,
    /// Where the data is kept.
    #[command(flatten)]
    pub storage: Storage,
    /// Base of every public URL (no trailing slash). Unset: derived from each request's `Host` on Lambda,
    /// `http://HOST:PORT` for `specpress serve`.
    #[arg(
        long,
        env = "SPECPRESS_PUBLIC_URL",
        value_name = "URL",
        default_value = "",
        hide_default_value = true,
        value_parser = strict(settings::base_url, "a URL")
    )]
    pub public_url: String,
    /// `true` when every request reaches the service through a proxy that sets `X-Forwarded-Host` and
    /// `X-Forwarded-Proto` itself: without a public URL, public URLs then name the host and scheme the proxy
    /// reports; `false`: only the request's `Host`. `true` or `false`, any case.
    #[arg(
        long,
        env = "SPECPRESS_TRUST_FORWARDED_HOST",
        value_name = "true|false",
        action = ArgAction::Set,
        default_value = "false",
        value_parser = strict(settings::switch, "`true` or `false`")
    )]
    pub trust_forwarded_host: bool,
    /// Request body limit in bytes, counted decompressed when a body is sent gzip-compressed (Lambda's own 6 MB
    /// payload ceiling applies on the wire before that).
    #[arg(
        long,
        env = "SPECPRESS_MAX_BODY_BYTES",
        value_name = "BYTES",
        default_value_t = DEFAULT_MAX_BODY_BYTES,
        value_parser = strict(settings::count::<usize>, "a byte count")
    )]
    pub max_body_bytes: usize,
    /// Largest API document in bytes (the definition and each reference), checked before parsing.
    #[arg(
        long,
        env = "SPECPRESS_MAX_DOCUMENT_BYTES",
        value_name = "BYTES",
        default_value_t = DEFAULT_MAX_DOCUMENT_BYTES,
        value_parser = strict(settings::count::<usize>, "a byte count")
    )]
    pub max_document_bytes: usize,
    /// The SQS webhook queue (required by the webhook functions; deploys send committed events there when set).
    #[arg(long, env = "SPECPRESS_QUEUE_URL", value_name = "URL", value_parser = strict(settings::text, "a URL"))]
    pub queue_url: Option<String>,
    /// The webhook queue's dead-letter queue.
    #[arg(
        long,
        env = "SPECPRESS_DEAD_LETTER_QUEUE_URL",
        value_name = "URL",
        value_parser = strict(settings::text, "a URL")
    )]
    pub dead_letter_queue_url: Option<String>,
    /// Key of the pagination cursors (at least 32 bytes). Unset: `specpress serve` keeps one in its data directory;
    /// a Lambda generates a random one (cursors then work within one instance only).
    #[arg(
        long,
        env = "SPECPRESS_CURSOR_KEY",
        value_name = "KEY",
        hide_env_values = true,
        value_parser = strict(settings::text, "a key")
    )]
    pub cursor_key: Option<String>,
    /// The webhook event path.
    #[command(flatten)]
    pub webhooks: WebhookConfig,
    /// The public diff routes.
    #[command(flatten)]
    pub diffs: DiffsSettings,
    /// The public pages.
    #[command(flatten)]
    pub docs: DocsSettings,
    /// The limit of failed credential checks on the public site.
    #[command(flatten)]
    pub auth: AuthSettings,
    /// Outbound mail.
    #[command(flatten)]
    pub mail: MailSettings,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("runtime", &self.runtime)
            .field("storage", &self.storage)
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
            .field("mail", &self.mail)
            .finish()
    }
}

impl Default for Config {
    /// Every default, nothing set: what a process configured by nothing would use (tests, in-process apps). The
    /// defaults are the declarations' own (nothing given, the environment not read).
    fn default() -> Self {
        match Config::parse(
            Runtime::Local,
            std::iter::empty::<String>(),
            Environment::Ignored,
        ) {
            Ok(config) => config,
            // Every default is a valid value of its setting (the tests parse them all).
            Err(e) => unreachable!("the declared defaults are valid: {e}"),
        }
    }
}

/// Whether a parse reads the process environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Environment {
    /// Each setting's variable, as clap's `env` reads it (blank values unset, [`env_command`]).
    Read,
    /// Only the arguments and the defaults (tests, [`Config::default`]).
    Ignored,
}

impl Config {
    /// The configuration of a Lambda function, from the process environment alone. Fails fast naming the first
    /// malformed variable, or `SPECPRESS_TABLE` when it is missing.
    pub fn from_env() -> Result<Self, ConfigError> {
        let config = Config::parse(
            Runtime::Lambda,
            std::iter::empty::<String>(),
            Environment::Read,
        )?;
        config.require_table()?;
        Ok(config)
    }

    /// The configuration of a local process (the tests and benchmarks that wire the routers as `specpress serve`
    /// does), from the process environment alone.
    pub fn local_from_env() -> Result<Self, ConfigError> {
        Config::parse(
            Runtime::Local,
            std::iter::empty::<String>(),
            Environment::Read,
        )
    }

    /// The configuration from command-line arguments (without the program name) and, when `environment` says so,
    /// the process environment; a malformed value is an error naming its variable.
    pub fn parse<I, T>(
        runtime: Runtime,
        args: I,
        environment: Environment,
    ) -> Result<Self, ConfigError>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let declared = Config::augment_args(Command::new("specpress").no_binary_name(true));
        let command = match environment {
            Environment::Read => env_command(declared.clone()),
            Environment::Ignored => declared.clone().mut_args(|a| a.env(None::<&str>)),
        };
        let matches = command
            .try_get_matches_from(args)
            .map_err(|e| settings::config_error(&declared, &e))?;
        let mut config = Config::from_arg_matches(&matches)
            .map_err(|e| settings::config_error(&declared, &e))?;
        config.runtime = runtime;
        Ok(config)
    }

    /// The DynamoDB table (`SPECPRESS_TABLE`), when one is set.
    pub fn table(&self) -> Option<&str> {
        self.storage.table.as_deref()
    }

    /// The webhook queue URL; `Err` naming `SPECPRESS_QUEUE_URL` when unset (the webhook functions need it).
    pub fn require_queue_url(&self) -> Result<&str, ConfigError> {
        self.queue_url
            .as_deref()
            .ok_or_else(|| problem("SPECPRESS_QUEUE_URL", "is not set"))
    }

    /// The DynamoDB table; `Err` naming `SPECPRESS_TABLE` when unset.
    pub fn require_table(&self) -> Result<&str, ConfigError> {
        self.table()
            .ok_or_else(|| problem("SPECPRESS_TABLE", "is required"))
    }
}

/// `command` (and its subcommands) reading the environment as every Specpress process does: each setting's
/// variable through clap's `env`, a variable set to nothing or blanks counting as unset. `specpress` builds its
/// command line with it, so its options and the Lambdas' variables are read alike.
pub fn env_command(command: Command) -> Command {
    settings::blank_env_unset(command)
}

#[cfg(test)]
mod tests;

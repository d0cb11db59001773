//! The tracing set-up: one function, [`init_tracing`], for every Specpress binary.
//!
//! - **Lambda** (`Runtime::Lambda`, every function's `main.rs` through its Lambda helper): JSON lines on stdout by default, which CloudWatch Logs
//!   Insights parses; `AWS_LAMBDA_LOG_FORMAT=Text` (Lambda's advanced logging controls) switches to plain text. The
//!   level follows the runtime's own helper: `AWS_LAMBDA_LOG_LEVEL` (`TRACE` .. `FATAL`) sets the default level,
//!   `RUST_LOG` directives refine it, `INFO` otherwise. Never ANSI colours (CloudWatch shows them as `[2m...`).
//! - **Local server** (`Runtime::Local`, `specpress serve` and the admin commands): text on stderr by default,
//!   `SPECPRESS_LOG_FORMAT=json` for JSON lines; filter `SPECPRESS_LOG` (`RUST_LOG` syntax, default `info`). ANSI
//!   colours only when stderr is a terminal and `NO_COLOR` is not set, so piped or redirected logs are plain.
//!
//! These variables belong to the tracing set-up, read when it runs (first thing in `main`), before [`Config`] is read,
//! so that configuration warnings are logged. Logs never carry headers, bodies or tokens.
//!
//! [`Config`]: crate::Config

use std::io::IsTerminal as _;

use crate::Runtime;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;

/// Variable choosing the local server's log format (`text` or `json`).
pub const LOG_FORMAT_ENV: &str = "SPECPRESS_LOG_FORMAT";
/// Variable holding the local server's log filter.
pub const LOG_FILTER_ENV: &str = "SPECPRESS_LOG";

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// One JSON object per line.
    Json,
    /// Human-readable lines.
    Text,
}

/// Where log lines go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogWriter {
    /// Standard output (Lambda: the runtime forwards it to CloudWatch).
    Stdout,
    /// Standard error (the local server keeps stdout for its banner).
    Stderr,
}

/// A complete logging configuration, decided from the environment by [`LogSettings::lambda`] or
/// [`LogSettings::local`] and applied by [`init`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSettings {
    /// Line format.
    pub format: LogFormat,
    /// Default level for targets no directive names.
    pub default_level: LevelFilter,
    /// `RUST_LOG`-syntax directives on top of the default level (may be empty).
    pub directives: String,
    /// Whether to colour text lines with ANSI escape codes.
    pub ansi: bool,
    /// Destination.
    pub writer: LogWriter,
}

/// An environment variable that holds a value this module cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("environment variable {name}: {problem}")]
pub struct LogConfigError {
    /// The variable.
    pub name: &'static str,
    /// What is wrong with it.
    pub problem: String,
}

fn lambda_level(value: &str) -> Option<LevelFilter> {
    match value.trim().to_ascii_uppercase().as_str() {
        "TRACE" => Some(LevelFilter::TRACE),
        "DEBUG" => Some(LevelFilter::DEBUG),
        "INFO" => Some(LevelFilter::INFO),
        "WARN" => Some(LevelFilter::WARN),
        // Lambda's FATAL has no tracing counterpart: errors are the most severe events there are.
        "ERROR" | "FATAL" => Some(LevelFilter::ERROR),
        _ => None,
    }
}

impl LogSettings {
    /// The Lambda settings, from an environment lookup (`std::env::var` in production).
    pub fn lambda(env: impl Fn(&str) -> Option<String>) -> Self {
        let format = match env("AWS_LAMBDA_LOG_FORMAT") {
            Some(f) if f.trim().eq_ignore_ascii_case("text") => LogFormat::Text,
            _ => LogFormat::Json,
        };
        let default_level = env("AWS_LAMBDA_LOG_LEVEL")
            .as_deref()
            .and_then(lambda_level)
            .unwrap_or(LevelFilter::INFO);
        LogSettings {
            format,
            default_level,
            directives: env("RUST_LOG").unwrap_or_default(),
            ansi: false,
            writer: LogWriter::Stdout,
        }
    }

    /// The local server's settings, from an environment lookup; `stderr_is_terminal` decides colours.
    pub fn local(
        env: impl Fn(&str) -> Option<String>,
        stderr_is_terminal: bool,
    ) -> Result<Self, LogConfigError> {
        let format = match env(LOG_FORMAT_ENV).as_deref().map(str::trim) {
            None | Some("") => LogFormat::Text,
            Some(f) if f.eq_ignore_ascii_case("text") => LogFormat::Text,
            Some(f) if f.eq_ignore_ascii_case("json") => LogFormat::Json,
            Some(_) => {
                return Err(LogConfigError {
                    name: LOG_FORMAT_ENV,
                    problem: "must be `text` or `json`".into(),
                });
            }
        };
        let no_color = env("NO_COLOR").is_some_and(|v| !v.is_empty());
        Ok(LogSettings {
            format,
            default_level: LevelFilter::INFO,
            directives: env(LOG_FILTER_ENV).unwrap_or_default(),
            ansi: format == LogFormat::Text && stderr_is_terminal && !no_color,
            writer: LogWriter::Stderr,
        })
    }

    fn filter(&self) -> EnvFilter {
        EnvFilter::builder()
            .with_default_directive(self.default_level.into())
            .parse_lossy(&self.directives)
    }
}

fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Installs the global subscriber for `settings`. A second call (tests, several commands in one process) leaves the
/// first subscriber in place.
pub fn init(settings: &LogSettings) {
    let builder = tracing_subscriber::fmt()
        .with_env_filter(settings.filter())
        .with_ansi(settings.ansi);
    let _ = match (settings.format, settings.writer) {
        (LogFormat::Json, LogWriter::Stdout) => builder
            .json()
            .with_current_span(true)
            .with_writer(std::io::stdout)
            .try_init(),
        (LogFormat::Json, LogWriter::Stderr) => builder
            .json()
            .with_current_span(true)
            .with_writer(std::io::stderr)
            .try_init(),
        (LogFormat::Text, LogWriter::Stdout) => builder.with_writer(std::io::stdout).try_init(),
        (LogFormat::Text, LogWriter::Stderr) => builder.with_writer(std::io::stderr).try_init(),
    };
}

/// Installs the tracing subscriber of a process running as `runtime` (see the module documentation): JSON lines
/// on Lambda, human-readable text locally (colours only on a terminal). `Err` names a variable with an unusable
/// value (local only: Lambda falls back to its defaults). A second call leaves the first subscriber in place.
pub fn init_tracing(runtime: Runtime) -> Result<(), LogConfigError> {
    let settings = match runtime {
        Runtime::Lambda => LogSettings::lambda(env_var),
        Runtime::Local => LogSettings::local(env_var, std::io::stderr().is_terminal())?,
    };
    init(&settings);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tests::lookup as env;

    #[test]
    fn lambda_logs_json_without_colours_by_default() {
        let s = LogSettings::lambda(env(&[]));
        assert_eq!(s.format, LogFormat::Json);
        assert_eq!(s.default_level, LevelFilter::INFO);
        assert!(!s.ansi);
        assert_eq!(s.writer, LogWriter::Stdout);
    }

    #[test]
    fn lambda_follows_the_advanced_logging_controls_and_rust_log() {
        let s = LogSettings::lambda(env(&[
            ("AWS_LAMBDA_LOG_FORMAT", "Text"),
            ("AWS_LAMBDA_LOG_LEVEL", "DEBUG"),
            ("RUST_LOG", "aws_config=warn"),
        ]));
        assert_eq!(s.format, LogFormat::Text);
        assert_eq!(s.default_level, LevelFilter::DEBUG);
        assert_eq!(s.directives, "aws_config=warn");
        assert!(!s.ansi, "never colours in CloudWatch");
        let fatal = LogSettings::lambda(env(&[
            ("AWS_LAMBDA_LOG_FORMAT", "JSON"),
            ("AWS_LAMBDA_LOG_LEVEL", "FATAL"),
        ]));
        assert_eq!(fatal.format, LogFormat::Json);
        assert_eq!(fatal.default_level, LevelFilter::ERROR);
        let unknown = LogSettings::lambda(env(&[("AWS_LAMBDA_LOG_LEVEL", "loud")]));
        assert_eq!(unknown.default_level, LevelFilter::INFO);
    }

    #[test]
    fn the_local_server_colours_only_a_terminal() {
        let piped = LogSettings::local(env(&[]), false).expect("valid");
        assert_eq!(piped.format, LogFormat::Text);
        assert!(!piped.ansi);
        assert_eq!(piped.writer, LogWriter::Stderr);
        assert!(LogSettings::local(env(&[]), true).expect("valid").ansi);
        assert!(
            !LogSettings::local(env(&[("NO_COLOR", "1")]), true)
                .expect("valid")
                .ansi
        );
        let json = LogSettings::local(env(&[(LOG_FORMAT_ENV, "JSON")]), true).expect("valid");
        assert_eq!(json.format, LogFormat::Json);
        assert!(!json.ansi, "JSON lines carry no escape codes");
    }

    #[test]
    fn an_unknown_local_format_is_refused_with_the_variable_name() {
        let e = LogSettings::local(env(&[(LOG_FORMAT_ENV, "yaml")]), false).expect_err("refused");
        assert_eq!(e.name, LOG_FORMAT_ENV);
        assert!(e.to_string().contains("`text` or `json`"));
    }

    #[test]
    fn filters_combine_the_default_level_and_the_directives() {
        let s = LogSettings::local(env(&[(LOG_FILTER_ENV, "warn,specpress=debug")]), false)
            .expect("valid");
        assert_eq!(s.filter().to_string(), "specpress=debug,warn");
        let none = LogSettings::local(env(&[]), false).expect("valid");
        assert_eq!(none.filter().to_string(), "info");
    }
}

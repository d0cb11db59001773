//! How a setting's value is read, for clap: each setting of [`Config`](crate::Config) names its parser here.
//!
//! - [`strict`]: a value that must be valid; a malformed one stops the process, naming its variable.
//! - [`tuning`] and [`tuning_knob`]: a tuning knob; a malformed or out-of-range value is ignored with a warning
//!   naming its variable, and the default applies (for a [`Knob`], "unset").
//!
//! Every value is trimmed first. A variable set to nothing or blanks counts as unset ([`blank_env_unset`]), so it
//! never reaches a parser; an empty value reaches one only as a declared default or an explicit empty option.

use std::ffi::OsStr;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::time::Duration;

use clap::builder::{StringValueParser, TypedValueParser};
use clap::error::ContextKind;
use clap::{Arg, Command};

/// A missing or malformed variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("environment variable {name}: {problem}")]
pub struct ConfigError {
    /// The variable.
    pub name: String,
    /// What is wrong.
    pub problem: String,
}

/// A [`ConfigError`] naming `name`.
pub fn problem(name: &str, problem: impl Into<String>) -> ConfigError {
    ConfigError {
        name: name.to_owned(),
        problem: problem.into(),
    }
}

/// A value a strict setting refuses, with the setting's argument id and its variable (when the command reading it
/// reads one).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{problem}{}", variable.as_deref().map(|v| format!(" (the variable {v} or this option)")).unwrap_or_default())]
struct Refused {
    problem: String,
    id: Option<String>,
    variable: Option<String>,
}

/// The environment variable of `arg`, when it reads one.
fn env_of(arg: &Arg) -> Option<String> {
    arg.get_env()
        .map(|name| name.to_string_lossy().into_owned())
}

/// The environment variable of `arg`, or its id when it reads none (for warnings).
fn variable_of(arg: Option<&Arg>) -> Option<String> {
    let arg = arg?;
    Some(env_of(arg).unwrap_or_else(|| arg.get_id().to_string()))
}

/// The parser of a strict setting: `parse` gives `None` for a value that is not `what`.
#[derive(Clone)]
pub struct Strict<T> {
    parse: fn(&str) -> Option<T>,
    what: &'static str,
}

/// A strict setting's parser: the trimmed value through `parse`; `None` is refused as "must be `what`".
pub fn strict<T>(parse: fn(&str) -> Option<T>, what: &'static str) -> Strict<T> {
    Strict { parse, what }
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Strict<T> {
    type Value = T;

    fn parse_ref(&self, cmd: &Command, arg: Option<&Arg>, value: &OsStr) -> Result<T, clap::Error> {
        let (parse, what) = (self.parse, self.what);
        let id = arg.map(|a| a.get_id().to_string());
        let variable = arg.and_then(env_of);
        // clap's own string parser, so a refusal is its usual value error (the option, the value) with ours as
        // the source, which names the setting.
        StringValueParser::new()
            .try_map(move |text: String| {
                parse(text.trim()).ok_or_else(|| Refused {
                    problem: format!("must be {what}"),
                    id: id.clone(),
                    variable: variable.clone(),
                })
            })
            .parse_ref(cmd, arg, value)
    }
}

/// A tuning knob's trimmed value if it parses and lies in `range`; otherwise `None`, with a warning naming the
/// variable unless the value is empty (a declared default of nothing).
fn tuned<T: FromStr + PartialOrd>(
    arg: Option<&Arg>,
    value: &OsStr,
    range: &RangeInclusive<T>,
) -> Option<T> {
    let parsed = value
        .to_str()
        .map(str::trim)
        .map(|text| (text.is_empty(), text.parse::<T>()));
    match parsed {
        Some((true, _)) => None,
        Some((false, Ok(v))) if range.contains(&v) => Some(v),
        _ => {
            let variable = variable_of(arg).unwrap_or_default();
            tracing::warn!(variable = %variable, "ignoring a malformed or out-of-range setting");
            None
        }
    }
}

/// The parser of a tuning knob with a default.
#[derive(Clone)]
pub struct Tuning<T> {
    range: RangeInclusive<T>,
    fallback: T,
}

/// A tuning knob's parser: a value in `range`, anything else `fallback` (the default) with a warning.
pub fn tuning<T>(range: RangeInclusive<T>, fallback: T) -> Tuning<T> {
    Tuning { range, fallback }
}

impl<T> TypedValueParser for Tuning<T>
where
    T: FromStr + PartialOrd + Clone + Send + Sync + 'static,
{
    type Value = T;

    fn parse_ref(
        &self,
        _cmd: &Command,
        arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        Ok(tuned(arg, value, &self.range).unwrap_or_else(|| self.fallback.clone()))
    }
}

/// A tuning knob without a default: `None` when unset, or set to a value that was ignored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Knob<T>(pub Option<T>);

impl<T: Copy> Knob<T> {
    /// The value, when one was set and taken.
    pub fn get(self) -> Option<T> {
        self.0
    }
}

/// The parser of a [`Knob`].
#[derive(Clone)]
pub struct TuningKnob<T> {
    range: RangeInclusive<T>,
}

/// A [`Knob`]'s parser: a value in `range`, anything else unset with a warning.
pub fn tuning_knob<T>(range: RangeInclusive<T>) -> TuningKnob<T> {
    TuningKnob { range }
}

impl<T> TypedValueParser for TuningKnob<T>
where
    T: FromStr + PartialOrd + Clone + Send + Sync + 'static,
{
    type Value = Knob<T>;

    fn parse_ref(
        &self,
        _cmd: &Command,
        arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<Knob<T>, clap::Error> {
        Ok(Knob(tuned(arg, value, &self.range)))
    }
}

/// Any text but an empty one.
pub fn text(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

/// A number (`f64`).
pub fn number(s: &str) -> Option<f64> {
    s.parse().ok()
}

/// A non-negative, finite number of seconds that a [`Duration`] holds.
pub fn seconds(s: &str) -> Option<Duration> {
    let secs: f64 = s.parse().ok()?;
    (secs.is_finite() && secs >= 0.0)
        .then(|| Duration::try_from_secs_f64(secs).ok())
        .flatten()
}

/// A count (a byte size, a limit).
pub fn count<T: FromStr>(s: &str) -> Option<T> {
    s.parse().ok()
}

/// `true` or `false`, any case.
pub fn switch(s: &str) -> Option<bool> {
    if s.eq_ignore_ascii_case("true") {
        Some(true)
    } else if s.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// `true` (any case) is true, anything else false.
pub fn exactly_true(s: &str) -> Option<bool> {
    Some(s.eq_ignore_ascii_case("true"))
}

/// A base URL without its trailing slashes; empty is "none".
pub fn base_url(s: &str) -> Option<String> {
    Some(s.trim_end_matches('/').to_owned())
}

/// An SMTP connection URL: `smtp://` or `smtps://`, a host, an optional numeric port, an optional `tls` of
/// `required`, `opportunistic` or `wrapper` (the mail adapter parses it fully at start).
pub fn smtp_url(s: &str) -> Option<String> {
    let rest = s
        .strip_prefix("smtp://")
        .or_else(|| s.strip_prefix("smtps://"))?;
    let (authority, query) = match rest.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (rest, None),
    };
    let authority = authority.trim_end_matches('/');
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = match host_port.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (h, Some(p)),
        _ => (host_port, None),
    };
    let host_ok =
        !host.is_empty() && !host.contains(['/', ' ']) && !s.chars().any(char::is_control);
    let port_ok = port.is_none_or(|p| p.parse::<u16>().is_ok_and(|n| n > 0));
    let query_ok = query.is_none_or(|q| {
        q.split('&').all(|pair| match pair.split_once('=') {
            Some(("tls", v)) => matches!(v, "required" | "opportunistic" | "wrapper"),
            Some(_) => true,
            None => false,
        })
    });
    (host_ok && port_ok && query_ok).then(|| s.to_owned())
}

/// A mail sender: `Name <local@domain>` or `local@domain`; the domain has a dot or is `localhost`, no white space
/// or control character in the address, no `<`, `>` or `"` in the name.
pub fn mail_from(s: &str) -> Option<String> {
    let address = match s.split_once('<') {
        Some((name, rest)) => {
            let address = rest.strip_suffix('>')?;
            let name = name.trim();
            if name.contains(['<', '>', '"']) || name.chars().any(char::is_control) {
                return None;
            }
            address
        }
        None => s,
    };
    let (local, domain) = address.rsplit_once('@')?;
    let atext = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~.".contains(c);
    let local_ok = !local.is_empty() && local.len() <= 64 && local.chars().all(atext);
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    };
    let domain_ok = domain.len() <= 253
        && domain.split('.').all(label_ok)
        && (domain.contains('.') || domain.eq_ignore_ascii_case("localhost"));
    (local_ok && domain_ok).then(|| s.to_owned())
}

/// The [`ConfigError`] of a clap error met while reading settings: the variable of the refused value (as `declared`,
/// the settings' command as declared, names it) and what is wrong with it.
pub fn config_error(declared: &Command, e: &clap::Error) -> ConfigError {
    let by_id = |id: &str| {
        declared
            .get_arguments()
            .find(|a| a.get_id() == id)
            .and_then(env_of)
    };
    let refused = std::error::Error::source(e).and_then(|s| s.downcast_ref::<Refused>());
    if let Some(r) = refused {
        let id = r.id.clone().unwrap_or_default();
        let name = r.variable.clone().or_else(|| by_id(&id)).unwrap_or(id);
        return problem(&name, r.problem.clone());
    }
    // Not a value of ours (an unknown option, a missing value): the argument clap names, by its variable.
    let named = e.get(ContextKind::InvalidArg).map(ToString::to_string);
    let variable = named.as_deref().and_then(|shown| {
        declared
            .get_arguments()
            .find(|a| a.to_string() == shown)
            .and_then(env_of)
    });
    let first_line = e.to_string().lines().next().unwrap_or_default().to_owned();
    problem(
        &variable
            .or(named)
            .unwrap_or_else(|| "configuration".to_owned()),
        first_line.trim_start_matches("error: ").to_owned(),
    )
}

/// `command` (and its subcommands) with every argument whose variable is set to nothing or blanks reading no
/// variable: such a variable counts as unset, as it always did.
pub fn blank_env_unset(command: Command) -> Command {
    let mut command = command.mut_args(|arg| {
        let blank = arg.get_env().is_some_and(|name| {
            std::env::var_os(name).is_some_and(|v| v.to_string_lossy().trim().is_empty())
        });
        if blank {
            arg.env(None::<&'static str>)
        } else {
            arg
        }
    });
    let names: Vec<String> = command
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .collect();
    for name in names {
        command = command.mut_subcommand(name, blank_env_unset);
    }
    command
}

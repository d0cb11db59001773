//! The one hardened outbound HTTP client of Specpress, shared by diff-by-URL downloads, webhook
//! delivery, workflow runs and the "Try it" proxy. Every outbound request the service makes on behalf
//! of a user goes through [`SafeClient`], because every such URL is attacker-controlled (SSRF,
//! reliability.md §4.1). The rules about URLs themselves ([`check_url`], [`Origin`]) need no
//! client: without the default `client` feature the crate is those rules alone (the `url` crate
//! and nothing of HTTP), which is how the workflow engine checks a document's servers at deploy
//! with the very parser a run sends with.
//!
//! # Rules and the reasoning behind them
//!
//! * **Schemes**: `http` and `https` only. `file:`, `gopher:` and friends reach things an HTTP
//!   client must not (on Lambda, `file:///proc/self/environ` holds the role credentials).
//! * **No user info** (`https://user:pass@host`): credentials in URLs end up in logs, and
//!   `user@host` spellings are a classic way to confuse allow-list parsers.
//! * **Addresses**: only public unicast ([`classify_ip`] documents every refused range:
//!   loopback, RFC 1918, link-local incl. 169.254.169.254, CGNAT, unique-local, multicast,
//!   unspecified, documentation, benchmarking, reserved, IPv4-in-IPv6, NAT64, 6to4, Teredo).
//! * **IP literals** are normalised by the WHATWG URL parser (`url` crate), the same parser the
//!   HTTP stack uses, so `2852039166`, `0251.0376.0251.0376`, `0xa9fea9fe`, `127.1` and `0`
//!   are checked as the address that would be dialled. They are checked without DNS.
//! * **Host names** are resolved once, by our resolver plugged into the connector, and the
//!   connection is made to the checked addresses (no check-then-resolve-again TOCTOU, so DNS
//!   rebinding cannot switch the target). If any answer is refused, the whole name is refused.
//! * **Loopback** is refused unless [`FetchPolicy::allow_loopback`] is set (services set it from
//!   `SPECPRESS_ALLOW_LOOPBACK_URLS=true`, for local development and tests). It never unlocks
//!   private, link-local or any other range, and it is ignored inside AWS Lambda (detected by
//!   its reserved variables, [`is_real_lambda`]), where loopback is the runtime API: a misconfigured
//!   deployment cannot expose it. Under a local emulator (`cargo lambda watch`, scripts/aws-local.sh)
//!   the switch works. [`SafeClient::policy`] shows the effective setting.
//! * **Ports**: any port is allowed. The address check is what keeps requests off internal
//!   services; on a public host a non-default port is legitimate (dev servers, `:8443` webhook
//!   receivers). Restricting to 80/443 would break those users without adding protection to our
//!   own network. (The Lambda runtime API on `127.0.0.1:9001` is refused as loopback.)
//! * **Redirects**: one loop follows them for [`SafeClient::get`] and [`SafeClient::send`], at
//!   most [`FetchPolicy::max_redirects`] (default 3), re-checking **every hop** like a new URL
//!   (scheme, user info, literal address, and DNS through the filtering resolver); an `https` to
//!   `http` downgrade is refused. The HTTP stack's own redirect handling is disabled: it would skip
//!   the literal-address check of later hops. [`SafeClient::post_json`] never follows redirects (a
//!   webhook 3xx is a failed attempt).
//! * **Credentials stay with their origin** ([`redirect`]): a hop to another origin carries none of
//!   the caller's credentials, as browsers and curl do: only headers that cannot carry one
//!   ([`redirect::SAFE_ACROSS_ORIGINS`]) go on, so `Authorization`, cookies and any API-key header
//!   are dropped, and a query parameter of the new URL that repeats a value of the caller's query
//!   string (where an API key travels) is removed. Dropped once, they stay dropped for later hops.
//! * **Origins** ([`SafeClient::send`]): a request that names the origins it may reach (a workflow's
//!   servers, a documentation's for "Try it") is refused before any connection when its URL, or any
//!   redirect, leaves them. An origin is always the `url` crate's ([`Origin`]): one parser for every
//!   origin check, at deploy and at run alike.
//! * **Time**: connect timeout 3 s (DNS + TCP + TLS), total 10 s for the whole exchange
//!   including all hops and the body; both configurable (webhooks use 15 s).
//! * **Body**: capped (default 5 MiB) and counted **after** decompression (gzip, deflate,
//!   brotli), streaming, so a compression bomb stops at the cap instead of filling memory.
//! * **No proxy from the environment**: `HTTP(S)_PROXY` would route around the resolver check.
//! * **No automatic retries** inside the client: the webhook retry policy owns retries.
//!
//! Errors are a typed [`FetchError`] with a user-safe message and a separate log detail.

mod error;
mod ip;
mod origin;
pub mod redirect;

#[cfg(feature = "client")]
mod client;
#[cfg(feature = "client")]
mod resolver;

use std::time::Duration;

use url::{Host, Url};

#[cfg(feature = "client")]
pub use client::{FetchedBody, Outbound, PostOutcome, SafeClient};
pub use error::{FetchError, TimeoutPhase};
pub use ip::{AddressClass, check_ip, classify_ip, classify_v4, classify_v6};
pub use origin::Origin;
#[cfg(feature = "client")]
pub use resolver::{DnsResolve, SystemResolver};

/// Environment variable the services read to set [`FetchPolicy::allow_loopback`].
pub const ALLOW_LOOPBACK_ENV: &str = "SPECPRESS_ALLOW_LOOPBACK_URLS";
/// Longest URL accepted.
pub const MAX_URL_LEN: usize = 8 * 1024;
/// Default body cap: 5 MiB, after decompression.
pub const DEFAULT_MAX_BODY_BYTES: u64 = 5 * 1024 * 1024;
/// How much of a POST response is kept for the delivery log.
pub const DEFAULT_RESPONSE_PREFIX_BYTES: usize = 2 * 1024;

/// Interprets the value of [`ALLOW_LOOPBACK_ENV`]: only the exact text `true` (any case,
/// surrounding spaces ignored) enables loopback, so a typo fails closed.
pub fn allow_loopback_from_env_value(value: Option<&str>) -> bool {
    value.is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// Whether this process is an AWS Lambda function on AWS, where `allow_loopback` is ignored: see [`is_real_lambda`].
#[cfg(feature = "client")]
fn running_in_lambda() -> bool {
    is_real_lambda(
        std::env::var("AWS_LAMBDA_RUNTIME_API").ok().as_deref(),
        std::env::var("AWS_EXECUTION_ENV").ok().as_deref(),
    )
}

/// Whether a process with these variables runs on AWS Lambda itself rather than under a local emulator.
///
/// On Lambda the runtime sets `AWS_LAMBDA_RUNTIME_API` to `host:port` (`127.0.0.1:9001`) and `AWS_EXECUTION_ENV`
/// (`AWS_Lambda_provided.al2023`); both are reserved, so a function's configuration cannot set or change them.
/// `cargo lambda watch` (scripts/aws-local.sh) gives a URL with a path (`http://127.0.0.1:9000/.rt/docs`) and no
/// `AWS_EXECUTION_ENV`. Only that combination counts as an emulator: anything else with a runtime API is Lambda, so a
/// deployment cannot unlock loopback by its own settings.
pub fn is_real_lambda(runtime_api: Option<&str>, execution_env: Option<&str>) -> bool {
    let Some(api) = runtime_api else {
        return false;
    };
    let emulator = execution_env.is_none_or(str::is_empty)
        && api.split_once("://").is_some_and(|(_, rest)| {
            rest.split_once('/')
                .is_some_and(|(_, path)| !path.is_empty())
        });
    !emulator
}

/// Limits and switches of a [`SafeClient`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchPolicy {
    /// Permit loopback targets (127.0.0.0/8, ::1) and nothing else beyond public addresses.
    pub allow_loopback: bool,
    /// Budget for DNS + TCP connect + TLS handshake.
    pub connect_timeout: Duration,
    /// Budget for the whole exchange of [`SafeClient::get`] (all hops, headers and body).
    pub total_timeout: Duration,
    /// Cap on the decompressed body of [`SafeClient::get`].
    pub max_body_bytes: u64,
    /// Redirects [`SafeClient::get`] follows (each hop re-checked); 0 returns the 3xx as is.
    pub max_redirects: u32,
    /// Bytes of a [`SafeClient::post_json`] response kept in [`PostOutcome::body_prefix`].
    pub response_prefix_bytes: usize,
}

impl Default for FetchPolicy {
    fn default() -> Self {
        Self {
            allow_loopback: false,
            connect_timeout: Duration::from_secs(3),
            total_timeout: Duration::from_secs(10),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_redirects: 3,
            response_prefix_bytes: DEFAULT_RESPONSE_PREFIX_BYTES,
        }
    }
}

impl FetchPolicy {
    /// The webhook delivery preset: 15 s total, no redirects, 2 KB response prefix.
    pub fn webhook() -> Self {
        Self {
            total_timeout: Duration::from_secs(15),
            max_redirects: 0,
            ..Self::default()
        }
    }
}

/// Validates a URL without network access: length, syntax, scheme, user info, and (for IP
/// literals, in every spelling) the address. Host names pass here and are checked when
/// resolved. Use it to refuse a subscriber URL at registration time; prefer
/// [`SafeClient::check_url`], which applies the client's effective policy (loopback is never
/// allowed inside AWS Lambda) and [`SafeClient::check_url_resolved`], which also checks DNS.
pub fn check_url(url: &str, policy: &FetchPolicy) -> Result<Url, FetchError> {
    if url.len() > MAX_URL_LEN {
        return Err(FetchError::InvalidUrl {
            reason: format!("longer than {MAX_URL_LEN} characters"),
        });
    }
    let parsed = Url::parse(url.trim()).map_err(|e| FetchError::InvalidUrl {
        reason: e.to_string(),
    })?;
    check_parsed(parsed, policy)
}

pub(crate) fn check_parsed(url: Url, policy: &FetchPolicy) -> Result<Url, FetchError> {
    match url.scheme() {
        "http" | "https" => {}
        other => {
            return Err(FetchError::UnsupportedScheme {
                scheme: other.to_owned(),
            });
        }
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(FetchError::UserInfo);
    }
    let literal = match url.host() {
        None => {
            return Err(FetchError::InvalidUrl {
                reason: "no host".to_owned(),
            });
        }
        Some(Host::Domain("")) => {
            return Err(FetchError::InvalidUrl {
                reason: "empty host".to_owned(),
            });
        }
        Some(Host::Domain(_)) => None,
        Some(Host::Ipv4(v4)) => Some(std::net::IpAddr::V4(v4)),
        Some(Host::Ipv6(v6)) => Some(std::net::IpAddr::V6(v6)),
    };
    if let Some(ip) = literal {
        check_ip(ip, policy.allow_loopback).map_err(|class| FetchError::BlockedAddress {
            host: url.host_str().unwrap_or_default().to_owned(),
            ip,
            class,
            literal: true,
        })?;
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_value_enables_loopback_only_for_true() {
        assert!(allow_loopback_from_env_value(Some("true")));
        assert!(allow_loopback_from_env_value(Some(" TRUE ")));
        for v in [
            None,
            Some(""),
            Some("1"),
            Some("yes"),
            Some("false"),
            Some("tru"),
        ] {
            assert!(!allow_loopback_from_env_value(v), "{v:?}");
        }
    }

    #[test]
    fn default_policy_matches_the_documented_limits() {
        let p = FetchPolicy::default();
        assert!(!p.allow_loopback);
        assert_eq!(p.connect_timeout, Duration::from_secs(3));
        assert_eq!(p.total_timeout, Duration::from_secs(10));
        assert_eq!(p.max_body_bytes, 5 * 1024 * 1024);
        assert_eq!(p.max_redirects, 3);
        let w = FetchPolicy::webhook();
        assert_eq!(w.total_timeout, Duration::from_secs(15));
        assert_eq!(w.max_redirects, 0);
    }
}

//! The typed fetch error: a user-safe message and a separate detail for logs.

use std::net::IpAddr;
use std::time::Duration;

use crate::ip::AddressClass;

/// Which budget a request ran out of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPhase {
    /// Resolving and connecting (TCP and TLS) took longer than the connect timeout.
    Connect,
    /// The whole exchange (all hops, headers and body) took longer than the total timeout.
    Total,
}

/// Why a fetch or a delivery failed.
///
/// [`FetchError::user_message`] (also the `Display` text) says what was refused and why without
/// internal detail: it never contains the address a *host name* resolved to, nor library error
/// text. [`FetchError::detail`] carries everything for the logs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FetchError {
    /// Not a parseable absolute URL, or too long.
    InvalidUrl {
        /// What is wrong, user-safe.
        reason: String,
    },
    /// A scheme other than `http` or `https`.
    UnsupportedScheme {
        /// The scheme given.
        scheme: String,
    },
    /// The URL carries a user name or password.
    UserInfo,
    /// The target address is not public.
    BlockedAddress {
        /// Host as written in the URL.
        host: String,
        /// The refused address (for logs; shown to users only when they wrote it literally).
        ip: IpAddr,
        /// Why it is refused.
        class: AddressClass,
        /// Whether the URL contained the address literally (no DNS involved).
        literal: bool,
    },
    /// The host name did not resolve to any address.
    Dns {
        /// Host as written in the URL.
        host: String,
        /// Resolver error, for logs.
        detail: String,
    },
    /// TCP connection or TLS handshake failed.
    Connect {
        /// Host as written in the URL.
        host: String,
        /// Underlying error chain, for logs.
        detail: String,
    },
    /// A time budget ran out.
    Timeout {
        /// Which budget.
        phase: TimeoutPhase,
        /// The budget's length.
        after: Duration,
    },
    /// More redirects than allowed.
    TooManyRedirects {
        /// The maximum number of redirects followed.
        max: u32,
    },
    /// A redirect without a usable `Location`, or from `https` to `http`.
    BadRedirect {
        /// What is wrong, user-safe.
        reason: String,
    },
    /// The URL (or a redirect's) is on an origin the request may not go to.
    OriginNotAllowed {
        /// The refused origin (`https://host:port`).
        origin: String,
    },
    /// The (decompressed) body exceeds the cap.
    BodyTooLarge {
        /// The cap in bytes.
        limit: u64,
    },
    /// The server answered with a non-success status (see `FetchedBody::error_for_status`).
    HttpStatus {
        /// The status received.
        status: u16,
    },
    /// The response could not be read or decoded (corrupt gzip, reset mid-body, protocol error).
    Transport {
        /// Underlying error chain, for logs.
        detail: String,
    },
    /// The HTTP client could not be built (TLS setup).
    ClientSetup {
        /// Underlying error chain, for logs.
        detail: String,
    },
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.user_message())
    }
}

impl std::error::Error for FetchError {}

impl FetchError {
    /// A message safe to return to the API caller (the service answers 422 with it).
    pub fn user_message(&self) -> String {
        match self {
            Self::InvalidUrl { reason } => format!("invalid URL: {reason}"),
            Self::UnsupportedScheme { scheme } => {
                format!("URL scheme `{scheme}` is not allowed; use http or https")
            }
            Self::UserInfo => "URLs with a user name or password are not allowed".to_owned(),
            Self::BlockedAddress {
                host,
                class,
                literal: true,
                ..
            } => {
                format!("URL host `{host}` is {class}; only public internet addresses are allowed")
            }
            Self::BlockedAddress { host, .. } => format!(
                "URL host `{host}` resolves to a non-public address; only public internet \
                 addresses are allowed"
            ),
            Self::Dns { host, .. } => format!("URL host `{host}` could not be resolved"),
            Self::Connect { host, .. } => format!("could not connect to `{host}`"),
            Self::Timeout {
                phase: TimeoutPhase::Connect,
                after,
            } => format!("connecting timed out after {} ms", after.as_millis()),
            Self::Timeout {
                phase: TimeoutPhase::Total,
                after,
            } => format!("the request timed out after {} ms", after.as_millis()),
            Self::TooManyRedirects { max } => {
                format!("too many redirects (at most {max} are followed)")
            }
            Self::BadRedirect { reason } => format!("refused redirect: {reason}"),
            Self::OriginNotAllowed { origin } => {
                format!("`{origin}` is not one of the servers this request may go to")
            }
            Self::BodyTooLarge { limit } => {
                format!("the response body exceeds the limit of {limit} bytes")
            }
            Self::HttpStatus { status } => format!("the server answered with HTTP {status}"),
            Self::Transport { .. } => "the response could not be read".to_owned(),
            Self::ClientSetup { .. } => "the HTTP client is unavailable".to_owned(),
        }
    }

    /// Everything known, for server-side logs (may contain resolved addresses and library
    /// error text; never return it to callers).
    pub fn detail(&self) -> String {
        match self {
            Self::BlockedAddress {
                host,
                ip,
                class,
                literal,
            } => format!("blocked address: host={host} ip={ip} class={class:?} literal={literal}"),
            Self::Dns { host, detail } => format!("dns failure: host={host}: {detail}"),
            Self::Connect { host, detail } => format!("connect failure: host={host}: {detail}"),
            Self::Transport { detail } => format!("transport failure: {detail}"),
            Self::ClientSetup { detail } => format!("client setup failure: {detail}"),
            other => other.user_message(),
        }
    }

    /// Whether this is a policy refusal (the URL itself is unacceptable), as opposed to a
    /// failure of the remote side.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            Self::InvalidUrl { .. }
                | Self::UnsupportedScheme { .. }
                | Self::UserInfo
                | Self::BlockedAddress { .. }
                | Self::TooManyRedirects { .. }
                | Self::BadRedirect { .. }
                | Self::OriginNotAllowed { .. }
        )
    }

    /// Whether a time budget ran out.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Self::Timeout { .. })
    }
}

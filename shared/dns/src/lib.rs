//! DNS TXT lookups for custom hostname verification (issue 40): the domain's
//! [`TxtResolver`](specpress_domain::ports::TxtResolver) port over `hickory-resolver`.
//!
//! - The resolver is the system's (`/etc/resolv.conf`) unless `SPECPRESS_DNS_RESOLVER` names one (`ip` or
//!   `ip:port`, UDP then TCP): tests point it at a local DNS server, and a private zone can be checked through its
//!   own server.
//! - Nothing is cached: an owner who adds the record and asks again is answered from DNS, not from a remembered
//!   "no such record".
//! - Bounded: 3 s per query, 2 attempts, 10 s for the whole lookup; at most [`MAX_RECORDS`] records, each cut at
//!   [`MAX_RECORD_BYTES`] (the value Specpress asks for is 55 bytes).
//! - A record's character strings are joined (a TXT value longer than 255 bytes is split into several strings);
//!   bytes that are not UTF-8 are replaced, so such a record can never equal the value.
//! - "No such name" and "no TXT record there" are an empty answer; timeouts, refusals and server failures are a
//!   [`LookupFailed`] saying which.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use async_trait::async_trait;
use hickory_resolver::TokioResolver;
use hickory_resolver::config::{NameServerConfig, ResolverConfig, ResolverOpts};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::proto::rr::RData;
use specpress_domain::ports::{LookupFailed, TxtResolver};

/// The variable naming the resolver to ask (`ip` or `ip:port`); unset or empty: the system's.
pub const RESOLVER_ENV: &str = "SPECPRESS_DNS_RESOLVER";
/// Most records read from one answer.
pub const MAX_RECORDS: usize = 50;
/// Longest record kept, in bytes.
pub const MAX_RECORD_BYTES: usize = 4096;
/// Budget of one whole lookup.
const TOTAL: Duration = Duration::from_secs(10);

/// Why a resolver could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// `SPECPRESS_DNS_RESOLVER` is not an address.
    #[error(
        "{RESOLVER_ENV} must be an IP address with an optional port (`127.0.0.1:5353`), not {0:?}"
    )]
    BadAddress(String),
    /// The system's configuration could not be read.
    #[error("the system's DNS configuration cannot be read: {0}")]
    System(String),
}

/// TXT lookups through one resolver. Cheap to clone; build it once per process.
#[derive(Clone)]
pub struct DnsTxt {
    resolver: TokioResolver,
}

impl std::fmt::Debug for DnsTxt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DnsTxt")
    }
}

fn options(mut opts: ResolverOpts) -> ResolverOpts {
    opts.timeout = Duration::from_secs(3);
    opts.attempts = 2;
    opts.cache_size = 0;
    opts.ndots = 0;
    opts
}

/// Parses `ip` or `ip:port` (port 53 by default; `[v6]:port` for IPv6 with a port).
pub fn parse_server(value: &str) -> Result<SocketAddr, SetupError> {
    let v = value.trim();
    if let Ok(addr) = v.parse::<SocketAddr>() {
        return Ok(addr);
    }
    v.parse::<IpAddr>()
        .map(|ip| SocketAddr::new(ip, 53))
        .map_err(|_| SetupError::BadAddress(v.chars().take(80).collect()))
}

impl DnsTxt {
    /// Lookups through the system's resolvers.
    pub fn system() -> Result<Self, SetupError> {
        let mut builder =
            TokioResolver::builder_tokio().map_err(|e| SetupError::System(e.to_string()))?;
        let opts = options(builder.options_mut().clone());
        *builder.options_mut() = opts;
        let resolver = builder
            .build()
            .map_err(|e| SetupError::System(e.to_string()))?;
        Ok(DnsTxt { resolver })
    }

    /// Lookups through the one server at `addr` (UDP, then TCP for truncated answers).
    pub fn with_server(addr: SocketAddr) -> Result<Self, SetupError> {
        let mut server = NameServerConfig::udp_and_tcp(addr.ip());
        for c in &mut server.connections {
            c.port = addr.port();
        }
        let config = ResolverConfig::from_name_servers(vec![server]);
        let resolver = TokioResolver::builder_with_config(config, TokioRuntimeProvider::default())
            .with_options(options(ResolverOpts::default()))
            .build()
            .map_err(|e| SetupError::System(e.to_string()))?;
        Ok(DnsTxt { resolver })
    }

    /// The resolver `SPECPRESS_DNS_RESOLVER`'s value names (`None` or empty: the system's).
    pub fn from_env_value(value: Option<&str>) -> Result<Self, SetupError> {
        match value.map(str::trim).filter(|v| !v.is_empty()) {
            Some(v) => Self::with_server(parse_server(v)?),
            None => Self::system(),
        }
    }

    /// The resolver the environment names ([`RESOLVER_ENV`]).
    pub fn from_env() -> Result<Self, SetupError> {
        Self::from_env_value(std::env::var(RESOLVER_ENV).ok().as_deref())
    }
}

/// A record's character strings joined, cut at [`MAX_RECORD_BYTES`], as text.
fn record_text(strings: &[Box<[u8]>]) -> String {
    let mut bytes: Vec<u8> = Vec::new();
    for s in strings {
        let room = MAX_RECORD_BYTES.saturating_sub(bytes.len());
        bytes.extend_from_slice(&s[..s.len().min(room)]);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[async_trait]
impl TxtResolver for DnsTxt {
    async fn txt_records(&self, name: &str) -> Result<Vec<String>, LookupFailed> {
        // Fully qualified: no search domain is ever appended.
        let fqdn = if name.ends_with('.') {
            name.to_owned()
        } else {
            format!("{name}.")
        };
        let lookup = match tokio::time::timeout(TOTAL, self.resolver.txt_lookup(fqdn)).await {
            Err(_) => return Err(LookupFailed("the lookup timed out".into())),
            Ok(Ok(l)) => l,
            Ok(Err(e)) if e.is_no_records_found() || e.is_nx_domain() => return Ok(Vec::new()),
            Ok(Err(e)) => {
                tracing::info!(error = %e, "TXT lookup failed");
                return Err(LookupFailed(describe(&e)));
            }
        };
        Ok(lookup
            .answers()
            .iter()
            .filter_map(|r| match &r.data {
                RData::TXT(txt) => Some(record_text(&txt.txt_data)),
                _ => None,
            })
            .take(MAX_RECORDS)
            .collect())
    }
}

/// What an owner is told about a failed lookup (the resolver's own words, without addresses).
fn describe(e: &hickory_resolver::net::NetError) -> String {
    use hickory_resolver::net::NetError;
    match e {
        NetError::Timeout => "the DNS server did not answer in time".into(),
        NetError::Dns(d) => format!("the DNS server answered with an error ({d})"),
        _ => "the DNS servers could not be reached".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resolver_is_an_address_with_an_optional_port() {
        assert_eq!(
            parse_server("127.0.0.1:5353").unwrap(),
            "127.0.0.1:5353".parse().unwrap()
        );
        assert_eq!(
            parse_server(" 10.0.0.2 ").unwrap(),
            "10.0.0.2:53".parse().unwrap()
        );
        assert_eq!(
            parse_server("[::1]:5353").unwrap(),
            "[::1]:5353".parse().unwrap()
        );
        assert_eq!(parse_server("::1").unwrap(), "[::1]:53".parse().unwrap());
        for bad in ["dns.example.com", "127.0.0.1:", "127.0.0.1:99999", ""] {
            assert!(parse_server(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_record_s_strings_are_joined_and_bounded() {
        let parts: Vec<Box<[u8]>> = vec![
            b"specpress-verification=".to_vec().into(),
            b"abc".to_vec().into(),
        ];
        assert_eq!(record_text(&parts), "specpress-verification=abc");
        let big: Vec<Box<[u8]>> = (0..40)
            .map(|_| vec![b'x'; 255].into_boxed_slice())
            .collect();
        assert_eq!(record_text(&big).len(), MAX_RECORD_BYTES);
        let bad: Vec<Box<[u8]>> = vec![vec![0xff, b'a'].into()];
        assert_eq!(record_text(&bad), "\u{fffd}a");
    }
}

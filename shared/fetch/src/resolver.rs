//! DNS resolution that refuses non-public answers, plugged into the HTTP connector.
//!
//! The connector asks *this* resolver for the addresses of a host name and dials exactly the
//! addresses it returns. The check and the connection therefore use the same answer: there is
//! no second lookup a DNS-rebinding attacker could answer differently (no TOCTOU). IP-literal
//! hosts never reach a resolver (the connector dials them directly); [`crate::check_url`] checks
//! them before every request and every redirect hop.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use async_trait::async_trait;

use crate::ip::{AddressClass, check_ip};

/// Most addresses handed to the connector for one name (all are checked first).
const MAX_ADDRESSES: usize = 16;

/// A source of DNS answers. Production uses [`SystemResolver`]; tests inject their own to make
/// a name resolve to any address.
#[async_trait]
pub trait DnsResolve: Send + Sync + 'static {
    /// All addresses of `host` (A and AAAA).
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>>;
}

/// The operating system's resolver (`getaddrinfo` via tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

#[async_trait]
impl DnsResolve for SystemResolver {
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        let addrs = tokio::net::lookup_host((host, 0)).await?;
        Ok(addrs.map(|a| a.ip()).collect())
    }
}

/// Why the filtering resolver refused a name; travels inside reqwest's error chain and is
/// recovered by downcasting.
#[derive(Debug)]
pub(crate) enum DnsRefusal {
    Blocked {
        host: String,
        ip: IpAddr,
        class: AddressClass,
    },
    NoAddress {
        host: String,
        detail: String,
    },
}

impl std::fmt::Display for DnsRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Blocked { host, ip, class } => {
                write!(f, "{host} resolved to refused address {ip} ({class:?})")
            }
            Self::NoAddress { host, detail } => write!(f, "{host} did not resolve: {detail}"),
        }
    }
}

impl std::error::Error for DnsRefusal {}

/// Resolves with the inner resolver, then refuses the whole name if **any** answer is not
/// allowed. Refusing (rather than dropping the bad answers) is deliberate: a name that mixes
/// public and internal records is either misconfigured or an attack, and dropping would let an
/// attacker probe which internal addresses exist by timing.
pub(crate) struct FilteringResolver {
    pub(crate) inner: Arc<dyn DnsResolve>,
    pub(crate) allow_loopback: bool,
}

impl FilteringResolver {
    pub(crate) async fn resolve_checked(&self, host: &str) -> Result<Vec<IpAddr>, DnsRefusal> {
        // Names arrive as written in the URL (IDNA-encoded by the URL parser); a trailing dot is
        // an absolute name and resolves the same.
        let ips = self
            .inner
            .lookup(host)
            .await
            .map_err(|e| DnsRefusal::NoAddress {
                host: host.to_owned(),
                detail: e.to_string(),
            })?;
        if ips.is_empty() {
            return Err(DnsRefusal::NoAddress {
                host: host.to_owned(),
                detail: "no A or AAAA records".to_owned(),
            });
        }
        for ip in &ips {
            if let Err(class) = check_ip(*ip, self.allow_loopback) {
                return Err(DnsRefusal::Blocked {
                    host: host.to_owned(),
                    ip: *ip,
                    class,
                });
            }
        }
        Ok(ips.into_iter().take(MAX_ADDRESSES).collect())
    }
}

impl reqwest::dns::Resolve for FilteringResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let inner = Arc::clone(&self.inner);
        let allow_loopback = self.allow_loopback;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let me = FilteringResolver {
                inner,
                allow_loopback,
            };
            let ips = me.resolve_checked(&host).await?;
            // Port 0: the connector substitutes the URL's port.
            let addrs: reqwest::dns::Addrs =
                Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Fixed(HashMap<&'static str, Vec<IpAddr>>);

    #[async_trait]
    impl DnsResolve for Fixed {
        async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
            self.0
                .get(host)
                .cloned()
                .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "unknown"))
        }
    }

    fn resolver(allow_loopback: bool) -> FilteringResolver {
        let ip = |s: &str| s.parse::<IpAddr>().expect("test ip");
        let map = HashMap::from([
            (
                "public.test",
                vec![ip("93.184.215.14"), ip("2606:2800:21f:cb07::1")],
            ),
            ("private.test", vec![ip("10.1.2.3")]),
            (
                "mixed.test",
                vec![ip("93.184.215.14"), ip("169.254.169.254")],
            ),
            ("loop.test", vec![ip("127.0.0.1")]),
            ("empty.test", vec![]),
        ]);
        FilteringResolver {
            inner: Arc::new(Fixed(map)),
            allow_loopback,
        }
    }

    #[tokio::test]
    async fn public_answers_pass_through_to_the_connector() {
        let addrs =
            reqwest::dns::Resolve::resolve(&resolver(false), "public.test".parse().expect("name"))
                .await
                .expect("public name resolves");
        let addrs: Vec<SocketAddr> = addrs.collect();
        assert_eq!(addrs.len(), 2);
        assert_eq!(addrs[0], "93.184.215.14:0".parse().expect("addr"));
    }

    #[tokio::test]
    async fn private_or_mixed_answers_refuse_the_whole_name() {
        for host in ["private.test", "mixed.test", "loop.test"] {
            assert!(matches!(
                resolver(false).resolve_checked(host).await,
                Err(DnsRefusal::Blocked { .. })
            ));
        }
    }

    #[tokio::test]
    async fn loopback_answers_pass_only_when_allowed() {
        assert!(resolver(true).resolve_checked("loop.test").await.is_ok());
        assert!(
            resolver(true)
                .resolve_checked("private.test")
                .await
                .is_err()
        );
    }

    #[tokio::test]
    async fn unknown_and_empty_names_are_resolution_failures() {
        for host in ["nope.test", "empty.test"] {
            assert!(matches!(
                resolver(false).resolve_checked(host).await,
                Err(DnsRefusal::NoAddress { .. })
            ));
        }
    }
}

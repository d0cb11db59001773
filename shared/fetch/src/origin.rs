//! [`Origin`]: the origin of a URL, as every origin check of the service compares it. One parser decides it, the
//! `url` crate's (the WHATWG URL standard, which the HTTP stack also dials with), so that a check at deploy and the
//! request at run can never read one URL two ways: `http://host:0018081` is port 18081 at both, `https://ex%61mple.com`
//! is `example.com` at both, and `https://user@host` is refused at both.

use std::fmt;

use url::Url;

use crate::{FetchError, FetchPolicy, check_url};

/// `scheme://host[:port]` of an absolute `http`/`https` URL: lowercase, the host in its ASCII form (IDNA,
/// percent-decoding and IPv4 spellings resolved as the `url` crate resolves them), the scheme's default port left
/// out. It holds no quote, semicolon, comma, space or wildcard, so it is also safe inside a
/// Content-Security-Policy.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin(String);

impl Origin {
    /// The origin of a URL a request may be sent to: [`check_url`]'s rules (length, syntax, `http`/`https`, no user
    /// name or password, a host, no IP literal outside public addresses) with loopback allowed, since that one
    /// depends on the deployment (`SPECPRESS_ALLOW_LOOPBACK_URLS`) and is checked again when a request is sent. A
    /// URL refused here is refused by every request, whatever the settings.
    pub fn parse(text: &str) -> Result<Origin, FetchError> {
        let policy = FetchPolicy {
            allow_loopback: true,
            ..FetchPolicy::default()
        };
        check_url(text, &policy).map(|url| Origin::of(&url))
    }

    /// The origin of a parsed URL (no check: see [`Origin::parse`]).
    pub fn of(url: &Url) -> Origin {
        Origin(url.origin().ascii_serialization())
    }

    /// Its text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its text, owned.
    pub fn into_string(self) -> String {
        self.0
    }

    /// Whether it is one of `allowed` (origin texts, compared without regard to case).
    pub fn is_among(&self, allowed: &[String]) -> bool {
        allowed.iter().any(|a| a.eq_ignore_ascii_case(&self.0))
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(text: &str) -> Option<String> {
        Origin::parse(text).ok().map(Origin::into_string)
    }

    #[test]
    fn spellings_of_one_origin_are_one_origin() {
        for (text, want) in [
            (
                "HTTPS://API.Example.com:443/v1?x#y",
                "https://api.example.com",
            ),
            ("http://host.test:0018081/x", "http://host.test:18081"),
            ("https://ex%61mple.com/", "https://example.com"),
            ("http://a.test:80", "http://a.test"),
            ("http://[::1]:80/", "http://[::1]"),
            ("http://127.1:8080/", "http://127.0.0.1:8080"),
            ("https://bücher.example/", "https://xn--bcher-kva.example"),
            ("  https://api.example.com  ", "https://api.example.com"),
        ] {
            assert_eq!(origin(text).as_deref(), Some(want), "{text}");
        }
    }

    #[test]
    fn what_no_request_may_reach_has_no_origin() {
        for text in [
            "https://user@api.example.com/",
            "https://user:pass@api.example.com/",
            "ftp://a.test/",
            "/relative",
            "//a.test/x",
            "https://a.test:99999999/",
            "http://169.254.169.254/latest",
            "http://10.0.0.1/",
            "http://0/",
            "https://[fd00:ec2::254]/",
            "",
        ] {
            assert_eq!(origin(text), None, "{text}");
        }
    }

    #[test]
    fn membership_ignores_case() {
        let o = Origin::parse("https://api.example.com/x").expect("origin");
        assert!(o.is_among(&["HTTPS://API.EXAMPLE.COM".into()]));
        assert!(!o.is_among(&["https://api.example.com:8443".into()]));
    }
}

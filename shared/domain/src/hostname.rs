//! Custom hostnames (issue 40): a documentation or hub served at the organization's own hostname once the
//! organization proves it controls it with a DNS TXT record.
//!
//! The rules: a hostname is an ordinary DNS name (letters, digits and dashes in labels of 1 to 63 characters, at
//! least two labels, 253 characters at most, internationalized names in their ASCII form, never an address); it is
//! claimed across the whole installation, so one hostname never reaches another organization's documentation; it
//! serves nothing until verified: a TXT record at `_specpress.<hostname>` holding exactly the random value minted
//! when the hostname was set.

use rand::Rng;
use rand::distr::Alphanumeric;
use serde::{Deserialize, Serialize};
use std::fmt;
use time::OffsetDateTime;

use crate::error::{DomainError, Result};
use crate::model::{DocOrHub, OrgId};

/// Longest hostname (RFC 1035, without the trailing dot).
pub const HOSTNAME_MAX: usize = 253;
/// Longest label.
const LABEL_MAX: usize = 63;
/// The label the TXT record lives under.
pub const TXT_LABEL: &str = "_specpress";
/// The prefix of every verification value.
const VALUE_PREFIX: &str = "specpress-verification=";

/// A DNS hostname in its canonical form: lowercase ASCII (an internationalized name as its `xn--` form), no
/// trailing dot, no port.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Hostname(String);

impl Hostname {
    /// Parses and normalizes a hostname given by a person (`Docs.Example.COM.` is `docs.example.com`); a 422 naming
    /// `field` for anything else (an address, a port, a path, a wildcard, a single label, a bad label).
    pub fn parse(field: &str, input: &str) -> Result<Self> {
        let bad = |why: &str| {
            DomainError::invalid(
                field,
                format!(
                    "'{}' is not a valid hostname: {why}",
                    input.chars().take(80).collect::<String>()
                ),
            )
        };
        let trimmed = input.trim();
        let trimmed = trimmed.strip_suffix('.').unwrap_or(trimmed);
        if trimmed.is_empty() || trimmed.len() > 4 * HOSTNAME_MAX {
            return Err(bad("give a name such as docs.example.com"));
        }
        if trimmed.contains(['/', ':', '@', '?', '#', '*', ' ', '[', ']', '\\']) {
            return Err(bad(
                "give the name alone, without a scheme, port, path or wildcard",
            ));
        }
        // The WHATWG host parser: internationalized names become their ASCII (punycode) form, as browsers send them.
        let host = match url::Host::parse(trimmed) {
            Ok(url::Host::Domain(d)) => d,
            Ok(_) => return Err(bad("an address is not a hostname")),
            Err(_) => return Err(bad("it is not a DNS name")),
        };
        let name = host.to_ascii_lowercase();
        if name.len() > HOSTNAME_MAX {
            return Err(bad(&format!("longer than {HOSTNAME_MAX} characters")));
        }
        let labels: Vec<&str> = name.split('.').collect();
        if labels.len() < 2 {
            return Err(bad("it needs at least two labels (docs.example.com)"));
        }
        for label in &labels {
            let ok = !label.is_empty()
                && label.len() <= LABEL_MAX
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-');
            if !ok {
                return Err(bad(&format!(
                    "each label is 1 to {LABEL_MAX} letters, digits and inner dashes"
                )));
            }
        }
        if labels
            .last()
            .is_some_and(|tld| tld.bytes().all(|b| b.is_ascii_digit()))
        {
            return Err(bad("an address is not a hostname"));
        }
        Ok(Hostname(name))
    }

    /// Rebuilds a stored hostname without re-validating.
    pub fn from_stored(name: String) -> Self {
        Hostname(name)
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name of the TXT record that proves control: `_specpress.<hostname>`.
    pub fn txt_name(&self) -> String {
        format!("{TXT_LABEL}.{}", self.0)
    }
}

impl fmt::Display for Hostname {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether a hostname serves yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DomainStatus {
    /// Set, waiting for its TXT record: serves nothing.
    Pending,
    /// Its TXT record was found: requests for it are served.
    Verified,
}

impl DomainStatus {
    /// `pending` or `verified`.
    pub fn as_str(self) -> &'static str {
        match self {
            DomainStatus::Pending => "pending",
            DomainStatus::Verified => "verified",
        }
    }

    /// Parses the stored form.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(DomainStatus::Pending),
            "verified" => Some(DomainStatus::Verified),
            _ => None,
        }
    }
}

/// A hostname set on a documentation or hub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomDomain {
    /// The hostname.
    pub hostname: Hostname,
    /// The organization that claimed it.
    pub org_id: OrgId,
    /// What it serves.
    pub target: DocOrHub,
    /// Pending or verified.
    pub status: DomainStatus,
    /// The value the TXT record must hold, exactly (random, minted when the hostname was set).
    pub value: String,
    /// When it was set.
    pub created_at: OffsetDateTime,
    /// When its record was found.
    pub verified_at: Option<OffsetDateTime>,
}

impl CustomDomain {
    /// A new, pending hostname for `target`, with a fresh verification value.
    pub fn new(hostname: Hostname, org_id: OrgId, target: DocOrHub, now: OffsetDateTime) -> Self {
        CustomDomain {
            hostname,
            org_id,
            target,
            status: DomainStatus::Pending,
            value: verification_value(),
            created_at: now,
            verified_at: None,
        }
    }

    /// Whether requests for it are served.
    pub fn is_verified(&self) -> bool {
        self.status == DomainStatus::Verified
    }
}

/// A fresh verification value: `specpress-verification=` and 32 random letters and digits (about 190 bits).
pub fn verification_value() -> String {
    let random: String = rand::rng()
        .sample_iter(&Alphanumeric)
        .take(32)
        .map(char::from)
        .collect();
    format!("{VALUE_PREFIX}{random}")
}

/// What a TXT lookup found, against the value expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TxtCheck {
    /// A record holds exactly the value.
    Match,
    /// No TXT record at the name.
    Missing,
    /// Records, none of them the value (what they hold, for the message).
    Mismatch(Vec<String>),
}

/// Compares the TXT records found at the verification name (each record's strings already joined) with the
/// expected value: only an exact, whole-record match counts.
pub fn check_txt(records: &[String], expected: &str) -> TxtCheck {
    if records.is_empty() {
        TxtCheck::Missing
    } else if records.iter().any(|r| r == expected) {
        TxtCheck::Match
    } else {
        TxtCheck::Mismatch(records.to_vec())
    }
}

/// The 422 of a verification that did not find the value, saying what it found (DNS data is public; each value is
/// shown escaped and cut, at most five).
pub fn verification_failure(domain: &CustomDomain, check: &TxtCheck) -> DomainError {
    let name = domain.hostname.txt_name();
    let message = match check {
        TxtCheck::Match => return DomainError::unexpected("a matching record is not a failure"),
        TxtCheck::Missing => format!(
            "No TXT record was found at {name}. Add a TXT record there with the value {} and try again (DNS changes \
             can take a while to be seen).",
            domain.value
        ),
        TxtCheck::Mismatch(found) => {
            let shown: Vec<String> = found
                .iter()
                .take(5)
                .map(|v| format!("{:?}", v.chars().take(100).collect::<String>()))
                .collect();
            let more = found.len().saturating_sub(5);
            format!(
                "The TXT records at {name} do not hold the expected value {} (found {}{}).",
                domain.value,
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            )
        }
    };
    DomainError::invalid("hostname", message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> String {
        Hostname::parse("hostname", s)
            .unwrap_or_else(|e| panic!("{s}: {e}"))
            .as_str()
            .to_owned()
    }

    #[test]
    fn hostnames_are_normalized_to_their_lowercase_ascii_form() {
        assert_eq!(ok("docs.example.com"), "docs.example.com");
        assert_eq!(ok("  Docs.Example.COM. "), "docs.example.com");
        assert_eq!(
            ok("api-docs.eu-1.example.co.uk"),
            "api-docs.eu-1.example.co.uk"
        );
        assert_eq!(ok("bücher.example"), "xn--bcher-kva.example");
        assert_eq!(ok("x1.example"), "x1.example");
    }

    #[test]
    fn addresses_ports_paths_wildcards_and_bad_labels_are_refused() {
        for bad in [
            "",
            ".",
            "localhost",
            "example",
            "127.0.0.1",
            "[::1]",
            "10.0.0.1.",
            "docs.example.com:443",
            "https://docs.example.com",
            "docs.example.com/path",
            "*.example.com",
            "user@docs.example.com",
            "-docs.example.com",
            "docs-.example.com",
            "docs..example.com",
            "docs_x.example.com",
            "docs example.com",
            "example.123",
        ] {
            assert!(Hostname::parse("hostname", bad).is_err(), "{bad:?}");
        }
        let long_label = format!("{}.example.com", "a".repeat(64));
        assert!(Hostname::parse("hostname", &long_label).is_err());
        let long_name = format!("{}example.com", "abcdefghi.".repeat(25));
        assert!(long_name.len() > HOSTNAME_MAX);
        assert!(Hostname::parse("hostname", &long_name).is_err());
        match Hostname::parse("hostname", "docs.example.com:8443") {
            Err(DomainError::Invalid { field, .. }) => assert_eq!(field, "hostname"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_txt_record_lives_under_the_specpress_label() {
        let h = Hostname::parse("hostname", "docs.example.com").unwrap();
        assert_eq!(h.txt_name(), "_specpress.docs.example.com");
    }

    #[test]
    fn verification_values_are_random_and_only_an_exact_record_matches() {
        let a = verification_value();
        assert!(a.starts_with("specpress-verification=") && a.len() == 23 + 32);
        assert_ne!(a, verification_value());
        assert_eq!(check_txt(&[], &a), TxtCheck::Missing);
        assert_eq!(
            check_txt(&["v=spf1 -all".into(), a.clone()], &a),
            TxtCheck::Match
        );
        for near in [
            format!(" {a}"),
            format!("{a} "),
            a.to_uppercase(),
            a[..a.len() - 1].to_owned(),
        ] {
            assert_eq!(
                check_txt(std::slice::from_ref(&near), &a),
                TxtCheck::Mismatch(vec![near.clone()])
            );
        }
    }

    #[test]
    fn a_failed_verification_says_what_it_found_escaped_and_bounded() {
        let d = CustomDomain::new(
            Hostname::parse("hostname", "docs.example.com").unwrap(),
            OrgId::new(),
            DocOrHub::Doc(crate::model::DocId::new()),
            OffsetDateTime::UNIX_EPOCH,
        );
        let missing = verification_failure(&d, &TxtCheck::Missing).to_string();
        assert!(missing.contains("No TXT record was found at _specpress.docs.example.com"));
        assert!(missing.contains(&d.value));
        let found: Vec<String> = (0..7).map(|i| format!("other\u{1b}[31m{i}")).collect();
        let text = verification_failure(&d, &TxtCheck::Mismatch(found)).to_string();
        assert!(
            text.contains("\\u{1b}[31m0") && !text.contains('\u{1b}'),
            "{text}"
        );
        assert!(text.contains("and 2 more"), "{text}");
    }
}

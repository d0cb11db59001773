//! Embed mode (issue 40): the origins that may show a documentation's or hub's pages inside a frame, and the
//! `frame-ancestors` directive they make. Exact `https` origins only: no wildcard, no path, no plain `http`, at
//! most [`MAX_EMBED_ORIGINS`]; each is kept in its normalized form (`scheme://host[:port]`, lowercase, the default
//! port left out, an internationalized name in its ASCII form), which is what a browser compares.

use serde::{Deserialize, Serialize};

use crate::error::{DomainError, Result};
use crate::hostname::Hostname;

/// Most origins one documentation or hub may list.
pub const MAX_EMBED_ORIGINS: usize = 20;
/// Longest origin accepted as given.
const ORIGIN_INPUT_MAX: usize = 300;

/// The origins that may frame the pages, normalized, without repeats, in the order given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EmbedOrigins(Vec<String>);

impl EmbedOrigins {
    /// Validates and normalizes the list a person gave; a 422 naming `field` that says which entry is wrong.
    pub fn parse(field: &str, given: &[String]) -> Result<Self> {
        if given.len() > MAX_EMBED_ORIGINS {
            return Err(DomainError::invalid(
                field,
                format!(
                    "{field} lists at most {MAX_EMBED_ORIGINS} origins ({} given)",
                    given.len()
                ),
            ));
        }
        let mut out: Vec<String> = Vec::with_capacity(given.len());
        for (i, entry) in given.iter().enumerate() {
            let origin = normalize_origin(entry).map_err(|why| {
                DomainError::invalid(
                    field,
                    format!(
                        "{field}[{i}] '{}' is not an https origin: {why}",
                        entry.chars().take(80).collect::<String>()
                    ),
                )
            })?;
            if !out.contains(&origin) {
                out.push(origin);
            }
        }
        Ok(EmbedOrigins(out))
    }

    /// Rebuilds a stored list without re-validating.
    pub fn from_stored(origins: Vec<String>) -> Self {
        EmbedOrigins(origins)
    }

    /// The origins.
    pub fn as_slice(&self) -> &[String] {
        &self.0
    }

    /// Whether no origin may frame the pages.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `origin` (as a browser sends it in `Origin`, or as a `Referer`'s origin) is one of them.
    pub fn allows(&self, origin: &str) -> bool {
        normalize_origin(origin).is_ok_and(|o| self.0.contains(&o))
    }

    /// The source list of the `frame-ancestors` directive: the origins, or `'none'` when there are none (no page
    /// may then be framed, as before embed mode existed).
    pub fn frame_ancestors(&self) -> String {
        if self.0.is_empty() {
            "'none'".to_owned()
        } else {
            self.0.join(" ")
        }
    }
}

/// `https://host[:port]` in normalized form, or why not.
fn normalize_origin(input: &str) -> std::result::Result<String, &'static str> {
    let input = input.trim();
    if input.is_empty() || input.len() > ORIGIN_INPUT_MAX {
        return Err("give an origin such as https://www.example.com");
    }
    let url = url::Url::parse(input).map_err(|_| "it is not a URL")?;
    if url.scheme() != "https" {
        return Err("only https origins may frame the pages");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("an origin has no user name or password");
    }
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err("an origin has no path, query or fragment");
    }
    // Whatever the URL parser took as a host must also be an ordinary DNS name: no address, no wildcard.
    let host = url.host_str().ok_or("an origin has a host")?;
    Hostname::parse("origin", host)
        .map_err(|_| "its host must be a DNS name (no address or wildcard)")?;
    if input.contains('*') {
        return Err("wildcards are not accepted; list each origin");
    }
    Ok(url.origin().ascii_serialization())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn origins_are_normalized_deduplicated_and_make_the_frame_ancestors_value() {
        let o = EmbedOrigins::parse(
            "embed_origins",
            &list(&[
                "https://WWW.Example.com/",
                "https://www.example.com:443",
                "https://app.example.com:8443",
                " https://bücher.example ",
            ]),
        )
        .unwrap();
        assert_eq!(
            o.as_slice(),
            [
                "https://www.example.com",
                "https://app.example.com:8443",
                "https://xn--bcher-kva.example"
            ]
        );
        assert_eq!(
            o.frame_ancestors(),
            "https://www.example.com https://app.example.com:8443 https://xn--bcher-kva.example"
        );
        assert!(o.allows("https://www.example.com"));
        assert!(o.allows("https://WWW.EXAMPLE.COM:443"));
        assert!(!o.allows("https://evil.example.com"));
        assert!(!o.allows("http://www.example.com"));
        assert_eq!(EmbedOrigins::default().frame_ancestors(), "'none'");
    }

    #[test]
    fn only_exact_https_origins_are_accepted() {
        for bad in [
            "http://www.example.com",
            "www.example.com",
            "https://*.example.com",
            "https://www.example.com/docs",
            "https://www.example.com/?x=1",
            "https://www.example.com/#top",
            "https://user@www.example.com",
            "https://127.0.0.1",
            "https://[::1]",
            "https://localhost",
            "javascript:alert(1)",
            "'self'",
            "https://a.example.com https://b.example.com",
            "https://a.example.com;script-src *",
            "",
        ] {
            assert!(
                EmbedOrigins::parse("embed_origins", &list(&[bad])).is_err(),
                "{bad:?}"
            );
        }
        let err = EmbedOrigins::parse(
            "embed_origins",
            &list(&["https://ok.example.com", "http://no.example.com"]),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("embed_origins[1]"), "{err}");
    }

    #[test]
    fn at_most_twenty_origins() {
        let twenty: Vec<String> = (0..20)
            .map(|i| format!("https://o{i}.example.com"))
            .collect();
        assert_eq!(
            EmbedOrigins::parse("embed_origins", &twenty)
                .unwrap()
                .as_slice()
                .len(),
            20
        );
        let mut more = twenty.clone();
        more.push("https://o20.example.com".into());
        assert!(EmbedOrigins::parse("embed_origins", &more).is_err());
    }
}

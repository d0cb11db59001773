//! What a redirect to another origin may carry. A request's credentials are meant for the origin it was sent to: a
//! hop to another origin (even one the caller allows) carries none of them, as browsers and curl do. The caller
//! does not say which of its headers or query parameters are credentials (a reader's "Try it" request can name its
//! API key anything), so the rule keeps what cannot be one rather than dropping what is known to be one:
//!
//! - only the headers of [`SAFE_ACROSS_ORIGINS`] go on: `Authorization`, `Proxy-Authorization`, `Cookie`, an API
//!   key under any name and every other header stay behind;
//! - a query parameter of the new URL whose value is one the caller sent in its own query string is removed (an
//!   API that moved often repeats the query in `Location`, and an API key in the query travels there);
//! - once dropped, they stay dropped, even if a later hop comes back to the first origin.

use http::HeaderMap;
use url::Url;

/// Request headers that go on to another origin: what the caller accepts and how its body is written. None can
/// carry a credential.
pub const SAFE_ACROSS_ORIGINS: [&str; 13] = [
    "accept",
    "accept-language",
    "cache-control",
    "content-language",
    "content-type",
    "if-match",
    "if-modified-since",
    "if-none-match",
    "if-range",
    "if-unmodified-since",
    "pragma",
    "range",
    "user-agent",
];

/// Keeps in `headers` only those of [`SAFE_ACROSS_ORIGINS`].
pub fn keep_safe_headers(headers: &mut HeaderMap) {
    let dropped: Vec<http::HeaderName> = headers
        .keys()
        .filter(|name| !SAFE_ACROSS_ORIGINS.contains(&name.as_str()))
        .cloned()
        .collect();
    for name in dropped {
        headers.remove(name);
    }
}

/// The values of `url`'s query parameters, decoded, the empty ones left out: what a caller's query string may
/// carry as credentials.
pub fn query_values(url: &Url) -> Vec<String> {
    url.query_pairs()
        .map(|(_, v)| v.into_owned())
        .filter(|v| !v.is_empty())
        .collect()
}

/// Removes from `next` every query parameter whose value is one of `sent` (see [`query_values`]); the query is
/// written again only when one was removed.
pub fn drop_repeated_query(next: &mut Url, sent: &[String]) {
    if sent.is_empty() || next.query().is_none() {
        return;
    }
    let pairs: Vec<(String, String)> = next
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let kept: Vec<&(String, String)> = pairs.iter().filter(|(_, v)| !sent.contains(v)).collect();
    if kept.len() == pairs.len() {
        return;
    }
    if kept.is_empty() {
        next.set_query(None);
    } else {
        next.query_pairs_mut()
            .clear()
            .extend_pairs(kept.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_headers_that_cannot_carry_a_credential_are_kept() {
        let mut h = HeaderMap::new();
        for (k, v) in [
            ("authorization", "Bearer t"),
            ("proxy-authorization", "Basic x"),
            ("cookie", "s=1"),
            ("x-api-key", "k"),
            ("api-key", "k"),
            ("x-custom", "c"),
            ("accept", "application/json"),
            ("content-type", "application/json"),
        ] {
            h.insert(
                http::HeaderName::from_static(k),
                http::HeaderValue::from_static(v),
            );
        }
        keep_safe_headers(&mut h);
        let mut left: Vec<&str> = h.keys().map(|k| k.as_str()).collect();
        left.sort_unstable();
        assert_eq!(left, ["accept", "content-type"]);
    }

    #[test]
    fn repeated_query_values_are_removed_whatever_their_name_or_encoding() {
        let sent =
            query_values(&Url::parse("https://a.test/x?api_key=k%2Fey&page=&q=1").expect("url"));
        assert_eq!(sent, ["k/ey", "1"]);
        for (next, want) in [
            (
                "https://b.test/y?api_key=k%2Fey&via=moved",
                "https://b.test/y?via=moved",
            ),
            ("https://b.test/y?renamed=k/ey", "https://b.test/y"),
            ("https://b.test/y?via=moved", "https://b.test/y?via=moved"),
            ("https://b.test/y", "https://b.test/y"),
        ] {
            let mut url = Url::parse(next).expect("url");
            drop_repeated_query(&mut url, &sent);
            assert_eq!(url.as_str(), want, "{next}");
        }
    }
}

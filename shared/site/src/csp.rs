//! The Content-Security-Policy of a `direct` documentation's operation pages: the pages' own ([`crate::assets::CSP`])
//! with the origins of the document's servers in `connect-src`, so that the reader's browser may send the
//! operation's request itself (docs/try-it.md). The origins are the reader layer's
//! ([`specpress_reader::origins::server_origins`]), as the "Try it" proxy allows them.

/// The pages' Content-Security-Policy with `connect-src` naming `'self'` and `origins`. Each origin is checked again
/// to be an `http(s)` origin made of host characters only, so nothing a document says can add a directive, a
/// keyword or a wildcard.
pub fn with_connect(origins: &[String]) -> String {
    let safe = origins.iter().filter(|o| {
        specpress_reader::origins::http_origin(o).as_deref() == Some(o.as_str())
            && o.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-:/[]".contains(&b))
    });
    let mut connect = String::from("connect-src 'self'");
    for o in safe {
        connect.push(' ');
        connect.push_str(o);
    }
    crate::assets::CSP.replace("connect-src 'self'", &connect)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connect_source_names_only_clean_origins_and_keeps_every_other_directive() {
        let csp = with_connect(&[
            "https://api.example.com".into(),
            "http://127.0.0.1:8080".into(),
            "https://evil.example; script-src *".into(),
            "*".into(),
            "'unsafe-inline'".into(),
            "https://api.example.com/path".into(),
        ]);
        assert!(
            csp.contains("connect-src 'self' https://api.example.com http://127.0.0.1:8080;"),
            "{csp}"
        );
        assert!(!csp.contains("evil") && !csp.contains('*') && !csp.contains("unsafe"));
        assert_eq!(
            csp.replace(" https://api.example.com http://127.0.0.1:8080", ""),
            crate::assets::CSP
        );
    }
}

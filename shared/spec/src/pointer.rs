//! RFC 6901 JSON pointers.

/// Escapes one reference token (`~` as `~0`, `/` as `~1`).
pub(crate) fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for ch in token.chars() {
        match ch {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Builds a pointer from raw tokens.
pub(crate) fn from_tokens<S: AsRef<str>>(tokens: &[S]) -> String {
    let mut p = String::new();
    for t in tokens {
        push_token(&mut p, t.as_ref());
    }
    p
}

/// Splits a pointer into unescaped tokens. `None` if it is not a valid pointer (must be empty
/// or start with `/`; `~` must be followed by `0` or `1`).
pub(crate) fn tokens(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/').map(unescape).collect()
}

fn unescape(token: &str) -> Option<String> {
    if !token.contains('~') {
        return Some(token.to_string());
    }
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_with_rfc6901_escapes() {
        let p = from_tokens(&["paths", "/pets/{id}", "a~b"]);
        assert_eq!(p, "/paths/~1pets~1{id}/a~0b");
        assert_eq!(tokens(&p).unwrap(), vec!["paths", "/pets/{id}", "a~b"]);
        assert_eq!(tokens("").unwrap(), Vec::<String>::new());
        assert!(tokens("no-slash").is_none());
        assert!(tokens("/bad~2").is_none());
    }
}

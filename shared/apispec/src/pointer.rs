//! RFC 6901 JSON pointers.

/// Escapes one reference token (`~` as `~0`, `/` as `~1`).
pub(crate) fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    if !token.contains(['~', '/']) {
        pointer.push_str(token);
        return;
    }
    for ch in token.chars() {
        match ch {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Appends `/` and the decimal index `i` (without the formatting machinery).
pub(crate) fn push_index(pointer: &mut String, i: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = i;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    pointer.push('/');
    for &d in &digits[at..] {
        pointer.push(d as char);
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

/// Whether `pointer` is a valid JSON pointer (what [`tokens`] accepts), without allocating.
pub(crate) fn is_valid(pointer: &str) -> bool {
    if pointer.is_empty() {
        return true;
    }
    if !pointer.starts_with('/') {
        return false;
    }
    let bytes = pointer.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'~' {
            if !matches!(bytes.get(i + 1), Some(b'0' | b'1')) {
                return false;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    true
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

pub(crate) fn unescape(token: &str) -> Option<String> {
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

    #[test]
    fn validity_without_allocating_agrees_with_tokenizing() {
        for p in [
            "", "/", "//", "/a", "a", "/a~0b", "/a~1b", "/a~2b", "/a~", "/~~0", "/~01", "/~10/x~",
            "/é~1ü", "~0", "/a/b/c",
        ] {
            assert_eq!(is_valid(p), tokens(p).is_some(), "{p:?}");
        }
    }

    #[test]
    fn tree_pointers_match_serde_json_pointer() {
        let v = serde_json::json!({"a/b": {"c~d": [10, {"e": true}]}, "": 1});
        for p in [
            "",
            "/a~1b",
            "/a~1b/c~0d/1/e",
            "/a~1b/c~0d/0",
            "/",
            "/x",
            "/a~1b/c~0d/01",
            "/a~1b/c~0d/9",
        ] {
            let tree = crate::Tree::from_value(&v);
            assert_eq!(
                tree.root().pointer(p).map(crate::V::to_value).as_ref(),
                v.pointer(p),
                "{p}"
            );
        }
    }
}

//! The slug of a name: ASCII letters and digits lower-cased, every run of other characters (spaces, punctuation,
//! every non-ASCII character) one dash, none at either end: `Feature/Login v2` is `feature-login-v2`.
//!
//! The one definition for the whole workspace: the diff engine's item ids (`specpress-diff`) and the domain's
//! documentation, hub and branch slugs (`specpress-domain`) are all made here. An engine-level crate with no
//! dependencies, so that the engines need nothing of the domain and the domain nothing of the diff engine.

/// The slug of `s`; empty when `s` has no ASCII letter or digit.
pub fn slug(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    slug_into(&mut out, s);
    out
}

/// Each byte's slug form: ASCII alphanumerics lower-cased, 0 for every other byte (separators
/// and the bytes of non-ASCII characters).
static SLUG_BYTES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        if b.is_ascii_alphanumeric() {
            table[i] = b.to_ascii_lowercase();
        }
        i += 1;
    }
    table
};

/// The slug of `s` cut to at most `max` bytes (characters: a slug is ASCII), never ending with a dash: the
/// slug's first `max` characters, less a dash they would end with.
pub fn slug_at_most(s: &str, max: usize) -> String {
    let mut out = slug(s);
    if out.len() > max {
        out.truncate(max);
        while out.ends_with('-') {
            out.pop();
        }
    }
    out
}

/// Appends the slug of `s` to `out`.
pub fn slug_into(out: &mut String, s: &str) {
    // Byte by byte through a table, into a small buffer flushed as ASCII text: the bytes of a
    // non-ASCII character are not ASCII alphanumerics, and a run of separators becomes one
    // dash (none at either end), so this is the same as going by characters.
    let mut buf = [0u8; 64];
    let mut n = 0;
    let mut wrote = false;
    let mut dash = false;
    let flush = |out: &mut String, buf: &[u8]| {
        // Only ASCII bytes are ever buffered.
        if let Ok(text) = std::str::from_utf8(buf) {
            out.push_str(text);
        }
    };
    for &b in s.as_bytes() {
        let t = SLUG_BYTES[usize::from(b)];
        if t == 0 {
            dash = wrote;
            continue;
        }
        if n + 2 > buf.len() {
            flush(out, &buf[..n]);
            n = 0;
        }
        if dash {
            buf[n] = b'-';
            n += 1;
            dash = false;
        }
        buf[n] = t;
        n += 1;
        wrote = true;
    }
    flush(out, &buf[..n]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The character-by-character definition of a slug.
    fn slug_by_chars(s: &str) -> String {
        let mut out = String::new();
        let mut dash = false;
        for ch in s.chars() {
            if ch.is_ascii_alphanumeric() {
                out.push(ch.to_ascii_lowercase());
                dash = false;
            } else if !dash && !out.is_empty() {
                out.push('-');
                dash = true;
            }
        }
        while out.ends_with('-') {
            out.pop();
        }
        out
    }

    #[test]
    fn slugs_built_byte_by_byte_match_the_character_definition() {
        for s in [
            "GET /pets/{id}",
            "  Leading and trailing  ",
            "Ünïcödé names — with dashes",
            "日本語",
            "a日b",
            "x--y__z",
            // Longer than the slug buffer, with separators at and around its edge.
            "GET /apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale/Status-Subresource__v2",
            "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk-lmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
            "",
            "-",
            "Schema.Name/v1",
        ] {
            assert_eq!(slug(s), slug_by_chars(s), "{s:?}");
            let mut appended = String::from("prefix-");
            slug_into(&mut appended, s);
            assert_eq!(appended, format!("prefix-{}", slug_by_chars(s)), "{s:?}");
        }
    }

    #[test]
    fn slugs_cut_to_a_length_keep_its_first_characters_and_never_end_with_a_dash() {
        assert_eq!(slug_at_most("  My Great API!! v2 ", 64), "my-great-api-v2");
        assert_eq!(slug_at_most(&"a".repeat(70), 64), "a".repeat(64));
        // Cut right after a separator: the dash goes, the slug is one shorter.
        let name = format!("{} b", "a".repeat(63));
        assert_eq!(slug(&name).len(), 65);
        assert_eq!(slug_at_most(&name, 64), "a".repeat(63));
        assert_eq!(
            slug_at_most(&format!("{} bc", "a".repeat(62)), 64),
            format!("{}-b", "a".repeat(62))
        );
        assert_eq!(slug_at_most("!!!", 64), "");
        assert_eq!(slug_at_most("ab", 0), "");
    }
}

//! Characters of a document that must not reach a reader as they are: C0 and C1 control characters (except tab,
//! line feed and carriage return) and the bidirectional embedding, override and isolate controls (U+202A-U+202E,
//! U+2066-U+2069, the "Trojan Source" set), which make a path or a title read differently from what it is.
//! [`neutral`] replaces each with U+FFFD, visibly, in any text a reader is shown: HTML pages, Markdown, `llms.txt`,
//! feeds, search JSON, agent tool results. Definitions served as data (`.json`, `.yaml`, a version's source) are the
//! document itself and are not changed.

use std::borrow::Cow;

/// What a neutralized character becomes.
pub const REPLACEMENT: char = '\u{FFFD}';

/// Whether `c` is a bidirectional embedding, override or isolate control.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Whether `c` is neutralized by [`neutral`].
pub fn is_neutralized(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || is_bidi_control(c)
}

/// Whether the byte may start a neutralized character: a C0 control or DEL, `0xC2` (C1 controls are U+0080-U+009F,
/// `C2 80`-`C2 9F`), `0xE2` (the bidi controls are `E2 80 AA`-`E2 80 AE` and `E2 81 A6`-`E2 81 A9`).
fn may_start(b: u8) -> bool {
    (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7F || b == 0xC2 || b == 0xE2
}

/// `s` with every character of [`is_neutralized`] replaced by [`REPLACEMENT`]; borrowed (no copy) when there is
/// none, which is the common case: the scan looks at bytes and decodes only around the few that may start one.
pub fn neutral(s: &str) -> Cow<'_, str> {
    let bytes = s.as_bytes();
    let Some(first) = bytes.iter().position(|&b| may_start(b)) else {
        return Cow::Borrowed(s);
    };
    if !s[first..].chars().any(is_neutralized) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        out.push(if is_neutralized(c) { REPLACEMENT } else { c });
    }
    Cow::Owned(out)
}

/// [`neutral`] of an owned string, reusing it when nothing changes.
pub fn neutral_owned(s: String) -> String {
    match neutral(&s) {
        Cow::Borrowed(_) => s,
        Cow::Owned(o) => o,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_bidi_characters_become_visible_replacements() {
        assert_eq!(
            neutral("GET /pets\u{202E}txt.exe\u{2066}x\u{2069}\u{0}\u{1b}[31m\u{85}\u{7f}"),
            "GET /pets\u{FFFD}txt.exe\u{FFFD}x\u{FFFD}\u{FFFD}\u{FFFD}[31m\u{FFFD}\u{FFFD}"
        );
    }

    #[test]
    fn ordinary_text_is_borrowed_unchanged_whatever_its_script() {
        for s in [
            "plain",
            "tabs\tand\nlines\r\n",
            "Ünïcödé – “quotes” → ✓",
            "עברית ومرحبا",
            "\u{200E}marks stay\u{200F}",
            "€ ‰ • …",
        ] {
            assert!(matches!(neutral(s), Cow::Borrowed(x) if x == s), "{s:?}");
        }
    }
}

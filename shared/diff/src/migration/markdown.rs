//! The one way a migration note writes Markdown, so that no document string can become markup.
//!
//! A note mixes the engine's own words (static text: no document content) with document strings
//! (names, paths, values, samples). Document strings are only ever written as code: inline, as a
//! code span whose backtick fence is longer than any backtick run inside it; as a block, as a
//! fenced code block whose fence is longer than any backtick run inside it, so no line of the
//! content can close it. Inside code, Markdown reads no emphasis, link, autolink, HTML or entity,
//! whether the note is rendered (the site's sanitizer sees only code) or read raw. Every control,
//! line- or paragraph-separator, byte order mark and bidirectional-formatting character of a
//! document string is written as a visible `\u{…}` escape (line feeds kept in blocks), and inline
//! strings are cut at [`MAX_INLINE_CHARS`].

use std::fmt::Write;

use specpress_samples::is_risky;

/// Characters of one document string written inline (a longer one is cut, with `…`).
pub(crate) const MAX_INLINE_CHARS: usize = 120;

/// A note being written.
#[derive(Default)]
pub(crate) struct Md {
    out: String,
}

impl Md {
    /// The engine's own words (never a document string: the type says so).
    pub(crate) fn text(&mut self, s: &'static str) -> &mut Self {
        self.out.push_str(s);
        self
    }

    /// A document string, inline, as a code span.
    pub(crate) fn code(&mut self, s: &str) -> &mut Self {
        code_span(s, &mut self.out);
        self
    }

    /// Document strings as a list of code spans joined by `, ` (at most `max`, then "and N
    /// more").
    pub(crate) fn code_list<'s>(
        &mut self,
        items: impl IntoIterator<Item = &'s str>,
        max: usize,
    ) -> &mut Self {
        let mut n = 0usize;
        for s in items {
            if n < max {
                if n > 0 {
                    self.out.push_str(", ");
                }
                code_span(s, &mut self.out);
            }
            n += 1;
        }
        if n > max {
            let _ = write!(self.out, " and {} more", n - max);
        }
        if n == 0 {
            self.out.push_str("none");
        }
        self
    }

    /// A fenced code block of document text (a sample, an example), with the engine's own info
    /// string.
    pub(crate) fn fence(&mut self, info: &'static str, body: &str) -> &mut Self {
        let body = visible(body, true);
        let fence = "`".repeat(longest_backtick_run(&body).max(2) + 1);
        if !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push_str(if self.out.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            });
        }
        let _ = write!(
            self.out,
            "{fence}{info}\n{}\n{fence}\n\n",
            body.trim_end_matches('\n')
        );
        self
    }

    /// Ends a paragraph (a blank line).
    pub(crate) fn end(&mut self) -> &mut Self {
        while self.out.ends_with(' ') {
            self.out.pop();
        }
        if !self.out.is_empty() {
            self.out.push_str(if self.out.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            });
            while self.out.ends_with("\n\n\n") {
                self.out.pop();
            }
        }
        self
    }

    /// The size written so far, in bytes.
    pub(crate) fn len(&self) -> usize {
        self.out.len()
    }

    /// Takes back what was written past `len` (a part that did not fit).
    pub(crate) fn truncate(&mut self, len: usize) {
        if len <= self.out.len() && self.out.is_char_boundary(len) {
            self.out.truncate(len);
        }
    }

    pub(crate) fn finish(mut self) -> String {
        while self.out.ends_with('\n') {
            self.out.pop();
        }
        self.out.push('\n');
        self.out
    }
}

/// The longest run of backticks in `s`.
fn longest_backtick_run(s: &str) -> usize {
    let mut longest = 0usize;
    let mut run = 0usize;
    for c in s.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// `s` with every risky character (see [`is_risky`]) written as a visible `\u{…}` escape; line
/// feeds kept when `lines` (and tabs kept always).
fn visible(s: &str, lines: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if (c == '\n' && lines) || c == '\t' || !is_risky(c) {
            out.push(c);
        } else {
            let _ = write!(out, "\\u{{{:04x}}}", u32::from(c));
        }
    }
    out
}

/// Writes `s` as one code span: cut at [`MAX_INLINE_CHARS`], risky characters escaped, fenced
/// by one more backtick than its longest run, padded with a space when it starts or ends with a
/// backtick or a space (CommonMark strips one space on each side when both are there).
fn code_span(s: &str, out: &mut String) {
    let mut cut: String = s.chars().take(MAX_INLINE_CHARS).collect();
    if cut.len() < s.len() {
        cut.push('…');
    }
    let text = visible(&cut, false);
    if text.is_empty() {
        out.push_str("*(empty)*");
        return;
    }
    let fence = "`".repeat(longest_backtick_run(&text) + 1);
    let pad = text.starts_with('`')
        || text.ends_with('`')
        || text.starts_with(' ')
        || text.ends_with(' ');
    let pad = if pad { " " } else { "" };
    let _ = write!(out, "{fence}{pad}{text}{pad}{fence}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_span_is_fenced_longer_than_any_backtick_run_inside_it() {
        let mut md = Md::default();
        md.code("a``b").text(" and ").code("`x`");
        assert_eq!(md.finish(), "```a``b``` and `` `x` ``\n");
    }

    #[test]
    fn line_breaks_and_invisible_characters_become_visible_escapes() {
        let mut md = Md::default();
        md.code("a\nb\u{202e}c");
        assert_eq!(md.finish(), "`a\\u{000a}b\\u{202e}c`\n");
        let mut md = Md::default();
        md.fence("json", "{\n\"a\": \"\u{2028}\"\r\n}");
        assert_eq!(
            md.finish(),
            "```json\n{\n\"a\": \"\\u{2028}\"\\u{000d}\n}\n```\n"
        );
    }

    #[test]
    fn a_code_block_cannot_be_closed_by_its_content() {
        let mut md = Md::default();
        md.fence("sh", "echo\n```\n<script>alert(1)</script>\n``````");
        let out = md.finish();
        assert!(out.starts_with("```````sh\n"), "{out}");
        assert!(out.ends_with("\n```````\n"), "{out}");
    }

    #[test]
    fn a_long_string_is_cut_and_an_empty_one_said_so() {
        let mut md = Md::default();
        md.code(&"x".repeat(500)).text(" ").code("");
        let out = md.finish();
        assert_eq!(out.matches('x').count(), MAX_INLINE_CHARS);
        assert!(out.contains("…` *(empty)*"), "{out}");
    }
}

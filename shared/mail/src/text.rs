//! Document strings made safe for a mail before a template sees them: control and invisible formatting characters
//! (bidirectional overrides, zero-width characters) removed, whitespace collapsed where a line is expected, and every
//! text clipped to a length, so one hostile title cannot make a header of several lines or a mail of megabytes. The
//! templates escape what this leaves for their format (askama's HTML escaper; the text part is not interpreted).

/// Longest title (a documentation's, a hub's) shown.
pub const MAX_TITLE_CHARS: usize = 120;
/// Longest subject line.
pub const MAX_SUBJECT_CHARS: usize = 140;
/// Longest change sentence, place, or acceptance reason.
pub const MAX_LINE_CHARS: usize = 400;
/// Longest migration note.
pub const MAX_BLOCK_CHARS: usize = 2_000;
/// Most lines of a migration note.
pub const MAX_BLOCK_LINES: usize = 24;

/// Whether `c` is a character a mail never shows: a control character (C0, DEL, C1) or an invisible formatting one
/// that can reorder or hide text (bidirectional embeddings, overrides and isolates, zero-width characters, BOM).
fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// `s` cut to `max` characters, an ellipsis marking the cut.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

/// One line: every control or invisible character and every run of whitespace (new lines included) made one
/// space, trimmed, clipped to `max` characters.
pub fn line(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max * 4));
    let mut pending_space = false;
    for c in s.chars() {
        if c.is_whitespace() || c.is_control() {
            pending_space = !out.is_empty();
            continue;
        }
        if invisible(c) {
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(c);
        // Enough read: the clip below needs one character more than `max` to know it cuts.
        if out.len() > max * 4 + 8 {
            break;
        }
    }
    clip(&out, max)
}

/// A block of lines (a migration note): each line cleaned as [`line`] (leading indentation kept as is, up to a
/// few spaces), blank runs collapsed, at most [`MAX_BLOCK_LINES`] lines and [`MAX_BLOCK_CHARS`] characters.
pub fn block(s: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut chars = 0;
    for raw in s.lines() {
        let cleaned = line(raw, MAX_LINE_CHARS);
        if cleaned.is_empty() && lines.last().is_none_or(|l| l.is_empty()) {
            continue;
        }
        let indent = raw.chars().take_while(|c| *c == ' ').count().min(8);
        chars += cleaned.chars().count() + indent + 1;
        if lines.len() == MAX_BLOCK_LINES || chars > MAX_BLOCK_CHARS {
            lines.push("…".to_owned());
            break;
        }
        lines.push(format!(
            "{}{cleaned}",
            " ".repeat(if cleaned.is_empty() { 0 } else { indent })
        ));
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

/// A link target: `url` when it is an absolute `https` or `http` URL without whitespace or control characters
/// (every link of a mail is Specpress's own, built from its public URL), else nothing.
pub fn link(url: &str) -> Option<String> {
    let lower = url
        .get(..8)
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let web = lower.starts_with("https://") || lower.starts_with("http://");
    let clean = !url.chars().any(|c| c.is_whitespace() || invisible(c));
    (web && clean && url.len() <= 2_048).then(|| url.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_loses_new_lines_controls_and_bidi_overrides() {
        assert_eq!(
            line("Pets\r\nBcc: x@y\u{202E}gpj.exe\u{0007}  API", 100),
            "Pets Bcc: x@ygpj.exe API"
        );
        assert_eq!(line("   ", 10), "");
    }

    #[test]
    fn long_texts_are_clipped_with_an_ellipsis() {
        let long = "a".repeat(500);
        let clipped = line(&long, 120);
        assert_eq!(clipped.chars().count(), 120);
        assert!(clipped.ends_with('…'));
        assert_eq!(clip("short", 120), "short");
    }

    #[test]
    fn a_block_keeps_its_lines_within_bounds() {
        let note = "Use `GET /v2/pets`.\n\n\n\n  - step one\u{0000}\n- step two\n";
        assert_eq!(
            block(note),
            "Use `GET /v2/pets`.\n\n  - step one\n- step two"
        );
        let many = "line\n".repeat(100);
        let b = block(&many);
        assert_eq!(b.lines().count(), MAX_BLOCK_LINES + 1);
        assert!(b.ends_with('…'));
    }

    #[test]
    fn only_web_links_are_linked() {
        assert!(link("https://docs.example.com/doc/pets").is_some());
        assert!(link("javascript:alert(1)").is_none());
        assert!(link("https://x.example/a b").is_none());
        assert!(link("data:text/html,<script>").is_none());
    }
}

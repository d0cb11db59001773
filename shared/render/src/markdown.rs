//! Markdown from documents: CommonMark + GFM tables and strikethrough (pulldown-cmark), then
//! sanitized with an allow-list (ammonia). See docs/rendering.md, "Sanitizer policy".

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::LazyLock;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::html::{Html, escape_into, truncate};

/// The longest Markdown text rendered; longer ones are cut (with a note) so that one description
/// cannot make a page of megabytes.
pub(crate) const MAX_MARKDOWN_BYTES: usize = 64 * 1024;

/// Topics (`x-topics`) are whole guides: a larger cap.
pub(crate) const MAX_TOPIC_BYTES: usize = 256 * 1024;

static SANITIZER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let mut b = ammonia::Builder::default();
    // Landmarks and image maps from a description would confuse the page's own structure (and
    // `<area href>` is a link ammonia's rel rule does not reach).
    b.rm_tags([
        "article", "aside", "footer", "header", "nav", "hgroup", "area", "map",
    ]);
    b.url_schemes(HashSet::from(["http", "https", "mailto"]));
    b.link_rel(Some("noopener noreferrer nofollow"));
    b.clean_content_tags(HashSet::from([
        "script", "style", "iframe", "object", "embed", "template", "noscript", "textarea",
        "title", "svg", "math", "form", "select", "frame", "frameset", "noembed",
    ]));
    b.strip_comments(true);
    // Images only from absolute https URLs (no data:, no http:, nothing relative to the
    // operator's own domain), without a referrer.
    b.attribute_filter(|element, attribute, value| {
        if element == "img" && attribute == "src" {
            let v = value.trim();
            if v.len() > 8 && v[..8].eq_ignore_ascii_case("https://") {
                return Some(Cow::Borrowed(value));
            }
            return None;
        }
        Some(Cow::Borrowed(value))
    });
    // One added attribute only: ammonia keeps added attributes in a hash map whose order differs
    // from process to process, and a page must be the same bytes in every process (its `ETag`
    // is a strong validator). A second one (`loading="lazy"`) made two Lambda instances send
    // different bytes under one `ETag`.
    b.set_tag_attribute_value("img", "referrerpolicy", "no-referrer");
    b
});

/// Bytes that can start Markdown or HTML syntax anywhere in a line.
fn is_special(b: u8) -> bool {
    matches!(
        b,
        b'<' | b'>'
            | b'&'
            | b'['
            | b']'
            | b'`'
            | b'*'
            | b'_'
            | b'\\'
            | b'!'
            | b'#'
            | b'|'
            | b'~'
            | b'\n'
            | b'\r'
            | b'\t'
            | 0
    )
}

/// A one-line text with no Markdown or HTML syntax in it renders as one escaped paragraph: most
/// descriptions of parameters and properties are such, and they skip both parsers.
fn is_plain(s: &str) -> bool {
    let t = s.trim();
    !t.is_empty()
        && !t.bytes().any(is_special)
        && !t.starts_with([
            '-', '+', '=', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9',
        ])
        && !t.contains("://")
        && !t.contains("    ")
}

/// Drops the images the sanitizer left without a source (theirs was not https) and gives the
/// others an empty `alt` when they have none. `html` is the sanitizer's serialization: tags are
/// well formed and attribute values double-quoted.
fn tidy_images(html: &str, out: &mut String) {
    let mut rest = html;
    while let Some(start) = rest.find("<img") {
        out.push_str(&rest[..start]);
        let tag = &rest[start..];
        let mut quoted = false;
        let mut end = tag.len();
        for (i, b) in tag.bytes().enumerate() {
            match b {
                b'"' => quoted = !quoted,
                b'>' if !quoted => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        let img = &tag[..end];
        if img.contains(" src=\"") {
            if img.contains(" alt=\"") {
                out.push_str(img);
            } else {
                out.push_str("<img alt=\"\"");
                out.push_str(&img[4..]);
            }
        }
        rest = &tag[end..];
    }
    out.push_str(rest);
}

/// True when the text may produce markup the sanitizer must see: raw HTML or autolinks (`<`),
/// entities (`&`), links and images (`[`), tables (`|`, aligned columns get `style`), fenced code
/// (its info string becomes a `class`).
fn needs_sanitizer(s: &str) -> bool {
    s.bytes()
        .any(|b| matches!(b, b'<' | b'&' | b'[' | b']' | b'|' | 0))
        || s.contains("```")
        || s.contains("~~~")
}

fn events(text: &str, min_heading: u8) -> impl Iterator<Item = Event<'_>> {
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    let shift = min_heading.clamp(1, 6) - 1;
    let moved = move |l: HeadingLevel| -> HeadingLevel {
        HeadingLevel::try_from((l as usize + shift as usize).min(6)).unwrap_or(HeadingLevel::H6)
    };
    Parser::new_ext(text, opts).map(move |e| match e {
        Event::Start(Tag::Heading {
            level,
            id,
            classes,
            attrs,
        }) => Event::Start(Tag::Heading {
            level: moved(level),
            id,
            classes,
            attrs,
        }),
        Event::End(TagEnd::Heading(level)) => Event::End(TagEnd::Heading(moved(level))),
        other => other,
    })
}

/// Renders `text` as sanitized HTML. Headings inside the text are moved down so that the text's
/// top-level heading sits at `min_heading` (2 on the home page, 3 or 4 inside a section).
pub(crate) fn render(text: &str, min_heading: u8, cap: usize) -> Html {
    let (text, cut) = truncate(text, cap);
    let mut out = String::with_capacity(text.len() + 16);
    if is_plain(text) {
        out.push_str("<p>");
        escape_into(&mut out, text.trim());
        out.push_str("</p>");
    } else if !needs_sanitizer(text) {
        // No raw HTML, link, image, table or fenced code can come out of such a text: only
        // pulldown-cmark's own attribute-free tags around escaped text.
        pulldown_cmark::html::push_html(&mut out, events(text, min_heading));
    } else {
        let events = events(text, min_heading);
        let mut raw = String::with_capacity(text.len() + text.len() / 4);
        pulldown_cmark::html::push_html(&mut raw, events);
        tidy_images(&SANITIZER.clean(&raw).to_string(), &mut out);
    }
    if cut {
        out.push_str("<p class=\"note\">(This text is longer than the page can show; the rest is in the document.)</p>");
    }
    Html(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(s: &str) -> String {
        render(s, 2, MAX_MARKDOWN_BYTES).0
    }

    #[test]
    fn markdown_is_rendered_with_tables_and_code() {
        let h = md("# Title\n\nSome *em* and `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
        assert!(h.contains("<h2>Title</h2>"), "{h}");
        assert!(
            h.contains("<em>em</em>") && h.contains("<code>code</code>"),
            "{h}"
        );
        assert!(h.contains("<table>"), "{h}");
    }

    #[test]
    fn scripts_handlers_and_dangerous_urls_are_removed() {
        let h = md(concat!(
            "<script>alert(1)</script><img src=x onerror=alert(2)>",
            "[a](javascript:alert(3)) <a href=\"vbscript:x\">b</a> <iframe src=\"https://e.example\"></iframe>",
            "<style>body{}</style><form action=\"https://e.example\"><input name=q></form>",
            "<p style=\"color:red\" onclick=\"x()\">p</p><img src=\"data:image/png;base64,AAAA\">",
            "<img src=\"http://tracker.example/p.gif\"><nav>n</nav>",
        ));
        for bad in [
            "<script",
            "onerror",
            "=\"javascript:",
            "=\"vbscript:",
            "<iframe",
            "<style",
            "<form",
            "<input",
            "style=",
            "onclick",
            "=\"data:",
            "http://tracker",
            "<nav",
        ] {
            assert!(!h.contains(bad), "{bad} in {h}");
        }
    }

    #[test]
    fn links_get_the_document_link_rel_and_https_images_are_kept_without_referrer() {
        let h = md("[docs](https://example.com/docs) ![logo](https://example.com/l.png)");
        assert!(h.contains("rel=\"noopener noreferrer nofollow\""), "{h}");
        assert!(h.contains("src=\"https://example.com/l.png\""), "{h}");
        assert!(h.contains("referrerpolicy=\"no-referrer\""), "{h}");
        // The very bytes, attribute order included, in every process.
        assert!(
            h.contains(
                r#"<img src="https://example.com/l.png" alt="logo" referrerpolicy="no-referrer">"#
            ),
            "{h}"
        );
    }

    #[test]
    fn plain_text_takes_the_fast_path_with_the_same_result_as_the_parsers() {
        for s in [
            "The account owner of the repository. The name is not case sensitive.",
            "Results per page (max 100). Default: 30.",
            "é unicode, punctuation: ; ' \" ? ( ) { } @ $ % ^",
        ] {
            assert!(is_plain(s), "{s}");
            let fast = md(s);
            let mut raw = String::new();
            pulldown_cmark::html::push_html(&mut raw, Parser::new(s));
            let slow = SANITIZER.clean(&raw).to_string();
            let norm = |x: &str| x.trim_end().replace("&quot;", "\"").replace("&#39;", "'");
            assert_eq!(norm(&fast), norm(&slow), "{s}");
        }
        for s in [
            "- a list",
            "1. one",
            "a <b>tag</b>",
            "x\ny",
            "see https://x.example",
            "a_b",
        ] {
            assert!(!is_plain(s), "{s}");
        }
    }

    #[test]
    fn images_without_an_https_source_are_dropped_and_the_others_get_an_alt() {
        let h = md(
            "<img src=\"http://x.example/a.png\"> ![ok](https://x.example/b.png \"t>\") <img src=\"https://x.example/c.png\">",
        );
        assert!(!h.contains("a.png"), "{h}");
        assert_eq!(h.matches("<img").count(), 2, "{h}");
        assert!(h.contains("alt=\"ok\""), "{h}");
        assert!(h.contains("<img alt=\"\""), "{h}");
    }

    #[test]
    fn markdown_without_links_html_or_tables_skips_the_sanitizer_with_the_same_result() {
        for s in [
            "Has the value `true` if the object exists in live mode.\n\n* one\n* **two**",
            "# Head\n\nText with _em_ and ~~del~~.\n\n    indented code <not html>",
            "1. first\n2. second\n\n> quoted",
        ] {
            let direct = render(s, 3, MAX_MARKDOWN_BYTES).0;
            let mut raw = String::new();
            pulldown_cmark::html::push_html(&mut raw, events(s, 3));
            let sanitized = SANITIZER.clean(&raw).to_string();
            let norm = |x: &str| {
                x.replace("&quot;", "\"")
                    .replace("&#39;", "'")
                    .replace('\n', "")
            };
            assert_eq!(norm(&direct), norm(&sanitized), "{s}");
        }
        for s in ["a [link](x)", "<b>", "a | b", "```js\nx\n```", "&amp;"] {
            assert!(needs_sanitizer(s), "{s}");
        }
    }

    #[test]
    fn a_very_long_text_is_cut_with_a_note() {
        let long = "word ".repeat(40_000);
        let h = render(&long, 2, 1000).0;
        assert!(h.len() < 1500, "{}", h.len());
        assert!(h.contains("longer than the page can show"));
    }
}

/// The first block of a Markdown text as plain text (a summary line for cards and lists): inline
/// markup dropped (`` `code` `` and `*emphasis*` read as their text, links as their label), at most
/// `max` bytes. The caller escapes it like any text.
pub(crate) fn first_line_plain(text: &str, max: usize) -> String {
    let (text, _) = truncate(text.trim(), MAX_MARKDOWN_BYTES);
    let mut out = String::new();
    let mut depth = 0usize;
    for event in Parser::new_ext(text, Options::empty()) {
        match event {
            Event::Start(_) => depth += 1,
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if depth == 0 && !out.trim().is_empty() {
                    break;
                }
            }
            Event::Text(t) | Event::Code(t) => out.push_str(&t),
            // The first line only, as before: a summary ends where its source line does.
            Event::SoftBreak | Event::HardBreak if !out.trim().is_empty() => break,
            _ => {}
        }
        if out.len() > max {
            break;
        }
    }
    truncate(out.trim(), max).0.to_owned()
}

#[cfg(test)]
mod first_line_tests {
    use super::first_line_plain;

    #[test]
    fn a_summary_line_drops_markdown_syntax_and_stops_at_the_first_line() {
        assert_eq!(
            first_line_plain(
                "Use `POST /diffs` with **two** [documents](https://x.test).\nMore.",
                200
            ),
            "Use POST /diffs with two documents."
        );
        assert_eq!(first_line_plain("# Title\n\nBody", 200), "Title");
        assert_eq!(first_line_plain("<script>x</script>plain", 200), "");
        assert_eq!(first_line_plain("A <b>bold</b> word", 200), "A bold word");
        assert_eq!(first_line_plain("abcdef", 3), "abc");
    }
}

//! Escaping and the small HTML builder the renderer writes its few remaining fragments with.
//!
//! Every string of a document is attacker-controlled. Page frames and page bodies are askama
//! templates (`templates/`, escaped by default with this module's entities, see `crate::tpl`);
//! the fragments a template receives as already-safe HTML that are still written in code (schema
//! trees and labels, code blocks, the left navigation) go through [`Out`], whose only ways to add
//! document text are [`Out::text`] and [`Out::attr`] (both escape) and [`Out::raw`] for markup this
//! crate writes itself (string literals and values it produced).

use std::fmt::{self, Write};

/// Writes `s` to `dest` with `&`, `<`, `>`, `"` and `'` escaped as `&amp;`, `&lt;`, `&gt;`,
/// `&quot;`, `&#39;`: safe in element content and in quoted attribute values. The one escaper of
/// the engine: [`escape_into`] and the templates' escaper (`crate::tpl`) both write through it.
#[inline]
pub(crate) fn write_escaped<W: Write>(dest: &mut W, s: &str) -> fmt::Result {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let rep = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        dest.write_str(&s[start..i])?;
        dest.write_str(rep)?;
        start = i + 1;
    }
    dest.write_str(&s[start..])
}

/// Writes `s` with `&`, `<`, `>`, `"` and `'` escaped: safe in element content and in quoted
/// attribute values.
pub fn escape_into(out: &mut String, s: &str) {
    // Writing into a String cannot fail.
    let _ = write_escaped(out, s);
}

/// [`escape_into`] into a new string.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    escape_into(&mut out, s);
    out
}

/// HTML this crate vouches for: produced by [`Out`], the Markdown sanitizer, or a template.
/// askama writes it as it is (`{{ x|safe }}` in the templates).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Html(pub(crate) String);

impl Html {
    /// Document text, escaped.
    pub fn text(s: &str) -> Html {
        Html(escape(s))
    }

    /// Markup the caller vouches for: the output of its own askama template (which escaped the
    /// values it was given), or HTML built with [`escape`] and [`crate::markdown`]. Never document
    /// text as it is.
    pub fn trusted(markup: String) -> Html {
        Html(markup)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_string(self) -> String {
        self.0
    }

    /// Appends markup this crate vouches for.
    pub(crate) fn push_html(&mut self, more: &Html) {
        self.0.push_str(&more.0);
    }
}

impl fmt::Display for Html {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A growing HTML fragment.
#[derive(Default)]
pub(crate) struct Out {
    pub(crate) s: String,
}

impl Out {
    pub(crate) fn new() -> Out {
        Out {
            s: String::with_capacity(4096),
        }
    }

    /// Markup written by this crate (never document text).
    #[inline]
    pub(crate) fn raw(&mut self, s: &str) -> &mut Out {
        self.s.push_str(s);
        self
    }

    /// Document text, escaped.
    #[inline]
    pub(crate) fn text(&mut self, s: &str) -> &mut Out {
        escape_into(&mut self.s, s);
        self
    }

    /// An attribute value (the caller writes the quotes): escaped.
    #[inline]
    pub(crate) fn attr(&mut self, s: &str) -> &mut Out {
        escape_into(&mut self.s, s);
        self
    }

    /// Already-safe HTML.
    #[inline]
    pub(crate) fn html(&mut self, h: &Html) -> &mut Out {
        self.s.push_str(&h.0);
        self
    }

    /// A number or other value whose `Display` cannot produce markup characters.
    #[inline]
    pub(crate) fn num(&mut self, n: impl fmt::Display) -> &mut Out {
        let _ = write!(self.s, "{n}");
        self
    }

    /// `<a href="{base}/{path}">` with `path` one of this crate's URL-safe page paths.
    pub(crate) fn link_open(&mut self, base: &str, path: &str) -> &mut Out {
        self.raw("<a href=\"");
        push_href(&mut self.s, base, path);
        self.raw("\">")
    }

    pub(crate) fn len(&self) -> usize {
        self.s.len()
    }

    pub(crate) fn finish(self) -> Html {
        Html(self.s)
    }
}

/// The href of a page: `{base}/{path}`, or the documentation root for the home page (`base`, or
/// `/` when the documentation is served at the site root). `base` comes from the caller already
/// URL-safe, and page paths are made of `[a-z0-9._/-]` (see `site.rs`); both are escaped anyway.
pub(crate) fn push_href(out: &mut String, base: &str, path: &str) {
    if path.is_empty() {
        if base.is_empty() {
            out.push('/');
        } else {
            escape_into(out, base);
        }
    } else {
        escape_into(out, base);
        out.push('/');
        escape_into(out, path);
    }
}

/// True for an absolute `http:` or `https:` URL: the only document URLs that become links (the
/// samples engine's test, so a sample's server and a link agree).
pub(crate) use specpress_samples::is_http_url;

/// A document URL: a link (with the document-link `rel`) when it is http(s), else plain text.
pub(crate) fn url_or_text(out: &mut Out, url: &str, label: Option<&str>) {
    if is_http_url(url) {
        out.raw("<a rel=\"noopener noreferrer nofollow\" href=\"")
            .attr(url.trim())
            .raw("\">")
            .text(label.unwrap_or(url))
            .raw("</a>");
    } else {
        match label {
            Some(l) if l != url => {
                out.text(l).raw(" (<code>").text(url).raw("</code>)");
            }
            _ => {
                out.raw("<code>").text(url).raw("</code>");
            }
        }
    }
}

/// Cuts `s` to at most `max` bytes on a character boundary.
pub(crate) fn truncate(s: &str, max: usize) -> (&str, bool) {
    if s.len() <= max {
        return (s, false);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (&s[..end], true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_every_character_that_can_break_out_of_text_or_an_attribute() {
        assert_eq!(
            escape(r#"<a href="x" onclick='y'>&amp;</a>"#),
            "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;"
        );
        assert_eq!(escape("plain é text"), "plain é text");
    }

    #[test]
    fn only_http_and_https_urls_are_links() {
        for good in ["https://example.com/x", "http://a.b", "HTTPS://EXAMPLE.COM"] {
            assert!(is_http_url(good), "{good}");
        }
        for bad in [
            "javascript:alert(1)",
            "data:text/html,x",
            "//evil.example",
            "/relative",
            "vbscript:x",
            "https://a b",
            "https://a\nb",
            "",
        ] {
            assert!(!is_http_url(bad), "{bad}");
        }
    }

    #[test]
    fn truncation_stays_on_a_character_boundary() {
        assert_eq!(truncate("ééé", 3), ("é", true));
        assert_eq!(truncate("abc", 5), ("abc", false));
    }
}

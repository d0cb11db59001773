//! The Markdown variant of every page (`{page URL}.md`), for tools and AI agents: the same pages as the HTML
//! renderer, from the same model and page index, as plain CommonMark (GFM tables). Links point at the `.md`
//! variants of the other pages.
//!
//! Every string of the document is escaped for Markdown: ASCII punctuation that Markdown reads as syntax is
//! backslash-escaped (so no document text can open a link, an image, raw HTML, emphasis, a code span or a table
//! cell), line breaks inside one-line fields become spaces, and descriptions keep their paragraphs but not their
//! formatting (their Markdown is shown as text, not interpreted). The budgets of the HTML pages apply (rows per
//! page, depth, text sizes).
//!
//! This module escapes text and writes Markdown ([`Md`]); the page bodies are in `pages`, the `llms.txt` in `llms`.

mod llms;
mod pages;

use std::fmt::Write;

use specpress_apispec::Location;

use crate::html::truncate;
use crate::schema::{Ctx, MAX_TREE_DEPTH, flatten};

/// Bytes of one description shown.
const MAX_TEXT_BYTES: usize = 16 * 1024;
/// Property lines on one page.
const MAX_LINES: usize = 800;
/// Levels of nested properties shown.
const MAX_DEPTH: usize = 4;

/// What the caller knows for the Markdown pages.
pub struct MarkdownContext<'a> {
    /// The documentation root the links are built on (`https://docs.example.com/doc/pets`, or a path): URL-safe.
    pub base: &'a str,
    /// The documentation's name (untrusted).
    pub doc_name: &'a str,
    /// The API version and publication time (RFC 3339) shown under the title, if any (untrusted).
    pub version: Option<(&'a str, &'a str)>,
    /// The documentation's MCP server (`llms.txt` names it, by its absolute URL when given), if any.
    pub mcp: Option<crate::McpServer<'a>>,
}

/// Escapes text for one line of Markdown: every ASCII punctuation character Markdown may read as syntax is
/// backslash-escaped, and line breaks become spaces.
pub fn escape_markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '{' | '}' | '[' | ']' | '<' | '>' | '(' | ')' | '#' | '+'
            | '-' | '.' | '!' | '|' | '~' | '&' | '=' | '"' | '\'' | ':' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c if crate::neutral::is_bidi_control(c) => out.push(crate::neutral::REPLACEMENT),
            c => out.push(c),
        }
    }
    out
}

/// Escapes a description: paragraphs kept (blank lines), each escaped as text.
fn escape_block(s: &str) -> String {
    let (s, cut) = truncate(s, MAX_TEXT_BYTES);
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in s.lines() {
        if line.trim().is_empty() {
            if !current.is_empty() {
                paragraphs.push(escape_markdown(current.join(" ").trim()));
                current.clear();
            }
        } else {
            current.push(line.trim());
        }
    }
    if !current.is_empty() {
        paragraphs.push(escape_markdown(current.join(" ").trim()));
    }
    let mut text = paragraphs.join("\n\n");
    if cut {
        text.push_str(" (cut: the full text is in the document)");
    }
    text
}

struct Md<'a, 'c> {
    out: String,
    c: &'c Ctx<'a>,
    base: &'c str,
    lines: usize,
}

impl Md<'_, '_> {
    fn line(&mut self, s: &str) {
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn blank(&mut self) {
        if !self.out.ends_with("\n\n") && !self.out.is_empty() {
            self.out.push('\n');
        }
    }

    fn heading(&mut self, level: usize, text: &str) {
        self.blank();
        let _ = writeln!(self.out, "{} {}", "#".repeat(level), text);
        self.out.push('\n');
    }

    fn paragraph(&mut self, escaped: &str) {
        if escaped.is_empty() {
            return;
        }
        self.blank();
        self.out.push_str(escaped);
        self.out.push_str("\n\n");
    }

    /// `[text](base/path.md)`.
    fn link(&self, text: &str, page: u32) -> String {
        let path = &self.c.site.pages[page as usize].path;
        format!("[{}]({})", escape_markdown(text), md_href(self.base, path))
    }

    /// A plain-text type: `string (date-time)`, `array of Pet`, `object`.
    fn type_text(&self, loc: &Location, depth: usize) -> String {
        let flat = flatten(self.c, loc);
        if let Some(i) = flat.named {
            let (_, name) = self.c.site.schema_page(i);
            return self.link(name, self.c.site.schema_pages[i as usize]);
        }
        // Escaped piece by piece: an item type may be a link.
        let mut t = escape_markdown(&flat.type_names().join(" | "));
        if let Some(items) = flat.item_schema()
            && depth < 4
        {
            t = format!("array of {}", self.type_text(items, depth + 1));
        }
        if t.is_empty() {
            t = if flat.properties().next().is_some() {
                "object".to_string()
            } else {
                "any".to_string()
            };
        }
        if let Some(f) = flat.format_name() {
            let _ = write!(t, " ({})", escape_markdown(f));
        }
        if flat.nullable {
            t.push_str(", nullable");
        }
        if let Some(values) = flat.enum_values().and_then(|v| v.as_array()) {
            let shown: Vec<String> = values
                .iter()
                .take(20)
                .map(|v| match v.as_str() {
                    Some(s) => escape_markdown(s),
                    None => escape_markdown(&v.to_value().to_string()),
                })
                .collect();
            let _ = write!(t, ", one of: {}", shown.join(", "));
            if values.len() > 20 {
                let _ = write!(t, " and {} more", values.len() - 20);
            }
        }
        t
    }

    /// A schema as a nested list of its properties (name, type, required, first line of the description).
    fn properties(&mut self, loc: &Location, depth: usize, indent: usize) {
        if depth >= MAX_DEPTH.min(MAX_TREE_DEPTH) {
            return;
        }
        let flat = flatten(self.c, loc);
        let items = match (flat.properties().next().is_none(), flat.item_schema()) {
            (true, Some(items)) => Some(items.clone()),
            _ => None,
        };
        let flat = match items {
            Some(items) => flatten(self.c, &items),
            None => flat,
        };
        for (name, ploc, required) in flat.properties() {
            if self.lines >= MAX_LINES {
                if self.lines == MAX_LINES {
                    let _ = writeln!(
                        self.out,
                        "{}- More properties are not shown here (page size limit).",
                        "  ".repeat(indent)
                    );
                    self.lines += 1;
                }
                return;
            }
            self.lines += 1;
            let child = flatten(self.c, ploc);
            let mut line = format!(
                "{}- `{}` ({}{})",
                "  ".repeat(indent),
                code_text(name),
                self.type_text(ploc, 0),
                if required { ", required" } else { "" }
            );
            if let Some(d) = child.description {
                let first = d.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                let (first, _) = truncate(first.trim(), 300);
                if !first.is_empty() {
                    let _ = write!(line, ": {}", escape_markdown(first));
                }
            }
            self.line(&line);
            if child.named.is_none() {
                let nested = child.properties().next().is_some()
                    || child
                        .item_schema()
                        .is_some_and(|i| flatten(self.c, i).named.is_none());
                if nested {
                    self.properties(ploc, depth + 1, indent + 1);
                }
            }
        }
    }

    fn schema_section(&mut self, loc: &Location) {
        let t = self.type_text(loc, 0);
        self.paragraph(&format!("Type: {t}"));
        let before = self.out.len();
        self.properties(loc, 0, 0);
        if self.out.len() > before {
            self.out.push('\n');
        }
    }
}

/// Text inside a code span: backticks cannot be escaped there, so they become `'`; line breaks become spaces.
fn code_text(s: &str) -> String {
    let (s, _) = truncate(s, 200);
    s.chars()
        .map(|c| match c {
            '`' => '\'',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

/// A form of a documentation's root (`.md`, `.json`): `{base}{suffix}`, or `{base}/{suffix}` for a documentation
/// served at the root of its own hostname (`` or `https://docs.example.com`), where its home is `/`.
pub fn root_form(base: &str, suffix: &str) -> String {
    let at_root = base.is_empty()
        || base
            .split_once("://")
            .is_some_and(|(_, rest)| !rest.contains('/'));
    if at_root {
        format!("{base}/{suffix}")
    } else {
        format!("{base}{suffix}")
    }
}

/// The `.md` URL of a page: `{base}.md` for the home page ([`root_form`]), `{base}/{path}.md` otherwise.
pub fn md_href(base: &str, path: &str) -> String {
    if path.is_empty() {
        root_form(base, ".md")
    } else {
        format!("{base}/{path}.md")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_syntax_in_document_text_is_escaped() {
        assert_eq!(
            escape_markdown("[x](javascript:alert(1)) <b>*y*</b>\n# z"),
            "\\[x\\]\\(javascript\\:alert\\(1\\)\\) \\<b\\>\\*y\\*\\<\\/b\\> \\# z"
                .replace("\\/", "/")
        );
        assert_eq!(escape_block("a\nb\n\n\nc"), "a b\n\nc");
        assert_eq!(code_text("a`b\nc"), "a'b c");
        assert_eq!(md_href("/doc/p", ""), "/doc/p.md");
        assert_eq!(md_href("", ""), "/.md");
        assert_eq!(
            md_href("https://docs.example.com", ""),
            "https://docs.example.com/.md"
        );
        assert_eq!(
            md_href("https://docs.example.com/pets", ""),
            "https://docs.example.com/pets.md"
        );
        assert_eq!(md_href("", "schema/Pet"), "/schema/Pet.md");
        assert_eq!(md_href("/doc/p", "schema/Pet"), "/doc/p/schema/Pet.md");
    }
}

//! The Markdown variant of every page (`{page URL}.md`), for tools and AI agents: the same pages as the HTML
//! renderer, from the same model and page index, as plain CommonMark (GFM tables). Links point at the `.md`
//! variants of the other pages.
//!
//! Every string of the document is escaped for Markdown: ASCII punctuation that Markdown reads as syntax is
//! backslash-escaped (so no document text can open a link, an image, raw HTML, emphasis, a code span or a table
//! cell), line breaks inside one-line fields become spaces, and descriptions keep their paragraphs but not their
//! formatting (their Markdown is shown as text, not interpreted). The budgets of the HTML pages apply (rows per
//! page, depth, text sizes).

use std::fmt::Write;

use specpress_spec::{Direction, Document, Location, Operation, OperationKind, ParameterIn};

use crate::html::truncate;
use crate::schema::{Ctx, MAX_TREE_DEPTH, flatten};
use crate::site::{Site, Target};
use crate::{PageKind, PageRef};

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

/// The `.md` URL of a page: `{base}.md` for the home page, `{base}/{path}.md` otherwise.
pub fn md_href(base: &str, path: &str) -> String {
    if path.is_empty() {
        format!("{base}.md")
    } else {
        format!("{base}/{path}.md")
    }
}

impl Site {
    /// Renders one page as Markdown (see the module documentation). `doc` must be the document the site was built
    /// from.
    pub fn render_markdown(
        &self,
        doc: &Document,
        page: &PageRef,
        ctx: &MarkdownContext<'_>,
    ) -> String {
        let c = Ctx::new(doc, self, ctx.base);
        let mut md = Md {
            out: String::with_capacity(8192),
            c: &c,
            base: ctx.base,
            lines: 0,
        };
        let Some(p) = self.pages.get(page.0 as usize) else {
            return String::new();
        };
        md.heading(1, &escape_markdown(&p.title));
        let mut meta = format!("Documentation: {}", escape_markdown(ctx.doc_name));
        if let Some((v, published)) = ctx.version {
            if !v.is_empty() {
                let _ = write!(meta, ", version {}", escape_markdown(v));
            }
            if !published.is_empty() {
                let _ = write!(meta, ", published {}", escape_markdown(published));
            }
        }
        md.paragraph(&meta);
        match &p.target {
            Target::Home => home(&mut md, doc),
            Target::Topic(i) => {
                let text = doc
                    .root()
                    .get("x-topics")
                    .and_then(|t| t.at(*i as usize))
                    .and_then(|t| t.get("content"))
                    .and_then(|v| v.as_str());
                if let Some(t) = text {
                    md.paragraph(&escape_block(t));
                }
            }
            Target::Group(g) => group(&mut md, *g),
            Target::Operation(i) => {
                if let Some(op) = doc
                    .model()
                    .operations
                    .get_index(*i as usize)
                    .map(|(_, o)| o)
                {
                    operation(&mut md, op);
                }
            }
            Target::Callback(o, cb) => {
                let ops = doc
                    .model()
                    .operations
                    .get_index(*o as usize)
                    .and_then(|(_, op)| op.callbacks.get_index(*cb as usize))
                    .map(|(_, ops)| ops);
                md.paragraph(
                    "The API sends these requests to your server (a callback of the operation).",
                );
                for op in ops.into_iter().flatten() {
                    md.heading(
                        2,
                        &format!(
                            "{} {}",
                            escape_markdown(&op.key.method),
                            escape_markdown(&op.path)
                        ),
                    );
                    operation(&mut md, op);
                }
            }
            Target::SchemasIndex => {
                for i in 0..self.schema_count() {
                    let line = format!(
                        "- {}",
                        md.link(self.schema_page(i as u32).1, self.schema_pages[i])
                    );
                    md.line(&line);
                }
            }
            Target::Schema(i) => {
                if let Some((_, loc)) = doc.model().schemas.get_index(*i as usize) {
                    let flat = flatten(&c, loc);
                    if let Some(d) = flat.description {
                        md.paragraph(&escape_block(d));
                    }
                    md.schema_section(loc);
                    let users = self
                        .used_by
                        .get(*i as usize)
                        .map(Vec::as_slice)
                        .unwrap_or(&[]);
                    if !users.is_empty() {
                        md.heading(2, "Where it is used");
                        for &u in users.iter().take(300) {
                            let line = format!("- {}", op_link(&md, u));
                            md.line(&line);
                        }
                    }
                }
            }
            Target::Channel(i) => {
                if let Some((_, ch)) = doc.model().channels.get_index(*i as usize) {
                    md.paragraph(&format!("Address: `{}`", code_text(&ch.address)));
                    if let Some(d) = &ch.description {
                        md.paragraph(&escape_block(d));
                    }
                    if !ch.parameters.is_empty() {
                        md.heading(2, "Parameters");
                        for (name, loc) in &ch.parameters {
                            let t = loc
                                .as_ref()
                                .map(|l| md.type_text(l, 0))
                                .unwrap_or_else(|| "string".into());
                            let line = format!("- `{}` ({t})", code_text(name));
                            md.line(&line);
                        }
                    }
                    let ops: Vec<u32> = doc
                        .model()
                        .message_operations
                        .values()
                        .enumerate()
                        .filter(|(_, o)| {
                            doc.model().channels.get_index_of(&o.key.channel) == Some(*i as usize)
                        })
                        .filter_map(|(k, _)| self.message_pages.get(k).copied())
                        .collect();
                    if !ops.is_empty() {
                        md.heading(2, "Operations");
                        for p in ops {
                            let line = format!("- {}", op_link(&md, p));
                            md.line(&line);
                        }
                    }
                }
            }
            Target::MessageOperation(i) => {
                if let Some((_, op)) = doc.model().message_operations.get_index(*i as usize) {
                    let (verb, sentence) = match op.key.direction {
                        Direction::Send => (
                            "SEND",
                            "The API sends these messages; your application receives them.",
                        ),
                        Direction::Receive => (
                            "RECEIVE",
                            "The API receives these messages; your application sends them.",
                        ),
                    };
                    md.paragraph(&format!(
                        "**{verb}** `{}`. {sentence}",
                        code_text(&op.channel_address)
                    ));
                    if op.deprecated {
                        md.paragraph("**Deprecated.**");
                    }
                    if let Some(id) = &op.operation_id {
                        md.paragraph(&format!("Operation id: `{}`", code_text(id)));
                    }
                    if let Some(d) = &op.description {
                        md.paragraph(&escape_block(d));
                    }
                    for m in op.messages.values() {
                        md.heading(2, &format!("Message `{}`", code_text(&m.name)));
                        if let Some(t) = &m.title {
                            md.paragraph(&escape_markdown(t));
                        }
                        if let Some(s) = &m.summary {
                            md.paragraph(&escape_markdown(s));
                        }
                        if let Some(d) = &m.description {
                            md.paragraph(&escape_block(d));
                        }
                        if let Some(ct) = &m.content_type {
                            md.paragraph(&format!("Content type: `{}`", code_text(ct)));
                        }
                        if let Some(h) = &m.headers {
                            md.heading(3, "Headers");
                            md.schema_section(h);
                        }
                        if let Some(p) = &m.payload {
                            md.heading(3, "Payload");
                            md.schema_section(p);
                        }
                    }
                }
            }
        }
        let html = if p.path.is_empty() {
            ctx.base.to_string()
        } else {
            format!("{}/{}", ctx.base, p.path)
        };
        md.blank();
        let _ = writeln!(md.out, "---\n\nThis page as HTML: <{html}>");
        md.out
    }
}

fn op_link(md: &Md<'_, '_>, page: u32) -> String {
    let p = &md.c.site.pages[page as usize];
    let badge = p.badge.map(crate::shell::badge_text).unwrap_or("");
    if badge.is_empty() {
        md.link(&p.title, page)
    } else {
        format!("{badge} {}", md.link(&p.title, page))
    }
}

fn home(md: &mut Md<'_, '_>, doc: &Document) {
    if let Some(d) = doc.description() {
        md.paragraph(&escape_block(d));
    }
    let servers = &doc.model().servers;
    if !servers.is_empty() {
        md.heading(2, "Servers");
        for s in servers.iter().take(50) {
            let mut line = format!("- `{}`", code_text(&s.url));
            if let Some(d) = &s.description {
                let _ = write!(line, ": {}", escape_markdown(d));
            }
            md.line(&line);
        }
    }
    let site = md.c.site;
    md.heading(2, "Pages");
    for &t in &site.topics {
        let line = format!("- {}", md.link(&site.pages[t as usize].title, t));
        md.line(&line);
    }
    for &g in &site.root_groups {
        group_list(md, g, 0);
    }
    if let Some(s) = site.schemas_index {
        let line = format!("- {}", md.link("Schemas", s));
        md.line(&line);
    }
}

fn group_list(md: &mut Md<'_, '_>, g: u32, depth: usize) {
    let site = md.c.site;
    let Some(group) = site.groups.get(g as usize) else {
        return;
    };
    let indent = "  ".repeat(depth);
    let head = match group.page {
        Some(p) => md.link(&group.title, p),
        None => escape_markdown(&group.title),
    };
    md.line(&format!("{indent}- {head}"));
    for &i in &group.items {
        let line = format!("{indent}  - {}", op_link(md, i));
        md.line(&line);
    }
    if depth < 8 {
        for &c in &group.children {
            group_list(md, c, depth + 1);
        }
    }
}

fn group(md: &mut Md<'_, '_>, g: u32) {
    let site = md.c.site;
    let Some(group) = site.groups.get(g as usize) else {
        return;
    };
    if let Some(t) = group.tag
        && let Some(d) =
            md.c.doc
                .root()
                .get("tags")
                .and_then(|tags| tags.at(t as usize))
                .and_then(|tag| tag.get("description"))
                .and_then(|d| d.as_str())
    {
        md.paragraph(&escape_block(d));
    }
    for &i in &group.items {
        let line = format!("- {}", op_link(md, i));
        md.line(&line);
    }
    for &c in &group.children {
        if let Some(p) = site.groups[c as usize].page {
            let line = format!("- {}", md.link(&site.groups[c as usize].title, p));
            md.line(&line);
        }
    }
}

fn operation(md: &mut Md<'_, '_>, op: &Operation) {
    let kind = match op.key.kind {
        OperationKind::Path => "",
        OperationKind::Webhook => " (webhook: the API sends this request to your server)",
    };
    md.paragraph(&format!(
        "**{}** `{}`{kind}",
        escape_markdown(&op.key.method),
        code_text(&op.path)
    ));
    if op.deprecated {
        md.paragraph("**Deprecated.**");
    }
    if let Some(s) = &op.sunset {
        md.paragraph(&format!("Sunset date: {}", escape_markdown(s)));
    }
    if let Some(id) = &op.operation_id {
        md.paragraph(&format!("Operation id: `{}`", code_text(id)));
    }
    if let Some(s) = &op.summary
        && md.out.len() < 100_000
    {
        md.paragraph(&escape_markdown(s));
    }
    if let Some(d) = &op.description {
        md.paragraph(&escape_block(d));
    }
    if !op.parameters.is_empty() {
        md.heading(2, "Parameters");
        md.line("| Name | In | Type | Required | Description |");
        md.line("|---|---|---|---|---|");
        for p in &op.parameters {
            let location = match p.location {
                ParameterIn::Path => "path",
                ParameterIn::Query => "query",
                ParameterIn::Header => "header",
                ParameterIn::Cookie => "cookie",
            };
            let t = p
                .schema
                .as_ref()
                .map(|l| md.type_text(l, 0))
                .unwrap_or_default();
            let d = p
                .description
                .as_deref()
                .map(|d| escape_markdown(truncate(d, 500).0))
                .unwrap_or_default();
            let line = format!(
                "| `{}` | {location} | {t} | {} | {d} |",
                code_text(&p.name).replace('|', "\\|"),
                if p.required { "yes" } else { "no" }
            );
            md.line(&line);
        }
        md.out.push('\n');
    }
    if let Some(body) = &op.request_body {
        md.heading(
            2,
            if body.required {
                "Request body (required)"
            } else {
                "Request body"
            },
        );
        if let Some(d) = &body.description {
            md.paragraph(&escape_block(d));
        }
        for (media, m) in &body.content {
            md.heading(3, &format!("`{}`", code_text(media)));
            if let Some(s) = &m.schema {
                md.schema_section(s);
            }
        }
    }
    if !op.responses.is_empty() {
        md.heading(2, "Responses");
        for (status, r) in &op.responses {
            md.heading(3, &escape_markdown(status));
            if let Some(d) = &r.description {
                md.paragraph(&escape_block(d));
            }
            for (name, h) in &r.headers {
                let t = h
                    .schema
                    .as_ref()
                    .map(|l| md.type_text(l, 0))
                    .unwrap_or_default();
                let line = format!("- Header `{}` ({t})", code_text(name));
                md.line(&line);
            }
            for (media, m) in &r.content {
                md.paragraph(&format!("Content `{}`:", code_text(media)));
                if let Some(s) = &m.schema {
                    md.schema_section(s);
                }
            }
        }
    }
    if !op.callbacks.is_empty() {
        md.heading(2, "Callbacks");
        for name in op.callbacks.keys() {
            md.line(&format!("- `{}`", code_text(name)));
        }
    }
}

impl Site {
    /// The pages of the documentation for an `llms.txt`: each page's Markdown URL, title and a one-line
    /// description, grouped as the navigation groups them. Links are built on `base` (URL-safe).
    pub fn llms_txt(&self, doc: &Document, ctx: &MarkdownContext<'_>) -> String {
        let mut out = String::with_capacity(self.pages.len() * 120);
        let title = if ctx.doc_name.trim().is_empty() {
            doc.title()
        } else {
            ctx.doc_name
        };
        let _ = writeln!(out, "# {}\n", escape_markdown(title));
        let mut summary = String::from("API reference");
        if !doc.title().is_empty() {
            let _ = write!(summary, " of {}", doc.title());
        }
        if let Some((v, _)) = ctx.version
            && !v.is_empty()
        {
            let _ = write!(summary, ", version {v}");
        }
        if let Some(d) = doc.description() {
            let first = d.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let _ = write!(summary, ". {}", truncate(first.trim(), 300).0);
        }
        let _ = writeln!(out, "> {}\n", escape_markdown(&summary));
        let _ = writeln!(
            out,
            "Every page below is Markdown; the same URL without `.md` is the HTML page. The definition itself: [{}]({}.json).\n",
            escape_markdown(title),
            ctx.base
        );
        let line = |out: &mut String, page: u32, description: &str| {
            let p = &self.pages[page as usize];
            let _ = write!(
                out,
                "- [{}]({})",
                escape_markdown(&p.title),
                md_href(ctx.base, &p.path)
            );
            if !description.is_empty() {
                let _ = write!(out, ": {}", escape_markdown(truncate(description, 200).0));
            }
            out.push('\n');
        };
        out.push_str("## Overview\n\n");
        line(
            &mut out,
            0,
            "the API's description, servers and authentication",
        );
        for &t in &self.topics {
            line(&mut out, t, "topic");
        }
        for &g in &self.root_groups {
            self.llms_group(doc, &mut out, g, &line, 0);
        }
        if let Some(s) = self.schemas_index {
            out.push_str("\n## Schemas\n\n");
            line(&mut out, s, "every named schema");
            for (i, (_, loc)) in doc.model().schemas.iter().enumerate() {
                let d = doc
                    .value(loc)
                    .and_then(|v| {
                        v.get("title")
                            .or_else(|| v.get("description"))
                            .and_then(|d| d.as_str())
                    })
                    .and_then(|d| d.lines().find(|l| !l.trim().is_empty()))
                    .unwrap_or("schema");
                line(&mut out, self.schema_pages[i], d.trim());
            }
        }
        out
    }

    fn llms_group(
        &self,
        doc: &Document,
        out: &mut String,
        g: u32,
        line: &impl Fn(&mut String, u32, &str),
        depth: usize,
    ) {
        let Some(group) = self.groups.get(g as usize) else {
            return;
        };
        let _ = writeln!(out, "\n## {}\n", escape_markdown(&group.title));
        if let Some(p) = group.page {
            line(out, p, "the group's operations");
        }
        for &i in &group.items {
            let p = &self.pages[i as usize];
            let what = match &p.target {
                Target::Operation(o) => doc
                    .model()
                    .operations
                    .get_index(*o as usize)
                    .map(|(_, op)| format!("{} {}", op.key.method, op.path))
                    .unwrap_or_default(),
                Target::MessageOperation(o) => doc
                    .model()
                    .message_operations
                    .get_index(*o as usize)
                    .map(|(_, op)| {
                        let verb = match op.key.direction {
                            Direction::Send => "SEND",
                            Direction::Receive => "RECEIVE",
                        };
                        format!("{verb} {}", op.channel_address)
                    })
                    .unwrap_or_default(),
                _ => match p.kind {
                    PageKind::Channel => "channel".to_string(),
                    _ => String::new(),
                },
            };
            line(out, i, &what);
        }
        if depth < 8 {
            for &c in &group.children {
                self.llms_group(doc, out, c, line, depth + 1);
            }
        }
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
        assert_eq!(md_href("/doc/p", "schema/Pet"), "/doc/p/schema/Pet.md");
    }
}

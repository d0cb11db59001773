//! The Markdown body of every page kind, from the same page index as the HTML pages.

use std::fmt::Write;

use specpress_apispec::{Direction, Document, Operation, OperationKind, ParameterIn};

use super::{MarkdownContext, Md, code_text, escape_block, escape_markdown};
use crate::PageRef;
use crate::html::truncate;
use crate::schema::{Ctx, flatten};
use crate::site::{Site, Target};

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
            Target::Topic(i) => topic(&mut md, *i),
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
            Target::Callback(o, cb) => callback(&mut md, *o, *cb),
            Target::SchemasIndex => schemas_index(&mut md),
            Target::Schema(i) => schema(&mut md, *i),
            Target::Channel(i) => channel(&mut md, *i),
            Target::MessageOperation(i) => message_operation(&mut md, *i),
            Target::Message(i) => lone_message(&mut md, *i),
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

/// An `x-topics` guide: its content as escaped text.
fn topic(md: &mut Md<'_, '_>, i: u32) {
    let text =
        md.c.doc
            .root()
            .get("x-topics")
            .and_then(|t| t.at(i as usize))
            .and_then(|t| t.get("content"))
            .and_then(|v| v.as_str());
    if let Some(t) = text {
        md.paragraph(&escape_block(t));
    }
}

/// The requests of callback `cb` of operation `o`.
fn callback(md: &mut Md<'_, '_>, o: u32, cb: u32) {
    let ops =
        md.c.doc
            .model()
            .operations
            .get_index(o as usize)
            .and_then(|(_, op)| op.callbacks.get_index(cb as usize))
            .map(|(_, ops)| ops);
    md.paragraph("The API sends these requests to your server (a callback of the operation).");
    for op in ops.into_iter().flatten() {
        md.heading(
            2,
            &format!(
                "{} {}",
                escape_markdown(&op.key.method),
                escape_markdown(&op.path)
            ),
        );
        operation(md, op);
    }
}

/// The list of named schemas.
fn schemas_index(md: &mut Md<'_, '_>) {
    let site = md.c.site;
    for i in 0..site.schema_count() {
        let line = format!(
            "- {}",
            md.link(site.schema_page(i as u32).1, site.schema_pages[i])
        );
        md.line(&line);
    }
}

/// Named schema `i`: its description, type and properties, and the operations that use it.
fn schema(md: &mut Md<'_, '_>, i: u32) {
    let doc = md.c.doc;
    let site = md.c.site;
    if let Some((_, loc)) = doc.model().schemas.get_index(i as usize) {
        let flat = flatten(md.c, loc);
        if let Some(d) = flat.description {
            md.paragraph(&escape_block(d));
        }
        md.schema_section(loc);
        let users = site
            .used_by
            .get(i as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        if !users.is_empty() {
            md.heading(2, "Where it is used");
            for &u in users.iter().take(300) {
                let line = format!("- {}", op_link(md, u));
                md.line(&line);
            }
        }
    }
}

/// AsyncAPI channel `i`: its address, description, parameters and operations.
fn channel(md: &mut Md<'_, '_>, i: u32) {
    let doc = md.c.doc;
    let site = md.c.site;
    if let Some((_, ch)) = doc.model().channels.get_index(i as usize) {
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
            .filter(|(_, o)| doc.model().channels.get_index_of(&o.key.channel) == Some(i as usize))
            .filter_map(|(k, _)| site.message_pages.get(k).copied())
            .collect();
        if !ops.is_empty() {
            md.heading(2, "Operations");
            for p in ops {
                let line = format!("- {}", op_link(md, p));
                md.line(&line);
            }
        }
        channel_messages(md, ch);
    }
}

/// A channel's messages: name, title and content type (as many as its HTML page lists).
fn channel_messages(md: &mut Md<'_, '_>, ch: &specpress_apispec::Channel) {
    if ch.messages.is_empty() {
        return;
    }
    md.heading(2, "Messages");
    for m in ch.messages.values().take(400) {
        let mut line = format!("- `{}`", code_text(&m.name));
        if let Some(t) = &m.title {
            let _ = write!(line, ": {}", escape_markdown(t));
        }
        if let Some(ct) = &m.content_type {
            let _ = write!(line, " (`{}`)", code_text(ct));
        }
        md.line(&line);
    }
}

/// AsyncAPI operation `i`: who sends, its description and its messages with their headers and
/// payload.
fn message_operation(md: &mut Md<'_, '_>, i: u32) {
    let Some((_, op)) = md.c.doc.model().message_operations.get_index(i as usize) else {
        return;
    };
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
        message(md, m);
    }
}

/// Component message `i`, which no channel uses.
fn lone_message(md: &mut Md<'_, '_>, i: u32) {
    let Some((_, m)) = md.c.doc.model().messages.get_index(i as usize) else {
        return;
    };
    md.paragraph("No channel uses this message: no operation sends or receives it.");
    message(md, m);
}

/// A message's texts, content type, headers and payload.
fn message(md: &mut Md<'_, '_>, m: &specpress_apispec::Message) {
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
    if op.key.kind == OperationKind::Path {
        request_sample(md, op);
    }
}

/// The curl sample in a fenced block, the fence longer than any run of backquotes in it (the
/// sample holds document text).
fn request_sample(md: &mut Md<'_, '_>, op: &Operation) {
    let sample = crate::pages::samples::curl_sample(md.c, op);
    let mut longest = 0;
    let mut run = 0;
    for ch in sample.chars() {
        run = if ch == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    md.heading(2, "Request sample");
    md.line(&format!("{fence}shell"));
    md.line(&sample);
    md.line(&fence);
}

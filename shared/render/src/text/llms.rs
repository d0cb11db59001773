//! `llms.txt`: the pages of a documentation as a list of Markdown links, grouped as the
//! navigation groups them, for tools and AI agents.

use std::fmt::Write;

use specpress_apispec::{Direction, Document};

use super::{MarkdownContext, escape_markdown, md_href, root_form};
use crate::PageKind;
use crate::html::truncate;
use crate::site::{Site, Target};

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
            "Every page below is Markdown; the same URL without `.md` is the HTML page. The definition itself: [{}]({}).\n",
            escape_markdown(title),
            root_form(ctx.base, ".json")
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
        if let Some(m) = &ctx.mcp {
            crate::mcp::llms_section(&mut out, m);
        }
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

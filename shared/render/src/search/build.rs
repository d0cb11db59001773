//! Building the index: an entry per operation, parameter, tag, topic, AsyncAPI channel, operation and message,
//! named schema and property (nested ones too), with the terms of its fields and their weights; then the term
//! dictionary (an fst map) and the posting lists.

use std::collections::HashMap;

use fst::{Map, MapBuilder};
use specpress_apispec::{Direction, Document, OperationKind};

use super::terms::index_terms;
use super::{
    Entry, HitKind, MAX_PROPERTY_DEPTH, MAX_PROPERTY_ENTRIES, SearchIndex, W_ID, W_NAME, W_PATH,
    W_SUMMARY, W_TAG,
};
use crate::schema::{Ctx, Flat, flatten};
use crate::site::Site;

struct Builder {
    terms: HashMap<String, Vec<u32>>,
    entries: Vec<Entry>,
    /// Terms of the entry being added, with their best weight.
    pending: Vec<(String, u8)>,
    properties: usize,
    truncated: bool,
}

fn cut(s: &str) -> Box<str> {
    if s.chars().count() <= 200 {
        s.into()
    } else {
        s.chars().take(200).collect::<String>().into()
    }
}

impl Builder {
    fn add(&mut self, kind: HitKind, page: u32, title: &str, context: &str, fields: &[(&str, u8)]) {
        let id = self.entries.len() as u32;
        if id >= (u32::MAX >> 3) {
            self.truncated = true;
            return;
        }
        self.entries.push(Entry {
            kind,
            page,
            title: cut(title),
            context: cut(context),
        });
        let mut pending = std::mem::take(&mut self.pending);
        pending.clear();
        for &(text, w) in fields {
            // Fields are names and summaries: a long text (a summary written as a paragraph) is read in part.
            let text = crate::html::truncate(text, 1024).0;
            index_terms(text, |t| pending.push((t, w)));
        }
        // One posting per term and entry, with the best weight.
        pending.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        pending.dedup_by(|a, b| a.0 == b.0);
        for (t, w) in pending.drain(..) {
            self.terms
                .entry(t)
                .or_default()
                .push((id << 3) | u32::from(w.min(7)));
        }
        self.pending = pending;
    }

    fn property(&mut self, page: u32, name: &str, context: &str) -> bool {
        if self.properties >= MAX_PROPERTY_ENTRIES {
            self.truncated = true;
            return false;
        }
        self.properties += 1;
        self.add(HitKind::Property, page, name, context, &[(name, W_NAME)]);
        true
    }

    /// The properties of a schema (and of its inline objects and arrays of objects, down to
    /// [`MAX_PROPERTY_DEPTH`] levels), as entries linking to `page`.
    fn properties(
        &mut self,
        ctx: &Ctx<'_>,
        flat: &Flat<'_>,
        page: u32,
        owner: &str,
        prefix: &str,
        depth: usize,
    ) {
        for (name, loc, _) in flat.properties() {
            let context = if prefix.is_empty() {
                format!("Property of {owner}")
            } else {
                format!("Property of {owner} › {prefix}")
            };
            if !self.property(page, name, &context) {
                return;
            }
            if depth + 1 >= MAX_PROPERTY_DEPTH {
                continue;
            }
            let child = flatten(ctx, loc);
            // A named schema has its own entries.
            if child.named.is_some() {
                continue;
            }
            let path = if prefix.is_empty() {
                name.to_string()
            } else {
                format!("{prefix}.{name}")
            };
            if child.properties().next().is_some() {
                self.properties(ctx, &child, page, owner, &path, depth + 1);
            } else if let Some(items) = child.item_schema() {
                let inner = flatten(ctx, items);
                if inner.named.is_none() {
                    self.properties(ctx, &inner, page, owner, &format!("{path}[]"), depth + 1);
                }
            }
        }
    }

    fn finish(self) -> SearchIndex {
        let mut keys: Vec<(String, Vec<u32>)> = self.terms.into_iter().collect();
        keys.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut offsets = Vec::with_capacity(keys.len() + 1);
        let mut postings = Vec::with_capacity(keys.iter().map(|k| k.1.len()).sum());
        let mut map = MapBuilder::memory();
        for (i, (term, list)) in keys.iter().enumerate() {
            offsets.push(postings.len() as u32);
            postings.extend_from_slice(list);
            // Keys are sorted and distinct: insertion cannot fail.
            let _ = map.insert(term.as_bytes(), i as u64);
        }
        offsets.push(postings.len() as u32);
        let terms = map
            .into_inner()
            .ok()
            .and_then(|bytes| Map::new(bytes).ok())
            .unwrap_or_default();
        SearchIndex {
            terms,
            offsets,
            postings,
            entries: self.entries,
            truncated: self.truncated,
        }
    }
}

impl SearchIndex {
    /// Indexes `doc` (whose pages `site` lists).
    pub fn build(doc: &Document, site: &Site) -> SearchIndex {
        let ctx = Ctx::new(doc, site, "");
        let mut b = Builder {
            terms: HashMap::new(),
            entries: Vec::new(),
            pending: Vec::new(),
            properties: 0,
            truncated: false,
        };
        b.topics_and_groups(site);
        b.operations(&ctx);
        b.asyncapi(&ctx);
        b.schemas(&ctx);
        b.finish()
    }
}

impl Builder {
    /// Topics and navigation groups (by title).
    fn topics_and_groups(&mut self, site: &Site) {
        for &t in &site.topics {
            let title = site.pages[t as usize].title.clone();
            self.add(HitKind::Topic, t, &title, "Topic", &[(&title, W_NAME)]);
        }
        for g in &site.groups {
            if let Some(p) = g.page {
                self.add(HitKind::Tag, p, &g.title, "Group", &[(&g.title, W_NAME)]);
            }
        }
    }

    /// HTTP operations and webhooks, their parameters and inline request body properties.
    fn operations(&mut self, ctx: &Ctx<'_>) {
        let (model, site) = (ctx.doc.model(), ctx.site);
        for (i, op) in model.operations.values().enumerate() {
            let Some(&page) = site.op_pages.get(i) else {
                continue;
            };
            let kind = match op.key.kind {
                OperationKind::Path => HitKind::Operation,
                OperationKind::Webhook => HitKind::Webhook,
            };
            let title = site.pages[page as usize].title.clone();
            let context = format!("{} {}", op.key.method, op.path);
            let method = op.key.method.to_ascii_lowercase();
            let mut fields: Vec<(&str, u8)> = vec![(&title, W_NAME), (&op.path, W_PATH)];
            if let Some(s) = &op.summary {
                fields.push((s, W_NAME));
            }
            if let Some(id) = &op.operation_id {
                fields.push((id, W_ID));
            }
            for t in &op.tags {
                fields.push((t, W_TAG));
            }
            fields.push((&method, W_TAG));
            self.add(kind, page, &title, &context, &fields);
            for p in &op.parameters {
                let where_ = match p.location {
                    specpress_apispec::ParameterIn::Path => "Path",
                    specpress_apispec::ParameterIn::Query => "Query",
                    specpress_apispec::ParameterIn::Header => "Header",
                    specpress_apispec::ParameterIn::Cookie => "Cookie",
                };
                self.add(
                    HitKind::Parameter,
                    page,
                    &p.name,
                    &format!("{where_} parameter of {context}"),
                    &[(&p.name, W_NAME)],
                );
            }
            if let Some(body) = &op.request_body
                && let Some(schema) = body.content.values().find_map(|m| m.schema.as_ref())
            {
                let flat = flatten(ctx, schema);
                if flat.named.is_none() {
                    self.properties(
                        ctx,
                        &flat,
                        page,
                        &format!("the request body of {context}"),
                        "",
                        1,
                    );
                }
            }
        }
    }

    /// AsyncAPI channels, operations and messages (with the properties of inline payloads).
    fn asyncapi(&mut self, ctx: &Ctx<'_>) {
        let (model, site) = (ctx.doc.model(), ctx.site);
        for (i, ch) in model.channels.values().enumerate() {
            if let Some(&page) = site.channel_pages.get(i) {
                self.add(
                    HitKind::Channel,
                    page,
                    &ch.address,
                    "Channel",
                    &[(&ch.address, W_NAME)],
                );
            }
        }
        for (i, op) in model.message_operations.values().enumerate() {
            let Some(&page) = site.message_pages.get(i) else {
                continue;
            };
            let action = match op.key.direction {
                Direction::Send => "send",
                Direction::Receive => "receive",
            };
            let title = site.pages[page as usize].title.clone();
            let context = format!("{} {}", action.to_ascii_uppercase(), op.channel_address);
            let mut fields: Vec<(&str, u8)> = vec![
                (&title, W_NAME),
                (&op.channel_address, W_PATH),
                (action, W_TAG),
            ];
            if let Some(id) = &op.operation_id {
                fields.push((id, W_ID));
            }
            self.add(HitKind::MessageOperation, page, &title, &context, &fields);
            for m in op.messages.values() {
                let name = m.title.as_deref().unwrap_or(&m.name);
                let mut fields: Vec<(&str, u8)> = vec![(&m.name, W_NAME), (name, W_NAME)];
                if let Some(s) = &m.summary {
                    fields.push((s, W_SUMMARY));
                }
                self.add(
                    HitKind::Message,
                    page,
                    name,
                    &format!("Message of {context}"),
                    &fields,
                );
                if let Some(payload) = &m.payload {
                    let flat = flatten(ctx, payload);
                    if flat.named.is_none() {
                        self.properties(ctx, &flat, page, &format!("the payload of {name}"), "", 1);
                    }
                }
            }
        }
        self.lone_messages(ctx);
    }

    /// The component messages no channel uses, on their own pages.
    fn lone_messages(&mut self, ctx: &Ctx<'_>) {
        let (model, site) = (ctx.doc.model(), ctx.site);
        for (i, m) in model.messages.values().enumerate() {
            let Some(&Some(page)) = site.lone_message_pages.get(i) else {
                continue;
            };
            let name = m.title.as_deref().unwrap_or(&m.name);
            let mut fields: Vec<(&str, u8)> = vec![(&m.name, W_NAME), (name, W_NAME)];
            if let Some(s) = &m.summary {
                fields.push((s, W_SUMMARY));
            }
            self.add(
                HitKind::Message,
                page,
                name,
                "Message used by no channel",
                &fields,
            );
        }
    }

    /// Named schemas and their properties.
    fn schemas(&mut self, ctx: &Ctx<'_>) {
        let (model, site) = (ctx.doc.model(), ctx.site);
        for (i, loc) in model.schemas.values().enumerate() {
            let Some(&page) = site.schema_pages.get(i) else {
                continue;
            };
            let name = site.schema_page(i as u32).1.to_string();
            let flat = flatten(ctx, loc);
            let mut fields: Vec<(&str, u8)> = vec![(&name, W_NAME)];
            if let Some(t) = flat.title {
                fields.push((t, W_SUMMARY));
            }
            self.add(HitKind::Schema, page, &name, "Schema", &fields);
            self.properties(ctx, &flat, page, &name, "", 0);
        }
    }
}

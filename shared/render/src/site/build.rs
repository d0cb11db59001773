//! Building the page index: one page per thing a reader looks up (home, topics, operations and
//! their callbacks, AsyncAPI channels and operations, schemas, navigation groups), each at a
//! URL-safe path; then the navigation order and the aliases (operation ids, names as written).

use std::collections::{HashMap, HashSet};

use specpress_apispec::{Direction, Document, FileId, Location, OperationKind, V};

use super::builder::{Builder, hash8, page};
use super::{
    Group, Page, Site, Target, groups, method_badge, operation_title, resolve_value, slug,
};
use crate::PageKind;

fn is_safe_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 120
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && !s.starts_with('.')
}

/// The pages of the HTTP operations and webhooks (index: the model's), and of each one's
/// callbacks.
struct OperationPages {
    operations: Vec<u32>,
    callbacks: Vec<Vec<u32>>,
}

/// The pages of the named schemas (index: the model's), their names and locations, and the
/// page listing them.
struct SchemaPages {
    index: Option<u32>,
    pages: Vec<u32>,
    names: Vec<String>,
    locations: HashMap<Location, u32>,
}

impl Site {
    /// Builds the page index of `doc`.
    pub fn build(doc: &Document) -> Site {
        let mut b = Builder::new();
        let title = if doc.title().trim().is_empty() {
            "API reference".to_string()
        } else {
            doc.title().chars().take(200).collect()
        };
        let home = b.add(String::new(), "", page(PageKind::Home, Target::Home, title));
        let topics = topic_pages(doc, &mut b);
        let operations = operation_pages(doc, &mut b);
        let channel_pages = channel_pages(doc, &mut b);
        let message_pages = message_pages(doc, &mut b);
        let lone_message_pages = lone_message_pages(doc, &mut b);
        let schemas = schema_pages(doc, &mut b);
        let (groups, root_groups) = groups::navigation_groups(
            doc,
            &mut b,
            &operations.operations,
            &channel_pages,
            &message_pages,
            &lone_message_pages,
        );
        let order = navigation_order(
            &b.pages,
            home,
            &topics,
            &groups,
            &root_groups,
            &operations.callbacks,
        );
        add_aliases(
            doc,
            &mut b,
            &operations.operations,
            &message_pages,
            &groups,
            &schemas,
            &channel_pages,
        );
        let mut site = Site {
            pages: b.pages,
            order,
            routes: b.routes,
            groups,
            root_groups,
            topics,
            schema_loc: schemas.locations,
            schema_pages: schemas.pages,
            schema_names: schemas.names,
            used_by: Vec::new(),
            op_pages: operations.operations,
            callback_pages: operations.callbacks,
            channel_pages,
            message_pages,
            lone_message_pages,
            schemas_index: schemas.index,
        };
        site.used_by = crate::usage::compute(doc, &site);
        site
    }
}

/// Topics (`x-topics: [{title, content}]`).
fn topic_pages(doc: &Document, b: &mut Builder) -> Vec<u32> {
    let mut topics = Vec::new();
    if let Some(list) = doc.root().get("x-topics").and_then(V::as_array) {
        for (i, t) in list.iter().enumerate() {
            let t = resolve_value(
                doc,
                &Location::root(FileId::ROOT).child("x-topics").index(i),
                t,
            );
            let title = t
                .and_then(|t| t.get("title"))
                .and_then(V::as_str)
                .unwrap_or("Topic")
                .chars()
                .take(200)
                .collect::<String>();
            let s = match slug(&title) {
                s if s.is_empty() => format!("topic-{}", i + 1),
                s => s,
            };
            let id = b.add(
                format!("topic/{s}"),
                &format!("{i}"),
                page(PageKind::Topic, Target::Topic(i as u32), title),
            );
            topics.push(id);
        }
    }
    topics
}

/// HTTP operations and webhooks, each followed by its callbacks.
fn operation_pages(doc: &Document, b: &mut Builder) -> OperationPages {
    let model = doc.model();
    let mut op_pages = Vec::with_capacity(model.operations.len());
    let mut callback_pages = Vec::with_capacity(model.operations.len());
    for (i, op) in model.operations.values().enumerate() {
        let m = op.key.method.to_ascii_lowercase();
        let (dir, kind) = match op.key.kind {
            OperationKind::Path => ("operation", PageKind::Operation),
            OperationKind::Webhook => ("webhook", PageKind::Webhook),
        };
        let path_slug = match slug(&op.path) {
            s if s.is_empty() => "root".to_string(),
            s => s,
        };
        let mut p = page(
            kind,
            Target::Operation(i as u32),
            operation_title(
                op.summary.as_deref(),
                &op.key.method,
                &op.path,
                op.operation_id.as_deref(),
            ),
        );
        p.badge = Some(method_badge(&op.key.method));
        p.deprecated = op.deprecated;
        let id = b.add(
            format!("{dir}/{dir}-{m}-{path_slug}"),
            &format!("{} {}", op.key.method, op.path),
            p,
        );
        op_pages.push(id);
        let mut cbs = Vec::new();
        let op_slug = b.pages[id as usize]
            .path
            .split_once('/')
            .map(|(_, s)| s.to_string())
            .unwrap_or_default();
        for (ci, name) in op.callbacks.keys().enumerate() {
            let s = match slug(name) {
                s if s.is_empty() => format!("callback-{}", ci + 1),
                s => s,
            };
            let cid = b.add(
                format!("callback/{op_slug}/{s}"),
                name,
                page(
                    PageKind::Callback,
                    Target::Callback(i as u32, ci as u32),
                    format!("Callback {}", name.chars().take(150).collect::<String>()),
                ),
            );
            cbs.push(cid);
        }
        callback_pages.push(cbs);
    }
    OperationPages {
        operations: op_pages,
        callbacks: callback_pages,
    }
}

/// AsyncAPI channels.
fn channel_pages(doc: &Document, b: &mut Builder) -> Vec<u32> {
    let model = doc.model();
    let mut channel_pages = Vec::with_capacity(model.channels.len());
    for (i, ch) in model.channels.values().enumerate() {
        let s = match slug(&ch.address) {
            s if s.is_empty() => "root".to_string(),
            s => s,
        };
        let id = b.add(
            format!("channel/{s}"),
            &ch.address,
            page(
                PageKind::Channel,
                Target::Channel(i as u32),
                ch.address.chars().take(200).collect(),
            ),
        );
        channel_pages.push(id);
    }
    channel_pages
}

/// AsyncAPI operations.
fn message_pages(doc: &Document, b: &mut Builder) -> Vec<u32> {
    let model = doc.model();
    let mut message_pages = Vec::with_capacity(model.message_operations.len());
    for (i, op) in model.message_operations.values().enumerate() {
        let action = match op.key.direction {
            Direction::Send => "send",
            Direction::Receive => "receive",
        };
        let channel_slug = match slug(&op.channel_address) {
            s if s.is_empty() => "root".to_string(),
            s => s,
        };
        let mut p = format!("operation/{action}-{channel_slug}");
        if let Some(d) = &op.key.discriminator {
            p.push('-');
            p.push_str(&slug(d));
        }
        let title = match op
            .summary
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            Some(s) => s.chars().take(200).collect(),
            None => match &op.operation_id {
                Some(id) => id.chars().take(200).collect(),
                None => format!("{action} {}", op.channel_address),
            },
        };
        let mut pg = page(
            PageKind::MessageOperation,
            Target::MessageOperation(i as u32),
            title,
        );
        pg.badge = Some(action);
        pg.deprecated = op.deprecated;
        let key = format!(
            "{action} {} {}",
            op.channel_address,
            op.key.discriminator.as_deref().unwrap_or("")
        );
        message_pages.push(b.add(p, &key, pg));
    }
    message_pages
}

/// AsyncAPI component messages that no channel uses (neither a 3.0 channel's `messages` nor a
/// 2.x or 3.0 operation's): one page each, as no other page shows them (index: `model.messages`).
fn lone_message_pages(doc: &Document, b: &mut Builder) -> Vec<Option<u32>> {
    let model = doc.model();
    let used: HashSet<&Location> = model
        .channels
        .values()
        .flat_map(|ch| ch.messages.values())
        .chain(
            model
                .message_operations
                .values()
                .flat_map(|op| op.messages.values()),
        )
        .map(|m| &m.source)
        .collect();
    let mut pages = Vec::with_capacity(model.messages.len());
    for (key, m) in &model.messages {
        if used.contains(&m.source) {
            pages.push(None);
            continue;
        }
        let i = pages.len() as u32;
        let s = match slug(key) {
            s if s.is_empty() => "message".to_string(),
            s => s,
        };
        let title = match m.title.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            Some(t) => t.chars().take(200).collect(),
            None => m.name.chars().take(200).collect(),
        };
        let pg = page(PageKind::Message, Target::Message(i), title);
        pages.push(Some(b.add(format!("message/{s}"), key, pg)));
    }
    pages
}

/// The list of named schemas, then one page per schema.
fn schema_pages(doc: &Document, b: &mut Builder) -> SchemaPages {
    let model = doc.model();
    let mut schema_pages = Vec::with_capacity(model.schemas.len());
    let mut schema_names = Vec::with_capacity(model.schemas.len());
    let mut schema_loc = HashMap::with_capacity(model.schemas.len());
    let schemas_index = (!model.schemas.is_empty()).then(|| {
        b.add(
            "schemas".to_string(),
            "schemas",
            page(
                PageKind::Schemas,
                Target::SchemasIndex,
                "Schemas".to_string(),
            ),
        )
    });
    for (i, (name, loc)) in model.schemas.iter().enumerate() {
        let path = if is_safe_name(name) {
            format!("schema/{name}")
        } else {
            format!("schema/{}-{}", slug(name), hash8(name))
        };
        let id = b.add(
            path,
            name,
            page(
                PageKind::Schema,
                Target::Schema(i as u32),
                name.chars().take(200).collect(),
            ),
        );
        schema_pages.push(id);
        schema_names.push(name.clone());
        schema_loc.insert(loc.clone(), i as u32);
    }
    SchemaPages {
        index: schemas_index,
        pages: schema_pages,
        names: schema_names,
        locations: schema_loc,
    }
}

/// Navigation order: home, topics, groups depth-first (each operation at its first place,
/// callbacks after it), then every page not placed yet (schemas).
fn navigation_order(
    pages: &[Page],
    home: u32,
    topics: &[u32],
    groups: &[Group],
    root_groups: &[u32],
    callback_pages: &[Vec<u32>],
) -> Vec<u32> {
    let mut order = Vec::with_capacity(pages.len());
    let mut placed = vec![false; pages.len()];
    let mut place = |id: u32, order: &mut Vec<u32>| {
        if !std::mem::replace(&mut placed[id as usize], true) {
            order.push(id);
        }
    };
    place(home, &mut order);
    for &t in topics {
        place(t, &mut order);
    }
    let mut stack: Vec<u32> = root_groups.iter().rev().copied().collect();
    while let Some(g) = stack.pop() {
        let group = &groups[g as usize];
        if let Some(p) = group.page {
            place(p, &mut order);
        }
        for &item in &group.items {
            place(item, &mut order);
            if let Target::Operation(oi) = pages[item as usize].target {
                for &cb in &callback_pages[oi as usize] {
                    place(cb, &mut order);
                }
            }
        }
        stack.extend(group.children.iter().rev().copied());
    }
    for id in 0..pages.len() as u32 {
        place(id, &mut order);
    }
    order
}

/// Aliases: operation ids, tag and schema names as written, channel addresses (a path that a
/// page already has keeps its page).
fn add_aliases(
    doc: &Document,
    b: &mut Builder,
    op_pages: &[u32],
    message_pages: &[u32],
    groups: &[Group],
    schemas: &SchemaPages,
    channel_pages: &[u32],
) {
    let model = doc.model();
    for (i, op) in model.operations.values().enumerate() {
        if let Some(id) = &op.operation_id {
            let dir = match op.key.kind {
                OperationKind::Path => "operation",
                OperationKind::Webhook => "webhook",
            };
            b.alias(format!("{dir}/{id}"), op_pages[i]);
        }
    }
    for (i, op) in model.message_operations.values().enumerate() {
        if let Some(id) = &op.operation_id {
            b.alias(format!("operation/{id}"), message_pages[i]);
        }
    }
    for g in groups {
        if let (Some(p), Some(_)) = (g.page, g.tag) {
            b.alias(format!("tag/{}", g.title_name(doc)), p);
        }
    }
    for (i, name) in schemas.names.iter().enumerate() {
        b.alias(format!("schema/{name}"), schemas.pages[i]);
    }
    for (i, ch) in model.channels.values().enumerate() {
        b.alias(
            format!("channel/{}", ch.address.trim_start_matches('/')),
            channel_pages[i],
        );
    }
}

//! The page index of one document: every page's path, title and target, the navigation groups,
//! aliases, and where each named schema is used. Built once per version; holds no borrow of the
//! document (indices into its model and locations only).

use std::collections::HashMap;

use sha2::{Digest, Sha256};
use specpress_spec::{Direction, Document, FileId, Location, OperationKind, SpecFamily, V};

use crate::{Lookup, PageInfo, PageKind, PageRef};

/// What a page shows.
#[derive(Clone, Debug)]
pub(crate) enum Target {
    Home,
    /// Index into the root's `x-topics` array.
    Topic(u32),
    /// Index into [`Site::groups`].
    Group(u32),
    /// Index into `model.operations` (path operations and webhooks).
    Operation(u32),
    /// A callback of an operation: operation index, callback index in its map.
    Callback(u32, u32),
    SchemasIndex,
    /// Index into `model.schemas`.
    Schema(u32),
    /// Index into `model.channels`.
    Channel(u32),
    /// Index into `model.message_operations`.
    MessageOperation(u32),
}

pub(crate) struct Page {
    pub path: String,
    pub title: String,
    pub kind: PageKind,
    pub target: Target,
    /// Method (`get`, ...) or AsyncAPI action (`send`, `receive`) shown as a badge in the
    /// navigation.
    pub badge: Option<&'static str>,
    pub deprecated: bool,
}

/// A navigation group: a tag (nested by OpenAPI 3.2 `parent`), the operations without a tag, a
/// path prefix (documents without tags), the webhooks, or an AsyncAPI channel.
pub(crate) struct Group {
    pub title: String,
    pub page: Option<u32>,
    pub items: Vec<u32>,
    pub children: Vec<u32>,
    /// Index into the root's `tags` array, for tags declared there.
    pub tag: Option<u32>,
    pub parent: Option<u32>,
}

enum Route {
    Page(u32),
    Alias(u32),
}

/// The page index and navigation of one document. `Send + Sync`, no borrow of the document.
pub struct Site {
    pub(crate) pages: Vec<Page>,
    order: Vec<u32>,
    routes: HashMap<String, Route>,
    pub(crate) groups: Vec<Group>,
    pub(crate) root_groups: Vec<u32>,
    pub(crate) topics: Vec<u32>,
    schema_loc: HashMap<Location, u32>,
    pub(crate) schema_pages: Vec<u32>,
    schema_names: Vec<String>,
    pub(crate) used_by: Vec<Vec<u32>>,
    pub(crate) op_pages: Vec<u32>,
    pub(crate) callback_pages: Vec<Vec<u32>>,
    pub(crate) channel_pages: Vec<u32>,
    pub(crate) message_pages: Vec<u32>,
    pub(crate) schemas_index: Option<u32>,
}

/// Page paths are made of `[a-z0-9-]` segments (schema names keep `A-Z`, `.` and `_`): URL-safe
/// as they are.
pub(crate) fn slug(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(80));
    let mut dash = false;
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c.to_ascii_lowercase());
            if out.len() >= 80 {
                break;
            }
        } else {
            dash = true;
        }
    }
    out
}

fn hash8(s: &str) -> String {
    hex::encode(&Sha256::digest(s.as_bytes())[..4])
}

fn is_safe_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 120
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && !s.starts_with('.')
}

struct Builder {
    pages: Vec<Page>,
    routes: HashMap<String, Route>,
}

impl Builder {
    /// Adds a page at `path`, or at `path-{hash of key}` when another page has it (the first
    /// one, in the model's sorted order, keeps the plain path).
    fn add(&mut self, path: String, key: &str, page: Page) -> u32 {
        let id = self.pages.len() as u32;
        let mut p = path;
        if self.routes.contains_key(&p) {
            p = format!("{p}-{}", hash8(key));
            let mut n = 2;
            while self.routes.contains_key(&p) {
                p = format!("{p}-{n}");
                n += 1;
            }
        }
        self.routes.insert(p.clone(), Route::Page(id));
        self.pages.push(Page { path: p, ..page });
        id
    }

    fn alias(&mut self, path: String, to: u32) {
        if !path.is_empty() && path.len() <= 2048 {
            self.routes.entry(path).or_insert(Route::Alias(to));
        }
    }
}

fn page(kind: PageKind, target: Target, title: String) -> Page {
    Page {
        path: String::new(),
        title,
        kind,
        target,
        badge: None,
        deprecated: false,
    }
}

pub(crate) fn method_badge(method: &str) -> &'static str {
    match method {
        "GET" => "get",
        "POST" => "post",
        "PUT" => "put",
        "PATCH" => "patch",
        "DELETE" => "delete",
        "HEAD" => "head",
        "OPTIONS" => "options",
        "TRACE" => "trace",
        "QUERY" => "query",
        _ => "other",
    }
}

pub(crate) fn operation_title(
    summary: Option<&str>,
    method: &str,
    path: &str,
    operation_id: Option<&str>,
) -> String {
    match summary.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => s.chars().take(200).collect(),
        None => match operation_id {
            Some(id) if !id.is_empty() => id.chars().take(200).collect(),
            _ => format!("{method} {}", path.chars().take(200).collect::<String>()),
        },
    }
}

impl Site {
    /// Builds the page index of `doc`.
    pub fn build(doc: &Document) -> Site {
        let model = doc.model();
        let root = doc.root();
        let family = doc.version().family();
        let mut b = Builder {
            pages: Vec::new(),
            routes: HashMap::new(),
        };
        let title = if doc.title().trim().is_empty() {
            "API reference".to_string()
        } else {
            doc.title().chars().take(200).collect()
        };
        let home = b.add(String::new(), "", page(PageKind::Home, Target::Home, title));

        // Topics (x-topics: [{title, content}]).
        let mut topics = Vec::new();
        if let Some(list) = root.get("x-topics").and_then(V::as_array) {
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

        // HTTP operations and webhooks, with their callbacks.
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

        // AsyncAPI channels and operations.
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

        // Schemas.
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

        // Navigation groups.
        let mut groups: Vec<Group> = Vec::new();
        let mut root_groups = Vec::new();
        if family == SpecFamily::AsyncApi {
            let mut by_channel: HashMap<&str, u32> = HashMap::new();
            for (i, key) in model.channels.keys().enumerate() {
                by_channel.insert(key.as_str(), groups.len() as u32);
                root_groups.push(groups.len() as u32);
                groups.push(Group {
                    title: model.channels[i].address.clone(),
                    page: Some(channel_pages[i]),
                    items: Vec::new(),
                    children: Vec::new(),
                    tag: None,
                    parent: None,
                });
            }
            let mut other: Option<u32> = None;
            for (i, op) in model.message_operations.values().enumerate() {
                let g = match by_channel.get(op.key.channel.as_str()) {
                    Some(&g) => g,
                    None => *other.get_or_insert_with(|| {
                        root_groups.push(groups.len() as u32);
                        groups.push(Group {
                            title: "Other operations".to_string(),
                            page: None,
                            items: Vec::new(),
                            children: Vec::new(),
                            tag: None,
                            parent: None,
                        });
                        groups.len() as u32 - 1
                    }),
                };
                groups[g as usize].items.push(message_pages[i]);
            }
        } else {
            build_tag_groups(doc, &mut b, &op_pages, &mut groups, &mut root_groups);
        }

        // Navigation order: home, topics, groups depth-first (each operation at its first
        // place, callbacks after it), schemas.
        let mut order = Vec::with_capacity(b.pages.len());
        let mut placed = vec![false; b.pages.len()];
        let mut place = |id: u32, order: &mut Vec<u32>| {
            if !std::mem::replace(&mut placed[id as usize], true) {
                order.push(id);
            }
        };
        place(home, &mut order);
        for &t in &topics {
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
                if let Target::Operation(oi) = b.pages[item as usize].target {
                    for &cb in &callback_pages[oi as usize] {
                        place(cb, &mut order);
                    }
                }
            }
            stack.extend(group.children.iter().rev().copied());
        }
        for id in 0..b.pages.len() as u32 {
            place(id, &mut order);
        }

        // Aliases: operation ids, tag and schema names as written, channel addresses.
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
        for g in &groups {
            if let (Some(p), Some(_)) = (g.page, g.tag) {
                b.alias(format!("tag/{}", g.title_name(doc)), p);
            }
        }
        for (i, name) in schema_names.iter().enumerate() {
            b.alias(format!("schema/{name}"), schema_pages[i]);
        }
        for (i, ch) in model.channels.values().enumerate() {
            b.alias(
                format!("channel/{}", ch.address.trim_start_matches('/')),
                channel_pages[i],
            );
        }

        let mut site = Site {
            pages: b.pages,
            order,
            routes: b.routes,
            groups,
            root_groups,
            topics,
            schema_loc,
            schema_pages,
            schema_names,
            used_by: Vec::new(),
            op_pages,
            callback_pages,
            channel_pages,
            message_pages,
            schemas_index,
        };
        site.used_by = crate::usage::compute(doc, &site);
        site
    }

    /// Finds the page at `path` (relative to the documentation root, no leading slash,
    /// percent-decoded): the page, a redirect to the canonical path for an alias or a trailing
    /// slash, or nothing.
    pub fn lookup(&self, path: &str) -> Lookup {
        let canonical = |id: u32| Lookup::Redirect(self.pages[id as usize].path.clone());
        match self.routes.get(path) {
            Some(Route::Page(id)) => Lookup::Page(PageRef(*id)),
            Some(Route::Alias(id)) => canonical(*id),
            None => match path.strip_suffix('/') {
                Some(p) if !p.is_empty() => match self.routes.get(p) {
                    Some(Route::Page(id) | Route::Alias(id)) => canonical(*id),
                    None => Lookup::NotFound,
                },
                _ => Lookup::NotFound,
            },
        }
    }

    /// Every page, in navigation order.
    pub fn pages(&self) -> impl Iterator<Item = PageInfo<'_>> {
        self.order.iter().map(|&id| self.info(PageRef(id)))
    }

    /// Number of pages.
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// Path, title and kind of one page.
    pub fn info(&self, page: PageRef) -> PageInfo<'_> {
        let p = &self.pages[(page.0 as usize).min(self.pages.len() - 1)];
        PageInfo {
            page,
            path: &p.path,
            title: &p.title,
            kind: p.kind,
        }
    }

    /// The page of a path operation or webhook, by method (upper case) and path template as
    /// written (or webhook name).
    pub fn operation_page(&self, doc: &Document, method: &str, path: &str) -> Option<PageRef> {
        doc.model()
            .operations
            .values()
            .position(|op| op.key.method == method && op.path == path)
            .and_then(|i| self.op_pages.get(i))
            .map(|&id| PageRef(id))
    }

    pub(crate) fn schema_index(&self, loc: &Location) -> Option<u32> {
        self.schema_loc.get(loc).copied()
    }

    /// Path and name of a named schema's page.
    pub(crate) fn schema_page(&self, i: u32) -> (&str, &str) {
        let page = self.schema_pages[i as usize];
        (
            &self.pages[page as usize].path,
            &self.schema_names[i as usize],
        )
    }

    pub(crate) fn schema_count(&self) -> usize {
        self.schema_names.len()
    }
}

impl Group {
    fn title_name<'d>(&self, doc: &'d Document) -> &'d str {
        self.tag
            .and_then(|t| {
                doc.root()
                    .get("tags")?
                    .at(t as usize)?
                    .get("name")?
                    .as_str()
            })
            .unwrap_or("")
    }
}

/// Follows a `$ref` at `loc` when the value there is one.
pub(crate) fn resolve_value<'d>(doc: &'d Document, loc: &Location, v: V<'d>) -> Option<V<'d>> {
    if v.get("$ref").is_some() {
        doc.resolve(loc).ok().map(|(_, v)| v)
    } else {
        Some(v)
    }
}

/// Tag groups (with 3.2 `parent` nesting), the untagged operations, or path-prefix groups when
/// the document has no tags; then the webhooks.
fn build_tag_groups(
    doc: &Document,
    b: &mut Builder,
    op_pages: &[u32],
    groups: &mut Vec<Group>,
    root_groups: &mut Vec<u32>,
) {
    let model = doc.model();
    let root = doc.root();
    // Operations in the order the document lists them (paths, then methods in the usual order),
    // as the author arranged them; the model's order is by method first.
    let index_of = |list: Option<V<'_>>| -> HashMap<String, usize> {
        list.and_then(V::as_object)
            .map(|o| {
                o.keys()
                    .enumerate()
                    .map(|(i, k)| (k.to_string(), i))
                    .collect()
            })
            .unwrap_or_default()
    };
    let paths_at = index_of(root.get("paths"));
    let hooks_at = index_of(root.get("webhooks"));
    let method_rank = |m: &str| {
        [
            "GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE", "QUERY",
        ]
        .iter()
        .position(|x| *x == m)
        .unwrap_or(99)
    };
    let mut in_document_order: Vec<(usize, &specpress_spec::Operation)> =
        model.operations.values().enumerate().collect();
    let keys: Vec<(usize, usize)> = in_document_order
        .iter()
        .map(|(_, op)| {
            let at = match op.key.kind {
                OperationKind::Path => &paths_at,
                OperationKind::Webhook => &hooks_at,
            };
            (
                at.get(&op.path).copied().unwrap_or(usize::MAX),
                method_rank(&op.key.method),
            )
        })
        .collect();
    in_document_order.sort_by_key(|(i, _)| keys[*i]);
    let any_tags = model
        .operations
        .values()
        .any(|o| o.key.kind == OperationKind::Path && !o.tags.is_empty());
    let mut by_name: HashMap<String, u32> = HashMap::new();
    let new_group =
        |groups: &mut Vec<Group>, b: &mut Builder, title: String, tag: Option<u32>, key: &str| {
            let s = match slug(&title) {
                s if s.is_empty() => "group".to_string(),
                s => s,
            };
            let id = groups.len() as u32;
            let page = b.add(
                format!("tag/{s}"),
                key,
                page(PageKind::Tag, Target::Group(id), title.clone()),
            );
            groups.push(Group {
                title,
                page: Some(page),
                items: Vec::new(),
                children: Vec::new(),
                tag,
                parent: None,
            });
            id
        };
    if any_tags {
        if let Some(tags) = root.get("tags").and_then(V::as_array) {
            for (i, t) in tags.iter().enumerate() {
                let Some(name) = t.get("name").and_then(V::as_str) else {
                    continue;
                };
                if by_name.contains_key(name) {
                    continue;
                }
                let display = t
                    .get("x-displayName")
                    .or_else(|| t.get("summary"))
                    .and_then(V::as_str)
                    .filter(|s| !s.trim().is_empty())
                    .unwrap_or(name);
                let g = new_group(
                    groups,
                    b,
                    display.chars().take(200).collect(),
                    Some(i as u32),
                    name,
                );
                by_name.insert(name.to_string(), g);
            }
        }
        let mut untagged: Option<u32> = None;
        for &(i, op) in &in_document_order {
            if op.key.kind != OperationKind::Path {
                continue;
            }
            if op.tags.is_empty() {
                let g = *untagged.get_or_insert_with(|| {
                    new_group(
                        groups,
                        b,
                        "Other operations".to_string(),
                        None,
                        "\u{0}untagged",
                    )
                });
                groups[g as usize].items.push(op_pages[i]);
            }
            for t in &op.tags {
                let g = match by_name.get(t) {
                    Some(&g) => g,
                    None => {
                        let g = new_group(groups, b, t.chars().take(200).collect(), None, t);
                        by_name.insert(t.clone(), g);
                        g
                    }
                };
                let items = &mut groups[g as usize].items;
                if !items.contains(&op_pages[i]) {
                    items.push(op_pages[i]);
                }
            }
        }
        // OpenAPI 3.2 `parent`: nest, refusing cycles and deep chains.
        if let Some(tags) = root.get("tags").and_then(V::as_array) {
            for t in tags.iter() {
                let (Some(name), Some(parent)) = (
                    t.get("name").and_then(V::as_str),
                    t.get("parent").and_then(V::as_str),
                ) else {
                    continue;
                };
                let (Some(&g), Some(&p)) = (by_name.get(name), by_name.get(parent)) else {
                    continue;
                };
                if groups[g as usize].parent.is_some() {
                    continue;
                }
                let mut up = Some(p);
                let mut depth = 0;
                let mut cycle = false;
                while let Some(a) = up {
                    if a == g || depth > 8 {
                        cycle = true;
                        break;
                    }
                    up = groups[a as usize].parent;
                    depth += 1;
                }
                if !cycle {
                    groups[g as usize].parent = Some(p);
                    groups[p as usize].children.push(g);
                }
            }
        }
        for (i, g) in groups.iter().enumerate() {
            if g.parent.is_none() {
                root_groups.push(i as u32);
            }
        }
        // The untagged group last.
        if let Some(u) = untagged {
            root_groups.retain(|&g| g != u);
            root_groups.push(u);
        }
    } else {
        // No tags: group by the first segment of the path.
        let mut by_prefix: HashMap<String, u32> = HashMap::new();
        for &(i, op) in &in_document_order {
            if op.key.kind != OperationKind::Path {
                continue;
            }
            let first = op
                .path
                .trim_start_matches('/')
                .split('/')
                .next()
                .unwrap_or("");
            let title = format!("/{first}");
            let g = match by_prefix.get(&title) {
                Some(&g) => g,
                None => {
                    let g = new_group(groups, b, title.chars().take(200).collect(), None, &title);
                    by_prefix.insert(title, g);
                    root_groups.push(g);
                    g
                }
            };
            groups[g as usize].items.push(op_pages[i]);
        }
    }
    // Webhooks: a group without a page of its own.
    let hooks: Vec<u32> = in_document_order
        .iter()
        .filter(|(_, o)| o.key.kind == OperationKind::Webhook)
        .map(|(i, _)| op_pages[*i])
        .collect();
    if !hooks.is_empty() {
        root_groups.push(groups.len() as u32);
        groups.push(Group {
            title: "Webhooks".to_string(),
            page: None,
            items: hooks,
            children: Vec::new(),
            tag: None,
            parent: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_lower_case_words_joined_by_dashes() {
        assert_eq!(
            slug("/repos/{owner}/{repo}/git/refs"),
            "repos-owner-repo-git-refs"
        );
        assert_eq!(slug("  Hello, World!  "), "hello-world");
        assert_eq!(slug("/"), "");
        assert_eq!(slug("élan"), "lan");
    }
}

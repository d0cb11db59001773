//! The navigation groups: one per AsyncAPI channel; else one per tag (nested by OpenAPI 3.2
//! `parent`) with the untagged operations last, or one per first path segment when no operation
//! has a tag; then the webhooks. Operations are listed in the order the document writes them.

use std::collections::HashMap;

use specpress_apispec::{Document, Operation, OperationKind, SpecFamily, V};

use super::builder::{Builder, page};
use super::{Group, Target, slug};
use crate::PageKind;

impl Group {
    /// A group without a page, items or parent.
    fn bare(title: String) -> Group {
        Group {
            title,
            page: None,
            items: Vec::new(),
            children: Vec::new(),
            tag: None,
            parent: None,
        }
    }

    /// The tag's name as the document writes it (empty for a group that is not a declared tag).
    pub(super) fn title_name<'d>(&self, doc: &'d Document) -> &'d str {
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

/// The groups of `doc` and the top-level ones, in order. Tag and path-prefix groups get a page
/// (added to `b`).
pub(super) fn navigation_groups(
    doc: &Document,
    b: &mut Builder,
    op_pages: &[u32],
    channel_pages: &[u32],
    message_pages: &[u32],
    lone_message_pages: &[Option<u32>],
) -> (Vec<Group>, Vec<u32>) {
    let mut groups: Vec<Group> = Vec::new();
    let mut root_groups = Vec::new();
    if doc.version().family() == SpecFamily::AsyncApi {
        channel_groups(
            doc,
            channel_pages,
            message_pages,
            &mut groups,
            &mut root_groups,
        );
        lone_messages_group(lone_message_pages, &mut groups, &mut root_groups);
    } else {
        build_tag_groups(doc, b, op_pages, &mut groups, &mut root_groups);
    }
    (groups, root_groups)
}

/// AsyncAPI: a group per channel (its page is the channel's), its operations as items, and the
/// operations of no known channel in a group of their own.
fn channel_groups(
    doc: &Document,
    channel_pages: &[u32],
    message_pages: &[u32],
    groups: &mut Vec<Group>,
    root_groups: &mut Vec<u32>,
) {
    let model = doc.model();
    let mut by_channel: HashMap<&str, u32> = HashMap::new();
    for (i, key) in model.channels.keys().enumerate() {
        by_channel.insert(key.as_str(), groups.len() as u32);
        root_groups.push(groups.len() as u32);
        groups.push(Group {
            page: Some(channel_pages[i]),
            ..Group::bare(model.channels[i].address.clone())
        });
    }
    let mut other: Option<u32> = None;
    for (i, op) in model.message_operations.values().enumerate() {
        let g = match by_channel.get(op.key.channel.as_str()) {
            Some(&g) => g,
            None => *other.get_or_insert_with(|| {
                root_groups.push(groups.len() as u32);
                groups.push(Group::bare("Other operations".to_string()));
                groups.len() as u32 - 1
            }),
        };
        groups[g as usize].items.push(message_pages[i]);
    }
}

/// AsyncAPI: the component messages no channel uses, in a group of their own (after the
/// channels), when there are any.
fn lone_messages_group(pages: &[Option<u32>], groups: &mut Vec<Group>, root_groups: &mut Vec<u32>) {
    let items: Vec<u32> = pages.iter().flatten().copied().collect();
    if items.is_empty() {
        return;
    }
    root_groups.push(groups.len() as u32);
    groups.push(Group {
        items,
        ..Group::bare("Messages used by no channel".to_string())
    });
}

/// The operations (with their index in the model) in the order the document lists them (paths,
/// then methods in the usual order), as the author arranged them; the model's order is by
/// method first.
fn in_document_order(doc: &Document) -> Vec<(usize, &Operation)> {
    let model = doc.model();
    let root = doc.root();
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
    let mut in_document_order: Vec<(usize, &Operation)> =
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
    in_document_order
}

/// A group with a page of its own (`tag/{slug of the title}`).
fn new_group(
    groups: &mut Vec<Group>,
    b: &mut Builder,
    title: String,
    tag: Option<u32>,
    key: &str,
) -> u32 {
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
        page: Some(page),
        tag,
        ..Group::bare(title)
    });
    id
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
    let in_document_order = in_document_order(doc);
    let any_tags = model
        .operations
        .values()
        .any(|o| o.key.kind == OperationKind::Path && !o.tags.is_empty());
    if any_tags {
        let mut by_name = declared_tags(doc, b, groups);
        let untagged = tag_operations(&in_document_order, b, op_pages, groups, &mut by_name);
        nest_by_parent(doc, &by_name, groups);
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
        path_prefix_groups(&in_document_order, b, op_pages, groups, root_groups);
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
            items: hooks,
            ..Group::bare("Webhooks".to_string())
        });
    }
}

/// A group per tag of the root's `tags` list (by name: the first declaration wins), titled by
/// its `x-displayName` or `summary` when it has one.
fn declared_tags(doc: &Document, b: &mut Builder, groups: &mut Vec<Group>) -> HashMap<String, u32> {
    let mut by_name: HashMap<String, u32> = HashMap::new();
    if let Some(tags) = doc.root().get("tags").and_then(V::as_array) {
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
    by_name
}

/// Puts every path operation in the group of each of its tags (a tag used but not declared
/// gets a group), and the operations without a tag in the untagged group, whose index it
/// returns.
fn tag_operations(
    in_document_order: &[(usize, &Operation)],
    b: &mut Builder,
    op_pages: &[u32],
    groups: &mut Vec<Group>,
    by_name: &mut HashMap<String, u32>,
) -> Option<u32> {
    let mut untagged: Option<u32> = None;
    for &(i, op) in in_document_order {
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
    untagged
}

/// OpenAPI 3.2 `parent`: nests tag groups, refusing cycles and deep chains.
fn nest_by_parent(doc: &Document, by_name: &HashMap<String, u32>, groups: &mut [Group]) {
    let Some(tags) = doc.root().get("tags").and_then(V::as_array) else {
        return;
    };
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

/// No tags: a group per first segment of the path.
fn path_prefix_groups(
    in_document_order: &[(usize, &Operation)],
    b: &mut Builder,
    op_pages: &[u32],
    groups: &mut Vec<Group>,
    root_groups: &mut Vec<u32>,
) {
    let mut by_prefix: HashMap<String, u32> = HashMap::new();
    for &(i, op) in in_document_order {
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

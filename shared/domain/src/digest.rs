//! Release digests: what one published version changed against the version it followed, kept so that histories
//! ("every release that touched `GET /pets`", a changelog's breaking flags) are read, never diffed again.
//!
//! A digest is derived from two immutable definitions, so once written it never changes. It is written by whoever
//! first diffs the release (the reader layer, when a change page, feed, changelog or tool shows it) and read back in
//! batches by the histories. It keeps the top-level items of the diff engine's `DiffItem[]` tree (an operation, a
//! webhook, a schema, a channel...) with their status, whether they break clients, and the messages saying how,
//! bounded so that one digest always fits one stored item.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

use serde_json::Value;

/// Top-level items kept per digest (a larger diff keeps its breaking items first and says it was cut).
pub const MAX_ITEMS: usize = 1_000;
/// Messages kept per item and kind (breaking ones, others).
pub const MAX_MESSAGES: usize = 6;
/// Operations kept in an item's `affected` list.
pub const MAX_AFFECTED: usize = 20;
/// Characters kept per name or message.
pub const MAX_TEXT: usize = 300;

/// What kind of release a digest describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReleaseKind {
    /// The first version of its branch: nothing to compare with.
    First,
    /// The version it followed is gone (an expired temporary baseline).
    Unavailable,
    /// Nothing changed.
    Unchanged,
    /// Only descriptions, examples, summaries and other texts changed.
    ContentOnly,
    /// Structural changes.
    Changes,
}

/// One top-level changed element of a release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DigestItem {
    /// As the diff names it: `GET /pets`, `Pet`, a channel's name (document text).
    pub name: String,
    /// The diff engine's item type: `endpoint`, `webhook`, `schema`, `channel`, ...
    #[serde(rename = "type")]
    pub kind: String,
    /// `added`, `removed` or `modified`.
    pub status: String,
    /// Breaks existing clients.
    pub breaking: bool,
    /// What breaks: the breaking messages found in the item and below it, first ones first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub breaks: Vec<String>,
    /// Other messages of the item and below it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// For a shared component: the operations that use it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub affected: Vec<String>,
}

/// What one release changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseDigest {
    pub kind: ReleaseKind,
    /// Breaking items first, then in the diff's order.
    #[serde(default)]
    pub items: Vec<DigestItem>,
    /// Items left out (beyond [`MAX_ITEMS`]).
    #[serde(default)]
    pub omitted: usize,
}

impl ReleaseDigest {
    /// A release with no diff (`First`, `Unavailable`).
    pub fn without_diff(kind: ReleaseKind) -> Self {
        ReleaseDigest {
            kind,
            items: Vec::new(),
            omitted: 0,
        }
    }

    /// The digest of a diff, from the diff engine's `DiffItem[]` JSON tree. `empty` and `structural` are the diff
    /// report's own flags. Unknown or missing fields read as empty: the tree of any age digests.
    pub fn of_details(details: &Value, empty: bool, structural: bool) -> Self {
        let kind = if empty {
            ReleaseKind::Unchanged
        } else if structural {
            ReleaseKind::Changes
        } else {
            ReleaseKind::ContentOnly
        };
        let top = details.as_array().map(Vec::as_slice).unwrap_or_default();
        // Shared components are top-level items of their own; a use of one points at it by id (`ref`).
        let components: HashMap<&str, &Value> = top
            .iter()
            .filter_map(|i| Some((i.get("id")?.as_str()?, i)))
            .collect();
        let mut items: Vec<DigestItem> = top.iter().map(|i| item_of(i, &components)).collect();
        // Breaking first; otherwise the diff's order (a stable sort).
        items.sort_by_key(|i| !i.breaking);
        let omitted = items.len().saturating_sub(MAX_ITEMS);
        items.truncate(MAX_ITEMS);
        ReleaseDigest {
            kind,
            items,
            omitted,
        }
    }

    /// Any breaking item (only structural releases break).
    pub fn breaking(&self) -> bool {
        self.kind == ReleaseKind::Changes && self.items.iter().any(|i| i.breaking)
    }

    /// The items that name `subject` (see [`subject_matches`]).
    pub fn about<'a>(&'a self, subject: &'a str) -> impl Iterator<Item = &'a DigestItem> + 'a {
        self.items
            .iter()
            .filter(move |i| subject_matches(&i.name, subject))
    }
}

/// Whether an item's name is what a reader asked for: an operation as `METHOD /path` (the method in any case, one
/// or more spaces, a trailing slash ignored), or any other name exactly, ignoring case.
pub fn subject_matches(name: &str, subject: &str) -> bool {
    subject_key(name) == subject_key(subject)
}

/// The form in which [`subject_matches`] compares names: equal keys, same subject (for indexes of histories).
pub fn subject_key(s: &str) -> String {
    let words: Vec<&str> = s.split_whitespace().collect();
    match words.as_slice() {
        [method, path] if path.starts_with('/') => {
            let path = if path.len() > 1 {
                path.trim_end_matches('/')
            } else {
                path
            };
            format!("{} {path}", method.to_ascii_uppercase())
        }
        _ => words.join(" ").to_lowercase(),
    }
}

fn text(v: Option<&Value>) -> String {
    let s = v.and_then(Value::as_str).unwrap_or_default();
    match s.char_indices().nth(MAX_TEXT) {
        Some((end, _)) => format!("{}…", &s[..end]),
        None => s.to_owned(),
    }
}

fn item_of(v: &Value, components: &HashMap<&str, &Value>) -> DigestItem {
    let mut item = DigestItem {
        name: text(v.get("name")),
        kind: text(v.get("type")),
        status: text(v.get("status")),
        breaking: v.get("breaking").and_then(Value::as_bool).unwrap_or(false),
        breaks: Vec::new(),
        notes: Vec::new(),
        affected: v
            .get("affected")
            .and_then(Value::as_array)
            .map(|a| a.iter().take(MAX_AFFECTED).map(|x| text(Some(x))).collect())
            .unwrap_or_default(),
    };
    collect_messages(v, &mut item, &mut Vec::new(), components);
    item
}

/// The first breaking message of a shared component's item.
fn first_break(component: &Value, depth: usize) -> Option<String> {
    if depth > 32 {
        return None;
    }
    let own = component
        .get("changes")
        .and_then(Value::as_array)
        .and_then(|c| {
            c.iter()
                .find(|c| c.get("level").and_then(Value::as_str) == Some("breaking"))
        })
        .map(|c| text(c.get("message")));
    own.or_else(|| {
        component
            .get("children")
            .and_then(Value::as_array)?
            .iter()
            .find_map(|c| first_break(c, depth + 1))
    })
}

fn push(list: &mut Vec<String>, message: String) {
    if list.len() < MAX_MESSAGES && !list.contains(&message) {
        list.push(message);
    }
}

/// Walks an item and its children (depth-bounded), keeping the first messages of each kind. A use of a shared
/// component that changed (`ref`) says where it is used and what changed in the component, so that an operation
/// broken through a shared schema says why.
fn collect_messages<'v>(
    v: &'v Value,
    item: &mut DigestItem,
    trail: &mut Vec<&'v str>,
    components: &HashMap<&str, &Value>,
) {
    if trail.len() > 32 || (item.breaks.len() >= MAX_MESSAGES && item.notes.len() >= MAX_MESSAGES) {
        return;
    }
    if let Some(reference) = v.get("ref").and_then(Value::as_str) {
        let component = components.get(reference);
        let name = component
            .map(|c| text(c.get("name")))
            .unwrap_or_else(|| text(v.get("name")));
        let place = if trail.is_empty() {
            String::new()
        } else {
            format!("{}: ", trail.join(" › "))
        };
        if v.get("breaking").and_then(Value::as_bool) == Some(true) {
            let why = component
                .and_then(|c| first_break(c, 0))
                .unwrap_or_else(|| "it changed in a way that breaks clients".into());
            push(&mut item.breaks, format!("{place}uses `{name}`: {why}"));
        } else {
            push(
                &mut item.notes,
                format!("{place}uses `{name}`, which changed"),
            );
        }
    }
    for change in v
        .get("changes")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let message = text(change.get("message"));
        if message.is_empty() {
            continue;
        }
        let list = if change.get("level").and_then(Value::as_str) == Some("breaking") {
            &mut item.breaks
        } else {
            &mut item.notes
        };
        push(list, message);
    }
    for child in v
        .get("children")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        trail.push(child.get("name").and_then(Value::as_str).unwrap_or(""));
        collect_messages(child, item, trail, components);
        trail.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn details() -> Value {
        json!([
            {"id": "post-pets", "name": "POST /pets", "status": "added", "type": "endpoint", "breaking": false,
             "changes": [{"message": "POST /pets was added", "level": "info"}], "children": []},
            {"id": "get-pets", "name": "GET /pets", "status": "modified", "type": "endpoint", "breaking": true,
             "children": [{"name": "limit", "changes": [{"message": "parameter `limit` became required",
                           "level": "breaking"}], "children": []}]},
            {"id": "schema-pet", "name": "Pet", "status": "modified", "type": "schema", "breaking": true,
             "affected": ["GET /pets"], "children": [{"name": "tag", "changes": [
                 {"message": "property `tag` was removed", "level": "breaking"}]}], "changes": []},
            {"id": "get-pets-id", "name": "GET /pets/{id}", "status": "modified", "type": "endpoint", "breaking": true,
             "children": [{"name": "200", "children": [{"name": "Pet", "breaking": true, "ref": "schema-pet"}]}]}
        ])
    }

    /// The diff engine's details of the removal of an operation marked `x-beta: true` (as
    /// `specpress_diff` writes them: see shared/diff/tests/beta.rs).
    fn beta_removal() -> Value {
        json!([
            {"id": "get-pets", "name": "GET /pets", "status": "removed", "type": "endpoint", "breaking": false,
             "previous": {"path": "/pets", "verb": "GET", "deprecated": false},
             "changes": [{"message": "GET /pets was removed without prior deprecation (beta: not breaking)",
                          "level": "warning", "rule": "endpoint-removed"}], "children": []}
        ])
    }

    #[test]
    fn the_digest_of_a_beta_operation_removal_reports_it_as_not_breaking() {
        let d = ReleaseDigest::of_details(&beta_removal(), false, true);
        assert!(!d.breaking());
        assert_eq!(d.items.len(), 1);
        assert!(!d.items[0].breaking);
        assert!(d.items[0].breaks.is_empty());
        assert_eq!(
            d.items[0].notes,
            ["GET /pets was removed without prior deprecation (beta: not breaking)"]
        );
    }

    #[test]
    fn a_digest_puts_breaking_items_first_with_what_they_break() {
        let d = ReleaseDigest::of_details(&details(), false, true);
        assert_eq!(d.kind, ReleaseKind::Changes);
        let names: Vec<&str> = d.items.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["GET /pets", "Pet", "GET /pets/{id}", "POST /pets"]);
        assert_eq!(d.items[0].breaks, ["parameter `limit` became required"]);
        assert_eq!(d.items[1].affected, ["GET /pets"]);
        // Broken through a shared schema: where, and what changed in it.
        assert_eq!(
            d.items[2].breaks,
            ["200 › Pet: uses `Pet`: property `tag` was removed"]
        );
        assert_eq!(d.items[3].notes, ["POST /pets was added"]);
        assert!(d.breaking());
        // A content-only release never counts as breaking.
        assert!(!ReleaseDigest::of_details(&details(), false, false).breaking());
    }

    #[test]
    fn subjects_match_operations_loosely_and_names_ignoring_case() {
        assert!(subject_matches("GET /pets", "get  /pets/"));
        assert!(subject_matches("GET /", "get /"));
        assert!(!subject_matches("GET /pets", "POST /pets"));
        assert!(subject_matches("Pet", "pet"));
        assert!(!subject_matches("Pet", "Pets"));
    }

    #[test]
    fn hostile_or_malformed_trees_digest_without_panicking() {
        let d = ReleaseDigest::of_details(&json!({"not": "an array"}), false, true);
        assert!(d.items.is_empty());
        let long = "x".repeat(10_000);
        let d = ReleaseDigest::of_details(&json!([{"name": long, "breaking": "yes"}]), false, true);
        assert_eq!(d.items[0].name.chars().count(), MAX_TEXT + 1);
        assert!(!d.items[0].breaking);
        let many: Vec<Value> = (0..MAX_ITEMS + 5)
            .map(|i| json!({"name": i.to_string()}))
            .collect();
        let d = ReleaseDigest::of_details(&Value::Array(many), false, true);
        assert_eq!((d.items.len(), d.omitted), (MAX_ITEMS, 5));
    }
}

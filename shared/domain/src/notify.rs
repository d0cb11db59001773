//! What a release changed, told to people (issue 38): the change notes that Slack and Teams messages, release mails
//! and digests show, breaking changes first with their migration notes and acceptances (issue 39), and the filters
//! that choose which releases (and which of their changes) a subscription or a follower receives.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One change of a release as a notification shows it. Every text is the document's (hostile): the presenter
/// (mail templates, Block Kit, Adaptive Card) escapes it for its format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeNote {
    /// The change's stable id (issue 39), when it has one.
    pub id: Option<String>,
    /// `breaking`, `warning` or `info`.
    pub level: String,
    /// Where: the operation or element (`GET /pets/{id}`, `schema Pet`, `channel user/signedup`).
    pub place: String,
    /// The change, one sentence.
    pub message: String,
    /// For a breaking change: what a client must do (Markdown).
    pub migration: Option<String>,
    /// The owner's reason, when the documentation accepted this breaking change.
    pub accepted: Option<String>,
}

impl ChangeNote {
    /// Whether it is breaking (accepted or not: an accepted change keeps its level where people look).
    pub fn is_breaking(&self) -> bool {
        self.level == "breaking"
    }
}

/// Most operation patterns, tags or paths in one filter (each list).
pub const MAX_FILTER_ENTRIES: usize = 50;
/// Longest operation pattern, tag or path, in bytes.
pub const MAX_FILTER_TEXT: usize = 200;

/// One segment of a path pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// Exactly this text (a `{name}` path parameter stands for any parameter name: `{}`).
    Literal(String),
    /// `*`: any one segment.
    One,
    /// `**` (last): any rest, including nothing.
    Rest,
}

/// A path pattern: `/pets/*`, `/pets/**`, `user/{id}/signedup` (AsyncAPI channel addresses need no leading `/`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct PathPattern(Vec<Segment>);

/// `{petId}` and `{id}` are the same template segment: parameter names play no part.
fn normalize_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_param = false;
    for c in s.chars() {
        match c {
            '{' if !in_param => {
                in_param = true;
                out.push('{');
            }
            '}' if in_param => {
                in_param = false;
                out.push('}');
            }
            _ if in_param => {}
            _ => out.push(c),
        }
    }
    out
}

impl PathPattern {
    fn parse(text: &str, what: &str) -> Result<Self, String> {
        if text.is_empty() {
            return Err(format!("{what} needs a path, like `/pets/*`"));
        }
        if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!("{what} `{}`: a path has no spaces", shown(text)));
        }
        let parts: Vec<&str> = text.split('/').collect();
        let mut segments = Vec::with_capacity(parts.len());
        for (i, p) in parts.iter().enumerate() {
            segments.push(match *p {
                "*" => Segment::One,
                "**" if i + 1 == parts.len() => Segment::Rest,
                "**" => {
                    return Err(format!(
                        "{what} `{}`: `**` (any rest) may only end a pattern",
                        shown(text)
                    ));
                }
                s if s.contains('*') => {
                    return Err(format!(
                        "{what} `{}`: `*` stands for a whole segment (`/pets/*`), not part of one",
                        shown(text)
                    ));
                }
                s => Segment::Literal(normalize_segment(s)),
            });
        }
        Ok(PathPattern(segments))
    }

    fn matches(&self, path: &str) -> bool {
        let parts: Vec<&str> = path.split('/').collect();
        let mut i = 0;
        for seg in &self.0 {
            match seg {
                Segment::Rest => return true,
                Segment::One => {
                    if i >= parts.len() {
                        return false;
                    }
                }
                Segment::Literal(l) => match parts.get(i) {
                    Some(p) if normalize_segment(p) == *l => {}
                    _ => return false,
                },
            }
            i += 1;
        }
        i == parts.len()
    }
}

/// A text from a request, cut for an error message (the message is the requester's own text, escaped by the
/// JSON error body).
fn shown(text: &str) -> String {
    text.chars().take(80).collect()
}

/// Which operations a subscription or a follower cares about (issue 38).
///
/// - `METHOD /path`: an HTTP operation (or an OpenAPI webhook, `POST newPet`; an AsyncAPI operation as the diff
///   names it, `SEND user/signedup`). `*` as the method is any method; in the path, `*` is one segment and `**`
///   (at the end) any rest; `{id}` and `{petId}` are the same segment. `GET /pets/*` matches `GET /pets/{id}`,
///   `* /pets/**` every operation under `/pets`.
/// - one word without a space: an id. It matches an AsyncAPI operation or channel by its id in the document
///   (the `operations` / `channels` key), and an OpenAPI operation by its `operationId`.
///
/// A changed shared component (a schema) matches when one of the operations it reaches (its `affected` list)
/// matches. Document-wide items (servers, security) match no pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationPattern {
    text: String,
    kind: PatternKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum PatternKind {
    /// `METHOD path`; `None` is any method.
    Operation(Option<String>, PathPattern),
    /// An AsyncAPI operation or channel id, an OpenAPI operationId.
    Id(String),
}

impl OperationPattern {
    /// Reads a pattern. The error is a sentence for the requester.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err(
                "an operation pattern is empty: write `METHOD /path`, like `GET /pets/*`".into(),
            );
        }
        if text.len() > MAX_FILTER_TEXT {
            return Err(format!(
                "an operation pattern is longer than {MAX_FILTER_TEXT} bytes"
            ));
        }
        if text.chars().any(char::is_control) {
            return Err("an operation pattern holds a control character".into());
        }
        let kind = match text.split_once(char::is_whitespace) {
            None => {
                if text.contains('*') || text.contains('/') {
                    return Err(format!(
                        "operation pattern `{}`: write `METHOD /path` (like `GET /pets/*`, `* /pets/**`) or an \
                         operation or channel id",
                        shown(text)
                    ));
                }
                PatternKind::Id(text.to_owned())
            }
            Some((method, path)) => {
                let path = path.trim();
                let method = match method {
                    "*" => None,
                    m if m.chars().all(|c| c.is_ascii_alphabetic()) && m.len() <= 16 => {
                        Some(m.to_ascii_uppercase())
                    }
                    _ => {
                        return Err(format!(
                            "operation pattern `{}`: the method must be a word like `GET`, or `*` for any",
                            shown(text)
                        ));
                    }
                };
                PatternKind::Operation(method, PathPattern::parse(path, "operation pattern")?)
            }
        };
        // Kept as written, with the method in upper case and one space.
        let text = match &kind {
            PatternKind::Id(id) => id.clone(),
            PatternKind::Operation(m, _) => {
                let path = text
                    .split_once(char::is_whitespace)
                    .map_or("", |(_, p)| p.trim());
                format!("{} {path}", m.as_deref().unwrap_or("*"))
            }
        };
        Ok(OperationPattern { text, kind })
    }

    /// Whether it is an id (matched on the `ids` the webhook payload adds from the documents).
    pub fn is_id(&self) -> bool {
        matches!(self.kind, PatternKind::Id(_))
    }

    /// The pattern as text (`GET /pets/*`).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether this pattern matches the operation named `name` as the diff names it (`GET /pets/{id}`,
    /// `SEND user/signedup`; a callback's name starts with its operation's).
    pub fn matches_operation(&self, name: &str) -> bool {
        let PatternKind::Operation(method, path) = &self.kind else {
            return false;
        };
        let mut words = name.split(' ');
        let (Some(m), Some(p)) = (words.next(), words.next()) else {
            return false;
        };
        method.as_deref().is_none_or(|want| want == m) && path.matches(p)
    }

    /// Whether this pattern matches a top-level diff item (a `DiffItem` of a diff's `details`): an operation-like
    /// item by its name (and its `ids`), a channel by its address (with `*` as the method) or id, a shared
    /// component by the operations it reaches (`affected`).
    pub fn matches(&self, item: &Value) -> bool {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        let name = item.get("name").and_then(Value::as_str).unwrap_or("");
        if let PatternKind::Id(id) = &self.kind {
            return strings(item, "ids").any(|i| i == id);
        }
        match kind {
            "endpoint" | "webhook" | "callback" | "operation" => self.matches_operation(name),
            "channel" => match &self.kind {
                PatternKind::Operation(None, path) => path.matches(name),
                _ => false,
            },
            _ => strings(item, "affected").any(|op| self.matches_operation(op)),
        }
    }
}

/// The strings of an array member of `item` (none when missing).
fn strings<'a>(item: &'a Value, key: &str) -> impl Iterator<Item = &'a str> {
    item.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

impl std::fmt::Display for OperationPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::str::FromStr for OperationPattern {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::parse(s)
    }
}

impl Serialize for OperationPattern {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for OperationPattern {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// Which changes a subscription (or a follower) receives. Empty: everything.
///
/// An item of a release's diff is *in scope* when no scope list is given, or when it matches one of
/// `operations` (see [`OperationPattern`]), one of `tags` (an item carries the tags of the operations it touches,
/// `tags`, filled by the webhook payload from the document: an operation its own, a shared schema those of the
/// operations it reaches), or one of `paths` (path patterns as in operation patterns: an HTTP operation's path,
/// an AsyncAPI operation's or channel's address, or, for a shared schema, the paths of the operations it
/// reaches). The lists add up (any of them). `breaking_only` then keeps the breaking items only.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    /// Only breaking changes (accepted ones included: they stay breaking for the people who depend on them).
    #[serde(default)]
    pub breaking_only: bool,
    /// Operation patterns.
    #[serde(default)]
    pub operations: Vec<OperationPattern>,
    /// Operation tags (exact, case-sensitive, as in the document).
    #[serde(default)]
    pub tags: Vec<String>,
    /// Path patterns (`/pets/**`).
    #[serde(default)]
    pub paths: Vec<String>,
}

/// What [`Filter::select`] kept of a diff's top-level items.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    /// The matching items, in the diff's order.
    pub items: Vec<Value>,
    /// How many top-level items the filter left out.
    pub left_out: usize,
}

impl Filter {
    /// Whether it lets everything through.
    pub fn is_empty(&self) -> bool {
        !self.breaking_only
            && self.operations.is_empty()
            && self.tags.is_empty()
            && self.paths.is_empty()
    }

    /// Whether matching needs the operations' tags or ids, which the diff's items do not carry (`tags`, id patterns).
    pub fn needs_operation_facts(&self) -> bool {
        !self.tags.is_empty() || self.operations.iter().any(OperationPattern::is_id)
    }

    /// Checks the bounds and the path patterns; the error is a sentence for the requester.
    pub fn validate(&self) -> Result<(), String> {
        let lists = [
            ("operations", self.operations.len()),
            ("tags", self.tags.len()),
            ("paths", self.paths.len()),
        ];
        for (name, n) in lists {
            if n > MAX_FILTER_ENTRIES {
                return Err(format!(
                    "filter.{name} has {n} entries; at most {MAX_FILTER_ENTRIES}"
                ));
            }
        }
        for tag in &self.tags {
            if tag.trim().is_empty() {
                return Err("filter.tags holds an empty tag".into());
            }
            if tag.len() > MAX_FILTER_TEXT {
                return Err(format!(
                    "filter.tags holds a tag longer than {MAX_FILTER_TEXT} bytes"
                ));
            }
            if tag.chars().any(char::is_control) {
                return Err("filter.tags holds a control character".into());
            }
        }
        for path in &self.paths {
            if path.len() > MAX_FILTER_TEXT {
                return Err(format!(
                    "filter.paths holds a path longer than {MAX_FILTER_TEXT} bytes"
                ));
            }
            PathPattern::parse(path, "filter.paths")?;
        }
        Ok(())
    }

    /// Whether a top-level diff item passes the filter.
    pub fn matches(&self, item: &Value) -> bool {
        if self.breaking_only && item.get("breaking") != Some(&Value::Bool(true)) {
            return false;
        }
        if self.operations.is_empty() && self.tags.is_empty() && self.paths.is_empty() {
            return true;
        }
        if self.operations.iter().any(|p| p.matches(item)) {
            return true;
        }
        if strings(item, "tags").any(|t| self.tags.iter().any(|w| w == t)) {
            return true;
        }
        if self.paths.is_empty() {
            return false;
        }
        let patterns: Vec<PathPattern> = self
            .paths
            .iter()
            .filter_map(|p| PathPattern::parse(p, "").ok())
            .collect();
        item_paths(item).any(|p| patterns.iter().any(|pat| pat.matches(p)))
    }

    /// The matching top-level items of a diff's `details`, in order, and how many were left out.
    pub fn select(&self, details: &[Value]) -> Selection {
        let mut items = Vec::new();
        let mut left_out = 0;
        for item in details {
            if self.matches(item) {
                items.push(item.clone());
            } else {
                left_out += 1;
            }
        }
        Selection { items, left_out }
    }
}

/// The paths a top-level item touches: an operation's path (the word after its method), a channel's address, a
/// shared component's operations' paths.
fn item_paths(item: &Value) -> Box<dyn Iterator<Item = &str> + '_> {
    let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
    let name = item.get("name").and_then(Value::as_str).unwrap_or("");
    match kind {
        "endpoint" | "webhook" | "callback" | "operation" => {
            Box::new(name.split(' ').nth(1).into_iter())
        }
        "channel" => Box::new(std::iter::once(name)),
        _ => Box::new(
            item.get("affected")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter_map(move |op| op.split(' ').nth(1)),
        ),
    }
}

/// Deepest level of a diff tree walked for its changes (the engine's trees are far shallower).
const MAX_NOTE_DEPTH: usize = 64;

fn level_rank(level: &str) -> u8 {
    match level {
        "breaking" => 0,
        "warning" => 1,
        _ => 2,
    }
}

/// Where a top-level item is, as a note names it: `GET /pets`, `schema Pet`, `channel user/signedup`.
fn place_of(item: &Value) -> String {
    let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
    let name = item.get("name").and_then(Value::as_str).unwrap_or("");
    match kind {
        "endpoint" | "operation" | "" => name.to_owned(),
        "security_scheme" => format!("security scheme {name}"),
        other => format!("{other} {name}"),
    }
}

fn collect_notes(node: &Value, place: &str, depth: usize, out: &mut Vec<ChangeNote>) {
    if depth > MAX_NOTE_DEPTH {
        return;
    }
    for change in node
        .get("changes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let text = |k: &str| change.get(k).and_then(Value::as_str).map(str::to_owned);
        out.push(ChangeNote {
            id: text("id"),
            level: text("level").unwrap_or_else(|| "info".into()),
            place: place.to_owned(),
            message: text("message").unwrap_or_default(),
            migration: text("migration"),
            accepted: change
                .get("accepted")
                .and_then(|a| a.get("reason"))
                .and_then(Value::as_str)
                .map(str::to_owned),
        });
    }
    for child in node
        .get("children")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        collect_notes(child, place, depth + 1, out);
    }
}

/// The changes of top-level diff items as notes: breaking first, then warnings, then the rest (each group in the
/// diff's order), at most `max`, and how many more there are.
pub fn change_notes(items: &[Value], max: usize) -> (Vec<ChangeNote>, usize) {
    let mut notes = Vec::new();
    for item in items {
        collect_notes(item, &place_of(item), 0, &mut notes);
    }
    notes.sort_by_key(|n| level_rank(&n.level));
    let left = notes.len().saturating_sub(max);
    notes.truncate(max);
    (notes, left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn op(name: &str, breaking: bool) -> Value {
        json!({"id": name.to_lowercase().replace(' ', "-"), "name": name, "type": "endpoint", "breaking": breaking,
               "level": if breaking { "breaking" } else { "info" }, "children": [],
               "changes": [{"id": "0123456789abcdef", "level": if breaking { "breaking" } else { "info" },
                            "message": format!("{name} changed"),
                            "migration": if breaking { json!("Call it differently.") } else { Value::Null }}]})
    }

    fn pattern(p: &str) -> OperationPattern {
        OperationPattern::parse(p).expect("a valid pattern")
    }

    #[test]
    fn a_star_is_one_segment_and_a_double_star_any_rest() {
        assert!(pattern("GET /pets/*").matches_operation("GET /pets/{id}"));
        assert!(!pattern("GET /pets/*").matches_operation("GET /pets"));
        assert!(!pattern("GET /pets/*").matches_operation("GET /pets/{id}/toys"));
        assert!(!pattern("GET /pets/*").matches_operation("POST /pets/{id}"));
        assert!(pattern("* /pets/**").matches_operation("DELETE /pets/{id}/toys"));
        assert!(pattern("* /pets/**").matches_operation("GET /pets"));
        assert!(!pattern("* /pets/**").matches_operation("GET /petshop"));
        assert!(pattern("get /pets/{petId}").matches_operation("GET /pets/{id}"));
        assert!(pattern("SEND user/*").matches_operation("SEND user/signedup"));
    }

    #[test]
    fn a_pattern_keeps_its_text_with_the_method_upper_case_and_serializes_as_it() {
        let p = pattern("  get   /pets/* ");
        assert_eq!(p.as_str(), "GET /pets/*");
        assert_eq!(
            serde_json::to_value(&p).expect("json"),
            json!("GET /pets/*")
        );
        let back: OperationPattern = serde_json::from_value(json!("* /pets/**")).expect("parse");
        assert_eq!(back.as_str(), "* /pets/**");
        assert!(serde_json::from_value::<OperationPattern>(json!("GET /a/**/b")).is_err());
    }

    #[test]
    fn bad_patterns_are_refused_with_a_sentence() {
        for bad in [
            "",
            "/pets",
            "G-T /pets",
            "GET /pe*ts",
            "GET /a/**/b",
            "GET /a\u{7}",
        ] {
            let e = OperationPattern::parse(bad).expect_err(bad);
            assert!(!e.is_empty() && !e.contains('\u{7}'), "{bad}: {e}");
        }
        assert!(OperationPattern::parse(&format!("GET /{}", "a".repeat(300))).is_err());
    }

    #[test]
    fn a_shared_schema_matches_through_the_operations_it_reaches() {
        let schema = json!({"name": "Pet", "type": "schema", "breaking": true, "affected": ["GET /pets", "POST /pets"],
                            "children": []});
        assert!(pattern("GET /pets").matches(&schema));
        assert!(!pattern("GET /owners").matches(&schema));
        let server =
            json!({"name": "https://api.example.com", "type": "server", "breaking": false});
        assert!(!pattern("* /**").matches(&server));
    }

    #[test]
    fn ids_match_asyncapi_operations_and_channels_by_their_ids() {
        let channel = json!({"name": "user/signedup", "type": "channel", "ids": ["userSignedup"]});
        let operation =
            json!({"name": "SEND user/signedup", "type": "operation", "ids": ["onUserSignup"]});
        assert!(pattern("userSignedup").matches(&channel));
        assert!(!pattern("userSignedup").matches(&operation));
        assert!(pattern("onUserSignup").matches(&operation));
        assert!(pattern("* user/*").matches(&channel));
        assert!(!pattern("SEND user/*").matches(&channel));
        assert!(pattern("SEND user/*").matches(&operation));
    }

    #[test]
    fn breaking_only_keeps_the_breaking_items_and_counts_the_rest() {
        let details = vec![
            op("GET /pets", false),
            op("DELETE /pets/{id}", true),
            op("GET /owners", false),
        ];
        let filter = Filter {
            breaking_only: true,
            ..Filter::default()
        };
        let s = filter.select(&details);
        assert_eq!(s.items, vec![details[1].clone()]);
        assert_eq!(s.left_out, 2);
        assert_eq!(Filter::default().select(&details).left_out, 0);
    }

    #[test]
    fn scope_lists_add_up_and_breaking_only_narrows_them() {
        let mut tagged = op("GET /owners", false);
        tagged["tags"] = json!(["Owners"]);
        let details = vec![
            op("GET /pets/{id}", false),
            tagged,
            op("PUT /stores/{id}", true),
            op("GET /toys", true),
        ];
        let filter = Filter {
            operations: vec![pattern("GET /pets/*")],
            tags: vec!["Owners".into()],
            paths: vec!["/stores/**".into()],
            ..Filter::default()
        };
        let names = |s: &Selection| {
            s.items
                .iter()
                .map(|i| i["name"].clone())
                .collect::<Vec<_>>()
        };
        let s = filter.select(&details);
        assert_eq!(
            names(&s),
            [
                json!("GET /pets/{id}"),
                json!("GET /owners"),
                json!("PUT /stores/{id}")
            ]
        );
        assert_eq!(s.left_out, 1);
        let breaking = Filter {
            breaking_only: true,
            ..filter
        };
        assert_eq!(
            names(&breaking.select(&details)),
            [json!("PUT /stores/{id}")]
        );
    }

    #[test]
    fn a_filter_reads_from_json_with_defaults_and_refuses_unknown_members() {
        let f: Filter =
            serde_json::from_value(json!({"operations": ["GET /pets"]})).expect("filter");
        assert!(!f.breaking_only && f.tags.is_empty() && !f.is_empty());
        assert!(serde_json::from_value::<Filter>(json!({"breaking": true})).is_err());
        assert!(Filter::default().is_empty());
    }

    #[test]
    fn bounds_are_checked_with_clear_messages() {
        let many = Filter {
            tags: (0..=MAX_FILTER_ENTRIES).map(|i| format!("t{i}")).collect(),
            ..Filter::default()
        };
        assert!(
            many.validate()
                .expect_err("too many")
                .contains("filter.tags")
        );
        let bad_path = Filter {
            paths: vec!["/a/**/b".into()],
            ..Filter::default()
        };
        assert!(bad_path.validate().expect_err("bad").contains("`**`"));
        let empty_tag = Filter {
            tags: vec![" ".into()],
            ..Filter::default()
        };
        assert!(empty_tag.validate().is_err());
        let fine = Filter {
            operations: vec![pattern("GET /pets")],
            tags: vec!["Pets".into()],
            paths: vec!["/pets/**".into(), "user/*".into()],
            breaking_only: true,
        };
        assert_eq!(fine.validate(), Ok(()));
    }

    #[test]
    fn notes_put_breaking_changes_first_with_migration_and_acceptance() {
        let mut accepted = op("DELETE /pets/{id}", true);
        accepted["children"] = json!([{"name": "limit", "changes": [
            {"id": "fedcba9876543210", "level": "breaking", "message": "the parameter was removed",
             "migration": "Drop it.", "accepted": {"reason": "Announced in March", "expires_at": null}}]}]);
        let schema = json!({"name": "Pet", "type": "schema", "changes": [
            {"id": "1111111111111111", "level": "warning", "message": "an enum value was added"}]});
        let items = vec![op("GET /pets", false), schema, accepted];
        let (notes, left) = change_notes(&items, 3);
        assert_eq!(left, 1);
        let summary: Vec<(&str, &str)> = notes
            .iter()
            .map(|n| (n.level.as_str(), n.place.as_str()))
            .collect();
        assert_eq!(
            summary,
            [
                ("breaking", "DELETE /pets/{id}"),
                ("breaking", "DELETE /pets/{id}"),
                ("warning", "schema Pet")
            ]
        );
        assert_eq!(notes[0].migration.as_deref(), Some("Call it differently."));
        assert_eq!(notes[1].accepted.as_deref(), Some("Announced in March"));
        assert_eq!(notes[1].migration.as_deref(), Some("Drop it."));
        assert!(!notes.iter().all(ChangeNote::is_breaking));
        let (all, none_left) = change_notes(&items, 10);
        assert_eq!((all.len(), none_left), (4, 0));
    }
}

//! The flat list of changes an engine run produces, before they are arranged into the
//! `DiffItem` tree.

use serde::Serialize;
use serde_json::Value;
use specpress_apispec::{Location, Operation, ParameterIn};

use crate::rules::{Level, Role, RuleId};
use crate::stability::Stability;

/// Whether the thing a change is about appeared, disappeared or changed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Added,
    Removed,
    Modified,
}

impl Status {
    /// `Added`, `Removed`, `Modified` (the prefix of a text line).
    pub fn title(self) -> &'static str {
        match self {
            Status::Added => "Added",
            Status::Removed => "Removed",
            Status::Modified => "Modified",
        }
    }
    /// `added`, `removed`, `modified`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Added => "added",
            Status::Removed => "removed",
            Status::Modified => "modified",
        }
    }
}

/// What a node of the tree is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum NodeKind {
    Parameter(ParameterIn),
    Body,
    MediaType,
    Response,
    Header,
    Property,
    Items,
    AdditionalProperties,
    Variant,
    Condition,
    SchemaLink,
    Security,
    Server,
    Variable,
    Callback,
    Message,
    MessageHeaders,
    ChannelParameter,
    Flow,
}

impl NodeKind {
    /// The `type` of a `DiffItem`.
    pub(crate) fn item_type(self) -> &'static str {
        match self {
            NodeKind::Parameter(_) | NodeKind::ChannelParameter => "parameter",
            NodeKind::Body => "body",
            NodeKind::MediaType => "media_type",
            NodeKind::Response => "response",
            NodeKind::Header | NodeKind::MessageHeaders => "header",
            NodeKind::Property | NodeKind::AdditionalProperties => "property",
            NodeKind::Items => "items",
            NodeKind::Variant => "variant",
            NodeKind::Condition => "condition",
            NodeKind::SchemaLink => "schema",
            NodeKind::Security => "security",
            NodeKind::Server => "server",
            NodeKind::Variable => "variable",
            NodeKind::Callback => "callback",
            NodeKind::Message => "message",
            NodeKind::Flow => "flow",
        }
    }
}

/// One step of the path from an owner (operation, component, …) to the changed node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Crumb {
    pub kind: NodeKind,
    /// Shared, so the crumb paths copied into every change and edge cost no string copies.
    pub name: std::sync::Arc<str>,
}

impl Crumb {
    pub(crate) fn new(kind: NodeKind, name: impl Into<std::sync::Arc<str>>) -> Self {
        Crumb {
            kind,
            name: name.into(),
        }
    }
}

/// The root of a part of the tree: an operation, a shared component, a server, …
#[derive(Clone, Debug)]
pub(crate) struct Owner<'a> {
    /// `endpoint`, `webhook`, `operation`, `channel`, `server`, `security_scheme`, `schema`,
    /// `security`.
    pub item_type: &'static str,
    /// The item id; empty for operations (the slug of `name`) and shared components
    /// (`schema-<slug of name>-<role>`), whose ids [`Owner::item_id`] derives only for the
    /// owners that become items.
    pub id: String,
    pub name: String,
    pub status: Status,
    pub previous: Option<Value>,
    pub current: Option<Value>,
    /// For an operation: the previous and current operation, whose `{path, verb, deprecated}`
    /// values become the item's `previous`/`current` (built only for owners that become items).
    pub endpoint: Option<(Option<&'a Operation>, Option<&'a Operation>)>,
    /// `GET /pets/{}` style key used by ignore rules, when not derived from `endpoint` (see
    /// [`Owner::matcher`]).
    pub matcher: Option<String>,
    /// For shared components: the role they were compared in.
    pub role: Option<Role>,
    /// The level of the element (operation, AsyncAPI operation or its channel) when it is
    /// below stable (`x-beta: true` or `x-stability-level`) in the previous version: none of
    /// the changes under it is breaking (see [`crate::beta`]).
    pub unstable: Option<Stability>,
}

impl Owner<'_> {
    /// A root that is neither an operation nor a shared component compared in a role (a
    /// server, a security scheme, a channel, …): its item id, name and status.
    pub(crate) fn root(item_type: &'static str, id: String, name: String, status: Status) -> Self {
        Owner {
            item_type,
            id,
            name,
            status,
            previous: None,
            current: None,
            endpoint: None,
            matcher: None,
            role: None,
            unstable: None,
        }
    }

    /// The item id.
    pub(crate) fn item_id(&self) -> std::borrow::Cow<'_, str> {
        if !self.id.is_empty() {
            return self.id.as_str().into();
        }
        match (self.endpoint, self.role) {
            (Some(_), _) => specpress_slug::slug(&self.name).into(),
            (None, Some(role)) => {
                let mut id = String::with_capacity(self.name.len() + 24);
                id.push_str("schema-");
                specpress_slug::slug_into(&mut id, &self.name);
                id.push('-');
                id.push_str(role.prefix());
                id.into()
            }
            (None, None) => self.id.as_str().into(),
        }
    }

    /// The `GET /pets/{}` style key ignore rules match (operations and their callbacks only);
    /// derived from the operation for endpoints.
    pub(crate) fn matcher(&self) -> Option<std::borrow::Cow<'_, str>> {
        if let Some(m) = &self.matcher {
            return Some(m.as_str().into());
        }
        let (p, c) = self.endpoint?;
        let op = c.or(p)?;
        Some(
            format!(
                "{} {}",
                op.key.method,
                crate::options::normalize_template(&op.key.path)
            )
            .into(),
        )
    }

    /// The item's `previous` and `current` values.
    pub(crate) fn values(&self) -> (Option<Value>, Option<Value>) {
        match self.endpoint {
            Some((p, c)) => {
                // `{"path", "verb", "deprecated"}`, built directly (the `json!` macro goes
                // through the serializer for every field) from a copy of one template: copying
                // a map copies its hash index, where inserting hashes every key again.
                static TEMPLATE: std::sync::OnceLock<serde_json::Map<String, Value>> =
                    std::sync::OnceLock::new();
                let template = TEMPLATE.get_or_init(|| {
                    let mut m = serde_json::Map::with_capacity(3);
                    m.insert("path".into(), Value::Null);
                    m.insert("verb".into(), Value::Null);
                    m.insert("deprecated".into(), Value::Null);
                    m
                });
                let value = |o: &Operation| {
                    let mut m = template.clone();
                    for (k, v) in m.iter_mut() {
                        *v = match k.as_str() {
                            "path" => Value::String(o.path.clone()),
                            "verb" => Value::String(o.key.method.clone()),
                            _ => Value::Bool(o.deprecated),
                        };
                    }
                    Value::Object(m)
                };
                (p.map(value), c.map(value))
            }
            None => (self.previous.clone(), self.current.clone()),
        }
    }
}

/// Where a change sits in the text of a document: its file and the line and column (from 1;
/// the column in characters) of the element (of an object member, its key).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Place {
    /// The referenced file, by its name in the document's references (as `$ref`s name it);
    /// `None` for the main definition.
    pub file: Option<String>,
    pub line: u32,
    pub column: u32,
}

/// One classified change.
#[derive(Clone, Debug)]
pub struct Change {
    pub(crate) rule: RuleId,
    pub(crate) level: Level,
    pub(crate) message: String,
    pub(crate) owner: usize,
    pub(crate) subject: String,
    pub(crate) crumbs: Vec<Crumb>,
    pub(crate) status: Status,
    pub(crate) previous: Option<Value>,
    pub(crate) current: Option<Value>,
    pub(crate) previous_at: Option<Location>,
    pub(crate) current_at: Option<Location>,
    /// What a client must do (Markdown), for a breaking change (see `crate::migration`).
    pub(crate) migration: Option<String>,
    /// The stable id (see [`crate::ids`]).
    pub(crate) id: String,
    /// Where [`Change::current_at`] is written in the current document's text, and
    /// [`Change::previous_at`] in the previous one's (see [`crate::places`]).
    pub(crate) place: Option<Place>,
    pub(crate) previous_place: Option<Place>,
}

impl Change {
    /// The stable rule id.
    pub fn rule_id(&self) -> &'static str {
        self.rule.id()
    }
    /// The effective level (after overrides).
    pub fn level(&self) -> Level {
        self.level
    }
    /// The human message.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// Whether the change is structural (not description/summary/example-only).
    pub fn structural(&self) -> bool {
        self.rule.rule().structural
    }
    /// What the change belongs to: `GET /pets/{id}`, a shared schema's name, a server URL, …
    pub fn subject(&self) -> &str {
        &self.subject
    }
    /// Added, removed or modified.
    pub fn status(&self) -> Status {
        self.status
    }
    /// Where in the previous document the change is (file and JSON pointer).
    pub fn previous_location(&self) -> Option<&Location> {
        self.previous_at.as_ref()
    }
    /// Where in the current document the change is.
    pub fn current_location(&self) -> Option<&Location> {
        self.current_at.as_ref()
    }
    /// The migration note (Markdown) of a breaking change: what a client must do.
    pub fn migration(&self) -> Option<&str> {
        self.migration.as_deref()
    }
    /// The stable id: the same for the same change whatever the key order, the syntax, `$ref`s
    /// or schemas written in place, and the files (see `docs/diff-rules.md`).
    pub fn id(&self) -> &str {
        &self.id
    }
    /// The file, line and column of [`Change::current_location`] in the current document.
    pub fn place(&self) -> Option<&Place> {
        self.place.as_ref()
    }
    /// The file, line and column of [`Change::previous_location`] in the previous document.
    pub fn previous_place(&self) -> Option<&Place> {
        self.previous_place.as_ref()
    }
}

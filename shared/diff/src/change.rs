//! The flat list of changes an engine run produces, before they are arranged into the
//! `DiffItem` tree.

use serde::Serialize;
use serde_json::Value;
use specpress_spec::{Location, ParameterIn};

use crate::rules::{Level, Role, RuleId};

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
    pub name: String,
}

impl Crumb {
    pub(crate) fn new(kind: NodeKind, name: impl Into<String>) -> Self {
        Crumb {
            kind,
            name: name.into(),
        }
    }
}

/// The root of a part of the tree: an operation, a shared component, a server, …
#[derive(Clone, Debug)]
pub(crate) struct Owner {
    /// `endpoint`, `webhook`, `operation`, `channel`, `server`, `security_scheme`, `schema`,
    /// `security`.
    pub item_type: &'static str,
    pub id: String,
    pub name: String,
    pub status: Status,
    pub previous: Option<Value>,
    pub current: Option<Value>,
    /// `GET /pets/{}` style key used by ignore rules (operations only).
    pub matcher: Option<String>,
    /// For shared components: the role they were compared in.
    pub role: Option<Role>,
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
}

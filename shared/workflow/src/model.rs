//! The validated form of a workflow document: what both formats become once [`crate::load`] accepted them.
//!
//! Everything a run needs is resolved here, at deploy time, so that a run never reads the OpenAPI documents again:
//! each step's operation carries its method, path template, parameters (with where they go), servers and security
//! requirements. The set is serializable (stored beside the document, cached by the runtime) and carries no secret.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which format the document was written in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "format", rename_all = "lowercase")]
pub enum Format {
    /// Arazzo, with the version the document declares (`1.0.1`).
    Arazzo { version: String },
    /// Bump.sh's Flower, with the version the document declares (`0.1`).
    Flower { version: String },
}

/// A validated workflow document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkflowSet {
    pub format: Format,
    /// `info.title` (Arazzo), `title` or else `id` (Flower).
    pub title: String,
    /// `info.summary`/`info.description` (Arazzo), `description` (Flower), as written (Markdown).
    pub description: Option<String>,
    /// The workflows (Flower: flows), in document order; ids are unique.
    pub workflows: Vec<Workflow>,
    /// Origins (`scheme://host[:port]`, lowercase, default port omitted) requests of a run may go to: the servers
    /// of the source descriptions (Arazzo), the step URLs (Flower). A run refuses any other.
    pub allowed_origins: Vec<String>,
    /// Security schemes of the source descriptions, by name: what a server's secrets fill. Sorted by name, unique.
    pub schemes: Vec<SecurityScheme>,
}

/// One workflow: one MCP tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Workflow {
    /// `workflowId` (Flower: the flow's `id`): the tool's name.
    pub id: String,
    pub summary: Option<String>,
    pub description: Option<String>,
    /// The JSON Schema of the inputs, as written (`{"type": "object"}` when the document has none).
    pub inputs: Value,
    /// Workflow outputs: name -> runtime expression (in document order).
    pub outputs: IndexMap<String, String>,
    /// Arazzo `dependsOn`: workflows (ids of this document) that run first; their outputs are reachable as
    /// `$workflows.<id>.outputs.<name>`.
    pub depends_on: Vec<String>,
    pub steps: Vec<Step>,
    /// Workflow-level `successActions`/`failureActions`: used by steps that declare none.
    pub success_actions: Vec<Action>,
    pub failure_actions: Vec<Action>,
}

/// One step of a workflow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// `stepId`, unique in its workflow.
    pub id: String,
    pub description: Option<String>,
    pub target: Target,
    /// Values to send, each a JSON value whose strings may be runtime expressions or templates (see [`crate::expr`]).
    pub parameters: Vec<StepParameter>,
    pub body: Option<StepBody>,
    /// All must hold for the step to succeed; none means "the status is 2xx" (Arazzo's rule is the document's;
    /// an empty list is read as 2xx so a step without criteria still fails on an error answer).
    pub success_criteria: Vec<Criterion>,
    /// `onSuccess`/`onFailure` (Flower: `actions`, split by kind: `next`/`end`/`goto` on success, `retry` on failure).
    pub on_success: Vec<Action>,
    pub on_failure: Vec<Action>,
    /// Step outputs: name -> runtime expression.
    pub outputs: IndexMap<String, String>,
}

/// What a step calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Target {
    /// An HTTP operation.
    Operation(Box<Operation>),
    /// Another workflow of this document (`workflowId`): its inputs are the step's parameters, its outputs the
    /// step's `$steps.<id>.outputs`.
    Workflow { workflow_id: String },
}

/// An HTTP operation, resolved from its source description (Arazzo) or written in the step (Flower).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Operation {
    /// The source description's `name` (Arazzo); `None` for Flower.
    pub source: Option<String>,
    /// `operationId` when the step named it that way.
    pub operation_id: Option<String>,
    /// Uppercase HTTP method.
    pub method: String,
    /// Arazzo: the OpenAPI path template (`/pets/{petId}`), joined to a server URL at run time.
    /// Flower: the step's full URL, a template (`https://api.example.com/pets/{$inputs.id}`).
    pub path: String,
    /// Candidate server URLs (templates with their variables' defaults), the operation's own first, then its
    /// path's, then the document's. Empty for Flower (the URL is absolute).
    pub servers: Vec<ServerUrl>,
    /// The operation's declared parameters (path-level ones merged): where a step parameter without `in` goes.
    pub parameters: Vec<DeclaredParameter>,
    /// The request body's media types, in document order (the first is sent when the step names none).
    pub body_media_types: Vec<String>,
    /// Security requirement alternatives: each a list of scheme names that must all be applied. Empty: none.
    pub security: Vec<Vec<String>>,
}

/// A server URL of an OpenAPI document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerUrl {
    /// As written (`https://{region}.api.example.com/v1`).
    pub url: String,
    /// Server variables with their defaults.
    pub variables: IndexMap<String, String>,
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamIn {
    Path,
    Query,
    Header,
    Cookie,
}

/// A parameter the operation declares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeclaredParameter {
    pub name: String,
    pub location: ParamIn,
    pub required: bool,
}

/// A value a step sends as a parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepParameter {
    pub name: String,
    /// Where it goes; resolved at load time from the operation when the step did not say (Flower: `query` or
    /// `header` from the map it was written in). `None` only for a step that calls a workflow (an input).
    pub location: Option<ParamIn>,
    /// A JSON value; strings in it may be expressions or templates.
    pub value: Value,
}

/// A step's request body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepBody {
    pub content_type: Option<String>,
    /// A JSON value; strings in it may be expressions or templates (a string that is exactly one expression takes
    /// the expression's JSON value, not its text).
    pub payload: Value,
    /// Arazzo `replacements`: JSON pointer (in the payload) -> value (expression allowed), applied in order.
    pub replacements: Vec<(String, Value)>,
}

/// A success criterion, or the condition of an action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Criterion {
    /// The expression the condition applies to (`$response.body`); required for regex and JSONPath.
    pub context: Option<String>,
    pub condition: String,
    pub kind: CriterionKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CriterionKind {
    /// `$statusCode == 200 && $response.body#/ok == true`
    Simple,
    /// A regular expression matched against the context's text.
    Regex,
    /// A JSONPath (RFC 9535) filter expression evaluated on the context's JSON: holds when it selects something.
    JsonPath,
}

/// What happens after a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Action {
    pub name: Option<String>,
    pub kind: ActionKind,
    /// All must hold for the action to apply; none: always.
    pub criteria: Vec<Criterion>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ActionKind {
    /// Go on with the next step (Flower's `next`; Arazzo's default).
    Next,
    /// End the workflow (successfully after a success; as a failure after a failure).
    End,
    /// Continue at a step of this workflow, or run another workflow of this document and end with it.
    Goto {
        step_id: Option<String>,
        workflow_id: Option<String>,
    },
    /// Try the step again after `after_secs` seconds, at most `limit` times (then the failure stands).
    Retry { after_secs: f64, limit: u32 },
}

/// A security scheme of a source description.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecurityScheme {
    /// Its name in `components.securitySchemes` (`securityDefinitions` in 2.0): the secret's name.
    pub name: String,
    pub kind: SchemeKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SchemeKind {
    /// The secret is sent as-is in a header, query parameter or cookie named `param`.
    ApiKey { location: ParamIn, param: String },
    /// `Authorization: Bearer <secret>` (HTTP bearer, OAuth 2, OpenID Connect: a token pasted as the secret).
    Bearer,
    /// `Authorization: Basic base64(<secret>)`, the secret being `user:password`.
    Basic,
}

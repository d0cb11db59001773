//! Workflow document text -> [`WorkflowSet`], or the located [`Problem`]s that stop it from being deployed.
//!
//! Everything a run needs is checked here, at deploy time, so that a bad document is refused with a message its
//! author can act on instead of failing later inside an MCP tool call. In order:
//!
//! 1. **Reading**: JSON or YAML, at most 5 MB and 64 levels deep, no YAML aliases: the budgeted reader every API
//!    document is read with ([`specpress_apispec::read_value`]).
//! 2. **Format**: a top-level `arazzo: 1.0.x` or `flower: "0.1"`; anything else is one problem naming both.
//! 3. **JSON Schema** of the format: the official schemas bump-cli 2.11.0 ships (`schemas/`, used as data,
//!    compiled once, no network). Each violation is reported at its instance pointer; a document that fails its
//!    schema is not read further (what follows assumes its shape).
//! 4. **What no schema says** (`load/arazzo.rs`, `load/flower.rs`): every OpenAPI source description is among the
//!    references and is a valid OpenAPI document (its own diagnostics are reported in its file); each step's
//!    `operationId`/`operationPath`/`workflowId` names something that exists, unambiguously; every runtime
//!    expression, template and criterion parses, and `$steps.<id>`/`$workflows.<id>` name existing steps and
//!    workflows; `goto` targets exist; step and workflow ids are unique; no workflow calls itself, directly or
//!    through `dependsOn`; every server a step may call is an absolute http(s) URL and every security scheme a
//!    step needs is one a run can apply (API key, bearer token, basic).
//! 5. **The model** is built in the same pass: operations resolved from their OpenAPI documents, parameters
//!    placed, reusable components inlined, the origins a run may reach and the security schemes listed.
//!
//! Problems are collected (at most [`MAX_PROBLEMS`]) rather than stopping at the first; nothing here panics on
//! document data.

mod arazzo;
mod flower;

use std::sync::LazyLock;

use serde_json::Value;
use specpress_fetch::Origin;

use crate::model::WorkflowSet;

/// A file sent with the definition (bump-cli sends each Arazzo sourceDescription as one, with its `name`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Reference {
    pub location: String,
    pub content: String,
    pub name: Option<String>,
}

/// One located problem of a document.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// `None` for the definition, else the reference's location.
    pub file: Option<String>,
    /// JSON pointer into that file (`""` is the root).
    pub pointer: String,
    /// A sentence its author can act on.
    pub message: String,
}

/// Largest file accepted (the definition and each reference).
pub const MAX_BYTES: usize = 5 * 1024 * 1024;
/// Deepest nesting of arrays/objects accepted in the workflow document.
pub const MAX_DEPTH: usize = 64;
/// Most values accepted in the workflow document.
pub const MAX_NODES: usize = 1_000_000;
/// Most problems reported.
pub const MAX_PROBLEMS: usize = 100;
/// Longest message kept from a JSON Schema error (its text may quote a large part of the document).
const MAX_SCHEMA_MESSAGE: usize = 400;

/// Reads and validates a workflow document and the files sent with it.
pub fn load(definition: &str, references: &[Reference]) -> Result<WorkflowSet, Vec<Problem>> {
    let limits = specpress_apispec::Limits {
        max_bytes: MAX_BYTES,
        max_depth: MAX_DEPTH,
        max_nodes: MAX_NODES,
        allow_aliases: false,
        max_aliases: 0,
        ..specpress_apispec::Limits::default()
    };
    let doc = specpress_apispec::read_value(definition, &limits).map_err(|d| {
        let at = match (d.line, d.column) {
            (Some(line), Some(column)) => format!(" (line {line}, column {column})"),
            (Some(line), None) => format!(" (line {line})"),
            _ => String::new(),
        };
        // Located by line and column: the document has no structure to point into yet.
        vec![Problem {
            file: None,
            pointer: String::new(),
            message: format!("the workflow document cannot be read: {}{at}", d.message),
        }]
    })?;
    let format = detect(&doc).map_err(|p| vec![p])?;
    let validator = match format {
        Detected::Arazzo => &*ARAZZO_SCHEMA,
        Detected::Flower => &*FLOWER_SCHEMA,
    };
    let mut problems = Problems::default();
    match validator {
        Ok(validator) => {
            for e in validator.iter_errors(&doc) {
                if problems.full() {
                    break;
                }
                for (pointer, message) in explain(&e, 0) {
                    problems.at(
                        pointer,
                        shorten(&format!("does not follow the schema: {message}")),
                    );
                }
            }
        }
        Err(m) => problems.at(
            "",
            format!("internal error: the schema cannot be compiled: {m}"),
        ),
    }
    if !problems.is_empty() {
        return Err(problems.list);
    }
    let set = match format {
        Detected::Arazzo => arazzo::build(&doc, references, &mut problems),
        Detected::Flower => flower::build(&doc, &mut problems),
    };
    match set {
        Some(set) if problems.is_empty() => Ok(set),
        _ => {
            if problems.is_empty() {
                problems.at("", "the document cannot be read as a workflow set");
            }
            Err(problems.list)
        }
    }
}

#[derive(Clone, Copy)]
enum Detected {
    Arazzo,
    Flower,
}

const ACCEPTED: &str = "accepted formats: Arazzo 1.0.x (a top-level `arazzo: 1.0.1`) and Flower 0.1 (a top-level `flower: \"0.1\"`)";

fn detect(doc: &Value) -> Result<Detected, Problem> {
    let at = |pointer: &str, message: String| Problem {
        file: None,
        pointer: pointer.to_string(),
        message,
    };
    let Some(obj) = doc.as_object() else {
        return Err(at(
            "",
            format!("the workflow document is not an object; {ACCEPTED}"),
        ));
    };
    if let Some(v) = obj.get("arazzo") {
        let ok = v.as_str().is_some_and(|s| {
            s.strip_prefix("1.0.")
                .and_then(|rest| rest.split('-').next())
                .is_some_and(|patch| !patch.is_empty() && patch.bytes().all(|b| b.is_ascii_digit()))
        });
        return match (ok, v.is_string()) {
            (true, _) => Ok(Detected::Arazzo),
            (false, true) => Err(at(
                "/arazzo",
                format!("Arazzo version {v} is not supported; {ACCEPTED}"),
            )),
            (false, false) => Err(at(
                "/arazzo",
                format!(
                    "the Arazzo version must be a string (`arazzo: 1.0.1`, not {v}); {ACCEPTED}"
                ),
            )),
        };
    }
    if let Some(v) = obj.get("flower") {
        return match (v.as_str(), v.is_string()) {
            (Some("0.1"), _) => Ok(Detected::Flower),
            (_, true) => Err(at(
                "/flower",
                format!("Flower version {v} is not supported; {ACCEPTED}"),
            )),
            (_, false) => Err(at(
                "/flower",
                format!(
                    "the Flower version must be the string \"0.1\" (YAML reads an unquoted 0.1 as a number); {ACCEPTED}"
                ),
            )),
        };
    }
    Err(at(
        "",
        format!("the document declares no workflow format; {ACCEPTED}"),
    ))
}

type Compiled = Result<jsonschema::Validator, String>;

static ARAZZO_SCHEMA: LazyLock<Compiled> =
    LazyLock::new(|| compile(include_str!("../schemas/arazzo-1.0.json")));
static FLOWER_SCHEMA: LazyLock<Compiled> =
    LazyLock::new(|| compile(include_str!("../schemas/flower-0.1.json")));

fn compile(text: &str) -> Compiled {
    let schema: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    jsonschema::validator_for(&schema).map_err(|e| e.to_string())
}

/// How deep [`explain`] looks into `oneOf`/`anyOf` alternatives.
const EXPLAIN_DEPTH: usize = 4;

/// A schema error as (pointer, message)s. A failed `oneOf`/`anyOf` says only "not valid under any of the schemas";
/// what its author needs is why the alternative they meant failed: the one with the fewest errors (the deepest on a
/// tie) is taken for it, and its errors are reported instead.
fn explain(e: &jsonschema::ValidationError<'_>, depth: usize) -> Vec<(String, String)> {
    use jsonschema::error::ValidationErrorKind;
    let whole = || vec![(e.instance_path().as_str().to_string(), e.to_string())];
    let context = match e.kind() {
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            context
        }
        _ => return whole(),
    };
    if depth >= EXPLAIN_DEPTH {
        return whole();
    }
    let deepest = |branch: &Vec<jsonschema::ValidationError<'static>>| {
        branch
            .iter()
            .map(|x| x.instance_path().as_str().len())
            .max()
            .unwrap_or(0)
    };
    let best = context
        .iter()
        .filter(|branch| !branch.is_empty())
        .min_by(|a, b| a.len().cmp(&b.len()).then(deepest(b).cmp(&deepest(a))));
    match best {
        Some(branch) => branch.iter().flat_map(|x| explain(x, depth + 1)).collect(),
        None => whole(),
    }
}

fn shorten(message: &str) -> String {
    if message.len() <= MAX_SCHEMA_MESSAGE {
        return message.to_string();
    }
    let mut end = MAX_SCHEMA_MESSAGE;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &message[..end])
}

/// The problems found so far, capped at [`MAX_PROBLEMS`].
#[derive(Default)]
struct Problems {
    list: Vec<Problem>,
}

impl Problems {
    /// A problem of the definition.
    fn at(&mut self, pointer: impl Into<String>, message: impl Into<String>) {
        self.push(None, pointer.into(), message.into());
    }

    fn push(&mut self, file: Option<String>, pointer: String, message: String) {
        if self.list.len() < MAX_PROBLEMS {
            self.list.push(Problem {
                file,
                pointer,
                message,
            });
        }
    }

    fn full(&self) -> bool {
        self.list.len() >= MAX_PROBLEMS
    }

    fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// `base` followed by one JSON pointer token (`~` and `/` escaped).
fn ptr(base: &str, token: impl std::fmt::Display) -> String {
    let token = token.to_string();
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

/// Longest tool name (the MCP specification's rule for tool names).
pub const MAX_TOOL_NAME: usize = 128;

/// Whether `name` follows the MCP specification's rule for tool names: 1 to [`MAX_TOOL_NAME`] characters of ASCII
/// letters, digits, `_`, `-` and `.` (no space, no other punctuation, nothing outside ASCII). A workflow id is its
/// tool's name, so it must.
pub fn is_tool_name(name: &str) -> bool {
    (1..=MAX_TOOL_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// A problem at `pointer` when `id` (a workflow's, or a flow's) cannot be an MCP tool's name.
fn check_tool_name(id: &str, pointer: String, what: &str, problems: &mut Problems) {
    if !is_tool_name(id) {
        problems.at(
            pointer,
            format!(
                "{what} id '{}' cannot name an MCP tool: a tool name is 1 to {MAX_TOOL_NAME} characters of A-Z, a-z, 0-9, '_', '-' and '.'",
                id.escape_debug()
            ),
        );
    }
}

/// What a server URL is to a run.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ServerOrigin {
    /// A run may send to it: its origin ([`Origin`], the parser a run sends with).
    Origin(String),
    /// Not an absolute `http`/`https` URL with a literal host (relative, another scheme, a `{...}` template in the
    /// scheme or host): a run cannot use it.
    NotAbsolute,
    /// An absolute http(s) URL every run would refuse (user information, a port out of range, a host that is no
    /// host, an address that is never public): why, for the author.
    Refused(String),
}

/// See [`ServerOrigin`].
fn server_origin(url: &str) -> ServerOrigin {
    let url = url.trim();
    let Some((scheme, rest)) = url.split_once("://") else {
        return ServerOrigin::NotAbsolute;
    };
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        return ServerOrigin::NotAbsolute;
    }
    // A template cannot make up the host: what a run may reach must be known now.
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains(['{', '}']) {
        return ServerOrigin::NotAbsolute;
    }
    match Origin::parse(url) {
        Ok(origin) => ServerOrigin::Origin(origin.into_string()),
        Err(e) => ServerOrigin::Refused(e.user_message()),
    }
}

/// The runtime expressions written in a string: the whole string when it starts with `$`, else each `{$...}` of
/// a template. Used to check what they name once [`crate::expr::check_value`] accepted the string.
fn expressions_in(s: &str) -> Vec<&str> {
    if s.starts_with('$') {
        return vec![s];
    }
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find("{$") {
        let after = &rest[start + 1..];
        match after.find('}') {
            Some(end) => {
                out.push(&after[..end]);
                rest = &after[end + 1..];
            }
            None => break,
        }
    }
    out
}

/// Every string in `value`, with its pointer under `base` (explicit stack: no recursion on document data).
fn strings_in<'v>(value: &'v Value, base: &str) -> Vec<(String, &'v str)> {
    let mut out = Vec::new();
    let mut stack = vec![(base.to_string(), value)];
    while let Some((at, v)) = stack.pop() {
        match v {
            Value::String(s) => out.push((at, s.as_str())),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate().rev() {
                    stack.push((ptr(&at, i), item));
                }
            }
            Value::Object(map) => {
                for (k, item) in map.iter().rev() {
                    stack.push((ptr(&at, k), item));
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_origins_are_the_url_crates_and_what_a_run_refuses_is_refused_now() {
        let origin = |u: &str| ServerOrigin::Origin(u.to_string());
        assert_eq!(
            server_origin("HTTPS://API.Example.com:443/v1"),
            origin("https://api.example.com")
        );
        assert_eq!(
            server_origin("http://localhost:8080"),
            origin("http://localhost:8080")
        );
        assert_eq!(
            server_origin("http://host.test:0018081/x"),
            origin("http://host.test:18081")
        );
        assert_eq!(
            server_origin("https://ex%61mple.com/v1"),
            origin("https://example.com")
        );
        for not_absolute in [
            "/v1",
            "ftp://x.example.com",
            "https://{region}.example.com",
            "https://api.example.com{$inputs.x}/y",
            "{$inputs.base}/x",
        ] {
            assert_eq!(
                server_origin(not_absolute),
                ServerOrigin::NotAbsolute,
                "{not_absolute}"
            );
        }
        for refused in [
            "https://user@api.example.com",
            "https://api.example.com:99999",
            "http://169.254.169.254/latest",
            "http://[fd00:ec2::254]/",
        ] {
            assert!(
                matches!(server_origin(refused), ServerOrigin::Refused(_)),
                "{refused}"
            );
        }
    }

    #[test]
    fn expressions_are_found_in_templates() {
        assert_eq!(expressions_in("$inputs.id"), vec!["$inputs.id"]);
        assert_eq!(
            expressions_in("Bearer {$inputs.token} and {$steps.a.outputs.b}"),
            vec!["$inputs.token", "$steps.a.outputs.b"]
        );
        assert!(expressions_in("plain {text}").is_empty());
    }

    #[test]
    fn both_schemas_compile_offline() {
        assert!(ARAZZO_SCHEMA.is_ok(), "{:?}", ARAZZO_SCHEMA.as_ref().err());
        assert!(FLOWER_SCHEMA.is_ok(), "{:?}", FLOWER_SCHEMA.as_ref().err());
    }
}

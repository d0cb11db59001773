//! Evaluation: what an expression reads from a run's [`Context`] ([`Expr::eval`]), and templates and JSON values
//! rendered with it ([`render_str`], [`render`]).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::syntax::{Piece, parse, parse_template};
use super::{Expr, ExprError, MAX_DEPTH, Source, WorkflowPart};

impl Expr {
    /// The expression's value in `ctx`; `None` when it has none (a missing input, output, header...).
    pub fn eval(&self, ctx: &Context<'_>) -> Option<Value> {
        match self {
            Expr::Url => ctx.request.map(|r| Value::String(r.url.clone())),
            Expr::Method => ctx.request.map(|r| Value::String(r.method.clone())),
            Expr::StatusCode => ctx.response.map(|r| Value::from(r.status)),
            Expr::Request(source) => {
                let r = ctx.request?;
                match source {
                    Source::Header(name) => header(&r.headers, name),
                    Source::Query(name) => pair(&r.query, name),
                    Source::Path(name) => pair(&r.path, name),
                    Source::Body(path) => {
                        walk(r.body.as_ref()?, path.iter().map(String::as_str)).cloned()
                    }
                    Source::Headers => Some(all_headers(&r.headers)),
                    Source::QueryAll => Some(Value::Object(
                        r.query
                            .iter()
                            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                            .collect(),
                    )),
                }
            }
            Expr::Response(source) => {
                let r = ctx.response?;
                match source {
                    Source::Header(name) => header(&r.headers, name),
                    Source::Body(path) => walk(&r.body, path.iter().map(String::as_str)).cloned(),
                    Source::Headers => Some(all_headers(&r.headers)),
                    // A response has no query or path parameters.
                    Source::Query(_) | Source::Path(_) | Source::QueryAll => None,
                }
            }
            Expr::Inputs { name, pointer } => lookup(ctx.inputs.as_object()?, name, pointer),
            Expr::Outputs { name, pointer } => lookup(ctx.outputs?, name, pointer),
            Expr::Steps {
                step,
                name,
                pointer,
            } => lookup(ctx.steps.get(step)?, name, pointer),
            Expr::Workflows {
                workflow,
                part,
                name,
                pointer,
            } => {
                let w = ctx.workflows.get(workflow)?;
                match part {
                    WorkflowPart::Inputs => lookup(w.inputs.as_object()?, name, pointer),
                    WorkflowPart::Outputs => lookup(&w.outputs, name, pointer),
                }
            }
            Expr::SourceDescriptions { .. } | Expr::Components { .. } => None,
        }
    }
}

fn all_headers(headers: &[(String, String)]) -> Value {
    let mut m = Map::new();
    for (k, v) in headers {
        m.entry(k.to_ascii_lowercase())
            .or_insert_with(|| Value::String(v.clone()));
    }
    Value::Object(m)
}

fn header(headers: &[(String, String)], name: &str) -> Option<Value> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| Value::String(v.clone()))
}

fn pair(pairs: &[(String, String)], name: &str) -> Option<Value> {
    pairs
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| Value::String(v.clone()))
}

/// `name` (exact key first, else a dotted path) then `pointer`, in `map`.
fn lookup(map: &Map<String, Value>, name: &str, pointer: &[String]) -> Option<Value> {
    let base = match map.get(name) {
        Some(v) => v,
        None => {
            let mut segments = name.split('.');
            let first = map.get(segments.next()?)?;
            walk(first, segments)?
        }
    };
    walk(base, pointer.iter().map(String::as_str)).cloned()
}

/// Follows path tokens (object keys, array indexes) into a value.
fn walk<'v, 's>(
    mut value: &'v Value,
    tokens: impl IntoIterator<Item = &'s str>,
) -> Option<&'v Value> {
    for token in tokens {
        value = match value {
            Value::Object(m) => m.get(token)?,
            Value::Array(a) => {
                // RFC 6901: no leading zeros, no sign.
                if token.is_empty() || (token.len() > 1 && token.starts_with('0')) {
                    return None;
                }
                if !token.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                a.get(token.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
    }
    Some(value)
}

/// The request of a step, as expressions see it (secret-bearing header values already replaced by the runner).
#[derive(Debug, Clone, Default)]
pub struct RequestView {
    pub url: String,
    pub method: String,
    pub headers: Vec<(String, String)>,
    pub query: Vec<(String, String)>,
    pub path: Vec<(String, String)>,
    pub body: Option<Value>,
}

/// The response of a step, as expressions see it: the body parsed as JSON when it was JSON, else a string.
#[derive(Debug, Clone, Default)]
pub struct ResponseView {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

/// What `$workflows.<id>.` reads: a workflow that ran in this run.
#[derive(Debug, Clone, Default)]
pub struct WorkflowValues {
    pub inputs: Value,
    pub outputs: Map<String, Value>,
}

/// What expressions are evaluated against.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The current workflow's inputs (an object).
    pub inputs: &'a Value,
    /// The current workflow's outputs evaluated so far, when outputs are being evaluated.
    pub outputs: Option<&'a Map<String, Value>>,
    /// Outputs of the steps of the current workflow that ran, by step id.
    pub steps: &'a HashMap<String, Map<String, Value>>,
    /// Workflows that ran in this run, by id.
    pub workflows: &'a HashMap<String, WorkflowValues>,
    pub request: Option<&'a RequestView>,
    pub response: Option<&'a ResponseView>,
}

/// The text of a value inside a template: a string as is, null as nothing, anything else as JSON.
pub fn to_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Evaluates a string: exactly one expression (starts with `$`) -> its value (null when missing); a template ->
/// text with each piece's text; anything else -> the string.
pub fn render_str(s: &str, ctx: &Context<'_>) -> Result<Value, ExprError> {
    render_str_with(s, ctx, &mut |v| to_text(v))
}

/// Like [`render_str`], with a caller's way to turn a piece's value into text (the runner percent-encodes pieces
/// of a URL).
pub fn render_str_with(
    s: &str,
    ctx: &Context<'_>,
    text: &mut dyn FnMut(&Value) -> String,
) -> Result<Value, ExprError> {
    if s.starts_with('$') {
        return Ok(parse(s)?.eval(ctx).unwrap_or(Value::Null));
    }
    if !s.contains("{$") {
        return Ok(Value::String(s.to_string()));
    }
    let mut out = String::new();
    for piece in parse_template(s)? {
        match piece {
            Piece::Text(t) => out.push_str(&t),
            Piece::Expr(e) => out.push_str(&text(&e.eval(ctx).unwrap_or(Value::Null))),
        }
    }
    Ok(Value::String(out))
}

/// Walks a JSON value and evaluates its strings (see [`render_str`]); keys are kept as written.
pub fn render(v: &Value, ctx: &Context<'_>) -> Result<Value, ExprError> {
    render_at(v, ctx, 0)
}

fn render_at(v: &Value, ctx: &Context<'_>, depth: usize) -> Result<Value, ExprError> {
    if depth > MAX_DEPTH {
        return Err(ExprError::new(
            "",
            format!("the value is nested deeper than {MAX_DEPTH}"),
        ));
    }
    Ok(match v {
        Value::String(s) => render_str(s, ctx)?,
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| render_at(x, ctx, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| Ok((k.clone(), render_at(x, ctx, depth + 1)?)))
                .collect::<Result<_, ExprError>>()?,
        ),
        other => other.clone(),
    })
}

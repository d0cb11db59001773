//! Runtime expressions (Arazzo 1.0 "Runtime Expressions") and templates: parse them, and evaluate them against a
//! run's [`Context`].
//!
//! An expression is one of `$url`, `$method`, `$statusCode`, `$request.<source>`, `$response.<source>` (source:
//! `header.<token>`, `query.<name>`, `path.<name>`, `body` with an optional `#/json/pointer`), `$inputs.<name>`,
//! `$outputs.<name>`, `$steps.<stepId>.outputs.<name>`, `$workflows.<workflowId>.outputs.<name>` (or `.inputs.`),
//! `$sourceDescriptions.<name>...` and `$components....`. Values with a name accept a `#/json/pointer` suffix
//! into the value; `$inputs`, `$outputs`, step and workflow values also accept a dotted path (`$inputs.customer.id`):
//! at evaluation the whole dotted name is tried as a key first, then walked segment by segment.
//! Flower's spellings are accepted too: `$status` and `$response.status` (= `$statusCode`), `$request.method`,
//! `$request.url`, `$response.headers`/`$request.headers` (all headers, lowercase names), `$request.query` (all
//! query parameters), dotted body paths with indexes (`$response.body.0.lat`) and `[n]` indexes (`items[0].name`).
//!
//! A template is a string with `{$...}` pieces (`"Bearer {$inputs.token}"`). [`render`] walks a JSON value: a
//! string that is exactly one expression becomes the expression's JSON value, a string with pieces becomes text,
//! anything else is kept as is.
//!
//! Everything is bounded: an expression is at most [`MAX_EXPR_LEN`] bytes, a pointer or dotted path at most
//! [`MAX_PATH_DEPTH`] segments, a template at most [`MAX_PIECES`] pieces, a walked value at most [`MAX_DEPTH`] deep.
//!
//! This file holds the types (an [`Expr`], its [`Source`]s, [`ExprError`]) and how an expression is written back;
//! `syntax` parses expressions and templates, `eval` evaluates them against a [`Context`].

mod eval;
mod syntax;

use std::fmt;

pub use eval::{
    Context, RequestView, ResponseView, WorkflowValues, render, render_str, render_str_with,
    to_text,
};
pub use syntax::{Piece, check_value, parse, parse_template};

/// The longest expression accepted, in bytes.
pub const MAX_EXPR_LEN: usize = 1024;
/// The most segments of a JSON pointer or dotted path.
pub const MAX_PATH_DEPTH: usize = 32;
/// The most `{$...}` pieces in one template.
pub const MAX_PIECES: usize = 64;
/// How deep [`check_value`] and [`render`] walk into a JSON value.
pub const MAX_DEPTH: usize = 64;

/// Where in a request or response a value comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// `header.<name>`: case-insensitive.
    Header(String),
    /// `query.<name>`.
    Query(String),
    /// `path.<name>`.
    Path(String),
    /// `body`, then a path (JSON pointer or dotted) into it; empty: the whole body.
    Body(Vec<String>),
    /// `headers` (Flower): all headers, as an object keyed by lowercase name.
    Headers,
    /// `query` (Flower): all query parameters, as an object.
    QueryAll,
}

/// Which values of another workflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkflowPart {
    Inputs,
    Outputs,
}

/// One parsed runtime expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// `$url`: the URL of the step's request.
    Url,
    /// `$method`: the step's HTTP method.
    Method,
    /// `$statusCode`: the response's status.
    StatusCode,
    /// `$request.<source>`.
    Request(Source),
    /// `$response.<source>`.
    Response(Source),
    /// `$inputs.<name>[#pointer]`; `name` is as written (it may hold dots).
    Inputs { name: String, pointer: Vec<String> },
    /// `$outputs.<name>[#pointer]`: outputs of the current workflow evaluated so far.
    Outputs { name: String, pointer: Vec<String> },
    /// `$steps.<step>.outputs.<name>[#pointer]`.
    Steps {
        step: String,
        name: String,
        pointer: Vec<String>,
    },
    /// `$workflows.<workflow>.outputs.<name>[#pointer]` or `.inputs.`.
    Workflows {
        workflow: String,
        part: WorkflowPart,
        name: String,
        pointer: Vec<String>,
    },
    /// `$sourceDescriptions.<name>.<rest>`: names a part of a source description; not a run-time value.
    SourceDescriptions { name: String, rest: String },
    /// `$components.<rest>`: names a component; not a run-time value.
    Components { rest: String },
}

/// Why an expression or template is not valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    /// The expression (or template), shortened to 80 characters.
    pub text: String,
    /// What is wrong, as a sentence fragment.
    pub reason: String,
}

impl ExprError {
    fn new(text: &str, reason: impl Into<String>) -> Self {
        ExprError {
            text: shorten(text, 80),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid runtime expression `{}`: {}",
            self.text, self.reason
        )
    }
}

impl std::error::Error for ExprError {}

/// `text` cut to at most `max` characters, with `...` when cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((i, _)) => format!("{}...", &text[..i]),
    }
}

impl Expr {
    /// The step an expression reads (`$steps.<id>...`).
    pub fn step_id(&self) -> Option<&str> {
        match self {
            Expr::Steps { step, .. } => Some(step),
            _ => None,
        }
    }

    /// The workflow an expression reads (`$workflows.<id>...`).
    pub fn workflow_id(&self) -> Option<&str> {
        match self {
            Expr::Workflows { workflow, .. } => Some(workflow),
            _ => None,
        }
    }

    /// The input an expression reads (`$inputs.<name>`): the part of the name before its first dot.
    pub fn input_name(&self) -> Option<&str> {
        match self {
            Expr::Inputs { name, .. } => name.split('.').next(),
            _ => None,
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn ptr(f: &mut fmt::Formatter<'_>, tokens: &[String]) -> fmt::Result {
            if tokens.is_empty() {
                return Ok(());
            }
            f.write_str("#")?;
            for t in tokens {
                write!(f, "/{}", t.replace('~', "~0").replace('/', "~1"))?;
            }
            Ok(())
        }
        fn source(f: &mut fmt::Formatter<'_>, s: &Source) -> fmt::Result {
            match s {
                Source::Header(n) => write!(f, "header.{n}"),
                Source::Query(n) => write!(f, "query.{n}"),
                Source::Path(n) => write!(f, "path.{n}"),
                Source::Body(p) => {
                    f.write_str("body")?;
                    ptr(f, p)
                }
                Source::Headers => f.write_str("headers"),
                Source::QueryAll => f.write_str("query"),
            }
        }
        match self {
            Expr::Url => f.write_str("$url"),
            Expr::Method => f.write_str("$method"),
            Expr::StatusCode => f.write_str("$statusCode"),
            Expr::Request(s) => {
                f.write_str("$request.")?;
                source(f, s)
            }
            Expr::Response(s) => {
                f.write_str("$response.")?;
                source(f, s)
            }
            Expr::Inputs { name, pointer } => {
                write!(f, "$inputs.{name}")?;
                ptr(f, pointer)
            }
            Expr::Outputs { name, pointer } => {
                write!(f, "$outputs.{name}")?;
                ptr(f, pointer)
            }
            Expr::Steps {
                step,
                name,
                pointer,
            } => {
                write!(f, "$steps.{step}.outputs.{name}")?;
                ptr(f, pointer)
            }
            Expr::Workflows {
                workflow,
                part,
                name,
                pointer,
            } => {
                let part = match part {
                    WorkflowPart::Inputs => "inputs",
                    WorkflowPart::Outputs => "outputs",
                };
                write!(f, "$workflows.{workflow}.{part}.{name}")?;
                ptr(f, pointer)
            }
            Expr::SourceDescriptions { name, rest } => {
                write!(f, "$sourceDescriptions.{name}.{rest}")
            }
            Expr::Components { rest } => write!(f, "$components.{rest}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};
    use std::collections::HashMap;

    fn p(s: &str) -> Expr {
        match parse(s) {
            Ok(e) => e,
            Err(e) => panic!("{s} should parse: {e}"),
        }
    }

    #[test]
    fn parses_the_bare_expressions() {
        assert_eq!(p("$url"), Expr::Url);
        assert_eq!(p("$method"), Expr::Method);
        assert_eq!(p("$statusCode"), Expr::StatusCode);
    }

    #[test]
    fn parses_request_and_response_sources() {
        assert_eq!(
            p("$request.header.X-Api-Key"),
            Expr::Request(Source::Header("X-Api-Key".into()))
        );
        assert_eq!(
            p("$request.query.page"),
            Expr::Request(Source::Query("page".into()))
        );
        assert_eq!(
            p("$request.path.petId"),
            Expr::Request(Source::Path("petId".into()))
        );
        assert_eq!(p("$request.body"), Expr::Request(Source::Body(vec![])));
        assert_eq!(
            p("$response.body#/items/0/id"),
            Expr::Response(Source::Body(vec!["items".into(), "0".into(), "id".into()]))
        );
        assert_eq!(
            p("$response.body#/a~1b/c~0d"),
            Expr::Response(Source::Body(vec!["a/b".into(), "c~d".into()]))
        );
        assert_eq!(
            p("$response.body.a.b"),
            Expr::Response(Source::Body(vec!["a".into(), "b".into()]))
        );
        assert_eq!(
            p("$response.header.Location"),
            Expr::Response(Source::Header("Location".into()))
        );
        assert_eq!(
            p("$response.body.0.lat"),
            Expr::Response(Source::Body(vec!["0".into(), "lat".into()]))
        );
        assert_eq!(p("$response.headers"), Expr::Response(Source::Headers));
    }

    #[test]
    fn accepts_flower_spellings() {
        assert_eq!(p("$status"), Expr::StatusCode);
        assert_eq!(p("$response.status"), Expr::StatusCode);
        assert_eq!(p("$request.method"), Expr::Method);
        assert_eq!(p("$request.url"), Expr::Url);
        assert_eq!(
            p("$inputs.items[0].name"),
            Expr::Inputs {
                name: "items.0.name".into(),
                pointer: vec![]
            }
        );
        assert!(parse("$inputs.items[x]").is_err());
    }

    #[test]
    fn parses_named_values_with_pointers_and_ids() {
        let e = p("$inputs.customer.id");
        assert_eq!(e.input_name(), Some("customer"));
        assert_eq!(
            p("$inputs.pet#/name"),
            Expr::Inputs {
                name: "pet".into(),
                pointer: vec!["name".into()]
            }
        );
        let e = p("$steps.find-pet.outputs.id#/0");
        assert_eq!(e.step_id(), Some("find-pet"));
        assert_eq!(
            e,
            Expr::Steps {
                step: "find-pet".into(),
                name: "id".into(),
                pointer: vec!["0".into()]
            }
        );
        let e = p("$workflows.login.outputs.token");
        assert_eq!(e.workflow_id(), Some("login"));
        assert!(matches!(
            p("$workflows.login.inputs.user"),
            Expr::Workflows {
                part: WorkflowPart::Inputs,
                ..
            }
        ));
        assert_eq!(
            p("$outputs.total"),
            Expr::Outputs {
                name: "total".into(),
                pointer: vec![]
            }
        );
        assert!(matches!(
            p("$sourceDescriptions.petstore.getPet"),
            Expr::SourceDescriptions { .. }
        ));
        assert!(matches!(
            p("$components.parameters.page"),
            Expr::Components { .. }
        ));
    }

    #[test]
    fn displays_what_it_parsed() {
        for s in [
            "$url",
            "$request.header.X-A",
            "$response.body#/a~1b/0",
            "$steps.s.outputs.x#/y",
            "$inputs.a.b",
        ] {
            assert_eq!(p(s).to_string(), s);
        }
    }

    #[test]
    fn rejects_malformed_expressions() {
        for bad in [
            "",
            "inputs.x",
            "$",
            "$inputs",
            "$inputs.",
            "$inputs.a..b",
            "$inputs.a b",
            "$inputs.x#a",
            "$inputs.x#/a~2",
            "$steps.s",
            "$steps.s.output.x",
            "$steps.s.outputs.",
            "$workflows.w.steps.x",
            "$request.cookie.x",
            "$request.header.",
            "$request.header.a b",
            "$response.bodyx",
            "$statusCode.x",
            "$nope.x",
            "$components",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should be rejected");
        }
        let long = format!("$inputs.{}", "a".repeat(MAX_EXPR_LEN));
        assert!(parse(&long).is_err());
        let deep = format!("$response.body#{}", "/a".repeat(MAX_PATH_DEPTH + 1));
        assert!(parse(&deep).is_err());
    }

    #[test]
    fn checks_strings_and_template_pieces_of_a_value() {
        assert!(
            check_value(
                &json!({"a": "$inputs.x", "b": ["Bearer {$inputs.t}", 1, null], "c": "plain {x}"})
            )
            .is_ok()
        );
        assert!(check_value(&json!({"a": "$inputs"})).is_err());
        assert!(check_value(&json!(["/pets/{$steps.x.outputs}"])).is_err());
        assert!(check_value(&json!("open {$inputs.x")).is_err());
    }

    #[test]
    fn renders_values_and_templates() {
        let inputs = json!({"id": 7, "token": "abc", "customer": {"name": "Ann"}});
        let mut steps = HashMap::new();
        steps.insert(
            "find".to_string(),
            Map::from_iter([("pet".to_string(), json!({"id": "p1"}))]),
        );
        let workflows = HashMap::new();
        let response = ResponseView {
            status: 201,
            headers: vec![("X-Rate".into(), "5".into())],
            body: json!({"a": [1, 2]}),
        };
        let ctx = Context {
            inputs: &inputs,
            outputs: None,
            steps: &steps,
            workflows: &workflows,
            request: None,
            response: Some(&response),
        };
        let v = json!({
            "id": "$inputs.id",
            "auth": "Bearer {$inputs.token}",
            "path": "/pets/{$steps.find.outputs.pet#/id}/{$inputs.customer.name}",
            "status": "$statusCode",
            "second": "$response.body#/a/1",
            "rate": "$response.header.x-rate",
            "missing": "$inputs.nope",
            "n": 3,
            "plain": "hello {world}"
        });
        let out = match render(&v, &ctx) {
            Ok(o) => o,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(
            out,
            json!({"id": 7, "auth": "Bearer abc", "path": "/pets/p1/Ann", "status": 201, "second": 2, "rate": "5",
                   "missing": null, "n": 3, "plain": "hello {world}"})
        );
    }
}

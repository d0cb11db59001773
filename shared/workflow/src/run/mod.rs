//! One workflow run: validate the tool inputs, run the steps (HTTP operations or other workflows) in order over a
//! caller's [`Transport`], follow success and failure actions, and return the workflow's outputs.
//!
//! Everything is bounded by a [`Budget`]: step runs (retries and `goto`s included), one deadline for the whole run
//! (each send and each wait gets what remains), response and output sizes, retry waits, nesting of workflows.
//!
//! Decisions, where the Arazzo 1.0 specification leaves room:
//! - A step without `successCriteria` succeeds on a 2xx status (a step calling a workflow: when that workflow did).
//! - Actions: the step's own are tried first, then the workflow-level ones; the first whose criteria all hold
//!   decides. None on success: next step. None on failure: the run fails. `end` after a failure fails the run.
//!   `next` after a failure goes on. `goto` a workflow runs it (with the current workflow's inputs) and ends this one.
//! - A step that timed out or whose request failed at the network level is a failure without a status: its failure
//!   actions apply (so `retry` covers it); a refused request or a too-large answer fails the run at once.
//! - `dependsOn` workflows run first, once per run, with the current workflow's inputs (not validated against their
//!   schema); `$workflows.<id>.outputs` reads them.
//! - Security: the first requirement alternative whose schemes all have secrets is applied; an empty alternative
//!   means "none needed". **The secret wins**: a parameter the document sets with the same name and place
//!   (`Authorization`, the API key's header, query parameter or cookie) is dropped, so a document cannot replace
//!   the credential.
//! - Secrets never leave ([`Redactor`], `redact.rs`): one redactor per run, built from its secrets, is applied
//!   to every text where it enters the run, whole, before anything is cut, logged or returned: the request as
//!   `$request.*`, `$url` see it, each answer (its headers and body, strings and numbers) as soon as it arrives, so
//!   that success criteria, outputs, failure excerpts and error messages only ever see redacted text, and a
//!   transport's message. Outputs and errors are redacted once more on the way out. A refusal names the origin it
//!   refused, never the URL and its query.
//! - Origins are the `url` crate's, through [`specpress_fetch::Origin`]: the very check `load` made of each server
//!   at deploy, so a URL a run refuses was refused at deploy already (unless an input changed its host).
//! - A document may not set the `Host`, `Content-Length`, `Transfer-Encoding` or `Connection` headers, nor put a
//!   line break in a header.
//! - Values: a parameter whose value is `null` (a missing optional input) is not sent. An array query value is sent
//!   as repeated `name=value`; an object as its members (`key=value`, form explode).
//! - The clock is tokio's ([`tokio::time`]): call [`run`] inside a tokio runtime with time enabled.
//!
//! This file holds the public types and [`run`] itself (inputs checked, outputs redacted and bounded); `flow` runs
//! the steps (actions, retries, the budget), `request` builds the wire request of an operation step and reads its
//! answer, `secrets` puts the credentials into a request, `redact` keeps them out of everything else.

mod flow;
mod redact;
mod request;
mod secrets;

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC};
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::expr;
use crate::model::{Workflow, WorkflowSet};
use flow::Runner;

pub use redact::{MIN_PIECE, Redactor, SecretUse};

/// What replaces a secret in outputs and messages.
pub const REDACTED: &str = "[redacted]";
/// How deep workflows may call workflows (step targets, `goto`, `dependsOn`).
pub const MAX_NESTING: usize = 4;
/// The most input validation messages returned.
const MAX_INPUT_ERRORS: usize = 10;

/// Unreserved characters (RFC 3986) stay, everything else is percent-encoded: path segments, query names and
/// values, cookie values, form bodies.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A request as it goes on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireRequest {
    /// Uppercase method.
    pub method: String,
    /// Absolute URL, already encoded.
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

/// An answer as it came off the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Why a request got no answer. Messages are safe to show the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportError {
    /// The transport would not send it (address rules, redirect to elsewhere...).
    Refused(String),
    Timeout,
    /// The answer is larger than the transport accepts.
    TooLarge,
    Failed(String),
}

/// Sends requests: the service's is `shared/fetch` (public addresses only, redirects checked, timeouts, caps).
pub trait Transport: Send + Sync {
    fn send(
        &self,
        req: WireRequest,
    ) -> impl Future<Output = Result<WireResponse, TransportError>> + Send;
}

/// The secrets of a server, by security scheme name.
pub trait Secrets: Send + Sync {
    fn get(&self, scheme: &str) -> Option<&str>;
}

impl Secrets for HashMap<String, String> {
    fn get(&self, scheme: &str) -> Option<&str> {
        HashMap::get(self, scheme).map(String::as_str)
    }
}

/// Limits of one run.
#[derive(Debug, Clone)]
pub struct Budget {
    /// Step runs, retries and `goto`s included, nested workflows included.
    pub max_step_runs: u32,
    /// For the whole run.
    pub deadline: Duration,
    /// Largest answer body accepted.
    pub max_response_bytes: usize,
    /// Largest outputs (serialized JSON).
    pub max_output_bytes: usize,
    /// Longest wait before a retry (a longer `retryAfter` is cut to it).
    pub max_retry_wait: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_step_runs: 50,
            deadline: Duration::from_secs(25),
            max_response_bytes: 1024 * 1024,
            max_output_bytes: 100 * 1024,
            max_retry_wait: Duration::from_secs(10),
        }
    }
}

/// What a successful run returns.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// The workflow's outputs (secrets redacted).
    pub outputs: Map<String, Value>,
    /// Each step visit, in order (steps of nested workflows as `<workflowId>/<stepId>`).
    pub steps: Vec<StepReport>,
}

/// One visit of a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepReport {
    pub id: String,
    /// The last answer's status; `None` for a step calling a workflow or without an answer.
    pub status: Option<u16>,
    /// Tries, retries included.
    pub attempts: u32,
    pub succeeded: bool,
}

/// Why a run failed. Messages are for the user (and the agent): they name the step and never hold a secret.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunError {
    #[error("there is no workflow `{0}` in this document")]
    UnknownWorkflow(String),
    #[error("the inputs are invalid: {}", .0.join("; "))]
    InvalidInputs(Vec<String>),
    #[error("step `{step}` failed: {message}")]
    Step { step: String, message: String },
    /// A limit of the [`Budget`] (or of nesting) was reached; the message names the step.
    #[error("{0}")]
    Budget(String),
    #[error("no secret is set for the security scheme `{scheme}`, which this workflow needs")]
    MissingSecret { scheme: String },
    /// The document cannot be run as written (an inputs schema that does not compile, a `goto` to nowhere).
    #[error("the workflow document cannot be run: {0}")]
    Document(String),
}

impl RunError {
    fn step(step: &str, message: impl Into<String>) -> Self {
        RunError::Step {
            step: step.to_string(),
            message: message.into(),
        }
    }

    fn redacted(self, r: &Redactor) -> Self {
        match self {
            RunError::UnknownWorkflow(s) => RunError::UnknownWorkflow(r.text(&s)),
            RunError::InvalidInputs(v) => {
                RunError::InvalidInputs(v.iter().map(|s| r.text(s)).collect())
            }
            RunError::Step { step, message } => RunError::Step {
                step: r.text(&step),
                message: r.text(&message),
            },
            RunError::Budget(s) => RunError::Budget(r.text(&s)),
            RunError::MissingSecret { scheme } => RunError::MissingSecret { scheme },
            RunError::Document(s) => RunError::Document(r.text(&s)),
        }
    }
}

/// Runs workflow `workflow_id` of `set` with `inputs` (validated against its schema first).
pub async fn run<T: Transport>(
    set: &WorkflowSet,
    workflow_id: &str,
    inputs: Value,
    secrets: &dyn Secrets,
    transport: &T,
    budget: &Budget,
) -> Result<Outcome, RunError> {
    let redactor = Redactor::new(set, secrets);
    let result = async {
        let workflow = find_workflow(set, workflow_id)?;
        let inputs = if inputs.is_null() {
            Value::Object(Map::new())
        } else {
            inputs
        };
        let inputs = with_defaults(&workflow.inputs, inputs);
        validate_inputs(&workflow.inputs, &inputs)?;
        let mut runner = Runner {
            set,
            secrets,
            transport,
            budget,
            started: Instant::now(),
            step_runs: 0,
            reports: Vec::new(),
            workflows: HashMap::new(),
            redactor: &redactor,
        };
        let outputs = runner.run_workflow(workflow, inputs, 0).await?;
        let outputs = match redactor.value(Value::Object(outputs)) {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let size = serde_json::to_string(&outputs)
            .map(|s| s.len())
            .unwrap_or(usize::MAX);
        if size > budget.max_output_bytes {
            return Err(RunError::Budget(format!(
                "the outputs of workflow `{workflow_id}` are larger than {} bytes",
                budget.max_output_bytes
            )));
        }
        Ok(Outcome {
            outputs,
            steps: runner.reports,
        })
    }
    .await;
    result.map_err(|e| e.redacted(&redactor))
}

fn find_workflow<'s>(set: &'s WorkflowSet, id: &str) -> Result<&'s Workflow, RunError> {
    set.workflows
        .iter()
        .find(|w| w.id == id)
        .ok_or_else(|| RunError::UnknownWorkflow(expr::shorten(id, 80)))
}

/// `inputs` with the `default` of each top-level property of the schema it lacks.
fn with_defaults(schema: &Value, mut inputs: Value) -> Value {
    if let (Some(properties), Value::Object(given)) = (
        schema.get("properties").and_then(Value::as_object),
        &mut inputs,
    ) {
        for (name, property) in properties {
            if let Some(default) = property.get("default")
                && !given.contains_key(name)
            {
                given.insert(name.clone(), default.clone());
            }
        }
    }
    inputs
}

/// Validates `inputs` against `schema`: messages are `<pointer>: <what is wrong>`, shortened.
fn validate_inputs(schema: &Value, inputs: &Value) -> Result<(), RunError> {
    // The linear-time `regex` engine for `pattern`: the schema is the document's, the inputs the caller's.
    let patterns = jsonschema::PatternOptions::regex()
        .size_limit(1 << 20)
        .dfa_size_limit(1 << 20);
    let validator = jsonschema::options()
        .with_pattern_options(patterns)
        .build(schema)
        .map_err(|e| {
            RunError::Document(format!(
                "the inputs schema does not compile: {}",
                expr::shorten(&e.to_string(), 200)
            ))
        })?;
    let messages: Vec<String> = validator
        .iter_errors(inputs)
        .take(MAX_INPUT_ERRORS)
        .map(|e| {
            let pointer = e.instance_path().to_string();
            let pointer = if pointer.is_empty() {
                "/".to_string()
            } else {
                pointer
            };
            format!(
                "{}: {}",
                expr::shorten(&pointer, 80),
                expr::shorten(&e.to_string(), 160)
            )
        })
        .collect();
    if messages.is_empty() {
        Ok(())
    } else {
        Err(RunError::InvalidInputs(messages))
    }
}

impl fmt::Display for StepReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let status = self.status.map_or("-".to_string(), |s| s.to_string());
        let verdict = if self.succeeded { "ok" } else { "failed" };
        write!(f, "{} {status} x{} {verdict}", self.id, self.attempts)
    }
}

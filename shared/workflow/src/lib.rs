//! Workflow documents (Arazzo 1.0.x, Flower 0.1) as MCP tools: read and validate them ([`load`]), and run one
//! workflow ([`run`]) over a [`Transport`] the caller provides (the service's is `shared/fetch`).
//!
//! An engine: no AWS, no HTTP server, no HTTP client. Everything here treats the document, its source
//! descriptions, the tool inputs and the API's answers as hostile: every loop, size and wait is bounded.
//!
//! - [`model`]: the validated form both formats become ([`WorkflowSet`]), serializable, what the runtime runs and
//!   the pages show.
//! - [`load`]: text -> [`WorkflowSet`], or located [`Problem`]s (JSON Schema of the format, used as data, then what
//!   no schema says: sources present and valid OpenAPI, operations found, expressions parse, `goto` targets exist).
//! - [`expr`]: runtime expressions (`$inputs.x`, `$steps.s.outputs.y`, `$response.body#/ptr`, ...) and templates
//!   (`"Bearer {$inputs.token}"`): parse, and evaluate against a run's context.
//! - [`criteria`]: success criteria (simple conditions, regex, JSONPath).
//! - [`run`]: one workflow run, bounded in steps, requests, bytes and time; its secrets kept out of everything it
//!   returns or logs by one [`Redactor`] per run, applied to whole texts before any cut.
//!
//! Origins (of the document's servers at load, of each request at run) are `specpress_fetch::Origin`, the one parser
//! behind every origin check (the `url` crate's), taken without the HTTP client.

pub mod criteria;
pub mod expr;
pub mod load;
pub mod model;
pub mod run;

pub use load::{Problem, Reference, load};
pub use model::*;
pub use run::{
    Budget, Outcome, Redactor, RunError, Secrets, StepReport, Transport, TransportError,
    WireRequest, WireResponse, run,
};

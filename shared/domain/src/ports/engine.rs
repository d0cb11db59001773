//! The spec engine port: validation and diffing of API definitions. The implementation (over `specpress-apispec` and
//! `specpress-diff`) runs the CPU-heavy work off the async executor.

use std::collections::BTreeMap;

use async_trait::async_trait;

use crate::error::Result;
use crate::model::{Analysis, Bundle};

/// A diff between two definitions, in the shapes `GET /versions/{id}` returns.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffSummary {
    /// Plain text (`diff_summary`).
    pub text: String,
    /// Markdown (`diff_markdown`).
    pub markdown: String,
    /// Bump.sh `DiffItem[]` (`diff_details`).
    pub details: serde_json::Value,
    /// Any breaking change (`diff_breaking`).
    pub breaking: bool,
    /// No change at all.
    pub is_empty: bool,
    /// Some change is structural (false when only descriptions, summaries, examples and the like changed).
    pub structural: bool,
    /// What the items do not say about the operations and channels of the two documents, by the name the items
    /// give them (`GET /pets/{id}`, `SEND user/signedup`, a channel's address): what subscription filters match
    /// tags and ids on (issue 38). Only those with tags or ids.
    pub operations: BTreeMap<String, OperationFacts>,
}

/// An operation's (or a channel's) tags and ids in either document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OperationFacts {
    /// Its tags (OpenAPI `tags`).
    pub tags: Vec<String>,
    /// Its ids: an OpenAPI `operationId`, an AsyncAPI operation's id and its channel's id, a channel's id.
    pub ids: Vec<String>,
}

/// Validation and diffing of API definitions.
#[async_trait]
pub trait SpecEngine: Send + Sync {
    /// Parses and fully validates a definition. `Err(DomainError::Invalid{field: "raw_definition", ..})` with every
    /// located message when it is not a valid document.
    async fn check(&self, bundle: &Bundle) -> Result<Analysis>;
    /// Diffs two stored definitions.
    async fn diff(&self, previous: &Bundle, current: &Bundle) -> Result<DiffSummary>;
}

//! The diff engine as the public-diff use cases need it (implemented over `specpress-apispec` + `specpress-diff` in
//! `shared/api-diffs`, off the async executor), and what it answers.

use std::sync::Arc;

use async_trait::async_trait;
use futures_channel::oneshot;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::error::Result;
use crate::model::Bundle;

/// Every rendering of one diff, as the engine produces them and as they are stored (their JSON is the result
/// blob's `definition`). Each is already JSON: the engine serializes them on its rendering threads, and they are
/// stored and served without being parsed or escaped again.
#[derive(Debug, Clone, Serialize)]
pub struct Rendered {
    /// `Modified: GET /x` lines (a JSON string).
    pub text: Box<RawValue>,
    /// Pull-request comment (a JSON string).
    pub markdown: Box<RawValue>,
    /// HTML fragment (a JSON string).
    pub html: Box<RawValue>,
    /// Bump.sh `DiffItem[]` tree.
    pub details: Box<RawValue>,
}

/// What the engine found when comparing two bundles.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// `info.title` of the current definition.
    pub title: String,
    /// Any breaking change.
    pub breaking: bool,
    /// Renderings.
    pub rendered: Rendered,
}

/// The diff engine as the diff use cases need it (implemented over `specpress-apispec` + `specpress-diff`, off the
/// async executor).
#[async_trait]
pub trait DiffEngine: Send + Sync {
    /// Parses both bundles and diffs them. An unparseable bundle is `Invalid` with field `previous_definition` or
    /// `definition` (`previous_url`/`url` when `from_urls`) and the engine's located messages. The bundles are shared,
    /// not copied: the engine runs on other threads while the caller stores them. `parsed` is sent once both bundles
    /// have parsed (and dropped unsent if either does not).
    async fn compare(
        &self,
        previous: Arc<Bundle>,
        current: Arc<Bundle>,
        from_urls: bool,
        parsed: oneshot::Sender<()>,
    ) -> Result<Comparison>;
    /// The document as JSON text (references kept as `$ref`s), for `previous.json`/`current.json`.
    async fn to_json(&self, bundle: &Bundle) -> Result<String>;
}

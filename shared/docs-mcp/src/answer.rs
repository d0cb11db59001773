//! How the tools answer: their bounds, their failures (`specpress_mcp::answer::Fail`: a tool error or a JSON-RPC
//! error) and the text of a document as results carry it. Shared by the tools and what they read.

use std::sync::Arc;

pub use specpress_mcp::answer::{Fail, bad, internal, not_found};
use specpress_reader::{DocView, Loaded, ReadError};
use specpress_render::neutral;

use super::Scope;

/// Pages per `list_pages` answer.
pub const PAGES_PER_LIST: usize = 200;
/// Results of `search`.
pub const MAX_SEARCH_RESULTS: usize = 20;
/// URLs per `get_pages` call.
pub const MAX_PAGES_PER_CALL: usize = 10;
/// Markdown kept per page of `get_pages`, in bytes.
pub const MAX_PAGE_BYTES: usize = 100 * 1024;
/// Markdown of one `get_pages` answer, in bytes.
pub const MAX_PAGES_BYTES: usize = 400 * 1024;
/// Releases per `list_changes` answer.
pub const RELEASES_PER_LIST: u32 = 20;
/// How far back a hub's `list_changes` pages (its releases are merged across documentations).
pub const MAX_HUB_RELEASES: u64 = 200;
/// Changed items per `get_change` / `compare` answer.
pub const MAX_CHANGE_ITEMS: usize = 200;
/// Breaking changes listed by one `get_change` answer.
pub const MAX_BREAKING_CHANGES: usize = 100;
/// Migration notes of one `get_change` answer, in bytes (a change past it is listed without its note).
pub const MAX_MIGRATION_BYTES: usize = 200 * 1024;
/// JSON of one `get_definition` answer, in bytes.
pub const MAX_DEFINITION_BYTES: usize = 100 * 1024;
/// Members listed when a fragment is too large to return.
pub const MAX_OUTLINE: usize = 500;
/// Longest query, subject, pointer or cursor accepted.
pub const MAX_ARG_CHARS: usize = 2_000;

/// A read that gave no answer: what is missing, as a JSON-RPC "resource not found" naming it; a failure, logged,
/// as an internal error.
pub(super) fn failed(e: ReadError) -> Fail {
    match e {
        ReadError::Missing(m) => not_found(m.message()),
        ReadError::Failed(e) => {
            tracing::error!(error = %e, "MCP tool failed");
            internal()
        }
    }
}

/// Document text as results carry it.
pub(super) fn text(s: &str) -> String {
    neutral(s).into_owned()
}

pub(super) async fn loaded(scope: &Scope, view: &DocView) -> Result<Arc<Loaded>, Fail> {
    Ok(scope.library.load_head(view).await.map_err(failed)?.0)
}

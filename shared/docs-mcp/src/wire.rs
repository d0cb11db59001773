//! The tools' arguments and results, with the JSON Schemas the SDK derives from them (`inputSchema`,
//! `outputSchema`): what an agent reads to call a tool and to understand its answer.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use specpress_render::search::HitKind;

// --- Arguments ---------------------------------------------------------------------------------------------------

/// Narrows a hub's call to one documentation.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Narrow {
    /// On a hub's MCP server: the slug of one of its documentations (as results name them). Omit it to cover them
    /// all.
    #[serde(default)]
    pub documentation: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListPagesArgs {
    /// `next_cursor` of the previous answer; omit it for the first page.
    #[serde(default)]
    pub cursor: Option<String>,
    #[serde(flatten)]
    pub narrow: Narrow,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchKind {
    Operation,
    Webhook,
    Channel,
    Message,
    Group,
    Topic,
    Schema,
    Parameter,
    Property,
}

impl SearchKind {
    pub(crate) fn admits(&self, kind: HitKind) -> bool {
        matches!(
            (self, kind),
            (
                SearchKind::Operation,
                HitKind::Operation | HitKind::MessageOperation
            ) | (SearchKind::Webhook, HitKind::Webhook)
                | (SearchKind::Channel, HitKind::Channel)
                | (SearchKind::Message, HitKind::Message)
                | (SearchKind::Group, HitKind::Tag)
                | (SearchKind::Topic, HitKind::Topic)
                | (SearchKind::Schema, HitKind::Schema)
                | (SearchKind::Parameter, HitKind::Parameter)
                | (SearchKind::Property, HitKind::Property)
        )
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words to look for: operation names, paths, schema and property names, descriptions. Typos are tolerated.
    pub query: String,
    /// Only results of this kind.
    #[serde(default)]
    pub kind: Option<SearchKind>,
    #[serde(flatten)]
    pub narrow: Narrow,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetPagesArgs {
    /// Up to 10 page URLs, as `list_pages` or `search` give them (absolute, or a path such as
    /// `/doc/x/operation/get-pets`; the `.md` form is accepted too).
    pub urls: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListChangesArgs {
    /// `next_cursor` of the previous answer; omit it for the newest releases.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Only the releases published after this one: a release's version id (`id` of an earlier answer) or an
    /// RFC 3339 time (`2026-12-01T00:00:00Z`). An agent that polls passes the newest id it has seen.
    #[serde(default)]
    pub since: Option<String>,
    #[serde(flatten)]
    pub narrow: Narrow,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetChangeArgs {
    /// A release's version id (`id` in `list_changes`).
    pub id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct HistoryArgs {
    /// An operation as `METHOD /path` (for example `GET /repos/{owner}/{repo}`), a webhook, channel or schema name
    /// (for example `Pet`), as the documentation names it.
    pub operation: String,
    /// `next_cursor` of the previous answer, to read older releases.
    #[serde(default)]
    pub cursor: Option<String>,
    #[serde(flatten)]
    pub narrow: Narrow,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CompareArgs {
    /// The older version id.
    pub from: String,
    /// The newer version id (any branch of the same documentation).
    pub to: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DefinitionArgs {
    /// A JSON pointer into the definition (RFC 6901, for example `/paths/~1pets/get` or
    /// `/components/schemas/Pet`); omit it for the whole definition. Too large a fragment answers with its members
    /// and their sizes instead, to ask for a smaller one.
    #[serde(default)]
    pub pointer: Option<String>,
    #[serde(flatten)]
    pub narrow: Narrow,
}

// --- Results -----------------------------------------------------------------------------------------------------

#[derive(Debug, Serialize, JsonSchema)]
pub struct PageEntry {
    pub title: String,
    /// `home`, `topic`, `group`, `operation`, `webhook`, `callback`, `schemas`, `schema`, `channel`,
    /// `message_operation`.
    pub kind: &'static str,
    /// The page (HTML).
    pub url: String,
    /// The same page as Markdown (what `get_pages` returns).
    pub markdown_url: String,
    /// The documentation's slug (on a hub).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documentation: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PageList {
    pub pages: Vec<PageEntry>,
    /// Pages in all.
    pub total: usize,
    /// Pass it as `cursor` for the next pages; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchHitOut {
    pub title: String,
    pub kind: String,
    /// Where it was found (an operation's path, a property's schema...).
    pub context: String,
    pub url: String,
    pub markdown_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documentation: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchResults {
    pub query: String,
    /// Matches in all (at most 20 are returned, best first); with `kind`, the matches of that kind among the best
    /// 200 candidates.
    pub total: usize,
    /// No result has every word: these have some of them.
    pub partial: bool,
    pub results: Vec<SearchHitOut>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PageText {
    /// The URL as asked.
    pub url: String,
    /// The page as Markdown (document text, escaped for Markdown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    /// The Markdown was cut at the size limit (100 KB per page).
    pub truncated: bool,
    /// Why there is no Markdown for this URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Pages {
    pub pages: Vec<PageText>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReleaseEntry {
    /// The version id (for `get_change` and `compare`).
    pub id: String,
    /// The API's `info.version`.
    pub version: String,
    /// Publication time (RFC 3339).
    pub date: String,
    pub branch: String,
    /// `first` (nothing to compare with), `unchanged`, `content_only` (texts only), `changes`, `unavailable`;
    /// `pending` when its changes were not read in time (ask `get_change`).
    pub kind: String,
    pub breaking: bool,
    /// One line per changed element, breaking ones first (at most 8, then a count).
    pub summary: Vec<String>,
    /// The release's change page.
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documentation: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReleaseList {
    /// Newest first.
    pub releases: Vec<ReleaseEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ChangedItem {
    /// As the documentation names it: `GET /pets`, `Pet`...
    pub name: String,
    /// `endpoint`, `webhook`, `schema`, `channel`...
    #[serde(rename = "type")]
    pub kind: String,
    /// `added`, `removed` or `modified`.
    pub status: String,
    pub breaking: bool,
    /// What breaks existing clients.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub breaks: Vec<String>,
    /// The other changes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// For a shared schema: the operations that use it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub affected: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct VersionRef {
    pub id: String,
    pub version: String,
    pub date: String,
    pub branch: String,
}

/// Why a change was accepted by the documentation's producer (it keeps its level: it is still breaking for
/// clients; it only no longer fails the producer's CI).
#[derive(Debug, Serialize, JsonSchema)]
pub struct AcceptedNote {
    pub reason: String,
    /// RFC 3339; absent when it does not expire.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

/// One breaking change of a release, with what a client must do.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BreakingChange {
    /// The change's stable id (the same across re-diffs).
    pub id: String,
    /// The changed element it belongs to (`GET /pets`, `Pet`...).
    pub item: String,
    pub message: String,
    /// How to migrate: Markdown saying what an existing client must do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub migration: Option<String>,
    /// Present when the producer accepted the change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accepted: Option<AcceptedNote>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ChangeDetail {
    pub release: VersionRef,
    /// The version it is compared with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_id: Option<String>,
    /// `first`, `unavailable`, `unchanged`, `content_only` or `changes`.
    pub kind: String,
    pub breaking: bool,
    /// Breaking first.
    pub changes: Vec<ChangedItem>,
    /// Changed elements left out of this answer (see the change page).
    pub omitted: usize,
    /// Every breaking change, with its migration note and, when accepted, why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub breaking_changes: Vec<BreakingChange>,
    /// Breaking changes left out of this answer (see the change page).
    #[serde(skip_serializing_if = "is_zero")]
    pub breaking_changes_omitted: usize,
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documentation: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct HistoryEntry {
    pub release: VersionRef,
    /// `added`, `removed` or `modified`.
    pub status: String,
    pub breaking: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub breaks: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The release's change page.
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documentation: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct History {
    pub subject: String,
    /// Releases that added, changed or removed it, newest first.
    pub entries: Vec<HistoryEntry>,
    /// When every release was read: for a subject in the current definition that no release added, the first
    /// release, where it was already present; for a removed subject, the release it was present since (the one
    /// that added it, or the first release).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub present_since: Option<VersionRef>,
    /// Releases read.
    pub releases_read: u64,
    /// Older releases remain: pass it as `cursor`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Comparison {
    pub from: VersionRef,
    pub to: VersionRef,
    /// `unchanged`, `content_only` or `changes`.
    pub kind: String,
    pub breaking: bool,
    pub changes: Vec<ChangedItem>,
    pub omitted: usize,
    /// The comparison page.
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documentation: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Member {
    /// The member's JSON pointer.
    pub pointer: String,
    /// `object`, `array`, `string`, `number`, `boolean` or `null`.
    pub kind: &'static str,
    /// Size of its JSON, in bytes.
    pub bytes: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Definition {
    pub pointer: String,
    /// Size of the fragment's JSON, in bytes.
    pub bytes: usize,
    /// The fragment (references kept as `$ref`), when it fits 100 KB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
    /// When it does not fit: its members, to ask for one of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<Member>>,
    /// How many members the fragment has (`members` lists the first 500): ask for a deeper pointer, or search, for
    /// the others.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub members_total: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documentation: Option<String>,
}

//! What changed: a documentation's changelog (per branch, paginated in the store), one release's change page and its
//! `.json` variant (the `DiffItem[]` details that `diff_public_url` and webhook `details_url` point at), the compare
//! page between any two versions, the changelog feeds (Atom, RSS), and public diffs (`/diff/{id}`).
//!
//! A release is compared with the version it was deployed after (`previous_version_id`, as `GET /versions/{id}` and
//! webhook payloads do). The diff runs on the parsed documents the reference pages cache ([`crate::cache`]) and its
//! result is kept by the pair of stored definitions it compares ([`DiffCache`]): definitions never change, so an
//! entry never goes stale, and a changelog page viewed again costs no diff. Diffs are bounded by the diff engine's
//! own walk budget and the stored-document parse limits, and run on the CPU gate.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Redirect, Response};
use quick_cache::Weighter;
use quick_cache::sync::Cache;
use sha2::{Digest, Sha256};
use specpress_api::ApiError;
use specpress_api::cpu::CpuGate;
use specpress_domain::DomainError;
use specpress_domain::model::{Documentation, Slug, Version};
use specpress_domain::usecases::diffs;
use specpress_domain::usecases::public::{self, PublicDoc, Reader};

use crate::access::Viewer;
use specpress_render::changes::{
    self as render, ChangePage, Changelog, Changes, ComparePage, DiffPage, Pager, Release,
    ReleaseChanges, VersionOption, VersionRef,
};
use specpress_render::feed::{self, Feed, FeedEntry};
use tracing::instrument;

use crate::DocsState;
use crate::cache::Loaded;
use crate::pages::load_blob;
use crate::view::{
    Answer, Chrome, DocView, etag_of, html_page, not_found, not_modified, page_error,
    rfc3339_seconds,
};

mod changelog;
mod compare;
mod hub;
mod release;

pub(crate) use changelog::{Format, feed_entry, feed_response};
pub use changelog::{branch_changelog, changelog};
pub use compare::compare;
pub(crate) use hub::{HubReleases, hub_feed, hub_releases};
pub use release::{change, diff};

/// Releases on one changelog page.
pub const PER_PAGE: u32 = 10;
/// Releases in a feed.
pub const FEED_ENTRIES: u32 = 20;
/// Highest changelog page number accepted.
const MAX_PAGE: u64 = 1_000_000;
/// Branches and versions per branch offered by the compare form.
const COMPARE_BRANCHES: usize = 12;
const COMPARE_VERSIONS: u32 = 30;
/// Longest query string read.
const MAX_QUERY: usize = 2048;
/// Budget of the diff cache, in bytes (estimated: four times the details' JSON).
pub const DEFAULT_DIFF_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// The diff of two stored definitions, as the pages use it.
pub struct DiffOutcome {
    /// The `DiffItem[]` JSON (the `.json` variant).
    pub details: String,
    /// The same, read for the pages.
    pub changes: Changes,
    /// No change at all.
    pub empty: bool,
    /// Some change is structural.
    pub structural: bool,
}

#[derive(Clone)]
struct ByWeight;

impl Weighter<String, Arc<DiffOutcome>> for ByWeight {
    fn weight(&self, _: &String, v: &Arc<DiffOutcome>) -> u64 {
        // The JSON text, and the parsed tree (about three times its text).
        (v.details.len() as u64 * 4).max(64)
    }
}

/// Diffs by the pair of definitions they compare (`{previous sha256}:{current sha256}`), bounded by an estimate of
/// their memory. Concurrent requests for the same pair wait for one computation.
pub struct DiffCache {
    cache: Cache<String, Arc<DiffOutcome>, ByWeight>,
}

impl DiffCache {
    /// A cache of about `budget` bytes.
    pub fn new(budget: u64) -> Self {
        let cache = crate::cache::weighted(256, budget, ByWeight);
        DiffCache { cache }
    }
}

/// The diff between two versions (from the cache when it is there).
async fn outcome(
    st: &DocsState,
    previous: &Version,
    current: &Version,
) -> Result<Arc<DiffOutcome>, DomainError> {
    let key = format!("{}:{}", previous.blob.sha256, current.blob.sha256);
    st.diffs
        .cache
        .get_or_insert_async(&key, async {
            let before = load_blob(st, &previous.blob).await?;
            let after = load_blob(st, &current.blob).await?;
            CpuGate::shared()
                .run(move || compute(&before, &after))
                .await?
        })
        .await
}

fn compute(before: &Loaded, after: &Loaded) -> Result<Arc<DiffOutcome>, DomainError> {
    let report = specpress_diff::diff(
        &before.doc,
        &after.doc,
        &specpress_diff::DiffOptions::default(),
    );
    let value = report.details();
    let details = serde_json::to_string(&value).map_err(DomainError::unexpected)?;
    let changes = Changes::from_value(value).map_err(DomainError::unexpected)?;
    Ok(Arc::new(DiffOutcome {
        details,
        changes,
        empty: report.is_empty(),
        structural: report.structural(),
    }))
}

/// What a release shows, owned (the diff is shared with the cache).
#[derive(Clone)]
pub(crate) enum Shown {
    First,
    Unavailable,
    Diff(Arc<DiffOutcome>),
}

impl Shown {
    fn as_release(&self) -> ReleaseChanges<'_> {
        match self {
            Shown::First => ReleaseChanges::First,
            Shown::Unavailable => ReleaseChanges::Unavailable,
            Shown::Diff(o) if o.empty => ReleaseChanges::Unchanged,
            Shown::Diff(o) if !o.structural => ReleaseChanges::ContentOnly(&o.changes),
            Shown::Diff(o) => ReleaseChanges::Changes(&o.changes),
        }
    }
}

/// A version's changes against the version it followed.
async fn release_state(st: &DocsState, v: &Version) -> Result<Shown, DomainError> {
    if v.previous_version_id.is_none() {
        return Ok(Shown::First);
    }
    match public::previous_version(st.app.store.as_ref(), v, st.app.now()).await? {
        Some(prev) => Ok(Shown::Diff(outcome(st, &prev, v).await?)),
        None => Ok(Shown::Unavailable),
    }
}

/// Finds the documentation of a public URL; the id form is answered with a redirect to the slug form (path and query
/// kept).
pub(crate) async fn open_doc(
    st: &DocsState,
    reader: &Reader,
    key: &str,
    uri: &Uri,
) -> Result<PublicDoc, Response> {
    match public::find_doc(st.app.store.as_ref(), reader, key).await {
        Ok(doc) if !doc.by_id => Ok(doc),
        Ok(doc) => {
            let prefix = format!("/doc/{key}");
            let rest = uri.path().strip_prefix(&prefix).unwrap_or("");
            let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
            Err(
                Redirect::permanent(&format!("/doc/{}{rest}{query}", doc.slug, rest = rest))
                    .into_response(),
            )
        }
        Err(e) => Err(page_error(st, e)),
    }
}

/// The query's values by name (bounded).
fn query_value(uri: &Uri, name: &str) -> Option<String> {
    let q = uri.query()?;
    if q.len() > MAX_QUERY {
        return None;
    }
    url::form_urlencoded::parse(q.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// The reference page of an operation at the head of the branch shown, when it has one.
fn linker<'a>(
    head: Option<&'a Loaded>,
    base: &'a str,
) -> impl Fn(&str, &str, &str) -> Option<String> + 'a {
    move |kind, verb, path| {
        let loaded = head?;
        if !matches!(kind, "endpoint" | "webhook") {
            return None;
        }
        let page = loaded.site.operation_page(&loaded.doc, verb, path)?;
        Some(format!("{base}/{}", loaded.site.info(page).path))
    }
}

/// The chrome of a page about `view`, with the changelog link marked current when it is one.
fn doc_chrome(st: &DocsState, view: &DocView, head: Option<&Version>, changelog: bool) -> Chrome {
    let mut chrome = view.chrome(st, head);
    for (label, _, current) in &mut chrome.links {
        *current = changelog && label == "Changelog";
    }
    chrome
}

/// The view a version's pages show it in: its own branch when that has published versions, else the default one;
/// `None` when the documentation has nothing published (a temporary version of a new documentation).
async fn view_of(st: &DocsState, doc: &PublicDoc, v: &Version) -> Option<DocView> {
    if v.branch != doc.default_branch
        && let Ok(view) = DocView::open(st, doc.clone(), Some(v.branch.clone())).await
    {
        return Some(view);
    }
    DocView::open(st, doc.clone(), None).await.ok()
}

/// A chrome without a published documentation behind it.
fn bare_chrome(st: &DocsState, doc: &Documentation) -> Chrome {
    Chrome {
        base: format!("/doc/{}", doc.slug),
        doc_name: doc.name.clone(),
        branches: Vec::new(),
        version: None,
        assets: st.assets.clone(),
        links: Vec::new(),
        search_action: None,
        alternates: Vec::new(),
        noindex: true,
        signed_in: crate::access::signed_in(),
    }
}

fn branch_name(view: Option<&DocView>, slug: &Slug) -> String {
    view.and_then(|w| w.branches.iter().find(|b| b.name.slug() == slug))
        .map_or_else(|| slug.to_string(), |b| b.name.name().to_owned())
}

/// The origin of absolute URLs (feeds): the configured public base, else the request's host.
pub(crate) fn origin_of(st: &DocsState, parts: &Parts) -> String {
    specpress_api::urls::public_base(&st.app.config, &parts.headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_read_decoded_and_bounded() {
        let uri: Uri = "/x?from=a%20b&to=&page=2".parse().unwrap();
        assert_eq!(query_value(&uri, "from").as_deref(), Some("a b"));
        assert_eq!(query_value(&uri, "to"), None);
        assert_eq!(query_value(&uri, "page").as_deref(), Some("2"));
        let long: Uri = format!("/x?from={}", "a".repeat(3000)).parse().unwrap();
        assert_eq!(query_value(&long, "from"), None);
    }
}

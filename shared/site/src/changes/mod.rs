//! What changed: a documentation's changelog (per branch, paginated in the store), one release's change page and its
//! `.json` variant (the `DiffItem[]` details that `diff_public_url` and webhook `details_url` point at), the compare
//! page between any two versions, the changelog feeds (Atom, RSS), and public diffs (`/diff/{id}`).
//!
//! A release is compared with the version it was deployed after (`previous_version_id`, as `GET /versions/{id}` and
//! webhook payloads do). The diff runs on the parsed documents the reference pages cache (`specpress_reader::SiteCache`) and its
//! result is kept by the pair of stored definitions it compares (`specpress_reader::DiffCache`): definitions never change, so an
//! entry never goes stale, and a changelog page viewed again costs no diff. Diffs are bounded by the diff engine's
//! own walk budget and the stored-document parse limits, and run on the CPU gate.

use specpress_domain::urls;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use axum::routing::get;
use specpress_api::ApiConfig;
use specpress_api::readers::Viewer;
use specpress_domain::DomainError;
use specpress_domain::model::{Documentation, Slug, Version};
use specpress_domain::usecases::diffs;
use specpress_domain::usecases::public::{PublicDoc, Reader};
use specpress_engines::cpu::CpuGate;
use specpress_reader::{
    BranchInUrl, DocView, Library, Loaded, Missing, ReadError, Shown, branch_in_url,
};
use specpress_render::changes::{
    self as render, ChangePage, Changelog, Changes, ComparePage, DiffPage, Pager, Release,
    ReleaseChanges, VersionOption, VersionRef,
};
use specpress_render::feed::{self, Feed, FeedEntry};
use time::OffsetDateTime;
use tracing::instrument;

use crate::SiteState;
use crate::chrome::Chrome;
use crate::error::{Page, PageError};
use crate::respond::{
    Validator, html_no_store, html_page, moved_temporarily, not_modified, origin_of, revalidated,
    rfc3339_seconds, to_slug_form, types,
};

mod changelog;
mod compare;
mod hub;
mod release;
mod visit;

use changelog::{Format, feed_entry, feed_response};
pub use changelog::{branch_changelog, changelog};
pub use compare::compare;
pub(crate) use hub::{HubReleases, hub_feed};
pub use release::{change, diff};
pub use visit::compare_json;

/// The routes of changelogs, change pages, compare pages and public diffs.
pub fn routes() -> Router<SiteState> {
    Router::new()
        .route("/doc/{doc}/changes", get(changelog))
        .route("/doc/{doc}/changes.atom", get(changelog))
        .route("/doc/{doc}/changes.rss", get(changelog))
        .route("/doc/{doc}/changes/{version}", get(change))
        .route("/doc/{doc}/compare", get(compare))
        .route("/doc/{doc}/compare.json", get(compare_json))
        .route(
            "/doc/{doc}/branches/{branch}/changes",
            get(branch_changelog),
        )
        .route(
            "/doc/{doc}/branches/{branch}/changes.atom",
            get(branch_changelog),
        )
        .route(
            "/doc/{doc}/branches/{branch}/changes.rss",
            get(branch_changelog),
        )
        .route("/diff/{id}", get(diff))
}

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

/// What the change pages read: the reader layer, and the HTTP settings (the public origin feeds are written on).
#[derive(Clone, Copy)]
struct Site<'a> {
    library: &'a Library,
    config: &'a ApiConfig,
}

impl<'a> Site<'a> {
    fn new(library: &'a Library, config: &'a ApiConfig) -> Self {
        Site { library, config }
    }
}

/// Finds the documentation of a public URL; the id form is answered with a redirect to the slug form (path and query
/// kept).
pub(crate) async fn open_doc(
    library: &Library,
    reader: &Reader,
    key: &str,
    uri: &Uri,
) -> Result<PublicDoc, PageError> {
    let doc = library.find_doc(reader, key).await?;
    if doc.by_id {
        return Err(PageError::answered(to_slug_form(
            doc.slug.as_str(),
            uri,
            key,
        )));
    }
    Ok(doc)
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
fn doc_chrome(view: &DocView, head: Option<&Version>, changelog: bool) -> Chrome {
    let mut chrome = Chrome::of_view(view, head);
    for (label, _, current) in &mut chrome.links {
        *current = changelog && label == "Changelog";
    }
    chrome
}

/// A chrome without a published documentation behind it.
fn bare_chrome(doc: &Documentation) -> Chrome {
    Chrome::bare(urls::doc_path(&doc.slug), doc.name.clone())
}

fn branch_name(view: Option<&DocView>, slug: &Slug) -> String {
    view.map_or_else(|| slug.to_string(), |w| w.branch_name(slug))
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

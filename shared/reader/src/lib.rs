//! The reader layer: one place that answers every reader of a documentation, below HTTP.
//!
//! A browser, a feed reader, an AI agent reading `.md` and `llms.txt`, an MCP client: each asks which documentation,
//! which branch, which version, may this reader see it, what does it say, what changed. [`Library`] answers those
//! questions once, and every output (HTML pages, Markdown, machine files, feeds, JSON twins, MCP tools) is a thin
//! presenter over it:
//!
//! - [`Library::find_doc`], [`Library::find_hub`]: a documentation (slug or id) or a hub for a reader. A private
//!   one answers a reader who may not see it exactly as an unknown one does, with the same work done
//!   (`usecases::public`).
//! - [`Library::open`]: the documentation on a branch ([`DocView`]: its published branches, the head shown).
//! - [`Library::load_head`], [`Library::load_blob`]: the parsed document and its page index, through the site cache
//!   ([`SiteCache`]; a stored definition never changes, so entries never go stale).
//! - [`Library::indexed`]: the search index of a head ([`SearchCache`]).
//! - [`Library::release_state`], [`Library::diff`]: what changed, through the diff cache ([`DiffCache`]).
//! - [`Library::doc_view`]: the documentation a URL names, on the branch it names (the MCP servers and "Try it").
//! - [`search`]: a query read once, and the one merge of several documentations' results.
//! - [`markdown`]: a reference page as Markdown; [`origins`]: the origins of a definition's servers.
//!
//! Failures are [`ReadError`]s: [`Missing`] (worded once, for every presenter) or a failure for the log.
//! Nothing here knows HTTP; presenters live in `shared/site` (the pages), `shared/docs-mcp` (the MCP servers for
//! agents) and `shared/try-it` (the proxy).

pub mod cache;
pub mod diffs;
pub mod error;
pub mod history;
pub mod markdown;
pub mod origins;
pub mod search;
pub mod view;

use std::sync::Arc;

use specpress_domain::accepted::AcceptedChanges;
use specpress_domain::model::{BlobRef, DocId, Documentation, Hub, Slug, Version, VersionId};
use specpress_domain::ports::Store;
use specpress_domain::usecases::hubs::HubApi;
use specpress_domain::usecases::public::{self, PublicDoc, Reader};
use specpress_engines::cpu::CpuGate;
use specpress_render::SearchIndex;
use time::OffsetDateTime;

pub use cache::{Loaded, SiteCache};
pub use diffs::{DiffCache, DiffOutcome, Shown};
pub use error::{Missing, Read, ReadError};
pub use search::SearchCache;
pub use view::{BranchInUrl, DocView, branch_in_url};

/// The memory budgets of the caches, in bytes (estimated). The defaults are the configuration's
/// (`SPECPRESS_PAGE_CACHE_BYTES`, `SPECPRESS_SEARCH_CACHE_BYTES`, defined once in `specpress_config`).
#[derive(Debug, Clone, Copy)]
pub struct Budgets {
    /// Parsed documents and their page indexes.
    pub sites: u64,
    /// Search indexes.
    pub search: u64,
    /// Diffs between two definitions.
    pub diffs: u64,
}

impl Budgets {
    /// The budgets a process was configured with.
    pub fn from_config(config: &specpress_config::Config) -> Self {
        Budgets {
            sites: config.docs.page_cache_bytes,
            search: config.docs.search_cache_bytes,
            diffs: diffs::DEFAULT_DIFF_CACHE_BYTES,
        }
    }
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            sites: specpress_config::DEFAULT_PAGE_CACHE_BYTES,
            search: specpress_config::DEFAULT_SEARCH_CACHE_BYTES,
            diffs: diffs::DEFAULT_DIFF_CACHE_BYTES,
        }
    }
}

/// Release ids remembered as having a stored digest (16 bytes each: 1.6 MB at most).
const DIGESTED_REMEMBERED: usize = 100_000;

/// The published documentation as its readers see it.
pub struct Library {
    store: Arc<dyn Store>,
    sites: SiteCache,
    search: SearchCache,
    diffs: DiffCache,
    /// Releases whose digest this process knows to be stored (see [`history`]).
    digested: quick_cache::sync::Cache<VersionId, ()>,
    /// The history indexes of branch heads (see [`history::BranchHistory`]).
    histories: quick_cache::sync::Cache<VersionId, Arc<history::BranchHistory>, history::ByWeight>,
}

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library")
            .field("sites", &self.sites)
            .field("search", &self.search)
            .finish_non_exhaustive()
    }
}

/// The current time (one place).
fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

/// A time as RFC 3339, to the second: how every output shows a publication time.
pub fn rfc3339_seconds(t: OffsetDateTime) -> String {
    t.replace_nanosecond(0)
        .unwrap_or(t)
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

impl Library {
    /// A library over `store`, its caches bounded by `budgets`.
    pub fn new(store: Arc<dyn Store>, budgets: Budgets) -> Self {
        Library {
            store,
            sites: SiteCache::new(budgets.sites),
            search: SearchCache::new(budgets.search),
            diffs: DiffCache::new(budgets.diffs),
            digested: quick_cache::sync::Cache::new(DIGESTED_REMEMBERED),
            histories: cache::weighted(256, history::HISTORY_CACHE_BYTES, history::ByWeight),
        }
    }

    /// A library over `store` with the cache budgets of a process's configuration.
    pub fn from_config(store: Arc<dyn Store>, config: &specpress_config::Config) -> Self {
        Library::new(store, Budgets::from_config(config))
    }

    /// The storage ports (for the few reads that are one call: a preview, a stored diff).
    pub fn store(&self) -> &dyn Store {
        self.store.as_ref()
    }

    /// The parsed-document cache (its usage, for benchmarks and tests).
    pub fn site_cache(&self) -> &SiteCache {
        &self.sites
    }

    /// The search index cache (its usage, for benchmarks and tests).
    pub fn search_cache(&self) -> &SearchCache {
        &self.search
    }

    /// A documentation by slug or id, for `reader`; `PublicDoc::by_id` tells the presenter to redirect to the slug
    /// form. `Missing::Documentation` when there is none or the reader may not see it (the same answer and work).
    pub async fn find_doc(&self, reader: &Reader, key: &str) -> Read<PublicDoc> {
        public::find_doc(self.store(), reader, key)
            .await
            .map_err(|e| ReadError::or_missing(e, Missing::Documentation))
    }

    /// A hub by slug, for `reader` (`Missing::Hub` as for an unknown one when the reader may not see it).
    pub async fn find_hub(&self, reader: &Reader, key: &str) -> Read<Hub> {
        public::find_hub(self.store(), reader, key)
            .await
            .map_err(|e| ReadError::or_missing(e, Missing::Hub))
    }

    /// `doc` on `branch` (`None`: its default branch): `Missing::Branch` / `Missing::NothingPublished` when that
    /// branch has nothing published.
    pub async fn open(&self, doc: PublicDoc, branch: Option<Slug>) -> Read<DocView> {
        let branches = self.store.list_branches(doc.id).await?;
        DocView::new(doc, branches, branch)
    }

    /// The documentation `key` names (slug or id: no redirect to the slug form here) on the branch a URL segment
    /// names (`None`: its default branch), for `reader`; `Missing` as for an unknown one when the reader may not see
    /// it.
    pub async fn doc_view(
        &self,
        reader: &Reader,
        key: &str,
        branch: Option<&str>,
    ) -> Read<DocView> {
        let doc = self.find_doc(reader, key).await?;
        let branch = match branch {
            None => None,
            Some(segment) => match branch_in_url(&doc, segment)? {
                BranchInUrl::Default => None,
                BranchInUrl::Named(slug) => Some(slug),
            },
        };
        self.open(doc, branch).await
    }

    /// A published version and its parsed definition (from the cache when it is there).
    pub async fn load_version(&self, id: VersionId) -> Read<(Arc<Loaded>, Version)> {
        let version = self
            .store
            .get_version(id, now())
            .await?
            .ok_or(Missing::Version)?;
        let loaded = self.load_blob(&version.blob).await?;
        Ok((loaded, version))
    }

    /// The head version of the branch `view` shows, as stored (not parsed).
    pub async fn head_version(&self, view: &DocView) -> Read<Version> {
        Ok(self
            .store
            .get_version(view.head(), now())
            .await?
            .ok_or(Missing::Version)?)
    }

    /// The head version of the branch `view` shows, parsed.
    pub async fn load_head(&self, view: &DocView) -> Read<(Arc<Loaded>, Version)> {
        self.load_version(view.head()).await
    }

    /// A stored definition, parsed (from the cache when it is there; concurrent loads of one wait for one).
    pub async fn load_blob(&self, blob: &BlobRef) -> Read<Arc<Loaded>> {
        let store = self.store.clone();
        let wanted = blob.clone();
        Ok(self
            .sites
            .get_or_load(blob, || async move {
                let bundle = store.get_bundle(&wanted).await?.ok_or_else(|| {
                    specpress_domain::DomainError::unexpected("stored definition missing")
                })?;
                CpuGate::shared().run(move || cache::load(&bundle)).await?
            })
            .await?)
    }

    /// The head of `view`, parsed, with its search index.
    pub async fn indexed(&self, view: &DocView) -> Read<(Arc<Loaded>, Arc<SearchIndex>, Version)> {
        self.indexed_version(view.head()).await
    }

    /// A published version (a branch's head or any earlier release), parsed, with its search index.
    pub async fn indexed_version(
        &self,
        id: VersionId,
    ) -> Read<(Arc<Loaded>, Arc<SearchIndex>, Version)> {
        let (loaded, version) = self.load_version(id).await?;
        let index = self
            .search
            .get_or_build(&version.blob, loaded.clone())
            .await?;
        Ok((loaded, index, version))
    }

    /// The diff between two versions (from the cache when it is there).
    pub async fn diff(&self, previous: &Version, current: &Version) -> Read<Arc<DiffOutcome>> {
        let key = format!("{}:{}", previous.blob.sha256, current.blob.sha256);
        let outcome = self
            .diffs
            .cache
            .get_or_insert_async(&key, async {
                let before = self
                    .load_blob(&previous.blob)
                    .await
                    .map_err(specpress_domain::DomainError::from)?;
                let after = self
                    .load_blob(&current.blob)
                    .await
                    .map_err(specpress_domain::DomainError::from)?;
                CpuGate::shared()
                    .run(move || diffs::compute(&before, &after))
                    .await?
            })
            .await?;
        Ok(outcome)
    }

    /// A documentation's accepted changes (one read): what the change pages, feeds and tools mark as accepted.
    pub async fn accepted(&self, doc: &Documentation) -> Read<AcceptedChanges> {
        Ok(self.store().get_accepted(doc.id).await?)
    }

    /// A version's changes against the version it followed, with its documentation's accepted changes marked
    /// (`accepted` given: read once per answer with [`Library::accepted`]).
    pub async fn release_state_accepting(
        &self,
        v: &Version,
        accepted: &AcceptedChanges,
    ) -> Read<Shown> {
        let shown = self.release_state(v).await?;
        Ok(shown.accepting(accepted, now())?)
    }

    /// A version's changes against the version it followed. The first time a process shows a published release, its
    /// digest is stored for the histories ([`history`]).
    pub async fn release_state(&self, v: &Version) -> Read<Shown> {
        let shown = if v.previous_version_id.is_none() {
            Shown::First
        } else {
            match public::previous_version(self.store(), v, now()).await? {
                Some(prev) => Shown::Diff(self.diff(&prev, v).await?),
                None => Shown::Unavailable,
            }
        };
        self.keep_digest(v, &shown).await?;
        Ok(shown)
    }

    /// A version of a documentation, published or temporary (until it expires): what its change page shows.
    pub async fn doc_version(&self, doc: &Documentation, version: &str) -> Read<Version> {
        public::doc_version(self.store(), doc, version, now())
            .await
            .map_err(|e| ReadError::or_missing(e, Missing::Version))
    }

    /// One page of a branch's published versions, newest first (one range read whatever the history's length).
    pub async fn releases(
        &self,
        doc: &Documentation,
        branch: &specpress_domain::model::Branch,
        skip: u64,
        limit: u32,
    ) -> Read<Vec<Version>> {
        Ok(public::releases(self.store(), doc, branch, skip, limit).await?)
    }

    /// The view a version's pages show it in: its own branch when that has published versions, else the default
    /// one; `None` when the documentation has nothing published (a temporary version of a new documentation).
    pub async fn view_of(&self, doc: &PublicDoc, v: &Version) -> Option<DocView> {
        if v.branch != doc.default_branch
            && let Ok(view) = self.open(doc.clone(), Some(v.branch.clone())).await
        {
            return Some(view);
        }
        self.open(doc.clone(), None).await.ok()
    }

    /// The documentations of a hub that `reader` may see and that have something published, opened on their
    /// default branch, by slug; at most `max`.
    pub async fn hub_views(&self, reader: &Reader, hub: &Hub, max: usize) -> Read<Vec<DocView>> {
        let docs = public::hub_docs(self.store(), reader, hub).await?;
        let mut views = Vec::new();
        for doc in docs.into_iter().take(max) {
            match self.open(doc, None).await {
                Ok(v) => views.push(v),
                // A documentation with nothing published has nothing to show.
                Err(ReadError::Missing(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(views)
    }

    /// The documentations a hub's page lists for `reader`, with the head of their default branch, by slug.
    pub async fn hub_apis(&self, reader: &Reader, hub: &Hub) -> Read<Vec<HubApi>> {
        Ok(public::hub_apis(self.store(), reader, hub, now()).await?)
    }

    /// The releases of a hub's APIs, newest first: the `limit` newest across its documentations' default branches,
    /// each documentation's accepted changes marked.
    /// Only the documentations whose latest release is among the `limit` newest can contribute (any other has at
    /// least `limit` newer releases elsewhere), so at most `limit` histories are read, each for at most `limit`
    /// versions.
    pub async fn hub_releases(
        &self,
        apis: &[HubApi],
        limit: u32,
    ) -> Read<Vec<(Documentation, Version, Shown)>> {
        let store = self.store();
        let mut recent: Vec<&HubApi> = apis.iter().filter(|a| a.head.is_some()).collect();
        recent.sort_by_key(|a| std::cmp::Reverse(a.head.as_ref().map(|h| h.created_at)));
        recent.truncate(limit as usize);
        let mut all: Vec<(Documentation, Version)> = Vec::new();
        for api in recent {
            let Some(branch) = public::doc_branch(store, &api.doc, &api.doc.default_branch).await?
            else {
                continue;
            };
            for v in public::releases(store, &api.doc, &branch, 0, limit).await? {
                all.push((api.doc.clone(), v));
            }
        }
        all.sort_by_key(|(_, v)| std::cmp::Reverse((v.created_at, v.id.0)));
        all.truncate(limit as usize);
        // Each documentation's accepted changes, read once, marked on its releases as on its own changelog.
        let mut accepted: Vec<(DocId, AcceptedChanges)> = Vec::new();
        let mut out = Vec::with_capacity(all.len());
        for (doc, v) in all {
            let state = self.release_state(&v).await?;
            let set = match accepted.iter().position(|(id, _)| *id == doc.id) {
                Some(i) => &accepted[i].1,
                None => {
                    accepted.push((doc.id, store.get_accepted(doc.id).await?));
                    &accepted[accepted.len() - 1].1
                }
            };
            let state = state.accepting(set, now())?;
            out.push((doc, v, state));
        }
        Ok(out)
    }
}

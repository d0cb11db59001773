//! What each release changed, read from stored digests ([`specpress_domain::digest`]): the histories of an operation
//! or a schema and the breaking flags of a list of releases cost one batch read per hundred releases, never a diff
//! per release per request. A release without a stored digest (published before digests existed, or never shown)
//! is diffed once, within a time budget per request, and its digest stored for every later reader.

use std::time::{Duration, Instant};

use specpress_domain::digest::{DigestItem, ReleaseDigest, ReleaseKind};
use specpress_domain::model::{Version, VersionId};

use crate::diffs::Shown;
use crate::{Library, Read};

/// Releases read per batch of a history walk.
pub const HISTORY_BATCH: u32 = 100;
/// Releases a history walk reads per request at most (then it hands out a cursor).
pub const HISTORY_SCAN: u64 = 500;
/// Time a request may spend diffing releases that have no digest yet (at least one is always diffed).
pub const BACKFILL_BUDGET: Duration = Duration::from_secs(3);

/// The digest of a release as shown (`Shown` is what the diff cache holds).
pub fn digest_of(shown: &Shown) -> ReleaseDigest {
    match shown {
        Shown::First => ReleaseDigest::without_diff(ReleaseKind::First),
        Shown::Unavailable => ReleaseDigest::without_diff(ReleaseKind::Unavailable),
        Shown::Diff(o) => match serde_json::from_str::<serde_json::Value>(&o.details) {
            Ok(details) => ReleaseDigest::of_details(&details, o.empty, o.structural),
            Err(_) => ReleaseDigest::without_diff(ReleaseKind::Unavailable),
        },
    }
}

/// One release of a subject's history.
#[derive(Debug, Clone)]
pub struct Touch {
    pub version: Version,
    pub item: DigestItem,
}

/// A walk through a branch's releases, newest first, for one subject.
#[derive(Debug, Clone, Default)]
pub struct SubjectHistory {
    /// The releases that added, changed or removed the subject, newest first.
    pub touches: Vec<Touch>,
    /// Releases read.
    pub scanned: u64,
    /// Where to go on (releases to skip), when the walk stopped before the oldest release.
    pub next: Option<u64>,
    /// The oldest release read, when the walk reached the branch's first one.
    pub first: Option<Version>,
}

impl Library {
    /// The digests of `versions`, in order: stored ones in one batch read, the others diffed (and stored) while
    /// [`BACKFILL_BUDGET`] lasts; `None` for those left for a later request.
    pub async fn digests(&self, versions: &[Version]) -> Read<Vec<Option<ReleaseDigest>>> {
        let ids: Vec<VersionId> = versions.iter().map(|v| v.id).collect();
        let mut stored = self.store().get_digests(&ids).await?;
        let started = Instant::now();
        let mut out = Vec::with_capacity(versions.len());
        let mut diffed = 0;
        for v in versions {
            if let Some(d) = stored.remove(&v.id) {
                self.digested.insert(v.id, ());
                out.push(Some(d));
                continue;
            }
            if diffed > 0 && started.elapsed() > BACKFILL_BUDGET {
                out.push(None);
                continue;
            }
            diffed += 1;
            let shown = self.release_state(v).await?;
            out.push(Some(digest_of(&shown)));
        }
        Ok(out)
    }

    /// Stores the digest of a release just diffed, once per process and release (a digest never changes; writing
    /// it again is harmless, so a race costs one extra write).
    pub(crate) async fn keep_digest(&self, v: &Version, shown: &Shown) -> Read<()> {
        if v.seq.is_none() || self.digested.get(&v.id).is_some() {
            return Ok(());
        }
        self.store().put_digest(v.id, &digest_of(shown)).await?;
        self.digested.insert(v.id, ());
        Ok(())
    }

    /// The releases of `view`'s branch that touched `subject` (`METHOD /path` or a name, see
    /// [`specpress_domain::digest::subject_matches`]), newest first, from the `skip`-th newest release on. At most
    /// [`HISTORY_SCAN`] releases are read per call; `next` says where to go on.
    pub async fn subject_history(
        &self,
        view: &crate::DocView,
        subject: &str,
        skip: u64,
    ) -> Read<SubjectHistory> {
        let mut h = SubjectHistory::default();
        let mut at = skip;
        let mut oldest: Option<Version> = None;
        loop {
            let page = self
                .releases(&view.doc, &view.branch, at, HISTORY_BATCH)
                .await?;
            let digests = self.digests(&page).await?;
            for (v, d) in page.iter().zip(digests) {
                let Some(d) = d else {
                    // Out of time for diffing: the rest is for the next call.
                    h.next = Some(at);
                    return Ok(h);
                };
                at += 1;
                h.scanned += 1;
                h.touches.extend(d.about(subject).map(|item| Touch {
                    version: v.clone(),
                    item: item.clone(),
                }));
            }
            if let Some(last) = page.last() {
                oldest = Some(last.clone());
            }
            if page.len() < HISTORY_BATCH as usize {
                h.first = oldest;
                return Ok(h);
            }
            if h.scanned >= HISTORY_SCAN {
                h.next = Some(at);
                return Ok(h);
            }
        }
    }
}

/// What a page's history is about: the three kinds of element with pages of their own that releases change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SubjectKind {
    /// An HTTP operation (`METHOD /path`) or a webhook (`METHOD name`).
    Operation,
    /// A named schema.
    Schema,
    /// An AsyncAPI channel (by address).
    Channel,
}

impl SubjectKind {
    /// The kind of a digest item (the diff engine's item type), when pages show its history.
    fn of_item(kind: &str) -> Option<Self> {
        match kind {
            "endpoint" | "webhook" => Some(SubjectKind::Operation),
            "schema" => Some(SubjectKind::Schema),
            "channel" => Some(SubjectKind::Channel),
            _ => None,
        }
    }
}

/// One release of a branch, as its history index keeps it.
#[derive(Debug, Clone)]
pub struct ReleaseRef {
    pub id: VersionId,
    /// The API version the release declared (document text).
    pub api_version: String,
    pub created_at: time::OffsetDateTime,
}

/// A release that touched a subject.
#[derive(Debug, Clone)]
pub struct Mark {
    /// Index into [`BranchHistory::releases`].
    pub release: u32,
    /// `added`, `removed` or `modified`.
    pub status: String,
    pub breaking: bool,
    /// What broke, first messages first (at most [`MARK_BREAKS`]).
    pub breaks: Vec<String>,
}

/// Breaking messages kept per mark (the change page has them all).
pub const MARK_BREAKS: usize = 2;

/// Entries on one page of a subject's own history (`/doc/{doc}/history/{page}`).
pub const HISTORY_PAGE_ENTRIES: usize = 50;

/// One page of a subject's history, from the branch's index.
#[derive(Debug, Clone, Copy)]
pub struct MarksPage<'a> {
    /// The releases of this page that touched the subject, newest first.
    pub marks: &'a [Mark],
    /// 1-based.
    pub page: usize,
    /// Pages of this subject (at least 1: a subject no release touched has one page, empty).
    pub pages: usize,
    /// Releases that touched the subject, on every page.
    pub total: usize,
}

/// The history of every page subject of a branch, up to one head: built once per head from the stored digests
/// (one range read and one batch read per [`HISTORY_BATCH`] releases, at most [`HISTORY_SCAN`] releases), then
/// answered from memory for every page of that head. Releases are immutable, so an index built for a head never
/// goes stale; a new release is a new head and a new index.
#[derive(Debug, Default)]
pub struct BranchHistory {
    /// The releases read, newest first.
    pub releases: Vec<ReleaseRef>,
    by_subject: std::collections::HashMap<(SubjectKind, String), Vec<Mark>>,
    /// The walk reached the branch's first release (else it stopped after [`HISTORY_SCAN`] releases).
    pub reached_first: bool,
    /// Every release read had its digest (else some were left for a later request: such an index is not kept).
    pub complete: bool,
    /// Releases read whose digest left items out (a very large diff): a subject may have changed there unseen.
    pub cut: usize,
    weight: u64,
}

impl BranchHistory {
    /// The releases that touched `name` of `kind`, newest first.
    pub fn marks(&self, kind: SubjectKind, name: &str) -> &[Mark] {
        self.by_subject
            .get(&(kind, specpress_domain::digest::subject_key(name)))
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// The `page`-th page (1-based) of [`HISTORY_PAGE_ENTRIES`] releases that touched `name` of `kind`, newest first;
    /// `None` for page 0 and pages past the last. A slice of the index: no storage request, no diff.
    pub fn marks_page(&self, kind: SubjectKind, name: &str, page: usize) -> Option<MarksPage<'_>> {
        let all = self.marks(kind, name);
        let pages = all.len().div_ceil(HISTORY_PAGE_ENTRIES).max(1);
        if page == 0 || page > pages {
            return None;
        }
        let start = (page - 1) * HISTORY_PAGE_ENTRIES;
        let end = (start + HISTORY_PAGE_ENTRIES).min(all.len());
        Some(MarksPage {
            marks: all.get(start..end).unwrap_or_default(),
            page,
            pages,
            total: all.len(),
        })
    }

    /// The branch's first release, when the walk reached it.
    pub fn first(&self) -> Option<&ReleaseRef> {
        self.releases.last().filter(|_| self.reached_first)
    }

    /// The oldest release read.
    pub fn oldest_read(&self) -> Option<&ReleaseRef> {
        self.releases.last()
    }

    fn add(&mut self, v: &Version, digest: &ReleaseDigest) {
        let Ok(release) = u32::try_from(self.releases.len()) else {
            return;
        };
        self.releases.push(ReleaseRef {
            id: v.id,
            api_version: v.analysis.api_version.clone(),
            created_at: v.created_at,
        });
        self.weight += 64 + v.analysis.api_version.len() as u64;
        if digest.omitted > 0 {
            self.cut += 1;
        }
        for item in &digest.items {
            let Some(kind) = SubjectKind::of_item(&item.kind) else {
                continue;
            };
            let breaks: Vec<String> = item.breaks.iter().take(MARK_BREAKS).cloned().collect();
            self.weight += 48 + breaks.iter().map(|b| b.len() as u64).sum::<u64>();
            let key = (kind, specpress_domain::digest::subject_key(&item.name));
            self.weight += key.1.len() as u64;
            self.by_subject.entry(key).or_default().push(Mark {
                release,
                status: item.status.clone(),
                breaking: item.breaking,
                breaks,
            });
        }
    }

    /// Bytes the index holds (estimated), for the cache's budget.
    pub fn weight(&self) -> u64 {
        self.weight.max(1)
    }
}

/// Weighs a history index by its estimated bytes.
#[derive(Clone)]
pub(crate) struct ByWeight;

impl quick_cache::Weighter<VersionId, std::sync::Arc<BranchHistory>> for ByWeight {
    fn weight(&self, _: &VersionId, v: &std::sync::Arc<BranchHistory>) -> u64 {
        v.weight()
    }
}

/// Bytes of history indexes a process keeps (GitHub's two releases: about 60 KB; 500 busy releases: a few MB).
pub const HISTORY_CACHE_BYTES: u64 = 32 * 1024 * 1024;

impl Library {
    /// The history index of `view`'s branch up to its head `head` (see [`BranchHistory`]): from the process's cache
    /// when built before, else read from the stored digests (releases without one are diffed within
    /// [`BACKFILL_BUDGET`]; an index left incomplete is answered but not kept).
    pub async fn branch_history(
        &self,
        view: &crate::DocView,
        head: &Version,
    ) -> Read<std::sync::Arc<BranchHistory>> {
        if let Some(h) = self.histories.get(&head.id) {
            return Ok(h);
        }
        let mut h = BranchHistory {
            complete: true,
            ..BranchHistory::default()
        };
        let mut at = 0u64;
        'walk: loop {
            let page = self
                .releases(&view.doc, &view.branch, at, HISTORY_BATCH)
                .await?;
            let digests = self.digests(&page).await?;
            for (v, d) in page.iter().zip(digests) {
                at += 1;
                // A release published after the head was read belongs to the next head's index.
                if v.seq > head.seq {
                    continue;
                }
                let Some(d) = d else {
                    h.complete = false;
                    break 'walk;
                };
                h.add(v, &d);
            }
            if page.len() < HISTORY_BATCH as usize {
                h.reached_first = true;
                break;
            }
            if at >= HISTORY_SCAN {
                break;
            }
        }
        let h = std::sync::Arc::new(h);
        if h.complete {
            self.histories.insert(head.id, h.clone());
        }
        Ok(h)
    }
}

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

//! What changed between two stored definitions, as the change pages, feeds and tools read it. The diff runs on the
//! parsed documents of the site cache and its result is kept by the pair of stored definitions it compares
//! ([`DiffCache`]): definitions never change, so an entry never goes stale, and a changelog viewed again costs no
//! diff. Diffs are bounded by the diff engine's own walk budget and the stored-document parse limits, and run on the
//! CPU gate.

use std::sync::Arc;

use quick_cache::Weighter;
use quick_cache::sync::Cache;
use specpress_domain::DomainError;
use specpress_domain::accepted::{AcceptedChanges, annotate};
use specpress_render::changes::{Changes, ReleaseChanges};
use time::OffsetDateTime;

use crate::cache::Loaded;

/// Budget of the diff cache, in bytes (estimated: four times the details' JSON).
pub const DEFAULT_DIFF_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// The diff of two stored definitions, as the outputs use it.
pub struct DiffOutcome {
    /// The `DiffItem[]` JSON (the `.json` variant of a change page).
    pub details: String,
    /// The same, read for the pages.
    pub changes: Changes,
    /// No change at all.
    pub empty: bool,
    /// Some change is structural.
    pub structural: bool,
}

#[derive(Clone)]
pub(crate) struct ByWeight;

impl Weighter<String, Arc<DiffOutcome>> for ByWeight {
    fn weight(&self, _: &String, v: &Arc<DiffOutcome>) -> u64 {
        // The JSON text, and the parsed tree (about three times its text).
        (v.details.len() as u64 * 4).max(64)
    }
}

/// Diffs by the pair of definitions they compare (`{previous sha256}:{current sha256}`), bounded by an estimate of
/// their memory. Concurrent requests for the same pair wait for one computation.
pub struct DiffCache {
    pub(crate) cache: Cache<String, Arc<DiffOutcome>, ByWeight>,
}

impl DiffCache {
    /// A cache of about `budget` bytes.
    pub fn new(budget: u64) -> Self {
        let cache = crate::cache::weighted(256, budget, ByWeight);
        DiffCache { cache }
    }
}

/// Diffs two parsed definitions. CPU-bound: run it on the CPU gate.
pub(crate) fn compute(before: &Loaded, after: &Loaded) -> Result<Arc<DiffOutcome>, DomainError> {
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

/// The diff with a documentation's accepted changes marked (`accepted: {reason, expires_at}` on each change a live
/// acceptance covers; levels and `breaking` flags kept, so readers still see the change as breaking). The cached
/// outcome itself when nothing in it is accepted (no copy); otherwise a copy for this answer, never cached (a set
/// changes at any time, and an acceptance expires).
pub fn accepting(
    outcome: &Arc<DiffOutcome>,
    accepted: &AcceptedChanges,
    now: OffsetDateTime,
) -> Result<Arc<DiffOutcome>, DomainError> {
    if accepted.live(now).is_empty() {
        return Ok(outcome.clone());
    }
    let mut value: serde_json::Value =
        serde_json::from_str(&outcome.details).map_err(DomainError::unexpected)?;
    if annotate(&mut value, accepted, now).accepted == 0 {
        return Ok(outcome.clone());
    }
    let details = serde_json::to_string(&value).map_err(DomainError::unexpected)?;
    let changes = Changes::from_value(value).map_err(DomainError::unexpected)?;
    Ok(Arc::new(DiffOutcome {
        details,
        changes,
        empty: outcome.empty,
        structural: outcome.structural,
    }))
}

/// What a release shows against the version it followed (the diff is shared with the cache).
#[derive(Clone)]
pub enum Shown {
    /// The documentation's first release.
    First,
    /// The version it followed is gone (a temporary baseline expired).
    Unavailable,
    /// Its changes.
    Diff(Arc<DiffOutcome>),
}

impl Shown {
    /// The release with a documentation's accepted changes marked (see [`accepting`]).
    pub fn accepting(
        self,
        accepted: &AcceptedChanges,
        now: OffsetDateTime,
    ) -> Result<Shown, DomainError> {
        Ok(match self {
            Shown::Diff(o) => Shown::Diff(accepting(&o, accepted, now)?),
            other => other,
        })
    }

    /// The release as the rendering engine shows it.
    pub fn as_release(&self) -> ReleaseChanges<'_> {
        match self {
            Shown::First => ReleaseChanges::First,
            Shown::Unavailable => ReleaseChanges::Unavailable,
            Shown::Diff(o) if o.empty => ReleaseChanges::Unchanged,
            Shown::Diff(o) if !o.structural => ReleaseChanges::ContentOnly(&o.changes),
            Shown::Diff(o) => ReleaseChanges::Changes(&o.changes),
        }
    }
}

//! The search indexes of parsed versions ([`specpress_render::SearchIndex`]), built on demand from the parsed
//! document the site cache holds, off the async workers, and kept by the definition's content address (so they never
//! go stale), bounded by the indexes' measured sizes (`SPECPRESS_SEARCH_CACHE_BYTES`). Concurrent first searches of
//! a version wait for one build.

use std::sync::Arc;

use quick_cache::Weighter;
use quick_cache::sync::Cache;
use specpress_domain::DomainError;
use specpress_domain::model::BlobRef;
use specpress_engines::cpu::CpuGate;
use specpress_render::SearchIndex;

use crate::cache::Loaded;

#[derive(Clone)]
struct BySize;

impl Weighter<String, Arc<SearchIndex>> for BySize {
    fn weight(&self, _: &String, v: &Arc<SearchIndex>) -> u64 {
        (v.size_bytes() as u64).max(1)
    }
}

/// The search indexes of parsed versions, by the definition's content address.
pub struct SearchCache {
    cache: Cache<String, Arc<SearchIndex>, BySize>,
}

impl std::fmt::Debug for SearchCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchCache")
            .field("entries", &self.cache.len())
            .field("weight", &self.cache.weight())
            .finish()
    }
}

impl SearchCache {
    /// A cache holding at most about `budget` bytes of indexes (one larger than that is built per request).
    pub fn new(budget: u64) -> Self {
        let cache = crate::cache::weighted(64, budget, BySize);
        SearchCache { cache }
    }

    /// The index of a loaded definition, built (on the CPU gate) when it is not cached.
    pub async fn get_or_build(
        &self,
        blob: &BlobRef,
        loaded: Arc<Loaded>,
    ) -> Result<Arc<SearchIndex>, DomainError> {
        self.cache
            .get_or_insert_async(&blob.sha256, async move {
                CpuGate::shared()
                    .run(move || Arc::new(SearchIndex::build(&loaded.doc, &loaded.site)))
                    .await
            })
            .await
    }

    /// Entries and the bytes they count.
    pub fn usage(&self) -> (usize, u64) {
        (self.cache.len(), self.cache.weight())
    }
}

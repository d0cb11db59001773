//! The parsed documents behind the pages: one entry per stored definition (its parsed [`Document`] and its page
//! index [`Site`]), keyed by the definition's content address and kept in a cache bounded by an estimate of the
//! memory they hold.
//!
//! A stored definition never changes (its key is the SHA-256 of its bytes), so an entry never goes stale: what a URL
//! shows is decided per request (which documentation, which branch, which head), and the cache only saves the read
//! and the parse. Versions, branches and previews with the same definition share one entry. Concurrent requests for
//! a definition that is not loaded yet wait for one load (the cache's own single-flight), and a failed load is not
//! cached.

use std::sync::Arc;

use quick_cache::sync::{Cache, DefaultLifecycle};
use quick_cache::{DefaultHashBuilder, OptionsBuilder, Weighter};
use specpress_apispec::Document;
use specpress_domain::model::{BlobRef, Bundle};
use specpress_domain::{DomainError, Result};
use specpress_render::Site;

/// What the cache keeps of one version.
pub struct Loaded {
    /// The parsed document.
    pub doc: Document,
    /// Its pages and navigation.
    pub site: Site,
    /// The estimate the cache budget counts, in bytes.
    pub weight: u64,
}

/// How much memory a parsed document holds for its text: measured on the corpus (a parse adds 2.3-2.8x the input
/// for the large documents, 4.4x for Kubernetes' Swagger 2.0), plus the page index.
const BYTES_PER_INPUT_BYTE: u64 = 4;

/// What an entry holds whatever its size (the tree's and the page index's tables, the model's maps). Measured with
/// the soak benchmark, whose documents are ~60 KB: with the weight at 4x the input alone, a 256 MiB budget held
/// ~680 MB more than a 16 MiB one (918 against 235 MB resident), about 11x the input per entry; 4x + 512 KiB
/// counts such an entry at 752 KB, at or above what it holds, and changes little for large documents.
const BYTES_PER_ENTRY: u64 = 512 * 1024;

#[derive(Clone)]
struct ByWeight;

impl Weighter<String, Arc<Loaded>> for ByWeight {
    fn weight(&self, _: &String, v: &Arc<Loaded>) -> u64 {
        v.weight.max(1)
    }
}

/// The parsed versions, by id.
pub struct SiteCache {
    cache: Cache<String, Arc<Loaded>, ByWeight>,
    budget: u64,
}

impl std::fmt::Debug for SiteCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SiteCache")
            .field("entries", &self.cache.len())
            .field("weight", &self.cache.weight())
            .field("budget", &self.budget)
            .finish()
    }
}

/// Parses a stored bundle and indexes its pages. CPU-bound: run it on the CPU gate.
pub fn load(bundle: &Bundle) -> Result<Loaded> {
    let refs = specpress_engines::engine::references(bundle);
    let doc = specpress_apispec::parse(
        &bundle.definition,
        &refs,
        &specpress_engines::engine::stored_limits(),
    )
    .map_err(DomainError::unexpected)?;
    let site = Site::build(&doc);
    let input = bundle.definition.len() as u64
        + bundle
            .references
            .iter()
            .map(|r| r.content.len() as u64)
            .sum::<u64>();
    Ok(Loaded {
        doc,
        site,
        weight: input * BYTES_PER_INPUT_BYTE + BYTES_PER_ENTRY,
    })
}

/// A cache of at most about `budget` bytes as `weighter` counts them, in one shard: entries are few and large, and a
/// shard's capacity is its share of the budget, so several shards would refuse a large entry that fits the whole.
/// `items` is the expected number of entries (a sizing hint).
pub(crate) fn weighted<K, V, W>(items: usize, budget: u64, weighter: W) -> Cache<K, V, W>
where
    K: Eq + std::hash::Hash,
    V: Clone,
    W: Weighter<K, V> + Clone,
{
    let budget = budget.max(1);
    match OptionsBuilder::new()
        .estimated_items_capacity(items)
        .weight_capacity(budget)
        .shards(1)
        .build()
    {
        Ok(o) => Cache::with_options(
            o,
            weighter,
            DefaultHashBuilder::default(),
            DefaultLifecycle::default(),
        ),
        Err(_) => Cache::with_weighter(items, budget, weighter),
    }
}

impl SiteCache {
    /// A cache holding at most about `budget` bytes of parsed documents. A document heavier than the whole budget is
    /// parsed for each request that needs it and never kept.
    pub fn new(budget: u64) -> Self {
        let cache = weighted(64, budget, ByWeight);
        SiteCache { cache, budget }
    }

    /// The loaded definition, loading it with `fetch` (which reads and parses) if it is not cached.
    pub async fn get_or_load<F, Fut>(&self, blob: &BlobRef, fetch: F) -> Result<Arc<Loaded>>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Loaded>>,
    {
        let loaded = self
            .cache
            .get_or_insert_async(&blob.sha256, async { fetch().await.map(Arc::new) })
            .await?;
        Ok(loaded)
    }

    /// Entries and the weight they count.
    pub fn usage(&self) -> (usize, u64) {
        (self.cache.len(), self.cache.weight())
    }
}

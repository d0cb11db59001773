//! The search indexes of parsed versions ([`specpress_render::SearchIndex`]), built on demand from the parsed
//! document the site cache holds, off the async workers, and kept by the definition's content address (so they never
//! go stale), bounded by the indexes' measured sizes (`SPECPRESS_SEARCH_CACHE_BYTES`). Concurrent first searches of
//! a version wait for one build.
//!
//! A query is read once ([`Query`]) and searched in one or several documentations' indexes; [`merge`] is the one
//! merge of their results (a hub's results page, the MCP servers' `search` tool).

use std::sync::Arc;

use quick_cache::Weighter;
use quick_cache::sync::Cache;
use specpress_domain::DomainError;
use specpress_domain::model::BlobRef;
use specpress_engines::cpu::CpuGate;
use specpress_render::SearchIndex;
use specpress_render::search::{Found, Hit, HitKind, QueryError, query_words};

use crate::cache::Loaded;
use crate::{DocView, Library, Read};

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

/// Documentations of a hub searched together (the first ones by slug), by its results page and its MCP server.
pub const MAX_HUB_DOCS: usize = 50;

/// A query, its words read once ([`specpress_render::search::query_words`]): every index it is searched in takes
/// the words as they are.
#[derive(Debug, Clone)]
pub struct Query {
    text: String,
    words: Vec<String>,
}

impl Query {
    /// The query `text`, or why it is not searched (no word to look for, too long).
    pub fn parse(text: &str) -> Result<Query, QueryError> {
        Ok(Query {
            text: text.to_owned(),
            words: query_words(text)?,
        })
    }

    /// The query as typed.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// One documentation's head, parsed, with its search index: what a search reads. `key` is whatever the presenter
/// needs to show a result of it (its base path and name, its view).
pub struct Source<K> {
    pub key: K,
    pub loaded: Arc<Loaded>,
    pub index: Arc<SearchIndex>,
}

/// The results of a query over one or several documentations, merged: best first, each with the key of its
/// documentation.
pub struct Merged<'s, K> {
    pub hits: Vec<(&'s K, Hit<'s>)>,
    /// Matches in all (with a filter, the matches it admits among the candidates read).
    pub total: usize,
    /// No result has every word: these have some of them.
    pub partial: bool,
}

/// Searches `query` in every source (the best `per_source` of each) and merges the results by score, keeping the
/// best `limit`. Documentations with every word take precedence over those with some of them: when one has results
/// with every word, the others' partial results are left out. `admit` keeps only the hits of some kinds (then the
/// total counts what it admits).
pub fn merge<'s, K>(
    sources: &'s [Source<K>],
    query: &Query,
    per_source: usize,
    limit: usize,
    admit: Option<&dyn Fn(HitKind) -> bool>,
) -> Merged<'s, K> {
    let founds: Vec<(&K, Found<'s>)> = sources
        .iter()
        .map(|s| {
            let found = s
                .index
                .search_words(&s.loaded.site, &query.words, per_source);
            (&s.key, found)
        })
        .collect();
    let complete = founds.iter().any(|(_, f)| !f.partial && f.total > 0);
    let mut merged = Merged {
        hits: Vec::new(),
        total: 0,
        partial: false,
    };
    for (key, found) in founds {
        if complete && found.partial {
            continue;
        }
        merged.partial |= found.partial;
        match admit {
            None => {
                merged.total += found.total;
                merged.hits.extend(found.hits.into_iter().map(|h| (key, h)));
            }
            Some(admit) => {
                let before = merged.hits.len();
                merged.hits.extend(
                    found
                        .hits
                        .into_iter()
                        .filter(|h| admit(h.kind))
                        .map(|h| (key, h)),
                );
                merged.total += merged.hits.len() - before;
            }
        }
    }
    // A stable sort: equal scores keep each documentation's own order, and documentations their order.
    merged.hits.sort_by(|a, b| b.1.score.total_cmp(&a.1.score));
    merged.hits.truncate(limit);
    merged
}

impl Library {
    /// The heads of `views`, parsed, with their search indexes (built when not cached), each under its key.
    pub async fn search_sources<'v, K>(
        &self,
        views: impl IntoIterator<Item = (K, &'v DocView)>,
    ) -> Read<Vec<Source<K>>> {
        let mut out = Vec::new();
        for (key, view) in views {
            let (loaded, index, _) = self.indexed(view).await?;
            out.push(Source { key, loaded, index });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_is_read_once_and_refused_when_it_has_nothing_to_look_for_or_is_too_long() {
        let q = Query::parse("listPets by tag").expect("words");
        assert_eq!(q.text(), "listPets by tag");
        assert_eq!(q.words, ["list", "pets", "by", "tag"]);
        assert_eq!(Query::parse("!! ?").err(), Some(QueryError::Empty));
        assert_eq!(
            Query::parse(&"a".repeat(200)).err(),
            Some(QueryError::TooLong)
        );
    }
}

//! Answering a query: each word expanded to the dictionary terms it matches (exact, prefix, typos), their
//! postings scored, entries ranked (every word matched first, then by score), the best ones returned.

use fst::Automaton;
use fst::automaton::Str;
use fst::{IntoStreamer, Streamer};

use super::fuzzy::{Fuzzy, edit_distance};
use super::terms::query_words;
use super::{Entry, Found, Hit, HitKind, MAX_EXPANSIONS, MAX_RESULTS, QueryError, SearchIndex};
use crate::site::Site;

impl SearchIndex {
    /// Entries indexed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Distinct terms.
    pub fn term_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when the property budget left part of the document out.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// An estimate of the memory the index holds, in bytes.
    pub fn size_bytes(&self) -> usize {
        self.terms.as_fst().as_bytes().len()
            + self.offsets.len() * 4
            + self.postings.len() * 4
            + self
                .entries
                .iter()
                .map(|e| std::mem::size_of::<Entry>() + e.title.len() + e.context.len())
                .sum::<usize>()
    }

    /// The postings of term ordinal `t`.
    fn postings_of(&self, t: u64) -> &[u32] {
        let t = t as usize;
        match (self.offsets.get(t), self.offsets.get(t + 1)) {
            (Some(&a), Some(&b)) if a <= b => {
                self.postings.get(a as usize..b as usize).unwrap_or(&[])
            }
            _ => &[],
        }
    }

    /// The dictionary terms a query word matches, with the quality of the match (1 exact, 0.7 prefix, 0.5 one
    /// typo, 0.3 two) and whether it is approximate.
    fn expand(&self, word: &str) -> Vec<(u64, f32, bool)> {
        let mut out: Vec<(u64, f32, bool)> = Vec::new();
        if let Some(t) = self.terms.get(word) {
            out.push((t, 1.0, false));
        }
        let chars = word.chars().count();
        if chars >= 2 {
            let mut s = self
                .terms
                .search(Str::new(word).starts_with())
                .into_stream();
            let mut n = 0;
            while let Some((k, t)) = s.next() {
                if k.len() != word.len() {
                    out.push((t, 0.7, false));
                    n += 1;
                    if n >= MAX_EXPANSIONS {
                        break;
                    }
                }
            }
        }
        // Typos: one in a word of 5 to 8 characters, two from 9 (shorter words would match too many others).
        if chars >= 5 {
            let fuzzy = Fuzzy {
                word: word.as_bytes(),
                distance: if chars >= 9 { 2 } else { 1 },
            };
            let mut s = self.terms.search(fuzzy).into_stream();
            let mut n = 0;
            while let Some((k, t)) = s.next() {
                if out.iter().any(|(x, _, _)| *x == t) {
                    continue;
                }
                let d = std::str::from_utf8(k).map_or(2, |k| edit_distance(word, k));
                out.push((t, if d <= 1 { 0.5 } else { 0.3 }, true));
                n += 1;
                if n >= MAX_EXPANSIONS {
                    break;
                }
            }
        }
        out
    }

    /// Searches `query` and returns the best `limit` results (at most [`MAX_RESULTS`]).
    pub fn search<'s>(
        &'s self,
        site: &'s Site,
        query: &str,
        limit: usize,
    ) -> Result<Found<'s>, QueryError> {
        Ok(self.search_words(site, &query_words(query)?, limit))
    }

    /// [`SearchIndex::search`] of a query's words already read ([`query_words`]: a query searched in several indexes
    /// is read once).
    pub fn search_words<'s>(&'s self, site: &'s Site, words: &[String], limit: usize) -> Found<'s> {
        let n = self.entries.len();
        let mut total = vec![0f32; n];
        let mut matched = vec![0u8; n];
        let mut approx = vec![false; n];
        let mut best = vec![(0f32, false); n];
        let mut touched: Vec<u32> = Vec::new();
        for word in words {
            for (t, quality, approximate) in self.expand(word) {
                for &p in self.postings_of(t) {
                    let e = (p >> 3) as usize;
                    let s = quality * (p & 7) as f32;
                    let Some(slot) = best.get_mut(e) else {
                        continue;
                    };
                    if slot.0 == 0.0 {
                        touched.push(e as u32);
                    }
                    if s > slot.0 {
                        *slot = (s, approximate);
                    }
                }
            }
            for &e in &touched {
                let e = e as usize;
                let (s, a) = std::mem::replace(&mut best[e], (0.0, false));
                total[e] += s;
                matched[e] += 1;
                approx[e] |= a;
            }
            touched.clear();
        }
        let want = words.len() as u8;
        let mut hits: Vec<u32> = (0..n as u32)
            .filter(|&e| matched[e as usize] == want)
            .collect();
        let partial = hits.is_empty() && want > 1;
        if partial {
            hits = (0..n as u32).filter(|&e| matched[e as usize] > 0).collect();
        }
        // An entry named exactly as the query (`per_page`, `reposListForOrg`, `List pull requests`) comes first
        // among its kind.
        let compact: String = words.concat();
        let bonus: Vec<u32> = hits
            .iter()
            .copied()
            .filter(|&e| same_letters(&self.entries[e as usize].title, &compact))
            .collect();
        let score = |e: u32| {
            let i = e as usize;
            let exact = if bonus.binary_search(&e).is_ok() {
                1.5
            } else {
                1.0
            };
            total[i] * exact * self.entries[i].kind.weight() * f32::from(matched[i])
                / f32::from(want)
        };
        let count = hits.len();
        hits.sort_by(|&a, &b| {
            score(b)
                .total_cmp(&score(a))
                .then_with(|| {
                    self.entries[a as usize]
                        .title
                        .len()
                        .cmp(&self.entries[b as usize].title.len())
                })
                .then(a.cmp(&b))
        });
        hits.truncate(limit.min(MAX_RESULTS));
        let hits = hits
            .into_iter()
            .map(|e| {
                let entry = &self.entries[e as usize];
                let page = &site.pages[(entry.page as usize).min(site.pages.len() - 1)];
                Hit {
                    kind: entry.kind,
                    title: &entry.title,
                    context: &entry.context,
                    path: &page.path,
                    badge: match entry.kind {
                        HitKind::Operation | HitKind::Webhook | HitKind::MessageOperation => {
                            page.badge
                        }
                        _ => None,
                    },
                    score: score(e),
                    approximate: approx[e as usize],
                }
            })
            .collect();
        Found {
            hits,
            total: count,
            partial,
        }
    }
}

/// True when `title`'s letters and digits, lower-cased, are `compact` (a query's words joined).
fn same_letters(title: &str, compact: &str) -> bool {
    let mut want = compact.chars();
    for c in title
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
    {
        if want.next() != Some(c) {
            return false;
        }
    }
    want.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_matches_a_query_by_its_letters_and_digits() {
        assert!(same_letters("per_page", "perpage"));
        assert!(same_letters("List pull requests", "listpullrequests"));
        assert!(!same_letters(
            "List pull requests files",
            "listpullrequests"
        ));
    }
}

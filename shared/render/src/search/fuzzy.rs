//! Typos: a Levenshtein automaton run against the term dictionary, and the edit distance of two words.

use fst::Automaton;

/// The dictionary terms within `distance` edits (insertions, deletions, substitutions of bytes) of `word`: a
/// Levenshtein automaton simulated one dynamic-programming row per byte, so that intersecting it with the term
/// dictionary visits only the prefixes that can still match (no automaton is compiled ahead: building a
/// Levenshtein DFA for a long word costs milliseconds, this costs nothing up front).
pub(super) struct Fuzzy<'w> {
    pub(super) word: &'w [u8],
    pub(super) distance: u8,
}

impl Automaton for Fuzzy<'_> {
    /// The row of edit distances between the bytes read so far and each prefix of the word, or `None` once no
    /// continuation can come within the distance.
    type State = Option<Vec<u8>>;

    fn start(&self) -> Self::State {
        Some((0..=self.word.len()).map(|i| i.min(255) as u8).collect())
    }

    fn is_match(&self, state: &Self::State) -> bool {
        state
            .as_ref()
            .and_then(|row| row.last())
            .is_some_and(|&d| d <= self.distance)
    }

    fn can_match(&self, state: &Self::State) -> bool {
        state.is_some()
    }

    fn accept(&self, state: &Self::State, byte: u8) -> Self::State {
        let prev = state.as_ref()?;
        let mut row = Vec::with_capacity(prev.len());
        row.push(prev[0].saturating_add(1));
        for (i, &c) in self.word.iter().enumerate() {
            let substitute = prev[i].saturating_add(u8::from(c != byte));
            let delete = prev[i + 1].saturating_add(1);
            let insert = row[i].saturating_add(1);
            row.push(substitute.min(delete).min(insert));
        }
        row.iter().any(|&d| d <= self.distance).then_some(row)
    }
}

/// Levenshtein distance of two short words, capped at 3.
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > 2 {
        return 3;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()].min(3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fst::{IntoStreamer, Map, Streamer};

    #[test]
    fn the_fuzzy_automaton_finds_terms_within_the_distance_only() {
        let map = Map::from_iter([
            ("vacations", 0u64),
            ("vaccination", 1),
            ("vaccinations", 2),
            ("zebra", 3),
        ])
        .unwrap();
        let found = |word: &str, distance: u8| -> Vec<String> {
            let mut s = map
                .search(Fuzzy {
                    word: word.as_bytes(),
                    distance,
                })
                .into_stream();
            let mut out = Vec::new();
            while let Some((k, _)) = s.next() {
                out.push(String::from_utf8_lossy(k).into_owned());
            }
            out
        };
        assert_eq!(found("vacinations", 1), vec!["vaccinations"]);
        assert_eq!(
            found("vacinations", 2),
            vec!["vacations", "vaccination", "vaccinations"]
        );
        assert!(found("zebar", 1).is_empty());
        assert_eq!(found("zebar", 2), vec!["zebra"]);
    }

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("vacinations", "vaccinations"), 1);
        assert_eq!(edit_distance("pets", "pest"), 2);
        assert_eq!(edit_distance("a", "abcdef"), 3);
    }
}

//! Pairing up the entries of two versions of a map, cheaply: two versions of a document
//! usually list their keys in the same order.

use std::hash::Hash;

use specpress_apispec::Map;

/// Finds the keys of one map, in order, in another that usually lists them in the same
/// order give or take a few added or removed (two versions of a document): the position the
/// last hit suggests is tried before the map's hashed lookup.
#[derive(Default)]
pub(super) struct Near {
    /// Position in the searched map minus position in the walked one, at the last hit.
    shift: isize,
}

impl Near {
    /// The index of `key` (the `i`-th key of the map walked) in `m`.
    #[inline]
    pub(super) fn find<K: Hash + Eq, V>(
        &mut self,
        m: &Map<K, V>,
        i: usize,
        key: &K,
    ) -> Option<usize> {
        let guess = i
            .checked_add_signed(self.shift)
            .filter(|&g| m.get_index(g).is_some_and(|(k, _)| k == key));
        let found = guess.or_else(|| m.get_index_of(key))?;
        self.shift = found as isize - i as isize;
        Some(found)
    }
}

/// An entry of two versions of a map.
pub(super) enum Entry<'m, K, V> {
    /// Only in the current version.
    Added(&'m K, &'m V),
    /// In both: (key, previous value, current value).
    Both(&'m K, &'m V, &'m V),
    /// Only in the previous version.
    Removed(&'m K, &'m V),
}

/// The value of `key` (the `i`-th key of the other version) in `m`: the entry at position
/// `i` first (two versions of a document usually list their keys in the same order), then a
/// scan of a small map (cheaper than hashing the key), else the map's lookup.
#[inline(always)]
pub(super) fn near_get<'m, K: Hash + Eq, V>(m: &'m Map<K, V>, i: usize, key: &K) -> Option<&'m V> {
    if let Some((k, v)) = m.get_index(i)
        && k == key
    {
        return Some(v);
    }
    if m.len() <= 8 {
        m.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    } else {
        m.get(key)
    }
}

/// The entries of two versions of a map: the current version's in its order (added, or in
/// both), then the previous version's missing from the current one (removed) in theirs.
pub(super) fn entries<'m, K: Hash + Eq, V>(
    previous: &'m Map<K, V>,
    current: &'m Map<K, V>,
) -> Entries<'m, K, V> {
    Entries {
        previous,
        current,
        next: 0,
        removed: false,
    }
}

/// The iterator of [`entries`].
pub(super) struct Entries<'m, K, V> {
    previous: &'m Map<K, V>,
    current: &'m Map<K, V>,
    /// The next position in the current version, then (`removed`) in the previous one.
    next: usize,
    removed: bool,
}

impl<'m, K: Hash + Eq, V> Iterator for Entries<'m, K, V> {
    type Item = Entry<'m, K, V>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if !self.removed {
            if let Some((k, c)) = self.current.get_index(self.next) {
                let i = self.next;
                self.next += 1;
                return Some(match near_get(self.previous, i, k) {
                    Some(p) => Entry::Both(k, p, c),
                    None => Entry::Added(k, c),
                });
            }
            self.removed = true;
            self.next = 0;
        }
        while let Some((k, p)) = self.previous.get_index(self.next) {
            let i = self.next;
            self.next += 1;
            if near_get(self.current, i, k).is_none() {
                return Some(Entry::Removed(k, p));
            }
        }
        None
    }
}

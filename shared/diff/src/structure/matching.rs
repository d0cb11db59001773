//! Finding an entry of one version's map in the other's, cheaply: two versions of a document
//! usually list their keys in the same order.

use specpress_spec::Map;

/// A lookup in a small model map (media types, response statuses) that first tries position
/// `i` (two versions of a document usually list them in the same order, and each key compared
/// costs a read of its text), then scans small maps, which beats hashing the key with the
/// map's SipHash.
pub(super) fn small_get_near<'m, V>(m: &'m Map<String, V>, i: usize, key: &str) -> Option<&'m V> {
    if let Some((k, v)) = m.get_index(i)
        && k == key
    {
        return Some(v);
    }
    if m.len() <= 8 {
        m.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        m.get(key)
    }
}

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
    pub(super) fn find<K: std::hash::Hash + Eq, V>(
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

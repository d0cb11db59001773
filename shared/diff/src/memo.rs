//! The memo tables of the walk: schema location pairs seen (and whether they are unchanged),
//! the last pair that came down to an edge, and location pairs as cheap map keys.

use specpress_apispec::{FileId, Location};

use hashbrown::HashTable;

use crate::nav::FxHasher;
use crate::rules::Role;

/// The named components an unchanged subtree uses: (name, previous, current location).
pub(crate) type ComponentRefs = std::rc::Rc<Vec<(String, Location, Location)>>;

/// What is known about one schema location pair.
#[derive(Default)]
pub(crate) struct PairState {
    /// Bit set of the roles the pair was compared in.
    pub roles: u8,
    /// `None` until computed; then `Some(None)` if the subtrees differ (or use a `$ref` that is
    /// not a named component), `Some(Some(components))` if they are identical.
    pub unchanged: Option<Option<ComponentRefs>>,
}

/// Every schema location pair seen, with its [`PairState`]: a hash table keyed by the two
/// locations that is searched with borrowed locations (a pair is copied only when it is new)
/// and hands out stable indices, so a state found once is updated without a second search.
#[derive(Default)]
pub(crate) struct PairMemo {
    /// Indices in `entries`, by the hash of their pair.
    table: HashTable<u32>,
    entries: Vec<PairEntry>,
}

struct PairEntry {
    previous: Location,
    current: Location,
    state: PairState,
    /// The hash of the pair (the table grows without hashing pairs again).
    hash: u64,
}

impl PairMemo {
    #[inline]
    fn hash(previous: &Location, current: &Location) -> u64 {
        use std::hash::Hasher;
        // File, length and the last bytes of each pointer: pointers share long beginnings
        // and differ at the end (entries with the same hash still compare whole pairs).
        let mut h = FxHasher::default();
        for at in [previous, current] {
            let bytes = at.pointer.as_bytes();
            h.write_u32(at.file.0);
            h.write_usize(bytes.len());
            h.write(bytes.get(bytes.len().saturating_sub(24)..).unwrap_or(bytes));
        }
        h.finish()
    }

    pub(crate) fn with_capacity(n: usize) -> Self {
        PairMemo {
            table: HashTable::with_capacity(n),
            entries: Vec::with_capacity(n),
        }
    }

    /// The index of a pair, if seen.
    #[inline]
    pub(crate) fn find(&self, previous: &Location, current: &Location) -> Option<usize> {
        let entries = &self.entries;
        let same = |&i: &u32| {
            entries
                .get(i as usize)
                .is_some_and(|e| e.previous == *previous && e.current == *current)
        };
        self.table
            .find(Self::hash(previous, current), same)
            .map(|&i| i as usize)
    }

    /// Adds a pair not seen before; returns its index.
    #[inline]
    pub(crate) fn insert(
        &mut self,
        previous: Location,
        current: Location,
        state: PairState,
    ) -> usize {
        let i = self.entries.len();
        let hash = Self::hash(&previous, &current);
        let entries = &self.entries;
        let rehash = |&j: &u32| entries.get(j as usize).map_or(0, |e| e.hash);
        self.table.insert_unique(hash, i as u32, rehash);
        self.entries.push(PairEntry {
            previous,
            current,
            state,
            hash,
        });
        i
    }

    #[inline]
    pub(crate) fn state(&mut self, i: usize) -> Option<&mut PairState> {
        self.entries.get_mut(i).map(|e| &mut e.state)
    }
}

/// Key of [`crate::context::Memo::ref_links`].
pub(crate) type RefPairKey<'a> = (FileId, &'a str, FileId, &'a str, Role);

/// The last schema location pair (with role, depth and kind of call) whose comparison only
/// recorded an edge to a shared component, and that component's owner. Comparing the same
/// pair again has the same outcome, so it only needs the edge. The buffers are reused, so
/// remembering a pair allocates nothing once they have grown.
#[derive(Default)]
pub(crate) struct LastEdge {
    /// (file, pointer) of the previous and current location; `None` files until set.
    previous: (Option<FileId>, String),
    current: (Option<FileId>, String),
    role: Option<Role>,
    depth: usize,
    definition: bool,
    to: usize,
}

impl LastEdge {
    #[inline]
    pub(crate) fn hit(
        &self,
        previous: &Location,
        current: &Location,
        role: Role,
        depth: usize,
        definition: bool,
    ) -> Option<usize> {
        let same = |mine: &(Option<FileId>, String), theirs: &Location| {
            mine.0 == Some(theirs.file) && mine.1 == theirs.pointer
        };
        (self.role == Some(role)
            && self.depth == depth
            && self.definition == definition
            && same(&self.previous, previous)
            && same(&self.current, current))
        .then_some(self.to)
    }

    #[inline]
    pub(crate) fn set(
        &mut self,
        previous: &Location,
        current: &Location,
        role: Role,
        depth: usize,
        definition: bool,
        to: usize,
    ) {
        for (mine, theirs) in [(&mut self.previous, previous), (&mut self.current, current)] {
            mine.0 = Some(theirs.file);
            mine.1.clear();
            mine.1.push_str(&theirs.pointer);
        }
        self.role = Some(role);
        self.depth = depth;
        self.definition = definition;
        self.to = to;
    }
}

/// A (previous, current) pair of locations as a map key, hashed by file, length and the
/// last bytes of each pointer: the pointers of one document's parameters share long
/// prefixes (`/paths/<path>/parameters/…`) and differ at the end, so hashing every byte
/// buys nothing (equal keys still compare whole pointers).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct PointerPair<'a> {
    previous: (FileId, &'a str),
    current: (FileId, &'a str),
}

impl<'a> PointerPair<'a> {
    #[inline]
    pub(crate) fn new(previous: &'a Location, current: &'a Location) -> Self {
        PointerPair {
            previous: (previous.file, previous.pointer.as_str()),
            current: (current.file, current.pointer.as_str()),
        }
    }
}

impl std::hash::Hash for PointerPair<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for (file, pointer) in [self.previous, self.current] {
            let bytes = pointer.as_bytes();
            state.write_u32(file.0);
            state.write_usize(bytes.len());
            state.write(bytes.get(bytes.len().saturating_sub(16)..).unwrap_or(bytes));
        }
    }
}

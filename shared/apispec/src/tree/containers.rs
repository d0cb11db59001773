//! The containers of a [`Tree`]: an object's members ([`Obj`], [`Members`]) and an array's
//! items ([`Arr`], [`Items`]), read in document order; a member is found by a scan of a small
//! object or through the hash index of a large one.

use std::fmt;
use std::hash::BuildHasher as _;

use serde_json::Value;

use super::{Link, SCAN_MAX, Tree, V};

/// An object's members, in document order.
#[derive(Clone, Copy)]
pub struct Obj<'t> {
    pub(super) t: &'t Tree,
    pub(super) node: u32,
    pub(super) start: u32,
    pub(super) len: u32,
}

/// An array's items.
#[derive(Clone, Copy)]
pub struct Arr<'t> {
    pub(super) t: &'t Tree,
    pub(super) start: u32,
    pub(super) len: u32,
}

/// Equal byte strings of the same length. Keys are short: comparing them in place beats a
/// call to `memcmp`, which slice equality makes.
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() > 16 {
        return a == b;
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}

impl<'t> Obj<'t> {
    #[inline]
    pub fn len(self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    #[inline]
    fn links(self) -> &'t [Link] {
        &self.t.links[self.start as usize..(self.start + self.len) as usize]
    }

    /// The value of member `key`.
    #[inline(always)]
    pub fn get(self, key: &str) -> Option<V<'t>> {
        if self.len as usize > SCAN_MAX {
            return self.search(key);
        }
        let t = self.t;
        let (arena, wanted) = (t.arena.as_bytes(), key.as_bytes());
        for l in self.links() {
            if l.key_len as usize == wanted.len()
                && arena
                    .get(l.key as usize..(l.key + l.key_len) as usize)
                    .is_some_and(|k| same_bytes(k, wanted))
            {
                return Some(V { t, i: l.node });
            }
        }
        None
    }

    /// `get` for a large object, through its hash index.
    #[inline(never)]
    fn search(self, key: &str) -> Option<V<'t>> {
        let t = self.t;
        let table = t.tables.get(*t.index.get(&self.node)? as usize)?;
        let links = &t.links;
        table
            .find(t.hasher.hash_one(key), |&li| {
                t.key(links[li as usize]) == key
            })
            .map(|&li| V {
                t,
                i: links[li as usize].node,
            })
    }

    #[inline]
    pub fn contains_key(self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Members in document order.
    #[inline]
    pub fn iter(self) -> Members<'t> {
        Members {
            t: self.t,
            links: self.links().iter(),
        }
    }

    pub fn keys(self) -> impl DoubleEndedIterator<Item = &'t str> + ExactSizeIterator + Clone + 't {
        let t = self.t;
        self.links().iter().map(move |l| t.key(*l))
    }

    pub fn values(self) -> impl DoubleEndedIterator<Item = V<'t>> + ExactSizeIterator + Clone + 't {
        let t = self.t;
        self.links().iter().map(move |l| V { t, i: l.node })
    }

    /// The object itself as a value.
    pub fn as_value(self) -> V<'t> {
        V {
            t: self.t,
            i: self.node,
        }
    }
}

/// A tree holding one empty object, behind [`Obj::empty`] and [`Arr::empty`].
static EMPTY: std::sync::LazyLock<Tree> =
    std::sync::LazyLock::new(|| Tree::from_value(&Value::Object(serde_json::Map::new())));

impl Obj<'static> {
    /// An object with no members (for a schema without `properties`, ...).
    pub fn empty() -> Obj<'static> {
        Obj {
            t: &EMPTY,
            node: EMPTY.root,
            start: 0,
            len: 0,
        }
    }
}

impl Arr<'static> {
    /// An array with no items.
    pub fn empty() -> Arr<'static> {
        Arr {
            t: &EMPTY,
            start: 0,
            len: 0,
        }
    }
}

impl fmt::Debug for Obj<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<'t> Arr<'t> {
    #[inline]
    pub fn len(self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn get(self, i: usize) -> Option<V<'t>> {
        if i < self.len as usize {
            let l = self.t.links[self.start as usize + i];
            Some(V {
                t: self.t,
                i: l.node,
            })
        } else {
            None
        }
    }

    #[inline]
    pub fn iter(self) -> Items<'t> {
        Items {
            t: self.t,
            links: self.t.links[self.start as usize..(self.start + self.len) as usize].iter(),
        }
    }
}

/// An object's members, in document order (see [`Obj::iter`]).
#[derive(Clone)]
pub struct Members<'t> {
    t: &'t Tree,
    links: std::slice::Iter<'t, Link>,
}

impl<'t> Iterator for Members<'t> {
    type Item = (&'t str, V<'t>);
    #[inline]
    fn next(&mut self) -> Option<(&'t str, V<'t>)> {
        let l = *self.links.next()?;
        Some((
            self.t.key(l),
            V {
                t: self.t,
                i: l.node,
            },
        ))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.links.size_hint()
    }
}

impl DoubleEndedIterator for Members<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        let l = *self.links.next_back()?;
        Some((
            self.t.key(l),
            V {
                t: self.t,
                i: l.node,
            },
        ))
    }
}

impl ExactSizeIterator for Members<'_> {}

/// An array's items (see [`Arr::iter`]).
#[derive(Clone)]
pub struct Items<'t> {
    t: &'t Tree,
    links: std::slice::Iter<'t, Link>,
}

impl<'t> Iterator for Items<'t> {
    type Item = V<'t>;
    #[inline]
    fn next(&mut self) -> Option<V<'t>> {
        let l = self.links.next()?;
        Some(V {
            t: self.t,
            i: l.node,
        })
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.links.size_hint()
    }
}

impl DoubleEndedIterator for Items<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        let l = self.links.next_back()?;
        Some(V {
            t: self.t,
            i: l.node,
        })
    }
}

impl ExactSizeIterator for Items<'_> {}

impl fmt::Debug for Arr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

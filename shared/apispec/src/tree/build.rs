//! Writing a [`Tree`]: the parsers build one bottom-up with a [`Builder`].

use std::hash::BuildHasher as _;

use serde_json::Value;

use super::{
    ARR, BOOL, FLOAT, INT, INTERN_MAX, Link, NULL, Node, Num, OBJ, SCAN_MAX, STR, Tree, UINT,
};

/// Builds a [`Tree`] bottom-up: leaves return their node id; a container is opened with
/// [`Builder::mark`], its children pushed with [`Builder::push_item`] /
/// [`Builder::push_member`] as they complete, and closed with [`Builder::close_array`] /
/// [`Builder::close_object`].
pub struct Builder {
    tree: Tree,
    /// Children of the containers being built, innermost last.
    pending: Vec<Link>,
    /// Interned strings: (offset, length) in the arena, hashed by content.
    interned: hashbrown::HashTable<(u32, u32)>,
}

/// A duplicate key found when closing an object: the index of the member that repeats an
/// earlier one, counted from the object's first member.
#[derive(Debug, Clone, Copy)]
pub struct Duplicate(pub usize);

impl Builder {
    /// `hint`: the text's length, to size the vectors once.
    pub fn new(hint: usize) -> Builder {
        Builder {
            tree: Tree {
                nodes: Vec::with_capacity(hint / 40),
                links: Vec::with_capacity(hint / 40),
                arena: String::with_capacity(hint / 4),
                ..Tree::default()
            },
            pending: Vec::new(),
            interned: hashbrown::HashTable::new(),
        }
    }

    fn push(&mut self, tag: u32, a: u32, b: u32) -> u32 {
        let id = self.tree.nodes.len() as u32;
        self.tree.nodes.push(Node { tag, a, b });
        id
    }

    pub fn null(&mut self) -> u32 {
        self.push(NULL, 0, 0)
    }

    pub fn bool(&mut self, b: bool) -> u32 {
        self.push(BOOL, u32::from(b), 0)
    }

    pub fn number(&mut self, n: Num) -> u32 {
        let (tag, bits) = match n {
            Num::Uint(u) => (UINT, u),
            Num::Int(i) if i >= 0 => (UINT, i as u64),
            Num::Int(i) => (INT, i as u64),
            Num::Float(f) => (FLOAT, f.to_bits()),
        };
        self.push(tag, bits as u32, (bits >> 32) as u32)
    }

    /// Stores `s` in the arena (once, if short or `always_once`) and returns its
    /// (offset, length).
    fn store(&mut self, s: &str, always_once: bool) -> (u32, u32) {
        if s.len() > INTERN_MAX && !always_once {
            let at = self.tree.arena.len() as u32;
            self.tree.arena.push_str(s);
            return (at, s.len() as u32);
        }
        let hash = self.tree.hasher.hash_one(s);
        let arena = &self.tree.arena;
        if let Some(&found) = self.interned.find(hash, |&(a, b)| {
            arena.get(a as usize..(a + b) as usize) == Some(s)
        }) {
            return found;
        }
        let at = self.tree.arena.len() as u32;
        self.tree.arena.push_str(s);
        let entry = (at, s.len() as u32);
        let (arena, hasher) = (&self.tree.arena, &self.tree.hasher);
        self.interned.insert_unique(hash, entry, |&(a, b)| {
            hasher.hash_one(arena.get(a as usize..(a + b) as usize).unwrap_or(""))
        });
        entry
    }

    pub fn string(&mut self, s: &str) -> u32 {
        let (a, b) = self.store(s, false);
        self.push(STR, a, b)
    }

    /// Where the children of a container about to be built start.
    #[inline]
    pub fn mark(&self) -> usize {
        self.pending.len()
    }

    pub fn push_item(&mut self, node: u32) {
        self.pending.push(Link {
            key: 0,
            key_len: u32::MAX,
            node,
        });
    }

    pub fn push_member(&mut self, key: &str, node: u32) {
        let (key, key_len) = self.store(key, true);
        self.pending.push(Link { key, key_len, node });
    }

    /// The key of pending member `i` (counted from `mark`).
    pub fn pending_key(&self, mark: usize, i: usize) -> &str {
        self.pending.get(mark + i).map_or("", |l| self.tree.key(*l))
    }

    pub fn close_array(&mut self, mark: usize) -> u32 {
        let start = self.tree.links.len() as u32;
        let len = (self.pending.len() - mark) as u32;
        self.tree.links.extend(self.pending.drain(mark..));
        self.push(ARR, start, len)
    }

    /// Closes an object; a key given twice is refused.
    pub fn close_object(&mut self, mark: usize) -> Result<u32, Duplicate> {
        let members = &self.pending[mark..];
        let n = members.len();
        if n <= SCAN_MAX {
            for i in 1..n {
                let k = members[i];
                if members[..i].iter().any(|m| m.same_key(k)) {
                    return Err(Duplicate(i));
                }
            }
        }
        let start = self.tree.links.len() as u32;
        self.tree.links.extend(self.pending.drain(mark..));
        let id = self.tree.nodes.len() as u32;
        if n > SCAN_MAX {
            let t = &self.tree;
            let mut table = hashbrown::HashTable::with_capacity(n);
            for li in start..start + n as u32 {
                let link = t.links[li as usize];
                let hash = t.hasher.hash_one(t.key(link));
                let links = &t.links;
                if table
                    .find(hash, |&other: &u32| links[other as usize].same_key(link))
                    .is_some()
                {
                    // Put the members back, so the caller can still name the key.
                    let links: Vec<Link> = self.tree.links.drain(start as usize..).collect();
                    self.pending.extend(links);
                    return Err(Duplicate((li - start) as usize));
                }
                table.insert_unique(hash, li, |&other| {
                    t.hasher.hash_one(t.key(links[other as usize]))
                });
            }
            let slot = self.tree.tables.len() as u32;
            self.tree.tables.push(table);
            self.tree.index.insert(id, slot);
        }
        Ok(self.push(OBJ, start, n as u32))
    }

    /// Copies a `serde_json::Value` in.
    pub fn value(&mut self, v: &Value) -> u32 {
        match v {
            Value::Null => self.null(),
            Value::Bool(b) => self.bool(*b),
            Value::Number(n) => self.number(if let Some(u) = n.as_u64() {
                Num::Uint(u)
            } else if let Some(i) = n.as_i64() {
                Num::Int(i)
            } else {
                Num::Float(n.as_f64().unwrap_or(0.0))
            }),
            Value::String(s) => self.string(s),
            Value::Array(a) => {
                let mark = self.mark();
                for x in a {
                    let id = self.value(x);
                    self.push_item(id);
                }
                self.close_array(mark)
            }
            Value::Object(m) => {
                let mark = self.mark();
                for (k, x) in m {
                    let id = self.value(x);
                    self.push_member(k, id);
                }
                // A serde_json map has unique keys.
                self.close_object(mark).unwrap_or(0)
            }
        }
    }

    /// The finished tree, rooted at `root`.
    pub fn finish(mut self, root: u32) -> Tree {
        self.tree.root = root;
        self.tree
    }
}

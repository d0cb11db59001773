//! The compact document tree every file of a [`Document`](crate::Document) is held in.
//!
//! A `serde_json::Value` costs about 150 bytes per object member (an ordered map bucket, a
//! heap-allocated key, a hash index) and one allocation per string: the 4 MB Stripe YAML
//! document needed 40 MB of heap as `Value`s. Here a node is 12 bytes in one vector, the
//! members and items of every container are 12-byte links in a second vector, and every key and
//! every short string is stored once in one string arena (API documents repeat the same few
//! thousand keys and values: `type`, `string`, `description`, ...). Reading is through
//! [`V`], a copyable handle (tree + index), with the accessors of `serde_json::Value`.
//!
//! Object members keep their document order. Members are found by scanning for objects of up
//! to [`SCAN_MAX`] members (most objects of an API document are small; a scan compares
//! lengths first) and through a hash index built once for larger ones.
//!
//! The parts: this file holds the storage (nodes, links, the string arena) and [`Tree`];
//! `value.rs` reads one value ([`V`], [`Kind`], [`Num`]); `containers.rs` reads objects and
//! arrays ([`Obj`], [`Arr`] and their iterators); `build.rs` writes a tree ([`Builder`]);
//! `schema.rs` lets `jsonschema` validate a tree in place.

use std::fmt;

use serde_json::Value;

mod build;
mod containers;
pub(crate) mod schema;
mod value;

pub use build::{Builder, Duplicate};
pub use containers::{Arr, Items, Members, Obj};
pub use value::{Kind, Num, V};

/// Objects up to this size are scanned for a key; larger ones have a hash index.
pub const SCAN_MAX: usize = 32;

/// Strings up to this length are stored once however often they occur.
const INTERN_MAX: usize = 64;

const NULL: u32 = 0;
const BOOL: u32 = 1;
const UINT: u32 = 2;
const INT: u32 = 3;
const FLOAT: u32 = 4;
const STR: u32 = 5;
const ARR: u32 = 6;
const OBJ: u32 = 7;

/// One node: a tag and two words (a string's offset and length in the arena, a container's
/// first link and length, or a number's 64 bits).
#[derive(Clone, Copy, Debug)]
struct Node {
    tag: u32,
    a: u32,
    b: u32,
}

/// One member or item of a container. For a member, the key's (offset, length) in the
/// arena: keys are always stored once, so two members have the same key exactly when their
/// spans are equal. For an item, `key_len == u32::MAX`.
#[derive(Clone, Copy, Debug)]
struct Link {
    key: u32,
    key_len: u32,
    node: u32,
}

impl Link {
    #[inline]
    fn same_key(self, other: Link) -> bool {
        self.key == other.key && self.key_len == other.key_len
    }
}

/// A parsed file. Build one with [`Builder`] (the parsers do) or [`Tree::from_value`].
#[derive(Default)]
pub struct Tree {
    nodes: Vec<Node>,
    links: Vec<Link>,
    /// Every string's bytes, keys included.
    arena: String,
    /// For objects of more than [`SCAN_MAX`] members: the slot in `tables` of their index,
    /// which holds their link indices hashed by key.
    index: hashbrown::HashMap<u32, u32>,
    tables: Vec<hashbrown::HashTable<u32>>,
    /// Hashes strings for the indexes and for interning (seeded per tree, so that crafted
    /// input cannot aim collisions at them).
    hasher: hashbrown::DefaultHashBuilder,
    root: u32,
}

impl fmt::Debug for Tree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.root(), f)
    }
}

impl Tree {
    /// The root value.
    #[inline]
    pub fn root(&self) -> V<'_> {
        V {
            t: self,
            i: self.root,
        }
    }

    /// A tree holding one string.
    pub fn string(s: &str) -> Tree {
        let mut b = Builder::new(0);
        let root = b.string(s);
        b.finish(root)
    }

    /// A tree holding a copy of `v`.
    pub fn from_value(v: &Value) -> Tree {
        let mut b = Builder::new(0);
        let root = b.value(v);
        b.finish(root)
    }

    /// The string stored at (offset, length).
    #[inline]
    fn str_at(&self, a: u32, b: u32) -> &str {
        let (start, end) = (a as usize, a as usize + b as usize);
        assert!(end <= self.arena.len());
        debug_assert!(self.arena.is_char_boundary(start) && self.arena.is_char_boundary(end));
        // SAFETY: every (offset, length) in a tree was recorded by `Builder::store` for a
        // whole `&str` it appended to the arena, so both ends are char boundaries (the bounds
        // are checked above); the fields are private, so no other spans exist.
        unsafe { self.arena.get_unchecked(start..end) }
    }

    #[inline]
    fn key(&self, l: Link) -> &str {
        self.str_at(l.key, l.key_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tree_reads_back_what_it_was_built_from_in_document_order() {
        let v = json!({"b": [1, -2, 2.5, "x", null, true], "a": {"c": "d"}, "e": ""});
        let t = Tree::from_value(&v);
        assert_eq!(t.root().to_value(), v);
        assert_eq!(
            t.root().as_object().map(|m| m.keys().collect::<Vec<_>>()),
            Some(vec!["b", "a", "e"])
        );
        assert_eq!(t.root().pointer("/a/c").and_then(V::as_str), Some("d"));
        assert_eq!(t.root().pointer("/b/1").and_then(V::as_i64), Some(-2));
        assert!(t.root().pointer("/b/01").is_none());
        assert_eq!(serde_json::to_value(t.root()).ok(), Some(v));
    }

    #[test]
    fn large_objects_are_found_through_their_index_and_duplicates_are_refused() {
        let mut m = serde_json::Map::new();
        for i in 0..200 {
            m.insert(format!("k{i}"), json!(i));
        }
        let t = Tree::from_value(&Value::Object(m));
        for i in 0..200 {
            assert_eq!(t.root().get(&format!("k{i}")).and_then(V::as_u64), Some(i));
        }
        assert!(t.root().get("k200").is_none());

        for n in [3usize, 100] {
            let mut b = Builder::new(0);
            let mark = b.mark();
            for i in 0..n {
                let v = b.null();
                let key = if i == n - 1 {
                    "k1".to_string()
                } else {
                    format!("k{i}")
                };
                b.push_member(&key, v);
            }
            let dup = b.close_object(mark).expect_err("duplicate key");
            assert_eq!(b.pending_key(mark, dup.0), "k1");
        }
    }

    #[test]
    fn the_empty_object_and_array_have_nothing_in_them() {
        assert!(Obj::empty().is_empty() && Obj::empty().get("a").is_none());
        assert_eq!(Obj::empty().as_value().to_value(), json!({}));
        assert!(Arr::empty().is_empty() && Arr::empty().get(0).is_none());
    }

    #[test]
    fn an_empty_key_is_its_own_key() {
        let v = json!({"a": {"x": ""}, "": 1, "x": 2});
        let t = Tree::from_value(&v);
        assert_eq!(t.root().to_value(), v);
        assert_eq!(t.root().get("").and_then(V::as_u64), Some(1));
    }

    #[test]
    fn equal_strings_are_stored_once() {
        let v = json!([{"type": "string"}, {"type": "string"}, {"type": "string"}]);
        let t = Tree::from_value(&v);
        assert_eq!(t.arena, "stringtype");
        assert_eq!(t.root(), Tree::from_value(&v).root());
        assert!(t.root().equals(&v));
        assert!(!t.root().equals(&json!([])));
    }

    #[test]
    fn numbers_keep_serde_json_semantics() {
        let t = Tree::from_value(&json!([1, 1.0, -1, 18446744073709551615u64]));
        let a = t.root().as_array().expect("array");
        assert_ne!(a.get(0), a.get(1));
        assert_eq!(a.get(2).and_then(V::as_i64), Some(-1));
        assert_eq!(a.get(3).and_then(V::as_u64), Some(u64::MAX));
        assert_eq!(t.root().to_string(), "[1,1.0,-1,18446744073709551615]");
    }
}

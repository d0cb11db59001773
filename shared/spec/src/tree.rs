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

use std::borrow::Cow;
use std::fmt;
use std::hash::BuildHasher as _;

use serde_json::Value;

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

/// A JSON number as the parsers read it: like `serde_json::Number`, a non-negative integer is
/// `Uint`, a negative one `Int`, anything else `Float` (finite).
#[derive(Clone, Copy, Debug)]
pub enum Num {
    Uint(u64),
    Int(i64),
    Float(f64),
}

impl Num {
    pub fn as_u64(self) -> Option<u64> {
        match self {
            Num::Uint(u) => Some(u),
            Num::Int(i) => u64::try_from(i).ok(),
            Num::Float(_) => None,
        }
    }
    pub fn as_i64(self) -> Option<i64> {
        match self {
            Num::Uint(u) => i64::try_from(u).ok(),
            Num::Int(i) => Some(i),
            Num::Float(_) => None,
        }
    }
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Uint(u) => u as f64,
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
    pub fn to_number(self) -> serde_json::Number {
        match self {
            Num::Uint(u) => u.into(),
            Num::Int(i) => i.into(),
            Num::Float(f) => serde_json::Number::from_f64(f).unwrap_or_else(|| 0.into()),
        }
    }
}

impl PartialEq for Num {
    /// As `serde_json::Number`: an integer never equals a float.
    fn eq(&self, other: &Num) -> bool {
        match (*self, *other) {
            (Num::Uint(a), Num::Uint(b)) => a == b,
            (Num::Int(a), Num::Int(b)) => a == b,
            (Num::Float(a), Num::Float(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_number(), f)
    }
}

/// A value in a [`Tree`]: copy it freely (two words).
#[derive(Clone, Copy)]
pub struct V<'t> {
    t: &'t Tree,
    i: u32,
}

/// What a [`V`] is, for `match`.
#[derive(Clone, Copy, Debug)]
pub enum Kind<'t> {
    Null,
    Bool(bool),
    Number(Num),
    String(&'t str),
    Array(Arr<'t>),
    Object(Obj<'t>),
}

/// An object's members, in document order.
#[derive(Clone, Copy)]
pub struct Obj<'t> {
    t: &'t Tree,
    node: u32,
    start: u32,
    len: u32,
}

/// An array's items.
#[derive(Clone, Copy)]
pub struct Arr<'t> {
    t: &'t Tree,
    start: u32,
    len: u32,
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

impl<'t> V<'t> {
    #[inline]
    fn node(self) -> Node {
        self.t.nodes[self.i as usize]
    }

    /// The tree this value is in.
    pub fn tree(self) -> &'t Tree {
        self.t
    }

    /// An id unique among the tree's values (a value reached through several YAML aliases is
    /// one value).
    #[inline]
    pub fn id(self) -> u32 {
        self.i
    }

    /// What this value is.
    #[inline]
    pub fn kind(self) -> Kind<'t> {
        let n = self.node();
        match n.tag {
            BOOL => Kind::Bool(n.a != 0),
            UINT => Kind::Number(Num::Uint(wide(n))),
            INT => Kind::Number(Num::Int(wide(n) as i64)),
            FLOAT => Kind::Number(Num::Float(f64::from_bits(wide(n)))),
            STR => Kind::String(self.t.str_at(n.a, n.b)),
            ARR => Kind::Array(Arr {
                t: self.t,
                start: n.a,
                len: n.b,
            }),
            OBJ => Kind::Object(Obj {
                t: self.t,
                node: self.i,
                start: n.a,
                len: n.b,
            }),
            _ => Kind::Null,
        }
    }

    /// The member `key` of an object (`None` for anything else).
    #[inline]
    pub fn get(self, key: &str) -> Option<V<'t>> {
        self.as_object()?.get(key)
    }

    /// Item `i` of an array.
    #[inline]
    pub fn at(self, i: usize) -> Option<V<'t>> {
        self.as_array()?.get(i)
    }

    #[inline]
    pub fn as_object(self) -> Option<Obj<'t>> {
        let n = self.node();
        (n.tag == OBJ).then_some(Obj {
            t: self.t,
            node: self.i,
            start: n.a,
            len: n.b,
        })
    }

    #[inline]
    pub fn as_array(self) -> Option<Arr<'t>> {
        let n = self.node();
        (n.tag == ARR).then_some(Arr {
            t: self.t,
            start: n.a,
            len: n.b,
        })
    }

    #[inline]
    pub fn as_str(self) -> Option<&'t str> {
        let n = self.node();
        (n.tag == STR).then(|| self.t.str_at(n.a, n.b))
    }

    #[inline]
    pub fn as_bool(self) -> Option<bool> {
        let n = self.node();
        (n.tag == BOOL).then_some(n.a != 0)
    }

    #[inline]
    pub fn as_number(self) -> Option<Num> {
        match self.kind() {
            Kind::Number(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_u64(self) -> Option<u64> {
        self.as_number()?.as_u64()
    }

    pub fn as_i64(self) -> Option<i64> {
        self.as_number()?.as_i64()
    }

    pub fn as_f64(self) -> Option<f64> {
        Some(self.as_number()?.as_f64())
    }

    #[inline]
    pub fn is_null(self) -> bool {
        self.node().tag == NULL
    }
    #[inline]
    pub fn is_boolean(self) -> bool {
        self.node().tag == BOOL
    }
    #[inline]
    pub fn is_number(self) -> bool {
        matches!(self.node().tag, UINT | INT | FLOAT)
    }
    #[inline]
    pub fn is_string(self) -> bool {
        self.node().tag == STR
    }
    #[inline]
    pub fn is_array(self) -> bool {
        self.node().tag == ARR
    }
    #[inline]
    pub fn is_object(self) -> bool {
        self.node().tag == OBJ
    }

    /// Follows a JSON pointer (RFC 6901; no `$ref` following). An array index must be written
    /// without leading zeros.
    pub fn pointer(self, pointer: &str) -> Option<V<'t>> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        let mut here = self;
        for raw in rest.split('/') {
            here = if raw.contains('~') {
                here.step(&crate::pointer::unescape(raw)?)?
            } else {
                here.step(raw)?
            };
        }
        Some(here)
    }

    /// One pointer token: an object member, or an array index.
    pub fn step(self, token: &str) -> Option<V<'t>> {
        match self.kind() {
            Kind::Object(m) => m.get(token),
            Kind::Array(a) => a.get(index_token(token)?),
            _ => None,
        }
    }

    /// A `serde_json::Value` copy (for output: renderings, error reports).
    pub fn to_value(self) -> Value {
        match self.kind() {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(b),
            Kind::Number(n) => Value::Number(n.to_number()),
            Kind::String(s) => Value::String(s.to_owned()),
            Kind::Array(a) => Value::Array(a.iter().map(V::to_value).collect()),
            Kind::Object(m) => {
                let mut out = serde_json::Map::with_capacity(m.len());
                for (k, v) in m.iter() {
                    out.insert(k.to_owned(), v.to_value());
                }
                Value::Object(out)
            }
        }
    }

    /// Equality with a `serde_json::Value` (numbers as `serde_json::Number` compares them).
    pub fn equals(self, other: &Value) -> bool {
        match (self.kind(), other) {
            (Kind::Null, Value::Null) => true,
            (Kind::Bool(a), Value::Bool(b)) => a == *b,
            (Kind::Number(a), Value::Number(b)) => a.to_number() == *b,
            (Kind::String(a), Value::String(b)) => a == b,
            (Kind::Array(a), Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equals(y))
            }
            (Kind::Object(a), Value::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, x)| b.get(k).is_some_and(|y| x.equals(y)))
            }
            _ => false,
        }
    }
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

/// Parses an array index token: digits, no leading zero (except `0` itself).
#[inline]
pub(crate) fn index_token(token: &str) -> Option<usize> {
    if token.is_empty() || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    if !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

#[inline]
fn wide(n: Node) -> u64 {
    u64::from(n.a) | (u64::from(n.b) << 32)
}

impl PartialEq for V<'_> {
    /// Deep equality, as `serde_json::Value`'s (member order does not matter).
    fn eq(&self, other: &V<'_>) -> bool {
        if std::ptr::eq(self.t, other.t) && self.i == other.i {
            return true;
        }
        match (self.kind(), other.kind()) {
            (Kind::Null, Kind::Null) => true,
            (Kind::Bool(a), Kind::Bool(b)) => a == b,
            (Kind::Number(a), Kind::Number(b)) => a == b,
            (Kind::String(a), Kind::String(b)) => a == b,
            (Kind::Array(a), Kind::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x == y)
            }
            (Kind::Object(a), Kind::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, x)| b.get(k).is_some_and(|y| x == y))
            }
            _ => false,
        }
    }
}

impl fmt::Debug for V<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            Kind::Null => f.write_str("null"),
            Kind::Bool(b) => write!(f, "{b}"),
            Kind::Number(n) => write!(f, "{n}"),
            Kind::String(s) => write!(f, "{s:?}"),
            Kind::Array(a) => f.debug_list().entries(a.iter()).finish(),
            Kind::Object(m) => f.debug_map().entries(m.iter()).finish(),
        }
    }
}

impl fmt::Display for V<'_> {
    /// Compact JSON.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&s)
    }
}

impl serde::Serialize for V<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self.kind() {
            Kind::Null => s.serialize_unit(),
            Kind::Bool(b) => s.serialize_bool(b),
            Kind::Number(Num::Uint(u)) => s.serialize_u64(u),
            Kind::Number(Num::Int(i)) => s.serialize_i64(i),
            Kind::Number(Num::Float(x)) => s.serialize_f64(x),
            Kind::String(x) => s.serialize_str(x),
            Kind::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a.iter() {
                    seq.serialize_element(&v)?;
                }
                seq.end()
            }
            Kind::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m.iter() {
                    map.serialize_entry(k, &v)?;
                }
                map.end()
            }
        }
    }
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

/// The tree as an instance representation for `jsonschema`, which validates it in place.
pub(crate) mod schema {
    use super::*;
    use jsonschema::JsonType;
    use jsonschema::json::{Array, Json, JsonNumber, Node as JNode, NodeIdentity, Object};

    /// Marker type: validators built with `jsonschema::options_for::<TreeJson>()` take [`V`]s.
    pub(crate) struct TreeJson;

    impl Json for TreeJson {
        type Node<'a> = V<'a>;
        type PreparedKey = Box<str>;
        type StringBuffer = Tree;
        // Small objects are scanned, so visiting members is as cheap as a few lookups.
        const KEYS_PER_LOOKUP: usize = 4;

        fn prepare_key(key: &str) -> Box<str> {
            key.into()
        }

        fn with_string_node<T>(buffer: &mut Tree, string: &str, f: impl FnOnce(V<'_>) -> T) -> T {
            *buffer = Tree::string(string);
            f(buffer.root())
        }
    }

    impl JsonNumber for Num {
        fn as_u64(&self) -> Option<u64> {
            match *self {
                Num::Uint(u) => Some(u),
                _ => None,
            }
        }
        fn as_i64(&self) -> Option<i64> {
            match *self {
                Num::Uint(u) => i64::try_from(u).ok(),
                Num::Int(i) => Some(i),
                Num::Float(_) => None,
            }
        }
        fn as_f64(&self) -> Option<f64> {
            Some(Num::as_f64(*self))
        }
        fn as_str(&self) -> Cow<'_, str> {
            Cow::Owned(self.to_string())
        }
        fn to_number(&self) -> Cow<'_, serde_json::Number> {
            Cow::Owned(Num::to_number(*self))
        }
        fn is_integer(&self) -> bool {
            match *self {
                Num::Float(f) => f.fract() == 0.0,
                _ => true,
            }
        }
        fn is_written_as_integer(&self) -> bool {
            !matches!(self, Num::Float(_))
        }
    }

    #[derive(Clone, Copy)]
    pub(crate) struct SchemaObj<'a>(Obj<'a>);
    #[derive(Clone, Copy)]
    pub(crate) struct SchemaArr<'a>(Arr<'a>);

    impl<'a> JNode<'a, TreeJson> for V<'a> {
        type Object = SchemaObj<'a>;
        type Array = SchemaArr<'a>;
        type Number = Num;

        fn as_object(&self) -> Option<SchemaObj<'a>> {
            V::as_object(*self).map(SchemaObj)
        }
        fn as_array(&self) -> Option<SchemaArr<'a>> {
            V::as_array(*self).map(SchemaArr)
        }
        fn as_string(&self) -> Option<Cow<'a, str>> {
            V::as_str(*self).map(Cow::Borrowed)
        }
        fn as_number(&self) -> Option<Num> {
            V::as_number(*self)
        }
        fn as_boolean(&self) -> Option<bool> {
            V::as_bool(*self)
        }
        fn is_null(&self) -> bool {
            V::is_null(*self)
        }
        fn is_number(&self) -> bool {
            V::is_number(*self)
        }
        fn is_string(&self) -> bool {
            V::is_string(*self)
        }
        fn json_type(&self) -> JsonType {
            match self.kind() {
                Kind::Null => JsonType::Null,
                Kind::Bool(_) => JsonType::Boolean,
                Kind::Number(_) => JsonType::Number,
                Kind::String(_) => JsonType::String,
                Kind::Array(_) => JsonType::Array,
                Kind::Object(_) => JsonType::Object,
            }
        }
        fn equals_value(&self, expected: &Value) -> bool {
            match (self.kind(), expected) {
                (Kind::String(a), Value::String(b)) => a == b,
                (Kind::Bool(a), Value::Bool(b)) => a == *b,
                (Kind::Null, Value::Null) => true,
                (Kind::Number(n), Value::Number(_)) => {
                    jsonschema::json::cmp::equal(&Value::Number(n.to_number()), expected)
                }
                (Kind::String(_) | Kind::Bool(_) | Kind::Null | Kind::Number(_), _) => false,
                _ => jsonschema::json::cmp::equal(&self.to_value(), expected),
            }
        }
        fn to_value(&self) -> Cow<'a, Value> {
            Cow::Owned(V::to_value(*self))
        }
        fn identity(&self) -> Option<NodeIdentity> {
            Some(NodeIdentity::tagged(
                std::ptr::from_ref(self.t) as usize,
                self.i,
            ))
        }
    }

    impl<'a> Object<'a, TreeJson> for SchemaObj<'a> {
        type Node = V<'a>;
        type MemberName = &'a str;
        type MembersIter = Members<'a>;

        fn len(&self) -> usize {
            self.0.len()
        }
        fn get(&self, key: &Box<str>) -> Option<V<'a>> {
            self.0.get(key)
        }
        fn members(&self) -> Members<'a> {
            self.0.iter()
        }
    }

    impl<'a> Array<'a, TreeJson> for SchemaArr<'a> {
        type Node = V<'a>;
        type ElementsIter = Items<'a>;

        fn len(&self) -> usize {
            self.0.len()
        }
        fn elements(&self) -> Items<'a> {
            self.0.iter()
        }
        /// Arrays of strings (`required`, `enum`, `tags`, ...) are checked without building
        /// `serde_json::Value` copies.
        fn is_unique(&self) -> bool {
            let items = self.0;
            if items.iter().all(V::is_string) {
                let mut seen = std::collections::HashSet::with_capacity(items.len());
                return items.iter().filter_map(V::as_str).all(|s| seen.insert(s));
            }
            let values: Vec<Value> = items.iter().map(V::to_value).collect();
            jsonschema::json::unique::is_unique(&values)
        }
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

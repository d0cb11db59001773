//! One value of a [`Tree`]: [`V`], the copyable handle every reader holds, what it is
//! ([`Kind`]), its numbers ([`Num`]), and its comparisons and serializations.

use std::fmt;

use serde_json::Value;

use super::{ARR, Arr, BOOL, FLOAT, INT, NULL, Node, OBJ, Obj, STR, Tree, UINT};

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
    pub(super) t: &'t Tree,
    pub(super) i: u32,
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

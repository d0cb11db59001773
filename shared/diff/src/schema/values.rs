//! Reading and comparing schema values: deep equality (with and without `$ref`s), values
//! missing from a list, short renderings for messages, `properties` and `required`.

use std::collections::BTreeSet;

use specpress_apispec::{Arr, Kind, Obj, V};

use crate::nav::{FxBuild, FxSet};

/// `m.get(key)` that first tries `near`, the entry of `m` at the position of `key` in the
/// other version's map (read by a walk alongside it): two versions of a document usually
/// list properties in the same order, and a lookup compares keys.
#[inline(always)]
pub(super) fn get_at<'m>(m: Obj<'m>, near: Option<(&'m str, V<'m>)>, key: &str) -> Option<V<'m>> {
    match near {
        Some((k, v)) if k == key => Some(v),
        _ => m.get(key),
    }
}

/// Whether a key of `from` is missing from `other`.
pub(super) fn missing_any(from: Obj<'_>, other: Obj<'_>) -> bool {
    let mut near = other.iter();
    from.keys().any(|k| get_at(other, near.next(), k).is_none())
}

/// Deep equality that walks objects in key order when both sides list their keys in the same
/// order (the usual case between two versions of one document), and falls back to lookups
/// otherwise (a lookup per key).
pub(super) fn same(a: V<'_>, b: V<'_>) -> bool {
    same_kind(a.kind(), b.kind())
}

/// [`same`] on values already read; leaves (most members) are compared without a call.
fn same_kind(a: Kind<'_>, b: Kind<'_>) -> bool {
    let child = |v: V<'_>, w: V<'_>| match (v.kind(), w.kind()) {
        (x @ (Kind::Object(_) | Kind::Array(_)), y) => same_kind(x, y),
        (x, y) => same_leaf(x, y),
    };
    match (a, b) {
        (Kind::Object(x), Kind::Object(y)) => {
            if x.len() != y.len() {
                return false;
            }
            let mut in_order = true;
            let mut ys = y.iter();
            for (ka, va) in x.iter() {
                let Some((kb, vb)) = ys.next() else { break };
                if ka != kb {
                    in_order = false;
                    break;
                }
                if !child(va, vb) {
                    return false;
                }
            }
            in_order || x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        (Kind::Array(x), Kind::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(v, w)| child(v, w))
        }
        (x, y) => same_leaf(x, y),
    }
}

/// Equality of two values of which one at least is not a container (`V`'s own equality,
/// without reading each value's kind again).
#[inline]
fn same_leaf(a: Kind<'_>, b: Kind<'_>) -> bool {
    match (a, b) {
        (Kind::String(x), Kind::String(y)) => x == y,
        (Kind::Bool(x), Kind::Bool(y)) => x == y,
        (Kind::Number(x), Kind::Number(y)) => x == y,
        (Kind::Null, Kind::Null) => true,
        _ => false,
    }
}

/// The values of `from` that `other` does not hold, in the order of `from`. Strings (most
/// enum values) are looked up in a set, other values compared one by one.
pub(super) fn not_in<'v>(from: &[V<'v>], other: &[V<'v>]) -> Vec<V<'v>> {
    if other.len() <= 8 {
        return from
            .iter()
            .filter(|v| !other.contains(v))
            .copied()
            .collect();
    }
    let mut strings = FxSet::with_capacity_and_hasher(other.len(), FxBuild::default());
    let mut rest = Vec::new();
    for v in other {
        match v.as_str() {
            Some(s) => {
                strings.insert(s);
            }
            None => rest.push(*v),
        }
    }
    from.iter()
        .filter(|v| match v.as_str() {
            Some(s) => !strings.contains(s),
            None => !rest.contains(v),
        })
        .copied()
        .collect()
}

/// Deep equality of two subtrees that also holds no `$ref` (so nothing outside them can
/// differ either).
pub(crate) fn same_without_refs(a: V<'_>, b: V<'_>) -> bool {
    match (a.kind(), b.kind()) {
        (Kind::Object(x), Kind::Object(y)) => {
            x.len() == y.len()
                && !x.contains_key("$ref")
                && x.iter()
                    .zip(y.iter())
                    .all(|((ka, va), (kb, vb))| ka == kb && same_without_refs(va, vb))
        }
        (Kind::Array(x), Kind::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(v, w)| same_without_refs(v, w))
        }
        (x, y) => same_leaf(x, y),
    }
}

pub(super) fn short(v: V<'_>) -> String {
    let s = v.to_string();
    if s.len() > 60 {
        let mut cut = 57;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}...", &s[..cut])
    } else {
        s
    }
}

pub(super) fn names(list: &[V<'_>]) -> String {
    list.iter()
        .map(|v| short(*v))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The array under `key` (empty when there is none).
#[inline(always)]
pub(super) fn array<'v>(m: Obj<'v>, key: &str) -> Arr<'v> {
    m.get(key)
        .and_then(V::as_array)
        .unwrap_or_else(|| Arr::empty())
}

/// The object under `key` (empty when there is none).
#[inline(always)]
pub(super) fn object<'v>(m: Obj<'v>, key: &str) -> Obj<'v> {
    m.get(key)
        .and_then(V::as_object)
        .unwrap_or_else(|| Obj::empty())
}

/// Whether `key` is `true`.
#[inline(always)]
pub(super) fn is_true(m: Obj<'_>, key: &str) -> bool {
    m.get(key).and_then(V::as_bool) == Some(true)
}

/// Whether `key` holds a schema object.
#[inline(always)]
pub(super) fn has_schema(m: Obj<'_>, key: &str) -> bool {
    m.get(key).is_some_and(V::is_object)
}

/// The `properties` of a schema (empty when it has none).
#[inline(always)]
pub(super) fn props_of(m: Obj<'_>) -> Obj<'_> {
    m.get("properties")
        .and_then(V::as_object)
        .unwrap_or_else(|| Obj::empty())
}

pub(super) fn required_set(m: Obj<'_>) -> BTreeSet<&str> {
    m.get("required")
        .and_then(V::as_array)
        .map(|a| a.iter().filter_map(V::as_str).collect())
        .unwrap_or_default()
}

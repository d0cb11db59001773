//! Fast navigation in a document: pointer lookups and `$ref` resolution with two caches.
//!
//! The spec engine's `value`/`resolve` walk every pointer from the file root and allocate a
//! string per token; on large documents that dominated the diff. Here a pointer is walked
//! without allocation (unless it holds `~` escapes), from the last path item looked up when
//! the pointer lies inside it, and each `$ref` string is resolved once per file.

use std::collections::HashMap;

use serde_json::Value;
use specpress_spec::{Document, FileId, Location};

/// Longest `$ref` chain followed (the spec engine's default limit).
const MAX_CHAIN: usize = 64;

pub(crate) struct Nav<'a> {
    doc: &'a Document,
    /// The last two-token prefix (`/paths/<path>`) walked, and its value.
    prefix: Option<(FileId, String, &'a Value)>,
    /// `$ref` strings already resolved: (file, ref) → final location and value.
    refs: HashMap<(FileId, &'a str), Option<(Location, &'a Value)>>,
}

fn walk<'v>(mut v: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        return Some(v);
    }
    for raw in pointer.strip_prefix('/')?.split('/') {
        let token: std::borrow::Cow<'_, str> = if raw.contains('~') {
            raw.replace("~1", "/").replace("~0", "~").into()
        } else {
            raw.into()
        };
        v = match v {
            Value::Object(m) => m.get(token.as_ref())?,
            Value::Array(a) => a.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(v)
}

/// The end of the first two tokens of a pointer (`/paths/~1pets`), if it has more.
fn prefix_end(pointer: &str) -> Option<usize> {
    let first = pointer.get(1..)?.find('/')? + 1;
    let second = pointer.get(first + 1..)?.find('/')? + first + 1;
    Some(second)
}

impl<'a> Nav<'a> {
    pub(crate) fn new(doc: &'a Document) -> Self {
        Nav {
            doc,
            prefix: None,
            refs: HashMap::new(),
        }
    }

    /// The value at a location (no `$ref` following).
    pub(crate) fn lookup(&mut self, at: &Location) -> Option<&'a Value> {
        if let Some(end) = prefix_end(&at.pointer) {
            let (head, tail) = at.pointer.split_at(end);
            if let Some((file, p, v)) = &self.prefix
                && *file == at.file
                && p == head
            {
                return walk(v, tail);
            }
            let root = self.doc.value(&Location::root(at.file))?;
            let base = walk(root, head)?;
            self.prefix = Some((at.file, head.to_string(), base));
            return walk(base, tail);
        }
        walk(self.doc.value(&Location::root(at.file))?, &at.pointer)
    }

    /// Follows `$ref`s from a location; `None` when a reference cannot be followed.
    pub(crate) fn resolve(&mut self, at: &Location) -> Option<(Location, &'a Value)> {
        let v = self.lookup(at)?;
        match v.get("$ref").and_then(Value::as_str) {
            None => Some((at.clone(), v)),
            Some(r) => self.follow(at.file, r),
        }
    }

    /// Resolves the `$ref` string `r` written in `file`.
    pub(crate) fn follow(&mut self, file: FileId, r: &'a str) -> Option<(Location, &'a Value)> {
        if let Some(hit) = self.refs.get(&(file, r)) {
            return hit.clone();
        }
        let mut here = self.doc.ref_target(file, r).ok();
        let mut out = None;
        for _ in 0..MAX_CHAIN {
            let Some(loc) = here.take() else { break };
            let Some(v) = self.lookup(&loc) else { break };
            match v.get("$ref").and_then(Value::as_str) {
                Some(next) => here = self.doc.ref_target(loc.file, next).ok(),
                None => {
                    out = Some((loc, v));
                    break;
                }
            }
        }
        self.refs.insert((file, r), out.clone());
        out
    }

    /// A boolean keyword of a schema value that may be a `$ref` (the local value wins).
    pub(crate) fn flag(&mut self, file: FileId, v: &'a Value, key: &str) -> bool {
        if let Some(b) = v.get(key).and_then(Value::as_bool) {
            return b;
        }
        match v.get("$ref").and_then(Value::as_str) {
            Some(r) => self
                .follow(file, r)
                .and_then(|(_, t)| t.get(key).and_then(Value::as_bool))
                .unwrap_or(false),
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_the_first_two_pointer_tokens() {
        assert_eq!(prefix_end("/paths/~1a/get/responses"), Some(10));
        assert_eq!(prefix_end("/paths/~1a"), None);
        assert_eq!(prefix_end(""), None);
    }

    #[test]
    fn walking_unescapes_tokens() {
        let v = serde_json::json!({"paths": {"/a/{b}": {"x~y": [1, 2]}}});
        assert_eq!(
            walk(&v, "/paths/~1a~1{b}/x~0y/1"),
            Some(&serde_json::json!(2))
        );
        assert_eq!(walk(&v, "/paths/missing"), None);
    }
}

//! JSON loading with budgets: nesting depth, node count, duplicate keys (an error, where
//! serde_json would silently keep the last one) and NUL characters.
//!
//! The tree is built by a [`DeserializeSeed`] driven by serde_json, so the fast serde_json
//! tokenizer does the work; serde_json's own recursion limit (128) stays on as a second guard
//! against stack exhaustion. The path of an error is rebuilt while the error unwinds, so the
//! success path pays nothing for it.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::fmt;

use crate::Diagnostic;
use crate::tree::{Builder, Num, Tree};

/// What went wrong inside the visitor (serde's error type only carries a string).
enum Failure {
    Duplicate(String),
    Depth,
    Nodes,
    Nul,
}

struct Ctx {
    max_depth: usize,
    max_nodes: usize,
    depth: Cell<usize>,
    nodes: Cell<usize>,
    failure: RefCell<Option<Failure>>,
    /// Whether the text holds a `\u0000` escape: JSON refuses raw control characters in strings, so that escape is
    /// the only way a NUL gets into a key or string, and without it no string needs searching for one.
    nul_possible: bool,
    /// Path tokens of the failure, innermost first.
    path: RefCell<Vec<String>>,
    tree: RefCell<Builder>,
}

impl Ctx {
    fn fail<E: de::Error>(&self, f: Failure) -> E {
        *self.failure.borrow_mut() = Some(f);
        E::custom("specpress budget")
    }

    fn count<E: de::Error>(&self) -> Result<(), E> {
        let n = self.nodes.get() + 1;
        self.nodes.set(n);
        if n > self.max_nodes {
            Err(self.fail(Failure::Nodes))
        } else {
            Ok(())
        }
    }

    fn unwind(&self, token: impl FnOnce() -> String) {
        if self.failure.borrow().is_some() {
            self.path.borrow_mut().push(token());
        }
    }

    fn deeper<E: de::Error>(&self) -> Result<usize, E> {
        self.count()?;
        let depth = self.depth.get() + 1;
        if depth > self.max_depth {
            return Err(self.fail(Failure::Depth));
        }
        self.depth.set(depth);
        Ok(depth)
    }
}

/// Builds one value into the tree; yields its node id.
struct Seed<'a>(&'a Ctx);

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = u32;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<u32, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = u32;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<u32, E> {
        self.0.count()?;
        Ok(self.0.tree.borrow_mut().bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u32, E> {
        self.0.count()?;
        Ok(self.0.tree.borrow_mut().number(Num::Int(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u32, E> {
        self.0.count()?;
        Ok(self.0.tree.borrow_mut().number(Num::Uint(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<u32, E> {
        self.0.count()?;
        // serde_json refuses out-of-range numbers itself; NaN/inf cannot come from JSON text.
        let mut t = self.0.tree.borrow_mut();
        Ok(if v.is_finite() {
            t.number(Num::Float(v))
        } else {
            t.null()
        })
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<u32, E> {
        self.0.count()?;
        if self.0.nul_possible && v.contains('\0') {
            return Err(self.0.fail(Failure::Nul));
        }
        Ok(self.0.tree.borrow_mut().string(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<u32, E> {
        self.0.count()?;
        Ok(self.0.tree.borrow_mut().null())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u32, A::Error> {
        let ctx = self.0;
        let depth = ctx.deeper()?;
        let mark = ctx.tree.borrow().mark();
        let mut i = 0usize;
        loop {
            match seq.next_element_seed(Seed(ctx)) {
                Ok(Some(v)) => ctx.tree.borrow_mut().push_item(v),
                Ok(None) => break,
                Err(e) => {
                    ctx.unwind(|| i.to_string());
                    return Err(e);
                }
            }
            i += 1;
        }
        ctx.depth.set(depth - 1);
        Ok(ctx.tree.borrow_mut().close_array(mark))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u32, A::Error> {
        let ctx = self.0;
        let depth = ctx.deeper()?;
        let mark = ctx.tree.borrow().mark();
        loop {
            let key: Cow<'de, str> = match map.next_key_seed(KeySeed)? {
                Some(k) => k,
                None => break,
            };
            if ctx.nul_possible && key.contains('\0') {
                ctx.path.borrow_mut().push(key.replace('\0', "\\u0000"));
                return Err(ctx.fail(Failure::Nul));
            }
            match map.next_value_seed(Seed(ctx)) {
                Ok(v) => ctx.tree.borrow_mut().push_member(&key, v),
                Err(e) => {
                    ctx.unwind(|| key.into_owned());
                    return Err(e);
                }
            }
        }
        ctx.depth.set(depth - 1);
        let closed = ctx.tree.borrow_mut().close_object(mark);
        match closed {
            Ok(id) => Ok(id),
            Err(dup) => {
                let key = ctx.tree.borrow().pending_key(mark, dup.0).to_string();
                let err = ctx.fail(Failure::Duplicate(key.clone()));
                ctx.path.borrow_mut().push(key);
                Err(err)
            }
        }
    }
}

/// A member name, borrowed from the text when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

/// Result of loading one JSON text: the value and its node count.
pub(crate) struct Loaded {
    pub value: Tree,
    pub nodes: usize,
}

/// Parses `text` as JSON within the budgets. `nodes_before` counts nodes already used by other
/// files of the same document.
pub(crate) fn load(
    text: &str,
    max_depth: usize,
    max_nodes: usize,
    nodes_before: usize,
) -> Result<Loaded, Diagnostic> {
    let ctx = Ctx {
        max_depth,
        max_nodes,
        depth: Cell::new(0),
        nodes: Cell::new(nodes_before),
        failure: RefCell::new(None),
        nul_possible: memchr::memmem::find(text.as_bytes(), b"\\u0000").is_some(),
        path: RefCell::new(Vec::new()),
        tree: RefCell::new(Builder::new(text.len())),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let result = Seed(&ctx)
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v));
    match result {
        Ok(root) => Ok(Loaded {
            nodes: ctx.nodes.get() - nodes_before,
            value: ctx.tree.into_inner().finish(root),
        }),
        Err(e) => {
            let mut path = ctx.path.into_inner();
            path.reverse();
            let pointer = crate::pointer::from_tokens(&path);
            let (code, message) = match ctx.failure.into_inner() {
                Some(Failure::Duplicate(k)) => (
                    "duplicate-key",
                    format!(
                        "duplicate key '{k}': each key may appear only once in an object; remove or rename one of them"
                    ),
                ),
                Some(Failure::Depth) => (
                    "too-deep",
                    format!("the document nests arrays/objects more than {max_depth} levels deep"),
                ),
                Some(Failure::Nodes) => (
                    "too-many-nodes",
                    format!("the document has more than {max_nodes} values (the node budget)"),
                ),
                Some(Failure::Nul) => (
                    "nul-character",
                    "a string contains a NUL character (\\u0000), which is not accepted"
                        .to_string(),
                ),
                None => {
                    let msg = e.to_string();
                    let msg = match msg.find(" at line ") {
                        Some(i) => msg[..i].to_string(),
                        None => msg,
                    };
                    if msg.contains("recursion limit") {
                        ("too-deep", "the document nests arrays/objects too deeply (JSON recursion limit 128)".to_string())
                    } else {
                        let hint = if msg.contains("hex escape") || msg.contains("surrogate") {
                            " (a \\u escape needs 4 hex digits, and UTF-16 surrogates must come in pairs: a lone surrogate is not text)"
                        } else {
                            ""
                        };
                        ("syntax", format!("invalid JSON: {msg}{hint}"))
                    }
                }
            };
            let duplicate = code == "duplicate-key";
            let (line, column) = if e.line() > 0 && !duplicate {
                (Some(e.line() as u32), Some(e.column().max(1) as u32))
            } else {
                (None, None)
            };
            Err(Diagnostic {
                code,
                message,
                file: None,
                pointer,
                line,
                column,
            })
        }
    }
}

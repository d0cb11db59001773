//! JSON loading with budgets: nesting depth, node count, duplicate keys (an error, where
//! serde_json would silently keep the last one) and NUL characters.
//!
//! The tree is built by a [`DeserializeSeed`] driven by serde_json, so the fast serde_json
//! tokenizer does the work; serde_json's own recursion limit (128) stays on as a second guard
//! against stack exhaustion. The path of an error is rebuilt while the error unwinds, so the
//! success path pays nothing for it.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::fmt;

use crate::Diagnostic;

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
    /// Path tokens of the failure, innermost first.
    path: RefCell<Vec<String>>,
    /// Shared stacks of the members/items of the containers being read: a container is built
    /// from its segment when it closes, with the exact capacity (no growth slack).
    entries: RefCell<Vec<(String, Value)>>,
    items: RefCell<Vec<Value>>,
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
}

struct Seed<'a>(&'a Ctx);

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        self.0.count()?;
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.0.count()?;
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.0.count()?;
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        self.0.count()?;
        // serde_json refuses out-of-range numbers itself; NaN/inf cannot come from JSON text.
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.visit_string(v.to_owned())
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.0.count()?;
        if v.contains('\0') {
            return Err(self.0.fail(Failure::Nul));
        }
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.0.count()?;
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let ctx = self.0;
        ctx.count()?;
        let depth = ctx.depth.get() + 1;
        if depth > ctx.max_depth {
            return Err(ctx.fail(Failure::Depth));
        }
        ctx.depth.set(depth);
        let start = ctx.items.borrow().len();
        loop {
            match seq.next_element_seed(Seed(ctx)) {
                Ok(Some(v)) => ctx.items.borrow_mut().push(v),
                Ok(None) => break,
                Err(e) => {
                    let i = ctx.items.borrow().len() - start;
                    ctx.unwind(|| i.to_string());
                    return Err(e);
                }
            }
        }
        let out: Vec<Value> = ctx.items.borrow_mut().drain(start..).collect();
        ctx.depth.set(depth - 1);
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let ctx = self.0;
        ctx.count()?;
        let depth = ctx.depth.get() + 1;
        if depth > ctx.max_depth {
            return Err(ctx.fail(Failure::Depth));
        }
        ctx.depth.set(depth);
        let start = ctx.entries.borrow().len();
        loop {
            let key: String = match map.next_key()? {
                Some(k) => k,
                None => break,
            };
            if key.contains('\0') {
                ctx.path.borrow_mut().push(key.replace('\0', "\\u0000"));
                return Err(ctx.fail(Failure::Nul));
            }
            match map.next_value_seed(Seed(ctx)) {
                Ok(v) => ctx.entries.borrow_mut().push((key, v)),
                Err(e) => {
                    ctx.unwind(|| key);
                    return Err(e);
                }
            }
        }
        let mut entries = ctx.entries.borrow_mut();
        let mut out = Map::with_capacity(entries.len() - start);
        for (k, v) in entries.drain(start..) {
            match out.entry(k) {
                serde_json::map::Entry::Vacant(slot) => {
                    slot.insert(v);
                }
                serde_json::map::Entry::Occupied(slot) => {
                    let key = slot.key().clone();
                    let err = ctx.fail(Failure::Duplicate(key.clone()));
                    ctx.path.borrow_mut().push(key);
                    return Err(err);
                }
            }
        }
        ctx.depth.set(depth - 1);
        Ok(Value::Object(out))
    }
}

/// Result of loading one JSON text: the value and its node count.
pub(crate) struct Loaded {
    pub value: Value,
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
        path: RefCell::new(Vec::new()),
        entries: RefCell::new(Vec::new()),
        items: RefCell::new(Vec::new()),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let result = Seed(&ctx)
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v));
    match result {
        Ok(value) => Ok(Loaded {
            value,
            nodes: ctx.nodes.get() - nodes_before,
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

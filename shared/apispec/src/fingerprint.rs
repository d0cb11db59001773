//! The canonical content fingerprint.
//!
//! Every file (the root, then the references sorted by normalized location; the synthetic
//! file is derived and left out) is written in a canonical, unambiguous form straight into a
//! SHA-256 hasher: object keys sorted by their UTF-8 bytes, strings length-prefixed, numbers
//! in one spelling (a float with no fraction that fits an integer is written as that
//! integer, so YAML `1.0` and JSON `1` agree). Formatting, key order and JSON vs YAML do not
//! change it; any change of content does. The walk is iterative.

use sha2::{Digest, Sha256};

use crate::{Document, Kind, Num, SYNTHETIC_FILE, V};

impl Document {
    /// SHA-256 of a canonical form of every file (keys sorted, no formatting, JSON and YAML
    /// alike): equal across formatting, key order and JSON vs YAML. Computed on first use.
    pub fn fingerprint(&self) -> [u8; 32] {
        *self.fingerprint.get_or_init(|| compute(self))
    }

    /// [`Document::fingerprint`] in lower-case hex.
    pub fn fingerprint_hex(&self) -> String {
        hex::encode(self.fingerprint())
    }
}

enum Work<'a> {
    Value(V<'a>),
    /// An object member: its key is written, then its value.
    Entry(&'a str, V<'a>),
    Close(u8),
}

/// A write buffer in front of the hasher: the canonical form is made of many tiny pieces
/// (a tag byte, an 8-byte length, a short string), and feeding them to the hasher one by one
/// costs more than the hashing itself. Bytes are hashed in the same order, so the digest is
/// the same as with direct updates.
struct Sink {
    h: Sha256,
    buf: Vec<u8>,
}

const SINK_CAPACITY: usize = 8 * 1024;

impl Sink {
    fn new() -> Self {
        Sink {
            h: Sha256::new(),
            buf: Vec::with_capacity(SINK_CAPACITY),
        }
    }

    #[inline]
    fn update(&mut self, bytes: impl AsRef<[u8]>) {
        let bytes = bytes.as_ref();
        if self.buf.len() + bytes.len() > SINK_CAPACITY {
            self.h.update(&self.buf);
            self.buf.clear();
            if bytes.len() > SINK_CAPACITY {
                self.h.update(bytes);
                return;
            }
        }
        self.buf.extend_from_slice(bytes);
    }

    fn finalize(mut self) -> [u8; 32] {
        self.h.update(&self.buf);
        self.h.finalize().into()
    }
}

fn write_str(h: &mut Sink, tag: u8, s: &str) {
    h.update([tag]);
    h.update((s.len() as u64).to_le_bytes());
    h.update(s.as_bytes());
}

/// Numbers are written as their `serde_json::Number` spelling (the canonical form was defined
/// on `serde_json::Value`s: stored fingerprints must not change).
fn write_number(h: &mut Sink, n: Num) {
    let n = &n.to_number();
    let text = match n.as_f64() {
        Some(f) if !n.is_i64() && !n.is_u64() && f.fract() == 0.0 && f.abs() < 9.0e15 => {
            format!("{}", f as i64)
        }
        _ => n.to_string(),
    };
    write_str(h, b'#', &text);
}

fn write_value(h: &mut Sink, root: V<'_>) {
    let mut stack = vec![Work::Value(root)];
    while let Some(w) = stack.pop() {
        match w {
            Work::Close(c) => h.update([c]),
            Work::Entry(k, v) => {
                write_str(h, b'k', k);
                stack.push(Work::Value(v));
            }
            Work::Value(v) => match v.kind() {
                Kind::Null => h.update(b"n"),
                Kind::Bool(true) => h.update(b"t"),
                Kind::Bool(false) => h.update(b"f"),
                Kind::Number(n) => write_number(h, n),
                Kind::String(s) => write_str(h, b's', s),
                Kind::Array(a) => {
                    h.update(b"[");
                    stack.push(Work::Close(b']'));
                    for item in a.iter().rev() {
                        stack.push(Work::Value(item));
                    }
                }
                Kind::Object(m) => {
                    h.update(b"{");
                    stack.push(Work::Close(b'}'));
                    // Members go on the stack in descending key order (so they pop in
                    // ascending order), sorted in place: no allocation per object.
                    let start = stack.len();
                    stack.extend(m.iter().map(|(k, v)| Work::Entry(k, v)));
                    stack[start..].sort_unstable_by(|a, b| match (a, b) {
                        (Work::Entry(a, _), Work::Entry(b, _)) => b.as_bytes().cmp(a.as_bytes()),
                        _ => std::cmp::Ordering::Equal,
                    });
                }
            },
        }
    }
}

pub(crate) fn compute(doc: &Document) -> [u8; 32] {
    let mut h = Sink::new();
    h.update(b"specpress-fingerprint-v1");
    let mut files: Vec<&crate::document::SourceFile> = doc
        .files
        .iter()
        .filter(|f| f.key != SYNTHETIC_FILE)
        .collect();
    files.sort_by(|a, b| a.key.cmp(&b.key));
    for f in files {
        write_str(&mut h, b'F', &f.key);
        write_value(&mut h, f.value.root());
    }
    h.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tree;
    use serde_json::{Value, json};

    /// The canonical form fed to the hasher piece by piece with a sorted copy of each
    /// object's members: the straightforward reading of the format the buffered walk must
    /// reproduce byte for byte (stored fingerprints must not change).
    fn reference(v: &Value) -> [u8; 32] {
        fn walk(h: &mut Sha256, v: &Value) {
            let text = |h: &mut Sha256, tag: u8, s: &str| {
                h.update([tag]);
                h.update((s.len() as u64).to_le_bytes());
                h.update(s.as_bytes());
            };
            match v {
                Value::Null => h.update(b"n"),
                Value::Bool(true) => h.update(b"t"),
                Value::Bool(false) => h.update(b"f"),
                Value::Number(n) => {
                    let t = match n.as_f64() {
                        Some(f)
                            if !n.is_i64()
                                && !n.is_u64()
                                && f.fract() == 0.0
                                && f.abs() < 9.0e15 =>
                        {
                            format!("{}", f as i64)
                        }
                        _ => n.to_string(),
                    };
                    text(h, b'#', &t);
                }
                Value::String(s) => text(h, b's', s),
                Value::Array(a) => {
                    h.update(b"[");
                    for x in a {
                        walk(h, x);
                    }
                    h.update(b"]");
                }
                Value::Object(m) => {
                    h.update(b"{");
                    let mut e: Vec<_> = m.iter().collect();
                    e.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                    for (k, x) in e {
                        text(h, b'k', k);
                        walk(h, x);
                    }
                    h.update(b"}");
                }
            }
        }
        let mut h = Sha256::new();
        walk(&mut h, v);
        h.finalize().into()
    }

    fn buffered(v: &Value) -> [u8; 32] {
        let tree = Tree::from_value(v);
        let mut h = Sink::new();
        write_value(&mut h, tree.root());
        h.finalize()
    }

    #[test]
    fn buffered_walk_hashes_the_same_bytes_as_the_canonical_form() {
        let long = "x".repeat(3 * SINK_CAPACITY + 17);
        let many: Vec<Value> = (0..5000)
            .map(|i| json!({ "k": i, "z": format!("v{i}"), "a": [i as f64 * 0.5, null, true] }))
            .collect();
        let cases = [
            json!(null),
            json!({}),
            json!([]),
            json!({ "b": 1, "a": [1.0, 2.5, -3, 18446744073709551615u64], "é": "ü", "A": false }),
            json!({ "nested": { "z": { "y": [ { "x": "" } ] }, "a": null }, "": "empty key" }),
            json!({ "long": long, "after": "tail" }),
            json!({ "many": many }),
        ];
        for v in &cases {
            assert_eq!(
                buffered(v),
                reference(v),
                "{}",
                &v.to_string()[..40.min(v.to_string().len())]
            );
        }
    }
}

//! The canonical content fingerprint.
//!
//! Every file (the root, then the references sorted by normalized location; the synthetic
//! file is derived and left out) is written in a canonical, unambiguous form straight into a
//! SHA-256 hasher: object keys sorted by their UTF-8 bytes, strings length-prefixed, numbers
//! in one spelling (a float with no fraction that fits an integer is written as that
//! integer, so YAML `1.0` and JSON `1` agree). Formatting, key order and JSON vs YAML do not
//! change it; any change of content does. The walk is iterative.

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::{Document, SYNTHETIC_FILE};

enum Work<'a> {
    Value(&'a Value),
    Key(&'a str),
    Close(u8),
}

fn write_str(h: &mut Sha256, tag: u8, s: &str) {
    h.update([tag]);
    h.update((s.len() as u64).to_le_bytes());
    h.update(s.as_bytes());
}

fn write_number(h: &mut Sha256, n: &serde_json::Number) {
    let text = match n.as_f64() {
        Some(f) if !n.is_i64() && !n.is_u64() && f.fract() == 0.0 && f.abs() < 9.0e15 => {
            format!("{}", f as i64)
        }
        _ => n.to_string(),
    };
    write_str(h, b'#', &text);
}

fn write_value(h: &mut Sha256, root: &Value) {
    let mut stack = vec![Work::Value(root)];
    while let Some(w) = stack.pop() {
        match w {
            Work::Close(c) => h.update([c]),
            Work::Key(k) => write_str(h, b'k', k),
            Work::Value(v) => match v {
                Value::Null => h.update(b"n"),
                Value::Bool(true) => h.update(b"t"),
                Value::Bool(false) => h.update(b"f"),
                Value::Number(n) => write_number(h, n),
                Value::String(s) => write_str(h, b's', s),
                Value::Array(a) => {
                    h.update(b"[");
                    stack.push(Work::Close(b']'));
                    for item in a.iter().rev() {
                        stack.push(Work::Value(item));
                    }
                }
                Value::Object(m) => {
                    h.update(b"{");
                    stack.push(Work::Close(b'}'));
                    let mut entries: Vec<(&String, &Value)> = m.iter().collect();
                    entries.sort_unstable_by(|a, b| b.0.as_bytes().cmp(a.0.as_bytes()));
                    for (k, v) in entries {
                        stack.push(Work::Value(v));
                        stack.push(Work::Key(k));
                    }
                }
            },
        }
    }
}

pub(crate) fn compute(doc: &Document) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"specpress-fingerprint-v1");
    let mut files: Vec<&crate::SourceFile> = doc
        .files
        .iter()
        .filter(|f| f.key != SYNTHETIC_FILE)
        .collect();
    files.sort_by(|a, b| a.key.cmp(&b.key));
    for f in files {
        write_str(&mut h, b'F', &f.key);
        write_value(&mut h, &f.value);
    }
    h.finalize().into()
}

//! A document value written as JSON within a byte budget.

use specpress_apispec::{Kind, V};

/// Writes `v` as JSON (pretty with `indent`, else compact) into `out`, stopping after `max`
/// bytes. Returns false when it was cut.
pub fn write_json(
    v: V<'_>,
    out: &mut String,
    indent: Option<usize>,
    level: usize,
    max: usize,
) -> bool {
    if out.len() > max {
        return false;
    }
    let nl = |out: &mut String, level: usize| {
        if let Some(n) = indent {
            out.push('\n');
            for _ in 0..n * level {
                out.push(' ');
            }
        }
    };
    match v.kind() {
        Kind::Null => out.push_str("null"),
        Kind::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Kind::Number(n) => out.push_str(&n.to_string()),
        Kind::String(s) => out.push_str(&serde_json::to_string(s).unwrap_or_default()),
        Kind::Array(a) => {
            if a.is_empty() {
                out.push_str("[]");
                return true;
            }
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                nl(out, level + 1);
                if !write_json(x, out, indent, level + 1, max) {
                    return false;
                }
            }
            nl(out, level);
            out.push(']');
        }
        Kind::Object(m) => {
            if m.is_empty() {
                out.push_str("{}");
                return true;
            }
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                nl(out, level + 1);
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push_str(if indent.is_some() { ": " } else { ":" });
                if !write_json(x, out, indent, level + 1, max) {
                    return false;
                }
            }
            nl(out, level);
            out.push('}');
        }
    }
    out.len() <= max
}

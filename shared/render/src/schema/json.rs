//! JSON and code blocks: a value written as JSON within a byte budget, an example block, a code
//! block.

use specpress_apispec::{Kind, V};

use super::MAX_EXAMPLE_BYTES;
use crate::html::Out;

/// Writes `v` as JSON (pretty with `indent`, else compact) into `out`, stopping after `max`
/// bytes. Returns false when it was cut.
pub(crate) fn write_json(
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

/// An example value as a `<pre>` block, cut at [`MAX_EXAMPLE_BYTES`]. Strings are shown as they
/// are (an XML or text example is a string).
pub(crate) fn example_block(v: V<'_>, out: &mut Out) {
    let mut s = String::new();
    let complete = match v.as_str() {
        Some(text) => {
            let (t, cut) = crate::html::truncate(text, MAX_EXAMPLE_BYTES);
            s.push_str(t);
            !cut
        }
        None => write_json(v, &mut s, Some(2), 0, MAX_EXAMPLE_BYTES),
    };
    code_block(&s, "json", !complete, out);
}

/// A code block the optional script gives a copy button.
pub(crate) fn code_block(text: &str, lang: &str, cut: bool, out: &mut Out) {
    out.raw("<pre class=\"code\" data-lang=\"")
        .attr(lang)
        .raw("\"><code>")
        .text(text);
    if cut {
        out.raw("\n… (cut: the full example is in the document)");
    }
    out.raw("</code></pre>");
}

//! JSON and code blocks: an example block, a code block (a value written as JSON within a byte
//! budget is the samples engine's `write_json`).

use specpress_apispec::V;
pub(crate) use specpress_samples::write_json;

use super::MAX_EXAMPLE_BYTES;
use crate::html::Out;

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

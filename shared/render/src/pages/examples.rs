//! The examples of a parameter and of a media type: the document's own, else the schema's, else
//! one generated from the schema.

use specpress_spec::{Document, Location, V};

use crate::html::{Out, truncate, url_or_text};
use crate::schema::{self, Ctx, Mode};
use crate::site::resolve_value;

use super::{MAX_EXAMPLES, md, str_at};

pub(super) fn param_examples(doc: &Document, source: &Location, out: &mut Out) {
    let Some(p) = doc.value(source) else { return };
    let mut shown = 0;
    if let Some(x) = p.get("example") {
        out.raw("<p class=\"pc\"><span class=\"c\">example ");
        schema::inline_value(x, out);
        out.raw("</span></p>");
        shown += 1;
    }
    if let Some(xs) = p.get("examples").and_then(V::as_object) {
        for (name, ex) in xs.iter().take(MAX_EXAMPLES) {
            let ex_loc = source.child("examples").child(name);
            let Some(ex) = resolve_value(doc, &ex_loc, ex) else {
                continue;
            };
            if let Some(v) = ex.get("value") {
                if shown == 0 {
                    out.raw("<p class=\"pc\">");
                }
                out.raw("<span class=\"c\">").text(name).raw(": ");
                schema::inline_value(v, out);
                out.raw("</span> ");
                shown += 1;
            }
        }
        if shown > 0 {
            out.raw("</p>");
        }
    }
}

/// The examples of a media type: its own (`examples`, `example`; Swagger 2.0 `examples` by media
/// type on the response), else the schema's, else one generated from the schema (JSON only).
#[allow(clippy::too_many_arguments)]
pub(super) fn media_examples(
    c: &Ctx<'_>,
    schema: Option<&Location>,
    source: &Location,
    mt: &str,
    mode: Mode,
    swagger_response: bool,
    out: &mut Out,
) {
    let doc = c.doc;
    let src = doc.value(source);
    let mut shown = 0;
    if swagger_response {
        if let Some(x) = src.and_then(|s| s.get("examples")).and_then(|e| e.get(mt)) {
            out.raw("<p class=\"mt\">Example</p>");
            schema::example_block(x, out);
            return;
        }
    } else if let Some(src) = src {
        if let Some(xs) = src.get("examples").and_then(V::as_object) {
            for (name, ex) in xs.iter() {
                if shown >= MAX_EXAMPLES {
                    break;
                }
                let ex_loc = source.child("examples").child(name);
                let Some(ex) = resolve_value(doc, &ex_loc, ex) else {
                    continue;
                };
                out.raw("<p class=\"mt\">Example: ")
                    .text(str_at(ex, "summary").unwrap_or(name))
                    .raw("</p>");
                if let Some(d) = str_at(ex, "description") {
                    md(out, d, 6);
                }
                match (ex.get("value"), str_at(ex, "externalValue")) {
                    (Some(v), _) => schema::example_block(v, out),
                    (None, Some(u)) => {
                        out.raw("<p>");
                        url_or_text(out, u, None);
                        out.raw("</p>");
                    }
                    _ => {}
                }
                shown += 1;
            }
            if shown > 0 {
                return;
            }
        }
        if let Some(x) = src.get("example") {
            out.raw("<p class=\"mt\">Example</p>");
            schema::example_block(x, out);
            return;
        }
    }
    let Some(s) = schema else { return };
    let json = mt.contains("json") || mt == "*/*";
    if !json {
        return;
    }
    let value = schema::generate(c, s, mode);
    if value.is_null() {
        return;
    }
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    let (text, cut) = truncate(&text, schema::MAX_EXAMPLE_BYTES);
    if schema::has_own_example(c, s) {
        out.raw("<p class=\"mt\">Example (from the schema)</p>");
    } else {
        out.raw("<p class=\"mt\">Example (generated from the schema)</p>");
    }
    schema::code_block(text, "json", cut, out);
}

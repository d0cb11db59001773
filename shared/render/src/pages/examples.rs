//! The examples of a parameter and of a media type: the document's own, else the schema's, else
//! one generated from the schema (templates `pages/param_examples.html`,
//! `pages/media_examples.html`).

use askama::Template;
use specpress_apispec::{Document, Location, V};

use crate::html::{Html, Out, truncate, url_or_text};
use crate::markdown::{self, MAX_MARKDOWN_BYTES};
use crate::schema::{self, Ctx, Mode};
use crate::site::resolve_value;
use crate::tpl;

use super::{MAX_EXAMPLES, str_at};

#[derive(Template)]
#[template(path = "pages/param_examples.html", escape = "engine")]
struct ParamExamples<'a> {
    /// The `example` value (compact JSON), if any.
    example: Option<Html>,
    /// Whether the parameter has an `examples` object.
    has_named: bool,
    /// The named examples that have a value: name and compact JSON.
    named: Vec<(&'a str, Html)>,
}

#[derive(Template)]
#[template(path = "pages/media_examples.html", escape = "engine")]
struct MediaExamples<'a> {
    examples: Examples<'a>,
}

enum Examples<'a> {
    Nothing,
    /// One example value (`example`, or Swagger 2.0's example of the media type).
    One {
        block: Html,
    },
    /// The `examples` object's.
    Named {
        list: Vec<NamedExample<'a>>,
    },
    /// An example from the schema (its own, or generated), as JSON.
    Generated {
        from_schema: bool,
        code: Html,
    },
}

struct NamedExample<'a> {
    /// The summary, else the name.
    title: &'a str,
    description: Option<Html>,
    block: Option<Html>,
    /// The `externalValue` link (or text), when there is no value.
    external: Option<Html>,
}

fn inline(v: V<'_>) -> Html {
    let mut out = Out::new();
    schema::inline_value(v, &mut out);
    out.finish()
}

fn block(v: V<'_>) -> Html {
    let mut out = Out::new();
    schema::example_block(v, &mut out);
    out.finish()
}

pub(super) fn param_examples(doc: &Document, source: &Location) -> Html {
    let Some(p) = doc.value(source) else {
        return Html::default();
    };
    let example = p.get("example").map(inline);
    let xs = p.get("examples").and_then(V::as_object);
    let mut named = Vec::new();
    if let Some(xs) = xs {
        for (name, ex) in xs.iter().take(MAX_EXAMPLES) {
            let ex_loc = source.child("examples").child(name);
            if let Some(v) = resolve_value(doc, &ex_loc, ex).and_then(|ex| ex.get("value")) {
                named.push((name, inline(v)));
            }
        }
    }
    let view = ParamExamples {
        example,
        has_named: xs.is_some(),
        named,
    };
    tpl::render(&view, 256)
}

/// The examples of a media type: its own (`examples`, `example`; Swagger 2.0 `examples` by media
/// type on the response), else the schema's, else one generated from the schema (JSON only).
pub(super) fn media_examples(
    c: &Ctx<'_>,
    schema: Option<&Location>,
    source: &Location,
    mt: &str,
    mode: Mode,
    swagger_response: bool,
) -> Html {
    let examples = own_examples(c.doc, source, mt, swagger_response)
        .or_else(|| generated(c, schema?, mt, mode))
        .unwrap_or(Examples::Nothing);
    tpl::render(&MediaExamples { examples }, 1024)
}

/// The media type's own examples, if it has any.
fn own_examples<'a>(
    doc: &'a Document,
    source: &Location,
    mt: &str,
    swagger_response: bool,
) -> Option<Examples<'a>> {
    let src = doc.value(source);
    if swagger_response {
        let x = src
            .and_then(|s| s.get("examples"))
            .and_then(|e| e.get(mt))?;
        return Some(Examples::One { block: block(x) });
    }
    let src = src?;
    if let Some(xs) = src.get("examples").and_then(V::as_object) {
        let mut list = Vec::new();
        for (name, ex) in xs.iter() {
            if list.len() >= MAX_EXAMPLES {
                break;
            }
            let ex_loc = source.child("examples").child(name);
            let Some(ex) = resolve_value(doc, &ex_loc, ex) else {
                continue;
            };
            let value = ex.get("value");
            list.push(NamedExample {
                title: str_at(ex, "summary").unwrap_or(name),
                description: str_at(ex, "description")
                    .map(|d| markdown::render(d, 6, MAX_MARKDOWN_BYTES)),
                block: value.map(block),
                external: match (value, str_at(ex, "externalValue")) {
                    (None, Some(u)) => {
                        let mut out = Out::new();
                        url_or_text(&mut out, u, None);
                        Some(out.finish())
                    }
                    _ => None,
                },
            });
        }
        if !list.is_empty() {
            return Some(Examples::Named { list });
        }
    }
    src.get("example")
        .map(|x| Examples::One { block: block(x) })
}

/// An example from the schema (JSON media types only).
fn generated<'a>(c: &Ctx<'_>, s: &Location, mt: &str, mode: Mode) -> Option<Examples<'a>> {
    if !(mt.contains("json") || mt == "*/*") {
        return None;
    }
    let value = schema::generate(c, s, mode);
    if value.is_null() {
        return None;
    }
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    let (text, cut) = truncate(&text, schema::MAX_EXAMPLE_BYTES);
    let mut code = Out::new();
    schema::code_block(text, "json", cut, &mut code);
    Some(Examples::Generated {
        from_schema: schema::has_own_example(c, s),
        code: code.finish(),
    })
}

//! What a row says about a schema: its type label, its badges (required, nullable, read-only...),
//! its constraints as chips, and how its alternatives are told apart.

use specpress_apispec::V;

use super::json::write_json;
use super::{Ctx, Flat, MAX_ENUM, flatten};
use crate::html::Out;

/// The type label of a schema, e.g. `string (date-time)`, `array of Pet`, `integer | string`.
/// With `links` false (inside a `<summary>`, which must hold no link), schema names are text.
pub(crate) fn type_label(ctx: &Ctx<'_>, flat: &Flat<'_>, out: &mut Out, depth: usize, links: bool) {
    if let Some(i) = flat.named
        && !flat.is_array()
    {
        if links {
            schema_link(ctx, i, out);
        } else {
            out.raw("<span class=\"sn\">")
                .text(ctx.site.schema_page(i).1)
                .raw("</span>");
        }
        let kind = if flat.types.is_empty() {
            if !flat.props.is_empty() {
                Some("object")
            } else {
                None
            }
        } else {
            flat.types.first().copied()
        };
        if let Some(k) = kind {
            out.raw(" <span class=\"tk\">").text(k).raw("</span>");
        }
        return;
    }
    if flat.is_array() {
        out.raw("array");
        if let Some(items) = &flat.items
            && depth < 3
        {
            let inner = flatten(ctx, items);
            out.raw(" of ");
            if inner.named.is_none() && inner.types == ["object"]
                || (inner.types.is_empty() && !inner.props.is_empty() && inner.named.is_none())
            {
                out.raw("objects");
            } else {
                type_label(ctx, &inner, out, depth + 1, links);
            }
        }
        return;
    }
    if flat.types.is_empty() {
        out.raw(if !flat.props.is_empty() || flat.additional.is_some() {
            "object"
        } else if !flat.one_of.is_empty() {
            "one of"
        } else if !flat.any_of.is_empty() {
            "any of"
        } else {
            "any"
        });
    } else {
        for (i, t) in flat.types.iter().enumerate() {
            if i > 0 {
                out.raw(" | ");
            }
            out.text(t);
        }
    }
    if let Some(f) = flat.format {
        out.raw(" <span class=\"tf\">(").text(f).raw(")</span>");
    }
}

pub(crate) fn schema_link(ctx: &Ctx<'_>, i: u32, out: &mut Out) {
    let (path, name) = ctx.site.schema_page(i);
    out.link_open(ctx.base, path).text(name).raw("</a>");
}

/// A value shown inline (enum values, defaults): compact JSON, cut at 200 bytes.
pub(crate) fn inline_value(v: V<'_>, out: &mut Out) {
    let mut s = String::new();
    let _ = write_json(v, &mut s, None, 0, 200);
    out.raw("<code>").text(&s).raw("</code>");
}

/// The constraints, enum, default and example of a schema, as one line of chips.
pub(super) fn constraints(flat: &Flat<'_>, out: &mut Out) {
    let mut any = false;
    let mut chip = |out: &mut Out| {
        if !any {
            out.raw("<p class=\"pc\">");
            any = true;
        }
    };
    let num = |k: &str| flat.facet(k).filter(|v| v.is_number());
    let emit = |out: &mut Out, label: &str, v: V<'_>| {
        out.raw("<span class=\"c\">").raw(label);
        inline_value(v, out);
        out.raw("</span> ");
    };
    for (key, label) in [
        ("minimum", "≥ "),
        ("maximum", "≤ "),
        ("multipleOf", "multiple of "),
        ("minLength", "min length "),
        ("maxLength", "max length "),
        ("minItems", "min items "),
        ("maxItems", "max items "),
        ("minProperties", "min properties "),
        ("maxProperties", "max properties "),
    ] {
        if let Some(v) = num(key) {
            let label = match (
                key,
                flat.facet("exclusiveMinimum"),
                flat.facet("exclusiveMaximum"),
            ) {
                ("minimum", Some(e), _) if e.as_bool() == Some(true) => "> ",
                ("maximum", _, Some(e)) if e.as_bool() == Some(true) => "< ",
                _ => label,
            };
            chip(out);
            emit(out, label, v);
        }
    }
    // 2020-12: exclusive bounds are numbers.
    if let Some(v) = num("exclusiveMinimum") {
        chip(out);
        emit(out, "> ", v);
    }
    if let Some(v) = num("exclusiveMaximum") {
        chip(out);
        emit(out, "< ", v);
    }
    if let Some(p) = flat.facet("pattern").and_then(V::as_str) {
        chip(out);
        out.raw("<span class=\"c\">pattern <code>")
            .text(p)
            .raw("</code></span> ");
    }
    if flat.facet("uniqueItems").and_then(V::as_bool) == Some(true) {
        chip(out);
        out.raw("<span class=\"c\">unique items</span> ");
    }
    for key in ["contentMediaType", "contentEncoding"] {
        if let Some(s) = flat.facet(key).and_then(V::as_str) {
            chip(out);
            out.raw("<span class=\"c\">")
                .text(key)
                .raw(" <code>")
                .text(s)
                .raw("</code></span> ");
        }
    }
    if flat.closed {
        chip(out);
        out.raw("<span class=\"c\">no other properties</span> ");
    }
    if let Some(c) = flat.facet("const") {
        chip(out);
        emit(out, "always ", c);
    }
    if let Some(d) = flat.facet("default") {
        chip(out);
        emit(out, "default ", d);
    }
    if let Some(e) = flat.facet("enum").and_then(V::as_array) {
        chip(out);
        out.raw("<span class=\"c\">one of ");
        for (i, v) in e.iter().take(MAX_ENUM).enumerate() {
            if i > 0 {
                out.raw(", ");
            }
            inline_value(v, out);
        }
        if e.len() > MAX_ENUM {
            out.raw(" and ").num(e.len() - MAX_ENUM).raw(" more");
        }
        out.raw("</span> ");
    }
    let example = flat.facet("example").or_else(|| {
        flat.facet("examples")
            .and_then(V::as_array)
            .and_then(|a| a.get(0))
    });
    if let Some(x) = example
        && !x.is_object()
        && !x.is_array()
    {
        chip(out);
        emit(out, "example ", x);
    }
    if any {
        out.raw("</p>");
    }
}

pub(super) fn badges(flat: &Flat<'_>, required: bool, out: &mut Out) {
    if required {
        out.raw(" <span class=\"b rq\">required</span>");
    }
    if flat.nullable {
        out.raw(" <span class=\"b\">nullable</span>");
    }
    if flat.read_only {
        out.raw(" <span class=\"b\">read-only</span>");
    }
    if flat.write_only {
        out.raw(" <span class=\"b\">write-only</span>");
    }
    if flat.deprecated {
        out.raw(" <span class=\"b dp\">deprecated</span>");
    }
    if flat.beta {
        out.raw(" <span class=\"b beta\">beta</span>");
    }
}

pub(super) fn discriminator(flat: &Flat<'_>, out: &mut Out) {
    let Some(d) = flat.discriminator else { return };
    if let Some(name) = d.get("propertyName").and_then(V::as_str) {
        out.raw(" (told apart by <code>").text(name).raw("</code>");
        if let Some(m) = d.get("mapping").and_then(V::as_object)
            && !m.is_empty()
        {
            out.raw(": ");
            for (i, (k, v)) in m.iter().take(MAX_ENUM).enumerate() {
                if i > 0 {
                    out.raw(", ");
                }
                out.raw("<code>").text(k).raw("</code> → ");
                let target = v.as_str().unwrap_or("");
                out.text(target.rsplit('/').next().unwrap_or(target));
            }
        }
        out.raw(")");
    }
}

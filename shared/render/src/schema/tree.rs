//! Schema trees: a schema's rows (properties, tuple items, pattern and additional properties,
//! alternatives) nested as `<details>`, within the page's row budget and depth, each named schema
//! expanded once per page (later uses link to it or to its page).

use specpress_apispec::{Location, V};

use super::label::{badges, constraints, discriminator, schema_link, type_label};
use super::{Ctx, Flat, MAX_TREE_DEPTH, Mode, flatten};
use crate::html::{Html, Out};
use crate::markdown;

/// The whole tree of the schema at `loc`, read for `mode`.
pub(crate) fn tree<'a>(ctx: &mut Ctx<'a>, loc: &Location, mode: Mode) -> Html {
    let mut out = Out::new();
    let flat = flatten(ctx, loc);
    out.raw("<div class=\"schema\"><p class=\"st\">");
    type_label(ctx, &flat, &mut out, 0, true);
    badges(&flat, false, &mut out);
    out.raw("</p>");
    if let Some(d) = flat.description {
        out.raw("<div class=\"md\">")
            .html(&markdown::render(d, 5, markdown::MAX_MARKDOWN_BYTES))
            .raw("</div>");
    }
    constraints(&flat, &mut out);
    let mut stack: Vec<Location> = flat.loc.iter().cloned().collect();
    if let Some(i) = flat.named {
        ctx.expanded.insert((i, mode));
    }
    children(ctx, &flat, mode, 0, &mut stack, &mut out);
    out.raw("</div>");
    out.finish()
}

/// The rows under a schema: its properties, additional and pattern properties, tuple items,
/// alternatives, or those of its array items.
fn children<'a>(
    ctx: &mut Ctx<'a>,
    flat: &Flat<'a>,
    mode: Mode,
    depth: usize,
    stack: &mut Vec<Location>,
    out: &mut Out,
) {
    if flat.is_array() && !flat.has_children() {
        if let Some(items) = &flat.items {
            let inner = flatten(ctx, items);
            if inner.has_children() && !inner.loc.as_ref().is_some_and(|l| stack.contains(l)) {
                if let Some(l) = &inner.loc {
                    stack.push(l.clone());
                }
                if let Some(i) = inner.named {
                    ctx.expanded.insert((i, mode));
                }
                children(ctx, &inner, mode, depth, stack, out);
                if inner.loc.is_some() {
                    stack.pop();
                }
            }
        }
        return;
    }
    if !flat.has_children() {
        return;
    }
    out.raw("<ul class=\"ps\">");
    for p in &flat.props {
        if !row(
            ctx,
            Name::Code(p.name),
            &p.loc,
            p.required,
            mode,
            depth,
            stack,
            out,
        ) {
            more(ctx, flat, out);
            out.raw("</ul>");
            return;
        }
    }
    for (i, l) in flat.tuple.iter().enumerate() {
        let label = format!("item {i}");
        if !row(ctx, Name::Label(&label), l, false, mode, depth, stack, out) {
            more(ctx, flat, out);
            out.raw("</ul>");
            return;
        }
    }
    for (pattern, l) in &flat.pattern_props {
        let label = format!("names matching {pattern}");
        if !row(ctx, Name::Label(&label), l, false, mode, depth, stack, out) {
            more(ctx, flat, out);
            out.raw("</ul>");
            return;
        }
    }
    if let Some(a) = &flat.additional
        && !row(
            ctx,
            Name::Label("any other property name"),
            a,
            false,
            mode,
            depth,
            stack,
            out,
        )
    {
        more(ctx, flat, out);
        out.raw("</ul>");
        return;
    }
    for (word, alts) in [("One of", &flat.one_of), ("Any of", &flat.any_of)] {
        if alts.is_empty() {
            continue;
        }
        out.raw("<li class=\"alts\"><p class=\"ah\">").raw(word);
        discriminator(flat, out);
        out.raw(":</p><ul class=\"ps\">");
        for (i, l) in alts.iter().enumerate() {
            let label = alternative_label(ctx, l, i);
            if !row(ctx, Name::Label(&label), l, false, mode, depth, stack, out) {
                more(ctx, flat, out);
                out.raw("</ul></li></ul>");
                return;
            }
        }
        out.raw("</ul></li>");
    }
    out.raw("</ul>");
}

fn alternative_label(ctx: &Ctx<'_>, l: &Location, i: usize) -> String {
    let name = ctx.doc.resolve(l).ok().and_then(|(rl, v)| {
        ctx.site
            .schema_index(&rl)
            .map(|n| ctx.site.schema_page(n).1.to_string())
            .or_else(|| v.get("title").and_then(V::as_str).map(str::to_string))
    });
    match name {
        Some(n) => format!("Option {}: {n}", i + 1),
        None => format!("Option {}", i + 1),
    }
}

fn more(ctx: &Ctx<'_>, flat: &Flat<'_>, out: &mut Out) {
    out.raw("<li class=\"more\">More properties are not shown here (page size limit)");
    if let Some(i) = flat.named {
        out.raw(": see ");
        schema_link(ctx, i, out);
    }
    out.raw(".</li>");
}

enum Name<'n> {
    /// A property name (document text, shown as code).
    Code(&'n str),
    /// A label this crate wrote around document text (escaped too).
    Label(&'n str),
}

/// One row; false when the page's row budget is spent (nothing written).
#[allow(clippy::too_many_arguments)]
fn row<'a>(
    ctx: &mut Ctx<'a>,
    name: Name<'_>,
    loc: &Location,
    required: bool,
    mode: Mode,
    depth: usize,
    stack: &mut Vec<Location>,
    out: &mut Out,
) -> bool {
    // The first level of a tree is always shown (up to twice the budget, against a schema of
    // thousands of properties); the budget cuts deeper levels.
    if (depth > 0 && ctx.exhausted()) || ctx.rows >= 2 * ctx.max_rows {
        return false;
    }
    let flat = flatten(ctx, loc);
    row_of(ctx, name, flat, required, None, mode, depth, stack, out)
}

/// A parameter or header: its own name, description and flags over its schema's.
#[allow(clippy::too_many_arguments)]
pub(crate) fn field_row<'a>(
    ctx: &mut Ctx<'a>,
    name: &str,
    schema: Option<&Location>,
    required: bool,
    deprecated: bool,
    description: Option<&'a str>,
    extra: &Html,
    mode: Mode,
    out: &mut Out,
) {
    let mut flat = match schema {
        Some(l) => flatten(ctx, l),
        None => Flat::default(),
    };
    flat.deprecated |= deprecated;
    flat.beta |= schema.is_some_and(|l| beta_holder(ctx, l));
    flat.read_only = false;
    flat.write_only = false;
    let mut stack = Vec::new();
    let before = out.len();
    row_of(
        ctx,
        Name::Code(name),
        flat,
        required,
        description,
        mode,
        0,
        &mut stack,
        out,
    );
    if !extra.is_empty() && out.s.ends_with("</li>") && out.len() > before {
        out.s.truncate(out.s.len() - "</li>".len());
        out.html(extra).raw("</li>");
    }
}

/// Whether the object holding a parameter's or header's schema (`…/schema`: the parameter or
/// header itself) is marked `x-beta: true`.
fn beta_holder(ctx: &Ctx<'_>, schema: &Location) -> bool {
    let Some(parent) = schema.pointer.strip_suffix("/schema") else {
        return false;
    };
    let holder = Location {
        file: schema.file,
        pointer: parent.to_string(),
    };
    ctx.doc
        .value(&holder)
        .and_then(|v| v.get("x-beta"))
        .and_then(V::as_bool)
        == Some(true)
}

#[allow(clippy::too_many_arguments)]
fn row_of<'a>(
    ctx: &mut Ctx<'a>,
    name: Name<'_>,
    flat: Flat<'a>,
    required: bool,
    description: Option<&'a str>,
    mode: Mode,
    depth: usize,
    stack: &mut Vec<Location>,
    out: &mut Out,
) -> bool {
    if (mode == Mode::Request && flat.read_only) || (mode == Mode::Response && flat.write_only) {
        return true;
    }
    ctx.rows += 1;
    let recursive = flat.loc.as_ref().is_some_and(|l| stack.contains(l));
    let expandable = flat.has_children()
        || (flat.is_array()
            && flat
                .items
                .as_ref()
                .is_some_and(|i| flatten(ctx, i).has_children()));
    let already = flat
        .named
        .is_some_and(|i| ctx.expanded.contains(&(i, mode)));
    let open = expandable && !recursive && !already && depth + 1 < MAX_TREE_DEPTH;
    out.raw("<li class=\"p\">");
    if open {
        out.raw("<details><summary>");
    } else {
        out.raw("<div class=\"ph\">");
    }
    match name {
        Name::Code(n) => {
            out.raw("<code class=\"pn\">").text(n).raw("</code>");
        }
        Name::Label(l) => {
            out.raw("<span class=\"pl\">").text(l).raw("</span>");
        }
    }
    out.raw(" <span class=\"pt\">");
    type_label(ctx, &flat, out, 0, !open);
    out.raw("</span>");
    badges(&flat, required, out);
    if open {
        out.raw("</summary>");
        let named = flat.named.or_else(|| {
            flat.items
                .as_ref()
                .filter(|_| flat.is_array())
                .and_then(|i| flatten(ctx, i).named)
        });
        if let Some(i) = named {
            out.raw("<p class=\"sl\">Schema ");
            schema_link(ctx, i, out);
            out.raw("</p>");
        }
    } else {
        out.raw("</div>");
    }
    if let Some(d) = description.or(flat.description) {
        ctx.description(d, out);
    }
    constraints(&flat, out);
    if expandable && !open {
        out.raw("<p class=\"cut\">");
        if recursive {
            out.raw("Recursive");
        } else if already {
            out.raw("Shown above on this page");
        } else {
            out.raw("Nested deeper than this page shows");
        }
        match flat
            .named
            .or_else(|| flat.items.as_ref().and_then(|i| flatten(ctx, i).named))
        {
            Some(i) => {
                out.raw(": see ");
                schema_link(ctx, i, out);
                out.raw(".");
            }
            None => {
                out.raw(".");
            }
        }
        out.raw("</p>");
    }
    if open {
        if let Some(i) = flat.named {
            ctx.expanded.insert((i, mode));
        }
        let pushed = flat.loc.clone();
        if let Some(l) = &pushed {
            stack.push(l.clone());
        }
        children(ctx, &flat, mode, depth + 1, stack, out);
        if pushed.is_some() {
            stack.pop();
        }
        out.raw("</details>");
    }
    out.raw("</li>");
    true
}

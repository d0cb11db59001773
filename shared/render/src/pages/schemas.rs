//! The list of named schemas and one named schema's page: its tree, an example and where it is
//! used.

use crate::html::{Html, Out, truncate};
use crate::schema::{self, Ctx, Mode};

use super::first_line;
use super::lists::ops_list;

/// Entries of a "where it is used" list.
const MAX_USED_BY: usize = 300;

pub(super) fn schemas_index(c: &mut Ctx<'_>) -> Option<Html> {
    let site = c.site;
    let mut out = Out::new();
    out.raw("<h1>Schemas</h1><p>")
        .num(site.schema_count())
        .raw(" named schemas are defined by this document.</p><ul class=\"cards\">");
    for (i, (name, loc)) in c.doc.model().schemas.iter().enumerate() {
        let p = site.schema_pages[i];
        out.raw("<li>")
            .link_open(c.base, &site.pages[p as usize].path)
            .text(name)
            .raw("</a>");
        if let Some(d) = c
            .doc
            .value(loc)
            .and_then(|v| super::str_at(v, "title").or_else(|| super::str_at(v, "description")))
        {
            out.raw("<p>").text(&first_line(d, 120)).raw("</p>");
        }
        out.raw("</li>");
    }
    out.raw("</ul>");
    Some(out.finish())
}

pub(super) fn schema_page(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
    let doc = c.doc;
    let site = c.site;
    let (name, loc) = doc.model().schemas.get_index(i as usize)?;
    let mut out = Out::new();
    out.raw("<h1>").text(name).raw("</h1>");
    let flat = schema::flatten(c, loc);
    if let Some(t) = flat.title
        && t != name
    {
        out.raw("<p class=\"lead\">").text(t).raw("</p>");
    }
    let tree = schema::tree(c, loc, Mode::Neutral);
    out.html(&tree);
    let value = schema::generate(c, loc, Mode::Neutral);
    if !value.is_null() {
        let text = serde_json::to_string_pretty(&value).unwrap_or_default();
        let (text, cut) = truncate(&text, schema::MAX_EXAMPLE_BYTES);
        out.raw("<h2>Example</h2>");
        schema::code_block(text, "json", cut, &mut out);
    }
    let users = site
        .used_by
        .get(i as usize)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    out.raw("<h2>Where it is used</h2>");
    if users.is_empty() {
        out.raw("<p>No operation of this document uses this schema.</p>");
    } else {
        out.raw("<p>")
            .num(users.len())
            .raw(if users.len() == 1 {
                " operation uses"
            } else {
                " operations use"
            })
            .raw(" this schema, directly or through other schemas.</p>");
        ops_list(c, &mut out, &users[..users.len().min(MAX_USED_BY)]);
        if users.len() > MAX_USED_BY {
            out.raw("<p class=\"note\">and ")
                .num(users.len() - MAX_USED_BY)
                .raw(" more.</p>");
        }
    }
    Some(out.finish())
}

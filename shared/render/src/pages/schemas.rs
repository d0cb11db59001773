//! The list of named schemas and one named schema's page: its tree, an example and where it is
//! used (templates `pages/schemas_index.html`, `pages/schema.html`).

use askama::Template;

use crate::html::{Html, Out, truncate};
use crate::schema::{self, Ctx, Mode};
use crate::tpl;

use super::first_line;
use super::lists::ops_list;

/// Entries of a "where it is used" list.
const MAX_USED_BY: usize = 300;

#[derive(Template)]
#[template(path = "pages/schemas_index.html", escape = "engine")]
struct SchemasIndex<'a> {
    count: usize,
    schemas: Vec<SchemaCard<'a>>,
}

struct SchemaCard<'a> {
    name: &'a str,
    href: String,
    /// The first line of the schema's title or description.
    note: Option<String>,
}

#[derive(Template)]
#[template(path = "pages/schema.html", escape = "engine")]
struct SchemaPage<'a> {
    name: &'a str,
    /// The schema's title, when it differs from its name.
    title: Option<&'a str>,
    tree: Html,
    /// An example generated from the schema, if any.
    example: Option<Html>,
    /// How many operations use the schema.
    users: usize,
    /// The list of (the first [`MAX_USED_BY`]) operations that use it.
    used_by: Html,
    /// How many more use it than the list shows.
    more: usize,
}

pub(super) fn schemas_index(c: &mut Ctx<'_>) -> Option<Html> {
    let site = c.site;
    let schemas = c
        .doc
        .model()
        .schemas
        .iter()
        .enumerate()
        .map(|(i, (name, loc))| SchemaCard {
            name,
            href: tpl::href(c.base, &site.pages[site.schema_pages[i] as usize].path),
            note: c
                .doc
                .value(loc)
                .and_then(|v| super::str_at(v, "title").or_else(|| super::str_at(v, "description")))
                .map(|d| first_line(d, 120)),
        })
        .collect();
    let page = SchemasIndex {
        count: site.schema_count(),
        schemas,
    };
    Some(tpl::render(&page, 128 * site.schema_count() + 256))
}

pub(super) fn schema_page(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
    let doc = c.doc;
    let site = c.site;
    let (name, loc) = doc.model().schemas.get_index(i as usize)?;
    let flat = schema::flatten(c, loc);
    let title = flat.title.filter(|t| t != name);
    let tree = schema::tree(c, loc, Mode::Neutral);
    let value = schema::generate(c, loc, Mode::Neutral);
    let example = (!value.is_null()).then(|| {
        let text = serde_json::to_string_pretty(&value).unwrap_or_default();
        let (text, cut) = truncate(&text, schema::MAX_EXAMPLE_BYTES);
        let mut out = Out::new();
        schema::code_block(text, "json", cut, &mut out);
        out.finish()
    });
    let users = site
        .used_by
        .get(i as usize)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let used_by = if users.is_empty() {
        Html::default()
    } else {
        ops_list(c, &users[..users.len().min(MAX_USED_BY)])
    };
    let page = SchemaPage {
        name,
        title,
        tree,
        example,
        users: users.len(),
        used_by,
        more: users.len().saturating_sub(MAX_USED_BY),
    };
    Some(tpl::render(
        &page,
        page.tree.as_str().len() + page.used_by.as_str().len() + 4096,
    ))
}

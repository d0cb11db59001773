//! Schemas as expandable trees, read in place from the document (`$ref`s followed on demand),
//! and examples (the document's own, else generated from the schema), all within budgets.
//!
//! Layout: this module holds the per-page state ([`Ctx`]) and the budgets, and reads a schema
//! (`$ref`s followed, `allOf` merged) and generates examples through the samples engine
//! (`specpress_samples::schema`, with the site's numbering of named schemas); `label` writes what
//! a row says about a schema (type, badges, constraints); `tree` writes the trees and rows; `json`
//! writes JSON and code blocks.

mod json;
mod label;
mod tree;

use std::collections::HashSet;

use specpress_apispec::{Document, Location};
use specpress_samples::schema as engine;

use crate::html::{Html, Out};
use crate::markdown;
use crate::site::Site;

pub(crate) use engine::Flat;
pub(crate) use json::{code_block, example_block};
pub(crate) use label::inline_value;
pub(crate) use specpress_samples::Mode;
pub(crate) use tree::{field_row, tree};

/// Deepest nesting of a tree shown on a page; deeper levels link to schema pages (the samples
/// engine's depth, so a generated example is as deep as the tree beside it).
pub(crate) const MAX_TREE_DEPTH: usize = engine::MAX_TREE_DEPTH;
/// Property rows on one page (every tree together). Past it, rows become "see ..." links.
pub(crate) const MAX_PAGE_ROWS: usize = 800;
/// Enum values listed for one schema.
const MAX_ENUM: usize = 60;
/// Bytes of one example shown; longer ones are cut with a note.
pub(crate) const MAX_EXAMPLE_BYTES: usize = 8 * 1024;

/// Reads the schema at `loc` (see `specpress_samples::schema::flatten`), its
/// [`Flat::named`] the site's index of the named schema it is.
pub(crate) fn flatten<'a>(ctx: &Ctx<'a>, loc: &Location) -> Flat<'a> {
    engine::flatten_named(ctx.doc, loc, &|l| ctx.site.schema_index(l))
}

/// An example generated from the schema at `loc` (bounded in size and depth).
pub(crate) fn generate(ctx: &Ctx<'_>, loc: &Location, mode: Mode) -> serde_json::Value {
    engine::generate(ctx.doc, loc, mode)
}

/// Whether the schema at `loc` carries its own example, which [`generate`] then gives.
pub(crate) fn has_own_example(ctx: &Ctx<'_>, loc: &Location) -> bool {
    engine::has_own_example(ctx.doc, loc)
}

/// The per-page state of the schema renderer.
pub(crate) struct Ctx<'a> {
    pub doc: &'a Document,
    pub site: &'a Site,
    pub base: &'a str,
    rows: usize,
    max_rows: usize,
    /// Named schemas already expanded on this page (in a mode): later uses link instead.
    expanded: HashSet<(u32, Mode)>,
    /// Descriptions rendered on this page (schemas repeat the same ones many times).
    markdown: std::collections::HashMap<&'a str, Html>,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(doc: &'a Document, site: &'a Site, base: &'a str) -> Ctx<'a> {
        Ctx {
            doc,
            site,
            base,
            rows: 0,
            max_rows: MAX_PAGE_ROWS,
            expanded: HashSet::new(),
            markdown: std::collections::HashMap::new(),
        }
    }

    /// A description of a schema row, rendered once per page.
    fn description(&mut self, text: &'a str, out: &mut Out) {
        out.raw("<div class=\"md\">");
        match self.markdown.get(text) {
            Some(h) => {
                out.html(h);
            }
            None => {
                let h = markdown::render(text, 6, markdown::MAX_MARKDOWN_BYTES);
                out.html(&h);
                self.markdown.insert(text, h);
            }
        }
        out.raw("</div>");
    }

    /// True when the page's row budget is spent.
    pub(crate) fn exhausted(&self) -> bool {
        self.rows >= self.max_rows
    }
}

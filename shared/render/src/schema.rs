//! Schemas as expandable trees, read in place from the document (`$ref`s followed on demand),
//! and examples (the document's own, else generated from the schema), all within budgets.
//!
//! Layout: this module holds the per-page state ([`Ctx`]) and the budgets; `flat` reads a schema
//! (`$ref`s followed, `allOf` merged); `label` writes what a row says about a schema (type,
//! badges, constraints); `tree` writes the trees and rows; `json` writes JSON and code blocks;
//! `example` generates examples.

mod example;
mod flat;
mod json;
mod label;
mod tree;

use std::collections::HashSet;

use specpress_apispec::Document;

use crate::html::{Html, Out};
use crate::markdown;
use crate::site::Site;

pub(crate) use example::{generate, has_own_example};
pub(crate) use flat::{Flat, flatten};
pub(crate) use json::{code_block, example_block, write_json};
pub(crate) use label::inline_value;
pub(crate) use tree::{field_row, tree};

/// Deepest nesting of a tree shown on a page; deeper levels link to schema pages.
pub(crate) const MAX_TREE_DEPTH: usize = 8;
/// Property rows on one page (every tree together). Past it, rows become "see ..." links.
pub(crate) const MAX_PAGE_ROWS: usize = 800;
/// Properties read for one schema: a page shows at most 1,600 rows anyway, and reading a
/// schema of a million properties again for each use would cost more than the page.
const MAX_PROPERTIES: usize = 2000;
/// `allOf` members followed to flatten one schema (nested `allOf`s included).
const MAX_ALLOF: usize = 64;
/// Enum values listed for one schema.
const MAX_ENUM: usize = 60;
/// Bytes of one example shown; longer ones are cut with a note.
pub(crate) const MAX_EXAMPLE_BYTES: usize = 8 * 1024;
/// Values in a generated example.
const MAX_GENERATED_NODES: usize = 250;

/// Which side of an exchange a schema is read for: `readOnly` properties are left out of
/// requests, `writeOnly` ones out of responses.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Mode {
    Request,
    Response,
    Neutral,
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

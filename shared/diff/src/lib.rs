//! Specpress diff engine: a semantic, direction-aware diff of two API documents (OpenAPI 2.0,
//! 3.0, 3.1 and AsyncAPI 2.x/3.0) built on the spec engine's normalized model.
//!
//! - Operations are matched by method + path template with parameter names erased, path
//!   parameters by position; AsyncAPI operations by direction + channel.
//! - Schemas are compared recursively, in place (never dereferenced), through `$ref`s,
//!   composition, items, properties, additionalProperties and the 3.1 keywords. A change inside
//!   a shared component is reported once, at the component, with the operations it affects.
//! - Each change has a stable rule id from the [`catalogue`], a [`Level`], the [`Side`] it is
//!   judged from (requests and received messages contravariantly, responses and sent messages
//!   covariantly) and a human message; levels can be overridden and rules ignored
//!   ([`DiffOptions`]).
//! - One [`DiffReport`] renders as the Bump.sh `DiffItem` JSON tree, text, Markdown and HTML.
//!
//! ```no_run
//! let limits = specpress_apispec::Limits::default();
//! let previous = specpress_apispec::parse("{\"openapi\":\"3.1.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{}}", &[], &limits).unwrap();
//! let current = specpress_apispec::parse("{\"openapi\":\"3.1.0\",\"info\":{\"title\":\"t\",\"version\":\"2\"},\"paths\":{}}", &[], &limits).unwrap();
//! let report = specpress_diff::diff(&previous, &current, &specpress_diff::DiffOptions::default());
//! assert!(!report.breaking());
//! println!("{}", report.text());
//! ```

mod beta;
mod change;
pub mod cli;
mod context;
mod ids;
mod memo;
mod migration;
mod nav;
mod options;
mod places;
mod render;
mod rules;
mod schema;
mod stability;
mod structure;
mod tree;

pub use change::{Change, Place, Status};
pub use migration::MAX_NOTE_BYTES;
pub use options::{DiffOptions, OptionsError};
pub use rules::{
    Example, Level, Rule, RuleId, Side, Template, catalogue, catalogue_markdown, find_rule,
};
pub use tree::{BreakingDetails, DiffItem, ItemChange};

use specpress_apispec::Document;

/// The output formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Format {
    /// `Modified: GET /x` lines (bump-cli's text format).
    Text,
    /// A pull-request comment.
    Markdown,
    /// The Bump.sh `DiffItem[]` tree plus rule ids.
    Json,
    /// A self-contained HTML fragment.
    Html,
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "text" => Ok(Format::Text),
            "markdown" | "md" => Ok(Format::Markdown),
            "json" => Ok(Format::Json),
            "html" => Ok(Format::Html),
            other => Err(format!(
                "unknown format `{other}` (expected text, markdown, json or html)"
            )),
        }
    }
}

/// Counts of changes by level.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub breaking: usize,
    pub warning: usize,
    pub info: usize,
    /// Structural changes (any level).
    pub structural: usize,
}

/// The result of one diff: the change list and the tree; renders in four formats.
#[derive(Clone, Debug)]
pub struct DiffReport {
    changes: Vec<Change>,
    items: Vec<DiffItem>,
    truncated: bool,
}

/// Compares two documents. Never fails: unresolvable `$ref`s are skipped (the spec engine
/// reports them when the documents are validated), and the walk is bounded.
pub fn diff(previous: &Document, current: &Document, options: &DiffOptions) -> DiffReport {
    let mut context = context::Context::new(previous, current, options);
    context.run();
    ids::assign(&mut context.found, (previous.version(), current.version()));
    places::assign(&mut context.found.changes, previous, current);
    let mut graph = tree::graph(&context.found);
    migration::attach(&mut context, &graph);
    let items = tree::build(&context.found, &mut graph);
    DiffReport {
        changes: std::mem::take(&mut context.found.changes),
        items,
        truncated: context.truncated,
    }
}

impl DiffReport {
    /// Any change at level breaking.
    pub fn breaking(&self) -> bool {
        self.has_level(Level::Breaking)
    }

    /// Any change at `level` or above.
    pub fn has_level(&self, level: Level) -> bool {
        self.changes.iter().any(|c| c.level >= level)
    }

    /// Any structural change (false when only descriptions, summaries, titles or examples
    /// changed).
    pub fn structural(&self) -> bool {
        self.changes.iter().any(Change::structural)
    }

    /// No change at all, content ones included.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Every classified change, each exactly once.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// The `DiffItem` tree.
    pub fn items(&self) -> &[DiffItem] {
        &self.items
    }

    /// Counts by level.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for ch in &self.changes {
            match ch.level {
                Level::Breaking => c.breaking += 1,
                Level::Warning => c.warning += 1,
                Level::Info => c.info += 1,
            }
            if ch.structural() {
                c.structural += 1;
            }
        }
        c
    }

    /// True when the schema walk hit its budget and stopped early (hostile input).
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Bump.sh `DiffItem[]` JSON array (plus our rule ids).
    pub fn details(&self) -> serde_json::Value {
        serde_json::to_value(&self.items).unwrap_or_else(|_| serde_json::Value::Array(vec![]))
    }

    /// Text rendering.
    pub fn text(&self) -> String {
        render::text(&self.items)
    }

    /// Markdown rendering (pull-request comment).
    pub fn markdown(&self) -> String {
        render::markdown(&self.items)
    }

    /// HTML fragment.
    pub fn html(&self) -> String {
        render::html(&self.items)
    }

    /// One rendering by format (`Json` is the pretty-printed details).
    pub fn render(&self, f: Format) -> String {
        match f {
            Format::Text => self.text(),
            Format::Markdown => self.markdown(),
            Format::Html => self.html(),
            Format::Json => {
                let mut s = serde_json::to_string_pretty(&self.details()).unwrap_or_default();
                s.push('\n');
                s
            }
        }
    }
}

//! YAML loading with hard budgets.
//!
//! Why not a ready-made loader: `serde_yaml` is unmaintained and still allows ~100x alias
//! amplification; `saphyr`'s and `yaml-rust2`'s loaders deep-clone anchors with no limit (a
//! ~100-byte alias bomb expands to tens of millions of nodes) and recurse on nesting.
//! `serde-saphyr` has a `Budget`, but going through serde into a `serde_json::Value` gives no
//! event positions for the lazy diagnostics locator and no control over how keys such as
//! `200:` are turned into strings. So this module drives the maintained, pull-based
//! `saphyr-parser` (the parser under saphyr and serde-saphyr: a state machine, no recursion)
//! and builds the value itself with an explicit stack, enforcing:
//!
//! - nesting depth ([`crate::Limits::max_depth`], checked when a collection opens, so the
//!   parser never runs ahead on a `[[[[...` bomb);
//! - node count over the whole document ([`crate::Limits::max_nodes`]), counting every node an
//!   alias expands to, so alias bombs fail on the budget long before memory grows;
//! - aliases refused unless [`crate::Limits::allow_aliases`] is set, then at most
//!   [`crate::Limits::max_aliases`] of them (anchors alone are harmless and accepted);
//! - duplicate keys, YAML merge keys (`<<`), non-scalar keys, custom tags, several documents
//!   in one stream, NUL characters and numbers JSON cannot represent are errors with a
//!   line and column.
//!
//! Scalars are resolved with the YAML 1.2 core schema (so `on`/`no`/`yes` stay strings, as in
//! every YAML 1.2 tool); keys are always the scalar's text (`200:` is the key `"200"`).
//!
//! The parts: this file chooses the reader ([`load`]: the block reader first, saphyr-parser when
//! it declines); `block.rs` is the fast line-by-line reader of the block subset; `loader.rs`
//! builds the tree from either reader's events under the budgets; `scalar.rs` resolves scalars
//! and tags.

mod block;
mod loader;
mod scalar;

pub(crate) use block::{Sink, read as read_block};
pub(crate) use loader::Loader;

use crate::Diagnostic;
use crate::tree::Tree;
use saphyr_parser::Parser;

/// Budgets for one YAML file.
pub(crate) struct YamlBudget {
    pub max_depth: usize,
    pub max_nodes: usize,
    pub nodes_before: usize,
    pub allow_aliases: bool,
    pub max_aliases: usize,
}

impl YamlBudget {
    /// The budgets of `limits` for a file read after `nodes_before` values of the same document.
    pub(crate) fn new(limits: &crate::Limits, nodes_before: usize) -> Self {
        YamlBudget {
            max_depth: limits.max_depth.min(crate::MAX_DEPTH_CEILING),
            max_nodes: limits.max_nodes,
            nodes_before,
            allow_aliases: limits.allow_aliases,
            max_aliases: if limits.allow_aliases {
                limits.max_aliases
            } else {
                0
            },
        }
    }

    /// The message for a document past the node budget.
    fn too_many_nodes(&self) -> String {
        format!(
            "the document has more than {} values (the node budget)",
            self.max_nodes
        )
    }
}

pub(crate) struct Loaded {
    pub value: Tree,
    pub nodes: usize,
    /// Read by the block reader (so the text is in its subset: see `crate::locate`).
    pub block: bool,
}
/// Parses `text` as a single YAML document within the budget.
///
/// Block-style documents go through [`block`], a fast reader for the block subset API documents are written in; it
/// declines anything outside that subset, and any document it declines or finds fault with is read again by
/// saphyr-parser, which decides it (so every error, with its position, is saphyr-parser's).
pub(crate) fn load(text: &str, b: &YamlBudget) -> Result<Loaded, Diagnostic> {
    let mut loader = Loader::new(text, b);
    if block::read(text, &mut loader).is_ok()
        && let Ok(mut loaded) = loader.finish()
    {
        loaded.block = true;
        return Ok(loaded);
    }
    load_with_saphyr(text, b)
}

/// [`load`] with saphyr-parser alone.
pub(crate) fn load_with_saphyr(text: &str, b: &YamlBudget) -> Result<Loaded, Diagnostic> {
    let mut parser = Parser::new_from_str(text);
    let mut loader = Loader::new(text, b);
    loop {
        let (event, span) = match parser.next_event() {
            None => break,
            Some(Ok(x)) => x,
            Some(Err(e)) => {
                let m = e.marker();
                let deep = e.info().contains("recursion limit");
                return Err(Diagnostic {
                    code: if deep { "too-deep" } else { "syntax" },
                    message: if deep {
                        format!(
                            "the document nests sequences/mappings too deeply (YAML parser: {})",
                            e.info()
                        )
                    } else {
                        format!("invalid YAML: {}", e.info())
                    },
                    file: None,
                    pointer: loader.pointer(),
                    line: Some(m.line() as u32),
                    column: Some(m.col() as u32 + 1),
                });
            }
        };
        loader.event(event, span)?;
    }
    loader.finish()
}

/// What the YAML readers make of one text, for the differential tests of the block reader (`tests/yaml_block.rs`).
#[doc(hidden)]
pub struct Readings {
    /// The tree [`block`] gives, if it takes the text.
    pub block: Option<String>,
    /// What saphyr-parser alone gives.
    pub saphyr: Result<String, String>,
    /// What [`load`] gives.
    pub load: Result<String, String>,
}

/// [`Readings`] of `text` under the default budgets: each tree as JSON text, each error as its code, position and
/// message.
#[doc(hidden)]
pub fn compare_readers(text: &str) -> Readings {
    let b = YamlBudget::new(&crate::Limits::default(), 0);
    let json = |l: Loaded| l.value.root().to_value().to_string();
    let error = |d: Diagnostic| {
        format!(
            "{} at {:?}:{:?} {}: {}",
            d.code, d.line, d.column, d.pointer, d.message
        )
    };
    let mut loader = Loader::new(text, &b);
    let block = match block::read(text, &mut loader) {
        Ok(()) => loader.finish().ok().map(json),
        Err(_) => None,
    };
    Readings {
        block,
        saphyr: load_with_saphyr(text, &b).map(json).map_err(error),
        load: load(text, &b).map(json).map_err(error),
    }
}

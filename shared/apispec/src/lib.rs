//! Specpress spec engine: reads, resolves and validates OpenAPI 2.0/3.0/3.1 and AsyncAPI
//! 2.x/3.0 documents, and builds the normalized [`ApiModel`] the diff engine walks.
//!
//! Nothing here touches the filesystem, the network, AWS or HTTP: a document is a string (the
//! `definition`) plus the `references` table the API receives.
//!
//! Where things are: `read.rs` reads the inputs into a [`Document`] (`document.rs`), parsing
//! each file with `json.rs` or `yaml/` into a compact [`Tree`] (`tree/`); `detect.rs` finds the
//! specification and version; `refs/` checks and follows `$ref`s; `normalize/` builds the
//! [`ApiModel`] (`model.rs`); `validate.rs` runs the official JSON Schemas and the semantic
//! rules; `locate.rs` finds the line and column of a diagnostic; `fingerprint.rs` hashes a
//! canonical form; `diagnostic.rs` holds what is reported; `pointer.rs` writes and reads JSON
//! pointers; `parallel.rs` is the thread pool the engines share.

mod detect;
mod diagnostic;
mod document;
mod fingerprint;
mod json;
mod locate;
pub mod model;
mod normalize;
pub mod parallel;
mod pointer;
mod read;
mod refs;
pub mod tree;
mod validate;
mod yaml;

pub use diagnostic::{Diagnostic, Invalid, RefError};
pub use document::Document;
pub use locate::Position;
pub use model::*;
pub use tree::{Arr, Kind, Num, Obj, Tree, V};
pub use validate::warm_up;
#[doc(hidden)]
pub use yaml::compare_readers;

/// Budgets applied to every document. All are hard limits: exceeding one is an error with a
/// clear message, never unbounded time or memory.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Maximum size of each file (the definition and each reference), checked before parsing
    /// (clamped to [`MAX_BYTES_CEILING`]).
    pub max_bytes: usize,
    /// Maximum nesting depth of arrays/objects (clamped to [`MAX_DEPTH_CEILING`]).
    pub max_depth: usize,
    /// Maximum number of JSON nodes over the whole document, references included.
    pub max_nodes: usize,
    /// Whether YAML anchors and aliases are accepted at all.
    pub allow_aliases: bool,
    /// Maximum number of YAML aliases when `allow_aliases` is set.
    pub max_aliases: usize,
    /// Maximum number of entries in `references`.
    pub max_files: usize,
    /// Maximum number of `$ref`s over the whole document.
    pub max_refs: usize,
    /// Maximum number of hops followed by one `$ref` chain.
    pub max_ref_chain: usize,
    /// Maximum number of diagnostics collected.
    pub max_errors: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 5 * 1024 * 1024,
            max_depth: 128,
            max_nodes: 2_000_000,
            allow_aliases: false,
            max_aliases: 0,
            max_files: 200,
            max_refs: 100_000,
            max_ref_chain: 64,
            max_errors: 100,
        }
    }
}

/// The largest file accepted whatever [`Limits::max_bytes`] says: a [`Tree`] addresses its
/// strings with 32-bit offsets.
pub const MAX_BYTES_CEILING: usize = 1 << 30;

/// The highest nesting depth accepted whatever [`Limits::max_depth`] says: values are
/// dropped and validated recursively, so depth must stay far from what a 2 MiB stack holds.
pub const MAX_DEPTH_CEILING: usize = 256;

/// One entry of the API's `references` array.
#[derive(Clone, Debug, serde::Deserialize, serde::Serialize)]
pub struct Reference {
    /// Where the file is, as it is called from the definition (a relative path or a URL).
    pub location: String,
    /// The raw text of the file.
    pub content: String,
    /// Optional name (bump-cli sets it for Arazzo source descriptions).
    #[serde(default)]
    pub name: Option<String>,
}

/// The syntax a file was written in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SourceFormat {
    /// JSON.
    Json,
    /// YAML (1.2).
    Yaml,
}

/// Name given to the synthetic file holding generated schemas (see [`model`]).
pub const SYNTHETIC_FILE: &str = "specpress:synthetic";

/// Parse + detect + resolve refs (does not run schema validation). Errors when the input
/// cannot become a document: syntax, budgets, unknown specification, bad reference locations,
/// unresolvable or forbidden `$ref`s, pure `$ref` cycles.
pub fn parse(
    definition: &str,
    references: &[Reference],
    limits: &Limits,
) -> Result<Document, Invalid> {
    read::document(definition, references, limits, true)
}

/// [`parse`] of texts the caller gives away: the document keeps them as they are instead of a copy of
/// each (for a multi-megabyte file, the copy and the fresh memory it touches are a measurable part of
/// the parse).
pub fn parse_owned(
    definition: String,
    references: Vec<Reference>,
    limits: &Limits,
) -> Result<Document, Invalid> {
    let mut doc = read::document(&definition, &references, limits, false)?;
    // A document that parsed has one file per reference, in order, after the root (the synthetic file,
    // when there is one, comes after them and keeps no text).
    let texts = std::iter::once(definition).chain(references.into_iter().map(|r| r.content));
    for (file, text) in doc.files.iter_mut().zip(texts) {
        file.text = Some(text.into_boxed_str());
    }
    Ok(doc)
}

/// Same as [`parse`] from bytes: checks UTF-8 first (UTF-16 and other encodings are refused).
pub fn parse_bytes(
    definition: &[u8],
    references: &[Reference],
    limits: &Limits,
) -> Result<Document, Invalid> {
    let text = std::str::from_utf8(definition).map_err(|e| {
        let before = &definition[..e.valid_up_to()];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        Invalid::one(Diagnostic {
            code: "encoding",
            message: format!(
                "the definition is not valid UTF-8 (invalid byte at offset {}); send UTF-8 text",
                e.valid_up_to()
            ),
            file: None,
            pointer: String::new(),
            line: Some(line as u32),
            column: Some(col as u32),
        })
    })?;
    parse(text, references, limits)
}

/// Reads one JSON or YAML text into a [`serde_json::Value`] with the readers and budgets every document is read
/// with (size, nesting depth, node count, YAML aliases, duplicate keys; see `yaml/`), nothing detected or
/// resolved: the one budgeted reader, for documents that are not API descriptions (workflow documents).
pub fn read_value(text: &str, limits: &Limits) -> Result<serde_json::Value, Diagnostic> {
    let max = limits.max_bytes.min(MAX_BYTES_CEILING);
    if text.len() > max {
        return Err(Diagnostic::new(
            "too-large",
            format!(
                "the file is {} bytes, more than the limit of {max} bytes",
                text.len()
            ),
        ));
    }
    let parsed = read::load_text(text, limits, 0)?;
    Ok(parsed.tree.root().to_value())
}

/// Parse + validate (official JSON Schema + semantic rules). `Ok` only for a valid document.
pub fn check(
    definition: &str,
    references: &[Reference],
    limits: &Limits,
) -> Result<Document, Invalid> {
    let doc = read::document(definition, references, limits, false)?;
    let mut diagnostics = validate::run(&doc);
    if diagnostics.is_empty() {
        Ok(doc)
    } else {
        diagnostics.truncate(limits.max_errors.max(1));
        doc.fill_positions(&mut diagnostics, Some((definition, references)));
        Err(Invalid { diagnostics })
    }
}

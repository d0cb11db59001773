//! Specpress spec engine: reads, resolves and validates OpenAPI 2.0/3.0/3.1 and AsyncAPI
//! 2.x/3.0 documents, and builds the normalized [`ApiModel`] the diff engine walks.
//!
//! Nothing here touches the filesystem, the network, AWS or HTTP: a document is a string (the
//! `definition`) plus the `references` table the API receives.

mod detect;
mod fingerprint;
mod json;
mod locate;
pub mod model;
mod normalize;
pub mod parallel;
mod pointer;
mod refs;
pub mod tree;
mod validate;
mod yaml;

pub use model::*;
pub use tree::{Arr, Kind, Num, Obj, Tree, V};
pub use validate::warm_up;
#[doc(hidden)]
pub use yaml::compare_readers;

use std::collections::HashMap;
use std::sync::OnceLock;

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

/// A located, human-actionable problem.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Diagnostic {
    /// Stable kebab-case id, e.g. `duplicate-key`, `unresolved-ref`, `schema`.
    pub code: &'static str,
    /// A sentence a person can act on.
    pub message: String,
    /// `None` for the root definition, else the reference location.
    pub file: Option<String>,
    /// JSON pointer (`""` is the root).
    pub pointer: String,
    /// 1-based line.
    pub line: Option<u32>,
    /// 1-based column.
    pub column: Option<u32>,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (at {}#{}",
            self.message,
            self.file.as_deref().unwrap_or(""),
            self.pointer
        )?;
        if let Some(line) = self.line {
            write!(f, ", line {line}")?;
            if let Some(column) = self.column {
                write!(f, ", column {column}")?;
            }
        }
        write!(f, ")")
    }
}

impl Diagnostic {
    fn new(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            message: message.into(),
            file: None,
            pointer: String::new(),
            line: None,
            column: None,
        }
    }
}

/// The document is invalid or could not be read: every diagnostic found (capped at
/// [`Limits::max_errors`]).
#[derive(Debug, thiserror::Error)]
#[error("{}", summarize(.diagnostics))]
pub struct Invalid {
    /// The problems, in document order where possible.
    pub diagnostics: Vec<Diagnostic>,
}

fn summarize(diagnostics: &[Diagnostic]) -> String {
    match diagnostics {
        [] => "invalid document".to_string(),
        [one] => one.to_string(),
        [first, rest @ ..] => format!("{first} (and {} more problems)", rest.len()),
    }
}

impl Invalid {
    fn one(d: Diagnostic) -> Self {
        Invalid {
            diagnostics: vec![d],
        }
    }
}

/// A `$ref` that cannot be followed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RefError {
    /// The target file is not among the references, or the pointer does not exist.
    #[error("unresolved $ref '{reference}' (used at {used_at}): {reason}")]
    Unresolved {
        reference: String,
        used_at: String,
        reason: String,
    },
    /// The reference string is not acceptable (a scheme, an absolute path, `..` escaping the
    /// root, NUL, ...).
    #[error("forbidden $ref '{reference}' (used at {used_at}): {reason}")]
    Forbidden {
        reference: String,
        used_at: String,
        reason: String,
    },
    /// Following the chain comes back to where it started without reaching a value.
    #[error("$ref cycle with no schema in it, starting at {used_at}: {chain}")]
    Cycle { used_at: String, chain: String },
    /// The chain is longer than [`Limits::max_ref_chain`].
    #[error("$ref chain longer than {limit} hops starting at {used_at}")]
    TooLong { used_at: String, limit: usize },
}

/// One file of the document.
pub(crate) struct SourceFile {
    /// The reference location as given (`None` for the root definition).
    pub(crate) name: Option<String>,
    /// Normalized location, the key `$ref`s are matched against (`""` for the root).
    pub(crate) key: String,
    pub(crate) value: Tree,
    /// The source text, kept for the lazy line/column lookup of diagnostics.
    pub(crate) text: Option<Box<str>>,
    pub(crate) format: SourceFormat,
}

/// Name given to the synthetic file holding generated schemas (see [`model`]).
pub const SYNTHETIC_FILE: &str = "specpress:synthetic";

/// A parsed, detected and resolved API document. `Send + Sync`; the model is built once at
/// parse time, the fingerprint on first use.
pub struct Document {
    version: SpecVersion,
    raw_version: String,
    format: SourceFormat,
    pub(crate) files: Vec<SourceFile>,
    index: HashMap<String, FileId>,
    pub(crate) limits: Limits,
    model: ApiModel,
    fingerprint: OnceLock<[u8; 32]>,
}

impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Document")
            .field("version", &self.version)
            .field("raw_version", &self.raw_version)
            .field("format", &self.format)
            .field(
                "files",
                &self
                    .files
                    .iter()
                    .map(|x| x.name.as_deref().unwrap_or("<root>"))
                    .collect::<Vec<_>>(),
            )
            .field("operations", &self.model.operations.len())
            .field("message_operations", &self.model.message_operations.len())
            .finish_non_exhaustive()
    }
}

fn too_large(what: &str, len: usize, limit: usize) -> Diagnostic {
    Diagnostic::new(
        "too-large",
        format!("{what} is {len} bytes, more than the limit of {limit} bytes"),
    )
}

/// Parses one file's text (JSON or YAML, detected), within the budgets.
fn load_text(
    text: &str,
    limits: &Limits,
    nodes_before: usize,
) -> Result<(Tree, SourceFormat, usize), Diagnostic> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.trim_start().chars().next();
    let max_depth = limits.max_depth.min(MAX_DEPTH_CEILING);
    let yaml_budget = yaml::YamlBudget::new(limits, nodes_before);
    match first {
        None => Err(Diagnostic::new("empty-document", "the document is empty")),
        Some('{') | Some('[') | Some('"') => {
            match json::load(text, max_depth, limits.max_nodes, nodes_before) {
                Ok(l) => Ok((l.value, SourceFormat::Json, l.nodes)),
                // Flow-style YAML also starts with `{`/`[`: fall back to YAML on a plain syntax error.
                // If both fail, the JSON error is the useful one, unless YAML hit a budget.
                Err(e) if e.code == "syntax" => match yaml::load(text, &yaml_budget) {
                    Ok(l) => Ok((l.value, SourceFormat::Yaml, l.nodes)),
                    Err(y)
                        if matches!(
                            y.code,
                            "too-deep" | "too-many-nodes" | "too-many-aliases" | "yaml-alias"
                        ) =>
                    {
                        Err(y)
                    }
                    Err(_) => Err(e),
                },
                Err(e) => Err(e),
            }
        }
        Some(_) => {
            let l = yaml::load(text, &yaml_budget)?;
            Ok((l.value, SourceFormat::Yaml, l.nodes))
        }
    }
}

fn kind_of(v: V<'_>) -> &'static str {
    match v.kind() {
        Kind::Null => "null",
        Kind::Bool(_) => "a boolean",
        Kind::Number(_) => "a number",
        Kind::String(_) => "a string",
        Kind::Array(_) => "an array",
        Kind::Object(_) => "an object",
    }
}

/// True for reference files that are text rather than data (bump-cli sends Markdown files
/// referenced from descriptions as they are).
fn is_text_location(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    let path = lower.split(['?', '#']).next().unwrap_or("");
    [".md", ".markdown", ".txt", ".html", ".htm"]
        .iter()
        .any(|ext| path.ends_with(ext))
}

struct Collector {
    max: usize,
    list: Vec<Diagnostic>,
}

impl Collector {
    fn push(&mut self, d: Diagnostic) {
        if self.list.len() < self.max {
            self.list.push(d);
        }
    }
    fn full(&self) -> bool {
        self.list.len() >= self.max
    }
}

/// Parse + detect + resolve refs (does not run schema validation). Errors when the input
/// cannot become a document: syntax, budgets, unknown specification, bad reference locations,
/// unresolvable or forbidden `$ref`s, pure `$ref` cycles.
pub fn parse(
    definition: &str,
    references: &[Reference],
    limits: &Limits,
) -> Result<Document, Invalid> {
    parse_impl(definition, references, limits, true)
}

/// [`parse`] of texts the caller gives away: the document keeps them as they are instead of a copy of
/// each (for a multi-megabyte file, the copy and the fresh memory it touches are a measurable part of
/// the parse).
pub fn parse_owned(
    definition: String,
    references: Vec<Reference>,
    limits: &Limits,
) -> Result<Document, Invalid> {
    let mut doc = parse_impl(&definition, &references, limits, false)?;
    // A document that parsed has one file per reference, in order, after the root (the synthetic file,
    // when there is one, comes after them and keeps no text).
    let texts = std::iter::once(definition).chain(references.into_iter().map(|r| r.content));
    for (file, text) in doc.files.iter_mut().zip(texts) {
        file.text = Some(text.into_boxed_str());
    }
    Ok(doc)
}

/// `keep_text`: keep a copy of every file's text in the document, so that a later
/// [`Document::validate`] can give line/column positions. [`check`] does not need it (it has
/// the input at hand), which saves one copy of the input in memory.
fn parse_impl(
    definition: &str,
    references: &[Reference],
    limits: &Limits,
    keep_text: bool,
) -> Result<Document, Invalid> {
    let mut errors = Collector {
        max: limits.max_errors.max(1),
        list: Vec::new(),
    };
    let max_bytes = limits.max_bytes.min(MAX_BYTES_CEILING);
    if definition.len() > max_bytes {
        return Err(Invalid::one(too_large(
            "the definition",
            definition.len(),
            max_bytes,
        )));
    }
    if references.len() > limits.max_files {
        return Err(Invalid::one(Diagnostic::new(
            "too-many-files",
            format!(
                "{} references were sent, more than the limit of {}",
                references.len(),
                limits.max_files
            ),
        )));
    }
    let (root, format, mut nodes) = load_text(definition, limits, 0).map_err(|mut d| {
        d.file = None;
        if d.line.is_none() && !d.pointer.is_empty() {
            locate::fill(std::slice::from_mut(&mut d), |_| {
                Some((definition, SourceFormat::Json))
            });
        }
        Invalid::one(d)
    })?;
    if !root.root().is_object() {
        return Err(Invalid::one(Diagnostic::new(
            "not-an-api-document",
            format!(
                "the document is {}, not an object: expected an OpenAPI or AsyncAPI document with an 'openapi', 'swagger' or 'asyncapi' field",
                kind_of(root.root())
            ),
        )));
    }
    let (version, raw_version) = detect::detect(root.root()).map_err(|mut d| {
        if d.line.is_none() {
            locate::fill(std::slice::from_mut(&mut d), |_| Some((definition, format)));
        }
        Invalid::one(d)
    })?;
    let mut files = vec![SourceFile {
        name: None,
        key: String::new(),
        value: root,
        text: keep_text.then(|| definition.into()),
        format,
    }];
    let mut index: HashMap<String, FileId> = HashMap::new();
    index.insert(String::new(), FileId::ROOT);
    for (i, r) in references.iter().enumerate() {
        let ptr = format!("/references/{i}/location");
        let at_ref = |code: &'static str, message: String| Diagnostic {
            code,
            message,
            file: Some(r.location.clone()),
            pointer: String::new(),
            line: None,
            column: None,
        };
        if errors.full() {
            break;
        }
        let key = match refs::normalize_location(&r.location) {
            Ok(k) => k,
            Err(reason) => {
                let mut d = Diagnostic::new(
                    "bad-reference-location",
                    format!(
                        "reference location '{}' is refused: {reason}",
                        refs::shorten(&r.location)
                    ),
                );
                d.pointer = ptr;
                d.file = None;
                errors.push(d);
                continue;
            }
        };
        if index.contains_key(&key) {
            errors.push(at_ref(
                "duplicate-reference",
                format!("two references have the location '{key}' (after normalization); send each file once"),
            ));
            continue;
        }
        if r.content.len() > max_bytes {
            let mut d = too_large(
                &format!("reference '{}'", refs::shorten(&r.location)),
                r.content.len(),
                max_bytes,
            );
            d.file = Some(r.location.clone());
            errors.push(d);
            continue;
        }
        let (value, fmt) = if is_text_location(&key) {
            (Tree::string(&r.content), SourceFormat::Yaml)
        } else {
            match load_text(&r.content, limits, nodes) {
                Ok((v, f, n)) => {
                    nodes += n;
                    (v, f)
                }
                Err(mut d) => {
                    d.file = Some(r.location.clone());
                    if d.line.is_none() && !d.pointer.is_empty() {
                        let text = r.content.as_str();
                        locate::fill(std::slice::from_mut(&mut d), |_| {
                            Some((text, SourceFormat::Json))
                        });
                    }
                    errors.push(d);
                    continue;
                }
            }
        };
        index.insert(key.clone(), FileId(files.len() as u32));
        files.push(SourceFile {
            name: Some(r.location.clone()),
            key,
            value,
            text: keep_text.then(|| r.content.as_str().into()),
            format: fmt,
        });
    }
    let mut doc = Document {
        version,
        raw_version,
        format,
        files,
        index,
        limits: limits.clone(),
        model: ApiModel::default(),
        fingerprint: OnceLock::new(),
    };
    if errors.list.is_empty() {
        doc.check_refs(&mut errors);
    }
    if !errors.list.is_empty() {
        let mut list = errors.list;
        doc.fill_positions(&mut list, Some((definition, references)));
        return Err(Invalid { diagnostics: list });
    }
    let (model, synthetic) = normalize::build(&doc);
    doc.model = model;
    if let Some(value) = synthetic {
        doc.files.push(SourceFile {
            name: Some(SYNTHETIC_FILE.to_string()),
            key: SYNTHETIC_FILE.to_string(),
            value: Tree::from_value(&value),
            text: None,
            format: SourceFormat::Json,
        });
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

/// Parse + validate (official JSON Schema + semantic rules). `Ok` only for a valid document.
pub fn check(
    definition: &str,
    references: &[Reference],
    limits: &Limits,
) -> Result<Document, Invalid> {
    let doc = parse_impl(definition, references, limits, false)?;
    let mut diagnostics = validate::run(&doc);
    if diagnostics.is_empty() {
        Ok(doc)
    } else {
        diagnostics.truncate(limits.max_errors.max(1));
        doc.fill_positions(&mut diagnostics, Some((definition, references)));
        Err(Invalid { diagnostics })
    }
}

fn info_str<'a>(root: V<'a>, key: &str) -> Option<&'a str> {
    root.get("info")?.get(key)?.as_str()
}

/// The `$ref` string of a reference object, if `v` is one.
pub(crate) fn ref_of(v: V<'_>) -> Option<&str> {
    v.get("$ref")?.as_str()
}

/// `v.get(key)`: the member `key` of an object, `None` for anything else.
#[inline]
pub(crate) fn field<'v>(v: V<'v>, key: &str) -> Option<V<'v>> {
    v.get(key)
}

#[derive(Clone, Copy)]
enum Tok<'a> {
    Key(&'a str),
    Index(usize),
}

fn tokens_pointer(path: &[Tok]) -> String {
    let size: usize = path
        .iter()
        .map(|t| match t {
            Tok::Key(k) => k.len() + 1,
            Tok::Index(_) => 4,
        })
        .sum();
    let mut p = String::with_capacity(size);
    for t in path {
        match t {
            Tok::Key(k) => pointer::push_token(&mut p, k),
            Tok::Index(i) => pointer::push_index(&mut p, *i),
        }
    }
    p
}

/// Keys whose values are literal data, never containing references to resolve.
fn is_literal_key(k: &str) -> bool {
    matches!(k, "example" | "enum" | "const" | "default")
}

impl Document {
    /// Family and version.
    pub fn version(&self) -> SpecVersion {
        self.version
    }

    /// The version string as written (`openapi`, `swagger` or `asyncapi` field), e.g. `3.0.3`.
    pub fn spec_version_string(&self) -> &str {
        &self.raw_version
    }

    /// Syntax of the root definition.
    pub fn format(&self) -> SourceFormat {
        self.format
    }

    /// The `specification` string the API reports (`openapi/v3/yaml`, `asyncapi/v2/json`, ...).
    pub fn specification(&self) -> &'static str {
        let json = self.format == SourceFormat::Json;
        match (self.version, json) {
            (SpecVersion::OpenApi20, true) => "openapi/v2/json",
            (SpecVersion::OpenApi20, false) => "openapi/v2/yaml",
            (SpecVersion::OpenApi30 | SpecVersion::OpenApi31 | SpecVersion::OpenApi32, true) => {
                "openapi/v3/json"
            }
            (SpecVersion::OpenApi30 | SpecVersion::OpenApi31 | SpecVersion::OpenApi32, false) => {
                "openapi/v3/yaml"
            }
            (SpecVersion::AsyncApi2 { .. }, true) => "asyncapi/v2/json",
            (SpecVersion::AsyncApi2 { .. }, false) => "asyncapi/v2/yaml",
            (SpecVersion::AsyncApi30, true) => "asyncapi/v3/json",
            (SpecVersion::AsyncApi30, false) => "asyncapi/v3/yaml",
        }
    }

    /// `info.title` (`""` if absent).
    pub fn title(&self) -> &str {
        info_str(self.root(), "title").unwrap_or("")
    }

    /// `info.version` (`""` if absent).
    pub fn api_version(&self) -> &str {
        info_str(self.root(), "version").unwrap_or("")
    }

    /// `info.description`.
    pub fn description(&self) -> Option<&str> {
        info_str(self.root(), "description")
    }

    /// The normalized view (built once, at parse time).
    pub fn model(&self) -> &ApiModel {
        &self.model
    }

    /// Schema and semantic diagnostics (empty means valid), capped at
    /// [`Limits::max_errors`], each with a pointer and (lazily computed) line and column.
    pub fn validate(&self) -> Vec<Diagnostic> {
        let mut list = validate::run(self);
        list.truncate(self.limits.max_errors.max(1));
        self.fill_positions(&mut list, None);
        list
    }

    /// SHA-256 of a canonical form of every file (keys sorted, no formatting, JSON and YAML
    /// alike): equal across formatting, key order and JSON vs YAML.
    pub fn fingerprint(&self) -> [u8; 32] {
        *self.fingerprint.get_or_init(|| fingerprint::compute(self))
    }

    /// [`Document::fingerprint`] in lower-case hex.
    pub fn fingerprint_hex(&self) -> String {
        hex::encode(self.fingerprint())
    }

    /// The root file's value.
    pub fn root(&self) -> V<'_> {
        self.files[0].value.root()
    }

    /// Number of files (root, references, and the synthetic file if any).
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// The value at `at`, without following `$ref`s.
    pub fn value(&self, at: &Location) -> Option<V<'_>> {
        self.files
            .get(at.file.0 as usize)?
            .value
            .root()
            .pointer(&at.pointer)
    }

    fn describe(&self, at: &Location) -> String {
        format!("{}#{}", self.file_name(at.file).unwrap_or(""), at.pointer)
    }

    /// Follows `$ref` chains starting at `at` (if the value there is `{"$ref": ...}`, jump to
    /// the target, repeat). Returns the final location and value.
    pub fn resolve(&self, at: &Location) -> Result<(Location, V<'_>), RefError> {
        let mut here = at.clone();
        let mut seen: Vec<Location> = Vec::new();
        loop {
            let v = self.value(&here).ok_or_else(|| RefError::Unresolved {
                reference: self.describe(&here),
                used_at: self.describe(at),
                reason: "there is no value at this location".into(),
            })?;
            let Some(r) = ref_of(v) else {
                return Ok((here, v));
            };
            if seen.len() >= self.limits.max_ref_chain {
                return Err(RefError::TooLong {
                    used_at: self.describe(at),
                    limit: self.limits.max_ref_chain,
                });
            }
            let next = self
                .ref_target(here.file, r)
                .map_err(|e| e.used_at(self.describe(&here)))?;
            seen.push(here);
            if seen.contains(&next) {
                let chain = seen
                    .iter()
                    .map(|l| self.describe(l))
                    .collect::<Vec<_>>()
                    .join(" -> ");
                return Err(RefError::Cycle {
                    used_at: self.describe(at),
                    chain: format!("{chain} -> {}", self.describe(&next)),
                });
            }
            here = next;
        }
    }

    /// Where a `$ref` string written in file `from` points. The pointer is returned as
    /// written; when it walks through another `$ref` on the way (`#/a/b` where `/a` is a
    /// reference object), the location returned is the canonical one behind it.
    pub fn ref_target(&self, from: FileId, reference: &str) -> Result<Location, RefError> {
        let used_at = || self.file_name(from).unwrap_or("").to_string();
        let (file_part, pointer) =
            refs::split_ref(reference).map_err(|reason| RefError::Forbidden {
                reference: refs::shorten(reference),
                used_at: used_at(),
                reason,
            })?;
        let file = if file_part.is_empty() {
            from
        } else {
            let base = self
                .files
                .get(from.0 as usize)
                .map(|f| f.key.as_str())
                .unwrap_or("");
            let key =
                refs::resolve_against(file_part, base).map_err(|reason| RefError::Forbidden {
                    reference: refs::shorten(reference),
                    used_at: used_at(),
                    reason,
                })?;
            *self.index.get(&key).ok_or_else(|| RefError::Unresolved {
                reference: refs::shorten(reference),
                used_at: used_at(),
                reason: format!("the file '{}' is not among the references sent (Specpress never fetches files or URLs)", refs::shorten(&key)),
            })?
        };
        let loc = Location { file, pointer };
        self.canonical(loc).map_err(|reason| RefError::Unresolved {
            reference: refs::shorten(reference),
            used_at: used_at(),
            reason,
        })
    }

    /// Makes a location direct: if its pointer walks through reference objects, jump through
    /// them (bounded by [`Limits::max_ref_chain`]). Errors when a token does not exist.
    pub(crate) fn canonical(&self, loc: Location) -> Result<Location, String> {
        let Some(file) = self.files.get(loc.file.0 as usize) else {
            return Err("unknown file".into());
        };
        if file.value.root().pointer(&loc.pointer).is_some() {
            return Ok(loc);
        }
        let tokens = pointer::tokens(&loc.pointer).ok_or("invalid JSON pointer")?;
        let mut here = Location::root(loc.file);
        let mut hops = 0usize;
        for (i, tok) in tokens.iter().enumerate() {
            let mut v = self.value(&here).ok_or("no value")?;
            // Walk through reference objects that do not have the token themselves.
            while let Some(r) = ref_of(v) {
                if v.get(tok.as_str()).is_some() {
                    break;
                }
                hops += 1;
                if hops > self.limits.max_ref_chain {
                    return Err(format!("more than {} $ref hops", self.limits.max_ref_chain));
                }
                let (f, p) = refs::split_ref(r)?;
                let file = if f.is_empty() {
                    here.file
                } else {
                    let base = &self.files[here.file.0 as usize].key;
                    let key = refs::resolve_against(f, base)?;
                    *self
                        .index
                        .get(&key)
                        .ok_or_else(|| format!("the file '{key}' is not among the references"))?
                };
                here = Location { file, pointer: p };
                v = self
                    .value(&here)
                    .ok_or_else(|| format!("there is no value at '{}'", here.pointer))?;
            }
            let exists = v.step(tok).is_some();
            if !exists {
                let at = pointer::from_tokens(&tokens[..=i]);
                return Err(format!(
                    "there is no value at '{at}' in {}",
                    self.file_name(loc.file).unwrap_or("the definition")
                ));
            }
            here = here.child(tok);
        }
        Ok(here)
    }

    /// The reference location of a file (`None` for the root).
    pub fn file_name(&self, file: FileId) -> Option<&str> {
        self.files.get(file.0 as usize)?.name.as_deref()
    }

    /// The document as JSON text (the root file), with references kept as refs.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.root()).unwrap_or_default()
    }

    /// Walks every file once (iteratively), checking each `$ref`: its string is acceptable,
    /// its target exists, and the chain it starts ends on a value within
    /// [`Limits::max_ref_chain`] hops without a cycle.
    fn check_refs(&self, errors: &mut Collector) {
        let mut count = 0usize;
        // Seeded foldhash (hashbrown's default): SipHash was a tenth of parsing a document with
        // thousands of `$ref`s.
        let mut good: hashbrown::HashSet<Location> = hashbrown::HashSet::new();
        // Targets of the `$ref` strings already resolved, by file: the same string recurs
        // in every place that uses a component.
        let mut targets: hashbrown::HashMap<(FileId, &str), Location> = hashbrown::HashMap::new();
        for (fi, file) in self.files.iter().enumerate() {
            let fid = FileId(fi as u32);
            // (value, depth, token) with an explicit path of tokens.
            let mut stack: Vec<(V, usize, Option<Tok>)> = vec![(file.value.root(), 0, None)];
            let mut path: Vec<Tok> = Vec::new();
            while let Some((v, depth, token)) = stack.pop() {
                path.truncate(depth.saturating_sub(1));
                if let Some(t) = token {
                    path.push(t);
                }
                match v.kind() {
                    Kind::Object(m) => {
                        if let Some(r) = m.get("$ref").and_then(V::as_str) {
                            count += 1;
                            if count > self.limits.max_refs {
                                errors.push(Diagnostic::new(
                                    "too-many-refs",
                                    format!(
                                        "the document has more than {} $refs",
                                        self.limits.max_refs
                                    ),
                                ));
                                return;
                            }
                            if let Err(e) =
                                self.check_ref_use(fid, r, &path, &mut targets, &mut good)
                            {
                                errors.push(Diagnostic {
                                    code: e.code(),
                                    message: e.to_string(),
                                    file: file.name.clone(),
                                    pointer: tokens_pointer(&path) + "/$ref",
                                    line: None,
                                    column: None,
                                });
                                if errors.full() {
                                    return;
                                }
                            }
                        }
                        for (k, child) in m.iter().rev() {
                            if child.is_object() || child.is_array() {
                                if is_literal_key(k) {
                                    continue;
                                }
                                stack.push((child, depth + 1, Some(Tok::Key(k))));
                            }
                        }
                    }
                    Kind::Array(a) => {
                        for (i, child) in a.iter().enumerate().rev() {
                            if child.is_object() || child.is_array() {
                                stack.push((child, depth + 1, Some(Tok::Index(i))));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// Checks one use of the `$ref` string `r`, written at `path` in file `fid`. `targets` remembers where each string
    /// first led, `good` every location known to end on a value.
    fn check_ref_use<'d>(
        &'d self,
        fid: FileId,
        r: &'d str,
        path: &[Tok],
        targets: &mut hashbrown::HashMap<(FileId, &'d str), Location>,
        good: &mut hashbrown::HashSet<Location>,
    ) -> Result<(), RefError> {
        let known = targets.get(&(fid, r));
        // The same string already led to a value: nothing to check, and no pointer to write for this use (most
        // `$ref`s of a document repeat one another).
        if known.is_some_and(|t| good.contains(t)) {
            return Ok(());
        }
        let known = known.cloned();
        let here = Location {
            file: fid,
            pointer: tokens_pointer(path),
        };
        if let Some(target) = self.check_chain(here, r, known, good)? {
            targets.insert((fid, r), target);
        }
        Ok(())
    }

    /// Checks the chain a `$ref` written at `here` starts (`known`: its first target, when
    /// the same string was resolved before). Returns the first target when it was resolved
    /// here (to remember it).
    fn check_chain(
        &self,
        here: Location,
        first: &str,
        known: Option<Location>,
        good: &mut hashbrown::HashSet<Location>,
    ) -> Result<Option<Location>, RefError> {
        let used_at = || self.describe(&here);
        let (mut target, resolved) = match known {
            Some(t) => (t, None),
            None => {
                let t = self
                    .ref_target(here.file, first)
                    .map_err(|e| e.used_at(used_at()))?;
                (t.clone(), Some(t))
            }
        };
        // Described only for an error: the success path allocates nothing for it.
        let mut chain = vec![here];
        loop {
            if good.contains(&target) {
                break;
            }
            let v = self.value(&target).ok_or_else(|| RefError::Unresolved {
                reference: first.to_string(),
                used_at: self.describe(&chain[0]),
                reason: "there is no value at the target".into(),
            })?;
            let Some(r) = ref_of(v) else { break };
            if chain.contains(&target) {
                let mut names: Vec<String> = chain.iter().map(|l| self.describe(l)).collect();
                names.push(self.describe(&target));
                return Err(RefError::Cycle {
                    used_at: self.describe(&chain[0]),
                    chain: names.join(" -> "),
                });
            }
            if chain.len() >= self.limits.max_ref_chain {
                return Err(RefError::TooLong {
                    used_at: self.describe(&chain[0]),
                    limit: self.limits.max_ref_chain,
                });
            }
            let next = self
                .ref_target(target.file, r)
                .map_err(|e| e.used_at(self.describe(&target)))?;
            chain.push(target);
            target = next;
        }
        // Every location of a chain that ended on a value is known good.
        good.insert(target);
        for l in chain.into_iter().skip(1) {
            good.insert(l);
        }
        Ok(resolved)
    }

    /// Fills `line`/`column` of diagnostics that have a pointer but no position, parsing each
    /// concerned file's text once more (only when there are diagnostics).
    /// The texts come from the document when it kept them, else from `inputs` (the
    /// definition and references it was parsed from).
    fn fill_positions(&self, list: &mut [Diagnostic], inputs: Option<(&str, &[Reference])>) {
        locate::fill(list, |file| {
            let f = match file {
                None => self.files.first()?,
                Some(name) => self
                    .files
                    .iter()
                    .find(|f| f.name.as_deref() == Some(name))?,
            };
            if let Some(text) = f.text.as_deref() {
                return Some((text, f.format));
            }
            let (definition, references) = inputs?;
            let text = match file {
                None => definition,
                Some(name) => references
                    .iter()
                    .find(|r| r.location == name)?
                    .content
                    .as_str(),
            };
            Some((text, f.format))
        });
    }
}

impl RefError {
    /// The diagnostic code of this error.
    fn code(&self) -> &'static str {
        match self {
            RefError::Forbidden { .. } => "forbidden-ref",
            RefError::Cycle { .. } => "ref-cycle",
            RefError::TooLong { .. } => "ref-chain-too-long",
            RefError::Unresolved { .. } => "unresolved-ref",
        }
    }

    fn used_at(self, at: String) -> Self {
        match self {
            RefError::Unresolved {
                reference, reason, ..
            } => RefError::Unresolved {
                reference,
                used_at: at,
                reason,
            },
            RefError::Forbidden {
                reference, reason, ..
            } => RefError::Forbidden {
                reference,
                used_at: at,
                reason,
            },
            other => other,
        }
    }
}

//! [`Document`]: an API document once read, its files, and what it tells a caller (family and
//! version, `info`, the model, validation, the fingerprint, values by location). Following
//! `$ref`s is in `refs/`; reading the inputs into a document in `read.rs`.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::diagnostic::Diagnostic;
use crate::locate::{Position, Wanted};
use crate::model::{ApiModel, FileId, Location, SpecVersion};
use crate::normalize::FormSourceMap;
use crate::tree::{Tree, V};
use crate::{Limits, Reference, SYNTHETIC_FILE, SourceFormat, locate, validate};

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
    /// YAML the block reader took (`crate::yaml::block`): its lines follow that reader's
    /// subset, which the position scan can skim by indentation (see `locate.rs`).
    pub(crate) block: bool,
}

/// A parsed, detected and resolved API document. `Send + Sync`; the model is built once at
/// parse time, the fingerprint on first use.
pub struct Document {
    pub(crate) version: SpecVersion,
    /// The version as written (`3.0.3`).
    pub(crate) raw_version: String,
    pub(crate) format: SourceFormat,
    /// The root file, each reference in order, then the synthetic file if any.
    pub(crate) files: Vec<SourceFile>,
    /// Files by normalized location.
    pub(crate) index: HashMap<String, FileId>,
    pub(crate) limits: Limits,
    pub(crate) model: ApiModel,
    /// Where the synthetic file's schemas come from (see [`Document::positions`]).
    pub(crate) form_sources: FormSourceMap,
    pub(crate) fingerprint: OnceLock<[u8; 32]>,
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

/// `info.{key}` of the root, when a string.
fn info_str<'a>(root: V<'a>, key: &str) -> Option<&'a str> {
    root.get("info")?.get(key)?.as_str()
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

    /// `at` as `file#pointer`, for messages.
    pub(crate) fn describe(&self, at: &Location) -> String {
        format!("{}#{}", self.file_name(at.file).unwrap_or(""), at.pointer)
    }

    /// The reference location of a file (`None` for the root).
    pub fn file_name(&self, file: FileId) -> Option<&str> {
        self.files.get(file.0 as usize)?.name.as_deref()
    }

    /// The document as JSON text (the root file), with references kept as refs.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.root()).unwrap_or_default()
    }

    /// Where each location is written: the file and the line and column of its value (of an
    /// object member, its key), or of its nearest enclosing value when the pointer names
    /// nothing. A location
    /// in the synthetic file (the schema of a Swagger 2.0 operation's `formData` parameters) is
    /// given where that part is written: a property at its parameter, anything else at the
    /// operation's `parameters`. `None` for a location in a file that kept no text (a document
    /// read by [`crate::check`]).
    ///
    /// Each concerned file is read once, whatever the number of locations in it, and only as
    /// far as the last of them (see `locate.rs`).
    pub fn positions(&self, locations: &[&Location]) -> Vec<Option<(FileId, Position)>> {
        let mut out = vec![None; locations.len()];
        // Per file: the trie of its pointers, and (index in `locations`, trie node).
        let mut per_file: HashMap<FileId, (Wanted, Vec<(usize, u32)>)> = HashMap::new();
        for (i, at) in locations.iter().enumerate() {
            let source;
            let at = if self.is_synthetic(at.file) {
                match self.form_source(at) {
                    Some(s) => {
                        source = s;
                        &source
                    }
                    None => continue,
                }
            } else {
                *at
            };
            let (wanted, targets) = per_file
                .entry(at.file)
                .or_insert_with(|| (Wanted::new(), Vec::new()));
            if let Some(node) = wanted.insert(&at.pointer) {
                targets.push((i, node));
            }
        }
        for (file, (mut wanted, targets)) in per_file {
            let Some(f) = self.files.get(file.0 as usize) else {
                continue;
            };
            let Some(text) = f.text.as_deref() else {
                continue;
            };
            let nodes: Vec<u32> = targets.iter().map(|&(_, n)| n).collect();
            let found = locate::scan(text, (f.format, f.block), &mut wanted, &nodes);
            for ((i, _), position) in targets.into_iter().zip(found) {
                out[i] = position.map(|p| (file, p));
            }
        }
        out
    }

    fn is_synthetic(&self, file: FileId) -> bool {
        self.files
            .get(file.0 as usize)
            .is_some_and(|f| f.key == SYNTHETIC_FILE)
    }

    /// Where a part of a synthetic schema is written: `/<key>/properties/<name>/<rest>` is
    /// `<rest>` of the `formData` parameter `<name>`; anything else of `/<key>`, the
    /// operation's `parameters`.
    fn form_source(&self, at: &Location) -> Option<Location> {
        let tokens = crate::pointer::tokens(&at.pointer)?;
        let sources = self.form_sources.get(tokens.first()?)?;
        if let (Some("properties"), Some(name)) = (tokens.get(1).map(String::as_str), tokens.get(2))
            && let Some((_, parameter)) = sources.properties.iter().find(|(n, _)| n == name)
        {
            let mut source = parameter.clone();
            for t in tokens.iter().skip(3) {
                source = source.child(t);
            }
            return Some(source);
        }
        Some(sources.parameters.clone())
    }

    /// Fills `line`/`column` of diagnostics that have a pointer but no position, parsing each
    /// concerned file's text once more (only when there are diagnostics).
    /// The texts come from the document when it kept them, else from `inputs` (the
    /// definition and references it was parsed from).
    pub(crate) fn fill_positions(
        &self,
        list: &mut [Diagnostic],
        inputs: Option<(&str, &[Reference])>,
    ) {
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

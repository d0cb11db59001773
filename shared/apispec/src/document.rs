//! [`Document`]: an API document once read, its files, and what it tells a caller (family and
//! version, `info`, the model, validation, the fingerprint, values by location). Following
//! `$ref`s is in `refs/`; reading the inputs into a document in `read.rs`.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::diagnostic::Diagnostic;
use crate::model::{ApiModel, FileId, Location, SpecVersion};
use crate::tree::{Tree, V};
use crate::{Limits, Reference, SourceFormat, locate, validate};

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

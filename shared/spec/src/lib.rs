//! Specpress spec engine: reads, resolves and validates OpenAPI 2.0/3.0/3.1 and AsyncAPI
//! 2.x/3.0 documents, and builds the normalized [`ApiModel`] the diff engine walks.
//!
//! Nothing here touches the filesystem, the network, AWS or HTTP: a document is a string (the
//! `definition`) plus the `references` table the API receives.

mod detect;
pub mod model;

pub use model::*;

use std::sync::OnceLock;

/// Budgets applied to every document. All are hard limits: exceeding one is an error with a
/// clear message, never unbounded time or memory.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Maximum size of each file (the definition and each reference), checked before parsing.
    pub max_bytes: usize,
    /// Maximum nesting depth of arrays/objects.
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

struct SourceFile {
    /// The reference location as given (None for the root).
    name: Option<String>,
    /// Normalized location used for matching.
    key: String,
    value: serde_json::Value,
}

/// A parsed, detected and resolved API document. Cheap to share: `Send + Sync`.
pub struct Document {
    version: SpecVersion,
    format: SourceFormat,
    files: Vec<SourceFile>,
    limits: Limits,
    model: OnceLock<ApiModel>,
}

/// Parse + detect + resolve refs (does not run schema validation).
pub fn parse(
    definition: &str,
    references: &[Reference],
    limits: &Limits,
) -> Result<Document, Invalid> {
    if definition.len() > limits.max_bytes {
        return Err(Invalid::one(Diagnostic::new(
            "too-large",
            format!(
                "the definition is {} bytes, more than the limit of {} bytes",
                definition.len(),
                limits.max_bytes
            ),
        )));
    }
    let format = if definition.trim_start().starts_with(['{', '[']) {
        SourceFormat::Json
    } else {
        SourceFormat::Yaml
    };
    let value: serde_json::Value = match format {
        SourceFormat::Json => serde_json::from_str(definition)
            .map_err(|e| Invalid::one(Diagnostic::new("syntax", format!("invalid JSON: {e}"))))?,
        SourceFormat::Yaml => {
            return Err(Invalid::one(Diagnostic::new(
                "syntax",
                "YAML is not supported yet",
            )));
        }
    };
    let version = detect::detect(&value).map_err(Invalid::one)?;
    let mut files = vec![SourceFile {
        name: None,
        key: String::new(),
        value,
    }];
    for r in references {
        let value = serde_json::from_str(&r.content).map_err(|e| {
            Invalid::one(Diagnostic::new(
                "syntax",
                format!("invalid JSON in '{}': {e}", r.location),
            ))
        })?;
        files.push(SourceFile {
            name: Some(r.location.clone()),
            key: r.location.clone(),
            value,
        });
    }
    Ok(Document {
        version,
        format,
        files,
        limits: limits.clone(),
        model: OnceLock::new(),
    })
}

/// Same as [`parse`] from bytes: checks UTF-8 first.
pub fn parse_bytes(
    definition: &[u8],
    references: &[Reference],
    limits: &Limits,
) -> Result<Document, Invalid> {
    let text = std::str::from_utf8(definition).map_err(|e| {
        Invalid::one(Diagnostic::new(
            "encoding",
            format!("the definition is not valid UTF-8: {e}"),
        ))
    })?;
    parse(text, references, limits)
}

/// Parse + validate (official JSON Schema + semantic rules). `Ok` only for a valid document.
pub fn check(
    definition: &str,
    references: &[Reference],
    limits: &Limits,
) -> Result<Document, Invalid> {
    let doc = parse(definition, references, limits)?;
    let diagnostics = doc.validate();
    if diagnostics.is_empty() {
        Ok(doc)
    } else {
        Err(Invalid { diagnostics })
    }
}

fn info_str<'a>(root: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    root.get("info")?.get(key)?.as_str()
}

impl Document {
    /// Family and version.
    pub fn version(&self) -> SpecVersion {
        self.version
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

    /// The normalized view (built once, on first use).
    pub fn model(&self) -> &ApiModel {
        self.model.get_or_init(ApiModel::default)
    }

    /// Schema and semantic diagnostics (empty means valid).
    pub fn validate(&self) -> Vec<Diagnostic> {
        let _ = &self.limits;
        Vec::new()
    }

    /// SHA-256 of a canonical form: equal across formatting, key order and JSON vs YAML.
    pub fn fingerprint(&self) -> [u8; 32] {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        for f in &self.files {
            h.update(f.key.as_bytes());
            h.update(
                serde_json::to_string(&f.value)
                    .unwrap_or_default()
                    .as_bytes(),
            );
        }
        h.finalize().into()
    }

    /// [`Document::fingerprint`] in lower-case hex.
    pub fn fingerprint_hex(&self) -> String {
        hex::encode(self.fingerprint())
    }

    /// The root file's value.
    pub fn root(&self) -> &serde_json::Value {
        &self.files[0].value
    }

    /// The value at `at`, without following `$ref`s.
    pub fn value(&self, at: &Location) -> Option<&serde_json::Value> {
        let file = self.files.get(at.file.0 as usize)?;
        file.value.pointer(&at.pointer)
    }

    /// Follows `$ref` chains starting at `at`; returns the final location and value.
    pub fn resolve(&self, at: &Location) -> Result<(Location, &serde_json::Value), RefError> {
        let mut here = at.clone();
        for _ in 0..=self.limits.max_ref_chain {
            let v = self.value(&here).ok_or_else(|| RefError::Unresolved {
                reference: here.pointer.clone(),
                used_at: format!("{}#{}", at.file.0, at.pointer),
                reason: "no value at this location".into(),
            })?;
            match v.get("$ref").and_then(|r| r.as_str()) {
                Some(r) => here = self.ref_target(here.file, r)?,
                None => return Ok((here, v)),
            }
        }
        Err(RefError::TooLong {
            used_at: at.pointer.clone(),
            limit: self.limits.max_ref_chain,
        })
    }

    /// Where a `$ref` string written in file `from` points.
    pub fn ref_target(&self, from: FileId, reference: &str) -> Result<Location, RefError> {
        let (file, frag) = reference.split_once('#').unwrap_or((reference, ""));
        let file_id = if file.is_empty() {
            from
        } else {
            let idx = self
                .files
                .iter()
                .position(|f| f.key == file)
                .ok_or_else(|| RefError::Unresolved {
                    reference: reference.to_string(),
                    used_at: String::new(),
                    reason: "not among the references".into(),
                })?;
            FileId(idx as u32)
        };
        Ok(Location {
            file: file_id,
            pointer: frag.to_string(),
        })
    }

    /// The reference location of a file (`None` for the root).
    pub fn file_name(&self, file: FileId) -> Option<&str> {
        self.files.get(file.0 as usize)?.name.as_deref()
    }

    /// The document as JSON text, references kept as refs.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self.root()).unwrap_or_default()
    }
}

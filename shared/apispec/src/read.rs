//! Reading a document: from the `definition` and `references` texts to a [`Document`], in
//! steps. The budgets that need no parsing are checked first (sizes, number of files); the
//! definition is parsed (JSON or YAML, detected) and its specification and version detected;
//! each reference is loaded (its location normalized, its size checked, its text parsed, or
//! kept as one string for Markdown and text files); then every `$ref` is checked and the
//! normalized model built. Problems found while loading the references are collected (up to
//! [`Limits::max_errors`]) rather than stopping at the first.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::diagnostic::{Collector, Diagnostic, Invalid};
use crate::document::SourceFile;
use crate::model::{ApiModel, FileId, SpecVersion};
use crate::tree::{Kind, Tree, V};
use crate::{
    Document, Limits, MAX_BYTES_CEILING, MAX_DEPTH_CEILING, Reference, SYNTHETIC_FILE,
    SourceFormat, detect, json, locate, normalize, refs, yaml,
};

fn too_large(what: &str, len: usize, limit: usize) -> Diagnostic {
    Diagnostic::new(
        "too-large",
        format!("{what} is {len} bytes, more than the limit of {limit} bytes"),
    )
}

/// One file's text, parsed.
pub(crate) struct Parsed {
    pub(crate) tree: Tree,
    format: SourceFormat,
    /// Values in it (against [`Limits::max_nodes`]).
    nodes: usize,
    /// YAML read by the block reader (see [`SourceFile::block`]).
    block: bool,
}

/// Parses one file's text (JSON or YAML, detected), within the budgets.
pub(crate) fn load_text(
    text: &str,
    limits: &Limits,
    nodes_before: usize,
) -> Result<Parsed, Diagnostic> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.trim_start().chars().next();
    let max_depth = limits.max_depth.min(MAX_DEPTH_CEILING);
    let yaml_budget = yaml::YamlBudget::new(limits, nodes_before);
    match first {
        None => Err(Diagnostic::new("empty-document", "the document is empty")),
        Some('{') | Some('[') | Some('"') => {
            match json::load(text, max_depth, limits.max_nodes, nodes_before) {
                Ok(l) => Ok(Parsed {
                    tree: l.value,
                    format: SourceFormat::Json,
                    nodes: l.nodes,
                    block: false,
                }),
                // Flow-style YAML also starts with `{`/`[`: fall back to YAML on a plain syntax error.
                // If both fail, the JSON error is the useful one, unless YAML hit a budget.
                Err(e) if e.code == "syntax" => match yaml::load(text, &yaml_budget) {
                    Ok(l) => Ok(Parsed {
                        tree: l.value,
                        format: SourceFormat::Yaml,
                        nodes: l.nodes,
                        block: l.block,
                    }),
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
            Ok(Parsed {
                tree: l.value,
                format: SourceFormat::Yaml,
                nodes: l.nodes,
                block: l.block,
            })
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

/// The definition, parsed and detected.
struct Root {
    tree: Tree,
    format: SourceFormat,
    /// Values in it (against [`Limits::max_nodes`]).
    nodes: usize,
    block: bool,
    version: SpecVersion,
    raw_version: String,
}

/// A reference file, loaded.
struct LoadedFile {
    /// Its normalized location.
    key: String,
    tree: Tree,
    format: SourceFormat,
    nodes: usize,
    block: bool,
}

/// The files read so far, and their index by normalized location.
struct Files {
    list: Vec<SourceFile>,
    index: HashMap<String, FileId>,
}

/// Reads, detects and resolves a document (without schema validation). `keep_text`: keep a copy
/// of every file's text in the document, so that a later [`Document::validate`] can give
/// line/column positions. [`check`](crate::check) does not need it (it has the input at hand),
/// which saves one copy of the input in memory.
pub(crate) fn document(
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
    check_input_sizes(definition, references, limits, max_bytes)?;
    let root = read_root(definition, limits)?;
    let mut files = Files {
        list: vec![SourceFile {
            name: None,
            key: String::new(),
            value: root.tree,
            text: keep_text.then(|| definition.into()),
            format: root.format,
            block: root.block,
        }],
        index: HashMap::new(),
    };
    files.index.insert(String::new(), FileId::ROOT);
    read_references(
        references,
        limits,
        max_bytes,
        keep_text,
        root.nodes,
        &mut files,
        &mut errors,
    );
    let mut doc = Document {
        version: root.version,
        raw_version: root.raw_version,
        format: root.format,
        files: files.list,
        index: files.index,
        limits: limits.clone(),
        model: ApiModel::default(),
        form_sources: Default::default(),
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
    add_model(&mut doc);
    Ok(doc)
}

/// The budgets checked before anything is parsed: the definition's size and the number of
/// references.
fn check_input_sizes(
    definition: &str,
    references: &[Reference],
    limits: &Limits,
    max_bytes: usize,
) -> Result<(), Invalid> {
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
    Ok(())
}

/// The definition: parsed, an object, of a specification and version Specpress reads.
fn read_root(definition: &str, limits: &Limits) -> Result<Root, Invalid> {
    let parsed = load_text(definition, limits, 0).map_err(|mut d| {
        d.file = None;
        if d.line.is_none() && !d.pointer.is_empty() {
            locate::fill(std::slice::from_mut(&mut d), |_| {
                Some((definition, SourceFormat::Json))
            });
        }
        Invalid::one(d)
    })?;
    let Parsed {
        tree,
        format,
        nodes,
        block,
    } = parsed;
    if !tree.root().is_object() {
        return Err(Invalid::one(Diagnostic::new(
            "not-an-api-document",
            format!(
                "the document is {}, not an object: expected an OpenAPI or AsyncAPI document with an 'openapi', 'swagger' or 'asyncapi' field",
                kind_of(tree.root())
            ),
        )));
    }
    let (version, raw_version) = detect::detect(tree.root()).map_err(|mut d| {
        if d.line.is_none() {
            locate::fill(std::slice::from_mut(&mut d), |_| Some((definition, format)));
        }
        Invalid::one(d)
    })?;
    Ok(Root {
        tree,
        format,
        nodes,
        block,
        version,
        raw_version,
    })
}

/// Every entry of `references` into `files`, in order, each problem into `errors` (stopping
/// when it is full). `nodes`: values read so far, the node budget being the whole document's.
fn read_references(
    references: &[Reference],
    limits: &Limits,
    max_bytes: usize,
    keep_text: bool,
    mut nodes: usize,
    files: &mut Files,
    errors: &mut Collector,
) {
    for (i, r) in references.iter().enumerate() {
        if errors.full() {
            break;
        }
        match read_reference(i, r, limits, max_bytes, nodes, &files.index) {
            Ok(file) => {
                nodes += file.nodes;
                files
                    .index
                    .insert(file.key.clone(), FileId(files.list.len() as u32));
                files.list.push(SourceFile {
                    name: Some(r.location.clone()),
                    key: file.key,
                    value: file.tree,
                    text: keep_text.then(|| r.content.as_str().into()),
                    format: file.format,
                    block: file.block,
                });
            }
            Err(d) => errors.push(d),
        }
    }
}

/// Entry `i` of `references`: its location normalized and not sent before (`index`), its size
/// within `max_bytes`, its text parsed after `nodes_before` values (a Markdown or text file is
/// one string).
fn read_reference(
    i: usize,
    r: &Reference,
    limits: &Limits,
    max_bytes: usize,
    nodes_before: usize,
    index: &HashMap<String, FileId>,
) -> Result<LoadedFile, Diagnostic> {
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
            d.pointer = format!("/references/{i}/location");
            d.file = None;
            return Err(d);
        }
    };
    if index.contains_key(&key) {
        return Err(Diagnostic {
            code: "duplicate-reference",
            message: format!(
                "two references have the location '{key}' (after normalization); send each file once"
            ),
            file: Some(r.location.clone()),
            pointer: String::new(),
            line: None,
            column: None,
        });
    }
    if r.content.len() > max_bytes {
        let mut d = too_large(
            &format!("reference '{}'", refs::shorten(&r.location)),
            r.content.len(),
            max_bytes,
        );
        d.file = Some(r.location.clone());
        return Err(d);
    }
    if is_text_location(&key) {
        return Ok(LoadedFile {
            key,
            tree: Tree::string(&r.content),
            format: SourceFormat::Yaml,
            nodes: 0,
            block: false,
        });
    }
    match load_text(&r.content, limits, nodes_before) {
        Ok(p) => Ok(LoadedFile {
            key,
            tree: p.tree,
            format: p.format,
            nodes: p.nodes,
            block: p.block,
        }),
        Err(mut d) => {
            d.file = Some(r.location.clone());
            if d.line.is_none() && !d.pointer.is_empty() {
                let text = r.content.as_str();
                locate::fill(std::slice::from_mut(&mut d), |_| {
                    Some((text, SourceFormat::Json))
                });
            }
            Err(d)
        }
    }
}

/// The normalized model, and the synthetic file when the model wrote schemas into one.
fn add_model(doc: &mut Document) {
    let (model, synthetic, form_sources) = normalize::build(doc);
    doc.model = model;
    doc.form_sources = form_sources;
    if let Some(value) = synthetic {
        doc.files.push(SourceFile {
            name: Some(SYNTHETIC_FILE.to_string()),
            key: SYNTHETIC_FILE.to_string(),
            value: Tree::from_value(&value),
            text: None,
            format: SourceFormat::Json,
            block: false,
        });
    }
}

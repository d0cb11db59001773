//! The [`SpecEngine`] port over `specpress-apispec` (validation) and `specpress-diff` (diffs).
//! Parsing and diffing are CPU-bound, so they run on the blocking pool, never on the async executor, and go through
//! the process's [`CpuGate`] (one job per core at a time, in arrival order).

use async_trait::async_trait;
use specpress_apispec::{Invalid, Limits};
use specpress_domain::model::{Analysis, Bundle};
use specpress_domain::ports::{DiffSummary, OperationFacts, SpecEngine};
use specpress_domain::{DomainError, Result};
use std::collections::BTreeMap;

use crate::cpu::CpuGate;

/// The production engine.
#[derive(Debug, Clone)]
pub struct Engines {
    limits: Limits,
}

impl Default for Engines {
    fn default() -> Self {
        Engines::new(admission_limits(
            specpress_config::DEFAULT_MAX_DOCUMENT_BYTES,
        ))
    }
}

/// The budgets a new document must fit (deploys, validations, previews, diffs): the spec engine's defaults with
/// `max_document_bytes` per file.
pub fn admission_limits(max_document_bytes: usize) -> Limits {
    Limits {
        max_bytes: max_document_bytes,
        ..Limits::default()
    }
}

/// The budgets for reading back a stored document: it fitted the admission budgets of the process that stored
/// it, which may have been larger than this one's, so size is not checked again (the tree's own ceiling stays).
pub fn stored_limits() -> Limits {
    Limits {
        max_bytes: specpress_apispec::MAX_BYTES_CEILING,
        ..Limits::default()
    }
}

impl Engines {
    /// An engine with the given admission budgets. The process keeps the memory its documents free
    /// and backs it with small pages ([`crate::allocator::configure_for_service`]).
    pub fn new(limits: Limits) -> Self {
        crate::allocator::configure_for_service();
        Engines { limits }
    }

    /// An engine that admits documents of up to `max_document_bytes` per file.
    pub fn with_max_document_bytes(max_document_bytes: usize) -> Self {
        Engines::new(admission_limits(max_document_bytes))
    }

    /// The engine of a process configured by `config`: it admits documents of `SPECPRESS_MAX_DOCUMENT_BYTES`.
    pub fn for_config(config: &specpress_config::Config) -> Self {
        Engines::with_max_document_bytes(config.max_document_bytes)
    }

    /// Compiles the bundled JSON Schemas now rather than on the first request (under the service's memory policy,
    /// [`crate::allocator::configure_for_service`]).
    pub async fn warm_up() -> Result<()> {
        crate::allocator::configure_for_service();
        tokio::task::spawn_blocking(specpress_apispec::warm_up)
            .await
            .map_err(DomainError::unexpected)?
            .map_err(DomainError::unexpected)
    }
}

/// A bundle's external files as the spec engine takes them.
pub fn references(b: &Bundle) -> Vec<specpress_apispec::Reference> {
    b.references
        .iter()
        .map(|r| specpress_apispec::Reference {
            location: r.location.clone(),
            content: r.content.clone(),
            name: r.name.clone(),
        })
        .collect()
}

fn invalid(e: Invalid) -> DomainError {
    let messages: Vec<String> = e.diagnostics.iter().map(ToString::to_string).collect();
    DomainError::Invalid {
        message: "Invalid definition file".into(),
        field: "raw_definition".into(),
        messages: if messages.is_empty() {
            vec!["The definition is not a valid API document.".into()]
        } else {
            messages
        },
    }
}

fn analyze(bundle: &Bundle, limits: &Limits) -> Result<Analysis> {
    let doc = specpress_apispec::check(&bundle.definition, &references(bundle), limits)
        .map_err(invalid)?;
    Ok(Analysis {
        specification: doc.specification().to_owned(),
        title: doc.title().to_owned(),
        api_version: doc.api_version().to_owned(),
        description: Analysis::description_of(doc.description()),
        fingerprint: doc.fingerprint_hex(),
    })
}

fn diff(previous: &Bundle, current: &Bundle, limits: &Limits) -> Result<DiffSummary> {
    // Stored documents were valid when deployed; a parse failure here is a server-side problem.
    let parse = |b: &Bundle| {
        specpress_apispec::parse(&b.definition, &references(b), limits)
            .map_err(DomainError::unexpected)
    };
    let before = parse(previous)?;
    let after = parse(current)?;
    let report = specpress_diff::diff(&before, &after, &specpress_diff::DiffOptions::default());
    Ok(DiffSummary {
        text: report.text(),
        markdown: report.markdown(),
        details: report.details(),
        breaking: report.breaking(),
        is_empty: report.is_empty(),
        structural: report.structural(),
        operations: operation_facts(&[before.model(), after.model()]),
    })
}

/// The tags and ids of the operations and channels of the two documents, by the names the diff's items give them.
fn operation_facts(models: &[&specpress_apispec::ApiModel]) -> BTreeMap<String, OperationFacts> {
    let mut out: BTreeMap<String, OperationFacts> = BTreeMap::new();
    let mut add = |name: String, tags: &[String], ids: &[&str]| {
        if tags.is_empty() && ids.is_empty() {
            return;
        }
        let facts = out.entry(name).or_default();
        for t in tags {
            if !facts.tags.contains(t) {
                facts.tags.push(t.clone());
            }
        }
        for id in ids {
            if !facts.ids.iter().any(|i| i == id) {
                facts.ids.push((*id).to_owned());
            }
        }
    };
    for m in models {
        for op in m.operations.values() {
            let ids: Vec<&str> = op.operation_id.as_deref().into_iter().collect();
            add(format!("{} {}", op.key.method, op.path), &op.tags, &ids);
        }
        for ch in m.channels.values() {
            add(ch.address.clone(), &[], &[ch.id.as_str()]);
        }
        for op in m.message_operations.values() {
            let verb = match op.key.direction {
                specpress_apispec::Direction::Send => "SEND",
                specpress_apispec::Direction::Receive => "RECEIVE",
            };
            let mut ids: Vec<&str> = op.operation_id.as_deref().into_iter().collect();
            if let Some(ch) = m.channels.get(&op.key.channel) {
                ids.push(ch.id.as_str());
            }
            add(format!("{verb} {}", op.channel_address), &[], &ids);
        }
    }
    out
}

#[async_trait]
impl SpecEngine for Engines {
    async fn check(&self, bundle: &Bundle) -> Result<Analysis> {
        let bundle = bundle.clone();
        let limits = self.limits.clone();
        CpuGate::shared()
            .run(move || analyze(&bundle, &limits))
            .await?
    }

    async fn diff(&self, previous: &Bundle, current: &Bundle) -> Result<DiffSummary> {
        // Both are stored definitions (deployed versions, previews).
        let (p, c) = (previous.clone(), current.clone());
        let limits = stored_limits();
        CpuGate::shared().run(move || diff(&p, &c, &limits)).await?
    }
}

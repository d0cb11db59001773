//! [`DiffEngine`] over `specpress-apispec` + `specpress-diff`, run off the async executor.

use std::sync::Arc;

use async_trait::async_trait;
use futures_channel::oneshot;
use specpress_api::cpu::CpuGate;
use specpress_apispec::{Document, Limits, parallel};
use specpress_domain::model::Bundle;
use specpress_domain::ports::{Comparison, DiffEngine, Rendered};
use specpress_domain::{DomainError, Result};
use specpress_engines::engine::references;

/// The spec and diff engines with their input budgets.
#[derive(Debug, Clone)]
pub struct SpecDiffEngine {
    limits: Limits,
}

impl Default for SpecDiffEngine {
    fn default() -> Self {
        SpecDiffEngine::new(specpress_engines::engine::admission_limits(
            specpress_api::DEFAULT_MAX_DOCUMENT_BYTES,
        ))
    }
}

impl SpecDiffEngine {
    /// An engine with the given parsing budgets. The process keeps the memory its documents free
    /// and backs it with small pages ([`specpress_alloc::configure_for_service`]).
    pub fn new(limits: Limits) -> Self {
        specpress_alloc::configure_for_service();
        SpecDiffEngine { limits }
    }
}

/// Parses one side; an unusable document is a 422 on `field` with every located message.
fn parse(bundle: &Bundle, field: &str, limits: &Limits) -> Result<Document> {
    specpress_apispec::parse(&bundle.definition, &references(bundle), limits).map_err(|invalid| {
        let messages: Vec<String> = invalid
            .diagnostics
            .iter()
            .map(ToString::to_string)
            .collect();
        DomainError::Invalid {
            message: format!("Invalid definition file ({field})"),
            field: field.to_owned(),
            messages,
        }
    })
}

/// Parses both sides (in parallel, on two threads), calls `parsed` if both parse, diffs, and renders every format.
pub fn compare_blocking(
    previous: &Bundle,
    current: &Bundle,
    from_urls: bool,
    limits: &Limits,
    parsed: impl FnOnce(),
) -> Result<Comparison> {
    let (pf, cf) = if from_urls {
        ("previous_url", "url")
    } else {
        ("previous_definition", "definition")
    };
    let (prev, cur) = parallel::join(
        || parse(previous, pf, limits),
        || parse(current, cf, limits),
    );
    let (prev, cur) = (prev?, cur?);
    parsed();
    let report = specpress_diff::diff(&prev, &cur, &specpress_diff::DiffOptions::default());
    // The four renderings are independent; the HTML and the JSON tree are the costly ones, so they go to different
    // threads. Each is serialized to JSON where it is made: they are stored and served as JSON text.
    let json = |s: String| serde_json::value::to_raw_value(&s);
    let (html, (details, (text, markdown))) = parallel::join(
        || json(report.html()),
        || {
            parallel::join(
                || serde_json::value::to_raw_value(&report.details()),
                || (json(report.text()), json(report.markdown())),
            )
        },
    );
    let json_error = DomainError::unexpected;
    let (html, details) = (html.map_err(json_error)?, details.map_err(json_error)?);
    let (text, markdown) = (text.map_err(json_error)?, markdown.map_err(json_error)?);
    let (title, breaking) = (cur.title().to_owned(), report.breaking());
    // Freeing two large documents and the report takes milliseconds: do it off the request's path.
    // Not on the engines' pool: the next request's parses would wait behind it there.
    let garbage = (prev, cur, report);
    let _ = std::thread::Builder::new()
        .name("specpress-free".into())
        .spawn(move || drop(garbage));
    Ok(Comparison {
        title,
        breaking,
        rendered: Rendered {
            text,
            markdown,
            html,
            details,
        },
    })
}

#[async_trait]
impl DiffEngine for SpecDiffEngine {
    async fn compare(
        &self,
        previous: Arc<Bundle>,
        current: Arc<Bundle>,
        from_urls: bool,
        parsed: oneshot::Sender<()>,
    ) -> Result<Comparison> {
        let limits = self.limits.clone();
        CpuGate::shared()
            .run(move || {
                // The receiver may be gone (the caller stopped waiting): nothing to tell then.
                let parsed = move || {
                    let _ = parsed.send(());
                };
                compare_blocking(&previous, &current, from_urls, &limits, parsed)
            })
            .await?
    }

    async fn to_json(&self, bundle: &Bundle) -> Result<String> {
        let (bundle, limits) = (bundle.clone(), self.limits.clone());
        CpuGate::shared()
            .run(move || {
                let doc = parse(&bundle, "definition", &limits)?;
                Ok(doc.to_json())
            })
            .await?
    }
}

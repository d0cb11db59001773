//! [`DiffEngine`] over `specpress-spec` + `specpress-diff`, run off the async executor.

use std::sync::Arc;

use async_trait::async_trait;
use specpress_domain::model::Bundle;
use specpress_domain::usecases::diffs::{Comparison, DiffEngine, Rendered};
use specpress_domain::{DomainError, Result};
use specpress_spec::{Document, Limits};

/// The spec and diff engines with their input budgets.
#[derive(Debug, Clone)]
pub struct SpecDiffEngine {
    limits: Limits,
}

impl Default for SpecDiffEngine {
    fn default() -> Self {
        SpecDiffEngine::new(Limits::default())
    }
}

impl SpecDiffEngine {
    /// An engine with the given parsing budgets. The process keeps the memory its documents free
    /// ([`specpress_api::allocator::retain_freed_memory`]).
    pub fn new(limits: Limits) -> Self {
        specpress_api::allocator::retain_freed_memory();
        SpecDiffEngine { limits }
    }
}

fn references(bundle: &Bundle) -> Vec<specpress_spec::Reference> {
    bundle
        .references
        .iter()
        .map(|r| specpress_spec::Reference {
            location: r.location.clone(),
            content: r.content.clone(),
            name: r.name.clone(),
        })
        .collect()
}

/// Parses one side; an unusable document is a 422 on `field` with every located message.
fn parse(bundle: &Bundle, field: &str, limits: &Limits) -> Result<Document> {
    specpress_spec::parse(&bundle.definition, &references(bundle), limits).map_err(|invalid| {
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

/// Parses both sides (in parallel, on two threads), diffs, and renders every format.
pub fn compare_blocking(
    previous: &Bundle,
    current: &Bundle,
    from_urls: bool,
    limits: &Limits,
) -> Result<Comparison> {
    let (pf, cf) = if from_urls {
        ("previous_url", "url")
    } else {
        ("previous_definition", "definition")
    };
    let (prev, cur) = std::thread::scope(|scope| {
        let handle = scope.spawn(|| parse(previous, pf, limits));
        let cur = parse(current, cf, limits);
        let prev = handle
            .join()
            .unwrap_or_else(|_| Err(DomainError::unexpected("parser thread panicked")));
        (prev, cur)
    });
    let (prev, cur) = (prev?, cur?);
    let report = specpress_diff::diff(&prev, &cur, &specpress_diff::DiffOptions::default());
    // The four renderings are independent; the HTML and the JSON tree are the costly ones: each on its own thread.
    // The tree is serialized where it is built: it is stored and served as JSON text.
    let (html, details, text, markdown) = std::thread::scope(|scope| {
        let html = scope.spawn(|| report.html());
        let details = scope.spawn(|| serde_json::value::to_raw_value(&report.details()));
        let (text, markdown) = (report.text(), report.markdown());
        (html.join(), details.join(), text, markdown)
    });
    let panicked = |_| DomainError::unexpected("rendering thread panicked");
    let (html, details) = (html.map_err(panicked)?, details.map_err(panicked)?);
    let details = details.map_err(DomainError::unexpected)?;
    let (title, breaking) = (cur.title().to_owned(), report.breaking());
    // Freeing two large documents and the report takes milliseconds: do it off the request's path.
    std::thread::spawn(move || drop((prev, cur, report)));
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
        previous: &Bundle,
        current: &Bundle,
        from_urls: bool,
    ) -> Result<Comparison> {
        let (previous, current, limits) = (
            Arc::new(previous.clone()),
            Arc::new(current.clone()),
            self.limits.clone(),
        );
        tokio::task::spawn_blocking(move || {
            compare_blocking(&previous, &current, from_urls, &limits)
        })
        .await
        .map_err(DomainError::unexpected)?
    }

    async fn to_json(&self, bundle: &Bundle) -> Result<String> {
        let (bundle, limits) = (bundle.clone(), self.limits.clone());
        tokio::task::spawn_blocking(move || {
            let doc = parse(&bundle, "definition", &limits)?;
            Ok(doc.to_json())
        })
        .await
        .map_err(DomainError::unexpected)?
    }
}

//! The workflow engine at deploy time: size limits first, then `specpress_workflow::load` on the CPU gate (off the
//! async threads, one job per core), its located problems as a 422 bump-cli prints (exit code 122), and its model
//! serialized to the opaque JSON bytes the domain stores.

use specpress_api::cpu::CpuGate;
use specpress_domain::mcp::{ValidatedWorkflow, WorkflowSummary};
use specpress_domain::model::Bundle;
use specpress_domain::{DomainError, Result};
use specpress_workflow::{Format, WorkflowSet};

/// Most references (source descriptions) per deploy.
pub const MAX_REFERENCES: usize = 100;

/// The 422 about the document, in the shape of a documentation deploy's (`errors.raw_definition`).
fn invalid(messages: Vec<String>) -> DomainError {
    DomainError::Invalid {
        message: "Invalid definition file".into(),
        field: "raw_definition".into(),
        messages,
    }
}

/// Refuses, before any parsing, an empty definition, an empty reference (its location or its text: the document
/// says both have at least one character), too many references, and any text over `max_document_bytes`.
pub fn check_sizes(bundle: &Bundle, max_document_bytes: usize) -> Result<()> {
    if bundle.definition.trim().is_empty() {
        return Err(invalid(vec!["The definition is empty.".into()]));
    }
    let empty: Vec<String> = bundle
        .references
        .iter()
        .enumerate()
        .filter(|(_, r)| r.location.is_empty() || r.content.is_empty())
        .map(|(i, _)| format!("references[{i}] needs a non-empty location and a non-empty content"))
        .collect();
    if !empty.is_empty() {
        return Err(DomainError::Invalid {
            message: "Invalid references".into(),
            field: "references".into(),
            messages: empty,
        });
    }
    if bundle.references.len() > MAX_REFERENCES {
        return Err(invalid(vec![format!(
            "Too many references: {} (at most {MAX_REFERENCES}).",
            bundle.references.len()
        )]));
    }
    let texts = std::iter::once(("the definition", bundle.definition.len())).chain(
        bundle
            .references
            .iter()
            .map(|r| (r.location.as_str(), r.content.len())),
    );
    for (what, len) in texts {
        if len > max_document_bytes {
            return Err(invalid(vec![format!(
                "{what} is {len} bytes, over the limit of {max_document_bytes} bytes per document \
                 (SPECPRESS_MAX_DOCUMENT_BYTES)."
            )]));
        }
    }
    Ok(())
}

/// What the domain keeps of a validated set.
pub fn summarize(set: &WorkflowSet) -> Result<ValidatedWorkflow> {
    let (format, format_version) = match &set.format {
        Format::Arazzo { version } => ("arazzo", version.clone()),
        Format::Flower { version } => ("flower", version.clone()),
    };
    Ok(ValidatedWorkflow {
        model: serde_json::to_vec(set).map_err(DomainError::unexpected)?,
        title: set.title.clone(),
        format: format.to_owned(),
        format_version,
        workflows: set
            .workflows
            .iter()
            .map(|w| WorkflowSummary {
                id: w.id.clone(),
                summary: w.summary.clone(),
            })
            .collect(),
        schemes: set.schemes.iter().map(|s| s.name.clone()).collect(),
    })
}

/// Validates a bundle with the workflow engine on the CPU gate; gives the bundle back with what was learned.
pub async fn validate(bundle: Bundle) -> Result<(Bundle, ValidatedWorkflow)> {
    let (bundle, loaded) = CpuGate::shared()
        .run(move || {
            let references: Vec<specpress_workflow::load::Reference> = bundle
                .references
                .iter()
                .map(|r| specpress_workflow::load::Reference {
                    location: r.location.clone(),
                    content: r.content.clone(),
                    name: r.name.clone(),
                })
                .collect();
            let loaded = specpress_workflow::load::load(&bundle.definition, &references)
                .map_err(|problems| {
                    problems
                        .into_iter()
                        .map(|p| {
                            format!(
                                "{} (at {}#{})",
                                p.message,
                                p.file.as_deref().unwrap_or(""),
                                p.pointer
                            )
                        })
                        .collect::<Vec<String>>()
                })
                .map(|set| summarize(&set));
            (bundle, loaded)
        })
        .await?;
    match loaded {
        Ok(v) => Ok((bundle, v?)),
        Err(messages) if messages.is_empty() => Err(invalid(vec![
            "The definition is not a valid workflow document.".into(),
        ])),
        Err(messages) => Err(invalid(messages)),
    }
}

#[cfg(test)]
mod tests {
    use specpress_domain::model::Reference;

    use super::*;

    fn bundle(references: Vec<(&str, &str)>) -> Bundle {
        Bundle {
            definition: "flower: \"0.1\"\n".to_owned(),
            references: references
                .into_iter()
                .map(|(location, content)| Reference {
                    location: location.to_owned(),
                    content: content.to_owned(),
                    name: None,
                })
                .collect(),
        }
    }

    #[test]
    fn a_reference_without_a_location_or_a_text_is_refused_by_its_index() {
        for refs in [
            vec![("a.yaml", "x: 1"), ("b.yaml", "")],
            vec![("a.yaml", "x: 1"), ("", "x: 1")],
        ] {
            match check_sizes(&bundle(refs), 1024) {
                Err(DomainError::Invalid {
                    field, messages, ..
                }) => {
                    assert_eq!(field, "references");
                    assert_eq!(messages.len(), 1, "{messages:?}");
                    assert!(messages[0].starts_with("references[1]"), "{messages:?}");
                }
                other => panic!("expected a 422, got {other:?}"),
            }
        }
        assert!(check_sizes(&bundle(vec![("a.yaml", "x: 1")]), 1024).is_ok());
    }
}

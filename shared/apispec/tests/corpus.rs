//! Every document of the shared corpus parses, resolves and validates, with sane model counts.
//!
//! The corpus folder is `specpress_testkit::corpus()` (`SPECPRESS_CORPUS`, default `<repo>/../shared/corpus`):
//! when it is missing the tests fail under `CI=true` and are reported as ignored otherwise.

use std::path::Path;

mod common;

use common::{corpus_dir, files_under};
use specpress_apispec::{Direction, Document, Limits, SpecVersion, V, check};

/// Large corpus documents exceed the default 5 MiB per-file budget on purpose.
fn corpus_limits() -> Limits {
    Limits {
        max_bytes: 32 * 1024 * 1024,
        ..Limits::default()
    }
}

fn load(dir: &Path, rel: &str) -> Document {
    let text = std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"));
    match check(&text, &[], &corpus_limits()) {
        Ok(doc) => doc,
        Err(e) => {
            let all: Vec<String> = e
                .diagnostics
                .iter()
                .take(20)
                .map(|d| d.to_string())
                .collect();
            panic!("{rel} is not valid:\n{}", all.join("\n"))
        }
    }
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn every_corpus_document_parses_resolves_and_validates() {
    let dir = corpus_dir();
    let files = files_under(&dir, &["json", "yaml", "yml"]);
    assert!(
        files.len() >= 18,
        "expected the 18 corpus documents, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&dir).unwrap_or(f).display().to_string();
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("read {rel}: {e}"));
        match check(&text, &[], &corpus_limits()) {
            Ok(doc) => {
                let m = doc.model();
                let n = m.operations.len() + m.message_operations.len();
                assert!(n > 0, "{rel}: no operations in the model");
                assert!(!doc.title().is_empty(), "{rel}: no title");
                eprintln!(
                    "{rel}: {} {} ops={} schemas={}",
                    doc.specification(),
                    doc.spec_version_string(),
                    n,
                    m.schemas.len()
                );
            }
            Err(e) => {
                let all: Vec<String> = e
                    .diagnostics
                    .iter()
                    .take(10)
                    .map(|d| format!("  {d}"))
                    .collect();
                failures.push(format!("{rel}:\n{}", all.join("\n")));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "invalid corpus documents:\n{}",
        failures.join("\n")
    );
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn github_and_stripe_model_counts_match_the_corpus_facts() {
    let dir = corpus_dir();
    let gh = load(&dir, "openapi-3.0/github-api-23.0.2.json");
    assert_eq!(gh.version(), SpecVersion::OpenApi30);
    assert_eq!(gh.specification(), "openapi/v3/json");
    assert_eq!(gh.model().operations.len(), 1223);
    assert_eq!(gh.model().schemas.len(), 969);
    let paths = gh
        .root()
        .get("paths")
        .and_then(V::as_object)
        .map_or(0, |m| m.len());
    assert_eq!(paths, 811);
    let stripe = load(&dir, "openapi-3.0/stripe-2022-04-12.json");
    assert_eq!(stripe.model().operations.len(), 417);
    assert_eq!(stripe.model().schemas.len(), 561);
    let k8s = load(&dir, "swagger-2.0/kubernetes-1.36.json");
    assert_eq!(k8s.version(), SpecVersion::OpenApi20);
    assert!(
        k8s.model()
            .operations
            .values()
            .all(|o| !o.responses.is_empty())
    );
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn json_and_yaml_editions_of_the_same_document_have_one_fingerprint() {
    let dir = corpus_dir();
    for day in ["2026-08-12", "2026-08-21"] {
        let json = load(&dir, &format!("openapi-3.1/openai-{day}.json"));
        let yaml = load(&dir, &format!("openapi-3.1/openai-{day}.yaml"));
        assert_eq!(
            json.fingerprint_hex(),
            yaml.fingerprint_hex(),
            "openai {day}"
        );
        assert_eq!(json.model().operations.len(), yaml.model().operations.len());
    }
    let a = load(&dir, "openapi-3.1/openai-2026-08-12.json");
    let b = load(&dir, "openapi-3.1/openai-2026-08-21.json");
    assert_ne!(a.fingerprint(), b.fingerprint(), "two releases differ");
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn asyncapi_examples_map_directions_across_versions() {
    let dir = corpus_dir();
    let v2 = load(&dir, "asyncapi/streetlights-kafka-2.5.0.yml");
    let v3 = load(&dir, "asyncapi/streetlights-kafka-3.0.0.yml");
    let dirs = |d: &Document| {
        let mut v: Vec<Direction> = d
            .model()
            .message_operations
            .keys()
            .map(|k| k.direction)
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        dirs(&v2),
        dirs(&v3),
        "2.x publish/subscribe and 3.0 send/receive agree"
    );
    assert_eq!(v2.model().message_operations.len(), 4);
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn the_tree_holds_exactly_what_serde_json_reads_from_every_corpus_json_document() {
    let dir = corpus_dir();
    let files = files_under(&dir, &["json", "yaml", "yml"]);
    let mut compared = 0;
    for path in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
    {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path:?}: {e}"));
        let doc = specpress_apispec::parse(&text, &[], &corpus_limits())
            .unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let expected: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        // Member order included: the tree keeps document order, as serde_json's ordered maps do.
        assert_eq!(
            serde_json::to_string(&doc.root()).ok(),
            serde_json::to_string(&expected).ok(),
            "{path:?}"
        );
        assert!(doc.root().equals(&expected), "{path:?}");
        compared += 1;
    }
    assert!(
        compared >= 8,
        "only {compared} JSON documents in the corpus"
    );
}

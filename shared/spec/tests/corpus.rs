//! Every document of the shared corpus parses, resolves and validates, with sane model counts.
//!
//! The corpus folder comes from `SPECPRESS_CORPUS`, default `<repo>/../shared/corpus`. When it
//! is missing the test fails under `CI=true` and is skipped loudly otherwise.

use std::path::{Path, PathBuf};

#[allow(unused_imports)]
use specpress_spec as _;
use specpress_spec::{Document, Limits, SpecVersion, check};

fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("SPECPRESS_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    let msg = format!(
        "corpus folder {} is missing (set SPECPRESS_CORPUS)",
        dir.display()
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{msg}");
    }
    eprintln!("\n!!!!!!!! SKIPPED: {msg} !!!!!!!!\n");
    None
}

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

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if matches!(
                p.extension().and_then(|x| x.to_str()),
                Some("json" | "yaml" | "yml")
            ) {
                out.push(p);
            }
        }
    }
    out.sort();
}

#[test]
fn every_corpus_document_parses_resolves_and_validates() {
    let Some(dir) = corpus_dir() else { return };
    let mut files = Vec::new();
    walk(&dir, &mut files);
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

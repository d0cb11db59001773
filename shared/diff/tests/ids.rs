//! Stable change ids on the corpus: distinct changes have distinct ids in every pair (both
//! directions); the ids do not depend on the order of the documents' keys, nor on JSON or
//! YAML.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use specpress_apispec::{Document, Limits, parse};
use specpress_diff::cli::load_document;
use specpress_diff::{DiffOptions, DiffReport, diff};

#[path = "support/corpus.rs"]
mod corpus_files;
use corpus_files::{PAIRS, corpus};

fn run(previous: &Document, current: &Document) -> DiffReport {
    diff(
        previous,
        current,
        &DiffOptions::new().with_today("2026-01-01"),
    )
}

/// Every change's id, with what it is (for messages).
fn ids(report: &DiffReport) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for c in report.changes() {
        let what = format!(
            "{} {} {:?} {:?} {}",
            c.rule_id(),
            c.subject(),
            c.previous_location(),
            c.current_location(),
            c.message()
        );
        if let Some(other) = out.insert(c.id().to_string(), what.clone()) {
            panic!("two changes share the id {}:\n  {other}\n  {what}", c.id());
        }
    }
    out
}

/// The same value with the keys of every object in reverse order.
fn reversed(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, v) in m.iter().rev() {
                out.insert(k.clone(), reversed(v));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(reversed).collect()),
        other => other.clone(),
    }
}

fn reorder(doc: &Document) -> Document {
    let value: Value = serde_json::from_str(&doc.to_json()).expect("JSON");
    let limits = Limits {
        max_bytes: 64 << 20,
        max_nodes: 20_000_000,
        max_refs: 1_000_000,
        ..Limits::default()
    };
    parse(&reversed(&value).to_string(), &[], &limits).expect("the reordered document parses")
}

fn same_ids(name: &str, a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) {
    let only_a: Vec<&String> = a
        .iter()
        .filter(|(k, _)| !b.contains_key(*k))
        .map(|(_, v)| v)
        .collect();
    let only_b: Vec<&String> = b
        .iter()
        .filter(|(k, _)| !a.contains_key(*k))
        .map(|(_, v)| v)
        .collect();
    assert!(
        only_a.is_empty() && only_b.is_empty(),
        "{name}: {} ids only before, {} only after\nbefore: {:#?}\nafter: {:#?}",
        only_a.len(),
        only_b.len(),
        &only_a[..only_a.len().min(10)],
        &only_b[..only_b.len().min(10)]
    );
}

#[test]
fn every_corpus_change_has_its_own_id_and_reordering_keys_changes_none() {
    let Some(dir) = corpus() else { return };
    for (previous, current) in PAIRS {
        let load = |f: &str| {
            load_document(&dir.join(f)).unwrap_or_else(|e| panic!("{f} does not load: {e}"))
        };
        let (p, c) = (load(previous), load(current));
        let (rp, rc) = (reorder(&p), reorder(&c));
        for (name, (a, b), (ra, rb)) in [
            ("forward", (&p, &c), (&rp, &rc)),
            ("backward", (&c, &p), (&rc, &rp)),
        ] {
            let plain = ids(&run(a, b));
            let re = ids(&run(ra, rb));
            same_ids(&format!("{previous} {name}"), &plain, &re);
            eprintln!("{previous} {name}: {} ids", plain.len());
        }
    }
}

#[test]
fn the_same_document_in_json_and_in_yaml_gives_the_same_ids() {
    let Some(dir) = corpus() else { return };
    let load =
        |f: &str| load_document(&dir.join(f)).unwrap_or_else(|e| panic!("{f} does not load: {e}"));
    let json = ids(&run(
        &load("openapi-3.1/openai-2026-08-12.json"),
        &load("openapi-3.1/openai-2026-08-21.json"),
    ));
    let yaml = ids(&run(
        &load("openapi-3.1/openai-2026-08-12.yaml"),
        &load("openapi-3.1/openai-2026-08-21.yaml"),
    ));
    assert!(!json.is_empty());
    same_ids("OpenAI JSON vs YAML", &json, &yaml);
}

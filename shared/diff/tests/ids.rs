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
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn every_corpus_change_has_its_own_id_and_reordering_keys_changes_none() {
    let dir = corpus();
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
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn the_same_document_in_json_and_in_yaml_gives_the_same_ids() {
    let dir = corpus();
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

// ---- The same change written differently ------------------------------------------------

fn doc(text: &str, references: &[(&str, &str)]) -> Document {
    let references: Vec<specpress_apispec::Reference> = references
        .iter()
        .map(|(location, content)| specpress_apispec::Reference {
            location: location.to_string(),
            content: content.to_string(),
            name: None,
        })
        .collect();
    parse(text, &references, &Limits::default()).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The ids of a diff, by rule (each rule once).
fn by_rule(report: &DiffReport) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for c in report.changes() {
        assert!(
            out.insert(c.rule_id().to_string(), c.id().to_string())
                .is_none(),
            "{} twice",
            c.rule_id()
        );
    }
    out
}

const HEAD: &str = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n";

/// `GET /pets` and `GET /animals` answering a pet whose `name` is `name` and whose `kind` is
/// one of `kinds`, the schema written as `pet` says: as a component (`$ref`), in place in each
/// operation, in a file of its own, or in place in `GET /pets` and referenced from there by
/// `GET /animals` (as bundlers that inline each file at its first use write it).
fn pets(name: &str, kinds: &str, pet: &str) -> (String, Option<String>) {
    let schema = format!(
        "{{type: object, required: [name], properties: {{name: {{type: {name}}}, kind: {{type: string, enum: [{kinds}]}}}}}}"
    );
    if pet == "pointer" {
        let (root, _) = pets(name, kinds, "in place");
        let at = root
            .rfind("schema: {type: object")
            .expect("the second copy");
        let end = root[at..].find('\n').map_or(root.len(), |e| at + e);
        let pointer = "{$ref: '#/paths/~1pets/get/responses/200/content/application~1json/schema'}";
        return (
            format!("{}schema: {pointer}{}", &root[..at], &root[end..]),
            None,
        );
    }
    let (use_site, tail, file) = match pet {
        "component" => (
            "{$ref: '#/components/schemas/Pet'}".to_string(),
            format!("components:\n  schemas:\n    Pet: {schema}\n"),
            None,
        ),
        "in place" => (schema.clone(), String::new(), None),
        "file" => (
            "{$ref: 'schemas/pet.yaml'}".to_string(),
            String::new(),
            Some(format!("{schema}\n")),
        ),
        other => panic!("{other}"),
    };
    let op = |path: &str| {
        format!(
            "  {path}:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {use_site}\n"
        )
    };
    (
        format!("{HEAD}paths:\n{}{}{tail}", op("/pets"), op("/animals")),
        file,
    )
}

fn pets_doc(name: &str, kinds: &str, pet: &str) -> Document {
    match pets(name, kinds, pet) {
        (root, Some(file)) => doc(&root, &[("schemas/pet.yaml", &file)]),
        (root, None) => doc(&root, &[]),
    }
}

#[test]
fn a_change_in_a_shared_component_has_the_id_of_the_same_change_written_in_place() {
    let ids = |pet: &str| {
        by_rule(&run(
            &pets_doc("string", "cat, dog", pet),
            &pets_doc("integer", "cat", pet),
        ))
    };
    let component = ids("component");
    // In place, each operation has its own copy: the component's changes are those of its
    // first use (as many steps from each operation: the first in the steps' order, `GET
    // /animals`).
    let first_use: BTreeMap<String, String> = {
        let r = run(
            &pets_doc("string", "cat, dog", "in place"),
            &pets_doc("integer", "cat", "in place"),
        );
        r.changes()
            .iter()
            .filter(|c| c.subject() == "GET /animals")
            .map(|c| (c.rule_id().to_string(), c.id().to_string()))
            .collect()
    };
    assert_eq!(
        component.keys().collect::<Vec<_>>(),
        [
            "response-body-enum-value-removed",
            "response-body-type-changed"
        ]
    );
    assert_eq!(component, first_use);
}

#[test]
fn a_schema_in_a_file_of_its_own_has_the_ids_it_has_bundled_either_way() {
    let ids = |pet: &str| {
        by_rule(&run(
            &pets_doc("string", "cat, dog", pet),
            &pets_doc("integer", "cat", pet),
        ))
    };
    let file = ids("file");
    assert_eq!(file.len(), 2);
    assert_eq!(file, ids("component"));
    assert_eq!(file, ids("pointer"));
}

#[test]
fn which_place_reaches_a_shared_file_first_changes_no_id() {
    // One operation answering the pet of `schemas/pet.yaml` with 200 and 201, in the order
    // given: the file is compared once, for the response the walk meets first (the
    // operations are walked in key order, the responses of one in document order).
    let pair = |statuses: [&str; 2]| {
        let responses: String = statuses
            .iter()
            .map(|s| {
                format!(
                    "        '{s}':\n          description: ok\n          content:\n            application/json:\n              schema: {{$ref: 'schemas/pet.yaml'}}\n"
                )
            })
            .collect();
        let root = format!("{HEAD}paths:\n  /pets:\n    get:\n      responses:\n{responses}");
        let pet =
            |kind: &str| format!("{{type: object, properties: {{name: {{type: {kind}}}}}}}\n");
        (
            doc(&root, &[("schemas/pet.yaml", &pet("string"))]),
            doc(&root, &[("schemas/pet.yaml", &pet("integer"))]),
        )
    };
    let (a, b) = pair(["200", "201"]);
    let (c, d) = pair(["201", "200"]);
    let (first, second) = (run(&a, &b), run(&c, &d));
    // Found under 200 the first time, under 201 the second.
    assert!(
        first.text().contains("Response modified: 200"),
        "{}",
        first.text()
    );
    assert!(
        second.text().contains("Response modified: 201"),
        "{}",
        second.text()
    );
    assert_eq!(by_rule(&first), by_rule(&second));
}

#[test]
fn the_order_of_enum_values_and_keys_and_the_syntax_change_no_id() {
    let yaml = |kinds: &str| pets_doc("string", kinds, "component");
    let plain = by_rule(&run(&yaml("cat, dog, bird"), &yaml("cat")));
    let reordered = by_rule(&run(&yaml("bird, dog, cat"), &yaml("cat")));
    assert_eq!(plain, reordered);
    let json = |kinds: &str| {
        let value = serde_json::from_str::<Value>(&yaml(kinds).to_json()).expect("JSON");
        doc(&reversed(&value).to_string(), &[])
    };
    assert_eq!(plain, by_rule(&run(&json("cat, dog, bird"), &json("cat"))));
}

#[test]
fn ids_are_the_same_on_every_re_diff_and_differ_between_changes() {
    let a = pets_doc("string", "cat, dog", "in place");
    let b = pets_doc("integer", "cat", "in place");
    let first = ids(&run(&a, &b));
    assert_eq!(first, ids(&run(&a, &b)));
    // Four changes (two per operation), four ids, each 16 lowercase hex digits.
    assert_eq!(first.len(), 4);
    for id in first.keys() {
        assert_eq!(id.len(), 16);
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
    }
    // A different edit of the same element is a different change.
    let other = ids(&run(&a, &pets_doc("boolean", "dog", "in place")));
    assert_eq!(other.len(), 4);
    assert!(other.keys().all(|id| !first.contains_key(id)));
}

#[test]
fn swagger_media_types_play_no_part_in_the_id_of_a_schema_change() {
    let swagger = |produces: &str, kind: &str| {
        doc(
            &format!(
                "swagger: '2.0'\ninfo: {{title: t, version: '1'}}\npaths:\n  /pets:\n    get:\n      produces: [{produces}]\n      responses:\n        '200':\n          description: ok\n          schema: {{type: {kind}}}\n"
            ),
            &[],
        )
    };
    let json_first = by_rule(&run(
        &swagger("application/json, application/xml", "string"),
        &swagger("application/json, application/xml", "integer"),
    ));
    let xml_first = by_rule(&run(
        &swagger("application/xml, application/json", "string"),
        &swagger("application/xml, application/json", "integer"),
    ));
    assert_eq!(json_first.len(), 1);
    assert_eq!(json_first, xml_first);
}

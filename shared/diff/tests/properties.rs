//! Property tests over generated OpenAPI documents: a document diffed with itself is empty; a
//! change and its reverse have mirrored statuses; rewriting a document's formatting (JSON vs
//! YAML, indentation, key order) produces no change at all.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use specpress_apispec::{Limits, parse};
use specpress_diff::{DiffOptions, DiffReport, Status, diff};

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        (
            proptest::option::of(prop_oneof![Just("date"), Just("uuid"), Just("email")]),
            proptest::option::of(proptest::collection::btree_set("[a-c]", 1..3)),
            proptest::option::of(0u32..4),
        )
            .prop_map(|(format, en, min_len)| {
                let mut m = Map::new();
                m.insert("type".into(), json!("string"));
                if let Some(f) = format {
                    m.insert("format".into(), json!(f));
                }
                if let Some(e) = en {
                    m.insert("enum".into(), json!(e));
                }
                if let Some(l) = min_len {
                    m.insert("minLength".into(), json!(l));
                }
                Value::Object(m)
            }),
        (proptest::option::of(1i64..100), any::<bool>()).prop_map(|(max, nullable)| {
            let mut m = Map::new();
            m.insert("type".into(), json!("integer"));
            if let Some(x) = max {
                m.insert("maximum".into(), json!(x));
            }
            if nullable {
                m.insert("nullable".into(), json!(true));
            }
            Value::Object(m)
        }),
        Just(json!({"type": "number"})),
        Just(json!({"type": "boolean", "description": "a flag"})),
        prop_oneof![Just("S0"), Just("S1")]
            .prop_map(|s| json!({"$ref": format!("#/components/schemas/{s}")})),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            (
                proptest::collection::btree_map("[a-d]", inner.clone(), 0..4),
                proptest::collection::btree_set("[a-d]", 0..3),
            )
                .prop_map(|(props, req)| {
                    let req: Vec<&String> = req.iter().filter(|r| props.contains_key(*r)).collect();
                    let mut m = Map::new();
                    m.insert("type".into(), json!("object"));
                    m.insert("properties".into(), json!(props));
                    if !req.is_empty() {
                        m.insert("required".into(), json!(req));
                    }
                    Value::Object(m)
                }),
            inner.prop_map(|i| json!({"type": "array", "items": i})),
        ]
    })
}

/// Up to four operations with request and response schemas, plus two shared schemas.
fn document() -> impl Strategy<Value = Value> {
    (
        proptest::collection::btree_map(
            (prop_oneof![Just("/a"), Just("/b/{id}"), Just("/c")], prop_oneof![Just("get"), Just("post")]),
            (schema(), proptest::option::of(schema()), any::<bool>()),
            0..4,
        ),
        schema(),
        schema(),
    )
        .prop_map(|(ops, s0, s1)| {
            let mut paths: BTreeMap<&str, Map<String, Value>> = BTreeMap::new();
            for ((path, method), (response, request, required)) in ops {
                let mut op = Map::new();
                if path.contains('{') {
                    op.insert(
                        "parameters".into(),
                        json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]),
                    );
                }
                if let Some(req) = request {
                    op.insert(
                        "requestBody".into(),
                        json!({"required": required, "content": {"application/json": {"schema": req}}}),
                    );
                }
                op.insert(
                    "responses".into(),
                    json!({"200": {"description": "ok", "content": {"application/json": {"schema": response}}}}),
                );
                paths.entry(path).or_default().insert(method.into(), Value::Object(op));
            }
            json!({
                "openapi": "3.0.3",
                "info": {"title": "generated", "version": "1"},
                "paths": paths,
                // Shared schemas are objects (a bare `$ref` could form a cycle with no schema).
                "components": {"schemas": {
                    "S0": {"type": "object", "properties": {"x": s0}},
                    "S1": {"type": "object", "properties": {"y": s1}},
                }},
            })
        })
}

fn run(a: &str, b: &str) -> DiffReport {
    let p = parse(a, &[], &Limits::default()).expect("generated document parses");
    let c = parse(b, &[], &Limits::default()).expect("generated document parses");
    diff(&p, &c, &DiffOptions::default())
}

/// Objects with their keys in reverse order, recursively.
fn reversed(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .rev()
                .map(|(k, v)| (k.clone(), reversed(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(reversed).collect()),
        other => other.clone(),
    }
}

/// A block-style YAML rendering (strings double-quoted, which YAML reads like JSON strings).
fn yaml(v: &Value, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, v) in m {
                out.push_str(&format!("{pad}{}:", Value::String(k.clone())));
                match v {
                    Value::Object(x) if !x.is_empty() => {
                        out.push('\n');
                        yaml(v, indent + 1, out);
                    }
                    Value::Array(x) if !x.is_empty() => {
                        out.push('\n');
                        yaml(v, indent + 1, out);
                    }
                    _ => {
                        out.push(' ');
                        out.push_str(&v.to_string());
                        out.push('\n');
                    }
                }
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for item in a {
                out.push_str(&format!("{pad}-\n"));
                match item {
                    Value::Object(x) if !x.is_empty() => yaml(item, indent + 1, out),
                    Value::Array(x) if !x.is_empty() => yaml(item, indent + 1, out),
                    _ => out.push_str(&format!("{pad}  {item}\n")),
                }
            }
        }
        other => out.push_str(&format!("{pad}{other}\n")),
    }
}

fn statuses(r: &DiffReport) -> BTreeMap<(String, String), Status> {
    r.items()
        .iter()
        .map(|i| ((i.item_type.clone(), i.id.clone()), i.status))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn a_document_diffed_with_itself_is_empty(doc in document()) {
        let text = doc.to_string();
        let r = run(&text, &text);
        prop_assert!(r.is_empty(), "{}", r.text());
    }

    #[test]
    fn a_change_and_its_reverse_have_mirrored_statuses(a in document(), b in document()) {
        let (ta, tb) = (a.to_string(), b.to_string());
        let forward = statuses(&run(&ta, &tb));
        let backward = statuses(&run(&tb, &ta));
        let keys_f: Vec<_> = forward.keys().collect();
        let keys_b: Vec<_> = backward.keys().collect();
        prop_assert_eq!(keys_f, keys_b);
        for (k, s) in &forward {
            let mirrored = match s {
                Status::Added => Status::Removed,
                Status::Removed => Status::Added,
                Status::Modified => Status::Modified,
            };
            prop_assert_eq!(backward.get(k), Some(&mirrored), "{:?}", k);
        }
    }

    #[test]
    fn formatting_only_rewrites_produce_no_change(doc in document()) {
        let compact = doc.to_string();
        let pretty_reordered = serde_json::to_string_pretty(&reversed(&doc)).expect("serializes");
        let mut as_yaml = String::new();
        yaml(&reversed(&doc), 0, &mut as_yaml);
        for rewritten in [&pretty_reordered, &as_yaml] {
            let r = run(&compact, rewritten);
            prop_assert!(!r.structural(), "{}\n{}", r.text(), rewritten);
            prop_assert!(r.is_empty(), "{}", r.text());
        }
    }
}

//! The document itself: valid for Specpress's own validator, served with the server's own URL, consistent with
//! itself (operation ids, links, the error answers every kind of operation can give).

use std::collections::BTreeSet;

use serde_json::Value;
use specpress_apispec::{Limits, SpecVersion, check};
use specpress_openapi::{SOURCE, json, operations, yaml};

fn doc() -> Value {
    json("http://127.0.0.1:3000/api/v1").expect("the document parses")
}

fn each_operation(doc: &Value) -> Vec<(String, String, &Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            if specpress_openapi::METHODS.contains(&method.as_str()) {
                out.push((method.to_ascii_uppercase(), path.clone(), op));
            }
        }
    }
    out
}

#[test]
fn specpress_own_validator_accepts_the_document_as_openapi_3_1() {
    let parsed = check(SOURCE, &[], &Limits::default())
        .unwrap_or_else(|e| panic!("the document is invalid: {:#?}", e.diagnostics));
    assert_eq!(parsed.version(), SpecVersion::OpenApi31);
    assert_eq!(parsed.specification(), "openapi/v3/yaml");
    assert_eq!(parsed.title(), "Specpress API");
    // The JSON form served at /openapi.json is valid too.
    let text = serde_json::to_string(&doc()).expect("serializes");
    let parsed = check(&text, &[], &Limits::default())
        .unwrap_or_else(|e| panic!("the JSON form is invalid: {:#?}", e.diagnostics));
    assert_eq!(parsed.specification(), "openapi/v3/json");
}

#[test]
fn the_documents_version_is_the_specpress_version() {
    assert_eq!(doc()["info"]["version"], env!("CARGO_PKG_VERSION"));
}

#[test]
fn the_served_forms_name_the_given_server_and_differ_in_nothing_else() {
    let base = "https://api.example.com:8443/specpress/api/v1";
    let as_json = json(base).expect("json");
    assert_eq!(as_json["servers"][0]["url"], base);
    let text = yaml(base);
    assert_ne!(text, SOURCE, "the servers section was replaced");
    let reparsed = check(&text, &[], &Limits::default()).expect("the served YAML is valid");
    let reparsed: Value = serde_json::from_str(&reparsed.to_json()).expect("json");
    assert_eq!(reparsed, as_json);
    let mut original = doc();
    original["servers"] = as_json["servers"].clone();
    assert_eq!(original, as_json, "nothing but servers differs");
}

#[test]
fn a_server_url_with_yaml_punctuation_stays_one_scalar() {
    for base in [
        "http://h:1/a: b #c",
        "http://h/'quoted'\"double\"",
        "http://h/\u{e9}t\u{e9}",
    ] {
        let text = yaml(base);
        let parsed = check(&text, &[], &Limits::default())
            .unwrap_or_else(|e| panic!("{base}: {:#?}", e.diagnostics));
        let value: Value = serde_json::from_str(&parsed.to_json()).expect("json");
        assert_eq!(value["servers"][0]["url"], base);
    }
}

#[test]
fn operation_ids_are_unique_and_every_operation_is_tagged_and_summarized() {
    let doc = doc();
    let mut ids = BTreeSet::new();
    for (method, path, op) in each_operation(&doc) {
        let id = op["operationId"]
            .as_str()
            .unwrap_or_else(|| panic!("{method} {path}: no operationId"));
        assert!(
            ids.insert(id.to_owned()),
            "{method} {path}: operationId {id} used twice"
        );
        assert!(
            op["tags"].as_array().is_some_and(|t| !t.is_empty()),
            "{method} {path}: no tag"
        );
        assert!(op["summary"].is_string(), "{method} {path}: no summary");
    }
    assert_eq!(ids.len(), operations().expect("operations").len());
}

/// The answers the HTTP layer gives to any operation of a kind, whatever its handler does.
#[test]
fn every_operation_documents_the_errors_its_kind_of_route_can_answer() {
    let doc = doc();
    for (method, path, op) in each_operation(&doc) {
        let responses = op["responses"].as_object().expect("responses");
        let has = |status: &str| responses.contains_key(status);
        let label = format!("{method} {path}");
        let secured = op.get("security").is_none_or(|s| {
            s.as_array().is_some_and(|a| {
                a.iter()
                    .any(|r| r.as_object().is_some_and(|o| !o.is_empty()))
            })
        });
        if secured {
            assert!(has("401"), "{label}: authenticated routes answer 401");
        }
        if op.get("requestBody").is_some() {
            for status in ["400", "413", "422"] {
                assert!(
                    has(status),
                    "{label}: routes with a JSON body answer {status}"
                );
            }
        }
        if path.contains('{') || op.get("parameters").is_some() {
            assert!(has("414"), "{label}: a request target over 8 KiB is 414");
        }
        if path.contains('{') {
            assert!(
                has("400"),
                "{label}: a path segment that is not UTF-8 is 400"
            );
            if secured || path.contains("{id}") {
                assert!(has("404"), "{label}: routes naming an object answer 404");
            }
        }
        let paginated = op["parameters"].as_array().is_some_and(|ps| {
            ps.iter()
                .any(|p| p["$ref"] == "#/components/parameters/Cursor")
        });
        if paginated {
            assert!(has("400"), "{label}: bad paging parameters are 400");
            let ok = &responses["200"];
            for header in ["X-Total-Count", "X-Page", "X-Per-Page", "Link"] {
                assert!(
                    ok["headers"].get(header).is_some(),
                    "{label}: 200 documents {header}"
                );
            }
            for p in ["Page", "Limit", "PerPage", "Envelope"] {
                let r = format!("#/components/parameters/{p}");
                assert!(
                    op["parameters"]
                        .as_array()
                        .is_some_and(|ps| ps.iter().any(|x| x["$ref"] == r.as_str())),
                    "{label}: paginated lists take {p}"
                );
            }
        }
    }
}

#[test]
fn every_link_targets_an_operation_and_its_parameters() {
    let doc = doc();
    let ops = each_operation(&doc);
    let by_id = |id: &str| {
        ops.iter()
            .find(|(_, _, op)| op["operationId"] == id)
            .map(|(_, path, op)| (path.clone(), *op))
    };
    let mut links = 0;
    for (method, path, op) in &ops {
        for (status, response) in op["responses"].as_object().expect("responses") {
            let Some(map) = response.get("links").and_then(Value::as_object) else {
                continue;
            };
            for (name, link) in map {
                links += 1;
                let label = format!("{method} {path} {status} link {name}");
                let target = link["operationId"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{label}: no operationId"));
                let (target_path, target_op) =
                    by_id(target).unwrap_or_else(|| panic!("{label}: no operation {target}"));
                for param in link["parameters"]
                    .as_object()
                    .into_iter()
                    .flat_map(|m| m.keys())
                {
                    let in_path = target_path.contains(&format!("{{{param}}}"));
                    let in_query = target_op["parameters"].as_array().is_some_and(|ps| {
                        ps.iter()
                            .any(|p| p["name"] == param.as_str() && p["in"] == "query")
                    });
                    assert!(
                        in_path || in_query,
                        "{label}: {target} has no parameter {param}"
                    );
                }
                if link.get("requestBody").is_some() {
                    assert!(
                        target_op.get("requestBody").is_some(),
                        "{label}: {target} takes no body"
                    );
                }
            }
        }
    }
    assert!(
        links >= 20,
        "the create -> read -> delete chains are linked ({links} links)"
    );
}

/// Validates `instance` against the schema at `pointer` in the document (its `$ref`s resolved in the document).
fn check_against(doc: &Value, schema: &Value, instance: &Value) -> Vec<String> {
    let mut root = serde_json::json!({"components": doc["components"].clone()});
    if let (Some(r), Some(s)) = (root.as_object_mut(), schema.as_object()) {
        for (k, v) in s {
            r.insert(k.clone(), v.clone());
        }
    }
    let validator = jsonschema::draft202012::new(&root).expect("the schema compiles");
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn every_example_in_the_document_matches_its_schema() {
    let doc = doc();
    let mut checked = 0;
    for (name, schema) in doc["components"]["schemas"].as_object().expect("schemas") {
        for example in schema["examples"].as_array().into_iter().flatten() {
            let errors = check_against(&doc, schema, example);
            assert!(
                errors.is_empty(),
                "schema {name}: example {example}: {errors:#?}"
            );
            checked += 1;
        }
    }
    let media_types = |v: &Value| -> Vec<(String, Value, Value)> {
        let mut out = Vec::new();
        for (mt, media) in v["content"].as_object().into_iter().flatten() {
            let schema = media["schema"].clone();
            if let Some(e) = media.get("example") {
                out.push((mt.clone(), schema.clone(), e.clone()));
            }
            for e in media["examples"].as_object().into_iter().flatten() {
                out.push((mt.clone(), schema.clone(), e.1["value"].clone()));
            }
        }
        out
    };
    let resolve = |v: &Value| -> Value {
        match v["$ref"].as_str().and_then(|r| r.strip_prefix("#/")) {
            Some(path) => doc
                .pointer(&format!("/{path}"))
                .cloned()
                .unwrap_or(Value::Null),
            None => v.clone(),
        }
    };
    for (method, path, op) in each_operation(&doc) {
        let mut bodies = media_types(&op["requestBody"]);
        for (_, response) in op["responses"].as_object().expect("responses") {
            bodies.extend(media_types(&resolve(response)));
        }
        for (mt, schema, example) in bodies {
            let errors = check_against(&doc, &schema, &example);
            assert!(
                errors.is_empty(),
                "{method} {path} {mt}: example {example}: {errors:#?}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 30, "{checked} examples");
}

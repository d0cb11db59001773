//! The loader: valid documents become the expected model; each refusal is a located problem a person can act on;
//! no input makes it panic.

use serde_json::json;
use specpress_workflow::load::{Problem, Reference, load};
use specpress_workflow::model::*;

const PETSTORE: &str = include_str!("fixtures/petstore.yaml");
const ADOPT: &str = include_str!("fixtures/adopt.arazzo.yaml");
const FLOWER: &str = include_str!("fixtures/pets.flower.yaml");

fn petstore() -> Vec<Reference> {
    vec![Reference {
        location: "./petstore.yaml".to_string(),
        content: PETSTORE.to_string(),
        name: Some("petstore".to_string()),
    }]
}

/// The problems of a document that must be refused.
fn refused(definition: &str, references: &[Reference]) -> Vec<Problem> {
    match load(definition, references) {
        Ok(set) => panic!("expected problems, the document loaded: {set:#?}"),
        Err(problems) => {
            assert!(!problems.is_empty());
            problems
        }
    }
}

/// Asserts one problem is at `pointer` (in `file`) and its message contains `words`.
fn assert_problem(problems: &[Problem], file: Option<&str>, pointer: &str, words: &str) {
    assert!(
        problems.iter().any(|p| p.file.as_deref() == file
            && p.pointer == pointer
            && p.message.contains(words)),
        "no problem at {file:?}#{pointer} saying '{words}' in {problems:#?}"
    );
}

fn operation(step: &Step) -> &Operation {
    match &step.target {
        Target::Operation(op) => op,
        other => panic!("not an operation: {other:?}"),
    }
}

#[test]
fn an_arazzo_document_over_an_openapi_31_source_loads_to_the_expected_model() {
    let set = load(ADOPT, &petstore()).unwrap_or_else(|p| panic!("{p:#?}"));
    assert_eq!(
        set.format,
        Format::Arazzo {
            version: "1.0.1".into()
        }
    );
    assert_eq!(set.title, "Adopt a pet");
    assert_eq!(
        set.description.as_deref(),
        Some("Create a pet, then read it back.")
    );
    assert_eq!(set.allowed_origins, vec!["https://api.example.com"]);
    assert_eq!(
        set.schemes,
        vec![
            SecurityScheme {
                name: "apiKey".into(),
                kind: SchemeKind::ApiKey {
                    location: ParamIn::Header,
                    param: "X-API-Key".into()
                }
            },
            SecurityScheme {
                name: "bearer".into(),
                kind: SchemeKind::Bearer
            },
        ]
    );
    assert_eq!(set.workflows.len(), 2);

    let w = &set.workflows[0];
    assert_eq!(w.id, "createAndFetch");
    assert_eq!(w.summary.as_deref(), Some("Create a pet and read it back"));
    assert_eq!(w.inputs["properties"]["name"]["type"], "string");
    assert_eq!(w.outputs["pet"], "$steps.fetch.outputs.pet");
    assert_eq!(w.steps.len(), 2);

    let create = &w.steps[0];
    assert_eq!(create.id, "create");
    let op = operation(create);
    assert_eq!(op.source.as_deref(), Some("petstore"));
    assert_eq!(op.operation_id.as_deref(), Some("createPet"));
    assert_eq!(op.method, "POST");
    assert_eq!(op.path, "/pets");
    assert_eq!(
        op.servers,
        vec![ServerUrl {
            url: "https://api.example.com/v1".into(),
            variables: Default::default()
        }]
    );
    assert_eq!(op.body_media_types, vec!["application/json"]);
    assert_eq!(op.security, vec![vec!["bearer".to_string()]]);
    let body = create.body.as_ref().expect("a body");
    assert_eq!(body.content_type.as_deref(), Some("application/json"));
    assert_eq!(
        body.payload,
        json!({"name": "$inputs.name", "tag": "pet of {$inputs.name}"})
    );
    assert_eq!(
        create.success_criteria,
        vec![Criterion {
            context: None,
            condition: "$statusCode == 201".into(),
            kind: CriterionKind::Simple
        }]
    );
    assert_eq!(create.outputs["petId"], "$response.body#/id");

    let fetch = &w.steps[1];
    let op = operation(fetch);
    assert_eq!(op.operation_id, None);
    assert_eq!(
        (op.method.as_str(), op.path.as_str()),
        ("GET", "/pets/{petId}")
    );
    // The document's security applies when the operation declares none.
    assert_eq!(op.security, vec![vec!["apiKey".to_string()]]);
    assert_eq!(
        op.parameters,
        vec![DeclaredParameter {
            name: "petId".into(),
            location: ParamIn::Path,
            required: true
        }]
    );
    assert_eq!(
        fetch.parameters,
        vec![StepParameter {
            name: "petId".into(),
            location: Some(ParamIn::Path),
            value: json!("$steps.create.outputs.petId")
        }]
    );
    assert_eq!(fetch.success_criteria[0].kind, CriterionKind::JsonPath);
    assert_eq!(
        fetch.success_criteria[0].context.as_deref(),
        Some("$response.body")
    );
    assert_eq!(
        fetch.on_failure,
        vec![Action {
            name: Some("again".into()),
            kind: ActionKind::Retry {
                after_secs: 1.0,
                limit: 3
            },
            criteria: vec![]
        }]
    );

    // Reusable components are inlined, the step's value wins over the component's, and a parameter without `in`
    // goes where the operation declares it.
    let list = &set.workflows[1].steps[0];
    assert_eq!(operation(list).operation_id.as_deref(), Some("listPets"));
    assert_eq!(
        list.parameters,
        vec![StepParameter {
            name: "limit".into(),
            location: Some(ParamIn::Query),
            value: json!(10)
        }]
    );
    assert_eq!(
        list.on_success,
        vec![Action {
            name: Some("done".into()),
            kind: ActionKind::End,
            criteria: vec![]
        }]
    );
    assert_eq!(set.workflows[1].inputs, json!({"type": "object"}));
}

#[test]
fn a_source_is_matched_by_location_when_the_reference_has_no_name() {
    let refs = vec![Reference {
        location: "./petstore.yaml".into(),
        content: PETSTORE.into(),
        name: None,
    }];
    assert!(load(ADOPT, &refs).is_ok());
}

#[test]
fn a_json_definition_loads_like_its_yaml() {
    // fixtures/adopt.arazzo.json is fixtures/adopt.arazzo.yaml converted to JSON.
    let from_yaml = load(ADOPT, &petstore()).expect("loads");
    let from_json = load(include_str!("fixtures/adopt.arazzo.json"), &petstore()).expect("loads");
    assert_eq!(from_yaml, from_json);
}

#[test]
fn a_flower_document_loads_to_the_expected_model() {
    let set = load(FLOWER, &[]).unwrap_or_else(|p| panic!("{p:#?}"));
    assert_eq!(
        set.format,
        Format::Flower {
            version: "0.1".into()
        }
    );
    assert_eq!(set.title, "Pets");
    assert_eq!(set.description.as_deref(), Some("Pet flows."));
    assert_eq!(set.allowed_origins, vec!["https://api.example.com"]);
    assert!(set.schemes.is_empty());
    let w = &set.workflows[0];
    assert_eq!(w.id, "adopt");
    assert_eq!(w.outputs["status"], "$steps.adopt.outputs.status");
    assert_eq!(w.inputs["properties"]["token"]["type"], "string");

    let get = &w.steps[0];
    assert_eq!(
        **match &get.target {
            Target::Operation(op) => op,
            _ => panic!("operation"),
        },
        Operation {
            source: None,
            operation_id: None,
            method: "GET".into(),
            path: "https://api.example.com/v1/pets/{$inputs.petId}".into(),
            servers: vec![],
            parameters: vec![],
            body_media_types: vec![],
            security: vec![],
        }
    );
    assert_eq!(
        get.parameters,
        vec![
            StepParameter {
                name: "Authorization".into(),
                location: Some(ParamIn::Header),
                value: json!("Bearer {$inputs.token}")
            },
            StepParameter {
                name: "verbose".into(),
                location: Some(ParamIn::Query),
                value: json!("true")
            },
        ]
    );
    let when = |c: &str| Criterion {
        context: None,
        condition: c.into(),
        kind: CriterionKind::Simple,
    };
    assert_eq!(
        get.on_failure,
        vec![Action {
            name: None,
            kind: ActionKind::Retry {
                after_secs: 2.0,
                limit: 5
            },
            criteria: vec![when("$statusCode == 503")]
        }]
    );
    assert_eq!(
        get.on_success,
        vec![Action {
            name: None,
            kind: ActionKind::Goto {
                step_id: Some("adopt".into()),
                workflow_id: None
            },
            criteria: vec![when("$statusCode == 200")]
        }]
    );

    let adopt = &w.steps[1];
    assert_eq!(operation(adopt).method, "POST");
    assert_eq!(operation(adopt).body_media_types, vec!["application/json"]);
    assert_eq!(
        adopt.body,
        Some(StepBody {
            content_type: Some("application/json".into()),
            payload: json!({"petId": "$inputs.petId"}),
            replacements: vec![]
        })
    );
    assert_eq!(adopt.outputs["status"], "$response.body#/status");
}

#[test]
fn an_unknown_format_names_the_accepted_ones() {
    let p = refused("openapi: 3.1.0\ninfo: {}\n", &[]);
    assert_eq!(p.len(), 1);
    assert_problem(&p, None, "", "Arazzo 1.0.x");
    assert_problem(&p, None, "", "Flower 0.1");
    let p = refused(
        &ADOPT.replace("arazzo: 1.0.1", "arazzo: 2.0.0"),
        &petstore(),
    );
    assert_problem(&p, None, "/arazzo", "not supported");
}

#[test]
fn a_schema_violation_is_reported_at_its_instance_pointer() {
    let doc = ADOPT.replace(
        "    summary: Create a pet and read it back\n",
        "    summary: 42\n",
    );
    let p = refused(&doc, &petstore());
    assert_problem(&p, None, "/workflows/0/summary", "schema");
    // A failed `oneOf` is explained by the alternative the author meant.
    let doc = ADOPT.replace("            in: path\n", "");
    let p = refused(&doc, &petstore());
    assert_problem(
        &p,
        None,
        "/workflows/0/steps/1/parameters/0",
        "\"in\" is a required property",
    );
    let p = refused(&FLOWER.replace("id: pets\n", ""), &[]);
    assert_problem(&p, None, "", "schema");
}

#[test]
fn a_missing_source_description_is_reported_at_its_url() {
    let p = refused(ADOPT, &[]);
    assert_problem(&p, None, "/sourceDescriptions/0/url", "'petstore'");
    // Its operations are not reported again.
    assert!(
        p.iter().all(|x| !x.message.contains("operationId")),
        "{p:#?}"
    );
}

#[test]
fn an_arazzo_source_description_is_refused_as_not_supported() {
    let doc = ADOPT.replace("    type: openapi\n", "    type: arazzo\n");
    let p = refused(&doc, &petstore());
    assert_problem(&p, None, "/sourceDescriptions/0/type", "not supported");
}

#[test]
fn an_invalid_openapi_source_is_reported_in_its_file() {
    let refs = vec![Reference {
        location: "./petstore.yaml".into(),
        content: PETSTORE.replace("  version: 1.0.0\n", ""),
        name: Some("petstore".into()),
    }];
    let p = refused(ADOPT, &refs);
    assert!(
        p.iter()
            .any(|x| x.file.as_deref() == Some("./petstore.yaml")
                && x.pointer == "/info"
                && x.message.contains("not a valid OpenAPI document")),
        "{p:#?}"
    );
}

#[test]
fn an_unknown_operation_id_is_reported() {
    let doc = ADOPT.replace("operationId: createPet", "operationId: adoptPet");
    let p = refused(&doc, &petstore());
    assert_problem(&p, None, "/workflows/0/steps/0/operationId", "'adoptPet'");
    let doc = ADOPT.replace(
        "$sourceDescriptions.petstore.listPets",
        "$sourceDescriptions.zoo.listPets",
    );
    let p = refused(&doc, &petstore());
    assert_problem(&p, None, "/workflows/1/steps/0/operationId", "'zoo'");
}

#[test]
fn a_bare_operation_id_in_two_sources_is_ambiguous() {
    let doc = ADOPT.replace(
        "    type: openapi\n",
        "    type: openapi\n  - name: other\n    url: ./other.yaml\n    type: openapi\n",
    );
    let mut refs = petstore();
    refs.push(Reference {
        location: "./other.yaml".into(),
        content: PETSTORE.into(),
        name: Some("other".into()),
    });
    let p = refused(&doc, &refs);
    assert_problem(
        &p,
        None,
        "/workflows/0/steps/0/operationId",
        "several source descriptions",
    );
    // The qualified form is not.
    assert!(
        !p.iter()
            .any(|x| x.pointer == "/workflows/1/steps/0/operationId"),
        "{p:#?}"
    );
}

#[test]
fn an_operation_path_to_a_missing_operation_is_reported() {
    let doc = ADOPT.replace("~1pets~1{petId}/get", "~1pets~1{petId}/delete");
    let p = refused(&doc, &petstore());
    assert_problem(
        &p,
        None,
        "/workflows/0/steps/1/operationPath",
        "DELETE /pets/{petId}",
    );
    let doc = ADOPT.replace("#/paths/~1pets~1{petId}/get", "/pets");
    let p = refused(&doc, &petstore());
    assert_problem(
        &p,
        None,
        "/workflows/0/steps/1/operationPath",
        "should read",
    );
}

#[test]
fn a_bad_runtime_expression_is_reported() {
    let doc = ADOPT.replace("petId: $response.body#/id", "petId: $nonsense.x");
    let p = refused(&doc, &petstore());
    assert_problem(
        &p,
        None,
        "/workflows/0/steps/0/outputs/petId",
        "not a runtime expression",
    );
    let doc = ADOPT.replace("name: $inputs.name\n", "name: \"{$bogus}\"\n");
    let p = refused(&doc, &petstore());
    assert_problem(
        &p,
        None,
        "/workflows/0/steps/0/requestBody/payload",
        "invalid runtime expression",
    );
}

#[test]
fn an_expression_naming_an_unknown_step_is_reported() {
    let doc = ADOPT.replace(
        "value: $steps.create.outputs.petId",
        "value: $steps.creat.outputs.petId",
    );
    let p = refused(&doc, &petstore());
    assert_problem(
        &p,
        None,
        "/workflows/0/steps/1/parameters/0/value",
        "'creat'",
    );
}

#[test]
fn a_bad_criterion_is_reported() {
    let doc = ADOPT.replace("condition: $statusCode == 201", "condition: $statusCode ==");
    let p = refused(&doc, &petstore());
    assert_problem(
        &p,
        None,
        "/workflows/0/steps/0/successCriteria/0/condition",
        "invalid condition",
    );
    let doc = ADOPT.replace("type: jsonpath", "type: xpath");
    let p = refused(&doc, &petstore());
    assert_problem(
        &p,
        None,
        "/workflows/0/steps/1/successCriteria/0/type",
        "not supported",
    );
}

#[test]
fn a_goto_to_an_unknown_step_is_reported() {
    let doc = ADOPT.replace(
        "      name: done\n      type: end\n",
        "      name: done\n      type: goto\n      stepId: nowhere\n",
    );
    let p = refused(&doc, &petstore());
    assert_problem(
        &p,
        None,
        "/workflows/1/steps/0/onSuccess/0/stepId",
        "'nowhere'",
    );
    let p = refused(&FLOWER.replace("step: adopt", "step: adopted"), &[]);
    assert_problem(&p, None, "/flows/0/steps/0/actions/1/step", "'adopted'");
}

#[test]
fn a_duplicate_step_id_is_reported() {
    let doc = ADOPT.replace("stepId: fetch", "stepId: create");
    let p = refused(&doc, &petstore());
    assert_problem(&p, None, "/workflows/0/steps/1/stepId", "'create'");
    let p = refused(
        &FLOWER.replace("id: adopt\n        request", "id: get\n        request"),
        &[],
    );
    assert_problem(&p, None, "/flows/0/steps/1/id", "'get'");
}

#[test]
fn a_step_parameter_the_operation_does_not_declare_needs_its_location() {
    let doc = ADOPT.replace("      name: limit\n", "      name: max\n");
    let p = refused(&doc, &petstore());
    assert_problem(&p, None, "/workflows/1/steps/0/parameters/0/name", "'max'");
}

#[test]
fn a_workflow_calling_itself_is_refused() {
    let doc = ADOPT.replace(
        "        operationId: $sourceDescriptions.petstore.listPets\n        parameters:\n          - reference: $components.parameters.pageSize\n            value: 10\n",
        "        workflowId: listAll\n",
    );
    let p = refused(&doc, &petstore());
    assert_problem(&p, None, "/workflows/1/steps/0/workflowId", "itself");
    // Through dependsOn.
    let doc = ADOPT
        .replace(
            "  - workflowId: listAll\n",
            "  - workflowId: listAll\n    dependsOn: [createAndFetch]\n",
        )
        .replace(
            "    summary: Create a pet and read it back\n",
            "    summary: Create a pet and read it back\n    dependsOn: [listAll]\n",
        );
    let p = refused(&doc, &petstore());
    assert_problem(&p, None, "/workflows/0/workflowId", "cycle");
    assert_problem(&p, None, "/workflows/1/workflowId", "cycle");
}

#[test]
fn a_server_that_is_not_absolute_http_is_refused() {
    let refs = vec![Reference {
        location: "./petstore.yaml".into(),
        content: PETSTORE.replace("https://api.example.com/v1", "/v1"),
        name: Some("petstore".into()),
    }];
    let p = refused(ADOPT, &refs);
    assert_problem(
        &p,
        None,
        "/workflows/0/steps/0",
        "no absolute http(s) server URL",
    );
}

#[test]
fn server_variables_take_their_defaults_in_allowed_origins() {
    let refs = vec![Reference {
        location: "./petstore.yaml".into(),
        content: PETSTORE.replace(
            "  - url: https://api.example.com/v1\n",
            "  - url: https://{region}.example.com:8443/v1\n    variables:\n      region:\n        default: EU\n",
        ),
        name: Some("petstore".into()),
    }];
    let set = load(ADOPT, &refs).unwrap_or_else(|p| panic!("{p:#?}"));
    assert_eq!(set.allowed_origins, vec!["https://eu.example.com:8443"]);
    let op = operation(&set.workflows[0].steps[0]);
    assert_eq!(op.servers[0].url, "https://{region}.example.com:8443/v1");
    assert_eq!(op.servers[0].variables["region"], "EU");
}

#[test]
fn a_flower_url_must_have_a_literal_origin() {
    let doc = FLOWER.replace(
        "https://api.example.com/v1/pets/{$inputs.petId}",
        "'{$inputs.base}/pets'",
    );
    let p = refused(&doc, &[]);
    assert_problem(
        &p,
        None,
        "/flows/0/steps/0/request/url",
        "absolute http(s) URL",
    );
    let doc = FLOWER.replace("https://API.example.com:443", "ftp://example.com");
    let p = refused(&doc, &[]);
    assert_problem(
        &p,
        None,
        "/flows/0/steps/1/request/url",
        "absolute http(s) URL",
    );
}

#[test]
fn documents_over_the_budgets_are_refused_before_any_work() {
    let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
    let p = refused(&deep, &[]);
    assert_problem(&p, None, "", "levels deep");
    let deep_yaml = (0..100)
        .map(|i| format!("{}a:\n", "  ".repeat(i)))
        .collect::<String>();
    let p = refused(&deep_yaml, &[]);
    assert_problem(&p, None, "", "levels deep");
    let big = format!(
        "flower: \"0.1\"\nid: x\nflows: []\ndescription: {}\n",
        "a".repeat(6 * 1024 * 1024)
    );
    let p = refused(&big, &[]);
    assert_problem(&p, None, "", "bytes");
    let bomb = "a: &a [1, 2]\nb: [*a, *a]\n";
    let p = refused(bomb, &[]);
    assert_problem(&p, None, "", "aliases");
}

#[test]
fn truncated_and_odd_documents_never_panic() {
    let mut inputs: Vec<String> = Vec::new();
    for text in [ADOPT, FLOWER] {
        let mut cut = 0;
        while cut < text.len() {
            if text.is_char_boundary(cut) {
                inputs.push(text[..cut].to_string());
            }
            cut += 7;
        }
    }
    inputs.extend(
        [
            "",
            "null",
            "[]",
            "42",
            "\"arazzo\"",
            "arazzo: 1.0.1",
            "arazzo: 1.0",
            "flower: 0.1",
            "{\"arazzo\": \"1.0.0\", \"workflows\": {}}",
            "arazzo: 1.0.1\ninfo: {title: t, version: v}\nsourceDescriptions: [{name: a, url: b}]\nworkflows: [{workflowId: w, steps: [{stepId: s, operationPath: '#'}]}]",
            "arazzo: 1.0.1\ninfo: {title: t, version: v}\nsourceDescriptions: [{name: a, url: b}]\nworkflows: [{workflowId: w, steps: [{stepId: s, workflowId: w}]}]",
            "flower: '0.1'\nid: x\nflows: [{id: f, steps: [{id: s, request: {url: 'https://[::1'}}]}]",
            "flower: '0.1'\nid: x\nflows: [{id: f, steps: [{id: s, request: {url: 'https://:@/'}}]}]",
            "a: !!binary abc",
            "--- a\n--- b\n",
            "? [a]\n: b\n",
            "\u{feff}{\"flower\": \"0.1\"}",
            "k: 0x\nj: -\nl: 1e\nm: -99999999999999999999999\n",
        ]
        .map(String::from),
    );
    let refs_variants = [
        petstore(),
        vec![],
        vec![Reference {
            location: "./petstore.yaml".into(),
            content: "openapi: [".into(),
            name: Some("petstore".into()),
        }],
    ];
    for input in &inputs {
        for refs in &refs_variants {
            let _ = load(input, refs);
        }
    }
    // Truncated sources too.
    let mut cut = 0;
    while cut < PETSTORE.len() {
        let refs = vec![Reference {
            location: "./petstore.yaml".into(),
            content: PETSTORE[..cut].to_string(),
            name: Some("petstore".into()),
        }];
        let _ = load(ADOPT, &refs);
        cut += 23;
    }
}

#[test]
fn problems_are_capped() {
    let steps: String = (0..300)
        .map(|i| format!("      - id: s\n        request: {{url: 'ftp://x{i}'}}\n"))
        .collect();
    let doc = format!("flower: '0.1'\nid: x\nflows:\n  - id: f\n    steps:\n{steps}");
    let p = refused(&doc, &[]);
    assert_eq!(p.len(), specpress_workflow::load::MAX_PROBLEMS);
}

/// The corpus holds no Arazzo document; its OpenAPI 3.x documents serve as sources: for each (JSON, within the
/// loader's size limit), a workflow whose step names the document's first operation by `operationId` loads, and
/// the step resolves to that operation's method and path.
#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn a_workflow_over_each_openapi_document_of_the_shared_corpus_resolves_its_operation() {
    let corpus = specpress_testkit::corpus();
    let mut checked = 0;
    for family in ["openapi-3.0", "openapi-3.1"] {
        let mut files: Vec<_> = std::fs::read_dir(corpus.join(family))
            .unwrap_or_else(|e| panic!("{family}: {e}"))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).expect("a corpus document");
            if text.len() > specpress_workflow::load::MAX_BYTES {
                continue;
            }
            let doc: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            let (route, method, id) = doc["paths"]
                .as_object()
                .into_iter()
                .flatten()
                .flat_map(|(route, item)| {
                    item.as_object()
                        .into_iter()
                        .flatten()
                        .map(move |(method, op)| (route, method, op))
                })
                .find_map(|(route, method, op)| {
                    let id = op.get("operationId")?.as_str()?;
                    Some((route.clone(), method.to_uppercase(), id.to_owned()))
                })
                .unwrap_or_else(|| panic!("{}: no operation with an operationId", path.display()));
            let workflow = format!(
                "arazzo: 1.0.1\ninfo:\n  title: Corpus\n  version: 1.0.0\nsourceDescriptions:\n  - name: api\n    url: ./api.json\n    type: openapi\nworkflows:\n  - workflowId: first\n    steps:\n      - stepId: call\n        operationId: {}\n",
                serde_json::Value::from(id.as_str())
            );
            let refs = [Reference {
                location: "./api.json".into(),
                content: text,
                name: Some("api".into()),
            }];
            let set =
                load(&workflow, &refs).unwrap_or_else(|p| panic!("{}: {p:#?}", path.display()));
            let Target::Operation(op) = &set.workflows[0].steps[0].target else {
                panic!("{}: the step calls no operation", path.display());
            };
            assert_eq!(
                (
                    op.operation_id.as_deref(),
                    op.method.as_str(),
                    op.path.as_str()
                ),
                (Some(id.as_str()), method.as_str(), route.as_str()),
                "{}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 2, "{checked} corpus documents checked");
}

const SWAGGER: &str = r#"{
  "swagger": "2.0",
  "info": {"title": "Zoo", "version": "1"},
  "host": "zoo.example.com:8080",
  "basePath": "/api",
  "schemes": ["http"],
  "securityDefinitions": {
    "keeper": {"type": "basic"},
    "digest": {"type": "apiKey", "in": "query", "name": "key"}
  },
  "security": [{"keeper": []}],
  "paths": {
    "/animals/{id}": {
      "parameters": [{"name": "id", "in": "path", "required": true, "type": "string"}],
      "get": {
        "operationId": "getAnimal",
        "parameters": [{"name": "X-Trace", "in": "header", "type": "string"}],
        "responses": {"200": {"description": "ok"}}
      }
    }
  }
}"#;

const ZOO_FLOW: &str = r#"{
  "arazzo": "1.0.0",
  "info": {"title": "Zoo", "version": "1"},
  "sourceDescriptions": [{"name": "zoo", "url": "https://example.com/zoo.json", "type": "openapi"}],
  "workflows": [{
    "workflowId": "look",
    "parameters": [{"name": "X-Trace", "value": "$inputs.trace"}, {"name": "unrelated", "value": 1}],
    "steps": [{
      "stepId": "get",
      "operationId": "getAnimal",
      "parameters": [{"name": "id", "in": "path", "value": "$inputs.id"}]
    }]
  }]
}"#;

#[test]
fn a_swagger_20_source_gives_its_host_base_path_and_schemes() {
    let refs = vec![Reference {
        location: "https://example.com/zoo.json".into(),
        content: SWAGGER.into(),
        name: None,
    }];
    let set = load(ZOO_FLOW, &refs).unwrap_or_else(|p| panic!("{p:#?}"));
    assert_eq!(set.allowed_origins, vec!["http://zoo.example.com:8080"]);
    assert_eq!(
        set.schemes,
        vec![
            SecurityScheme {
                name: "digest".into(),
                kind: SchemeKind::ApiKey {
                    location: ParamIn::Query,
                    param: "key".into()
                }
            },
            SecurityScheme {
                name: "keeper".into(),
                kind: SchemeKind::Basic
            },
        ]
    );
    let step = &set.workflows[0].steps[0];
    let op = operation(step);
    assert_eq!(op.servers[0].url, "http://zoo.example.com:8080/api");
    assert_eq!(op.security, vec![vec!["keeper".to_string()]]);
    // Path-level parameters are merged into the operation's.
    let mut declared: Vec<(&str, ParamIn)> = op
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), p.location))
        .collect();
    declared.sort_by_key(|(n, _)| n.to_string());
    assert_eq!(
        declared,
        vec![("X-Trace", ParamIn::Header), ("id", ParamIn::Path)]
    );
    // The workflow-level parameter the operation declares is added, placed by the declaration; the other is not.
    assert_eq!(
        step.parameters,
        vec![
            StepParameter {
                name: "id".into(),
                location: Some(ParamIn::Path),
                value: json!("$inputs.id")
            },
            StepParameter {
                name: "X-Trace".into(),
                location: Some(ParamIn::Header),
                value: json!("$inputs.trace")
            },
        ]
    );
}

#[test]
fn a_security_scheme_a_run_cannot_apply_is_refused_only_when_required() {
    let openapi = PETSTORE.replace(
        "    bearer:\n      type: http\n      scheme: bearer\n",
        "    bearer:\n      type: http\n      scheme: digest\n",
    );
    let refs = vec![Reference {
        location: "./petstore.yaml".into(),
        content: openapi,
        name: Some("petstore".into()),
    }];
    let p = refused(ADOPT, &refs);
    assert_problem(
        &p,
        None,
        "/workflows/0/steps/0",
        "'bearer' (HTTP authentication 'digest')",
    );
    // Only createPet requires it.
    assert_eq!(p.len(), 1, "{p:#?}");
}

/// The petstore source with its server replaced by `url`.
fn petstore_served_at(url: &str) -> Vec<Reference> {
    vec![Reference {
        location: "./petstore.yaml".into(),
        content: PETSTORE.replace("https://api.example.com/v1", url),
        name: Some("petstore".into()),
    }]
}

#[test]
fn a_server_url_a_run_would_refuse_is_a_located_problem_at_deploy() {
    // GIVEN servers that the run's URL parser refuses: user information, a port out of range, an address that is
    // never public
    for (url, words) in [
        ("https://user@api.example.com/v1", "user name or password"),
        ("https://api.example.com:99999/v1", "invalid URL"),
        ("http://169.254.169.254/v1", "link-local"),
    ] {
        // WHEN the document is loaded
        let p = refused(ADOPT, &petstore_served_at(url));
        // THEN the step calling it names the server and why
        assert!(
            p.iter()
                .any(|x| x.pointer.starts_with("/workflows/0/steps/")
                    && x.message.contains(url)
                    && x.message.contains(words)),
            "{url}: {p:#?}"
        );
    }
}

#[test]
fn a_server_origin_is_what_a_run_sends_to_whatever_its_spelling() {
    // GIVEN spellings the URL standard reads one way: leading zeros in the port, a percent-encoded host
    for (url, origin) in [
        (
            "http://api.example.com:0018081/v1",
            "http://api.example.com:18081",
        ),
        ("https://ex%61mple.com/v1", "https://example.com"),
        ("HTTPS://API.EXAMPLE.COM:443/v1", "https://api.example.com"),
    ] {
        // WHEN loaded
        let set = load(ADOPT, &petstore_served_at(url)).unwrap_or_else(|p| panic!("{url}: {p:#?}"));
        // THEN the allowed origin is the one the hardened client will compare a run's request with
        assert_eq!(set.allowed_origins, vec![origin.to_string()], "{url}");
        let wanted = specpress_fetch::Origin::parse(&format!("{url}/pets"))
            .expect("a run may send there")
            .into_string();
        assert_eq!(wanted, origin);
    }
}

#[test]
fn a_workflow_id_that_cannot_name_an_mcp_tool_is_refused() {
    // GIVEN workflow ids outside the MCP rule for tool names (1 to 128 of A-Z a-z 0-9 _ - .)
    let long = "w".repeat(129);
    for bad in [
        "adopt pet",
        "adopt/pet",
        "adopt\u{1b}[31m",
        "adopté",
        long.as_str(),
    ] {
        let doc = ADOPT.replace(
            "workflowId: createAndFetch",
            &format!("workflowId: {}", serde_json::to_string(bad).expect("json")),
        );
        // WHEN loaded, THEN the id is refused where it is written
        let p = refused(&doc, &petstore());
        assert_problem(
            &p,
            None,
            "/workflows/0/workflowId",
            "cannot name an MCP tool",
        );
    }
    // AND the longest name the rule allows, with every character it allows, is a name
    let ok = format!("a.b-c_D9{}", "x".repeat(120));
    let doc = ADOPT.replace("workflowId: createAndFetch", &format!("workflowId: {ok}"));
    assert!(load(&doc, &petstore()).is_ok());
}

#[test]
fn a_flow_id_that_cannot_name_an_mcp_tool_is_refused() {
    let doc = FLOWER.replacen("- id: ", "- id: 'two words' # ", 1);
    let p = refused(&doc, &[]);
    assert!(
        p.iter()
            .any(|x| x.message.contains("cannot name an MCP tool")),
        "{p:#?}"
    );
}

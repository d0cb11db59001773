//! The workflow MCP server pages the tests of `tests/workflows.rs` check, and `examples/workflow_pages.rs` writes
//! for review: a normal set of two workflows, a hostile one, and a server with nothing deployed.
#![allow(dead_code)]

use serde_json::{Value, json};
use specpress_render::{
    AssetUrls, DeployedWorkflows, WorkflowServerPage, asset_urls, workflow_server_page,
};
use specpress_workflow::{Format, Operation, ServerUrl, Step, Target, Workflow, WorkflowSet};

pub const ENDPOINT: &str = "https://mcp.example.com/mcp/pet-flows";

pub fn workflow(id: &str, inputs: Value, outputs: &[(&str, &str)], steps: Vec<Step>) -> Workflow {
    Workflow {
        id: id.to_owned(),
        summary: None,
        description: None,
        inputs,
        outputs: outputs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        depends_on: Vec::new(),
        steps,
        success_actions: Vec::new(),
        failure_actions: Vec::new(),
    }
}

pub fn step(id: &str, description: Option<&str>, target: Target) -> Step {
    Step {
        id: id.to_owned(),
        description: description.map(str::to_owned),
        target,
        parameters: Vec::new(),
        body: None,
        success_criteria: Vec::new(),
        on_success: Vec::new(),
        on_failure: Vec::new(),
        outputs: Default::default(),
    }
}

pub fn http(method: &str, path: &str, source: Option<&str>, operation_id: Option<&str>) -> Target {
    Target::Operation(Box::new(Operation {
        source: source.map(str::to_owned),
        operation_id: operation_id.map(str::to_owned),
        method: method.to_owned(),
        path: path.to_owned(),
        servers: source
            .map(|_| ServerUrl {
                url: "https://petstore.example.com/v1".to_owned(),
                variables: Default::default(),
            })
            .into_iter()
            .collect(),
        parameters: Vec::new(),
        body_media_types: Vec::new(),
        security: Vec::new(),
    }))
}

pub fn calls(workflow_id: &str) -> Target {
    Target::Workflow {
        workflow_id: workflow_id.to_owned(),
    }
}

pub fn set(workflows: Vec<Workflow>) -> WorkflowSet {
    WorkflowSet {
        format: Format::Arazzo {
            version: "1.0.1".to_owned(),
        },
        title: "Pet adoption flows".to_owned(),
        description: Some("Adopt a pet and tell its new owner.".to_owned()),
        workflows,
        allowed_origins: vec!["https://petstore.example.com".to_owned()],
        schemes: Vec::new(),
    }
}

/// Two workflows: `adopt-pet` (nested object, enum, required inputs; outputs; steps, one calling `notify-owner`)
/// and `notify-owner`.
pub fn normal_set() -> WorkflowSet {
    let mut adopt = workflow(
        "adopt-pet",
        json!({
            "type": "object",
            "required": ["pet"],
            "properties": {
                "pet": {
                    "type": "object",
                    "description": "The pet to adopt.",
                    "required": ["species"],
                    "properties": {
                        "species": {"type": "string", "enum": ["dog", "cat", "parrot"], "description": "Which kind."},
                        "max_age": {"type": "integer", "minimum": 0, "default": 3},
                        "traits": {"type": "array", "items": {"type": "string"}, "examples": [["calm"]]}
                    }
                },
                "owner_email": {"type": "string", "format": "email", "description": "Where to write."},
                "dry_run": {"type": ["boolean", "null"], "default": false}
            }
        }),
        &[
            ("adoption_id", "$steps.adopt.outputs.id"),
            ("pet_name", "$steps.search.outputs.name"),
        ],
        vec![
            step(
                "search",
                Some("Finds an available pet of the **species** asked."),
                http("GET", "/pets", Some("petstore"), Some("findPets")),
            ),
            step(
                "adopt",
                None,
                http("POST", "/adoptions", Some("petstore"), Some("adopt")),
            ),
            step("notify", Some("Tells the owner."), calls("notify-owner")),
        ],
    );
    adopt.summary = Some("Adopt a pet".to_owned());
    adopt.description =
        Some("Searches, then *adopts*. See [the guide](https://example.com/guide).".to_owned());
    let mut notify = workflow(
        "notify-owner",
        json!({"type": "object", "properties": {"email": {"type": "string"}}, "required": ["email"]}),
        &[("sent", "$steps.send.outputs.sent")],
        vec![step(
            "send",
            None,
            http(
                "POST",
                "https://mail.example.com/send?to={$inputs.email}",
                None,
                None,
            ),
        )],
    );
    notify.summary = Some("Email the owner".to_owned());
    set(vec![adopt, notify])
}

pub fn urls() -> AssetUrls {
    asset_urls("/static")
}

pub fn page(
    set: Option<&WorkflowSet>,
    name: &str,
    description: Option<&str>,
    slug: &str,
) -> String {
    let urls = urls();
    let href = format!("/mcp/{slug}");
    workflow_server_page(&WorkflowServerPage {
        assets: &urls,
        href: &href,
        name,
        description,
        slug,
        endpoint: ENDPOINT,
        token: true,
        deployed: set.map(|set| DeployedWorkflows {
            version_id: "0190c6a2-7b1e-7c1a-9d2e-3f4a5b6c7d8e",
            deployed_at: "2026-11-27T09:30:12Z",
            set,
        }),
    })
}

pub fn normal_page() -> String {
    page(
        Some(&normal_set()),
        "Pet flows",
        Some("Workflows of the **pet store**."),
        "pet-flows",
    )
}

pub fn deep(levels: usize) -> Value {
    let mut v = json!({"type": "string"});
    for i in (0..levels).rev() {
        v = json!({"type": "object", "properties": {format!("level{i}"): v}});
    }
    v
}

/// Names, descriptions and schema keys written to break out of the page, plus a 10,000-property and a 50-deep
/// inputs schema.
pub fn hostile_set() -> WorkflowSet {
    let evil = "x\"'><script>alert(1)</script>\u{202E}gpj.exe";
    let md = "[click](javascript:alert(1)) <script>alert(2)</script> <img src=x onerror=alert(3)> \
              <a href=\"data:text/html,x\">d</a> <iframe src=\"https://evil\"></iframe> \u{202E}rev";
    // Unbroken text longer than any screen is wide.
    let long_name = format!("o{}", "&".repeat(300));
    let long_code = "\"".repeat(2000);
    let mut props = serde_json::Map::new();
    for i in 0..10_000 {
        props.insert(
            format!("p{i}<b>\"'"),
            json!({"type": "string", "description": md}),
        );
    }
    let mut first = workflow(
        evil,
        json!({
            "type": "object",
            "required": ["\"><script>alert(4)</script>"],
            "properties": {
                "\"><script>alert(4)</script>": {"type": "string", "enum": ["<script>", "'", "\u{202E}"], "default": "</code><script>"},
                "'": {"type": "<script>", "format": "\"><b>"},
                "<": {"$ref": "#/components/<script>"}
            }
        }),
        &[
            (evil, "$steps.x.outputs.y\"><script>alert(5)</script>"),
            (&long_name, &long_code),
        ],
        vec![
            step(
                evil,
                Some(md),
                http("<script>", "/p\"><script>", Some(evil), Some(evil)),
            ),
            step(
                &long_name,
                None,
                http("GET", &long_code, Some(&long_name), Some(&long_name)),
            ),
            step("again", None, calls("<script>unknown")),
            step("loop", None, calls(evil)),
        ],
    );
    first.summary = Some(format!("{evil} summary"));
    first.description = Some(md.to_owned());
    first.depends_on = vec![evil.to_owned(), "javascript:alert(1)".to_owned()];
    let wide = workflow(
        "wide",
        Value::Object(
            [
                ("type".to_owned(), json!("object")),
                ("properties".to_owned(), Value::Object(props)),
            ]
            .into_iter()
            .collect(),
        ),
        &[],
        Vec::new(),
    );
    let deep_one = workflow("deep", deep(50), &[], Vec::new());
    let same_slug = workflow("Wide", json!({"type": "object"}), &[], Vec::new());
    let long_id = workflow(&"W".repeat(300), json!({"type": "object"}), &[], Vec::new());
    let mut s = set(vec![first, wide, deep_one, same_slug, long_id]);
    s.title = evil.to_owned();
    s.description = Some(md.to_owned());
    s.allowed_origins = vec![evil.to_owned()];
    s
}

pub fn hostile_page() -> String {
    page(
        Some(&hostile_set()),
        "<script>alert('name')</script>\u{202E}",
        Some("[x](javascript:alert(1)) <script>alert('desc')</script>"),
        "pet\"<flows>",
    )
}

/// The pages the dump and the browser check write: normal, hostile, nothing deployed.
pub fn pages() -> Vec<(&'static str, String)> {
    vec![
        ("workflow-page", normal_page()),
        ("workflow-page-hostile", hostile_page()),
        (
            "workflow-page-empty",
            page(None, "Pet flows", Some("Nothing here yet."), "pet-flows"),
        ),
    ]
}

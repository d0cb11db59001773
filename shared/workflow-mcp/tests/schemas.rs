//! Every tool of a workflow MCP server has standard JSON Schemas: valid against the meta-schema, with only the
//! formats JSON Schema defines (a workflow's `inputs` may carry OpenAPI's `int64`: left out, the type kept).

use specpress_mcp::schema::tool_problems;
use specpress_workflow::load::{Reference, load};

const PETSTORE: &str = include_str!("../../workflow/tests/fixtures/petstore.yaml");
const ADOPT: &str = include_str!("../../workflow/tests/fixtures/adopt.arazzo.yaml");
const FLOWER: &str = include_str!("../../workflow/tests/fixtures/pets.flower.yaml");

fn petstore() -> Vec<Reference> {
    vec![Reference {
        location: "./petstore.yaml".to_string(),
        content: PETSTORE.to_string(),
        name: Some("petstore".to_string()),
    }]
}

#[test]
fn every_workflow_tool_s_schemas_are_standard_json_schema() {
    // A workflow whose inputs use OpenAPI's formats, beside the fixtures.
    let with_formats = ADOPT.replace(
        "        name:\n          type: string\n",
        "        name:\n          type: string\n        age:\n          type: integer\n          format: int64\n        \
         born:\n          type: string\n          format: date\n",
    );
    assert_ne!(
        with_formats, ADOPT,
        "the inputs to extend are in the fixture"
    );
    let mut tools = Vec::new();
    for doc in [ADOPT, FLOWER, with_formats.as_str()] {
        let set = load(doc, &petstore()).expect("the fixture loads");
        tools.extend(set.workflows.iter().map(specpress_workflow_mcp::tool_of));
    }
    assert!(tools.len() >= 3, "{} tools", tools.len());
    assert_eq!(tool_problems(&tools), Vec::<String>::new());
    let extended = tools
        .iter()
        .rev()
        .find(|t| t.name == "createAndFetch")
        .expect("the extended workflow's tool");
    let properties = extended
        .input_schema
        .get("properties")
        .expect("the inputs' properties");
    assert_eq!(properties["age"]["type"], "integer");
    assert!(properties["age"].get("format").is_none(), "{properties}");
    assert_eq!(properties["born"]["format"], "date");
}

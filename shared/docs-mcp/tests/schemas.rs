//! Every tool of the documentation's MCP servers (a documentation's and a hub's) has standard JSON Schemas: valid
//! against the meta-schema, with only the formats JSON Schema defines (schemars writes `uint` for the counts of the
//! results, which the TypeScript SDK's validator reports on every call).

use specpress_docs_mcp::Tools;
use specpress_mcp::schema::tool_problems;

#[test]
fn every_tool_s_input_and_output_schemas_are_standard_json_schema() {
    let tools = Tools::new();
    for hub in [false, true] {
        let listed = tools.listed(hub);
        assert_eq!(listed.len(), 8, "hub: {hub}");
        assert!(
            listed.iter().all(|t| t.output_schema.is_some()),
            "every tool describes its result"
        );
        assert_eq!(tool_problems(&listed), Vec::<String>::new(), "hub: {hub}");
    }
    // Before the kit makes them standard, the SDK's schemas carry `uint`: the check above can fail.
    let raw = Tools::raw();
    assert!(
        tool_problems(&raw).iter().any(|p| p.contains("\"uint\"")),
        "{:?}",
        tool_problems(&raw)
    );
}

//! Tool schemas in standard JSON Schema.
//!
//! Clients validate tools' `inputSchema` and `outputSchema` with a standard validator (the TypeScript SDK, which the
//! MCP Inspector runs, uses Ajv), which reports every `format` it does not know. schemars writes `uint`, `uint64`,
//! `int32`... for Rust's integer types, and a workflow document may carry OpenAPI's (`int64`, `byte`). The kit
//! keeps only the formats of the JSON Schema specification ([`STANDARD_FORMATS`]) and drops the others: the type
//! and the bounds (`"minimum": 0` for unsigned integers) still say what they said. Values that are data, not
//! schemas (`const`, `enum`, `default`, `examples`), are left as they are.
//!
//! [`problems`] is the check every server's tests run on every tool: only standard formats, and a valid JSON Schema
//! against its meta-schema.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{JsonObject, Tool};
use serde_json::Value;

/// The formats JSON Schema defines (draft 2020-12, "Defined Formats"; draft 7's are a subset).
pub const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose values are data, never schemas.
const DATA: [&str; 5] = ["const", "enum", "default", "examples", "example"];

/// Visits every schema object of `v` (itself and those nested in it), skipping data keywords.
fn visit(v: &mut Value, f: &mut impl FnMut(&mut serde_json::Map<String, Value>)) {
    match v {
        Value::Object(o) => {
            f(o);
            for (k, inner) in o.iter_mut() {
                if !DATA.contains(&k.as_str()) {
                    visit(inner, f);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| visit(x, f)),
        _ => {}
    }
}

fn standard(format: &Value) -> bool {
    format
        .as_str()
        .is_some_and(|f| STANDARD_FORMATS.contains(&f))
}

/// `schema` with only standard formats (see the module documentation).
pub fn standardize(schema: &mut JsonObject) {
    let mut v = Value::Object(std::mem::take(schema));
    visit(&mut v, &mut |o| {
        // A property named `format` is a schema (an object), never a format: only a text value is one.
        if o.get("format")
            .is_some_and(|f| f.is_string() && !standard(f))
        {
            o.remove("format");
        }
    });
    if let Value::Object(o) = v {
        *schema = o;
    }
}

/// A tool with standard schemas.
pub fn standard_tool(mut tool: Tool) -> Tool {
    let mut input = (*tool.input_schema).clone();
    standardize(&mut input);
    tool.input_schema = std::sync::Arc::new(input);
    if let Some(output) = &tool.output_schema {
        let mut output = (**output).clone();
        standardize(&mut output);
        tool.output_schema = Some(std::sync::Arc::new(output));
    }
    tool
}

/// Every tool of a router with standard schemas.
pub fn standard_router<S>(router: &mut ToolRouter<S>) {
    for route in router.map.values_mut() {
        route.attr = standard_tool(route.attr.clone());
    }
}

/// What is wrong with a tool's schema for a standard validator: formats it does not know, and anything that makes
/// it an invalid JSON Schema. Empty when nothing is.
pub fn problems(schema: &JsonObject) -> Vec<String> {
    let mut out = Vec::new();
    let mut v = Value::Object(schema.clone());
    visit(&mut v, &mut |o| {
        if let Some(f) = o.get("format")
            && f.is_string()
            && !standard(f)
        {
            out.push(format!("non-standard format {f}"));
        }
    });
    if let Err(e) = jsonschema::meta::validate(&v) {
        out.push(format!("not a valid JSON Schema: {e}"));
    }
    out
}

/// [`problems`] of both schemas of every tool, each prefixed with the tool's name and which schema.
pub fn tool_problems<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> Vec<String> {
    let mut out = Vec::new();
    for t in tools {
        for p in problems(&t.input_schema) {
            out.push(format!("{} inputSchema: {p}", t.name));
        }
        if let Some(o) = &t.output_schema {
            out.extend(
                problems(o)
                    .into_iter()
                    .map(|p| format!("{} outputSchema: {p}", t.name)),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(v: Value) -> JsonObject {
        match v {
            Value::Object(o) => o,
            _ => JsonObject::new(),
        }
    }

    #[test]
    fn schemars_unsigned_integers_lose_their_format_and_keep_their_bounds() {
        #[derive(schemars::JsonSchema, serde::Serialize)]
        #[allow(dead_code)]
        struct Out {
            total: usize,
            read: u64,
            when: String,
        }
        let mut schema = object(serde_json::to_value(schemars::schema_for!(Out)).expect("schema"));
        assert!(
            !problems(&schema).is_empty(),
            "schemars writes `uint`: {schema:?}"
        );
        standardize(&mut schema);
        assert_eq!(problems(&schema), Vec::<String>::new(), "{schema:?}");
        assert_eq!(schema["properties"]["total"]["minimum"], 0);
        assert_eq!(schema["properties"]["total"]["type"], "integer");
    }

    #[test]
    fn standard_formats_data_and_a_property_named_format_are_kept() {
        let mut schema = object(json!({
            "type": "object",
            "properties": {
                "at": {"type": "string", "format": "date-time"},
                "size": {"type": "integer", "format": "int64", "default": {"format": "int64"}},
                "format": {"type": "string", "enum": ["json"]},
                "list": {"type": "array", "items": {"type": "number", "format": "double"}}
            }
        }));
        standardize(&mut schema);
        assert_eq!(schema["properties"]["at"]["format"], "date-time");
        assert!(schema["properties"]["size"].get("format").is_none());
        assert_eq!(schema["properties"]["size"]["default"]["format"], "int64");
        assert_eq!(schema["properties"]["format"]["type"], "string");
        assert!(
            schema["properties"]["list"]["items"]
                .get("format")
                .is_none()
        );
        assert!(problems(&schema).is_empty(), "{schema:?}");
    }

    #[test]
    fn an_invalid_schema_is_reported() {
        let schema = object(json!({"type": "object", "properties": {"a": {"type": "whole"}}}));
        let found = problems(&schema);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("not a valid JSON Schema"), "{found:?}");
    }
}

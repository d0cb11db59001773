//! Examples generated from a schema (bounded in size and depth): the schema's own example,
//! const, default or first enum value, else one built from its properties and types.

use serde_json::{Map as JsonMap, Value};
use specpress_apispec::{Document, Kind, Location, V};

use super::{Flat, MAX_GENERATED_NODES, MAX_TREE_DEPTH, Mode, flatten};

/// Whether the schema at `loc` carries its own example (`example`, or a non-empty `examples` list), which
/// [`generate`] then gives as it is rather than building one.
pub fn has_own_example(doc: &Document, loc: &Location) -> bool {
    let flat = flatten(doc, loc);
    flat.facet("example").is_some()
        || flat
            .facet("examples")
            .and_then(V::as_array)
            .is_some_and(|a| a.get(0).is_some())
}

/// An example generated from the schema at `loc` (bounded in size and depth).
pub fn generate(doc: &Document, loc: &Location, mode: Mode) -> Value {
    let mut budget = MAX_GENERATED_NODES;
    let mut stack = Vec::new();
    gen_value(doc, loc, mode, 0, &mut stack, &mut budget).unwrap_or(Value::Null)
}

fn gen_value(
    doc: &Document,
    loc: &Location,
    mode: Mode,
    depth: usize,
    stack: &mut Vec<Location>,
    budget: &mut usize,
) -> Option<Value> {
    if *budget == 0 || depth > MAX_TREE_DEPTH {
        return None;
    }
    *budget -= 1;
    let flat = flatten(doc, loc);
    if flat.loc.as_ref().is_some_and(|l| stack.contains(l)) {
        return None;
    }
    for key in ["example", "const", "default"] {
        if let Some(v) = flat.facet(key) {
            return Some(bounded_value(v, budget));
        }
    }
    if let Some(v) = flat
        .facet("examples")
        .and_then(V::as_array)
        .and_then(|a| a.get(0))
        .or_else(|| {
            flat.facet("enum")
                .and_then(V::as_array)
                .and_then(|a| a.get(0))
        })
    {
        return Some(bounded_value(v, budget));
    }
    let pushed = flat.loc.clone();
    if let Some(l) = &pushed {
        stack.push(l.clone());
    }
    let out = if flat.is_array() {
        let mut items = Vec::new();
        if let Some(i) = &flat.items
            && let Some(v) = gen_value(doc, i, mode, depth + 1, stack, budget)
        {
            items.push(v);
        }
        Some(Value::Array(items))
    } else if !flat.props.is_empty() || flat.types.contains(&"object") {
        let mut m = JsonMap::new();
        for p in &flat.props {
            let pf = flatten(doc, &p.loc);
            if (mode == Mode::Request && pf.read_only) || (mode == Mode::Response && pf.write_only)
            {
                continue;
            }
            if let Some(v) = gen_value(doc, &p.loc, mode, depth + 1, stack, budget) {
                m.insert(p.name.to_string(), v);
            }
            if *budget == 0 {
                break;
            }
        }
        Some(Value::Object(m))
    } else if let Some(first) = flat.one_of.first().or_else(|| flat.any_of.first()) {
        gen_value(doc, first, mode, depth + 1, stack, budget)
    } else {
        Some(scalar_example(&flat))
    };
    if pushed.is_some() {
        stack.pop();
    }
    out
}

fn scalar_example(flat: &Flat<'_>) -> Value {
    let t = flat.types.first().copied().unwrap_or("string");
    match t {
        "integer" => flat
            .facet("minimum")
            .and_then(V::as_i64)
            .map_or(Value::from(0), Value::from),
        "number" => flat
            .facet("minimum")
            .and_then(V::as_f64)
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::from(0.0), Value::Number),
        "boolean" => Value::Bool(true),
        "null" | "never" => Value::Null,
        _ => Value::String(
            match flat.format {
                Some("date-time") => "2024-01-01T12:00:00Z",
                Some("date") => "2024-01-01",
                Some("time") => "12:00:00Z",
                Some("email") => "user@example.com",
                Some("uri" | "url" | "uri-reference") => "https://example.com",
                Some("uuid") => "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                Some("ipv4") => "192.0.2.1",
                Some("ipv6") => "2001:db8::1",
                Some("hostname") => "example.com",
                Some("byte") => "U3BlY3ByZXNz",
                Some("binary") => "<binary>",
                _ => "string",
            }
            .to_string(),
        ),
    }
}

/// A copy of `v` that stops after the remaining budget of values.
fn bounded_value(v: V<'_>, budget: &mut usize) -> Value {
    if *budget == 0 {
        return Value::Null;
    }
    *budget -= 1;
    match v.kind() {
        Kind::Array(a) => {
            let mut out = Vec::new();
            for x in a.iter() {
                if *budget == 0 {
                    break;
                }
                out.push(bounded_value(x, budget));
            }
            Value::Array(out)
        }
        Kind::Object(m) => {
            let mut out = JsonMap::new();
            for (k, x) in m.iter() {
                if *budget == 0 {
                    break;
                }
                out.insert(k.to_string(), bounded_value(x, budget));
            }
            Value::Object(out)
        }
        _ => v.to_value(),
    }
}

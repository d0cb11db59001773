//! JSON and YAML text -> [`serde_json::Value`], under budgets: size, nesting depth and node count are checked
//! while reading (a collection is refused when it opens too deep, and JSON's depth is measured on the bytes before
//! parsing, so no reader runs ahead on a `[[[[...` bomb), YAML aliases are refused (no alias bomb), as are duplicate
//! keys, non-scalar keys and several documents in one stream. Scalars follow the YAML 1.2 core schema (`yes`/`on`
//! stay strings). Built with an explicit stack: no recursion on document data.

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};
use serde_json::{Map, Number, Value};

/// Budgets of one text.
pub(crate) struct Budget {
    pub max_bytes: usize,
    pub max_depth: usize,
    pub max_nodes: usize,
}

/// Reads `text` as JSON when it starts with `{` or `[`, else as YAML. `Err` is a sentence.
pub(crate) fn read(text: &str, budget: &Budget) -> Result<Value, String> {
    if text.len() > budget.max_bytes {
        return Err(format!(
            "the file is {} bytes, more than the {} bytes accepted",
            text.len(),
            budget.max_bytes
        ));
    }
    let trimmed = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        // JSON, or YAML written in flow style (which JSON's reader refuses): the JSON error is the one to show.
        read_json(trimmed, budget).or_else(|json| read_yaml(text, budget).map_err(|_| json))
    } else {
        read_yaml(text, budget)
    }
}

fn read_json(text: &str, budget: &Budget) -> Result<Value, String> {
    // Depth first, on the bytes (strings skipped), so serde_json never nests beyond the budget.
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in text.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > budget.max_depth {
                    return Err(too_deep(budget));
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let value: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    if count_nodes(&value) > budget.max_nodes {
        return Err(too_many(budget));
    }
    Ok(value)
}

fn count_nodes(value: &Value) -> usize {
    let mut stack = vec![value];
    let mut n = 0usize;
    while let Some(v) = stack.pop() {
        n += 1;
        match v {
            Value::Array(a) => stack.extend(a.iter()),
            Value::Object(o) => stack.extend(o.values()),
            _ => {}
        }
    }
    n
}

fn too_deep(budget: &Budget) -> String {
    format!(
        "the document nests arrays/objects more than {} levels deep",
        budget.max_depth
    )
}

fn too_many(budget: &Budget) -> String {
    format!("the document has more than {} values", budget.max_nodes)
}

enum Frame {
    Seq(Vec<Value>),
    Map(Map<String, Value>, Option<String>),
}

fn read_yaml(text: &str, budget: &Budget) -> Result<Value, String> {
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<Value> = None;
    let mut documents = 0usize;
    let mut nodes = 0usize;
    loop {
        let (event, span) = match parser.next_event() {
            None => break,
            Some(Ok(x)) => x,
            Some(Err(e)) => {
                return Err(format!(
                    "invalid YAML at line {}, column {}: {}",
                    e.marker().line(),
                    e.marker().col() + 1,
                    e.info()
                ));
            }
        };
        let line = span.start.line();
        let value = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => continue,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(format!(
                        "several YAML documents in one file (the second starts at line {line}); send one"
                    ));
                }
                continue;
            }
            Event::Alias(_) => {
                return Err(format!(
                    "YAML aliases are not accepted (line {line}); write the value out"
                ));
            }
            Event::Scalar(text, style, _, tag) => {
                nodes += 1;
                if let Some(Frame::Map(_, key @ None)) = stack.last_mut() {
                    *key = Some(text.into_owned());
                    continue;
                }
                scalar(&text, style, tag.as_deref()).map_err(|m| format!("{m} (line {line})"))?
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                nodes += 1;
                if let Some(Frame::Map(_, None)) = stack.last() {
                    return Err(format!("a YAML mapping key must be a scalar (line {line})"));
                }
                if stack.len() >= budget.max_depth {
                    return Err(too_deep(budget));
                }
                stack.push(if matches!(event, Event::SequenceStart(..)) {
                    Frame::Seq(Vec::new())
                } else {
                    Frame::Map(Map::new(), None)
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Frame::Seq(items)) => Value::Array(items),
                Some(Frame::Map(map, _)) => Value::Object(map),
                None => continue,
            },
        };
        if nodes > budget.max_nodes {
            return Err(too_many(budget));
        }
        match stack.last_mut() {
            None => root = Some(value),
            Some(Frame::Seq(items)) => items.push(value),
            Some(Frame::Map(map, key)) => {
                let Some(k) = key.take() else {
                    return Err(format!("a YAML mapping key must be a scalar (line {line})"));
                };
                if map.contains_key(&k) {
                    return Err(format!("duplicate key '{k}' (line {line})"));
                }
                map.insert(k, value);
            }
        }
    }
    Ok(root.unwrap_or(Value::Null))
}

/// A scalar under the YAML 1.2 core schema.
fn scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    if let Some(tag) = tag {
        let core = tag.is_yaml_core_schema();
        return match (core, tag.suffix.as_str()) {
            (true, "str") | (false, "") => Ok(Value::String(text.to_string())),
            (true, "int" | "float" | "bool" | "null") => Ok(plain(text)),
            _ => Err(format!(
                "the YAML tag '{}{}' is not supported",
                tag.handle, tag.suffix
            )),
        };
    }
    if style != ScalarStyle::Plain {
        return Ok(Value::String(text.to_string()));
    }
    Ok(plain(text))
}

fn plain(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    match number(s) {
        Some(n) => Value::Number(n),
        None => Value::String(s.to_string()),
    }
}

fn number(s: &str) -> Option<Number> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() {
        return None;
    }
    if let Some(hex) = s.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok().map(Number::from);
    }
    if let Some(oct) = s.strip_prefix("0o") {
        return u64::from_str_radix(oct, 8).ok().map(Number::from);
    }
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(i) = s.parse::<i64>() {
            return Some(Number::from(i));
        }
        if !s.starts_with('-')
            && let Ok(u) = digits.parse::<u64>()
        {
            return Some(Number::from(u));
        }
        return s.parse::<f64>().ok().and_then(Number::from_f64);
    }
    let float_like = digits
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
        && digits.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && digits.bytes().any(|b| b.is_ascii_digit());
    if float_like {
        return s.parse::<f64>().ok().and_then(Number::from_f64);
    }
    None
}

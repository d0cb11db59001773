//! Parsing: one runtime expression ([`parse`]) into an [`Expr`], a template into [`Piece`]s ([`parse_template`]),
//! and the check of every expression and template piece in a JSON value ([`check_value`]).

use serde_json::Value;

use super::{
    Expr, ExprError, MAX_DEPTH, MAX_EXPR_LEN, MAX_PATH_DEPTH, MAX_PIECES, Source, WorkflowPart,
};

/// RFC 9110 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Characters a name may hold: no whitespace, no braces, no `#` (it starts a pointer).
fn is_name_char(c: char) -> bool {
    !c.is_whitespace() && !c.is_control() && c != '{' && c != '}' && c != '#'
}

/// Characters of a step or workflow id in an expression (Arazzo: `[A-Za-z0-9_\-]+`, plus a few lenient ones).
fn is_id_char(c: char) -> bool {
    is_name_char(c) && c != '.'
}

/// Parses exactly one runtime expression (`$inputs.id`, not `{$inputs.id}`).
pub fn parse(text: &str) -> Result<Expr, ExprError> {
    if text.len() > MAX_EXPR_LEN {
        return Err(ExprError::new(
            text,
            format!("longer than {MAX_EXPR_LEN} bytes"),
        ));
    }
    let Some(rest) = text.strip_prefix('$') else {
        return Err(ExprError::new(text, "does not start with `$`"));
    };
    let err = |reason: &str| Err(ExprError::new(text, reason));
    let (head, tail) = match rest.find('.') {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    match (head, tail) {
        ("url", None) => Ok(Expr::Url),
        ("method", None) => Ok(Expr::Method),
        // `$status`, `$response.status`, `$request.method`, `$request.url`: Flower's spellings.
        ("statusCode" | "status", None) | ("response", Some("status")) => Ok(Expr::StatusCode),
        ("request", Some("method")) => Ok(Expr::Method),
        ("request", Some("url")) => Ok(Expr::Url),
        ("url" | "method" | "statusCode" | "status", Some(_)) => {
            err("nothing may follow this expression")
        }
        ("request", Some(t)) => parse_source(text, t).map(Expr::Request),
        ("response", Some(t)) => parse_source(text, t).map(Expr::Response),
        ("inputs", Some(t)) => {
            let (name, pointer) = parse_named(text, t)?;
            Ok(Expr::Inputs { name, pointer })
        }
        ("outputs", Some(t)) => {
            let (name, pointer) = parse_named(text, t)?;
            Ok(Expr::Outputs { name, pointer })
        }
        ("steps", Some(t)) => {
            let (step, after) = split_id(text, t)?;
            let Some(after) = after.strip_prefix("outputs.") else {
                return err("expected `$steps.<stepId>.outputs.<name>`");
            };
            let (name, pointer) = parse_named(text, after)?;
            Ok(Expr::Steps {
                step,
                name,
                pointer,
            })
        }
        ("workflows", Some(t)) => {
            let (workflow, after) = split_id(text, t)?;
            let (part, after) = if let Some(a) = after.strip_prefix("outputs.") {
                (WorkflowPart::Outputs, a)
            } else if let Some(a) = after.strip_prefix("inputs.") {
                (WorkflowPart::Inputs, a)
            } else {
                return err(
                    "expected `$workflows.<workflowId>.outputs.<name>` or `.inputs.<name>`",
                );
            };
            let (name, pointer) = parse_named(text, after)?;
            Ok(Expr::Workflows {
                workflow,
                part,
                name,
                pointer,
            })
        }
        ("sourceDescriptions", Some(t)) => {
            let (name, after) = split_id(text, t)?;
            if after.is_empty() || !after.chars().all(is_plain_char) {
                return err("expected `$sourceDescriptions.<name>.<reference>`");
            }
            Ok(Expr::SourceDescriptions {
                name,
                rest: after.to_string(),
            })
        }
        ("components", Some(t)) => {
            if t.is_empty()
                || !t.chars().all(is_plain_char)
                || t.starts_with('.')
                || t.ends_with('.')
            {
                return err("expected `$components.<type>.<name>`");
            }
            Ok(Expr::Components {
                rest: t.to_string(),
            })
        }
        ("request" | "response" | "inputs" | "outputs" | "steps" | "workflows", None)
        | ("sourceDescriptions" | "components", None) => err("a name must follow"),
        _ => err(
            "unknown expression (expected $url, $method, $statusCode, $request., $response., $inputs., \
                  $outputs., $steps., $workflows., $sourceDescriptions. or $components.)",
        ),
    }
}

fn is_plain_char(c: char) -> bool {
    !c.is_whitespace() && !c.is_control() && c != '{' && c != '}'
}

/// `<id>.<rest>` -> (id, rest).
fn split_id<'t>(text: &str, t: &'t str) -> Result<(String, &'t str), ExprError> {
    let end = t.find('.').unwrap_or(t.len());
    let id = &t[..end];
    if id.is_empty() || !id.chars().all(is_id_char) {
        return Err(ExprError::new(text, "expected an id after the `.`"));
    }
    let rest = t.get(end + 1..).unwrap_or("");
    if end == t.len() {
        return Err(ExprError::new(
            text,
            format!("something must follow `{id}`"),
        ));
    }
    Ok((id.to_string(), rest))
}

/// `<name>[#pointer]` -> (name, pointer tokens).
fn parse_named(text: &str, t: &str) -> Result<(String, Vec<String>), ExprError> {
    let bracketed;
    let t = if t.contains('[') {
        bracketed = brackets_to_dots(text, t)?;
        bracketed.as_str()
    } else {
        t
    };
    let (name, pointer) = match t.find('#') {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    if name.is_empty() {
        return Err(ExprError::new(text, "the name is empty"));
    }
    if !name.chars().all(is_name_char) {
        return Err(ExprError::new(
            text,
            "the name holds a space, a brace or a control character",
        ));
    }
    if name.starts_with('.') || name.ends_with('.') || name.contains("..") {
        return Err(ExprError::new(text, "the name has an empty dotted segment"));
    }
    if name.split('.').count() > MAX_PATH_DEPTH {
        return Err(ExprError::new(
            text,
            format!("more than {MAX_PATH_DEPTH} dotted segments"),
        ));
    }
    let pointer = match pointer {
        Some(p) => parse_pointer(text, p)?,
        None => Vec::new(),
    };
    Ok((name.to_string(), pointer))
}

/// `items[0].name` (Flower's JMESPath-like indexes) -> `items.0.name`.
fn brackets_to_dots(text: &str, t: &str) -> Result<String, ExprError> {
    let end = t.find('#').unwrap_or(t.len());
    let (name, rest) = t.split_at(end);
    let mut out = String::with_capacity(t.len());
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        if c != '[' {
            out.push(c);
            continue;
        }
        let mut digits = String::new();
        loop {
            match chars.next() {
                Some(']') if !digits.is_empty() => break,
                Some(d) if d.is_ascii_digit() && digits.len() < 10 => digits.push(d),
                _ => return Err(ExprError::new(text, "expected `[<index>]`")),
            }
        }
        out.push('.');
        out.push_str(&digits);
    }
    out.push_str(rest);
    Ok(out)
}

/// A JSON pointer (RFC 6901) without its `#`: `` (whole) or `/a/b~1c`.
fn parse_pointer(text: &str, p: &str) -> Result<Vec<String>, ExprError> {
    if p.is_empty() {
        return Ok(Vec::new());
    }
    let Some(p) = p.strip_prefix('/') else {
        return Err(ExprError::new(text, "a JSON pointer must start with `/`"));
    };
    let mut tokens = Vec::new();
    for raw in p.split('/') {
        if tokens.len() >= MAX_PATH_DEPTH {
            return Err(ExprError::new(
                text,
                format!("the JSON pointer is deeper than {MAX_PATH_DEPTH}"),
            ));
        }
        let mut token = String::with_capacity(raw.len());
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            match c {
                '~' => match chars.next() {
                    Some('0') => token.push('~'),
                    Some('1') => token.push('/'),
                    _ => {
                        return Err(ExprError::new(
                            text,
                            "`~` in a JSON pointer must be followed by 0 or 1",
                        ));
                    }
                },
                c if c.is_whitespace() || c.is_control() || c == '{' || c == '}' => {
                    return Err(ExprError::new(
                        text,
                        "the JSON pointer holds a space, a brace or a control character",
                    ));
                }
                c => token.push(c),
            }
        }
        tokens.push(token);
    }
    Ok(tokens)
}

fn parse_source(text: &str, t: &str) -> Result<Source, ExprError> {
    match t {
        "headers" => return Ok(Source::Headers),
        "query" => return Ok(Source::QueryAll),
        _ => {}
    }
    if let Some(name) = t.strip_prefix("header.") {
        if name.is_empty() || !name.chars().all(is_tchar) {
            return Err(ExprError::new(
                text,
                "a header name must be a non-empty token",
            ));
        }
        return Ok(Source::Header(name.to_string()));
    }
    if let Some(name) = t.strip_prefix("query.") {
        return plain_name(text, name).map(Source::Query);
    }
    if let Some(name) = t.strip_prefix("path.") {
        return plain_name(text, name).map(Source::Path);
    }
    if let Some(after) = t.strip_prefix("body") {
        if after.is_empty() {
            return Ok(Source::Body(Vec::new()));
        }
        if let Some(p) = after.strip_prefix('#') {
            return parse_pointer(text, p).map(Source::Body);
        }
        if let Some(dotted) = after.strip_prefix('.') {
            let (name, pointer) = parse_named(text, dotted)?;
            let mut path: Vec<String> = name.split('.').map(str::to_string).collect();
            if path.len() + pointer.len() > MAX_PATH_DEPTH {
                return Err(ExprError::new(
                    text,
                    format!("the path is deeper than {MAX_PATH_DEPTH}"),
                ));
            }
            path.extend(pointer);
            return Ok(Source::Body(path));
        }
    }
    Err(ExprError::new(
        text,
        "expected `header.<name>`, `query.<name>`, `path.<name>` or `body[#/pointer]`",
    ))
}

fn plain_name(text: &str, name: &str) -> Result<String, ExprError> {
    if name.is_empty() || !name.chars().all(is_name_char) {
        return Err(ExprError::new(
            text,
            "expected a name without spaces, braces or `#`",
        ));
    }
    Ok(name.to_string())
}

/// A piece of a template.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Text(String),
    Expr(Expr),
}

/// Splits a string into text and `{$...}` pieces. A `{` not followed by `$` is text.
pub fn parse_template(text: &str) -> Result<Vec<Piece>, ExprError> {
    let mut pieces = Vec::new();
    let mut rest = text;
    let mut literal = String::new();
    while let Some(start) = rest.find("{$") {
        literal.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let Some(end) = after.find('}') else {
            return Err(ExprError::new(text, "a `{$` piece has no closing `}`"));
        };
        if pieces.len() >= MAX_PIECES * 2 {
            return Err(ExprError::new(
                text,
                format!("more than {MAX_PIECES} expressions in one template"),
            ));
        }
        let expr = parse(&after[..end])?;
        if !literal.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut literal)));
        }
        pieces.push(Piece::Expr(expr));
        rest = &after[end + 1..];
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        pieces.push(Piece::Text(literal));
    }
    Ok(pieces)
}

/// Checks every string in `v` (keys excluded): one that starts with `$` must be an expression, and every `{$...}`
/// piece of any string must be one.
pub fn check_value(v: &Value) -> Result<(), ExprError> {
    check_at(v, 0)
}

fn check_at(v: &Value, depth: usize) -> Result<(), ExprError> {
    if depth > MAX_DEPTH {
        return Err(ExprError::new(
            "",
            format!("the value is nested deeper than {MAX_DEPTH}"),
        ));
    }
    match v {
        Value::String(s) => {
            if s.starts_with('$') {
                parse(s).map(|_| ())
            } else {
                parse_template(s).map(|_| ())
            }
        }
        Value::Array(a) => a.iter().try_for_each(|x| check_at(x, depth + 1)),
        Value::Object(m) => m.values().try_for_each(|x| check_at(x, depth + 1)),
        _ => Ok(()),
    }
}

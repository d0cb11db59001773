//! The curl sample of an HTTP operation: its URL with path and query parameters filled, the
//! headers its authentication and parameters need, and a body from its examples or schema.

use serde_json::Value;
use specpress_spec::{Document, Kind, Location, Operation, ParameterIn, V};

use crate::html::{is_http_url, truncate};
use crate::schema::{self, Ctx, Mode};
use crate::site::resolve_value;

/// Bytes of the JSON body in a curl sample.
const MAX_SAMPLE_BODY: usize = 4 * 1024;

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn url_encode(s: &str, out: &mut String) {
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

/// A sample value for a parameter: its example, else its schema's example, default or first
/// enum value, else a placeholder.
pub(super) fn param_value(
    c: &Ctx<'_>,
    source: &Location,
    schema: Option<&Location>,
    name: &str,
) -> String {
    let doc = c.doc;
    let scalar = |v: V<'_>| -> Option<String> {
        match v.kind() {
            Kind::String(s) => Some(s.to_string()),
            Kind::Number(n) => Some(n.to_string()),
            Kind::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    };
    let p = doc.value(source);
    if let Some(s) = p.and_then(|p| p.get("example")).and_then(scalar) {
        return s;
    }
    if let Some(l) = schema
        && let Ok((_, v)) = doc.resolve(l)
    {
        for key in ["example", "default"] {
            if let Some(s) = v.get(key).and_then(scalar) {
                return s;
            }
        }
        if let Some(s) = v.get("enum").and_then(|e| e.at(0)).and_then(scalar) {
            return s;
        }
        if let Some(s) = v.get("examples").and_then(|e| e.at(0)).and_then(scalar) {
            return s;
        }
        match v.get("type").and_then(V::as_str) {
            Some("integer") | Some("number") => return "1".to_string(),
            Some("boolean") => return "true".to_string(),
            _ => {}
        }
    }
    let mut placeholder = String::new();
    for ch in name.chars().take(40) {
        if ch.is_ascii_alphanumeric() {
            placeholder.push(ch.to_ascii_uppercase());
        } else {
            placeholder.push('_');
        }
    }
    placeholder
}

fn server_url(op: &Operation, doc: &Document) -> Option<String> {
    let server = op
        .servers
        .as_ref()
        .and_then(|s| s.first())
        .or_else(|| doc.model().servers.first())?;
    let mut url = server.url.clone();
    for (name, v) in &server.variables {
        if let Some(d) = &v.default {
            url = url.replace(&format!("{{{name}}}"), d);
        }
    }
    Some(url.trim_end_matches('/').to_string())
}

pub(super) fn curl(c: &Ctx<'_>, op: &Operation) -> String {
    let doc = c.doc;
    let mut url = server_url(op, doc).unwrap_or_else(|| "https://api.example.com".to_string());
    if !is_http_url(&url) && !url.starts_with('/') && !url.contains("://") {
        url = format!("https://{url}");
    }
    if url.starts_with('/') {
        url = format!("https://api.example.com{url}");
    }
    // Path with parameters filled.
    let mut path = String::new();
    let mut rest = op.path.as_str();
    while let Some(open) = rest.find('{') {
        path.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let name = &rest[open + 1..open + close];
        let value = op
            .parameters
            .iter()
            .find(|p| p.location == ParameterIn::Path && p.name == name)
            .map(|p| param_value(c, &p.source, p.schema.as_ref(), name))
            .unwrap_or_else(|| name.to_ascii_uppercase());
        url_encode(&value, &mut path);
        rest = &rest[open + close + 1..];
    }
    path.push_str(rest);
    url.push_str(&path);
    let mut headers: Vec<String> = Vec::new();
    let mut query: Vec<(String, String)> = Vec::new();
    let mut user: Option<&str> = None;
    // Authentication: the first alternative of the effective requirement.
    let security = op.security.as_ref().or(doc.model().security.as_ref());
    if let Some(first) = security.and_then(|r| r.first()) {
        for name in first.keys() {
            let Some(s) = doc.model().security_schemes.get(name) else {
                continue;
            };
            match (
                s.scheme_type.as_str(),
                s.scheme.as_deref().map(str::to_ascii_lowercase),
            ) {
                ("apiKey", _) => {
                    let n = s.name.clone().unwrap_or_else(|| "api_key".into());
                    match s.location.as_deref() {
                        Some("query") => query.push((n, "YOUR_API_KEY".into())),
                        Some("cookie") => headers.push(format!("Cookie: {n}=YOUR_API_KEY")),
                        _ => headers.push(format!("{n}: YOUR_API_KEY")),
                    }
                }
                ("http", Some(ref b)) if b == "basic" => user = Some("USERNAME:PASSWORD"),
                ("basic", _) => user = Some("USERNAME:PASSWORD"),
                ("mutualTLS", _) => {}
                _ => headers.push("Authorization: Bearer YOUR_TOKEN".to_string()),
            }
        }
    }
    for p in &op.parameters {
        if !p.required {
            continue;
        }
        let v = || param_value(c, &p.source, p.schema.as_ref(), &p.name);
        match p.location {
            ParameterIn::Query => query.push((p.name.clone(), v())),
            ParameterIn::Header => headers.push(format!("{}: {}", p.name, v())),
            ParameterIn::Cookie => headers.push(format!("Cookie: {}={}", p.name, v())),
            ParameterIn::Path => {}
        }
    }
    for (i, (k, v)) in query.iter().enumerate() {
        url.push(if i == 0 && !url.contains('?') {
            '?'
        } else {
            '&'
        });
        url_encode(k, &mut url);
        url.push('=');
        url_encode(v, &mut url);
    }
    let mut s = format!(
        "curl --request {} \\\n  --url {}",
        op.key.method,
        shell_quote(&url)
    );
    if let Some(u) = user {
        s.push_str(&format!(" \\\n  --user {}", shell_quote(u)));
    }
    // The body: the first media type, JSON shown as JSON.
    let body = op.request_body.as_ref().and_then(|b| b.content.first());
    if let Some((mt, _)) = body {
        headers.push(format!("Content-Type: {mt}"));
    }
    for h in &headers {
        s.push_str(&format!(" \\\n  --header {}", shell_quote(h)));
    }
    if let Some((mt, m)) = body {
        if mt.contains("json") {
            let example = body_example(c, m.schema.as_ref(), &m.source);
            let text = serde_json::to_string_pretty(&example).unwrap_or_default();
            let (text, _) = truncate(&text, MAX_SAMPLE_BODY);
            s.push_str(&format!(" \\\n  --data {}", shell_quote(text)));
        } else if mt.starts_with("multipart/form-data")
            || mt.starts_with("application/x-www-form-urlencoded")
        {
            let flag = if mt.starts_with("multipart") {
                "--form"
            } else {
                "--data-urlencode"
            };
            if let Some(l) = &m.schema {
                let v = schema::generate(c, l, Mode::Request);
                if let Value::Object(map) = v {
                    for (k, v) in map.iter().take(20) {
                        let val = match v {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        s.push_str(&format!(
                            " \\\n  {flag} {}",
                            shell_quote(&format!("{k}={val}"))
                        ));
                    }
                }
            }
        } else {
            s.push_str(" \\\n  --data-binary @file");
        }
    }
    s
}

pub(super) fn body_example(c: &Ctx<'_>, schema: Option<&Location>, source: &Location) -> Value {
    let doc = c.doc;
    if let Some(src) = doc.value(source) {
        if let Some(x) = src.get("example") {
            return bounded(x);
        }
        if let Some(xs) = src.get("examples").and_then(V::as_object)
            && let Some((name, ex)) = xs.iter().next()
            && let Some(ex) = resolve_value(doc, &source.child("examples").child(name), ex)
            && let Some(v) = ex.get("value")
        {
            return bounded(v);
        }
    }
    match schema {
        Some(s) => schema::generate(c, s, Mode::Request),
        None => Value::Object(Default::default()),
    }
}

fn bounded(v: V<'_>) -> Value {
    let mut s = String::new();
    if schema::write_json(v, &mut s, None, 0, MAX_SAMPLE_BODY) {
        serde_json::from_str(&s).unwrap_or(Value::Null)
    } else {
        Value::String("(example too large to show here)".to_string())
    }
}

// ----------------------------------------------------------------------------------- Schemas

//! The request model every generated sample is written from: one place decides the method, the
//! URL (server, path and required query parameters filled), the headers (authentication by
//! security scheme, required header and cookie parameters, the body's media type), the basic
//! user and the body, so that the eight languages cannot disagree about what they send.
//!
//! Values come from the document and are hostile: they are kept as text here and escaped by
//! each language's writer; only URL parts are percent-encoded here, and header names and values
//! are made sendable (a header name keeps token characters, a value loses control characters)
//! because no HTTP client could send them otherwise.

use serde_json::Value;
use specpress_apispec::{Document, Kind, Location, Operation, ParameterIn, V};

use crate::json::write_json;
use crate::schema::{self, Mode};

/// Bytes of a JSON body (as pretty JSON) in a sample; a larger one is replaced by a note.
const MAX_SAMPLE_BODY: usize = 4 * 1024;
/// Nesting of a JSON body in a sample: some compilers refuse deeply nested literals (Python
/// stops near 200 levels), so a deeper value is replaced by a note.
const MAX_BODY_DEPTH: usize = 24;
/// Fields of a form body shown.
const MAX_FORM_FIELDS: usize = 20;
/// The host used when the document names no server (or only a relative one).
const EXAMPLE_HOST: &str = "https://api.example.com";
/// What a sample sends as a raw (non-JSON, non-form) body.
pub const FILE_PLACEHOLDER: &str = "FILE_CONTENTS";

/// The request a sample sends.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Upper case, as written in the document (`POST`).
    pub method: String,
    /// Absolute URL: server, path with its parameters filled, required query parameters.
    pub url: String,
    /// Headers in order: authentication, then required header and cookie parameters, then the
    /// body's `Content-Type` (JSON, form and raw bodies; a multipart body's is set by the client).
    pub headers: Vec<(String, String)>,
    /// HTTP basic authentication (user, password) when the security scheme asks for it.
    pub basic: Option<(String, String)>,
    pub body: Body,
}

/// The body of a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    None,
    /// A JSON value, bounded in size and depth.
    Json(Value),
    /// `application/x-www-form-urlencoded` fields.
    Form(Vec<(String, String)>),
    /// `multipart/form-data` text fields.
    Multipart(Vec<(String, String)>),
    /// Any other media type: the sample sends a file's contents ([`FILE_PLACEHOLDER`]).
    Raw,
}

impl Request {
    /// The request of an operation, from its document.
    pub fn of(doc: &Document, op: &Operation) -> Request {
        let mut url = base_url(op, doc);
        url.push_str(&filled_path(doc, op));
        let mut headers = Vec::new();
        let mut query = Vec::new();
        let basic = authentication(doc, op, &mut headers, &mut query);
        for p in op.parameters.iter().filter(|p| p.required) {
            let v = || param_value(doc, &p.source, p.schema.as_ref(), &p.name);
            match p.location {
                ParameterIn::Query => query.push((p.name.clone(), v())),
                ParameterIn::Header => headers.push((p.name.clone(), v())),
                ParameterIn::Cookie => {
                    headers.push(("Cookie".into(), format!("{}={}", p.name, v())))
                }
                ParameterIn::Path => {}
            }
        }
        append_query(&mut url, &query);
        let (content_type, body) = body(doc, op);
        if let Some(ct) = content_type {
            headers.push(("Content-Type".to_string(), ct));
        }
        let headers = merge_cookies(headers)
            .into_iter()
            .map(|(n, v)| (header_name(&n), header_value(&v)))
            .collect();
        Request {
            method: op.key.method.to_ascii_uppercase(),
            url,
            headers,
            basic,
            body,
        }
    }
}

/// The first server of the operation (else of the document) with its variables' defaults, made
/// absolute; without one, an example host.
fn base_url(op: &Operation, doc: &Document) -> String {
    let server = op
        .servers
        .as_ref()
        .and_then(|s| s.first())
        .or_else(|| doc.model().servers.first());
    let Some(server) = server else {
        return EXAMPLE_HOST.to_string();
    };
    let mut url = server.url.clone();
    for (name, v) in &server.variables {
        if let Some(d) = &v.default {
            url = url.replace(&format!("{{{name}}}"), d);
        }
    }
    let mut url = url.trim_end_matches('/').to_string();
    if url.starts_with('/') {
        url = format!("{EXAMPLE_HOST}{url}");
    } else if !is_http_url(&url) && !url.contains("://") {
        url = format!("https://{url}");
    }
    url
}

/// The path template with each `{name}` replaced by the parameter's sample value, encoded.
fn filled_path(doc: &Document, op: &Operation) -> String {
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
            .map(|p| param_value(doc, &p.source, p.schema.as_ref(), name))
            .unwrap_or_else(|| name.to_ascii_uppercase());
        url_encode(&value, &mut path);
        rest = &rest[open + close + 1..];
    }
    path.push_str(rest);
    path
}

/// Authentication of the first alternative of the effective requirement: API keys go to a
/// header, the query or a cookie; basic schemes give the basic user; every other scheme
/// (bearer, OAuth 2, OpenID Connect) a bearer token.
fn authentication(
    doc: &Document,
    op: &Operation,
    headers: &mut Vec<(String, String)>,
    query: &mut Vec<(String, String)>,
) -> Option<(String, String)> {
    let mut basic = None;
    let security = op.security.as_ref().or(doc.model().security.as_ref());
    let first = security.and_then(|r| r.first())?;
    for name in first.keys() {
        let Some(s) = doc.model().security_schemes.get(name) else {
            continue;
        };
        let scheme = s.scheme.as_deref().map(str::to_ascii_lowercase);
        match (s.scheme_type.as_str(), scheme.as_deref()) {
            ("apiKey", _) => {
                let n = s.name.clone().unwrap_or_else(|| "api_key".into());
                match s.location.as_deref() {
                    Some("query") => query.push((n, "YOUR_API_KEY".into())),
                    Some("cookie") => headers.push(("Cookie".into(), format!("{n}=YOUR_API_KEY"))),
                    _ => headers.push((n, "YOUR_API_KEY".into())),
                }
            }
            ("http", Some("basic")) | ("basic", _) => {
                basic = Some(("USERNAME".to_string(), "PASSWORD".to_string()));
            }
            ("mutualTLS", _) => {}
            _ => headers.push(("Authorization".into(), "Bearer YOUR_TOKEN".into())),
        }
    }
    basic
}

/// One `Cookie` header for all the cookies (where the first one was): clients that keep one
/// value per header name would otherwise drop all but one.
fn merge_cookies(headers: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::with_capacity(headers.len());
    let mut cookie: Option<usize> = None;
    for (n, v) in headers {
        match cookie {
            Some(i) if n == "Cookie" => {
                out[i].1.push_str("; ");
                out[i].1.push_str(&v);
            }
            _ => {
                if n == "Cookie" {
                    cookie = Some(out.len());
                }
                out.push((n, v));
            }
        }
    }
    out
}

fn append_query(url: &mut String, query: &[(String, String)]) {
    for (i, (k, v)) in query.iter().enumerate() {
        url.push(if i == 0 && !url.contains('?') {
            '?'
        } else {
            '&'
        });
        url_encode(k, url);
        url.push('=');
        url_encode(v, url);
    }
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
pub fn url_encode(s: &str, out: &mut String) {
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

/// A header name as HTTP can send it: RFC 9110 token characters, others replaced by `-`.
fn header_name(name: &str) -> String {
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    let n: String = name
        .chars()
        .take(100)
        .map(|c| if token(c) { c } else { '-' })
        .collect();
    if n.is_empty() {
        "X-Header".to_string()
    } else {
        n
    }
}

/// A header value as HTTP can send it: control characters (line breaks included) become spaces.
fn header_value(value: &str) -> String {
    value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The body of the first media type of the request body, and the `Content-Type` to send.
fn body(doc: &Document, op: &Operation) -> (Option<String>, Body) {
    let Some((mt, m)) = op.request_body.as_ref().and_then(|b| b.content.first()) else {
        return (None, Body::None);
    };
    let essence = mt.to_ascii_lowercase();
    if essence.contains("json") {
        let value = fit(body_example(
            doc,
            m.schema.as_ref(),
            &m.source,
            Mode::Request,
        ));
        return (Some(mt.clone()), Body::Json(value));
    }
    let multipart = essence.starts_with("multipart/form-data");
    if multipart || essence.starts_with("application/x-www-form-urlencoded") {
        let fields = form_fields(doc, m.schema.as_ref());
        return if multipart {
            (None, Body::Multipart(fields))
        } else {
            (Some(mt.clone()), Body::Form(fields))
        };
    }
    (Some(mt.clone()), Body::Raw)
}

/// The fields of a form body: the top-level properties of an example generated from its schema.
fn form_fields(doc: &Document, schema: Option<&Location>) -> Vec<(String, String)> {
    let Some(l) = schema else {
        return Vec::new();
    };
    let Value::Object(map) = schema::generate(doc, l, Mode::Request) else {
        return Vec::new();
    };
    map.into_iter()
        .take(MAX_FORM_FIELDS)
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => s,
                other => other.to_string(),
            };
            (k, v)
        })
        .collect()
}

/// A JSON body within the sample budgets, else a note saying why it is not shown.
pub fn fit(value: Value) -> Value {
    if depth(&value) > MAX_BODY_DEPTH {
        return Value::String("(example too deeply nested to show here)".to_string());
    }
    let size = serde_json::to_string_pretty(&value).map_or(usize::MAX, |s| s.len());
    if size > MAX_SAMPLE_BODY {
        return Value::String("(example too large to show here)".to_string());
    }
    value
}

fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// A sample value for a parameter: its example, else its schema's example, default or first
/// enum value, else a placeholder.
pub fn param_value(
    doc: &Document,
    source: &Location,
    schema: Option<&Location>,
    name: &str,
) -> String {
    let p = doc.value(source);
    if let Some(s) = p.and_then(|p| p.get("example")).and_then(scalar) {
        return s;
    }
    if let Some(l) = schema
        && let Ok((_, v)) = doc.resolve(l)
        && let Some(s) = schema_value(v)
    {
        return s;
    }
    name.chars()
        .take(40)
        .map(|ch| {
            if ch.is_ascii_alphanumeric() {
                ch.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// A scalar as the text a URL or header carries.
fn scalar(v: V<'_>) -> Option<String> {
    match v.kind() {
        Kind::String(s) => Some(s.to_string()),
        Kind::Number(n) => Some(n.to_string()),
        Kind::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A schema's example, default, first enum value or first `examples` item; else a value of
/// its type.
fn schema_value(v: V<'_>) -> Option<String> {
    for key in ["example", "default"] {
        if let Some(s) = v.get(key).and_then(scalar) {
            return Some(s);
        }
    }
    for key in ["enum", "examples"] {
        if let Some(s) = v.get(key).and_then(|e| e.at(0)).and_then(scalar) {
            return Some(s);
        }
    }
    match v.get("type").and_then(V::as_str) {
        Some("integer") | Some("number") => Some("1".to_string()),
        Some("boolean") => Some("true".to_string()),
        _ => None,
    }
}

/// The example of a media type (a request's or a response's, `mode` saying which properties a
/// generated one leaves out): the media type's `example`, else its first named example's value,
/// else one generated from the schema. A document value larger than a sample body may be is
/// replaced by a note.
pub fn body_example(
    doc: &Document,
    schema: Option<&Location>,
    source: &Location,
    mode: Mode,
) -> Value {
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
        Some(s) => schema::generate(doc, s, mode),
        None => Value::Object(Default::default()),
    }
}

/// A document value as JSON, unless it is larger than a sample body may be.
fn bounded(v: V<'_>) -> Value {
    let mut s = String::new();
    if write_json(v, &mut s, None, 0, MAX_SAMPLE_BODY) {
        serde_json::from_str(&s).unwrap_or(Value::Null)
    } else {
        Value::String("(example too large to show here)".to_string())
    }
}

/// Follows a `$ref` value (an example, a parameter) to what it points at.
pub fn resolve_value<'d>(doc: &'d Document, loc: &Location, v: V<'d>) -> Option<V<'d>> {
    if v.get("$ref").is_some() {
        doc.resolve(loc).ok().map(|(_, v)| v)
    } else {
        Some(v)
    }
}

/// Whether a URL is an absolute http(s) URL with no white space or control character.
pub fn is_http_url(url: &str) -> bool {
    let u = url.trim_start();
    let lower = u.get(..8).unwrap_or(u).to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://"))
        && !url.chars().any(|c| c.is_control() || c == ' ')
}

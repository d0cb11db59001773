//! The wire request of an operation step, built from its operation and the step: the URL (first server, path
//! template, path parameters), query parameters, headers and cookies, the credentials (see [`super::secrets`]),
//! the body (JSON, form or text, with its replacements), the header rules; the origin check before it is sent;
//! and the answer as expressions see it ([`response_view`]).

use percent_encoding::utf8_percent_encode;
use serde_json::Value;
use specpress_fetch::Origin;

use super::secrets::inject;
use super::{COMPONENT, RunError, Secrets, WireRequest, WireResponse};
use crate::expr::{self, Context, ResponseView};
use crate::model::{Operation, ParamIn, Step, StepBody, WorkflowSet};

/// A request built for a step, with what `$request.*` reads.
pub(super) struct Built {
    pub(super) wire: WireRequest,
    pub(super) query: Vec<(String, String)>,
    pub(super) path: Vec<(String, String)>,
    pub(super) body: Option<Value>,
    /// Headers that carry a secret.
    pub(super) secret_headers: Vec<String>,
}

const FORBIDDEN_HEADERS: [&str; 4] = ["host", "content-length", "transfer-encoding", "connection"];

/// A step's parameters, rendered, by where they go (a `null` value is not sent).
#[derive(Default)]
struct Placed {
    path: Vec<(String, String)>,
    query: Vec<(String, String)>,
    headers: Vec<(String, String)>,
    cookies: Vec<(String, String)>,
}

/// The request of operation step `step`: parameters placed and rendered, URL built, credentials put in, query
/// and cookies encoded, body written, headers checked; with what `$request.*` expressions read.
pub(super) fn build_request(
    set: &WorkflowSet,
    secrets: &dyn Secrets,
    step: &Step,
    op: &Operation,
    ctx: &Context<'_>,
) -> Result<Built, RunError> {
    let Placed {
        path: path_params,
        mut query,
        mut headers,
        mut cookies,
    } = place_parameters(step, ctx)?;
    let mut url = url_of(step, op, ctx, &path_params)?;

    // Security: the first alternative whose schemes all have secrets; the secret wins over the document.
    let secret_headers = inject(
        set,
        secrets,
        op,
        &step.id,
        &mut headers,
        &mut query,
        &mut cookies,
    )?;

    if !query.is_empty() {
        append_query(&mut url, &query);
    }
    if !cookies.is_empty() {
        headers.retain(|(k, _)| !k.eq_ignore_ascii_case("cookie"));
        let text: Vec<String> = cookies
            .iter()
            .map(|(k, v)| format!("{k}={}", utf8_percent_encode(v, COMPONENT)))
            .collect();
        headers.push(("Cookie".into(), text.join("; ")));
    }

    // The body.
    let (body_value, body_bytes) = match &step.body {
        Some(body) => {
            let (payload, bytes) = encode_body(step, body, op, ctx, &mut headers)?;
            (Some(payload), Some(bytes))
        }
        None => (None, None),
    };

    check_headers(step, &headers)?;

    Ok(Built {
        wire: WireRequest {
            method: op.method.to_ascii_uppercase(),
            url,
            headers,
            body: body_bytes,
        },
        query,
        path: path_params,
        body: body_value,
        secret_headers,
    })
}

/// Renders a step's parameters and sorts them by where they go.
fn place_parameters(step: &Step, ctx: &Context<'_>) -> Result<Placed, RunError> {
    let fail = |m: String| RunError::step(&step.id, m);
    let render =
        |v: &Value| expr::render(v, ctx).map_err(|e| RunError::step(&step.id, e.to_string()));
    let mut path_params = Vec::new();
    let mut query = Vec::new();
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut cookies: Vec<(String, String)> = Vec::new();
    for p in &step.parameters {
        let Some(location) = p.location else {
            return Err(fail(format!("parameter `{}` says nowhere to go", p.name)));
        };
        let value = render(&p.value)?;
        if value.is_null() {
            continue;
        }
        match location {
            ParamIn::Path => path_params.push((p.name.clone(), expr::to_text(&value))),
            ParamIn::Query => match value {
                Value::Array(items) => {
                    for item in items.iter().filter(|i| !i.is_null()) {
                        query.push((p.name.clone(), expr::to_text(item)));
                    }
                }
                Value::Object(members) => {
                    for (k, v) in members.iter().filter(|(_, v)| !v.is_null()) {
                        query.push((k.clone(), expr::to_text(v)));
                    }
                }
                other => query.push((p.name.clone(), expr::to_text(&other))),
            },
            ParamIn::Header => headers.push((p.name.clone(), header_text(&value))),
            ParamIn::Cookie => cookies.push((p.name.clone(), expr::to_text(&value))),
        }
    }
    Ok(Placed {
        path: path_params,
        query,
        headers,
        cookies,
    })
}

/// The request's URL, its pieces percent-encoded and its path parameters filled in.
fn url_of(
    step: &Step,
    op: &Operation,
    ctx: &Context<'_>,
    path_params: &[(String, String)],
) -> Result<String, RunError> {
    let fail = |m: String| RunError::step(&step.id, m);
    // The URL: first server (variables at their defaults) + path template; or the step's own URL template.
    let template = match op.servers.first() {
        Some(server) => {
            let mut base = server.url.clone();
            for (name, default) in &server.variables {
                base = base.replace(&format!("{{{name}}}"), default);
            }
            let base = base.trim_end_matches('/');
            if op.path.starts_with('/') {
                format!("{base}{}", op.path)
            } else {
                format!("{base}/{}", op.path)
            }
        }
        None => op.path.clone(),
    };
    let mut encode_piece =
        |v: &Value| utf8_percent_encode(&expr::to_text(v), COMPONENT).to_string();
    let mut url = match expr::render_str_with(&template, ctx, &mut encode_piece) {
        Ok(Value::String(s)) => s,
        Ok(_) => {
            return Err(fail(
                "the URL template is a single expression, not a URL".into(),
            ));
        }
        Err(e) => return Err(fail(e.to_string())),
    };
    for (name, value) in path_params {
        let placeholder = format!("{{{name}}}");
        if url.contains(&placeholder) {
            url = url.replace(
                &placeholder,
                &utf8_percent_encode(value, COMPONENT).to_string(),
            );
        }
    }
    if let Some(start) = url.find('{') {
        let rest = &url[start..];
        let end = rest.find('}').map_or(rest.len(), |i| i + 1);
        return Err(fail(format!(
            "no value for the path parameter `{}`",
            expr::shorten(&rest[..end], 60)
        )));
    }
    Ok(url)
}

/// Adds encoded query parameters to a URL (before its fragment, if any).
fn append_query(url: &mut String, query: &[(String, String)]) {
    let encoded: Vec<String> = query
        .iter()
        .map(|(k, v)| {
            format!(
                "{}={}",
                utf8_percent_encode(k, COMPONENT),
                utf8_percent_encode(v, COMPONENT)
            )
        })
        .collect();
    let sep = if url.contains('?') { '&' } else { '?' };
    let fragment = url.find('#').map(|i| url.split_off(i));
    url.push(sep);
    url.push_str(&encoded.join("&"));
    if let Some(fragment) = fragment {
        url.push_str(&fragment);
    }
}

/// The rendered body (replacements applied) and its bytes in its media type; sets `Content-Type` when the step's
/// headers do not.
fn encode_body(
    step: &Step,
    body: &StepBody,
    op: &Operation,
    ctx: &Context<'_>,
    headers: &mut Vec<(String, String)>,
) -> Result<(Value, Vec<u8>), RunError> {
    let fail = |m: String| RunError::step(&step.id, m);
    let render =
        |v: &Value| expr::render(v, ctx).map_err(|e| RunError::step(&step.id, e.to_string()));
    let mut payload = render(&body.payload)?;
    for (pointer, value) in &body.replacements {
        let value = render(value)?;
        set_pointer(&mut payload, pointer, value)
            .map_err(|m| fail(format!("replacement `{pointer}`: {m}")))?;
    }
    let media = body
        .content_type
        .clone()
        .or_else(|| op.body_media_types.first().cloned())
        .unwrap_or_else(|| "application/json".to_string());
    let essence = media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let bytes = if is_json_media_type(&essence) {
        serde_json::to_vec(&payload)
            .map_err(|e| fail(format!("the body cannot be written as JSON: {e}")))?
    } else if essence == "application/x-www-form-urlencoded" {
        form_encode(&payload).map_err(fail)?.into_bytes()
    } else {
        expr::to_text(&payload).into_bytes()
    };
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        headers.push(("Content-Type".into(), media));
    }
    Ok((payload, bytes))
}

/// Header names must be tokens, the connection's own headers are not the document's, and no value breaks a line.
fn check_headers(step: &Step, headers: &[(String, String)]) -> Result<(), RunError> {
    let fail = |m: String| RunError::step(&step.id, m);
    for (name, value) in headers {
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
        {
            return Err(fail(format!(
                "`{}` is not a valid header name",
                expr::shorten(name, 60)
            )));
        }
        if FORBIDDEN_HEADERS
            .iter()
            .any(|f| name.eq_ignore_ascii_case(f))
        {
            return Err(fail(format!("a workflow cannot set the `{name}` header")));
        }
        if value.chars().any(|c| c == '\r' || c == '\n' || c == '\0') {
            return Err(fail(format!(
                "the value of header `{name}` holds a line break"
            )));
        }
    }
    Ok(())
}

/// The text of a header value: a string as is, an array as comma-separated items, anything else as JSON.
fn header_text(v: &Value) -> String {
    match v {
        Value::Array(items) => items
            .iter()
            .map(expr::to_text)
            .collect::<Vec<_>>()
            .join(","),
        other => expr::to_text(other),
    }
}

/// `application/x-www-form-urlencoded` text of an object (a string payload is sent as written).
fn form_encode(payload: &Value) -> Result<String, String> {
    match payload {
        Value::Object(members) => {
            let mut pairs = Vec::new();
            for (k, v) in members {
                let values: Vec<&Value> = match v {
                    Value::Null => continue,
                    Value::Array(items) => items.iter().collect(),
                    other => vec![other],
                };
                for v in values {
                    pairs.push(format!(
                        "{}={}",
                        utf8_percent_encode(k, COMPONENT),
                        utf8_percent_encode(&expr::to_text(v), COMPONENT)
                    ));
                }
            }
            Ok(pairs.join("&"))
        }
        Value::String(s) => Ok(s.clone()),
        Value::Null => Ok(String::new()),
        _ => Err("a form body must be an object".into()),
    }
}

/// Sets the value at a JSON pointer: an existing member or item is replaced, a new object member added, `-` or the
/// length of an array appends. The parent must exist.
fn set_pointer(target: &mut Value, pointer: &str, value: Value) -> Result<(), String> {
    let pointer = pointer.strip_prefix('#').unwrap_or(pointer);
    if pointer.is_empty() {
        *target = value;
        return Ok(());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err("a JSON pointer must start with `/`".into());
    };
    let tokens: Vec<String> = rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    if tokens.len() > expr::MAX_PATH_DEPTH {
        return Err("the pointer is too deep".into());
    }
    let Some((last, parents)) = tokens.split_last() else {
        return Err("empty pointer".into());
    };
    let mut node = target;
    for token in parents {
        node = match node {
            Value::Object(m) => m
                .get_mut(token)
                .ok_or_else(|| format!("no member `{token}`"))?,
            Value::Array(a) => {
                let i: usize = token
                    .parse()
                    .map_err(|_| format!("`{token}` is not an index"))?;
                a.get_mut(i).ok_or_else(|| format!("no item {i}"))?
            }
            _ => return Err(format!("cannot go into a scalar at `{token}`")),
        };
    }
    match node {
        Value::Object(m) => {
            m.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(a) => {
            if last == "-" {
                a.push(value);
                return Ok(());
            }
            let i: usize = last
                .parse()
                .map_err(|_| format!("`{last}` is not an index"))?;
            match i.cmp(&a.len()) {
                std::cmp::Ordering::Less => {
                    a[i] = value;
                    Ok(())
                }
                std::cmp::Ordering::Equal => {
                    a.push(value);
                    Ok(())
                }
                std::cmp::Ordering::Greater => Err(format!("no item {i}")),
            }
        }
        _ => Err("the parent is a scalar".into()),
    }
}

/// Whether `url` may be sent to: an absolute http(s) URL ([`Origin::parse`], the rule deploy applied to the
/// document's servers) on one of the `allowed` origins. The refusal names the origin, or why there is none, never
/// the URL: its query may carry an API key.
pub(super) fn check_origin(allowed: &[String], url: &str) -> Result<(), String> {
    let origin = Origin::parse(url).map_err(|e| {
        format!(
            "refused: the request URL is not one a run may send to ({})",
            e.user_message()
        )
    })?;
    if origin.is_among(allowed) {
        Ok(())
    } else {
        Err(format!(
            "refused: {origin} is not one of this document's servers"
        ))
    }
}

pub(super) fn response_view(wire: WireResponse) -> ResponseView {
    let is_json = wire
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        .is_some_and(|(_, v)| is_json_media_type(v));
    let body = if wire.body.is_empty() {
        Value::Null
    } else if is_json {
        serde_json::from_slice(&wire.body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&wire.body).into_owned()))
    } else {
        Value::String(String::from_utf8_lossy(&wire.body).into_owned())
    };
    ResponseView {
        status: wire.status,
        headers: wire.headers,
        body,
    }
}

fn is_json_media_type(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json" || essence.ends_with("+json") || essence == "text/json"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_origin_never_the_url_and_its_query() {
        let allowed = ["https://api.example.com".to_string()];
        assert!(check_origin(&allowed, "HTTPS://API.Example.com:443/x?key=k").is_ok());
        for url in [
            "https://evil.example/x?key=k-secret-1",
            "https://user@api.example.com/x?key=k-secret-1",
            "https://api.example.com:99999/x?key=k-secret-1",
            "/relative?key=k-secret-1",
        ] {
            let message = check_origin(&allowed, url).expect_err("refused");
            assert!(!message.contains("k-secret-1"), "{message}");
            assert!(!message.contains('?'), "{message}");
        }
    }

    #[test]
    fn pointers_set_members_items_and_appends() {
        let mut v = serde_json::json!({"a": {"b": 1}, "l": [1]});
        assert!(set_pointer(&mut v, "/a/b", 2.into()).is_ok());
        assert!(set_pointer(&mut v, "/a/c", 3.into()).is_ok());
        assert!(set_pointer(&mut v, "/l/-", 4.into()).is_ok());
        assert!(set_pointer(&mut v, "/l/5", 4.into()).is_err());
        assert!(set_pointer(&mut v, "/x/y", 4.into()).is_err());
        assert_eq!(v, serde_json::json!({"a": {"b": 2, "c": 3}, "l": [1, 4]}));
    }
}

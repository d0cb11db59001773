//! The "Try it" panel of an HTTP operation (template `pages/try_it.html`, script `assets/try.js`,
//! docs/try-it.md): a `<details class="try">` form with the server and its variables, the path, query and header
//! parameters, the authentication the operation takes (API key, HTTP basic, bearer; OAuth2 and OpenID Connect
//! with a pasted token), a body prefilled from the request example, and a Send button.
//!
//! The panel is rendered `hidden`: the script shows it and sends the request, either to the documentation's proxy
//! (`{base}/try`, [`TryItMode::Proxy`]) or from the browser ([`TryItMode::Direct`]); without the script there is
//! nothing a reader could do with it. Every document string reaches the page through the template's escaping, and
//! the script writes the answer with text nodes only.

use askama::Template;
use serde_json::Value;
use specpress_apispec::{Operation, ParameterIn, Server};
use specpress_samples::{Mode, body_example, param_value};

use crate::TryItMode;
use crate::html::{Html, truncate};
use crate::schema::Ctx;
use crate::tpl;

/// Bytes of the prefilled body.
const MAX_BODY: usize = 16 * 1024;
/// Servers offered (the rest of a long list is left out).
const MAX_SERVERS: usize = 20;

#[derive(Template)]
#[template(path = "pages/try_it.html", escape = "engine")]
struct Panel<'a> {
    mode: &'static str,
    endpoint: String,
    method: &'a str,
    path: &'a str,
    servers: Vec<&'a str>,
    variables: Vec<Field>,
    params: Vec<Field>,
    auth: Vec<AuthField>,
    body: Option<BodyField<'a>>,
}

/// One input: a server variable or a parameter.
struct Field {
    name: String,
    /// `path`, `query` or `header` (parameters); empty for a server variable.
    location: &'static str,
    value: String,
    required: bool,
}

/// One credential input.
struct AuthField {
    /// What the reader types: `API key <name>`, `Bearer token`, `User name`, `Password`.
    label: String,
    /// `apikey`, `bearer`, `basic-user` or `basic-password` (the script's word).
    kind: &'static str,
    /// For an API key: `header` or `query`, and its name.
    location: String,
    name: String,
    /// Typed as a password (not shown, not remembered).
    secret: bool,
}

struct BodyField<'a> {
    media_type: &'a str,
    text: String,
}

/// The panel of `op` in `mode` (`None` when off, or when the operation has no server to send to).
// Placed on the operation page at merge (the page's right pane is being rewritten meanwhile); tested below.
pub(crate) fn try_it_panel(c: &Ctx<'_>, op: &Operation, mode: TryItMode) -> Option<Html> {
    let mode = match mode {
        TryItMode::Off => return None,
        TryItMode::Direct => "direct",
        TryItMode::Proxy => "proxy",
    };
    let servers: &[Server] = match op.servers.as_deref() {
        Some(s) if !s.is_empty() => s,
        _ => &c.doc.model().servers,
    };
    if servers.is_empty() {
        return None;
    }
    let panel = Panel {
        mode,
        endpoint: format!("{}/try", c.base),
        method: &op.key.method,
        path: &op.path,
        servers: servers
            .iter()
            .take(MAX_SERVERS)
            .map(|s| s.url.as_str())
            .collect(),
        variables: variables(servers),
        params: params(c, op),
        auth: auth(c, op),
        body: body(c, op),
    };
    Some(tpl::render(&panel, 4096))
}

/// The variables of the servers offered, each once (the first server's default wins).
fn variables(servers: &[Server]) -> Vec<Field> {
    let mut out: Vec<Field> = Vec::new();
    for s in servers.iter().take(MAX_SERVERS) {
        for (name, v) in &s.variables {
            if out.iter().any(|f| &f.name == name) {
                continue;
            }
            let value = v
                .default
                .clone()
                .or_else(|| v.enumeration.first().cloned())
                .unwrap_or_default();
            out.push(Field {
                name: name.clone(),
                location: "",
                value,
                required: true,
            });
        }
    }
    out
}

/// The path, query and header parameters (cookies cannot be set from a page, and the proxy drops them).
fn params(c: &Ctx<'_>, op: &Operation) -> Vec<Field> {
    op.parameters
        .iter()
        .filter_map(|p| {
            let location = match p.location {
                ParameterIn::Path => "path",
                ParameterIn::Query => "query",
                ParameterIn::Header => "header",
                ParameterIn::Cookie => return None,
            };
            let value = if p.required {
                param_value(c.doc, &p.source, p.schema.as_ref(), &p.name)
            } else {
                String::new()
            };
            Some(Field {
                name: p.name.clone(),
                location,
                value,
                required: p.required,
            })
        })
        .collect()
}

/// The credential inputs of every scheme the operation's requirements name (its own, else the document's), each
/// scheme once.
fn auth(c: &Ctx<'_>, op: &Operation) -> Vec<AuthField> {
    let model = c.doc.model();
    let Some(requirements) = op.security.as_ref().or(model.security.as_ref()) else {
        return Vec::new();
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for name in requirements.iter().flat_map(|r| r.keys()) {
        if seen.contains(&name.as_str()) {
            continue;
        }
        seen.push(name);
        let Some(s) = model.security_schemes.get(name) else {
            continue;
        };
        let http = s.scheme.as_deref().map(str::to_ascii_lowercase);
        match (s.scheme_type.as_str(), http.as_deref()) {
            ("apiKey", _) => {
                let location = s.location.clone().unwrap_or_else(|| "header".into());
                if location == "cookie" {
                    continue;
                }
                let key = s.name.clone().unwrap_or_else(|| "api_key".into());
                out.push(AuthField {
                    label: format!("API key {key} ({name})"),
                    kind: "apikey",
                    location,
                    name: key,
                    secret: true,
                });
            }
            ("http", Some("basic")) | ("basic", _) => {
                for (label, kind, secret) in [
                    ("User name", "basic-user", false),
                    ("Password", "basic-password", true),
                ] {
                    out.push(AuthField {
                        label: format!("{label} ({name})"),
                        kind,
                        location: String::new(),
                        name: String::new(),
                        secret,
                    });
                }
            }
            ("mutualTLS", _) => {}
            _ => out.push(AuthField {
                label: format!("Bearer token ({name})"),
                kind: "bearer",
                location: String::new(),
                name: String::new(),
                secret: true,
            }),
        }
    }
    out
}

/// The body of the first media type: its example as JSON text for a JSON type, else empty.
fn body<'a>(c: &Ctx<'_>, op: &'a Operation) -> Option<BodyField<'a>> {
    let (media_type, m) = op.request_body.as_ref()?.content.first()?;
    let text = if media_type.contains("json") {
        let example = body_example(c.doc, m.schema.as_ref(), &m.source, Mode::Request);
        match example {
            Value::Null => String::new(),
            v => serde_json::to_string_pretty(&v).unwrap_or_default(),
        }
    } else {
        String::new()
    };
    let (text, _) = truncate(&text, MAX_BODY);
    Some(BodyField {
        media_type,
        text: text.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use specpress_apispec::{Limits, parse};

    use super::*;
    use crate::Site;

    const DOC: &str = r#"{
      "openapi": "3.1.0",
      "info": {"title": "Pets", "version": "1"},
      "servers": [{"url": "https://{region}.api.example/v1", "variables": {"region": {"default": "eu", "enum": ["eu", "us"]}}}],
      "components": {"securitySchemes": {
        "key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
        "basic": {"type": "http", "scheme": "basic"},
        "oauth": {"type": "oauth2", "flows": {}},
        "cookie": {"type": "apiKey", "in": "cookie", "name": "sid"}
      }},
      "security": [{"key": []}, {"basic": [], "oauth": []}, {"cookie": []}],
      "paths": {"/pets/{id}": {"post": {
        "parameters": [
          {"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}},
          {"name": "dry_run", "in": "query", "schema": {"type": "boolean"}},
          {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
          {"name": "sid", "in": "cookie", "schema": {"type": "string"}}
        ],
        "requestBody": {"content": {"application/json": {"example": {"name": "<Rex>"}}}},
        "responses": {"200": {"description": "ok"}}
      }}}
    }"#;

    fn panel(mode: TryItMode) -> Option<String> {
        let doc = parse(DOC, &[], &Limits::default()).expect("parses");
        let site = Site::build(&doc);
        let c = Ctx::new(&doc, &site, "/doc/pets");
        let op = doc
            .model()
            .operations
            .values()
            .next()
            .expect("an operation");
        try_it_panel(&c, op, mode).map(|h| h.as_str().to_owned())
    }

    #[test]
    fn the_panel_offers_servers_parameters_credentials_and_the_example_body_escaped() {
        assert_eq!(panel(TryItMode::Off), None);
        let html = panel(TryItMode::Proxy).expect("a panel");
        assert!(html.starts_with("<details class=\"try\" hidden"), "{html}");
        for part in [
            "data-try-mode=\"proxy\"",
            "data-try-endpoint=\"/doc/pets/try\"",
            "data-try-method=\"POST\"",
            "data-try-path=\"/pets/{id}\"",
            "<option value=\"https://{region}.api.example/v1\">",
            "data-name=\"region\" value=\"eu\"",
            "data-in=\"path\" data-name=\"id\" value=\"1\"",
            "data-in=\"query\" data-name=\"dry_run\" value=\"\"",
            "data-in=\"header\" data-name=\"X-Trace\"",
            "data-kind=\"apikey\" data-in=\"header\" data-name=\"X-Api-Key\"",
            "data-kind=\"basic-user\"",
            "data-kind=\"basic-password\"",
            "data-kind=\"bearer\"",
            "&quot;name&quot;: &quot;&lt;Rex&gt;&quot;",
            "<button type=\"submit\">Send</button>",
        ] {
            assert!(html.contains(part), "{part} missing in {html}");
        }
        assert!(
            !html.contains("data-name=\"sid\""),
            "cookies are not offered"
        );
        assert!(!html.contains("<Rex>"));
        let direct = panel(TryItMode::Direct).expect("a panel");
        assert!(direct.contains("data-try-mode=\"direct\""));
    }
}

//! What only Swagger 2.0 has: servers from `host`, `basePath` and `schemes`; media types from
//! `consumes` and `produces`; the request body from a `body` parameter, or from `formData`
//! parameters, which become one object schema written into the synthetic file.

use serde_json::{Map as JsonMap, Value, json};

use crate::model::*;
use crate::{Document, V};

use super::{Builder, b, field, s, strings};

/// The object schema of an operation's `formData` parameters.
struct FormSchema {
    schema: Value,
    /// Some parameter is required.
    required: bool,
    /// Some parameter is a file (the default media type is then `multipart/form-data`).
    has_file: bool,
}

/// One property per `formData` parameter (the parameter less `name`, `in`, `required` and
/// `allowEmptyValue`), and the names of the required ones.
fn form_schema(form: &[(Location, V<'_>)]) -> FormSchema {
    let mut properties = JsonMap::new();
    let mut required = Vec::new();
    let mut has_file = false;
    for &(_, p) in form {
        let Some(name) = s(p, "name") else { continue };
        let mut prop = JsonMap::new();
        if let Some(pm) = p.as_object() {
            for (k, v) in pm.iter() {
                if !matches!(k, "name" | "in" | "required" | "allowEmptyValue") {
                    prop.insert(k.to_string(), v.to_value());
                }
            }
        }
        has_file |= s(p, "type").as_deref() == Some("file");
        if b(p, "required") {
            required.push(Value::String(name.clone()));
        }
        properties.insert(name, Value::Object(prop));
    }
    let mut schema = json!({ "type": "object", "properties": properties });
    if !required.is_empty() {
        schema["required"] = Value::Array(required.clone());
    }
    FormSchema {
        schema,
        required: !required.is_empty(),
        has_file,
    }
}

impl<'a> Builder<'a> {
    pub(super) fn swagger_servers(&self, root: V<'_>) -> Vec<Server> {
        let host = s(root, "host");
        let base = s(root, "basePath").unwrap_or_default();
        let mut schemes = strings(field(root, "schemes"));
        if schemes.is_empty() {
            schemes.push("https".to_string());
        }
        match host {
            None if base.is_empty() => Vec::new(),
            None => vec![Server {
                url: base,
                description: None,
                variables: Map::default(),
                protocol: None,
            }],
            Some(h) => schemes
                .into_iter()
                .map(|sc| Server {
                    url: format!("{sc}://{h}{base}"),
                    description: None,
                    variables: Map::default(),
                    protocol: None,
                })
                .collect(),
        }
    }

    /// A Swagger 2.0 `consumes` or `produces` list: the operation's, else the document's, else `default`.
    pub(super) fn media_types(&self, op: V<'a>, key: &str, default: &'static str) -> Vec<&'a str> {
        let doc: &'a Document = self.doc;
        let own = field(op, key).or_else(|| doc.root().get(key));
        let list: Vec<&'a str> = own
            .and_then(V::as_array)
            .map(|a| a.iter().filter_map(V::as_str).collect())
            .unwrap_or_default();
        if list.is_empty() { vec![default] } else { list }
    }

    /// The request body of a Swagger 2.0 operation: its `body` parameter, else its `formData`
    /// parameters, else none.
    pub(super) fn swagger_body(
        &mut self,
        key: &OperationKey,
        oloc: &Location,
        op: V<'a>,
        body: Option<(Location, V<'a>)>,
        form: &[(Location, V<'_>)],
    ) -> Option<RequestBody> {
        if let Some((ploc, p)) = body {
            let schema = field(p, "schema").map(|_| ploc.child("schema"));
            let content = self
                .media_types(op, "consumes", "application/json")
                .into_iter()
                .map(|mt| {
                    (
                        mt.to_string(),
                        MediaType {
                            schema: schema.clone(),
                            encoding: None,
                            source: ploc.clone(),
                        },
                    )
                })
                .collect();
            return Some(RequestBody {
                required: b(p, "required"),
                description: self.description(p),
                content,
                source: ploc,
            });
        }
        if form.is_empty() {
            return None;
        }
        Some(self.form_body(key, oloc, op, form))
    }

    /// The request body of `formData` parameters: one object schema in the synthetic file (keyed
    /// by method and path), under each form media type the operation consumes.
    fn form_body(
        &mut self,
        key: &OperationKey,
        oloc: &Location,
        op: V<'a>,
        form: &[(Location, V<'_>)],
    ) -> RequestBody {
        let FormSchema {
            schema,
            required,
            has_file,
        } = form_schema(form);
        let synth_key = format!("{} {}", key.method, key.path);
        let loc = Location {
            file: self.synthetic_id,
            pointer: String::new(),
        }
        .child(&synth_key);
        let sources = super::FormSources {
            parameters: oloc.child("parameters"),
            properties: form
                .iter()
                .filter_map(|(at, p)| Some((s(*p, "name")?, at.clone())))
                .collect(),
        };
        self.form_sources.insert(synth_key.clone(), sources);
        self.synthetic.insert(synth_key, schema);
        let default = if has_file {
            "multipart/form-data"
        } else {
            "application/x-www-form-urlencoded"
        };
        let mut types = strings(field(op, "consumes").or_else(|| self.doc.root().get("consumes")));
        types.retain(|t| {
            t.starts_with("multipart/form-data")
                || t.starts_with("application/x-www-form-urlencoded")
        });
        if types.is_empty() {
            types.push(default.to_string());
        }
        let source = oloc.child("parameters");
        let content = types
            .into_iter()
            .map(|mt| {
                (
                    mt,
                    MediaType {
                        schema: Some(loc.clone()),
                        encoding: None,
                        source: source.clone(),
                    },
                )
            })
            .collect();
        RequestBody {
            required,
            description: None,
            content,
            source,
        }
    }
}

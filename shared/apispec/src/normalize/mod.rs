//! Builds the normalized [`ApiModel`] from a resolved document.
//!
//! Runs once at parse time, after every `$ref` was checked, so following one here cannot
//! fail except on a document bug already reported; such entries are skipped. Schemas are never
//! copied: the model points at them by [`Location`]. The only values created are the Swagger
//! 2.0 `formData` object schemas, written into the synthetic file.
//!
//! The parts: this file holds the [`Builder`] (following `$ref`s with a cache, sharing
//! descriptions) and what every family reads alike (security requirements and schemes, server
//! variables, path templates); `openapi.rs` maps OpenAPI path items, operations, parameters,
//! bodies and responses; `swagger.rs` what is Swagger 2.0's own (`host`/`basePath`/`schemes`,
//! `consumes`/`produces`, `body` and `formData` parameters); `asyncapi.rs` maps AsyncAPI 2.x and
//! 3.0 servers, channels, operations and messages.

use serde_json::{Map as JsonMap, Value};

use crate::model::*;
use crate::refs::ref_of;
use crate::{Document, V};

mod asyncapi;
mod openapi;
mod swagger;

pub(crate) const HTTP_METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// `v.get(key)`: the member `key` of an object, `None` for anything else.
#[inline]
fn field<'v>(v: V<'v>, key: &str) -> Option<V<'v>> {
    v.get(key)
}

/// The string member `key` of `v`, copied.
fn s(v: V<'_>, key: &str) -> Option<String> {
    field(v, key)?.as_str().map(str::to_string)
}

/// The boolean member `key` of `v` (`false` when absent).
fn b(v: V<'_>, key: &str) -> bool {
    field(v, key).and_then(V::as_bool).unwrap_or(false)
}

/// The strings of an array (other items skipped).
fn strings(v: Option<V<'_>>) -> Vec<String> {
    v.and_then(V::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Replaces every `{name}` of a path template or channel address by `{}`.
pub(crate) fn normalize_template(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut depth = 0usize;
    for c in path.chars() {
        match c {
            '{' => {
                if depth == 0 {
                    out.push_str("{}");
                }
                depth += 1;
            }
            '}' if depth > 0 => depth -= 1,
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The parameter names of a template, in order.
pub(crate) fn template_params(path: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        out.push(&after[..close]);
        rest = &after[close + 1..];
    }
    out
}

/// A `security` list of requirements (`None` when absent).
fn security(v: Option<V<'_>>) -> Option<Vec<SecurityRequirement>> {
    let arr = v?.as_array()?;
    Some(
        arr.iter()
            .filter_map(V::as_object)
            .map(|req| {
                req.iter()
                    .map(|(k, scopes)| (k.to_string(), strings(Some(scopes))))
                    .collect()
            })
            .collect(),
    )
}

/// A server's `variables`, by name.
fn server_variables(v: Option<V<'_>>) -> Map<String, ServerVariable> {
    let mut out = Map::default();
    if let Some(vars) = v.and_then(V::as_object) {
        for (name, var) in vars.iter() {
            out.insert(
                name.to_string(),
                ServerVariable {
                    default: var
                        .get("default")
                        .map(|d| d.as_str().map_or_else(|| d.to_string(), str::to_string)),
                    enumeration: strings(field(var, "enum")),
                },
            );
        }
    }
    out
}

/// The last token of a `$ref`'s pointer (`#/components/messages/X` gives `X`).
fn ref_name(r: &str) -> Option<String> {
    let (_, frag) = r.split_once('#')?;
    let last = frag.rsplit('/').next()?;
    crate::pointer::tokens(&format!("/{last}"))?.pop()
}

/// Where the schema of an operation's `formData` parameters, written into the synthetic file,
/// comes from: the operation's `parameters`, and each parameter (by name), which is the
/// property of that name.
#[derive(Clone, Debug)]
pub(crate) struct FormSources {
    pub parameters: Location,
    pub properties: Vec<(String, Location)>,
}

/// [`FormSources`] by the key of their schema in the synthetic file.
pub(crate) type FormSourceMap = std::collections::HashMap<String, FormSources>;

/// Builds the model of one document.
struct Builder<'a> {
    doc: &'a Document,
    /// The document is Swagger 2.0.
    swagger: bool,
    /// The synthetic file's schemas, by key (Swagger 2.0 `formData` objects).
    synthetic: JsonMap<String, Value>,
    /// Where each synthetic schema's parts are written in the source (see [`FormSources`]).
    form_sources: FormSourceMap,
    /// The id the synthetic file will have (after every reference).
    synthetic_id: FileId,
    /// Where a `$ref` string written in a file resolves to, once it has resolved: the chain a
    /// string starts does not depend on where it is written (a chain that came back to the
    /// place it started from would be a cycle, which is not remembered).
    resolved: std::cell::RefCell<Resolved<'a>>,
    /// Descriptions already read, by where their text lives: a parameter, response or header shared through `$ref`
    /// is read once and its description shared by every operation that uses it (the Kubernetes document's
    /// path-level parameters alone repeat 4 MB of descriptions across its operations).
    texts: std::cell::RefCell<hashbrown::HashMap<(usize, usize), Text>>,
}

/// [`Builder::resolved`]: (file, `$ref` string) → final location and value.
type Resolved<'a> = hashbrown::HashMap<(FileId, &'a str), (Location, V<'a>)>;

/// Builds the model; returns the synthetic file's value when one was needed, and where its
/// schemas come from.
pub(crate) fn build(doc: &Document) -> (ApiModel, Option<Value>, FormSourceMap) {
    let mut b = Builder {
        doc,
        swagger: doc.version() == SpecVersion::OpenApi20,
        synthetic: JsonMap::new(),
        form_sources: FormSourceMap::default(),
        synthetic_id: FileId(doc.files.len() as u32),
        resolved: Default::default(),
        texts: Default::default(),
    };
    let mut model = ApiModel::default();
    match doc.version().family() {
        SpecFamily::OpenApi => b.openapi(&mut model),
        SpecFamily::AsyncApi => b.asyncapi(&mut model),
    }
    let synthetic = if b.synthetic.is_empty() {
        None
    } else {
        Some(Value::Object(b.synthetic))
    };
    (model, synthetic, b.form_sources)
}

impl<'a> Builder<'a> {
    /// The value at `loc` and where it is, `$ref`s followed (`None` when a chain does not
    /// resolve).
    fn resolve(&self, loc: &Location) -> Option<(Location, V<'a>)> {
        let doc: &'a Document = self.doc;
        let v = doc.value(loc)?;
        if ref_of(v).is_none() {
            return Some((loc.clone(), v));
        }
        self.resolve_at(loc.clone(), v)
    }

    /// [`Builder::resolve`] for a caller that already holds `v`, the value at `loc` (found by
    /// walking down from its parent), so the pointer is not looked up again from the root.
    fn resolve_at(&self, loc: Location, v: V<'a>) -> Option<(Location, V<'a>)> {
        let doc: &'a Document = self.doc;
        let Some(r) = ref_of(v) else {
            return Some((loc, v));
        };
        if let Some(hit) = self.resolved.borrow().get(&(loc.file, r)) {
            return Some(hit.clone());
        }
        let out = doc.resolve(&loc).ok()?;
        self.resolved
            .borrow_mut()
            .insert((loc.file, r), out.clone());
        Some(out)
    }

    /// `v`'s `description`, shared with every other reader of the same text.
    fn description(&self, v: V<'a>) -> Option<Text> {
        let text: &'a str = field(v, "description")?.as_str()?;
        // The text's address identifies it: every string of a document lives in its tree, which outlives the
        // build, and equal addresses and lengths are equal texts.
        let key = (text.as_ptr() as usize, text.len());
        Some(
            self.texts
                .borrow_mut()
                .entry(key)
                .or_insert_with(|| Text::from(text))
                .clone(),
        )
    }

    /// The root of the definition.
    fn root_loc(&self) -> Location {
        Location::root(FileId::ROOT)
    }

    /// The named schemas of the object at `loc` (`#/components/schemas`, `#/definitions`), by name.
    fn schemas(&self, loc: &Location) -> Map<String, Location> {
        let mut out = Map::default();
        if let Some(m) = self.doc.value(loc).and_then(V::as_object) {
            for k in m.keys() {
                out.insert(k.to_string(), loc.child(k));
            }
        }
        out
    }

    /// The security schemes of the object at `loc`, by name (Swagger 2.0's `flow` and `scopes`
    /// read as one flow).
    fn security_schemes(&self, loc: &Location) -> Map<String, SecurityScheme> {
        let mut out = Map::default();
        let Some(m) = self.doc.value(loc).and_then(V::as_object) else {
            return out;
        };
        for name in m.keys() {
            let Some((sloc, sv)) = self.resolve(&loc.child(name)) else {
                continue;
            };
            let mut flows = Map::default();
            if self.swagger {
                if let Some(flow) = s(sv, "flow") {
                    flows.insert(flow, scopes(field(sv, "scopes")));
                }
            } else if let Some(fm) = field(sv, "flows").and_then(V::as_object) {
                for (fname, f) in fm.iter() {
                    flows.insert(
                        fname.to_string(),
                        scopes(field(f, "scopes").or_else(|| field(f, "availableScopes"))),
                    );
                }
            }
            out.insert(
                name.to_string(),
                SecurityScheme {
                    scheme_type: s(sv, "type").unwrap_or_default(),
                    scheme: s(sv, "scheme"),
                    location: s(sv, "in"),
                    name: s(sv, "name"),
                    bearer_format: s(sv, "bearerFormat"),
                    flows,
                    open_id_connect_url: s(sv, "openIdConnectUrl"),
                    source: sloc,
                },
            );
        }
        out
    }
}

/// An OAuth flow's scopes and their descriptions.
fn scopes(v: Option<V<'_>>) -> Map<String, String> {
    v.and_then(V::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, d)| (k.to_string(), d.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_lose_parameter_names() {
        assert_eq!(
            normalize_template("/pets/{petId}/toys/{id}"),
            "/pets/{}/toys/{}"
        );
        assert_eq!(normalize_template("/pets"), "/pets");
        assert_eq!(template_params("/a/{x}/b/{y}"), vec!["x", "y"]);
    }
}

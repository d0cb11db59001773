//! Builds the normalized [`ApiModel`] from a resolved document.
//!
//! Runs once at parse time, after every `$ref` was checked, so following one here cannot
//! fail except on a document bug already reported; such entries are skipped. Schemas are never
//! copied: the model points at them by [`Location`]. The only values created are the Swagger
//! 2.0 `formData` object schemas, written into the synthetic file.

use serde_json::{Map as JsonMap, Value, json};

use crate::model::*;
use crate::{Document, V, field, ref_of};

/// At most this many operations are reserved room for up front (the rest grow the vector as usual), so that a
/// hostile document of many large path items cannot make the reservation itself large.
const MAX_OPERATIONS_RESERVED: usize = 1 << 16;

pub(crate) const HTTP_METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

fn s(v: V<'_>, key: &str) -> Option<String> {
    field(v, key)?.as_str().map(str::to_string)
}

fn b(v: V<'_>, key: &str) -> bool {
    field(v, key).and_then(V::as_bool).unwrap_or(false)
}

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

fn parameter_in(s: &str) -> Option<ParameterIn> {
    Some(match s {
        "path" => ParameterIn::Path,
        "query" => ParameterIn::Query,
        "header" => ParameterIn::Header,
        "cookie" => ParameterIn::Cookie,
        _ => return None,
    })
}

/// The last token of a `$ref`'s pointer (`#/components/messages/X` gives `X`).
fn ref_name(r: &str) -> Option<String> {
    let (_, frag) = r.split_once('#')?;
    let last = frag.rsplit('/').next()?;
    crate::pointer::tokens(&format!("/{last}"))?.pop()
}

struct Builder<'a> {
    doc: &'a Document,
    swagger: bool,
    synthetic: JsonMap<String, Value>,
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

/// Builds the model; returns the synthetic file's value when one was needed.
pub(crate) fn build(doc: &Document) -> (ApiModel, Option<Value>) {
    let mut b = Builder {
        doc,
        swagger: doc.version() == SpecVersion::OpenApi20,
        synthetic: JsonMap::new(),
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
    (model, synthetic)
}

impl<'a> Builder<'a> {
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

    fn root_loc(&self) -> Location {
        Location::root(FileId::ROOT)
    }

    // ---------------------------------------------------------------- OpenAPI

    fn openapi(&mut self, model: &mut ApiModel) {
        let doc: &'a Document = self.doc;
        let root = doc.root();
        let rl = self.root_loc();
        model.servers = if self.swagger {
            self.swagger_servers(root)
        } else {
            self.servers(field(root, "servers"))
        };
        model.security = security(field(root, "security"));
        let (schemes_loc, schemas_loc) = if self.swagger {
            (rl.child("securityDefinitions"), rl.child("definitions"))
        } else {
            (
                rl.child("components").child("securitySchemes"),
                rl.child("components").child("schemas"),
            )
        };
        model.security_schemes = self.security_schemes(&schemes_loc);
        if let Some(m) = self.doc.value(&schemas_loc).and_then(V::as_object) {
            for k in m.keys() {
                model.schemas.insert(k.to_string(), schemas_loc.child(k));
            }
        }
        // Room for every operation up front: an operation is a large value, and growing the vector by doubling
        // would move each one several times. A path item has at most one operation per member.
        let capacity = ["paths", "webhooks"]
            .into_iter()
            .filter_map(|k| field(root, k).and_then(V::as_object))
            .flat_map(|m| m.iter())
            .map(|(_, item)| item.as_object().map_or(1, |o| o.len()))
            .sum::<usize>();
        let mut ops: Vec<Operation> = Vec::with_capacity(capacity.min(MAX_OPERATIONS_RESERVED));
        if let Some(paths) = field(root, "paths").and_then(V::as_object) {
            let paths_loc = rl.child("paths");
            for (path, item) in paths.iter().filter(|(k, _)| !k.starts_with("x-")) {
                self.path_item(
                    OperationKind::Path,
                    path,
                    paths_loc.child(path),
                    item,
                    true,
                    &mut ops,
                );
            }
        }
        if let Some(hooks) = field(root, "webhooks").and_then(V::as_object) {
            let hooks_loc = rl.child("webhooks");
            for (name, item) in hooks.iter() {
                self.path_item(
                    OperationKind::Webhook,
                    name,
                    hooks_loc.child(name),
                    item,
                    true,
                    &mut ops,
                );
            }
        }
        // In key order, each operation moved once: sorting the map afterwards would move the large entries
        // O(n log n) times. The sort is stable, so of two operations with one key the first written still wins.
        let mut order: Vec<usize> = (0..ops.len()).collect();
        order.sort_by(|&a, &b| ops[a].key.cmp(&ops[b].key));
        let mut slots: Vec<Option<Operation>> = ops.into_iter().map(Some).collect();
        model.operations.reserve(slots.len());
        for i in order {
            if let Some(op) = slots.get_mut(i).and_then(Option::take) {
                model.operations.entry(op.key.clone()).or_insert(op);
            }
        }
    }

    fn swagger_servers(&self, root: V<'_>) -> Vec<Server> {
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

    fn servers(&self, v: Option<V<'_>>) -> Vec<Server> {
        let Some(arr) = v.and_then(V::as_array) else {
            return Vec::new();
        };
        arr.iter()
            .map(|sv| Server {
                url: s(sv, "url").unwrap_or_default(),
                description: s(sv, "description"),
                variables: server_variables(field(sv, "variables")),
                protocol: None,
            })
            .collect()
    }

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

    fn path_item(
        &mut self,
        kind: OperationKind,
        path: &str,
        loc: Location,
        value: V<'a>,
        callbacks: bool,
        out: &mut Vec<Operation>,
    ) {
        let Some((iloc, item)) = self.resolve_at(loc, value) else {
            return;
        };
        let norm = match kind {
            OperationKind::Path => normalize_template(path),
            OperationKind::Webhook => path.to_string(),
        };
        let mut methods: Vec<&str> = HTTP_METHODS.to_vec();
        if self.doc.version() == SpecVersion::OpenApi32 {
            methods.push("query");
        }
        let path_servers = if self.swagger {
            None
        } else {
            field(item, "servers").map(|v| self.servers(Some(v)))
        };
        for method in methods {
            let Some(ov) = field(item, method) else {
                continue;
            };
            let Some((oloc, op)) = self.resolve_at(iloc.child(method), ov) else {
                continue;
            };
            let key = OperationKey {
                kind,
                method: method.to_ascii_uppercase(),
                path: norm.clone(),
            };
            let built = self.operation(
                key,
                path,
                &iloc,
                item,
                &oloc,
                op,
                path_servers.clone(),
                callbacks,
            );
            out.push(built);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn operation(
        &mut self,
        key: OperationKey,
        path: &str,
        iloc: &Location,
        item: V<'a>,
        oloc: &Location,
        op: V<'a>,
        path_servers: Option<Vec<Server>>,
        callbacks: bool,
    ) -> Operation {
        let template = template_params(path);
        // Parameters: path-level first, then operation-level overriding on (in, name).
        let mut merged: Map<(&'a str, &'a str), (Location, V<'a>)> = Map::default();
        for (owner_loc, owner) in [(iloc, item), (oloc, op)] {
            if let Some(ps) = field(owner, "parameters").and_then(V::as_array) {
                let ps_loc = owner_loc.child("parameters");
                for (i, pv) in ps.iter().enumerate() {
                    let Some((ploc, p)) = self.resolve_at(ps_loc.index(i), pv) else {
                        continue;
                    };
                    let text = |key| field(p, key).and_then(V::as_str).unwrap_or_default();
                    let k = (text("in"), text("name"));
                    merged.insert(k, (ploc, p));
                }
            }
        }
        let mut parameters = Vec::new();
        let mut body: Option<(Location, V<'a>)> = None;
        let mut form: Vec<(Location, V<'a>)> = Vec::new();
        for ((pin, name), (ploc, p)) in merged {
            if self.swagger && pin == "body" {
                body = Some((ploc, p));
                continue;
            }
            if self.swagger && pin == "formData" {
                form.push((ploc, p));
                continue;
            }
            let Some(location) = parameter_in(pin) else {
                continue;
            };
            let path_index = if location == ParameterIn::Path {
                template.iter().position(|t| *t == name)
            } else {
                None
            };
            parameters.push(Parameter {
                name: name.to_string(),
                location,
                path_index,
                required: b(p, "required") || location == ParameterIn::Path,
                deprecated: b(p, "deprecated"),
                description: self.description(p),
                style: s(p, "style"),
                explode: field(p, "explode").and_then(V::as_bool),
                allow_empty_value: b(p, "allowEmptyValue"),
                allow_reserved: b(p, "allowReserved"),
                schema: if self.swagger {
                    Some(ploc.clone())
                } else {
                    field(p, "schema").map(|_| ploc.child("schema"))
                },
                content: self.content(&ploc, p),
                source: ploc,
            });
        }
        let request_body = if self.swagger {
            self.swagger_body(&key, oloc, op, body, &form)
        } else {
            field(op, "requestBody").and_then(|bv| self.request_body(oloc.child("requestBody"), bv))
        };
        let mut responses = Map::default();
        if let Some(rs) = field(op, "responses").and_then(V::as_object) {
            let rs_loc = oloc.child("responses");
            for (status, rv) in rs.iter().filter(|(k, _)| !k.starts_with("x-")) {
                if let Some(r) = self.response(status, rs_loc.child(status), rv, op) {
                    responses.insert(status.to_string(), r);
                }
            }
        }
        let mut cbs = Map::default();
        if callbacks && let Some(cm) = field(op, "callbacks").and_then(V::as_object) {
            for name in cm.keys() {
                let Some((cloc, cb)) = self.resolve(&oloc.child("callbacks").child(name)) else {
                    continue;
                };
                let mut list = Vec::new();
                if let Some(exprs) = cb.as_object() {
                    for (expr, ev) in exprs.iter().filter(|(k, _)| !k.starts_with("x-")) {
                        self.path_item(
                            OperationKind::Path,
                            expr,
                            cloc.child(expr),
                            ev,
                            false,
                            &mut list,
                        );
                    }
                }
                cbs.insert(name.to_string(), list);
            }
        }
        let servers = match field(op, "servers") {
            Some(v) if !self.swagger => Some(self.servers(Some(v))),
            _ => path_servers,
        };
        Operation {
            key,
            path: path.to_string(),
            source: oloc.clone(),
            operation_id: s(op, "operationId"),
            summary: s(op, "summary"),
            description: s(op, "description"),
            tags: strings(field(op, "tags")),
            deprecated: b(op, "deprecated"),
            sunset: s(op, "x-sunset"),
            parameters,
            request_body,
            responses,
            security: security(field(op, "security")),
            servers,
            callbacks: cbs,
        }
    }

    fn content(&self, owner: &Location, v: V<'_>) -> Map<String, MediaType> {
        let mut out = Map::default();
        if let Some(c) = field(v, "content").and_then(V::as_object) {
            for (mt, m) in c.iter() {
                let mloc = owner.child("content").child(mt);
                out.insert(
                    mt.to_string(),
                    MediaType {
                        schema: field(m, "schema").map(|_| mloc.child("schema")),
                        encoding: field(m, "encoding").map(|_| mloc.child("encoding")),
                        source: mloc,
                    },
                );
            }
        }
        out
    }

    fn request_body(&self, loc: Location, value: V<'a>) -> Option<RequestBody> {
        let (bloc, bv) = self.resolve_at(loc, value)?;
        Some(RequestBody {
            required: b(bv, "required"),
            description: self.description(bv),
            content: self.content(&bloc, bv),
            source: bloc,
        })
    }

    /// A Swagger 2.0 `consumes` or `produces` list: the operation's, else the document's, else `default`.
    fn media_types(&self, op: V<'a>, key: &str, default: &'static str) -> Vec<&'a str> {
        let doc: &'a Document = self.doc;
        let own = field(op, key).or_else(|| doc.root().get(key));
        let list: Vec<&'a str> = own
            .and_then(V::as_array)
            .map(|a| a.iter().filter_map(V::as_str).collect())
            .unwrap_or_default();
        if list.is_empty() { vec![default] } else { list }
    }

    fn swagger_body(
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
        // formData parameters become one object schema in the synthetic file.
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
        let synth_key = format!("{} {}", key.method, key.path);
        let loc = Location {
            file: self.synthetic_id,
            pointer: String::new(),
        }
        .child(&synth_key);
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
        Some(RequestBody {
            required: !required.is_empty(),
            description: None,
            content,
            source,
        })
    }

    fn response(&self, status: &str, loc: Location, value: V<'a>, op: V<'a>) -> Option<Response> {
        let (rloc, r) = self.resolve_at(loc, value)?;
        let mut headers = Map::default();
        if let Some(hm) = field(r, "headers").and_then(V::as_object) {
            let hm_loc = rloc.child("headers");
            for (name, hv) in hm.iter() {
                let Some((hloc, h)) = self.resolve_at(hm_loc.child(name), hv) else {
                    continue;
                };
                headers.insert(
                    name.to_string(),
                    Header {
                        required: b(h, "required"),
                        deprecated: b(h, "deprecated"),
                        description: self.description(h),
                        schema: if self.swagger {
                            Some(hloc.clone())
                        } else {
                            field(h, "schema").map(|_| hloc.child("schema"))
                        },
                        source: hloc,
                    },
                );
            }
        }
        let content = if self.swagger {
            match field(r, "schema").map(|_| rloc.child("schema")) {
                Some(schema) => self
                    .media_types(op, "produces", "application/json")
                    .into_iter()
                    .map(|mt| {
                        (
                            mt.to_string(),
                            MediaType {
                                schema: Some(schema.clone()),
                                encoding: None,
                                source: rloc.clone(),
                            },
                        )
                    })
                    .collect(),
                None => Map::default(),
            }
        } else {
            self.content(&rloc, r)
        };
        Some(Response {
            status: status.to_string(),
            description: self.description(r),
            headers,
            content,
            source: rloc,
        })
    }

    // ---------------------------------------------------------------- AsyncAPI

    fn asyncapi(&mut self, model: &mut ApiModel) {
        let root = self.doc.root();
        let rl = self.root_loc();
        let v3 = self.doc.version() == SpecVersion::AsyncApi30;
        if let Some(servers) = field(root, "servers").and_then(V::as_object) {
            for name in servers.keys() {
                let Some((_, sv)) = self.resolve(&rl.child("servers").child(name)) else {
                    continue;
                };
                let url = if v3 {
                    format!(
                        "{}{}",
                        s(sv, "host").unwrap_or_default(),
                        s(sv, "pathname").unwrap_or_default()
                    )
                } else {
                    s(sv, "url").unwrap_or_default()
                };
                model.servers.push(Server {
                    url,
                    description: s(sv, "description"),
                    variables: server_variables(field(sv, "variables")),
                    protocol: s(sv, "protocol"),
                });
            }
        }
        let comps = rl.child("components");
        model.security_schemes = self.security_schemes(&comps.child("securitySchemes"));
        if let Some(m) = self
            .doc
            .value(&comps.child("schemas"))
            .and_then(V::as_object)
        {
            for k in m.keys() {
                model
                    .schemas
                    .insert(k.to_string(), comps.child("schemas").child(k));
            }
        }
        let default_ct = s(root, "defaultContentType");
        let mut ops: Vec<MessageOperation> = Vec::new();
        if let Some(channels) = field(root, "channels").and_then(V::as_object) {
            for id in channels.keys() {
                let Some((cloc, ch)) = self.resolve(&rl.child("channels").child(id)) else {
                    continue;
                };
                let address = if v3 {
                    match field(ch, "address").and_then(V::as_str) {
                        Some(a) => a.to_string(),
                        None => id.to_string(),
                    }
                } else {
                    id.to_string()
                };
                let mut parameters = Map::default();
                if let Some(ps) = field(ch, "parameters").and_then(V::as_object) {
                    for name in ps.keys() {
                        let resolved = self.resolve(&cloc.child("parameters").child(name));
                        let schema = resolved.map(|(ploc, p)| {
                            if field(p, "schema").is_some() {
                                ploc.child("schema")
                            } else {
                                ploc
                            }
                        });
                        parameters.insert(name.to_string(), schema);
                    }
                }
                let servers = match field(ch, "servers").and_then(V::as_array) {
                    Some(a) => a
                        .iter()
                        .filter_map(|x| {
                            x.as_str()
                                .map(str::to_string)
                                .or_else(|| ref_of(x).and_then(ref_name))
                        })
                        .collect(),
                    None => Vec::new(),
                };
                let channel = Channel {
                    address: address.clone(),
                    description: s(ch, "description"),
                    parameters,
                    servers,
                    source: cloc.clone(),
                };
                model
                    .channels
                    .entry(normalize_template(&address))
                    .or_insert(channel);
                if !v3 {
                    for (verb, direction) in [
                        ("publish", Direction::Receive),
                        ("subscribe", Direction::Send),
                    ] {
                        let Some(op) = ch.get(verb) else { continue };
                        let oloc = cloc.child(verb);
                        let mut messages = Map::default();
                        if field(op, "message").is_some() {
                            let mloc = oloc.child("message");
                            match self.resolve(&mloc) {
                                Some((rloc, m)) if field(m, "oneOf").is_some_and(V::is_array) => {
                                    let n =
                                        m.get("oneOf").and_then(V::as_array).map_or(0, |a| a.len());
                                    for i in 0..n {
                                        self.push_message(
                                            &rloc.child("oneOf").index(i),
                                            i,
                                            None,
                                            &default_ct,
                                            &mut messages,
                                        );
                                    }
                                }
                                Some(_) => {
                                    self.push_message(&mloc, 0, None, &default_ct, &mut messages)
                                }
                                None => {}
                            }
                        }
                        ops.push(MessageOperation {
                            key: MessageOperationKey {
                                direction,
                                channel: normalize_template(&address),
                                discriminator: None,
                            },
                            operation_id: s(op, "operationId"),
                            channel_address: address.clone(),
                            summary: s(op, "summary"),
                            description: s(op, "description"),
                            deprecated: b(op, "deprecated"),
                            messages,
                            security: security(field(op, "security")),
                            source: oloc,
                        });
                    }
                }
            }
        }
        if v3 && let Some(operations) = field(root, "operations").and_then(V::as_object) {
            for id in operations.keys() {
                let Some((oloc, op)) = self.resolve(&rl.child("operations").child(id)) else {
                    continue;
                };
                let direction = match field(op, "action").and_then(V::as_str) {
                    Some("send") => Direction::Send,
                    Some("receive") => Direction::Receive,
                    _ => continue,
                };
                let channel = self.resolve(&oloc.child("channel"));
                let address = match &channel {
                    Some((cloc, ch)) => match field(*ch, "address").and_then(V::as_str) {
                        Some(a) => a.to_string(),
                        None => cloc.pointer.rsplit('/').next().unwrap_or("").to_string(),
                    },
                    None => String::new(),
                };
                let mut messages = Map::default();
                match field(op, "messages").and_then(V::as_array) {
                    Some(list) => {
                        for i in 0..list.len() {
                            self.push_message(
                                &oloc.child("messages").index(i),
                                i,
                                None,
                                &default_ct,
                                &mut messages,
                            );
                        }
                    }
                    None => {
                        if let Some((cloc, ch)) = &channel
                            && let Some(ms) = field(*ch, "messages").and_then(V::as_object)
                        {
                            for (i, name) in ms.keys().enumerate() {
                                self.push_message(
                                    &cloc.child("messages").child(name),
                                    i,
                                    Some(name),
                                    &default_ct,
                                    &mut messages,
                                );
                            }
                        }
                    }
                }
                ops.push(MessageOperation {
                    key: MessageOperationKey {
                        direction,
                        channel: normalize_template(&address),
                        discriminator: None,
                    },
                    operation_id: Some(id.to_string()),
                    channel_address: address,
                    summary: s(op, "summary"),
                    description: s(op, "description"),
                    deprecated: b(op, "deprecated"),
                    messages,
                    security: security(field(op, "security")),
                    source: oloc,
                });
            }
        }
        // Several operations in one direction on one channel: tell them apart by id.
        let mut counts: Map<(Direction, String), usize> = Map::default();
        for op in &ops {
            *counts
                .entry((op.key.direction, op.key.channel.clone()))
                .or_default() += 1;
        }
        for (i, mut op) in ops.into_iter().enumerate() {
            if counts
                .get(&(op.key.direction, op.key.channel.clone()))
                .copied()
                .unwrap_or(0)
                > 1
            {
                op.key.discriminator =
                    Some(op.operation_id.clone().unwrap_or_else(|| i.to_string()));
            }
            model.message_operations.entry(op.key.clone()).or_insert(op);
        }
        model.message_operations.sort_keys();
        model.channels.sort_keys();
    }

    fn push_message(
        &self,
        loc: &Location,
        index: usize,
        id: Option<&str>,
        default_ct: &Option<String>,
        out: &mut Map<String, Message>,
    ) {
        let written = self.doc.value(loc);
        let comp_name = written.and_then(ref_of).and_then(ref_name);
        let Some((mloc, m)) = self.resolve(loc) else {
            return;
        };
        let (payload, schema_format) = match field(m, "payload") {
            Some(p) if field(p, "schemaFormat").is_some() && field(p, "schema").is_some() => (
                Some(mloc.child("payload").child("schema")),
                s(p, "schemaFormat"),
            ),
            Some(_) => (Some(mloc.child("payload")), s(m, "schemaFormat")),
            None => (None, s(m, "schemaFormat")),
        };
        let schema_format =
            schema_format.filter(|f| !f.starts_with("application/vnd.aai.asyncapi"));
        let correlation_id = field(m, "correlationId").and_then(|_| {
            let (_, c) = self.resolve(&mloc.child("correlationId"))?;
            s(c, "location")
        });
        // AsyncAPI 3 messages are identified by their key in the channel (which is what the
        // operation's `$ref` ends with); 2.x ones by `name`, else their component key.
        let name = if self.doc.version() == SpecVersion::AsyncApi30 {
            id.map(str::to_string)
                .or(comp_name)
                .or_else(|| s(m, "name"))
        } else {
            s(m, "name").or(comp_name)
        }
        .unwrap_or_else(|| format!("message{index}"));
        let mut key = name.clone();
        let mut n = 1;
        while out.contains_key(&key) {
            n += 1;
            key = format!("{name}#{n}");
        }
        out.insert(
            key,
            Message {
                name,
                title: s(m, "title"),
                summary: s(m, "summary"),
                description: s(m, "description"),
                content_type: s(m, "contentType").or_else(|| default_ct.clone()),
                payload,
                headers: field(m, "headers").map(|_| mloc.child("headers")),
                correlation_id,
                schema_format,
                deprecated: b(m, "deprecated"),
                source: mloc,
            },
        );
    }
}

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

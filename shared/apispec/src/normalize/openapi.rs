//! OpenAPI (2.0, 3.x): path items and webhooks, their operations, parameters, request bodies,
//! responses and callbacks. What only Swagger 2.0 has is in `swagger.rs`.

use crate::model::*;
use crate::{Document, V};

use super::{
    Builder, HTTP_METHODS, b, field, normalize_template, s, security, server_variables, strings,
    template_params,
};

/// At most this many operations are reserved room for up front (the rest grow the vector as usual), so that a
/// hostile document of many large path items cannot make the reservation itself large.
const MAX_OPERATIONS_RESERVED: usize = 1 << 16;

/// A parameter's `in`, outside Swagger 2.0's `body` and `formData`.
fn parameter_in(s: &str) -> Option<ParameterIn> {
    Some(match s {
        "path" => ParameterIn::Path,
        "query" => ParameterIn::Query,
        "header" => ParameterIn::Header,
        "cookie" => ParameterIn::Cookie,
        _ => return None,
    })
}

/// An operation's parameters: path-level ones merged with the operation's, Swagger 2.0 `body` and
/// `formData` ones apart (they become the request body).
struct Parameters<'a> {
    list: Vec<Parameter>,
    body: Option<(Location, V<'a>)>,
    form: Vec<(Location, V<'a>)>,
}

impl<'a> Builder<'a> {
    /// The model of an OpenAPI document: servers, security, schemas, and the operations of every
    /// path and webhook.
    pub(super) fn openapi(&mut self, model: &mut ApiModel) {
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
        model.schemas = self.schemas(&schemas_loc);
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
        add_operations(model, ops);
    }

    /// An OpenAPI 3 `servers` list.
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

    /// The operations of the path item `value` at `loc` (a path template, a webhook name or a
    /// callback expression) into `out`; `callbacks`: follow the operations' callbacks.
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

    /// One operation (`op` at `oloc`) of the path item `item` at `iloc`.
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
        let parameters = self.parameters(path, [(iloc, item), (oloc, op)]);
        let request_body = if self.swagger {
            self.swagger_body(&key, oloc, op, parameters.body, &parameters.form)
        } else {
            field(op, "requestBody").and_then(|bv| self.request_body(oloc.child("requestBody"), bv))
        };
        let responses = self.responses(oloc, op);
        let callbacks = if callbacks {
            self.callbacks(oloc, op)
        } else {
            Map::default()
        };
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
            parameters: parameters.list,
            request_body,
            responses,
            security: security(field(op, "security")),
            servers,
            callbacks,
        }
    }

    /// The parameters of the operation at `path`: `owners` are the path item and the operation,
    /// path-level parameters first, then operation-level ones overriding them on `(in, name)`.
    fn parameters(&self, path: &str, owners: [(&Location, V<'a>); 2]) -> Parameters<'a> {
        let template = template_params(path);
        let mut merged: Map<(&'a str, &'a str), (Location, V<'a>)> = Map::default();
        for (owner_loc, owner) in owners {
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
        let mut out = Parameters {
            list: Vec::new(),
            body: None,
            form: Vec::new(),
        };
        for ((pin, name), (ploc, p)) in merged {
            if self.swagger && pin == "body" {
                out.body = Some((ploc, p));
                continue;
            }
            if self.swagger && pin == "formData" {
                out.form.push((ploc, p));
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
            out.list.push(Parameter {
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
        out
    }

    /// The operation's responses by status (`x-` extensions skipped).
    fn responses(&self, oloc: &Location, op: V<'a>) -> Map<String, Response> {
        let mut responses = Map::default();
        if let Some(rs) = field(op, "responses").and_then(V::as_object) {
            let rs_loc = oloc.child("responses");
            for (status, rv) in rs.iter().filter(|(k, _)| !k.starts_with("x-")) {
                if let Some(r) = self.response(status, rs_loc.child(status), rv, op) {
                    responses.insert(status.to_string(), r);
                }
            }
        }
        responses
    }

    /// The operation's callbacks: each one's path items, read as paths (their own callbacks are
    /// not followed).
    fn callbacks(&mut self, oloc: &Location, op: V<'a>) -> Map<String, Vec<Operation>> {
        let mut cbs = Map::default();
        if let Some(cm) = field(op, "callbacks").and_then(V::as_object) {
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
        cbs
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
}

/// The operations into the model in key order, each moved once: sorting the map afterwards would move the large
/// entries O(n log n) times. The sort is stable, so of two operations with one key the first written still wins.
fn add_operations(model: &mut ApiModel, ops: Vec<Operation>) {
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

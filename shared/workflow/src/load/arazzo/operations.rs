//! Source descriptions and operations: each OpenAPI source read and checked, its security schemes sorted into
//! those a run can apply and those it cannot; a step's target resolved (`operationId`, `operationPath` or
//! `workflowId`) into the model's [`Operation`], with its servers (their origins allowed) and security.

use indexmap::IndexMap;
use serde_json::{Map, Value};
use specpress_apispec as spec;

use super::{Ctx, Scope, Source, str_of};
use crate::load::{MAX_BYTES, Reference, ServerOrigin, ptr, server_origin};
use crate::model::{DeclaredParameter, Operation, ParamIn, SchemeKind, ServerUrl, Target};

/// Reads the `sourceDescriptions`: each one found among the references and valid becomes a [`Source`].
pub(super) fn read_sources(root: &Map<String, Value>, references: &[Reference], ctx: &mut Ctx<'_>) {
    let list = root.get("sourceDescriptions").and_then(Value::as_array);
    for (i, sd) in list.into_iter().flatten().enumerate() {
        let at = ptr("/sourceDescriptions", i);
        let Some(sd) = sd.as_object() else {
            continue;
        };
        let name = str_of(sd, "name").unwrap_or_default();
        let url = str_of(sd, "url").unwrap_or_default();
        ctx.source_names.insert(name.clone());
        let kind = sd.get("type").and_then(Value::as_str).unwrap_or("openapi");
        if kind == "arazzo" {
            ctx.sources_incomplete = true;
            ctx.problems.at(
                ptr(&at, "type"),
                format!("source description '{name}' is an Arazzo document: Arazzo sources are not supported yet; describe its API with its OpenAPI document"),
            );
            continue;
        }
        let found = references
            .iter()
            .find(|r| r.name.as_deref() == Some(name.as_str()))
            .or_else(|| references.iter().find(|r| r.location == url));
        let Some(reference) = found else {
            ctx.sources_incomplete = true;
            ctx.problems.at(
                ptr(&at, "url"),
                format!("source description '{name}' ({url}) was not sent with the document; deploy it with its OpenAPI file as a reference named '{name}'"),
            );
            continue;
        };
        let file = Some(reference.location.clone());
        if reference.content.len() > MAX_BYTES {
            ctx.sources_incomplete = true;
            ctx.problems.push(
                file,
                String::new(),
                format!(
                    "source description '{name}' is {} bytes, more than the {} bytes accepted",
                    reference.content.len(),
                    MAX_BYTES
                ),
            );
            continue;
        }
        match spec::check(&reference.content, &[], &spec::Limits::default()) {
            Err(invalid) => {
                ctx.sources_incomplete = true;
                for d in invalid.diagnostics {
                    let line = d.line.map(|l| format!(" (line {l})")).unwrap_or_default();
                    ctx.problems.push(
                        Some(d.file.unwrap_or_else(|| reference.location.clone())),
                        d.pointer,
                        format!(
                            "source description '{name}' is not a valid OpenAPI document: {}{line}",
                            d.message
                        ),
                    );
                }
            }
            Ok(doc) if doc.version().family() != spec::SpecFamily::OpenApi => {
                ctx.sources_incomplete = true;
                ctx.problems.push(
                    file,
                    String::new(),
                    format!("source description '{name}' is an AsyncAPI document; workflow steps call OpenAPI operations"),
                );
            }
            Ok(doc) => {
                read_schemes(&doc, ctx);
                ctx.sources.push(Source { name, url, doc });
            }
        }
    }
}

fn read_schemes(doc: &spec::Document, ctx: &mut Ctx<'_>) {
    for (name, s) in &doc.model().security_schemes {
        if ctx.schemes.contains_key(name) || ctx.unsupported.contains_key(name) {
            continue;
        }
        let http = s.scheme.as_deref().map(str::to_ascii_lowercase);
        let kind = match (s.scheme_type.as_str(), http.as_deref()) {
            ("apiKey", _) => {
                let location = match s.location.as_deref() {
                    Some("header") => Some(ParamIn::Header),
                    Some("query") => Some(ParamIn::Query),
                    Some("cookie") => Some(ParamIn::Cookie),
                    _ => None,
                };
                match (location, s.name.clone()) {
                    (Some(location), Some(param)) => Ok(SchemeKind::ApiKey { location, param }),
                    _ => Err("an API key with no header, query or cookie name".to_string()),
                }
            }
            ("http", Some("bearer")) | ("oauth2", _) | ("openIdConnect", _) => {
                Ok(SchemeKind::Bearer)
            }
            ("http", Some("basic")) | ("basic", _) => Ok(SchemeKind::Basic),
            ("http", other) => Err(format!("HTTP authentication '{}'", other.unwrap_or(""))),
            (other, _) => Err(format!("'{other}' security")),
        };
        match kind {
            Ok(kind) => {
                ctx.schemes.insert(name.clone(), kind);
            }
            Err(why) => {
                ctx.unsupported.insert(name.clone(), why);
            }
        }
    }
}

/// The step's target; `None` (with a problem) when it cannot be resolved.
pub(super) fn target(
    step: &Map<String, Value>,
    at: &str,
    scope: &Scope<'_>,
    ctx: &mut Ctx<'_>,
) -> Option<Target> {
    let op_id = step.get("operationId").and_then(Value::as_str);
    let op_path = step.get("operationPath").and_then(Value::as_str);
    let wf_id = step.get("workflowId").and_then(Value::as_str);
    let count = [op_id.is_some(), op_path.is_some(), wf_id.is_some()]
        .iter()
        .filter(|x| **x)
        .count();
    if count != 1 {
        ctx.problems.at(
            at,
            "a step names exactly one of `operationId`, `operationPath` and `workflowId`",
        );
        return None;
    }
    if let Some(wf) = wf_id {
        let wf_at = ptr(at, "workflowId");
        if wf.starts_with("$sourceDescriptions.") {
            ctx.problems.at(
                wf_at,
                format!("'{wf}' names a workflow of another Arazzo document: not supported yet"),
            );
            return None;
        }
        if !ctx.workflow_ids.contains(wf) {
            ctx.problems.at(
                wf_at,
                format!("the step runs workflow '{wf}', which this document does not have"),
            );
            return None;
        }
        if wf == scope.workflow_id {
            ctx.problems.at(
                wf_at,
                format!("the step runs its own workflow '{wf}': a workflow cannot call itself"),
            );
            return None;
        }
        return Some(Target::Workflow {
            workflow_id: wf.to_string(),
        });
    }
    let found = if let Some(id) = op_id {
        find_by_id(id, &ptr(at, "operationId"), ctx)
    } else {
        find_by_path(op_path.unwrap_or_default(), &ptr(at, "operationPath"), ctx)
    };
    let (source, op) = found?;
    let operation = resolve(source, op, op_id, at, ctx);
    Some(Target::Operation(Box::new(operation)))
}

/// `operationId`, bare or `$sourceDescriptions.<name>.<operationId>`: (source index, operation).
fn find_by_id(id: &str, at: &str, ctx: &mut Ctx<'_>) -> Option<(usize, spec::Operation)> {
    let with_ids = |src: &Source, op_id: &str| {
        src.doc
            .model()
            .operations
            .values()
            .find(|op| {
                op.key.kind == spec::OperationKind::Path
                    && op.operation_id.as_deref() == Some(op_id)
            })
            .cloned()
    };
    if let Some(rest) = id.strip_prefix("$sourceDescriptions.") {
        let Some((name, op_id)) = rest.split_once('.') else {
            ctx.problems.at(
                at,
                format!("'{id}' should read `$sourceDescriptions.<name>.<operationId>`"),
            );
            return None;
        };
        if !ctx.source_names.contains(name) {
            ctx.problems.at(
                at,
                format!(
                    "'{id}' names source description '{name}', which this document does not declare"
                ),
            );
            return None;
        }
        let i = ctx.sources.iter().position(|s| s.name == name)?;
        let found = with_ids(&ctx.sources[i], op_id);
        if found.is_none() {
            ctx.problems.at(
                at,
                format!("source description '{name}' has no operation with operationId '{op_id}'"),
            );
        }
        return found.map(|op| (i, op));
    }
    let matches: Vec<(usize, spec::Operation)> = ctx
        .sources
        .iter()
        .enumerate()
        .filter_map(|(i, s)| with_ids(s, id).map(|op| (i, op)))
        .collect();
    match matches.len() {
        0 => {
            if !ctx.sources_incomplete {
                let names: Vec<&str> = ctx.sources.iter().map(|s| s.name.as_str()).collect();
                ctx.problems.at(
                    at,
                    format!(
                        "no operation has operationId '{id}' in the source descriptions ({})",
                        names.join(", ")
                    ),
                );
            }
            None
        }
        1 => matches.into_iter().next(),
        _ => {
            let names: Vec<&str> = matches
                .iter()
                .filter_map(|(i, _)| ctx.sources.get(*i).map(|s| s.name.as_str()))
                .collect();
            ctx.problems.at(
                at,
                format!(
                    "operationId '{id}' is in several source descriptions ({}); write `$sourceDescriptions.<name>.{id}`",
                    names.join(", ")
                ),
            );
            None
        }
    }
}

/// `operationPath`: `{$sourceDescriptions.<name>.url}#/paths/<escaped path>/<method>` (or the source's url
/// written out before `#`).
fn find_by_path(text: &str, at: &str, ctx: &mut Ctx<'_>) -> Option<(usize, spec::Operation)> {
    let shape =
        "should read `{$sourceDescriptions.<name>.url}#/paths/<path with / as ~1>/<method>`";
    let Some((left, fragment)) = text.split_once('#') else {
        ctx.problems.at(at, format!("'{text}' {shape}"));
        return None;
    };
    let name = left
        .strip_prefix("{$sourceDescriptions.")
        .and_then(|r| r.strip_suffix(".url}"));
    let source = match name {
        Some(name) => {
            if !ctx.source_names.contains(name) {
                ctx.problems.at(
                    at,
                    format!("'{text}' names source description '{name}', which this document does not declare"),
                );
                return None;
            }
            ctx.sources.iter().position(|s| s.name == name)?
        }
        None => match ctx.sources.iter().position(|s| s.url == left) {
            Some(i) => i,
            None => {
                if !ctx.sources_incomplete {
                    ctx.problems.at(at, format!("'{text}' {shape}"));
                }
                return None;
            }
        },
    };
    let decoded = percent_encoding::percent_decode_str(fragment).decode_utf8_lossy();
    let tokens: Vec<String> = decoded
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let (path, method) = match tokens.as_slice() {
        [paths, path, method] if paths == "paths" => (path.clone(), method.to_ascii_uppercase()),
        _ => {
            ctx.problems.at(at, format!("'{text}' {shape}"));
            return None;
        }
    };
    let src = &ctx.sources[source];
    let found = src
        .doc
        .model()
        .operations
        .values()
        .find(|op| {
            op.key.kind == spec::OperationKind::Path && op.path == path && op.key.method == method
        })
        .cloned();
    if found.is_none() {
        ctx.problems.at(
            at,
            format!(
                "source description '{}' has no operation {method} {path}",
                src.name
            ),
        );
    }
    found.map(|op| (source, op))
}

/// The model's operation for `op` of `ctx.sources[source]`, its servers' origins added to the allowed ones.
fn resolve(
    source: usize,
    op: spec::Operation,
    op_id: Option<&str>,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Operation {
    let src = &ctx.sources[source];
    let model = src.doc.model();
    let mut servers: Vec<ServerUrl> = Vec::new();
    let mut unusable: Vec<String> = Vec::new();
    let mut refused = false;
    for server in op.servers.iter().flatten().chain(model.servers.iter()) {
        let variables: IndexMap<String, String> = server
            .variables
            .iter()
            .map(|(k, v)| (k.clone(), v.default.clone().unwrap_or_default()))
            .collect();
        let mut url = server.url.clone();
        for (k, v) in &variables {
            url = url.replace(&format!("{{{k}}}"), v);
        }
        if servers.iter().any(|s| s.url == server.url) {
            continue;
        }
        match server_origin(&url) {
            ServerOrigin::Origin(o) => {
                ctx.origins.insert(o);
                servers.push(ServerUrl {
                    url: server.url.clone(),
                    variables,
                });
            }
            ServerOrigin::NotAbsolute => unusable.push(server.url.clone()),
            // A server a run would refuse is refused now, once per source and server.
            ServerOrigin::Refused(why) => {
                refused = true;
                if ctx.refused_servers.insert((source, url.clone())) {
                    ctx.problems.at(
                        at,
                        format!(
                            "server '{url}' of source description '{}' cannot be called by a run: {why}",
                            src.name
                        ),
                    );
                }
            }
        }
    }
    let label = format!(
        "{} {} of source description '{}'",
        op.key.method, op.path, src.name
    );
    let first_time = ctx
        .judged
        .insert((source, op.key.method.clone(), op.path.clone()));
    // A server refused is reported once, above; an operation left without one for that reason alone says no more.
    if servers.is_empty() && first_time && !(refused && unusable.is_empty()) {
        let written = if unusable.is_empty() {
            "it declares none".to_string()
        } else {
            format!("it declares {}", unusable.join(", "))
        };
        ctx.problems.at(
            at,
            format!("operation {label} has no absolute http(s) server URL ({written}); a run could not send its request"),
        );
    }
    let security: Vec<Vec<String>> = op
        .security
        .as_ref()
        .or(model.security.as_ref())
        .map(|alternatives| {
            alternatives
                .iter()
                .map(|req| req.keys().cloned().collect())
                .collect()
        })
        .unwrap_or_default();
    let usable = |alt: &Vec<String>| alt.iter().all(|n| ctx.schemes.contains_key(n));
    if first_time && !security.is_empty() && !security.iter().any(usable) {
        let why: Vec<String> = security
            .iter()
            .flatten()
            .filter(|n| !ctx.schemes.contains_key(*n))
            .map(|n| match ctx.unsupported.get(n) {
                Some(why) => format!("'{n}' ({why})"),
                None => format!("'{n}' (not declared)"),
            })
            .collect();
        ctx.problems.at(
            at,
            format!(
                "operation {label} requires security a run cannot apply: {}; supported are API keys, bearer tokens (HTTP bearer, OAuth 2, OpenID Connect) and HTTP basic",
                why.join(", ")
            ),
        );
    }
    Operation {
        source: Some(src.name.clone()),
        // The operation's own id (without a `$sourceDescriptions.<name>.` prefix) when the step named it by id.
        operation_id: op_id.and(op.operation_id.clone()),
        method: op.key.method.clone(),
        path: op.path.clone(),
        servers,
        parameters: op
            .parameters
            .iter()
            .map(|p| DeclaredParameter {
                name: p.name.clone(),
                location: param_in(p.location),
                required: p.required,
            })
            .collect(),
        body_media_types: op
            .request_body
            .as_ref()
            .map(|b| b.content.keys().cloned().collect())
            .unwrap_or_default(),
        security,
    }
}

fn param_in(location: spec::ParameterIn) -> ParamIn {
    match location {
        spec::ParameterIn::Path => ParamIn::Path,
        spec::ParameterIn::Query => ParamIn::Query,
        spec::ParameterIn::Header => ParamIn::Header,
        spec::ParameterIn::Cookie => ParamIn::Cookie,
    }
}

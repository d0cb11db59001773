//! Arazzo 1.0.x: what its schema does not say, and the model.
//!
//! Source descriptions: each `openapi` one must be among the references (matched by `name`, else by `location`
//! equal to its `url`) and be a valid OpenAPI document (the spec engine's `check`, its diagnostics reported in
//! that file); `arazzo` sources are refused (not supported yet). Steps: exactly one of `operationId` (bare and
//! unambiguous, or `$sourceDescriptions.<name>.<operationId>`), `operationPath`
//! (`{$sourceDescriptions.<name>.url}#/paths/<path>/<method>`) or `workflowId` (a workflow of this document, not
//! the step's own); the operation is resolved into [`Operation`] (method, path template, servers with their
//! variables' defaults, declared parameters, body media types, security alternatives). Parameters without `in`
//! are placed by the operation's declaration. Expressions, templates and criteria parse, and name existing steps
//! and workflows; `goto` targets exist; ids are unique; no cycle through `dependsOn` and workflow steps. Reusable
//! `components` (`$components.parameters.x`, `$components.successActions.x`, `$components.failureActions.x`,
//! `$components.inputs.x`) are inlined.
//!
//! This file reads the document's workflows and steps into the model; [`operations`] reads the source
//! descriptions and resolves a step's operation (servers, security), [`checks`] holds the checks of expressions,
//! criteria, actions (`goto` targets) and workflow cycles.

mod checks;
mod operations;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use indexmap::IndexMap;
use serde_json::{Map, Value};
use specpress_apispec as spec;

use super::{Problems, Reference, check_tool_name, ptr};
use crate::model::{
    Format, Operation, ParamIn, SchemeKind, SecurityScheme, Step, StepBody, StepParameter, Target,
    Workflow, WorkflowSet,
};
use checks::{actions, check_cycles, criteria};
use operations::{read_sources, target};

/// A source description that was found and is a valid OpenAPI document.
struct Source {
    name: String,
    /// Its `url` in the workflow document.
    url: String,
    doc: spec::Document,
}

/// What the whole document shares while its workflows are read.
struct Ctx<'a> {
    problems: &'a mut Problems,
    sources: Vec<Source>,
    /// Some source is missing or invalid: operations that cannot be found are not reported again.
    sources_incomplete: bool,
    source_names: HashSet<String>,
    workflow_ids: HashSet<String>,
    components: Map<String, Value>,
    origins: BTreeSet<String>,
    /// Schemes a run can apply, by name (first source wins on a name clash).
    schemes: BTreeMap<String, SchemeKind>,
    /// Schemes it cannot (name -> why), an error only when a step needs one.
    unsupported: BTreeMap<String, String>,
    /// Operations (source index, method, path) whose servers and security were judged: each is reported once.
    judged: HashSet<(usize, String, String)>,
    /// Servers (source index, URL) a run would refuse, reported once each.
    refused_servers: HashSet<(usize, String)>,
}

pub(super) fn build(
    doc: &Value,
    references: &[Reference],
    problems: &mut Problems,
) -> Option<WorkflowSet> {
    let root = doc.as_object()?;
    let version = root.get("arazzo")?.as_str()?.to_string();
    let info = root.get("info").and_then(Value::as_object);
    let title = info
        .and_then(|i| i.get("title"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let description = info
        .and_then(|i| i.get("description").or_else(|| i.get("summary")))
        .and_then(Value::as_str)
        .map(str::to_string);
    let workflows_json: Vec<&Map<String, Value>> = root
        .get("workflows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .collect();
    let mut ctx = Ctx {
        problems,
        sources: Vec::new(),
        sources_incomplete: false,
        source_names: HashSet::new(),
        workflow_ids: workflows_json
            .iter()
            .filter_map(|w| w.get("workflowId").and_then(Value::as_str))
            .map(str::to_string)
            .collect(),
        components: root
            .get("components")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        origins: BTreeSet::new(),
        schemes: BTreeMap::new(),
        unsupported: BTreeMap::new(),
        judged: HashSet::new(),
        refused_servers: HashSet::new(),
    };
    read_sources(root, references, &mut ctx);

    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, w) in workflows_json.iter().enumerate() {
        let id = w
            .get("workflowId")
            .and_then(Value::as_str)
            .unwrap_or_default();
        check_tool_name(
            id,
            ptr(&ptr("/workflows", i), "workflowId"),
            "workflow",
            ctx.problems,
        );
        if let Some(first) = seen.insert(id, i) {
            ctx.problems.at(
                ptr(&ptr("/workflows", i), "workflowId"),
                format!("workflow id '{id}' is already used by workflow {first}; workflow ids must be unique"),
            );
        }
    }
    let mut workflows = Vec::new();
    for (i, w) in workflows_json.iter().enumerate() {
        workflows.push(build_workflow(w, &ptr("/workflows", i), &mut ctx));
    }
    check_cycles(&workflows, ctx.problems);
    Some(WorkflowSet {
        format: Format::Arazzo { version },
        title,
        description,
        workflows,
        allowed_origins: ctx.origins.into_iter().collect(),
        schemes: ctx
            .schemes
            .into_iter()
            .map(|(name, kind)| SecurityScheme { name, kind })
            .collect(),
    })
}

fn str_of(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_string)
}

/// What expressions of one workflow may name.
struct Scope<'a> {
    workflow_id: &'a str,
    step_ids: &'a HashSet<String>,
}

fn build_workflow(w: &Map<String, Value>, at: &str, ctx: &mut Ctx<'_>) -> Workflow {
    let id = str_of(w, "workflowId").unwrap_or_default();
    let steps_json: Vec<&Map<String, Value>> = w
        .get("steps")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .collect();
    let step_ids: HashSet<String> = steps_json
        .iter()
        .filter_map(|s| str_of(s, "stepId"))
        .collect();
    let scope = Scope {
        workflow_id: &id,
        step_ids: &step_ids,
    };

    let mut inputs = w
        .get("inputs")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({"type": "object"}));
    let inputs_ref = inputs
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/components/inputs/"))
        .map(|n| format!("$components.inputs.{n}"))
        .or_else(|| str_of(inputs.as_object().unwrap_or(&Map::new()), "reference"));
    if let Some(reference) = inputs_ref
        && let Some(found) = ctx.component(&reference, "inputs", &ptr(at, "inputs"))
    {
        inputs = found;
    }

    let mut depends_on = Vec::new();
    for (k, dep) in w
        .get("dependsOn")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let Some(dep) = dep.as_str() else {
            continue;
        };
        let dep_at = ptr(&ptr(at, "dependsOn"), k);
        if dep.starts_with("$sourceDescriptions.") {
            ctx.problems.at(
                dep_at,
                format!("'{dep}' names a workflow of another Arazzo document: not supported yet"),
            );
        } else if !ctx.workflow_ids.contains(dep) {
            ctx.problems.at(
                dep_at,
                format!("dependsOn names workflow '{dep}', which this document does not have"),
            );
        } else {
            depends_on.push(dep.to_string());
        }
    }

    let shared_params: Vec<&Value> = w
        .get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut steps = Vec::new();
    for (j, step) in steps_json.iter().enumerate() {
        let step_at = ptr(&ptr(at, "steps"), j);
        let sid = step
            .get("stepId")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if let Some(first) = seen.insert(sid, j) {
            ctx.problems.at(
                ptr(&step_at, "stepId"),
                format!("step id '{sid}' is already used by step {first} of workflow '{id}'; step ids must be unique in a workflow"),
            );
        }
        steps.push(build_step(
            step,
            &step_at,
            &shared_params,
            &ptr(at, "parameters"),
            &scope,
            ctx,
        ));
    }

    let success_actions = actions(
        w.get("successActions"),
        &ptr(at, "successActions"),
        "successActions",
        &scope,
        ctx,
    );
    let failure_actions = actions(
        w.get("failureActions"),
        &ptr(at, "failureActions"),
        "failureActions",
        &scope,
        ctx,
    );
    let outputs = outputs(w.get("outputs"), &ptr(at, "outputs"), &scope, ctx);
    Workflow {
        id: id.clone(),
        summary: str_of(w, "summary"),
        description: str_of(w, "description"),
        inputs,
        outputs,
        depends_on,
        steps,
        success_actions,
        failure_actions,
    }
}

fn outputs(
    value: Option<&Value>,
    at: &str,
    scope: &Scope<'_>,
    ctx: &mut Ctx<'_>,
) -> IndexMap<String, String> {
    let mut out = IndexMap::new();
    for (name, v) in value.and_then(Value::as_object).into_iter().flatten() {
        let Some(s) = v.as_str() else {
            continue;
        };
        ctx.expression(s, &ptr(at, name), scope);
        out.insert(name.clone(), s.to_string());
    }
    out
}

fn build_step(
    step: &Map<String, Value>,
    at: &str,
    shared_params: &[&Value],
    shared_at: &str,
    scope: &Scope<'_>,
    ctx: &mut Ctx<'_>,
) -> Step {
    let id = str_of(step, "stepId").unwrap_or_default();
    let target = target(step, at, scope, ctx);
    let operation = match &target {
        Some(Target::Operation(op)) => Some(op.as_ref()),
        _ => None,
    };

    let mut parameters: Vec<StepParameter> = Vec::new();
    let own = step.get("parameters").and_then(Value::as_array);
    for (k, p) in own.into_iter().flatten().enumerate() {
        let p_at = ptr(&ptr(at, "parameters"), k);
        if let Some(param) = parameter(p, &p_at, operation, true, scope, ctx) {
            parameters.push(param);
        }
    }
    // Workflow-level parameters apply to every operation step that does not set the same one itself.
    if target.is_some() && operation.is_some() {
        for (k, p) in shared_params.iter().enumerate() {
            let p_at = ptr(shared_at, k);
            if let Some(param) = parameter(p, &p_at, operation, false, scope, ctx)
                && !parameters
                    .iter()
                    .any(|q| q.name == param.name && q.location == param.location)
            {
                parameters.push(param);
            }
        }
    }

    let body = step.get("requestBody").and_then(Value::as_object).map(|b| {
        let body_at = ptr(at, "requestBody");
        let payload = b.get("payload").cloned().unwrap_or(Value::Null);
        ctx.value(&payload, &ptr(&body_at, "payload"), scope);
        let mut replacements = Vec::new();
        let list = b.get("replacements").and_then(Value::as_array);
        for (k, r) in list.into_iter().flatten().enumerate() {
            let r_at = ptr(&ptr(&body_at, "replacements"), k);
            let target = r.get("target").and_then(Value::as_str).unwrap_or_default();
            let value = r.get("value").cloned().unwrap_or(Value::Null);
            ctx.value(&value, &ptr(&r_at, "value"), scope);
            replacements.push((target.to_string(), value));
        }
        StepBody {
            content_type: str_of(b, "contentType"),
            payload,
            replacements,
        }
    });
    if body.is_some() && matches!(target, Some(Target::Workflow { .. })) {
        ctx.problems.at(
            ptr(at, "requestBody"),
            "a step that runs a workflow sends no request body; pass values as parameters",
        );
    }

    let success_criteria = criteria(
        step.get("successCriteria"),
        &ptr(at, "successCriteria"),
        scope,
        ctx,
    );
    let on_success = actions(
        step.get("onSuccess"),
        &ptr(at, "onSuccess"),
        "successActions",
        scope,
        ctx,
    );
    let on_failure = actions(
        step.get("onFailure"),
        &ptr(at, "onFailure"),
        "failureActions",
        scope,
        ctx,
    );
    let outputs = outputs(step.get("outputs"), &ptr(at, "outputs"), scope, ctx);
    Step {
        id,
        description: str_of(step, "description"),
        target: target.unwrap_or(Target::Workflow {
            workflow_id: String::new(),
        }),
        parameters,
        body,
        success_criteria,
        on_success,
        on_failure,
        outputs,
    }
}

/// One parameter of a step (or, `own` false, of its workflow), reusable ones inlined.
fn parameter(
    p: &Value,
    at: &str,
    operation: Option<&Operation>,
    own: bool,
    scope: &Scope<'_>,
    ctx: &mut Ctx<'_>,
) -> Option<StepParameter> {
    let mut p = p.as_object()?.clone();
    if let Some(reference) = p
        .get("reference")
        .and_then(Value::as_str)
        .map(str::to_string)
    {
        let found = ctx.component(&reference, "parameters", &ptr(at, "reference"))?;
        let mut merged = found.as_object().cloned().unwrap_or_default();
        if let Some(v) = p.get("value") {
            merged.insert("value".to_string(), v.clone());
        }
        p = merged;
    }
    let name = str_of(&p, "name").unwrap_or_default();
    let value = p.get("value").cloned().unwrap_or(Value::Null);
    ctx.value(&value, &ptr(at, "value"), scope);
    let written = p.get("in").and_then(Value::as_str);
    let Some(operation) = operation else {
        // A step that runs a workflow: the parameters are its inputs.
        return Some(StepParameter {
            name,
            location: None,
            value,
        });
    };
    let location = match written {
        Some("path") => Some(ParamIn::Path),
        Some("query") => Some(ParamIn::Query),
        Some("header") => Some(ParamIn::Header),
        Some("cookie") => Some(ParamIn::Cookie),
        Some(other) => {
            ctx.problems.at(
                ptr(at, "in"),
                format!("parameter location '{other}' is not one of path, query, header, cookie"),
            );
            return None;
        }
        None => operation
            .parameters
            .iter()
            .find(|d| d.name == name)
            .map(|d| d.location),
    };
    match location {
        Some(location) => Some(StepParameter {
            name,
            location: Some(location),
            value,
        }),
        None if own => {
            ctx.problems.at(
                ptr(at, "name"),
                format!(
                    "operation {} {} declares no parameter '{name}'; say where it goes with `in`",
                    operation.method, operation.path
                ),
            );
            None
        }
        // A workflow-level parameter the operation does not declare is for other steps.
        None => None,
    }
}

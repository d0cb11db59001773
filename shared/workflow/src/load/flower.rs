//! Flower 0.1 (Bump.sh's workflow format): what its schema does not say, and the model.
//!
//! A flow is a workflow; a step is one HTTP request written out in full (`method`, absolute `url`, `headers`,
//! `query`, JSON `body`), so there is no source description to resolve. What is checked: step ids unique per flow
//! and flow ids unique; each step URL is an absolute http(s) URL whose scheme and host are literal (templates only
//! after them), which gives the origins a run may reach; every template and expression parses and names steps of
//! its flow; `goto` actions name a step of the flow; `when` conditions parse as simple criteria.

use std::collections::{BTreeSet, HashMap, HashSet};

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::{
    Problems, ServerOrigin, check_tool_name, expressions_in, ptr, server_origin, strings_in,
};
use crate::model::{
    Action, ActionKind, Criterion, CriterionKind, Format, Operation, ParamIn, Step, StepBody,
    StepParameter, Target, Workflow, WorkflowSet,
};

/// Default of a retry action's `wait` (seconds) and `max_retry`, as the Flower schema says.
const RETRY_DEFAULT: u64 = 5;

pub(super) fn build(doc: &Value, problems: &mut Problems) -> Option<WorkflowSet> {
    let root = doc.as_object()?;
    let version = root.get("flower")?.as_str()?.to_string();
    let id = str_of(root, "id").unwrap_or_default();
    let title = str_of(root, "title").unwrap_or_else(|| id.clone());
    let mut origins = BTreeSet::new();
    let mut workflows = Vec::new();
    let mut seen_flows: HashMap<String, usize> = HashMap::new();
    let flows = root.get("flows").and_then(Value::as_array);
    for (i, flow) in flows.into_iter().flatten().enumerate() {
        let at = ptr("/flows", i);
        let Some(flow) = flow.as_object() else {
            continue;
        };
        let flow_id = str_of(flow, "id").unwrap_or_default();
        check_tool_name(&flow_id, ptr(&at, "id"), "flow", problems);
        if let Some(first) = seen_flows.insert(flow_id.clone(), i) {
            problems.at(
                ptr(&at, "id"),
                format!(
                    "flow id '{flow_id}' is already used by flow {first}; flow ids must be unique"
                ),
            );
        }
        workflows.push(build_flow(flow, &flow_id, &at, &mut origins, problems));
    }
    Some(WorkflowSet {
        format: Format::Flower { version },
        title,
        description: str_of(root, "description"),
        workflows,
        allowed_origins: origins.into_iter().collect(),
        schemes: Vec::new(),
    })
}

fn str_of(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_string)
}

fn build_flow(
    flow: &Map<String, Value>,
    flow_id: &str,
    at: &str,
    origins: &mut BTreeSet<String>,
    problems: &mut Problems,
) -> Workflow {
    let steps_json: Vec<&Map<String, Value>> = flow
        .get("steps")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .collect();
    let step_ids: HashSet<&str> = steps_json
        .iter()
        .filter_map(|s| s.get("id").and_then(Value::as_str))
        .collect();
    let checker = Refs {
        flow_id,
        step_ids: &step_ids,
    };
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut steps = Vec::new();
    for (j, step) in steps_json.iter().enumerate() {
        let step_at = ptr(&ptr(at, "steps"), j);
        let id = step.get("id").and_then(Value::as_str).unwrap_or_default();
        if let Some(first) = seen.insert(id, j) {
            problems.at(
                ptr(&step_at, "id"),
                format!("step id '{id}' is already used by step {first} of flow '{flow_id}'; step ids must be unique in a flow"),
            );
        }
        steps.push(build_step(step, id, &step_at, &checker, origins, problems));
    }
    let outputs = outputs(flow.get("outputs"), &ptr(at, "outputs"), &checker, problems);
    Workflow {
        id: flow_id.to_string(),
        summary: None,
        description: str_of(flow, "description"),
        inputs: flow
            .get("inputs")
            .cloned()
            .unwrap_or_else(|| serde_json::json!({"type": "object"})),
        outputs,
        depends_on: Vec::new(),
        steps,
        success_actions: Vec::new(),
        failure_actions: Vec::new(),
    }
}

/// What expressions of a flow may name.
struct Refs<'a> {
    flow_id: &'a str,
    step_ids: &'a HashSet<&'a str>,
}

impl Refs<'_> {
    /// Checks that `value` parses (expressions and templates) and names steps of this flow.
    fn value(&self, value: &Value, at: &str, problems: &mut Problems) {
        if let Err(e) = crate::expr::check_value(value) {
            problems.at(at, format!("invalid runtime expression: {e}"));
            return;
        }
        for (p, s) in strings_in(value, at) {
            for text in expressions_in(s) {
                let Ok(expr) = crate::expr::parse(text) else {
                    continue;
                };
                if let Some(step) = expr.step_id()
                    && !self.step_ids.contains(step)
                {
                    problems.at(
                        p.clone(),
                        format!(
                            "'{text}' names step '{step}', which flow '{}' does not have",
                            self.flow_id
                        ),
                    );
                }
                if let Some(w) = expr.workflow_id() {
                    problems.at(
                        p.clone(),
                        format!("'{text}' names workflow '{w}': Flower flows cannot read other flows' outputs"),
                    );
                }
            }
        }
    }
}

fn outputs(
    value: Option<&Value>,
    at: &str,
    refs: &Refs<'_>,
    problems: &mut Problems,
) -> IndexMap<String, String> {
    let mut out = IndexMap::new();
    for (name, v) in value.and_then(Value::as_object).into_iter().flatten() {
        let Some(s) = v.as_str() else {
            continue;
        };
        refs.value(v, &ptr(at, name), problems);
        out.insert(name.clone(), s.to_string());
    }
    out
}

fn build_step(
    step: &Map<String, Value>,
    id: &str,
    at: &str,
    refs: &Refs<'_>,
    origins: &mut BTreeSet<String>,
    problems: &mut Problems,
) -> Step {
    let request = step.get("request").and_then(Value::as_object);
    let req_at = ptr(at, "request");
    let method = request
        .and_then(|r| r.get("method"))
        .and_then(Value::as_str)
        .unwrap_or("GET")
        .to_ascii_uppercase();
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_alphabetic()) {
        problems.at(
            ptr(&req_at, "method"),
            format!("'{method}' is not an HTTP method"),
        );
    }
    let url = request
        .and_then(|r| r.get("url"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let url_at = ptr(&req_at, "url");
    if url.is_empty() {
        problems.at(
            url_at,
            "the step's request has no `url`; write the absolute URL to call",
        );
    } else {
        match server_origin(&url) {
            ServerOrigin::Origin(o) => {
                origins.insert(o);
                refs.value(&Value::String(url.clone()), &url_at, problems);
            }
            ServerOrigin::NotAbsolute => problems.at(
                url_at,
                format!("'{url}' is not an absolute http(s) URL with a literal scheme and host; templates (`{{$inputs.x}}`) may only follow the host, so that the origins a run may reach are known at deploy time"),
            ),
            ServerOrigin::Refused(why) => problems.at(
                url_at,
                format!("'{url}' cannot be called by a run: {why}"),
            ),
        }
    }
    let mut parameters = Vec::new();
    for (key, location) in [("headers", ParamIn::Header), ("query", ParamIn::Query)] {
        let map_at = ptr(&req_at, key);
        for (name, value) in request
            .and_then(|r| r.get(key))
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            refs.value(value, &ptr(&map_at, name), problems);
            parameters.push(StepParameter {
                name: name.clone(),
                location: Some(location),
                value: value.clone(),
            });
        }
    }
    let body = request
        .and_then(|r| r.get("body"))
        .and_then(Value::as_object)
        .map(|b| {
            let payload = Value::Object(b.clone());
            refs.value(&payload, &ptr(&req_at, "body"), problems);
            StepBody {
                content_type: Some("application/json".to_string()),
                payload,
                replacements: Vec::new(),
            }
        });
    let (on_success, on_failure) = step_actions(step, at, refs, problems);
    let outputs = outputs(step.get("outputs"), &ptr(at, "outputs"), refs, problems);
    Step {
        id: id.to_string(),
        description: str_of(step, "description"),
        target: Target::Operation(Box::new(Operation {
            source: None,
            operation_id: None,
            method,
            path: url,
            servers: Vec::new(),
            parameters: Vec::new(),
            body_media_types: if body.is_some() {
                vec!["application/json".to_string()]
            } else {
                Vec::new()
            },
            security: Vec::new(),
        })),
        parameters,
        body,
        success_criteria: Vec::new(),
        on_success,
        on_failure,
        outputs,
    }
}

/// A step's `actions`: `next`, `end` and `goto` ones apply on success, `retry` ones on failure.
fn step_actions(
    step: &Map<String, Value>,
    at: &str,
    refs: &Refs<'_>,
    problems: &mut Problems,
) -> (Vec<Action>, Vec<Action>) {
    let mut on_success = Vec::new();
    let mut on_failure = Vec::new();
    let actions = step.get("actions").and_then(Value::as_array);
    for (k, action) in actions.into_iter().flatten().enumerate() {
        let Some(action) = action.as_object() else {
            continue;
        };
        let action_at = ptr(&ptr(at, "actions"), k);
        let mut criteria = Vec::new();
        if let Some(when) = action.get("when").and_then(Value::as_str) {
            let criterion = Criterion {
                context: None,
                condition: when.to_string(),
                kind: CriterionKind::Simple,
            };
            if let Err(m) = crate::criteria::check(&criterion) {
                problems.at(ptr(&action_at, "when"), format!("invalid condition: {m}"));
            }
            criteria.push(criterion);
        }
        let name = str_of(action, "id");
        let kind = match action.get("do").and_then(Value::as_str).unwrap_or_default() {
            "next" => ActionKind::Next,
            "end" => ActionKind::End,
            "goto" => {
                let target = action
                    .get("step")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if !refs.step_ids.contains(target) {
                    problems.at(
                        ptr(&action_at, "step"),
                        format!(
                            "goto names step '{target}', which flow '{}' does not have",
                            refs.flow_id
                        ),
                    );
                }
                ActionKind::Goto {
                    step_id: Some(target.to_string()),
                    workflow_id: None,
                }
            }
            "retry" => {
                let wait = count(action, "wait", &action_at, problems);
                let limit = count(action, "max_retry", &action_at, problems);
                on_failure.push(Action {
                    name,
                    kind: ActionKind::Retry {
                        after_secs: wait as f64,
                        limit: u32::try_from(limit).unwrap_or(u32::MAX),
                    },
                    criteria,
                });
                continue;
            }
            other => {
                problems.at(
                    ptr(&action_at, "do"),
                    format!(
                        "unknown action '{other}'; Flower actions are next, end, goto and retry"
                    ),
                );
                continue;
            }
        };
        on_success.push(Action {
            name,
            kind,
            criteria,
        });
    }
    (on_success, on_failure)
}

/// A retry's non-negative integer field, [`RETRY_DEFAULT`] when absent.
fn count(action: &Map<String, Value>, key: &str, at: &str, problems: &mut Problems) -> u64 {
    match action.get(key) {
        None => RETRY_DEFAULT,
        Some(v) => match v.as_u64() {
            Some(n) => n,
            None => {
                problems.at(
                    ptr(at, key),
                    format!("`{key}` must be a non-negative integer"),
                );
                RETRY_DEFAULT
            }
        },
    }
}

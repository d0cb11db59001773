//! What the schema cannot check: runtime expressions and templates parse and name existing steps and workflows,
//! reusable components exist, criteria are valid, actions are well-formed (`goto` targets exist, retry values are
//! in range), and no workflows call one another in a cycle.

use std::collections::HashMap;

use serde_json::Value;

use super::{Ctx, Scope, str_of};
use crate::load::{Problems, expressions_in, ptr, strings_in};
use crate::model::{Action, ActionKind, Criterion, CriterionKind, Target, Workflow};

impl Ctx<'_> {
    /// Checks that `value` parses (expressions and templates) and that what it names exists.
    pub(super) fn value(&mut self, value: &Value, at: &str, scope: &Scope<'_>) {
        if let Err(e) = crate::expr::check_value(value) {
            self.problems
                .at(at, format!("invalid runtime expression: {e}"));
            return;
        }
        for (p, s) in strings_in(value, at) {
            for text in expressions_in(s) {
                if let Ok(expr) = crate::expr::parse(text) {
                    self.names(&expr, text, &p, scope);
                }
            }
        }
    }

    /// Checks a string that must be exactly one runtime expression.
    pub(super) fn expression(&mut self, text: &str, at: &str, scope: &Scope<'_>) {
        match crate::expr::parse(text) {
            Ok(expr) => self.names(&expr, text, at, scope),
            Err(e) => self
                .problems
                .at(at, format!("'{text}' is not a runtime expression: {e}")),
        }
    }

    fn names(&mut self, expr: &crate::expr::Expr, text: &str, at: &str, scope: &Scope<'_>) {
        if let Some(step) = expr.step_id()
            && !scope.step_ids.contains(step)
        {
            self.problems.at(
                at,
                format!(
                    "'{text}' names step '{step}', which workflow '{}' does not have",
                    scope.workflow_id
                ),
            );
        }
        if let Some(w) = expr.workflow_id()
            && !self.workflow_ids.contains(w)
        {
            self.problems.at(
                at,
                format!("'{text}' names workflow '{w}', which this document does not have"),
            );
        }
    }

    /// `$components.<kind>.<name>` from the document's components.
    pub(super) fn component(&mut self, reference: &str, kind: &str, at: &str) -> Option<Value> {
        let name = reference
            .strip_prefix("$components.")
            .and_then(|r| r.strip_prefix(kind))
            .and_then(|r| r.strip_prefix('.'));
        let found = name.and_then(|n| {
            self.components
                .get(kind)
                .and_then(Value::as_object)
                .and_then(|m| m.get(n))
                .cloned()
        });
        if found.is_none() {
            self.problems.at(
                at,
                format!("'{reference}' names no entry of `components.{kind}`"),
            );
        }
        found
    }
}

/// `successCriteria` or an action's `criteria`: each criterion's type, context and condition checked.
pub(super) fn criteria(
    value: Option<&Value>,
    at: &str,
    scope: &Scope<'_>,
    ctx: &mut Ctx<'_>,
) -> Vec<Criterion> {
    let mut out = Vec::new();
    for (k, c) in value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let c_at = ptr(at, k);
        let Some(c) = c.as_object() else {
            continue;
        };
        let kind_name = match c.get("type") {
            None => Some("simple"),
            Some(Value::String(s)) => Some(s.as_str()),
            Some(Value::Object(o)) => o.get("type").and_then(Value::as_str),
            Some(_) => None,
        };
        let kind = match kind_name {
            Some("simple") => CriterionKind::Simple,
            Some("regex") => CriterionKind::Regex,
            Some("jsonpath") => CriterionKind::JsonPath,
            Some("xpath") => {
                ctx.problems.at(
                    ptr(&c_at, "type"),
                    "XPath criteria are not supported; use a regex or JSONPath criterion",
                );
                continue;
            }
            _ => {
                ctx.problems.at(
                    ptr(&c_at, "type"),
                    "criterion type must be simple, regex or jsonpath",
                );
                continue;
            }
        };
        let context = str_of(c, "context");
        let before = ctx.problems.list.len();
        match &context {
            Some(text) => ctx.expression(text, &ptr(&c_at, "context"), scope),
            None if kind != CriterionKind::Simple => {
                ctx.problems.at(
                    c_at.clone(),
                    "a regex or JSONPath criterion needs a `context` (the expression it applies to)",
                );
            }
            None => {}
        }
        let context_ok = ctx.problems.list.len() == before;
        let criterion = Criterion {
            context,
            condition: str_of(c, "condition").unwrap_or_default(),
            kind,
        };
        if context_ok && let Err(m) = crate::criteria::check(&criterion) {
            ctx.problems
                .at(ptr(&c_at, "condition"), format!("invalid condition: {m}"));
        }
        out.push(criterion);
    }
    out
}

/// `onSuccess`/`onFailure`/`successActions`/`failureActions`; `components` names where reusable ones live.
pub(super) fn actions(
    value: Option<&Value>,
    at: &str,
    components: &str,
    scope: &Scope<'_>,
    ctx: &mut Ctx<'_>,
) -> Vec<Action> {
    let mut out = Vec::new();
    for (k, a) in value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let a_at = ptr(at, k);
        let Some(mut a) = a.as_object().cloned() else {
            continue;
        };
        if let Some(reference) = a
            .get("reference")
            .and_then(Value::as_str)
            .map(str::to_string)
        {
            let Some(found) = ctx.component(&reference, components, &ptr(&a_at, "reference"))
            else {
                continue;
            };
            a = found.as_object().cloned().unwrap_or_default();
        }
        let kind = match a.get("type").and_then(Value::as_str).unwrap_or_default() {
            "end" => ActionKind::End,
            "goto" => {
                let step_id = str_of(&a, "stepId");
                let workflow_id = str_of(&a, "workflowId");
                match (&step_id, &workflow_id) {
                    (Some(s), None) => {
                        if !scope.step_ids.contains(s) {
                            ctx.problems.at(
                                ptr(&a_at, "stepId"),
                                format!(
                                    "goto names step '{s}', which workflow '{}' does not have",
                                    scope.workflow_id
                                ),
                            );
                        }
                    }
                    (None, Some(w)) => {
                        if w.starts_with("$sourceDescriptions.") {
                            ctx.problems.at(
                                ptr(&a_at, "workflowId"),
                                format!("'{w}' names a workflow of another Arazzo document: not supported yet"),
                            );
                        } else if !ctx.workflow_ids.contains(w) {
                            ctx.problems.at(
                                ptr(&a_at, "workflowId"),
                                format!(
                                    "goto names workflow '{w}', which this document does not have"
                                ),
                            );
                        }
                    }
                    _ => ctx.problems.at(
                        a_at.clone(),
                        "a goto action names exactly one of `stepId` and `workflowId`",
                    ),
                }
                ActionKind::Goto {
                    step_id,
                    workflow_id,
                }
            }
            "retry" => {
                let after_secs = match a.get("retryAfter") {
                    None => 0.0,
                    Some(v) => match v.as_f64() {
                        Some(n) if n.is_finite() && n >= 0.0 => n,
                        _ => {
                            ctx.problems.at(
                                ptr(&a_at, "retryAfter"),
                                "`retryAfter` must be a non-negative number of seconds",
                            );
                            0.0
                        }
                    },
                };
                let limit = match a.get("retryLimit") {
                    None => 1,
                    Some(v) => match v.as_u64().and_then(|n| u32::try_from(n).ok()) {
                        Some(n) => n,
                        None => {
                            ctx.problems.at(
                                ptr(&a_at, "retryLimit"),
                                "`retryLimit` must be a non-negative integer",
                            );
                            1
                        }
                    },
                };
                ActionKind::Retry { after_secs, limit }
            }
            other => {
                ctx.problems.at(
                    ptr(&a_at, "type"),
                    format!(
                        "unknown action type '{other}'; Arazzo actions are end, goto and retry"
                    ),
                );
                continue;
            }
        };
        let criteria = criteria(a.get("criteria"), &ptr(&a_at, "criteria"), scope, ctx);
        out.push(Action {
            name: str_of(&a, "name"),
            kind,
            criteria,
        });
    }
    out
}

/// Workflows that call one another in a loop (through `dependsOn` and workflow steps) could never finish: each
/// on such a cycle (or between two) is a problem. Self-calls by a step are reported at the step.
pub(super) fn check_cycles(workflows: &[Workflow], problems: &mut Problems) {
    let index: HashMap<&str, usize> = workflows
        .iter()
        .enumerate()
        .map(|(i, w)| (w.id.as_str(), i))
        .collect();
    let n = workflows.len();
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, w) in workflows.iter().enumerate() {
        let calls = w.steps.iter().filter_map(|s| match &s.target {
            Target::Workflow { workflow_id } if workflow_id != &w.id => Some(workflow_id.as_str()),
            _ => None,
        });
        for to in w.depends_on.iter().map(String::as_str).chain(calls) {
            if let Some(&j) = index.get(to)
                && !edges[i].contains(&j)
            {
                edges[i].push(j);
            }
        }
    }
    // Peel nodes nothing points at, then nodes that point at nothing: what remains both ways is on a cycle.
    let peel = |forward: bool| -> Vec<bool> {
        let mut degree = vec![0usize; n];
        let mut reverse: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, out) in edges.iter().enumerate() {
            for &j in out {
                if forward {
                    degree[j] += 1;
                    reverse[i].push(j);
                } else {
                    degree[i] += 1;
                    reverse[j].push(i);
                }
            }
        }
        let mut removed = vec![false; n];
        let mut queue: Vec<usize> = (0..n).filter(|&i| degree[i] == 0).collect();
        while let Some(i) = queue.pop() {
            removed[i] = true;
            for &j in &reverse[i] {
                degree[j] -= 1;
                if degree[j] == 0 {
                    queue.push(j);
                }
            }
        }
        removed
    };
    let a = peel(true);
    let b = peel(false);
    for (i, w) in workflows.iter().enumerate() {
        if !a[i] && !b[i] {
            problems.at(
                ptr(&ptr("/workflows", i), "workflowId"),
                format!("workflow '{}' is on a cycle of dependsOn and workflow steps: it would never finish", w.id),
            );
        }
    }
}

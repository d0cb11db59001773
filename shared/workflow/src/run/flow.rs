//! The steps of a workflow, in order: each step tried (an operation sent over the [`Transport`], or a workflow
//! run), judged by its success criteria, then the first matching action decides what follows (next, end, `goto`,
//! retry); `dependsOn` workflows first, the workflow's outputs last. Every step run and wait is charged to the
//! [`Budget`].

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;

use super::request::{Built, build_request, check_origin, response_view};
use super::{
    Budget, MAX_NESTING, REDACTED, Redactor, RunError, Secrets, StepReport, Transport,
    TransportError, find_workflow, validate_inputs,
};
use crate::criteria;
use crate::expr::{self, Context, RequestView, ResponseView, WorkflowValues};
use crate::model::{Action, ActionKind, Step, Target, Workflow, WorkflowSet};

/// How long a failure excerpt of an answer may be, in characters.
const EXCERPT_CHARS: usize = 300;

/// One run in progress: what it may use, and what it did so far.
pub(super) struct Runner<'r, T> {
    pub(super) set: &'r WorkflowSet,
    pub(super) secrets: &'r dyn Secrets,
    pub(super) transport: &'r T,
    pub(super) budget: &'r Budget,
    pub(super) started: Instant,
    pub(super) step_runs: u32,
    pub(super) reports: Vec<StepReport>,
    /// Workflows that ran in this run: what `$workflows.` reads.
    pub(super) workflows: HashMap<String, WorkflowValues>,
    pub(super) redactor: &'r Redactor,
}

/// What one try of a step produced.
struct Attempt {
    request: Option<RequestView>,
    response: Option<ResponseView>,
    /// Outputs of the workflow the step called.
    called_outputs: Option<Map<String, Value>>,
    /// A send that failed without an answer (timeout, network).
    failure: Option<TransportError>,
}

/// What an action decided.
enum Next {
    Step(usize),
    End,
    Retry(Duration),
    EndWith(String),
    Fail,
}

/// What judging a step gives: whether it succeeded, what follows, its outputs.
type Judged = (bool, Next, Option<Map<String, Value>>);

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

impl<'r, T: Transport> Runner<'r, T> {
    fn remaining(&self) -> Duration {
        self.budget.deadline.saturating_sub(self.started.elapsed())
    }

    fn deadline_error(&self, what: &str) -> RunError {
        RunError::Budget(format!(
            "the run took longer than its {} s deadline ({what})",
            self.budget.deadline.as_secs_f64()
        ))
    }

    /// Counts a step run and checks the deadline.
    fn charge(&mut self, step: &str) -> Result<(), RunError> {
        if self.remaining().is_zero() {
            return Err(self.deadline_error(&format!("before step `{step}`")));
        }
        self.step_runs += 1;
        if self.step_runs > self.budget.max_step_runs {
            return Err(RunError::Budget(format!(
                "the run reached its limit of {} step runs at step `{step}` (a goto loop or too many retries?)",
                self.budget.max_step_runs
            )));
        }
        Ok(())
    }

    pub(super) fn run_workflow<'a>(
        &'a mut self,
        workflow: &'r Workflow,
        inputs: Value,
        depth: usize,
    ) -> BoxFuture<'a, Result<Map<String, Value>, RunError>> {
        Box::pin(async move {
            if depth > MAX_NESTING {
                return Err(RunError::Budget(format!(
                    "workflows call each other more than {MAX_NESTING} deep (at workflow `{}`)",
                    workflow.id
                )));
            }
            for dependency in &workflow.depends_on {
                if self.workflows.contains_key(dependency) {
                    continue;
                }
                let dep = find_workflow(self.set, dependency)?;
                let outputs = self.run_workflow(dep, inputs.clone(), depth + 1).await?;
                self.workflows.insert(
                    dependency.clone(),
                    WorkflowValues {
                        inputs: inputs.clone(),
                        outputs,
                    },
                );
            }
            let prefix = if depth > 0 {
                format!("{}/", workflow.id)
            } else {
                String::new()
            };
            let mut step_outputs: HashMap<String, Map<String, Value>> = HashMap::new();
            let mut last: Option<(Option<RequestView>, Option<ResponseView>)> = None;
            let mut retries = vec![0u32; workflow.steps.len()];
            let mut retrying = false;
            let mut index = 0;
            let mut end_with: Option<String> = None;
            while let Some(step) = workflow.steps.get(index) {
                self.charge(&step.id)?;
                let attempt = self.attempt(step, &inputs, &step_outputs, depth).await?;
                let status = attempt.response.as_ref().map(|r| r.status);
                let (succeeded, next, outputs) = {
                    let ctx = Context {
                        inputs: &inputs,
                        outputs: None,
                        steps: &step_outputs,
                        workflows: &self.workflows,
                        request: attempt.request.as_ref(),
                        response: attempt.response.as_ref(),
                    };
                    self.judge(workflow, step, index, &attempt, &ctx, &mut retries)?
                };
                if retrying {
                    if let Some(report) = self.reports.last_mut() {
                        report.attempts += 1;
                        report.status = status;
                        report.succeeded = succeeded;
                    }
                } else {
                    self.reports.push(StepReport {
                        id: format!("{prefix}{}", step.id),
                        status,
                        attempts: 1,
                        succeeded,
                    });
                }
                retrying = false;
                if let Some(outputs) = outputs {
                    step_outputs.insert(step.id.clone(), outputs);
                }
                match next {
                    Next::Step(i) => {
                        retries[index] = 0;
                        index = i;
                        last = Some((attempt.request, attempt.response));
                    }
                    Next::End => {
                        last = Some((attempt.request, attempt.response));
                        break;
                    }
                    Next::EndWith(id) => {
                        last = Some((attempt.request, attempt.response));
                        end_with = Some(id);
                        break;
                    }
                    Next::Retry(wait) => {
                        if wait >= self.remaining() {
                            return Err(self
                                .deadline_error(&format!("waiting to retry step `{}`", step.id)));
                        }
                        tokio::time::sleep(wait).await;
                        retrying = true;
                    }
                    Next::Fail => return Err(self.failure(step, &attempt)),
                }
            }
            if let Some(id) = end_with {
                let target = find_workflow(self.set, &id)?;
                let outputs = self.run_workflow(target, inputs.clone(), depth + 1).await?;
                self.workflows.insert(
                    id,
                    WorkflowValues {
                        inputs: inputs.clone(),
                        outputs,
                    },
                );
            }
            self.workflow_outputs(workflow, &inputs, &step_outputs, last)
        })
    }

    /// Whether a try of a step succeeded, what follows it (the chosen action), and the step's outputs (none when
    /// it is retried or fails the run).
    fn judge(
        &self,
        workflow: &Workflow,
        step: &Step,
        index: usize,
        attempt: &Attempt,
        ctx: &Context<'_>,
        retries: &mut [u32],
    ) -> Result<Judged, RunError> {
        let status = attempt.response.as_ref().map(|r| r.status);
        let succeeded = if attempt.failure.is_some() {
            false
        } else if step.success_criteria.is_empty() {
            status.is_none_or(|s| (200..300).contains(&s))
        } else {
            criteria::all_hold(&step.success_criteria, ctx)
                .map_err(|e| RunError::step(&step.id, e))?
        };
        let (own, shared) = if succeeded {
            (&step.on_success, &workflow.success_actions)
        } else {
            (&step.on_failure, &workflow.failure_actions)
        };
        let action = choose(own.iter().chain(shared.iter()), ctx)
            .map_err(|e| RunError::step(&step.id, e))?;
        let next = self.decide(workflow, step, index, succeeded, action, retries)?;
        let outputs = match next {
            Next::Retry(_) | Next::Fail => None,
            _ => Some(step_outputs_of(step, attempt, ctx)?),
        };
        Ok((succeeded, next, outputs))
    }

    /// The workflow's outputs, evaluated in order (each may read those before it), with the last step's request
    /// and answer.
    fn workflow_outputs(
        &self,
        workflow: &Workflow,
        inputs: &Value,
        step_outputs: &HashMap<String, Map<String, Value>>,
        last: Option<(Option<RequestView>, Option<ResponseView>)>,
    ) -> Result<Map<String, Value>, RunError> {
        let (request, response) = last.unwrap_or((None, None));
        let mut outputs = Map::new();
        for (name, text) in &workflow.outputs {
            let value = {
                let ctx = Context {
                    inputs,
                    outputs: Some(&outputs),
                    steps: step_outputs,
                    workflows: &self.workflows,
                    request: request.as_ref(),
                    response: response.as_ref(),
                };
                expr::render_str(text, &ctx).map_err(|e| {
                    RunError::Document(format!(
                        "output `{name}` of workflow `{}`: {e}",
                        workflow.id
                    ))
                })?
            };
            outputs.insert(name.clone(), value);
        }
        Ok(outputs)
    }

    /// Decides what follows a step from the chosen action.
    fn decide(
        &self,
        workflow: &Workflow,
        step: &Step,
        index: usize,
        succeeded: bool,
        action: Option<&ActionKind>,
        retries: &mut [u32],
    ) -> Result<Next, RunError> {
        let goto =
            |step_id: &Option<String>, workflow_id: &Option<String>| -> Result<Next, RunError> {
                if let Some(target) = step_id {
                    return workflow
                        .steps
                        .iter()
                        .position(|s| &s.id == target)
                        .map(Next::Step)
                        .ok_or_else(|| {
                            RunError::Document(format!(
                                "step `{}` goes to step `{target}`, which does not exist",
                                step.id
                            ))
                        });
                }
                if let Some(target) = workflow_id {
                    return Ok(Next::EndWith(target.clone()));
                }
                Err(RunError::Document(format!(
                    "a goto of step `{}` names no target",
                    step.id
                )))
            };
        match (succeeded, action) {
            (true, None | Some(ActionKind::Next) | Some(ActionKind::Retry { .. })) => {
                Ok(Next::Step(index + 1))
            }
            (true, Some(ActionKind::End)) => Ok(Next::End),
            (
                _,
                Some(ActionKind::Goto {
                    step_id,
                    workflow_id,
                }),
            ) => goto(step_id, workflow_id),
            (false, Some(ActionKind::Retry { after_secs, limit })) => {
                let count = retries
                    .get_mut(index)
                    .ok_or_else(|| RunError::step(&step.id, "no such step"))?;
                if *count >= *limit {
                    return Ok(Next::Fail);
                }
                *count += 1;
                let secs = if after_secs.is_finite() && *after_secs > 0.0 {
                    *after_secs
                } else {
                    0.0
                };
                let wait = Duration::try_from_secs_f64(secs).unwrap_or(self.budget.max_retry_wait);
                Ok(Next::Retry(wait.min(self.budget.max_retry_wait)))
            }
            (false, Some(ActionKind::Next)) => Ok(Next::Step(index + 1)),
            (false, None | Some(ActionKind::End)) => Ok(Next::Fail),
        }
    }

    /// The error of a failed step: its status and a short, redacted excerpt of the answer.
    fn failure(&self, step: &Step, attempt: &Attempt) -> RunError {
        if let Some(failure) = &attempt.failure {
            // A transport's message is redacted whole before it is cut.
            let r = self.redactor;
            let message = match failure {
                TransportError::Timeout => "the API did not answer in time".to_string(),
                TransportError::Failed(m) => {
                    format!("the request failed: {}", expr::shorten(&r.text(m), 200))
                }
                TransportError::Refused(m) => {
                    format!("refused: {}", expr::shorten(&r.text(m), 200))
                }
                TransportError::TooLarge => "the answer is too large".to_string(),
            };
            return RunError::step(&step.id, message);
        }
        let Some(response) = &attempt.response else {
            return RunError::step(&step.id, "its success criteria did not hold");
        };
        // The answer was redacted whole when it arrived ([`Runner::received`]); it is cut only now.
        let text = expr::to_text(&response.body);
        let excerpt: String = self
            .redactor
            .text(&text)
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let excerpt = expr::shorten(excerpt.trim(), EXCERPT_CHARS);
        let status = response.status;
        let what = if (200..300).contains(&status) && !step.success_criteria.is_empty() {
            format!("the API answered {status} but the success criteria did not hold")
        } else {
            format!("the API answered {status}")
        };
        if excerpt.is_empty() {
            RunError::step(&step.id, what)
        } else {
            RunError::step(&step.id, format!("{what}: {excerpt}"))
        }
    }

    /// One try of a step.
    async fn attempt(
        &mut self,
        step: &'r Step,
        inputs: &Value,
        step_outputs: &HashMap<String, Map<String, Value>>,
        depth: usize,
    ) -> Result<Attempt, RunError> {
        match &step.target {
            Target::Workflow { workflow_id } => {
                let called = find_workflow(self.set, workflow_id)?;
                let mut called_inputs = Map::new();
                {
                    let ctx = Context {
                        inputs,
                        outputs: None,
                        steps: step_outputs,
                        workflows: &self.workflows,
                        request: None,
                        response: None,
                    };
                    for p in &step.parameters {
                        let v = expr::render(&p.value, &ctx)
                            .map_err(|e| RunError::step(&step.id, e.to_string()))?;
                        called_inputs.insert(p.name.clone(), v);
                    }
                }
                let called_inputs = Value::Object(called_inputs);
                validate_inputs(&called.inputs, &called_inputs).map_err(|e| match e {
                    RunError::InvalidInputs(m) => RunError::step(
                        &step.id,
                        format!(
                            "the inputs of workflow `{workflow_id}` are invalid: {}",
                            m.join("; ")
                        ),
                    ),
                    other => other,
                })?;
                let outputs = self
                    .run_workflow(called, called_inputs.clone(), depth + 1)
                    .await?;
                self.workflows.insert(
                    workflow_id.clone(),
                    WorkflowValues {
                        inputs: called_inputs,
                        outputs: outputs.clone(),
                    },
                );
                Ok(Attempt {
                    request: None,
                    response: None,
                    called_outputs: Some(outputs),
                    failure: None,
                })
            }
            Target::Operation(op) => {
                let built = {
                    let ctx = Context {
                        inputs,
                        outputs: None,
                        steps: step_outputs,
                        workflows: &self.workflows,
                        request: None,
                        response: None,
                    };
                    build_request(self.set, self.secrets, step, op, &ctx)?
                };
                check_origin(&self.set.allowed_origins, &built.wire.url)
                    .map_err(|m| RunError::step(&step.id, m))?;
                let view = self.request_view(&built);
                let remaining = self.remaining();
                if remaining.is_zero() {
                    return Err(self.deadline_error(&format!("before step `{}`", step.id)));
                }
                let sent = tokio::time::timeout(remaining, self.transport.send(built.wire)).await;
                let answer = match sent {
                    Err(_) => {
                        return Err(self.deadline_error(&format!(
                            "waiting for the answer of step `{}`",
                            step.id
                        )));
                    }
                    Ok(answer) => answer,
                };
                match answer {
                    Ok(wire) => {
                        if wire.body.len() > self.budget.max_response_bytes {
                            return Err(RunError::step(
                                &step.id,
                                format!(
                                    "the answer is larger than {} bytes",
                                    self.budget.max_response_bytes
                                ),
                            ));
                        }
                        let response = self.received(response_view(wire));
                        Ok(Attempt {
                            request: Some(view),
                            response: Some(response),
                            called_outputs: None,
                            failure: None,
                        })
                    }
                    Err(TransportError::Refused(m)) => Err(RunError::step(
                        &step.id,
                        format!("refused: {}", expr::shorten(&self.redactor.text(&m), 200)),
                    )),
                    Err(TransportError::TooLarge) => Err(RunError::step(
                        &step.id,
                        format!(
                            "the answer is larger than {} bytes",
                            self.budget.max_response_bytes
                        ),
                    )),
                    Err(e) => Ok(Attempt {
                        request: Some(view),
                        response: None,
                        called_outputs: None,
                        failure: Some(e),
                    }),
                }
            }
        }
    }

    /// An answer as the run sees it: every header and the body redacted whole (strings, member names, numbers),
    /// before success criteria, outputs or a failure excerpt read it.
    fn received(&self, mut response: ResponseView) -> ResponseView {
        let r = self.redactor;
        if r.is_empty() {
            return response;
        }
        response.headers = response
            .headers
            .into_iter()
            .map(|(k, v)| (r.text(&k), r.text(&v)))
            .collect();
        response.body = r.value(response.body);
        response
    }

    /// What `$request.*`, `$url` and `$method` see: secrets replaced.
    fn request_view(&self, built: &Built) -> RequestView {
        let r = self.redactor;
        RequestView {
            url: r.text(&built.wire.url),
            method: built.wire.method.clone(),
            headers: built
                .wire
                .headers
                .iter()
                .map(|(k, v)| {
                    let v = if built
                        .secret_headers
                        .iter()
                        .any(|s| s.eq_ignore_ascii_case(k))
                    {
                        REDACTED.to_string()
                    } else {
                        r.text(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
            query: built
                .query
                .iter()
                .map(|(k, v)| (k.clone(), r.text(v)))
                .collect(),
            path: built
                .path
                .iter()
                .map(|(k, v)| (k.clone(), r.text(v)))
                .collect(),
            body: built.body.clone().map(|b| r.value(b)),
        }
    }
}

/// The first action whose criteria all hold.
fn choose<'a>(
    actions: impl Iterator<Item = &'a Action>,
    ctx: &Context<'_>,
) -> Result<Option<&'a ActionKind>, String> {
    for action in actions {
        if criteria::all_hold(&action.criteria, ctx)? {
            return Ok(Some(&action.kind));
        }
    }
    Ok(None)
}

/// A step's outputs: those of the workflow it called, then its own `outputs` evaluated.
fn step_outputs_of(
    step: &Step,
    attempt: &Attempt,
    ctx: &Context<'_>,
) -> Result<Map<String, Value>, RunError> {
    let mut outputs = attempt.called_outputs.clone().unwrap_or_default();
    for (name, text) in &step.outputs {
        let value = expr::render_str(text, ctx)
            .map_err(|e| RunError::step(&step.id, format!("output `{name}`: {e}")))?;
        outputs.insert(name.clone(), value);
    }
    Ok(outputs)
}

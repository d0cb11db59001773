//! Operations: HTTP operations and webhooks matched by method and path template (added,
//! removed, deprecated, sunset), their texts and tags, and everything below them by delegation;
//! callbacks and their operations (compared the other way round); component schemas added or
//! removed.

use serde_json::json;
use specpress_apispec::{ApiModel, Map, Operation, OperationKind};
use specpress_slug::slug;

use super::matching::{Entry, Near, entries};
use super::presence::{CALLBACK, COMPONENT_SCHEMA};
use crate::change::{Crumb, NodeKind, Owner, Status};
use crate::context::{At, Context, Versions, sv};
use crate::rules::StructureRule;

/// The two documents' models.
type Models<'a> = Versions<'a, ApiModel>;

impl<'a> Context<'a> {
    /// The owner of an operation; `previous` is the matched operation of the previous
    /// document, if any (else `op` is on one side only, as `status` says).
    fn endpoint_owner(
        &mut self,
        op: &'a Operation,
        previous: Option<&'a Operation>,
        status: Status,
    ) -> usize {
        let webhook = op.key.kind == OperationKind::Webhook;
        let endpoint = match (status, previous) {
            (Status::Added, _) => (None, Some(op)),
            (Status::Removed, _) => (Some(op), None),
            (Status::Modified, Some(previous)) => (Some(previous), Some(op)),
            (Status::Modified, None) => (Some(op), Some(op)),
        };
        let mut name = String::with_capacity(op.key.method.len() + 1 + op.path.len());
        name.push_str(&op.key.method);
        name.push(' ');
        name.push_str(&op.path);
        let mut owner = Owner::root(
            if webhook { "webhook" } else { "endpoint" },
            String::new(),
            name,
            status,
        );
        // The id is the slug of the name, and the ignore rules' key is derived from
        // `endpoint` when needed (`Owner::item_id`, `Owner::matcher`).
        owner.endpoint = Some(endpoint);
        // Below stable in the previous version: nothing under it breaks (see `crate::beta`).
        owner.unstable = match (status, previous) {
            (Status::Removed, _) => self.previous_unstable(&op.source),
            (Status::Modified, Some(before)) => self.previous_unstable(&before.source),
            _ => None,
        };
        self.found.add_owner(owner)
    }

    /// The operations and webhooks of the two documents: matched ones compared, the others
    /// added or removed (a removal judged by deprecation and sunset date).
    pub(super) fn operations(&mut self, models: Models<'a>) {
        let (previous, current) = (&models.0.operations, &models.1.operations);
        // The previous operations matched by a current one (by index): the removed ones are
        // the others, found without hashing every key a second time.
        let mut matched = vec![false; previous.len()];
        let mut near = Near::default();
        for (i, (key, op)) in current.iter().enumerate() {
            let found = near.find(previous, i, key).and_then(|j| {
                if let Some(m) = matched.get_mut(j) {
                    *m = true;
                }
                previous.get_index(j).map(|(_, op)| op)
            });
            match found {
                Some(before) => {
                    let owner = self.endpoint_owner(op, Some(before), Status::Modified);
                    self.operation(owner, models, (before, op));
                }
                None => {
                    let owner = self.endpoint_owner(op, None, Status::Added);
                    let rule = if key.kind == OperationKind::Webhook {
                        StructureRule::WebhookAdded
                    } else {
                        StructureRule::EndpointAdded
                    };
                    let message = format!("{} {} was added", op.key.method, op.path);
                    let at = (None, Some(&op.source));
                    self.presence((rule, Status::Added), owner, &[], message, at);
                }
            }
        }
        for (i, (key, op)) in previous.iter().enumerate() {
            if !matched.get(i).copied().unwrap_or(false) {
                self.operation_removed(key.kind, op);
            }
        }
    }

    /// An operation of the previous document only: removed, after deprecation or not, before
    /// its sunset date or not.
    fn operation_removed(&mut self, kind: OperationKind, op: &'a Operation) {
        let owner = self.endpoint_owner(op, None, Status::Removed);
        let (rule, why) = if kind == OperationKind::Webhook {
            (StructureRule::WebhookRemoved, "")
        } else if !op.deprecated {
            (StructureRule::EndpointRemoved, " without prior deprecation")
        } else {
            match op.sunset.as_deref() {
                Some(s) if s.get(..10).unwrap_or(s) > self.today.as_str() => (
                    StructureRule::EndpointRemovedBeforeSunset,
                    " before its sunset date",
                ),
                _ => (
                    StructureRule::EndpointRemovedAfterDeprecation,
                    " after deprecation",
                ),
            }
        };
        let message = format!("{} {} was removed{why}", op.key.method, op.path);
        let at = (Some(&op.source), None);
        self.presence((rule, Status::Removed), owner, &[], message, at);
    }

    /// Two matched operations (or two operations of a callback): their own attributes, then
    /// parameters, request body, responses, security, servers and callbacks.
    fn operation(
        &mut self,
        owner: usize,
        models: Models<'a>,
        (previous, current): (&'a Operation, &'a Operation),
    ) {
        let at = (Some(&previous.source), Some(&current.source));
        self.operation_attributes(owner, (previous, current), at);
        self.parameters(owner, &previous.parameters, &current.parameters);
        let bodies = (
            previous.request_body.as_ref(),
            current.request_body.as_ref(),
        );
        self.request_body(owner, bodies.0, bodies.1);
        self.responses(owner, &previous.responses, &current.responses);
        if previous.security.is_some() || current.security.is_some() {
            // An operation without its own requirements has the document's.
            let before = previous.security.as_ref().or(models.0.security.as_ref());
            let after = current.security.as_ref().or(models.1.security.as_ref());
            self.security_requirements(owner, before, after, false, at);
        }
        if let (Some(before), Some(after)) = (&previous.servers, &current.servers) {
            self.endpoint_servers(owner, before, after, at);
        }
        if !self.inverted {
            let callbacks = (&previous.callbacks, &current.callbacks);
            self.callbacks(owner, models, callbacks, at);
        }
    }

    /// Deprecation, sunset date, operationId, summary, description, tags and path template.
    fn operation_attributes(
        &mut self,
        owner: usize,
        (previous, current): (&'a Operation, &'a Operation),
        at: At<'_>,
    ) {
        let sources = (&previous.source, &current.source);
        self.beta_marking(owner, &[], format_args!("the operation"), sources);
        if previous.deprecated != current.deprecated {
            let (rule, message) = if current.deprecated {
                (
                    StructureRule::EndpointDeprecated,
                    "the operation was deprecated",
                )
            } else {
                (
                    StructureRule::EndpointReactivated,
                    "the operation is no longer deprecated",
                )
            };
            let values = (previous.deprecated, current.deprecated);
            self.flag(rule, owner, &[], message.into(), values, at);
        }
        let sunsets = (&previous.sunset, &current.sunset);
        if sunsets.0.is_some() && sunsets.1.is_some() && sunsets.0 != sunsets.1 {
            let (before, after) = (sunsets.0.as_deref(), sunsets.1.as_deref());
            let message = format!(
                "sunset date changed from {} to {}",
                before.unwrap_or(""),
                after.unwrap_or("")
            );
            let rule = StructureRule::EndpointSunsetChanged;
            self.modified(rule, owner, &[], message, (sv(before), sv(after)), at);
        }
        self.operation_texts(
            (
                StructureRule::OperationIdChanged,
                StructureRule::OperationSummaryChanged,
                StructureRule::OperationDescriptionChanged,
            ),
            owner,
            [
                &previous.operation_id,
                &previous.summary,
                &previous.description,
            ],
            [
                &current.operation_id,
                &current.summary,
                &current.description,
            ],
            at,
        );
        if previous.tags != current.tags {
            let message = format!(
                "tags changed from {:?} to {:?}",
                previous.tags, current.tags
            );
            let values = (Some(json!(previous.tags)), Some(json!(current.tags)));
            let rule = StructureRule::OperationTagsChanged;
            self.modified(rule, owner, &[], message, values, at);
        }
        if previous.path != current.path && previous.key.kind == OperationKind::Path {
            let message = format!(
                "path template changed from `{}` to `{}`",
                previous.path, current.path
            );
            let values = (
                Some(previous.path.clone().into()),
                Some(current.path.clone().into()),
            );
            let rule = StructureRule::PathParameterRenamed;
            self.modified(rule, owner, &[], message, values, at);
        }
    }

    /// Compares an operation of a callback present on both sides, as its own tree root under
    /// the operation that declares it. The callback request is sent by the API and read by the
    /// subscriber, so its body is judged like a response; the subscriber's response body like
    /// a request.
    fn callback_operation(
        &mut self,
        parent: usize,
        name: &str,
        models: Models<'a>,
        (previous, current): (&'a Operation, &'a Operation),
    ) {
        let (parent_name, matcher) = match self.found.owners.get(parent) {
            Some(o) => (o.name.clone(), o.matcher().map(|m| m.into_owned())),
            None => (String::new(), None),
        };
        let title = format!(
            "{parent_name} callback `{name}` {} {}",
            current.key.method, current.path
        );
        let mut owner = Owner::root("callback", slug(&title), title, Status::Modified);
        // Ignore entries of the declaring operation apply.
        owner.matcher = matcher;
        let owner = self.found.add_owner(owner);
        self.inverted = true;
        self.operation(owner, models, (previous, current));
        self.inverted = false;
    }

    /// The callbacks of two matched operations: added, removed, or their operations paired
    /// by method and expression (each pair compared as its own root).
    fn callbacks(
        &mut self,
        owner: usize,
        models: Models<'a>,
        (previous, current): Versions<'a, Map<String, Vec<Operation>>>,
        at: At<'_>,
    ) {
        for entry in entries(previous, current) {
            let (name, ops) = match entry {
                Entry::Added(name, _) => {
                    let crumbs = [Crumb::new(NodeKind::Callback, name.as_str())];
                    self.appeared(&CALLBACK, owner, &crumbs, name, at);
                    continue;
                }
                Entry::Removed(name, _) => {
                    let crumbs = [Crumb::new(NodeKind::Callback, name.as_str())];
                    self.disappeared(&CALLBACK, owner, &crumbs, name, at);
                    continue;
                }
                Entry::Both(name, before, after) => (name, (before, after)),
            };
            let crumbs = [Crumb::new(NodeKind::Callback, name.as_str())];
            for op in ops.1 {
                if let Some(before) = ops.0.iter().find(|p| p.key == op.key) {
                    self.callback_operation(owner, name, models, (before, op));
                } else {
                    let message =
                        format!("callback operation {} {} was added", op.key.method, op.path);
                    let rule = StructureRule::CallbackOperationAdded;
                    let at = (at.0, Some(&op.source));
                    self.modified(rule, owner, &crumbs, message, (None, None), at);
                }
            }
            for op in ops.0 {
                if !ops.1.iter().any(|c| c.key == op.key) {
                    let message = format!(
                        "callback operation {} {} was removed",
                        op.key.method, op.path
                    );
                    let rule = StructureRule::CallbackOperationRemoved;
                    let at = (Some(&op.source), at.1);
                    self.modified(rule, owner, &crumbs, message, (None, None), at);
                }
            }
        }
    }

    /// Named schemas added to or removed from the components (changes inside the others are
    /// reported where they are used, once per component).
    pub(super) fn component_schemas(&mut self, (previous, current): Models<'a>) {
        let owner = |e: &mut Self, name: &str, status| {
            let id = format!("schema-{}", slug(name));
            e.found
                .add_owner(Owner::root("schema", id, name.to_string(), status))
        };
        let mut near = Near::default();
        for (i, (name, at)) in current.schemas.iter().enumerate() {
            if near.find(&previous.schemas, i, name).is_none() {
                let owner = owner(self, name, Status::Added);
                self.appeared(&COMPONENT_SCHEMA, owner, &[], name, (None, Some(at)));
            }
        }
        let mut near = Near::default();
        for (i, (name, at)) in previous.schemas.iter().enumerate() {
            if near.find(&current.schemas, i, name).is_none() {
                let owner = owner(self, name, Status::Removed);
                self.disappeared(&COMPONENT_SCHEMA, owner, &[], name, (Some(at), None));
            }
        }
    }
}

//! Operations: HTTP operations and webhooks matched by method and path template (added,
//! removed, deprecated, sunset), their texts and tags, and everything below them by delegation;
//! callbacks and their operations (compared the other way round); component schemas added or
//! removed.

use serde_json::json;
use specpress_spec::{ApiModel, Location, Map, Operation, OperationKind};

use super::matching::Near;
use crate::change::{Crumb, NodeKind, Owner, Status};
use crate::context::{Context, sv};
use crate::rules::StructureRule;
use crate::slug::slug;

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
            (Status::Modified, Some(p)) => (Some(p), Some(op)),
            (Status::Modified, None) => (Some(op), Some(op)),
        };
        self.found.add_owner(Owner {
            item_type: if webhook { "webhook" } else { "endpoint" },
            id: String::new(),
            name: {
                let mut name = String::with_capacity(op.key.method.len() + 1 + op.path.len());
                name.push_str(&op.key.method);
                name.push(' ');
                name.push_str(&op.path);
                name
            },
            status,
            previous: None,
            current: None,
            endpoint: Some(endpoint),
            // Derived from `endpoint` when an ignore rule needs it (`Owner::matcher`).
            matcher: None,
            role: None,
        })
    }

    pub(super) fn operations(&mut self, pm: &'a ApiModel, cm: &'a ApiModel) {
        // The previous operations matched by a current one (by index): the removed ones are
        // the others, found without hashing every key a second time.
        let mut matched = vec![false; pm.operations.len()];
        let mut near = Near::default();
        for (ci, (key, c)) in cm.operations.iter().enumerate() {
            let found = near.find(&pm.operations, ci, key).and_then(|i| {
                if let Some(m) = matched.get_mut(i) {
                    *m = true;
                }
                pm.operations.get_index(i).map(|(_, p)| p)
            });
            match found {
                Some(p) => {
                    let owner = self.endpoint_owner(c, Some(p), Status::Modified);
                    self.operation(owner, pm, cm, p, c);
                }
                None => {
                    let owner = self.endpoint_owner(c, None, Status::Added);
                    let b = if key.kind == OperationKind::Webhook {
                        StructureRule::WebhookAdded
                    } else {
                        StructureRule::EndpointAdded
                    };
                    self.presence(
                        (b, Status::Added),
                        owner,
                        &[],
                        format!("{} {} was added", c.key.method, c.path),
                        (None, Some(&c.source)),
                    );
                }
            }
        }
        for (i, (key, p)) in pm.operations.iter().enumerate() {
            if matched.get(i).copied().unwrap_or(false) {
                continue;
            }
            let owner = self.endpoint_owner(p, None, Status::Removed);
            let (b, why) = if key.kind == OperationKind::Webhook {
                (StructureRule::WebhookRemoved, "")
            } else if !p.deprecated {
                (StructureRule::EndpointRemoved, " without prior deprecation")
            } else {
                match p.sunset.as_deref() {
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
            self.presence(
                (b, Status::Removed),
                owner,
                &[],
                format!("{} {} was removed{why}", p.key.method, p.path),
                (Some(&p.source), None),
            );
        }
    }

    fn operation(
        &mut self,
        owner: usize,
        pm: &'a ApiModel,
        cm: &'a ApiModel,
        p: &'a Operation,
        c: &'a Operation,
    ) {
        let at = (Some(&p.source), Some(&c.source));
        if p.deprecated != c.deprecated {
            let (b, msg) = if c.deprecated {
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
            self.base(
                b,
                owner,
                &[],
                Status::Modified,
                msg.into(),
                Some(p.deprecated.into()),
                Some(c.deprecated.into()),
                at,
            );
        }
        if p.sunset.is_some() && c.sunset.is_some() && p.sunset != c.sunset {
            self.base(
                StructureRule::EndpointSunsetChanged,
                owner,
                &[],
                Status::Modified,
                format!(
                    "sunset date changed from {} to {}",
                    p.sunset.as_deref().unwrap_or(""),
                    c.sunset.as_deref().unwrap_or("")
                ),
                sv(p.sunset.as_deref()),
                sv(c.sunset.as_deref()),
                at,
            );
        }
        self.operation_texts(
            (
                StructureRule::OperationIdChanged,
                StructureRule::OperationSummaryChanged,
                StructureRule::OperationDescriptionChanged,
            ),
            owner,
            [&p.operation_id, &p.summary, &p.description],
            [&c.operation_id, &c.summary, &c.description],
            at,
        );
        if p.tags != c.tags {
            self.base(
                StructureRule::OperationTagsChanged,
                owner,
                &[],
                Status::Modified,
                format!("tags changed from {:?} to {:?}", p.tags, c.tags),
                Some(json!(p.tags)),
                Some(json!(c.tags)),
                at,
            );
        }
        if p.path != c.path && p.key.kind == OperationKind::Path {
            self.base(
                StructureRule::PathParameterRenamed,
                owner,
                &[],
                Status::Modified,
                format!("path template changed from `{}` to `{}`", p.path, c.path),
                Some(p.path.clone().into()),
                Some(c.path.clone().into()),
                at,
            );
        }
        self.parameters(owner, &p.parameters, &c.parameters);
        self.request_body(owner, p.request_body.as_ref(), c.request_body.as_ref());
        self.responses(owner, &p.responses, &c.responses);
        if p.security.is_some() || c.security.is_some() {
            let ps = p.security.as_ref().or(pm.security.as_ref());
            let cs = c.security.as_ref().or(cm.security.as_ref());
            self.security_requirements(owner, ps, cs, false, at);
        }
        if let (Some(ps), Some(cs)) = (&p.servers, &c.servers) {
            self.endpoint_servers(owner, ps, cs, at);
        }
        if !self.inverted {
            self.callbacks(owner, pm, cm, &p.callbacks, &c.callbacks, at);
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
        pm: &'a ApiModel,
        cm: &'a ApiModel,
        p: &'a Operation,
        c: &'a Operation,
    ) {
        let (parent_name, matcher) = match self.found.owners.get(parent) {
            Some(o) => (o.name.clone(), o.matcher().map(|m| m.into_owned())),
            None => (String::new(), None),
        };
        let title = format!(
            "{parent_name} callback `{name}` {} {}",
            c.key.method, c.path
        );
        let owner = self.found.add_owner(Owner {
            item_type: "callback",
            id: slug(&title),
            name: title,
            status: Status::Modified,
            previous: None,
            current: None,
            endpoint: None,
            matcher,
            role: None,
        });
        self.inverted = true;
        self.operation(owner, pm, cm, p, c);
        self.inverted = false;
    }

    #[allow(clippy::too_many_arguments)]
    fn callbacks(
        &mut self,
        owner: usize,
        pm: &'a ApiModel,
        cm: &'a ApiModel,
        prev: &'a Map<String, Vec<Operation>>,
        cur: &'a Map<String, Vec<Operation>>,
        at: (Option<&Location>, Option<&Location>),
    ) {
        for (name, cops) in cur {
            let crumbs = [Crumb::new(NodeKind::Callback, name.as_str())];
            match prev.get(name) {
                None => self.presence(
                    (StructureRule::CallbackAdded, Status::Added),
                    owner,
                    &crumbs,
                    format!("callback `{name}` was added"),
                    at,
                ),
                Some(pops) => {
                    for c in cops {
                        if let Some(p) = pops.iter().find(|p| p.key == c.key) {
                            self.callback_operation(owner, name, pm, cm, p, c);
                        } else {
                            self.base(
                                StructureRule::CallbackOperationAdded,
                                owner,
                                &crumbs,
                                Status::Modified,
                                format!("callback operation {} {} was added", c.key.method, c.path),
                                None,
                                None,
                                (at.0, Some(&c.source)),
                            );
                        }
                    }
                    for p in pops {
                        if !cops.iter().any(|c| c.key == p.key) {
                            self.base(
                                StructureRule::CallbackOperationRemoved,
                                owner,
                                &crumbs,
                                Status::Modified,
                                format!(
                                    "callback operation {} {} was removed",
                                    p.key.method, p.path
                                ),
                                None,
                                None,
                                (Some(&p.source), at.1),
                            );
                        }
                    }
                }
            }
        }
        for name in prev.keys() {
            if !cur.contains_key(name) {
                let crumbs = [Crumb::new(NodeKind::Callback, name.as_str())];
                self.presence(
                    (StructureRule::CallbackRemoved, Status::Removed),
                    owner,
                    &crumbs,
                    format!("callback `{name}` was removed"),
                    at,
                );
            }
        }
    }

    pub(super) fn component_schemas(&mut self, pm: &'a ApiModel, cm: &'a ApiModel) {
        let mut near = Near::default();
        for (i, (name, loc)) in cm.schemas.iter().enumerate() {
            if near.find(&pm.schemas, i, name).is_none() {
                let owner = self.found.add_owner(Owner {
                    item_type: "schema",
                    id: format!("schema-{}", slug(name)),
                    name: name.clone(),
                    status: Status::Added,
                    previous: None,
                    current: None,
                    endpoint: None,
                    matcher: None,
                    role: None,
                });
                self.presence(
                    (StructureRule::ComponentSchemaAdded, Status::Added),
                    owner,
                    &[],
                    format!("schema `{name}` was added"),
                    (None, Some(loc)),
                );
            }
        }
        let mut near = Near::default();
        for (i, (name, loc)) in pm.schemas.iter().enumerate() {
            if near.find(&cm.schemas, i, name).is_none() {
                let owner = self.found.add_owner(Owner {
                    item_type: "schema",
                    id: format!("schema-{}", slug(name)),
                    name: name.clone(),
                    status: Status::Removed,
                    previous: None,
                    current: None,
                    endpoint: None,
                    matcher: None,
                    role: None,
                });
                self.presence(
                    (StructureRule::ComponentSchemaRemoved, Status::Removed),
                    owner,
                    &[],
                    format!("schema `{name}` was removed"),
                    (Some(loc), None),
                );
            }
        }
    }
}

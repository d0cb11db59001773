//! AsyncAPI: operations matched by direction and channel (added, removed, deprecated, texts,
//! security), their messages (content type, schema format, correlation id, payload and
//! headers schemas, judged by direction), and channels with their parameters.

use serde_json::json;
use specpress_spec::{ApiModel, Channel, Direction, Message, MessageOperation};

use crate::change::{Crumb, NodeKind, Owner, Status};
use crate::context::{Context, opt_eq, sv};
use crate::options::normalize_template;
use crate::rules::{Role, StructureRule};
use crate::slug::slug;

impl<'a> Context<'a> {
    fn message_operation_owner(&mut self, op: &MessageOperation, status: Status) -> usize {
        let verb = match op.key.direction {
            Direction::Send => "SEND",
            Direction::Receive => "RECEIVE",
        };
        let name = format!("{verb} {}", op.channel_address);
        let value = json!({"channel": op.channel_address, "action": verb.to_ascii_lowercase(), "deprecated": op.deprecated});
        self.found.add_owner(Owner {
            item_type: "operation",
            id: slug(&format!(
                "{name} {}",
                op.key.discriminator.as_deref().unwrap_or("")
            )),
            name,
            status,
            previous: (status != Status::Added).then(|| value.clone()),
            current: (status != Status::Removed).then_some(value),
            endpoint: None,
            matcher: Some(format!("{verb} {}", normalize_template(&op.key.channel))),
            role: None,
        })
    }

    pub(super) fn message_operations(&mut self, pm: &'a ApiModel, cm: &'a ApiModel) {
        for (key, c) in &cm.message_operations {
            match pm.message_operations.get(key) {
                None => {
                    let owner = self.message_operation_owner(c, Status::Added);
                    self.presence(
                        (StructureRule::MessageOperationAdded, Status::Added),
                        owner,
                        &[],
                        "the operation was added".into(),
                        (None, Some(&c.source)),
                    );
                }
                Some(p) => {
                    let owner = self.message_operation_owner(c, Status::Modified);
                    self.message_operation(owner, p, c);
                }
            }
        }
        for (key, p) in &pm.message_operations {
            if cm.message_operations.contains_key(key) {
                continue;
            }
            let owner = self.message_operation_owner(p, Status::Removed);
            let b = if p.deprecated {
                StructureRule::MessageOperationRemovedAfterDeprecation
            } else {
                StructureRule::MessageOperationRemoved
            };
            self.presence(
                (b, Status::Removed),
                owner,
                &[],
                "the operation was removed".into(),
                (Some(&p.source), None),
            );
        }
    }

    fn message_operation(
        &mut self,
        owner: usize,
        p: &'a MessageOperation,
        c: &'a MessageOperation,
    ) {
        let at = (Some(&p.source), Some(&c.source));
        self.deprecated(
            StructureRule::MessageOperationDeprecated,
            owner,
            &[],
            format_args!("the operation"),
            (p.deprecated, c.deprecated),
            at,
        );
        self.operation_texts(
            (
                StructureRule::MessageOperationIdChanged,
                StructureRule::MessageOperationSummaryChanged,
                StructureRule::MessageOperationDescriptionChanged,
            ),
            owner,
            [&p.operation_id, &p.summary, &p.description],
            [&c.operation_id, &c.summary, &c.description],
            at,
        );
        if p.security.is_some() || c.security.is_some() {
            self.security_requirements(owner, p.security.as_ref(), c.security.as_ref(), false, at);
        }
        let send = c.key.direction == Direction::Send;
        let role = if send {
            Role::MessageSent
        } else {
            Role::MessageReceived
        };
        for (name, cmsg) in &c.messages {
            let crumbs = vec![Crumb::new(NodeKind::Message, name.as_str())];
            match p.messages.get(name) {
                Some(pmsg) => self.message(owner, crumbs, role, pmsg, cmsg),
                None => {
                    let b = if send {
                        StructureRule::SentMessageAdded
                    } else {
                        StructureRule::ReceivedMessageAdded
                    };
                    self.presence(
                        (b, Status::Added),
                        owner,
                        &crumbs,
                        format!("message `{name}` was added"),
                        (None, Some(&cmsg.source)),
                    );
                }
            }
        }
        for (name, pmsg) in &p.messages {
            if c.messages.contains_key(name) {
                continue;
            }
            let crumbs = [Crumb::new(NodeKind::Message, name.as_str())];
            let b = if send {
                StructureRule::SentMessageRemoved
            } else {
                StructureRule::ReceivedMessageRemoved
            };
            self.presence(
                (b, Status::Removed),
                owner,
                &crumbs,
                format!("message `{name}` was removed"),
                (Some(&pmsg.source), None),
            );
        }
    }

    fn message(
        &mut self,
        owner: usize,
        mut crumbs: Vec<Crumb>,
        role: Role,
        p: &'a Message,
        c: &'a Message,
    ) {
        let at = (Some(&p.source), Some(&c.source));
        if p.content_type != c.content_type {
            self.option_changed(
                (
                    StructureRule::MessageContentTypeChanged,
                    "content type",
                    "default",
                ),
                owner,
                &crumbs,
                (&p.content_type, &c.content_type),
                at,
            );
        }
        if p.schema_format != c.schema_format {
            self.option_changed(
                (
                    StructureRule::MessageSchemaFormatChanged,
                    "schema format",
                    "default",
                ),
                owner,
                &crumbs,
                (&p.schema_format, &c.schema_format),
                at,
            );
        }
        if p.correlation_id != c.correlation_id {
            self.base(
                StructureRule::MessageCorrelationIdChanged,
                owner,
                &crumbs,
                Status::Modified,
                "correlation id changed".into(),
                sv(p.correlation_id.as_deref()),
                sv(c.correlation_id.as_deref()),
                at,
            );
        }
        self.deprecated(
            StructureRule::MessageDeprecated,
            owner,
            &crumbs,
            format_args!("the message"),
            (p.deprecated, c.deprecated),
            at,
        );
        if !opt_eq(p.description.as_deref(), c.description.as_deref())
            || !opt_eq(p.summary.as_deref(), c.summary.as_deref())
            || !opt_eq(p.title.as_deref(), c.title.as_deref())
        {
            self.base(
                StructureRule::MessageDescriptionChanged,
                owner,
                &crumbs,
                Status::Modified,
                "title, summary or description changed".into(),
                sv(p.description.as_deref()),
                sv(c.description.as_deref()),
                at,
            );
        }
        match (&p.payload, &c.payload) {
            (Some(pp), Some(cp)) => {
                if p.schema_format == c.schema_format {
                    self.schema(owner, &mut crumbs, role, pp, cp, 0);
                }
            }
            (None, Some(_)) => self.base(
                StructureRule::MessagePayloadAdded,
                owner,
                &crumbs,
                Status::Modified,
                "the message now declares a payload schema".into(),
                None,
                None,
                at,
            ),
            (Some(_), None) => self.base(
                StructureRule::MessagePayloadRemoved,
                owner,
                &crumbs,
                Status::Modified,
                "the message no longer declares a payload schema".into(),
                None,
                None,
                at,
            ),
            (None, None) => {}
        }
        if let (Some(ph), Some(ch)) = (&p.headers, &c.headers) {
            crumbs.push(Crumb::new(NodeKind::MessageHeaders, "headers"));
            self.schema(owner, &mut crumbs, role, ph, ch, 0);
        }
    }

    pub(super) fn channels(&mut self, pm: &'a ApiModel, cm: &'a ApiModel) {
        let channel_owner = |e: &mut Self, ch: &Channel, status: Status| {
            e.found.add_owner(Owner {
                item_type: "channel",
                id: format!("channel-{}", slug(&ch.address)),
                name: ch.address.clone(),
                status,
                previous: None,
                current: None,
                endpoint: None,
                matcher: None,
                role: None,
            })
        };
        for (key, c) in &cm.channels {
            match pm.channels.get(key) {
                None => {
                    let owner = channel_owner(self, c, Status::Added);
                    self.presence(
                        (StructureRule::ChannelAdded, Status::Added),
                        owner,
                        &[],
                        format!("channel `{}` was added", c.address),
                        (None, Some(&c.source)),
                    );
                }
                Some(p) => {
                    let owner = channel_owner(self, c, Status::Modified);
                    let at = (Some(&p.source), Some(&c.source));
                    self.text(
                        (StructureRule::ChannelDescriptionChanged, "description"),
                        owner,
                        &[],
                        (p.description.as_deref(), c.description.as_deref()),
                        at,
                    );
                    for (name, cs) in &c.parameters {
                        let mut crumbs =
                            vec![Crumb::new(NodeKind::ChannelParameter, name.as_str())];
                        match p.parameters.get(name) {
                            None => self.presence(
                                (StructureRule::ChannelParameterAdded, Status::Added),
                                owner,
                                &crumbs,
                                format!("channel parameter `{name}` was added"),
                                at,
                            ),
                            Some(ps) => {
                                if let (Some(ps), Some(cs)) = (ps, cs) {
                                    self.schema(
                                        owner,
                                        &mut crumbs,
                                        Role::ChannelParameter,
                                        ps,
                                        cs,
                                        0,
                                    );
                                }
                            }
                        }
                    }
                    for name in p.parameters.keys() {
                        if !c.parameters.contains_key(name) {
                            let crumbs = [Crumb::new(NodeKind::ChannelParameter, name.as_str())];
                            self.presence(
                                (StructureRule::ChannelParameterRemoved, Status::Removed),
                                owner,
                                &crumbs,
                                format!("channel parameter `{name}` was removed"),
                                at,
                            );
                        }
                    }
                }
            }
        }
        for (key, p) in &pm.channels {
            if !cm.channels.contains_key(key) {
                let owner = channel_owner(self, p, Status::Removed);
                self.presence(
                    (StructureRule::ChannelRemoved, Status::Removed),
                    owner,
                    &[],
                    format!("channel `{}` was removed", p.address),
                    (Some(&p.source), None),
                );
            }
        }
    }
}

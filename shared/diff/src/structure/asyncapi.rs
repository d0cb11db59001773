//! AsyncAPI: operations matched by direction and channel (added, removed, deprecated, texts,
//! security), their messages (content type, schema format, correlation id, payload and
//! headers schemas, judged by direction), and channels with their parameters.

use serde_json::json;
use specpress_apispec::{ApiModel, Channel, Direction, Location, Map, Message, MessageOperation};
use specpress_slug::slug;

use super::matching::{Entry, entries};
use super::presence::{CHANNEL, CHANNEL_PARAMETER, RECEIVED_MESSAGE, SENT_MESSAGE};
use crate::change::{Crumb, NodeKind, Owner, Status};
use crate::context::{Context, Versions, opt_eq, sv};
use crate::options::normalize_template;
use crate::rules::{Role, StructureRule};

impl<'a> Context<'a> {
    fn message_operation_owner(&mut self, op: &MessageOperation, status: Status) -> usize {
        let verb = match op.key.direction {
            Direction::Send => "SEND",
            Direction::Receive => "RECEIVE",
        };
        let name = format!("{verb} {}", op.channel_address);
        let value = json!({"channel": op.channel_address, "action": verb.to_ascii_lowercase(), "deprecated": op.deprecated});
        let discriminator = op.key.discriminator.as_deref().unwrap_or("");
        let id = slug(&format!("{name} {discriminator}"));
        let mut owner = Owner::root("operation", id, name, status);
        owner.previous = (status != Status::Added).then(|| value.clone());
        owner.current = (status != Status::Removed).then_some(value);
        owner.matcher = Some(format!("{verb} {}", normalize_template(&op.key.channel)));
        self.found.add_owner(owner)
    }

    /// Marks `owner` unstable when the previous version of its operation, or of the
    /// operation's channel, is below stable (`x-beta`, `x-stability-level`; see
    /// `crate::beta`).
    fn mark_beta_operation(&mut self, owner: usize, before: &MessageOperation) {
        let channel = self
            .previous
            .document
            .model()
            .channels
            .get(&before.key.channel);
        let unstable = self
            .previous_unstable(&before.source)
            .or_else(|| channel.and_then(|c| self.previous_unstable(&c.source)));
        if let Some(o) = self.found.owners.get_mut(owner) {
            o.unstable = unstable;
        }
    }

    /// The AsyncAPI operations of the two documents, by direction and channel.
    pub(super) fn message_operations(&mut self, previous: &'a ApiModel, current: &'a ApiModel) {
        let ops = (&previous.message_operations, &current.message_operations);
        for entry in entries(ops.0, ops.1) {
            match entry {
                Entry::Added(_, op) => {
                    let owner = self.message_operation_owner(op, Status::Added);
                    let rule = (StructureRule::MessageOperationAdded, Status::Added);
                    let message = "the operation was added".into();
                    self.presence(rule, owner, &[], message, (None, Some(&op.source)));
                }
                Entry::Both(_, before, after) => {
                    let owner = self.message_operation_owner(after, Status::Modified);
                    self.mark_beta_operation(owner, before);
                    self.message_operation(owner, before, after);
                }
                Entry::Removed(_, op) => {
                    let owner = self.message_operation_owner(op, Status::Removed);
                    self.mark_beta_operation(owner, op);
                    let rule = if op.deprecated {
                        StructureRule::MessageOperationRemovedAfterDeprecation
                    } else {
                        StructureRule::MessageOperationRemoved
                    };
                    let message = "the operation was removed".into();
                    let at = (Some(&op.source), None);
                    self.presence((rule, Status::Removed), owner, &[], message, at);
                }
            }
        }
    }

    /// Two matched AsyncAPI operations: deprecation, texts, security, messages.
    fn message_operation(
        &mut self,
        owner: usize,
        previous: &'a MessageOperation,
        current: &'a MessageOperation,
    ) {
        let at = (Some(&previous.source), Some(&current.source));
        let sources = (&previous.source, &current.source);
        self.beta_marking(owner, &[], format_args!("the operation"), sources);
        self.deprecated(
            StructureRule::MessageOperationDeprecated,
            owner,
            &[],
            format_args!("the operation"),
            (previous.deprecated, current.deprecated),
            at,
        );
        self.operation_texts(
            (
                StructureRule::MessageOperationIdChanged,
                StructureRule::MessageOperationSummaryChanged,
                StructureRule::MessageOperationDescriptionChanged,
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
        if previous.security.is_some() || current.security.is_some() {
            let requirements = (previous.security.as_ref(), current.security.as_ref());
            self.security_requirements(owner, requirements.0, requirements.1, false, at);
        }
        // What the application sends is read by others (covariant), what it receives is
        // judged like a request.
        let (presence, role) = if current.key.direction == Direction::Send {
            (&SENT_MESSAGE, Role::MessageSent)
        } else {
            (&RECEIVED_MESSAGE, Role::MessageReceived)
        };
        for entry in entries(&previous.messages, &current.messages) {
            match entry {
                Entry::Added(name, message) => {
                    let crumbs = [Crumb::new(NodeKind::Message, name.as_str())];
                    let at = (None, Some(&message.source));
                    self.appeared(presence, owner, &crumbs, name, at);
                }
                Entry::Removed(name, message) => {
                    let crumbs = [Crumb::new(NodeKind::Message, name.as_str())];
                    let at = (Some(&message.source), None);
                    self.disappeared(presence, owner, &crumbs, name, at);
                }
                Entry::Both(name, before, after) => {
                    let crumbs = vec![Crumb::new(NodeKind::Message, name.as_str())];
                    self.message(owner, crumbs, role, before, after);
                }
            }
        }
    }

    /// Two versions of a message of an operation.
    fn message(
        &mut self,
        owner: usize,
        mut crumbs: Vec<Crumb>,
        role: Role,
        previous: &'a Message,
        current: &'a Message,
    ) {
        let at = (Some(&previous.source), Some(&current.source));
        for (rule, what, (before, after)) in [
            (
                StructureRule::MessageContentTypeChanged,
                "content type",
                (&previous.content_type, &current.content_type),
            ),
            (
                StructureRule::MessageSchemaFormatChanged,
                "schema format",
                (&previous.schema_format, &current.schema_format),
            ),
        ] {
            if before != after {
                self.option_changed((rule, what, "default"), owner, &crumbs, (before, after), at);
            }
        }
        if previous.correlation_id != current.correlation_id {
            let values = (
                sv(previous.correlation_id.as_deref()),
                sv(current.correlation_id.as_deref()),
            );
            let rule = StructureRule::MessageCorrelationIdChanged;
            let message = "correlation id changed".into();
            self.modified(rule, owner, &crumbs, message, values, at);
        }
        let sources = (&previous.source, &current.source);
        self.beta_marking(owner, &crumbs, format_args!("the message"), sources);
        self.deprecated(
            StructureRule::MessageDeprecated,
            owner,
            &crumbs,
            format_args!("the message"),
            (previous.deprecated, current.deprecated),
            at,
        );
        let texts = |m: &'a Message| [&m.description, &m.summary, &m.title];
        let same = |(a, b): (&Option<String>, &Option<String>)| opt_eq(a.as_deref(), b.as_deref());
        if !texts(previous).into_iter().zip(texts(current)).all(same) {
            let values = (
                sv(previous.description.as_deref()),
                sv(current.description.as_deref()),
            );
            let rule = StructureRule::MessageDescriptionChanged;
            let message = "title, summary or description changed".into();
            self.modified(rule, owner, &crumbs, message, values, at);
        }
        let (rule, message) = match (&previous.payload, &current.payload) {
            (Some(before), Some(after)) => {
                if previous.schema_format == current.schema_format {
                    self.schema(owner, &mut crumbs, role, before, after, 0);
                }
                (None, "")
            }
            (None, Some(_)) => (
                Some(StructureRule::MessagePayloadAdded),
                "the message now declares a payload schema",
            ),
            (Some(_), None) => (
                Some(StructureRule::MessagePayloadRemoved),
                "the message no longer declares a payload schema",
            ),
            (None, None) => (None, ""),
        };
        if let Some(rule) = rule {
            self.modified(rule, owner, &crumbs, message.into(), (None, None), at);
        }
        if let (Some(before), Some(after)) = (&previous.headers, &current.headers) {
            crumbs.push(Crumb::new(NodeKind::MessageHeaders, "headers"));
            self.schema(owner, &mut crumbs, role, before, after, 0);
        }
    }

    /// The channels of the two documents: added, removed, or their description and
    /// parameters compared.
    pub(super) fn channels(&mut self, previous: &'a ApiModel, current: &'a ApiModel) {
        let channel_owner = |e: &mut Self, channel: &Channel, status: Status| {
            let id = format!("channel-{}", slug(&channel.address));
            let name = channel.address.clone();
            e.found.add_owner(Owner::root("channel", id, name, status))
        };
        for entry in entries(&previous.channels, &current.channels) {
            match entry {
                Entry::Added(_, channel) => {
                    let owner = channel_owner(self, channel, Status::Added);
                    let at = (None, Some(&channel.source));
                    self.appeared(&CHANNEL, owner, &[], &channel.address, at);
                }
                Entry::Removed(_, channel) => {
                    let owner = channel_owner(self, channel, Status::Removed);
                    let at = (Some(&channel.source), None);
                    self.disappeared(&CHANNEL, owner, &[], &channel.address, at);
                }
                Entry::Both(_, before, after) => {
                    let owner = channel_owner(self, after, Status::Modified);
                    let at = (Some(&before.source), Some(&after.source));
                    self.text(
                        (StructureRule::ChannelDescriptionChanged, "description"),
                        owner,
                        &[],
                        (before.description.as_deref(), after.description.as_deref()),
                        at,
                    );
                    let parameters = (&before.parameters, &after.parameters);
                    self.channel_parameters(owner, parameters, at);
                }
            }
        }
    }

    /// The parameters of two versions of a channel, by name.
    fn channel_parameters(
        &mut self,
        owner: usize,
        (previous, current): Versions<'a, Map<String, Option<Location>>>,
        at: (Option<&Location>, Option<&Location>),
    ) {
        for entry in entries(previous, current) {
            match entry {
                Entry::Added(name, _) => {
                    let crumbs = [Crumb::new(NodeKind::ChannelParameter, name.as_str())];
                    self.appeared(&CHANNEL_PARAMETER, owner, &crumbs, name, at);
                }
                Entry::Removed(name, _) => {
                    let crumbs = [Crumb::new(NodeKind::ChannelParameter, name.as_str())];
                    self.disappeared(&CHANNEL_PARAMETER, owner, &crumbs, name, at);
                }
                Entry::Both(name, Some(before), Some(after)) => {
                    let mut crumbs = vec![Crumb::new(NodeKind::ChannelParameter, name.as_str())];
                    let role = Role::ChannelParameter;
                    self.schema(owner, &mut crumbs, role, before, after, 0);
                }
                Entry::Both(..) => {}
            }
        }
    }
}

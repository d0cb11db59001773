//! AsyncAPI (2.x, 3.0): servers, channels, operations and their messages. 2.x `publish` is
//! [`Direction::Receive`] and `subscribe` [`Direction::Send`]; 3.0 `send`/`receive` map directly;
//! several operations in one direction on one channel are told apart by their id.

use crate::V;
use crate::model::*;
use crate::refs::ref_of;

use super::{Builder, b, field, normalize_template, ref_name, s, security, server_variables};

impl<'a> Builder<'a> {
    /// The model of an AsyncAPI document: servers, security schemes, schemas, channels and
    /// operations.
    pub(super) fn asyncapi(&mut self, model: &mut ApiModel) {
        let root = self.doc.root();
        let v3 = self.doc.version() == SpecVersion::AsyncApi30;
        model.servers = self.asyncapi_servers(v3);
        let comps = self.root_loc().child("components");
        model.security_schemes = self.security_schemes(&comps.child("securitySchemes"));
        model.schemas = self.schemas(&comps.child("schemas"));
        let default_ct = s(root, "defaultContentType");
        model.messages = self.component_messages(&comps.child("messages"), v3, &default_ct);
        let mut ops: Vec<MessageOperation> = Vec::new();
        self.channels(v3, &default_ct, model, &mut ops);
        if v3 {
            self.operations_v3(&default_ct, &mut ops);
        }
        add_message_operations(model, ops);
        model.message_operations.sort_keys();
        model.channels.sort_keys();
    }

    /// The document's servers (3.0: `host` and `pathname`; 2.x: `url`).
    fn asyncapi_servers(&self, v3: bool) -> Vec<Server> {
        let mut out = Vec::new();
        let Some(servers) = field(self.doc.root(), "servers").and_then(V::as_object) else {
            return out;
        };
        let rl = self.root_loc();
        for name in servers.keys() {
            let Some((_, sv)) = self.resolve(&rl.child("servers").child(name)) else {
                continue;
            };
            let url = if v3 {
                format!(
                    "{}{}",
                    s(sv, "host").unwrap_or_default(),
                    s(sv, "pathname").unwrap_or_default()
                )
            } else {
                s(sv, "url").unwrap_or_default()
            };
            out.push(Server {
                url,
                description: s(sv, "description"),
                variables: server_variables(field(sv, "variables")),
                protocol: s(sv, "protocol"),
            });
        }
        out
    }

    /// Every channel into the model, by normalized address (the first one written wins); for
    /// 2.x, their `publish` and `subscribe` operations into `ops`.
    fn channels(
        &self,
        v3: bool,
        default_ct: &Option<String>,
        model: &mut ApiModel,
        ops: &mut Vec<MessageOperation>,
    ) {
        let Some(channels) = field(self.doc.root(), "channels").and_then(V::as_object) else {
            return;
        };
        let rl = self.root_loc();
        for id in channels.keys() {
            let Some((cloc, ch)) = self.resolve(&rl.child("channels").child(id)) else {
                continue;
            };
            let address = if v3 {
                match field(ch, "address").and_then(V::as_str) {
                    Some(a) => a.to_string(),
                    None => id.to_string(),
                }
            } else {
                id.to_string()
            };
            let first_op = ops.len();
            let messages = if v3 {
                self.channel_messages(&cloc, ch, default_ct)
            } else {
                self.publish_subscribe(&cloc, ch, &address, default_ct, ops);
                operations_messages(ops.get(first_op..).unwrap_or(&[]))
            };
            let channel = Channel {
                id: id.to_string(),
                address: address.clone(),
                description: s(ch, "description"),
                parameters: self.channel_parameters(&cloc, ch),
                servers: channel_servers(ch),
                messages,
                source: cloc.clone(),
            };
            model
                .channels
                .entry(normalize_template(&address))
                .or_insert(channel);
        }
    }

    /// A 3.0 channel's `messages` map, by key.
    fn channel_messages(
        &self,
        cloc: &Location,
        ch: V<'a>,
        default_ct: &Option<String>,
    ) -> Map<String, Message> {
        let mut messages = Map::default();
        if let Some(ms) = field(ch, "messages").and_then(V::as_object) {
            let at = cloc.child("messages");
            for (i, name) in ms.keys().enumerate() {
                self.push_message(&at.child(name), i, Some(name), default_ct, &mut messages);
            }
        }
        messages
    }

    /// `components/messages` (at `at`), by component key; a message without a `name` (2.x)
    /// is named by its key.
    fn component_messages(
        &self,
        at: &Location,
        v3: bool,
        default_ct: &Option<String>,
    ) -> Map<String, Message> {
        let mut messages = Map::default();
        let Some(ms) = self.doc.value(at).and_then(V::as_object) else {
            return messages;
        };
        for (i, key) in ms.keys().enumerate() {
            let mut one = Map::default();
            self.push_message(&at.child(key), i, Some(key), default_ct, &mut one);
            if let Some((_, mut m)) = one.into_iter().next() {
                let named = self.doc.value(&m.source).and_then(|v| s(v, "name"));
                if !v3 && named.is_none() {
                    m.name = key.to_string();
                }
                messages.insert(key.to_string(), m);
            }
        }
        messages
    }

    /// A channel's parameters by name: where each one's schema is (its `schema`, else the
    /// parameter itself), `None` when it does not resolve.
    fn channel_parameters(&self, cloc: &Location, ch: V<'a>) -> Map<String, Option<Location>> {
        let mut parameters = Map::default();
        if let Some(ps) = field(ch, "parameters").and_then(V::as_object) {
            for name in ps.keys() {
                let resolved = self.resolve(&cloc.child("parameters").child(name));
                let schema = resolved.map(|(ploc, p)| {
                    if field(p, "schema").is_some() {
                        ploc.child("schema")
                    } else {
                        ploc
                    }
                });
                parameters.insert(name.to_string(), schema);
            }
        }
        parameters
    }

    /// The 2.x operations of a channel: `publish` (the application receives) and `subscribe`
    /// (it sends).
    fn publish_subscribe(
        &self,
        cloc: &Location,
        ch: V<'a>,
        address: &str,
        default_ct: &Option<String>,
        ops: &mut Vec<MessageOperation>,
    ) {
        for (verb, direction) in [
            ("publish", Direction::Receive),
            ("subscribe", Direction::Send),
        ] {
            let Some(op) = ch.get(verb) else { continue };
            let oloc = cloc.child(verb);
            let mut messages = Map::default();
            if field(op, "message").is_some() {
                let mloc = oloc.child("message");
                match self.resolve(&mloc) {
                    Some((rloc, m)) if field(m, "oneOf").is_some_and(V::is_array) => {
                        let n = m.get("oneOf").and_then(V::as_array).map_or(0, |a| a.len());
                        for i in 0..n {
                            self.push_message(
                                &rloc.child("oneOf").index(i),
                                i,
                                None,
                                default_ct,
                                &mut messages,
                            );
                        }
                    }
                    Some(_) => self.push_message(&mloc, 0, None, default_ct, &mut messages),
                    None => {}
                }
            }
            ops.push(MessageOperation {
                key: MessageOperationKey {
                    direction,
                    channel: normalize_template(address),
                    discriminator: None,
                },
                operation_id: s(op, "operationId"),
                channel_address: address.to_string(),
                summary: s(op, "summary"),
                description: s(op, "description"),
                deprecated: b(op, "deprecated"),
                messages,
                security: security(field(op, "security")),
                source: oloc,
            });
        }
    }

    /// The 3.0 `operations` (an action other than `send` or `receive` is skipped).
    fn operations_v3(&self, default_ct: &Option<String>, ops: &mut Vec<MessageOperation>) {
        let Some(operations) = field(self.doc.root(), "operations").and_then(V::as_object) else {
            return;
        };
        let rl = self.root_loc();
        for id in operations.keys() {
            let Some((oloc, op)) = self.resolve(&rl.child("operations").child(id)) else {
                continue;
            };
            let direction = match field(op, "action").and_then(V::as_str) {
                Some("send") => Direction::Send,
                Some("receive") => Direction::Receive,
                _ => continue,
            };
            let channel = self.resolve(&oloc.child("channel"));
            let address = match &channel {
                Some((cloc, ch)) => match field(*ch, "address").and_then(V::as_str) {
                    Some(a) => a.to_string(),
                    None => cloc.pointer.rsplit('/').next().unwrap_or("").to_string(),
                },
                None => String::new(),
            };
            let messages = self.messages_v3(&oloc, op, channel.as_ref(), default_ct);
            ops.push(MessageOperation {
                key: MessageOperationKey {
                    direction,
                    channel: normalize_template(&address),
                    discriminator: None,
                },
                operation_id: Some(id.to_string()),
                channel_address: address,
                summary: s(op, "summary"),
                description: s(op, "description"),
                deprecated: b(op, "deprecated"),
                messages,
                security: security(field(op, "security")),
                source: oloc,
            });
        }
    }

    /// A 3.0 operation's messages: its `messages` list, else every message of its channel.
    fn messages_v3(
        &self,
        oloc: &Location,
        op: V<'a>,
        channel: Option<&(Location, V<'a>)>,
        default_ct: &Option<String>,
    ) -> Map<String, Message> {
        let mut messages = Map::default();
        match field(op, "messages").and_then(V::as_array) {
            Some(list) => {
                for i in 0..list.len() {
                    self.push_message(
                        &oloc.child("messages").index(i),
                        i,
                        None,
                        default_ct,
                        &mut messages,
                    );
                }
            }
            None => {
                if let Some((cloc, ch)) = channel
                    && let Some(ms) = field(*ch, "messages").and_then(V::as_object)
                {
                    for (i, name) in ms.keys().enumerate() {
                        self.push_message(
                            &cloc.child("messages").child(name),
                            i,
                            Some(name),
                            default_ct,
                            &mut messages,
                        );
                    }
                }
            }
        }
        messages
    }

    fn push_message(
        &self,
        loc: &Location,
        index: usize,
        id: Option<&str>,
        default_ct: &Option<String>,
        out: &mut Map<String, Message>,
    ) {
        let written = self.doc.value(loc);
        let comp_name = written.and_then(ref_of).and_then(ref_name);
        let Some((mloc, m)) = self.resolve(loc) else {
            return;
        };
        let (payload, schema_format) = match field(m, "payload") {
            Some(p) if field(p, "schemaFormat").is_some() && field(p, "schema").is_some() => (
                Some(mloc.child("payload").child("schema")),
                s(p, "schemaFormat"),
            ),
            Some(_) => (Some(mloc.child("payload")), s(m, "schemaFormat")),
            None => (None, s(m, "schemaFormat")),
        };
        let schema_format =
            schema_format.filter(|f| !f.starts_with("application/vnd.aai.asyncapi"));
        let correlation_id = field(m, "correlationId").and_then(|_| {
            let (_, c) = self.resolve(&mloc.child("correlationId"))?;
            s(c, "location")
        });
        // AsyncAPI 3 messages are identified by their key in the channel (which is what the
        // operation's `$ref` ends with); 2.x ones by `name`, else their component key.
        let name = if self.doc.version() == SpecVersion::AsyncApi30 {
            id.map(str::to_string)
                .or(comp_name)
                .or_else(|| s(m, "name"))
        } else {
            s(m, "name").or(comp_name)
        }
        .unwrap_or_else(|| format!("message{index}"));
        let mut key = name.clone();
        let mut n = 1;
        while out.contains_key(&key) {
            n += 1;
            key = format!("{name}#{n}");
        }
        out.insert(
            key,
            Message {
                name,
                title: s(m, "title"),
                summary: s(m, "summary"),
                description: s(m, "description"),
                content_type: s(m, "contentType").or_else(|| default_ct.clone()),
                payload,
                headers: field(m, "headers").map(|_| mloc.child("headers")),
                correlation_id,
                schema_format,
                deprecated: b(m, "deprecated"),
                source: mloc,
            },
        );
    }
}

/// A channel's `servers`: names (2.x) or references to servers (3.0), by name.
fn channel_servers(ch: V<'_>) -> Vec<String> {
    match field(ch, "servers").and_then(V::as_array) {
        Some(a) => a
            .iter()
            .filter_map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .or_else(|| ref_of(x).and_then(ref_name))
            })
            .collect(),
        None => Vec::new(),
    }
}

/// The operations into the model, keyed by direction and channel; several in one direction on
/// one channel are told apart by their id (else their position).
fn add_message_operations(model: &mut ApiModel, ops: Vec<MessageOperation>) {
    let mut counts: Map<(Direction, String), usize> = Map::default();
    for op in &ops {
        *counts
            .entry((op.key.direction, op.key.channel.clone()))
            .or_default() += 1;
    }
    for (i, mut op) in ops.into_iter().enumerate() {
        if counts
            .get(&(op.key.direction, op.key.channel.clone()))
            .copied()
            .unwrap_or(0)
            > 1
        {
            op.key.discriminator = Some(op.operation_id.clone().unwrap_or_else(|| i.to_string()));
        }
        model.message_operations.entry(op.key.clone()).or_insert(op);
    }
}

/// The messages of a 2.x channel's operations, each (by where it is) once, by name.
fn operations_messages(ops: &[MessageOperation]) -> Map<String, Message> {
    let mut out: Map<String, Message> = Map::default();
    let mut seen = std::collections::HashSet::new();
    for m in ops.iter().flat_map(|op| op.messages.values()) {
        if !seen.insert(&m.source) {
            continue;
        }
        let mut key = m.name.clone();
        let mut n = 1;
        while out.contains_key(&key) {
            n += 1;
            key = format!("{}#{n}", m.name);
        }
        out.insert(key, m.clone());
    }
    out
}

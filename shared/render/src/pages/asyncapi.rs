//! AsyncAPI pages: a channel (address, id, parameters, bindings, operations, messages), an
//! operation (who sends what, its messages with their headers, payload and examples), and a
//! component message no channel uses.

use specpress_apispec::{Direction, Document, MessageOperation, SpecVersion, V};

use askama::Template;

use crate::html::{Html, Out, truncate};
use crate::schema::{self, Ctx, Mode};
use crate::site::{resolve_value, slug};
use crate::tpl;

use super::lists::ops_list;
use super::security::requirements;
use super::{MAX_EXAMPLES, md, str_at};

#[derive(Template)]
#[template(path = "pages/channel.html", escape = "engine")]
struct ChannelPage<'a> {
    address: &'a str,
    title: Option<&'a str>,
    description: Option<Html>,
    servers: &'a [String],
    /// The parameters' rows, when the channel has parameters.
    parameters: Option<Html>,
    bindings: Vec<(&'a str, Html)>,
    /// The list of the operations on the channel, if any.
    operations: Option<Html>,
    /// The channel's id (its key in `channels`), when it differs from its address.
    id: Option<&'a str>,
    /// The channel's messages (at most [`MAX_CHANNEL_MESSAGES`]).
    messages: Vec<ChannelMessage<'a>>,
    /// How many messages the channel has (more than listed when the list is cut).
    messages_total: usize,
}

/// Upper bound on the messages a channel page lists.
const MAX_CHANNEL_MESSAGES: usize = 400;

/// One message of a channel's list.
struct ChannelMessage<'a> {
    name: &'a str,
    title: Option<&'a str>,
    summary: Option<&'a str>,
    content_type: Option<&'a str>,
    /// Where the message is shown: the page of an operation that carries it, at its heading.
    href: Option<String>,
}

/// A component message no channel uses, on a page of its own.
#[derive(Template)]
#[template(path = "pages/lone_message.html", escape = "engine")]
struct LoneMessagePage<'a> {
    key: &'a str,
    msg: MessageView<'a>,
}

/// Where a channel parameter's value is read from.
#[derive(Template)]
#[template(path = "pages/channel_parameter.html", escape = "engine")]
struct ChannelParameter<'a> {
    location: &'a str,
}

#[derive(Template)]
#[template(path = "pages/message.html", escape = "engine")]
struct MessagePage<'a> {
    title: &'a str,
    badge: &'static str,
    verb: &'static str,
    channel_href: Option<String>,
    channel_address: &'a str,
    /// Who sends the message, told from the reader's side (see [`message_direction`]).
    app: &'a str,
    sends: bool,
    spec_major: u8,
    spec_verb: &'static str,
    deprecated: bool,
    operation_id: Option<&'a str>,
    description: Option<Html>,
    security: Option<Html>,
    bindings: Vec<(&'a str, Html)>,
    messages: Vec<MessageView<'a>>,
}

struct MessageView<'a> {
    name: &'a str,
    /// The id of its heading ([`message_anchor`]).
    anchor: String,
    title: Option<&'a str>,
    summary: Option<&'a str>,
    deprecated: bool,
    description: Option<Html>,
    content_type: Option<&'a str>,
    correlation_id: Option<&'a str>,
    schema_format: Option<&'a str>,
    headers: Option<Html>,
    payload: Option<Html>,
    examples: Vec<ExampleView<'a>>,
    /// An example generated from the payload schema, when the message has no example.
    generated: Option<Html>,
    bindings: Vec<(&'a str, Html)>,
}

struct ExampleView<'a> {
    name: Option<&'a str>,
    headers: Option<Html>,
    payload: Option<Html>,
}

/// The members of a `bindings` object: protocol and compact JSON.
fn bindings(v: Option<V<'_>>) -> Vec<(&str, Html)> {
    let Some(b) = v.and_then(V::as_object) else {
        return Vec::new();
    };
    b.iter()
        .map(|(proto, val)| {
            let mut out = Out::new();
            schema::inline_value(val, &mut out);
            (proto, out.finish())
        })
        .collect()
}

pub(super) fn channel_page(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
    let doc = c.doc;
    let site = c.site;
    let (key, ch) = doc.model().channels.get_index(i as usize)?;
    let src = doc.value(&ch.source);
    let description = ch.description.as_deref().map(|d| md(d, 2));
    let mut parameters = None;
    if !ch.parameters.is_empty() {
        let mut rows = Out::new();
        for (name, loc) in &ch.parameters {
            let pdesc = src
                .and_then(|v| v.get("parameters"))
                .and_then(|p| p.get(name))
                .and_then(|p| {
                    let ploc = ch.source.child("parameters").child(name);
                    resolve_value(doc, &ploc, p)
                });
            let extra = pdesc
                .and_then(|p| str_at(p, "location"))
                .map(|location| tpl::render(&ChannelParameter { location }, 96))
                .unwrap_or_default();
            schema::field_row(
                c,
                name,
                loc.as_ref(),
                true,
                false,
                pdesc.and_then(|p| str_at(p, "description")),
                &extra,
                Mode::Neutral,
                &mut rows,
            );
        }
        parameters = Some(rows.finish());
    }
    let ops: Vec<u32> = doc
        .model()
        .message_operations
        .values()
        .enumerate()
        .filter(|(_, o)| o.key.channel == *key)
        .map(|(k, _)| site.message_pages[k])
        .collect();
    let operations = (!ops.is_empty()).then(|| ops_list(c, &ops));
    let messages = channel_messages(c, key, ch);
    let page = ChannelPage {
        address: &ch.address,
        title: src.and_then(|v| str_at(v, "title")),
        description,
        servers: &ch.servers,
        parameters,
        bindings: bindings(src.and_then(|v| v.get("bindings"))),
        operations,
        id: (ch.id != ch.address).then_some(ch.id.as_str()),
        messages,
        messages_total: ch.messages.len(),
    };
    Some(tpl::render(&page, 8192))
}

/// The messages of the channel `key` (at most [`MAX_CHANNEL_MESSAGES`]), each linked to the
/// first operation page that shows it.
fn channel_messages<'a>(
    c: &Ctx<'a>,
    key: &str,
    ch: &'a specpress_apispec::Channel,
) -> Vec<ChannelMessage<'a>> {
    let model = c.doc.model();
    let ops: Vec<(usize, &MessageOperation)> = model
        .message_operations
        .values()
        .enumerate()
        .filter(|(_, o)| o.key.channel == *key)
        .collect();
    ch.messages
        .values()
        .take(MAX_CHANNEL_MESSAGES)
        .map(|m| {
            let shown = ops.iter().find_map(|&(k, op)| {
                let shown = op.messages.values().find(|x| x.source == m.source)?;
                let page = c.site.message_pages.get(k)?;
                let path = &c.site.pages.get(*page as usize)?.path;
                Some(format!(
                    "{}#{}",
                    tpl::href(c.base, path),
                    message_anchor(&shown.name)
                ))
            });
            ChannelMessage {
                name: &m.name,
                title: m.title.as_deref(),
                summary: m.summary.as_deref(),
                content_type: m.content_type.as_deref(),
                href: shown,
            }
        })
        .collect()
}

/// The id of a message's heading on an operation page.
fn message_anchor(name: &str) -> String {
    format!("message-{}", slug(name))
}

/// The page of a component message no channel uses.
pub(super) fn lone_message_page(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
    let doc = c.doc;
    let (key, m) = doc.model().messages.get_index(i as usize)?;
    let msg = message(c, m);
    Some(tpl::render(&LoneMessagePage { key, msg }, 8192))
}

pub(super) fn message_page(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
    let doc = c.doc;
    let site = c.site;
    let (_, op) = doc.model().message_operations.get_index(i as usize)?;
    let (badge, verb) = match op.key.direction {
        Direction::Send => ("send", "SEND"),
        Direction::Receive => ("receive", "RECV"),
    };
    let channel = doc.model().channels.get_index_of(&op.key.channel);
    let channel_href = channel
        .and_then(|ci| site.channel_pages.get(ci))
        .map(|&p| tpl::href(c.base, &site.pages[p as usize].path));
    let (app, spec_major, spec_verb) = message_direction(doc, op);
    let description = op.description.as_deref().map(|d| md(d, 3));
    let security = op.security.as_deref().map(requirements);
    let bindings_of_op = bindings(doc.value(&op.source).and_then(|v| v.get("bindings")));
    let messages = op.messages.values().map(|m| message(c, m)).collect();
    let page = MessagePage {
        title: &site.pages[site.message_pages[i as usize] as usize].title,
        badge,
        verb,
        channel_href,
        channel_address: &op.channel_address,
        app,
        sends: matches!(op.key.direction, Direction::Send),
        spec_major,
        spec_verb,
        deprecated: op.deprecated,
        operation_id: op.operation_id.as_deref(),
        description,
        security,
        bindings: bindings_of_op,
        messages,
    };
    Some(tpl::render(&page, 8192))
}

/// One message of an operation: its metadata, schema trees and examples.
fn message<'a>(c: &mut Ctx<'a>, m: &'a specpress_apispec::Message) -> MessageView<'a> {
    let doc = c.doc;
    let description = m.description.as_deref().map(|d| md(d, 3));
    let headers = m
        .headers
        .as_ref()
        .map(|hl| schema::tree(c, hl, Mode::Neutral));
    let payload = m
        .payload
        .as_ref()
        .map(|pl| schema::tree(c, pl, Mode::Neutral));
    let src = doc.value(&m.source);
    let mut examples = Vec::new();
    if let Some(xs) = src.and_then(|v| v.get("examples")).and_then(V::as_array) {
        for (k, ex) in xs.iter().enumerate().take(MAX_EXAMPLES) {
            let ex_loc = m.source.child("examples").index(k);
            let Some(ex) = resolve_value(doc, &ex_loc, ex) else {
                continue;
            };
            let block = |v: V<'_>| {
                let mut out = Out::new();
                schema::example_block(v, &mut out);
                out.finish()
            };
            examples.push(ExampleView {
                name: str_at(ex, "name").or_else(|| str_at(ex, "summary")),
                headers: ex.get("headers").map(block),
                payload: ex.get("payload").map(block),
            });
        }
    }
    let mut generated = None;
    if examples.is_empty()
        && let Some(pl) = &m.payload
    {
        let v = schema::generate(c, pl, Mode::Neutral);
        if !v.is_null() {
            let text = serde_json::to_string_pretty(&v).unwrap_or_default();
            let (text, cut) = truncate(&text, schema::MAX_EXAMPLE_BYTES);
            let mut out = Out::new();
            schema::code_block(text, "json", cut, &mut out);
            generated = Some(out.finish());
        }
    }
    MessageView {
        name: &m.name,
        anchor: message_anchor(&m.name),
        title: m.title.as_deref(),
        summary: m.summary.as_deref(),
        deprecated: m.deprecated,
        description,
        content_type: m.content_type.as_deref(),
        correlation_id: m.correlation_id.as_deref(),
        schema_format: m.schema_format.as_deref(),
        headers,
        payload,
        examples,
        generated,
        bindings: bindings(src.and_then(|v| v.get("bindings"))),
    }
}

/// Who sends the message, told from the reader's side: the application's name, and the
/// specification's version and word for the direction. The model's direction is the
/// application's: AsyncAPI 2.x `subscribe` and 3.0 `send` mean the application sends.
fn message_direction<'d>(doc: &'d Document, op: &MessageOperation) -> (&'d str, u8, &'static str) {
    let app = if doc.title().trim().is_empty() {
        "The application"
    } else {
        doc.title()
    };
    let (major, verb) = match (doc.version(), op.key.direction) {
        (SpecVersion::AsyncApi2 { .. }, Direction::Send) => (2, "subscribe"),
        (SpecVersion::AsyncApi2 { .. }, Direction::Receive) => (2, "publish"),
        (_, Direction::Send) => (3, "send"),
        (_, Direction::Receive) => (3, "receive"),
    };
    (app, major, verb)
}

//! The element a change is about (its owner and the path below it) and its old and new rule,
//! written as a note's first paragraphs.

use serde_json::Value;
use specpress_apispec::ParameterIn;

use super::markdown::Md;
use crate::change::{Change, Crumb, NodeKind, Owner, Status};
use crate::rules::Role;

/// Steps of the path below the owner that are named (a deeper path is cut with `…`).
const MAX_STEPS: usize = 12;
/// Bytes of a value written inline (compact JSON).
const MAX_VALUE_BYTES: usize = 200;

/// `In `POST /pets` › request body › media type `application/json` › property `name``.
pub(crate) fn write(md: &mut Md, owner: &Owner<'_>, crumbs: &[Crumb]) {
    md.text("**Where:** ");
    write_owner(md, owner);
    let shown = crumbs.len().min(MAX_STEPS);
    for c in &crumbs[..shown] {
        md.text(" › ");
        step(md, c);
    }
    if crumbs.len() > shown {
        md.text(" › …");
    }
    md.end();
}

fn write_owner(md: &mut Md, owner: &Owner<'_>) {
    if let Some(role) = owner.role {
        md.text("schema ").code(&owner.name).text(role_words(role));
        return;
    }
    md.text(match owner.item_type {
        "endpoint" => "operation ",
        "webhook" => "webhook ",
        "callback" => "callback ",
        "operation" => "operation ",
        "channel" => "channel ",
        "server" => "server ",
        "security_scheme" => "security scheme ",
        "security" => "the document's security requirement",
        _ => "",
    });
    if owner.item_type != "security" {
        md.code(&owner.name);
    }
}

/// How a shared schema is used, said after its name.
pub(crate) fn role_words(role: Role) -> &'static str {
    match role {
        Role::RequestParameter => " (in request parameters)",
        Role::RequestBody => " (in request bodies)",
        Role::ResponseBody => " (in response bodies)",
        Role::ResponseHeader => " (in response headers)",
        Role::MessageReceived => " (in messages the application receives)",
        Role::MessageSent => " (in messages the application sends)",
        Role::ChannelParameter => " (in channel parameters)",
        Role::CallbackParameter => " (in callback request parameters)",
    }
}

fn step(md: &mut Md, c: &Crumb) {
    let (label, named) = match c.kind {
        NodeKind::Parameter(ParameterIn::Path) => ("path parameter ", true),
        NodeKind::Parameter(ParameterIn::Query) => ("query parameter ", true),
        NodeKind::Parameter(ParameterIn::Header) => ("header parameter ", true),
        NodeKind::Parameter(ParameterIn::Cookie) => ("cookie parameter ", true),
        NodeKind::Body => ("request body", false),
        NodeKind::MediaType => ("media type ", true),
        NodeKind::Response => ("response ", true),
        NodeKind::Header => ("header ", true),
        NodeKind::Property => ("property ", true),
        NodeKind::Items => ("items", false),
        NodeKind::AdditionalProperties => ("additional properties", false),
        NodeKind::Variant => ("alternative ", true),
        NodeKind::Condition => ("keyword ", true),
        NodeKind::SchemaLink => ("schema ", true),
        NodeKind::Security => ("security ", true),
        NodeKind::Server => ("server ", true),
        NodeKind::Variable => ("variable ", true),
        NodeKind::Callback => ("callback ", true),
        NodeKind::Message => ("message ", true),
        NodeKind::MessageHeaders => ("message headers", false),
        NodeKind::ChannelParameter => ("channel parameter ", true),
        NodeKind::Flow => ("flow ", true),
    };
    md.text(label);
    if named {
        md.code(&c.name);
    }
}

/// `**Before:** `maxLength` `10`. **After:** `maxLength` `5`.` from the change's values, or its
/// status when it carries none (a thing added or removed as a whole).
pub(crate) fn before_after(md: &mut Md, change: &Change, attribute: &'static str) {
    md.text("**Before:** ");
    side(
        md,
        change.previous.as_ref(),
        change.status == Status::Added,
        attribute,
    );
    md.text(" **After:** ");
    side(
        md,
        change.current.as_ref(),
        change.status == Status::Removed,
        attribute,
    );
    md.end();
}

fn side(md: &mut Md, value: Option<&Value>, absent: bool, attribute: &'static str) {
    match value {
        Some(v) => {
            md.text("`").text(attribute).text("` ");
            value_code(md, v);
            md.text(".");
        }
        None if absent => {
            md.text("absent.");
        }
        None => {
            md.text("present.");
        }
    }
}

/// A value as inline code: a string as it is, anything else as compact JSON (cut).
pub(crate) fn value_code(md: &mut Md, v: &Value) {
    match v {
        Value::String(s) => {
            md.code(s);
        }
        other => {
            let mut s = serde_json::to_string(other).unwrap_or_default();
            if s.len() > MAX_VALUE_BYTES {
                let mut end = MAX_VALUE_BYTES;
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                s.truncate(end);
                s.push('…');
            }
            md.code(&s);
        }
    }
}

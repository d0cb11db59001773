//! The element a change is about (its owner and the path below it) and its old and new rule,
//! written as a note's first paragraphs.

use serde_json::Value;
use specpress_apispec::{Document, Location, ParameterIn};

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

/// Schema keywords whose old and new values a note reads from the documents (the change's own
/// values are a summary: the removed enum values, a bound as a float).
const KEYWORDS: [&str; 18] = [
    "type",
    "format",
    "enum",
    "const",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "maxItems",
    "minItems",
    "maxProperties",
    "minProperties",
    "pattern",
    "multipleOf",
    "uniqueItems",
    "nullable",
];

/// The old and new rule: for a schema keyword, its value in each document (`not set` for a side
/// without it); else the change's values, `**Before:**`/`**After:**` when it has both,
/// `**Removed:**`/`**Added:**` when it has one, and for a thing added or removed as a whole, that
/// it was absent or present.
pub(crate) fn before_after(
    md: &mut Md,
    change: &Change,
    attribute: &'static str,
    (previous, current): (&Document, &Document),
) {
    if KEYWORDS.contains(&attribute) {
        let read = |doc: &Document, at: Option<&Location>| -> Option<Value> {
            doc.value(at?)?.get(attribute).map(|v| v.to_value())
        };
        let before = read(previous, change.previous_at.as_ref());
        let after = read(current, change.current_at.as_ref());
        if (before.is_some() || after.is_some()) && before != after {
            md.text("**Before:** ");
            keyword(md, attribute, before.as_ref());
            md.text(" **After:** ");
            keyword(md, attribute, after.as_ref());
            md.end();
            return;
        }
    }
    match (&change.previous, &change.current, change.status) {
        (Some(b), Some(a), _) => {
            md.text("**Before:** ");
            keyword(md, attribute, Some(b));
            md.text(" **After:** ");
            keyword(md, attribute, Some(a));
        }
        (Some(b), None, _) => {
            md.text("**Removed:** ");
            keyword(md, attribute, Some(b));
        }
        (None, Some(a), _) => {
            md.text("**Added:** ");
            keyword(md, attribute, Some(a));
        }
        (None, None, Status::Added) => {
            md.text("**Before:** absent. **After:** present.");
        }
        (None, None, Status::Removed) => {
            md.text("**Before:** present. **After:** absent.");
        }
        (None, None, Status::Modified) => {}
    }
    md.end();
}

/// `` `maxLength` `10`. `` or `` `maxLength` not set. ``
fn keyword(md: &mut Md, attribute: &'static str, value: Option<&Value>) {
    md.text("`").text(attribute).text("` ");
    match value {
        Some(v) => {
            value_code(md, v);
            md.text(".");
        }
        None => {
            md.text("not set.");
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

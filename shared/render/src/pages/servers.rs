//! The servers of a document or an operation, and the protocol details of AsyncAPI servers.

use specpress_spec::{Document, Location, Server, V};

use crate::html::Out;
use crate::schema;
use crate::site::resolve_value;

use super::{first_line, str_at};

pub(super) fn servers_section(out: &mut Out, _doc: &Document, servers: &[Server], h: u8) {
    if servers.is_empty() {
        return;
    }
    out.raw("<h")
        .num(h)
        .raw(">Servers</h")
        .num(h)
        .raw("><ul class=\"ops\">");
    for s in servers {
        out.raw("<li>");
        if let Some(p) = &s.protocol {
            out.raw("<span class=\"b\">").text(p).raw("</span> ");
        }
        out.raw("<code>").text(&s.url).raw("</code>");
        if let Some(d) = &s.description {
            out.raw(" <span class=\"note\">")
                .text(&first_line(d, 300))
                .raw("</span>");
        }
        if !s.variables.is_empty() {
            out.raw("<ul class=\"meta\">");
            for (name, v) in &s.variables {
                out.raw("<li><code>{").text(name).raw("}</code>");
                if let Some(d) = &v.default {
                    out.raw(" default <code>").text(d).raw("</code>");
                }
                if !v.enumeration.is_empty() {
                    out.raw(", one of ");
                    for (i, e) in v.enumeration.iter().take(30).enumerate() {
                        if i > 0 {
                            out.raw(", ");
                        }
                        out.raw("<code>").text(e).raw("</code>");
                    }
                }
                out.raw("</li>");
            }
            out.raw("</ul>");
        }
        out.raw("</li>");
    }
    out.raw("</ul>");
}

/// AsyncAPI servers: protocol versions and bindings, by name.
pub(super) fn asyncapi_server_details(out: &mut Out, doc: &Document) {
    let Some(servers) = doc.root().get("servers").and_then(V::as_object) else {
        return;
    };
    let mut any = false;
    for (name, sv) in servers.iter() {
        let loc = Location::root(specpress_spec::FileId::ROOT)
            .child("servers")
            .child(name);
        let Some(sv) = resolve_value(doc, &loc, sv) else {
            continue;
        };
        let version = str_at(sv, "protocolVersion");
        let bindings = sv
            .get("bindings")
            .filter(|b| b.as_object().is_some_and(|o| !o.is_empty()));
        if version.is_none() && bindings.is_none() {
            continue;
        }
        if !any {
            out.raw("<dl class=\"kv\">");
            any = true;
        }
        out.raw("<dt>").text(name).raw("</dt><dd>");
        if let Some(v) = version {
            out.raw("protocol version <code>").text(v).raw("</code> ");
        }
        if let Some(b) = bindings {
            out.raw("bindings ");
            schema::inline_value(b, out);
        }
        out.raw("</dd>");
    }
    if any {
        out.raw("</dl>");
    }
}

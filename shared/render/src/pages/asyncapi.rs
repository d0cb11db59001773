//! AsyncAPI pages: a channel (address, parameters, bindings, operations) and an operation (who
//! sends what, its messages with their headers, payload and examples).

use specpress_spec::{Direction, Document, MessageOperation, SpecVersion, V};

use crate::html::{Html, Out, truncate};
use crate::schema::{self, Ctx, Mode};
use crate::site::resolve_value;

use super::lists::ops_list;
use super::security::requirements;
use super::{MAX_EXAMPLES, heading, md, str_at};

fn bindings(v: Option<V<'_>>, h: u8, out: &mut Out) {
    let Some(b) = v.and_then(V::as_object).filter(|o| !o.is_empty()) else {
        return;
    };
    heading(out, h, None, "Bindings");
    out.raw("<dl class=\"kv\">");
    for (proto, val) in b.iter() {
        out.raw("<dt>").text(proto).raw("</dt><dd>");
        schema::inline_value(val, out);
        out.raw("</dd>");
    }
    out.raw("</dl>");
}

pub(super) fn channel_page(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
    let doc = c.doc;
    let site = c.site;
    let (key, ch) = doc.model().channels.get_index(i as usize)?;
    let src = doc.value(&ch.source);
    let mut out = Out::new();
    out.raw("<h1>Channel <code>")
        .text(&ch.address)
        .raw("</code></h1>");
    if let Some(t) = src.and_then(|v| str_at(v, "title")) {
        out.raw("<p class=\"lead\">").text(t).raw("</p>");
    }
    if let Some(d) = &ch.description {
        md(&mut out, d, 2);
    }
    if !ch.servers.is_empty() {
        out.raw("<p>Available on servers: ");
        for (k, s) in ch.servers.iter().enumerate() {
            if k > 0 {
                out.raw(", ");
            }
            out.raw("<code>").text(s).raw("</code>");
        }
        out.raw("</p>");
    }
    if !ch.parameters.is_empty() {
        heading(&mut out, 2, None, "Parameters");
        out.raw("<ul class=\"ps\">");
        for (name, loc) in &ch.parameters {
            let pdesc = src
                .and_then(|v| v.get("parameters"))
                .and_then(|p| p.get(name))
                .and_then(|p| {
                    let ploc = ch.source.child("parameters").child(name);
                    resolve_value(doc, &ploc, p)
                });
            let mut extra = Out::new();
            if let Some(loc_expr) = pdesc.and_then(|p| str_at(p, "location")) {
                extra
                    .raw("<p class=\"pc\"><span class=\"c\">read from <code>")
                    .text(loc_expr)
                    .raw("</code></span></p>");
            }
            schema::field_row(
                c,
                name,
                loc.as_ref(),
                true,
                false,
                pdesc.and_then(|p| str_at(p, "description")),
                &extra.finish(),
                Mode::Neutral,
                &mut out,
            );
        }
        out.raw("</ul>");
    }
    bindings(src.and_then(|v| v.get("bindings")), 2, &mut out);
    let ops: Vec<u32> = doc
        .model()
        .message_operations
        .values()
        .enumerate()
        .filter(|(_, o)| o.key.channel == *key)
        .map(|(k, _)| site.message_pages[k])
        .collect();
    if !ops.is_empty() {
        out.raw("<h2>Operations</h2>");
        ops_list(c, &mut out, &ops);
    }
    Some(out.finish())
}

pub(super) fn message_page(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
    let doc = c.doc;
    let site = c.site;
    let (_, op) = doc.model().message_operations.get_index(i as usize)?;
    let mut out = Out::new();
    let title = site.pages[site.message_pages[i as usize] as usize]
        .title
        .clone();
    out.raw("<h1>").text(&title).raw("</h1>");
    let (badge, verb) = match op.key.direction {
        Direction::Send => ("send", "SEND"),
        Direction::Receive => ("receive", "RECV"),
    };
    out.raw("<p class=\"endpoint\"><span class=\"m ")
        .raw(badge)
        .raw("\">")
        .raw(verb)
        .raw("</span>");
    let channel = doc.model().channels.get_index_of(&op.key.channel);
    match channel.and_then(|ci| site.channel_pages.get(ci)) {
        Some(&p) => {
            out.link_open(c.base, &site.pages[p as usize].path)
                .raw("<code>")
                .text(&op.channel_address)
                .raw("</code></a>");
        }
        None => {
            out.raw("<code>").text(&op.channel_address).raw("</code>");
        }
    }
    out.raw("</p>");
    message_direction(doc, op, &mut out);
    if op.deprecated {
        out.raw("<p class=\"warn\"><strong>Deprecated.</strong></p>");
    }
    if let Some(id) = &op.operation_id {
        out.raw("<ul class=\"meta\"><li>Operation id <code>")
            .text(id)
            .raw("</code></li></ul>");
    }
    if let Some(d) = &op.description {
        md(&mut out, d, 3);
    }
    if let Some(req) = &op.security {
        heading(&mut out, 2, None, "Authentication");
        out.raw("<p>");
        requirements(&mut out, req);
        out.raw("</p>");
    }
    bindings(
        doc.value(&op.source).and_then(|v| v.get("bindings")),
        2,
        &mut out,
    );
    for (key, m) in &op.messages {
        out.raw("<h2>Message <code>")
            .text(&m.name)
            .raw("</code></h2>");
        let _ = key;
        if let Some(t) = &m.title {
            out.raw("<p class=\"lead\">").text(t).raw("</p>");
        }
        if let Some(s) = &m.summary {
            out.raw("<p>").text(s).raw("</p>");
        }
        if m.deprecated {
            out.raw("<p class=\"warn\"><strong>Deprecated message.</strong></p>");
        }
        if let Some(d) = &m.description {
            md(&mut out, d, 3);
        }
        let mut kv = Out::new();
        if let Some(ct) = &m.content_type {
            kv.raw("<dt>Content type</dt><dd><code>")
                .text(ct)
                .raw("</code></dd>");
        }
        if let Some(cid) = &m.correlation_id {
            kv.raw("<dt>Correlation id</dt><dd><code>")
                .text(cid)
                .raw("</code></dd>");
        }
        if let Some(f) = &m.schema_format {
            kv.raw("<dt>Schema format</dt><dd><code>")
                .text(f)
                .raw("</code></dd>");
        }
        if kv.len() > 0 {
            out.raw("<dl class=\"kv\">").html(&kv.finish()).raw("</dl>");
        }
        if let Some(hl) = &m.headers {
            out.raw("<h3>Headers</h3>");
            let t = schema::tree(c, hl, Mode::Neutral);
            out.html(&t);
        }
        if let Some(pl) = &m.payload {
            out.raw("<h3>Payload</h3>");
            let t = schema::tree(c, pl, Mode::Neutral);
            out.html(&t);
        }
        let src = doc.value(&m.source);
        let mut shown = 0;
        if let Some(xs) = src.and_then(|v| v.get("examples")).and_then(V::as_array) {
            for (k, ex) in xs.iter().enumerate().take(MAX_EXAMPLES) {
                let ex_loc = m.source.child("examples").index(k);
                let Some(ex) = resolve_value(doc, &ex_loc, ex) else {
                    continue;
                };
                out.raw("<h3>Example");
                if let Some(n) = str_at(ex, "name").or_else(|| str_at(ex, "summary")) {
                    out.raw(": ").text(n);
                }
                out.raw("</h3>");
                if let Some(hv) = ex.get("headers") {
                    out.raw("<p class=\"mt\">Headers</p>");
                    schema::example_block(hv, &mut out);
                }
                if let Some(pv) = ex.get("payload") {
                    out.raw("<p class=\"mt\">Payload</p>");
                    schema::example_block(pv, &mut out);
                }
                shown += 1;
            }
        }
        if shown == 0
            && let Some(pl) = &m.payload
        {
            let v = schema::generate(c, pl, Mode::Neutral);
            if !v.is_null() {
                let text = serde_json::to_string_pretty(&v).unwrap_or_default();
                let (text, cut) = truncate(&text, schema::MAX_EXAMPLE_BYTES);
                out.raw("<h3>Example payload (generated from the schema)</h3>");
                schema::code_block(text, "json", cut, &mut out);
            }
        }
        bindings(src.and_then(|v| v.get("bindings")), 3, &mut out);
    }
    Some(out.finish())
}

/// Who sends the message, told from the reader's side. The model's direction is the
/// application's: AsyncAPI 2.x `subscribe` and 3.0 `send` mean the application sends.
fn message_direction(doc: &Document, op: &MessageOperation, out: &mut Out) {
    let app = if doc.title().trim().is_empty() {
        "The application"
    } else {
        doc.title()
    };
    let original = match (doc.version(), op.key.direction) {
        (SpecVersion::AsyncApi2 { .. }, Direction::Send) => "AsyncAPI 2 <code>subscribe</code>",
        (SpecVersion::AsyncApi2 { .. }, Direction::Receive) => "AsyncAPI 2 <code>publish</code>",
        (_, Direction::Send) => "AsyncAPI 3 <code>send</code>",
        (_, Direction::Receive) => "AsyncAPI 3 <code>receive</code>",
    };
    out.raw("<p><strong>");
    out.text(app);
    match op.key.direction {
        Direction::Send => {
            out.raw(" sends this message.</strong> Your application receives it: subscribe to the channel to get it.");
        }
        Direction::Receive => {
            out.raw(" receives this message.</strong> Your application sends it: publish it to the channel.");
        }
    }
    out.raw(" <span class=\"note\">(")
        .raw(original)
        .raw(")</span></p>");
}

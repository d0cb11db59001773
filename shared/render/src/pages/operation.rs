//! An operation's page (an HTTP operation or a webhook) and a callback's page: everything of an
//! operation below its title, section by section.

use specpress_spec::{
    Document, Location, Operation, OperationKind, ParameterIn, RequestBody, Response, SpecVersion,
    V,
};

use crate::html::{Html, Out};
use crate::schema::{self, Ctx, Mode};

use super::curl::curl;
use super::examples::{media_examples, param_examples};
use super::security::requirements;
use super::servers::servers_section;
use super::{external_docs_kv, heading, md};

fn status_text(code: &str) -> &'static str {
    match code {
        "100" => "Continue",
        "101" => "Switching Protocols",
        "200" => "OK",
        "201" => "Created",
        "202" => "Accepted",
        "203" => "Non-Authoritative Information",
        "204" => "No Content",
        "205" => "Reset Content",
        "206" => "Partial Content",
        "207" => "Multi-Status",
        "300" => "Multiple Choices",
        "301" => "Moved Permanently",
        "302" => "Found",
        "303" => "See Other",
        "304" => "Not Modified",
        "307" => "Temporary Redirect",
        "308" => "Permanent Redirect",
        "400" => "Bad Request",
        "401" => "Unauthorized",
        "402" => "Payment Required",
        "403" => "Forbidden",
        "404" => "Not Found",
        "405" => "Method Not Allowed",
        "406" => "Not Acceptable",
        "409" => "Conflict",
        "410" => "Gone",
        "411" => "Length Required",
        "412" => "Precondition Failed",
        "413" => "Content Too Large",
        "415" => "Unsupported Media Type",
        "416" => "Range Not Satisfiable",
        "421" => "Misdirected Request",
        "422" => "Unprocessable Content",
        "423" => "Locked",
        "428" => "Precondition Required",
        "429" => "Too Many Requests",
        "451" => "Unavailable For Legal Reasons",
        "500" => "Internal Server Error",
        "501" => "Not Implemented",
        "502" => "Bad Gateway",
        "503" => "Service Unavailable",
        "504" => "Gateway Timeout",
        "default" => "Any other status",
        "1XX" | "1xx" => "Informational",
        "2XX" | "2xx" => "Success",
        "3XX" | "3xx" => "Redirection",
        "4XX" | "4xx" => "Client error",
        "5XX" | "5xx" => "Server error",
        _ => "",
    }
}

pub(super) fn operation_page(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
    let doc = c.doc;
    let (_, op) = doc.model().operations.get_index(i as usize)?;
    let mut out = Out::new();
    let badge = crate::site::method_badge(&op.key.method);
    let title = crate::site::operation_title(
        op.summary.as_deref(),
        &op.key.method,
        &op.path,
        op.operation_id.as_deref(),
    );
    out.raw("<h1>").text(&title).raw("</h1>");
    out.raw("<p class=\"endpoint\"><span class=\"m ")
        .raw(badge)
        .raw("\">")
        .text(&op.key.method)
        .raw("</span>");
    if op.key.kind == OperationKind::Webhook {
        out.raw("<span>Webhook <code>")
            .text(&op.path)
            .raw("</code></span></p>");
        out.raw("<p>The API sends this request to a URL you register: your server receives it and answers with one of the responses below.</p>");
    } else {
        out.raw("<code>").text(&op.path).raw("</code></p>");
    }
    operation_body(c, op, 2, &mut out);
    Some(out.finish())
}

pub(super) fn callback_page(c: &mut Ctx<'_>, o: u32, cb: u32) -> Option<Html> {
    let doc = c.doc;
    let site = c.site;
    let (_, op) = doc.model().operations.get_index(o as usize)?;
    let (name, ops) = op.callbacks.get_index(cb as usize)?;
    let mut out = Out::new();
    out.raw("<h1>Callback <code>")
        .text(name)
        .raw("</code></h1><p>");
    out.raw("After ");
    let parent = site.op_pages[o as usize];
    out.link_open(c.base, &site.pages[parent as usize].path)
        .text(&site.pages[parent as usize].title)
        .raw("</a>, the API sends these requests to a URL given in that request: your server receives them.</p>");
    for cop in ops {
        out.raw("<h2><span class=\"m ")
            .raw(crate::site::method_badge(&cop.key.method))
            .raw("\">")
            .text(&cop.key.method)
            .raw("</span> <code>")
            .text(&cop.path)
            .raw("</code></h2>");
        if let Some(s) = &cop.summary {
            out.raw("<p class=\"lead\">").text(s).raw("</p>");
        }
        operation_body(c, cop, 3, &mut out);
    }
    Some(out.finish())
}

/// Everything of an operation below its title: deprecation, description, security, servers,
/// parameters, request body, responses, callbacks, extensions and a curl sample. Section
/// headings are `<h{h}>`.
fn operation_body<'a>(c: &mut Ctx<'a>, op: &'a Operation, h: u8, out: &mut Out) {
    let doc = c.doc;
    deprecation(op, out);
    meta(c, op, out);
    if let Some(d) = &op.description {
        md(out, d, h + 1);
    }
    if let Some(ed) = doc.value(&op.source).and_then(|v| v.get("externalDocs")) {
        let mut kv = Out::new();
        external_docs_kv(&mut kv, ed);
        if kv.len() > 0 {
            out.raw("<dl class=\"kv\">").html(&kv.finish()).raw("</dl>");
        }
    }
    let security = op.security.as_ref().or(doc.model().security.as_ref());
    if let Some(req) = security {
        heading(out, h, Some("authentication"), "Authentication");
        out.raw("<p>");
        requirements(out, req);
        out.raw("</p>");
    }
    if let Some(servers) = &op.servers {
        servers_section(out, doc, servers, h);
    }
    parameters(c, op, h, out);
    if let Some(body) = &op.request_body {
        request_body(c, body, h, out);
    }
    if !op.responses.is_empty() {
        heading(out, h, Some("responses"), "Responses");
        for (status, r) in &op.responses {
            response(c, status, r, h, out);
        }
    }
    callbacks(c, op, h, out);
    extensions(doc, &op.source, h, out);
    if op.key.kind == OperationKind::Path {
        heading(out, h, Some("sample"), "Request sample");
        let sample = curl(c, op);
        schema::code_block(&sample, "shell", false, out);
    }
}

/// The deprecation and sunset warning, if any.
fn deprecation(op: &Operation, out: &mut Out) {
    if op.deprecated || op.sunset.is_some() {
        out.raw("<p class=\"warn\">");
        if op.deprecated {
            out.raw("<strong>Deprecated.</strong> ");
        }
        if let Some(s) = &op.sunset {
            out.raw("Sunset date: <time>").text(s).raw("</time>.");
        }
        out.raw("</p>");
    }
}

/// The operation id and the tags (linked to their groups' pages).
fn meta(c: &Ctx<'_>, op: &Operation, out: &mut Out) {
    let doc = c.doc;
    let site = c.site;
    let mut meta = Out::new();
    if let Some(id) = &op.operation_id {
        meta.raw("<li>Operation id <code>")
            .text(id)
            .raw("</code></li>");
    }
    for t in &op.tags {
        if let Some(g) = site.groups.iter().find(|g| {
            g.tag
                .and_then(|ti| {
                    doc.root()
                        .get("tags")?
                        .at(ti as usize)?
                        .get("name")?
                        .as_str()
                })
                .map_or(g.title == *t, |n| n == t)
        }) && let Some(p) = g.page
        {
            meta.raw("<li>Tag ");
            meta.link_open(c.base, &site.pages[p as usize].path)
                .text(&g.title)
                .raw("</a></li>");
        }
    }
    if meta.len() > 0 {
        out.raw("<ul class=\"meta\">")
            .html(&meta.finish())
            .raw("</ul>");
    }
}

/// The parameters, one section per location (path, query, header, cookie).
fn parameters<'a>(c: &mut Ctx<'a>, op: &'a Operation, h: u8, out: &mut Out) {
    let doc = c.doc;
    for (place, label) in [
        (ParameterIn::Path, "Path parameters"),
        (ParameterIn::Query, "Query parameters"),
        (ParameterIn::Header, "Header parameters"),
        (ParameterIn::Cookie, "Cookie parameters"),
    ] {
        let params: Vec<_> = op
            .parameters
            .iter()
            .filter(|p| p.location == place)
            .collect();
        if params.is_empty() {
            continue;
        }
        heading(out, h, None, label);
        out.raw("<ul class=\"ps\">");
        for p in params {
            let schema = p
                .schema
                .as_ref()
                .or_else(|| p.content.values().next().and_then(|m| m.schema.as_ref()));
            let mut extra = Out::new();
            param_examples(doc, &p.source, &mut extra);
            schema::field_row(
                c,
                &p.name,
                schema,
                p.required,
                p.deprecated,
                p.description.as_deref(),
                &extra.finish(),
                Mode::Request,
                out,
            );
        }
        out.raw("</ul>");
    }
}

/// The request body: whether it is required, its description, and each media type's schema
/// and examples.
fn request_body<'a>(c: &mut Ctx<'a>, body: &'a RequestBody, h: u8, out: &mut Out) {
    heading(out, h, Some("request-body"), "Request body");
    if body.required {
        out.raw("<p><span class=\"b rq\">required</span></p>");
    }
    if let Some(d) = &body.description {
        md(out, d, h + 1);
    }
    for (mt, m) in &body.content {
        out.raw("<p class=\"mt\">").text(mt).raw("</p>");
        if let Some(s) = &m.schema {
            let tree = schema::tree(c, s, Mode::Request);
            out.html(&tree);
        }
        media_examples(
            c,
            m.schema.as_ref(),
            &m.source,
            mt,
            Mode::Request,
            false,
            out,
        );
    }
}

/// One response: its status, description, headers, and each media type's schema and examples.
fn response<'a>(c: &mut Ctx<'a>, status: &str, r: &'a Response, h: u8, out: &mut Out) {
    let doc = c.doc;
    let class = if status.starts_with('2') || status.starts_with('3') {
        "st-ok"
    } else {
        "st-err"
    };
    let id = format!("response-{}", crate::site::slug(status));
    out.raw("<section class=\"resp\"><h")
        .num(h + 1)
        .raw(" id=\"")
        .attr(&id)
        .raw("\"><span class=\"")
        .raw(class)
        .raw("\">")
        .text(status)
        .raw("</span> ")
        .raw(status_text(status))
        .raw("</h")
        .num(h + 1)
        .raw(">");
    if let Some(d) = &r.description {
        md(out, d, h + 2);
    }
    if !r.headers.is_empty() {
        out.raw("<p class=\"mt\">Headers</p><ul class=\"ps\">");
        for (name, hd) in &r.headers {
            schema::field_row(
                c,
                name,
                hd.schema.as_ref(),
                hd.required,
                hd.deprecated,
                hd.description.as_deref(),
                &Html::default(),
                Mode::Response,
                out,
            );
        }
        out.raw("</ul>");
    }
    let swagger = doc.version() == SpecVersion::OpenApi20;
    for (mt, m) in &r.content {
        out.raw("<p class=\"mt\">").text(mt).raw("</p>");
        if let Some(s) = &m.schema {
            let tree = schema::tree(c, s, Mode::Response);
            out.html(&tree);
        }
        media_examples(
            c,
            m.schema.as_ref(),
            &m.source,
            mt,
            Mode::Response,
            swagger,
            out,
        );
    }
    out.raw("</section>");
}

/// Links to the pages of the operation's callbacks.
fn callbacks(c: &Ctx<'_>, op: &Operation, h: u8, out: &mut Out) {
    let doc = c.doc;
    let site = c.site;
    if !op.callbacks.is_empty()
        && let Some(oi) = doc
            .model()
            .operations
            .values()
            .position(|o| std::ptr::eq(o, op))
    {
        heading(out, h, Some("callbacks"), "Callbacks");
        out.raw("<ul class=\"ops\">");
        for (ci, name) in op.callbacks.keys().enumerate() {
            if let Some(&p) = site.callback_pages.get(oi).and_then(|v| v.get(ci)) {
                out.raw("<li>")
                    .link_open(c.base, &site.pages[p as usize].path)
                    .text(name)
                    .raw("</a></li>");
            }
        }
        out.raw("</ul>");
    }
}

/// `x-*` members of an object (other than the ones shown elsewhere), as compact JSON.
fn extensions(doc: &Document, source: &Location, h: u8, out: &mut Out) {
    let Some(o) = doc.value(source).and_then(V::as_object) else {
        return;
    };
    let mut any = false;
    for (k, v) in o.iter() {
        if !k.starts_with("x-") || k == "x-sunset" {
            continue;
        }
        if !any {
            heading(out, h, Some("extensions"), "Extensions");
            out.raw("<dl class=\"kv\">");
            any = true;
        }
        out.raw("<dt><code>").text(k).raw("</code></dt><dd>");
        schema::inline_value(v, out);
        out.raw("</dd>");
    }
    if any {
        out.raw("</dl>");
    }
}

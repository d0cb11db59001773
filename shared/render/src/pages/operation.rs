//! An operation's page (an HTTP operation or a webhook) and a callback's page: everything of an
//! operation below its title, section by section.

use specpress_apispec::{
    Document, Location, Operation, OperationKind, ParameterIn, RequestBody, Response, SpecVersion,
    V,
};

use askama::Template;

use crate::TryItMode;
use crate::html::{Html, Out};
use crate::schema::{self, Ctx, Mode};
use crate::tpl::{self, Link};

use super::examples::{media_examples, param_examples};
use super::samples::{CodeSample, code_samples};
use super::security::requirements;
use super::servers::servers_section;
use super::{external_docs, md};

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

#[derive(Template)]
#[template(path = "pages/operation.html", escape = "engine")]
struct OperationPage<'a> {
    title: &'a str,
    badge: &'static str,
    method: &'a str,
    path: &'a str,
    webhook: bool,
    /// The operation is marked `x-beta: true` (a badge after the title).
    beta: bool,
    body: Html,
}

#[derive(Template)]
#[template(path = "pages/callback.html", escape = "engine")]
struct CallbackPage<'a> {
    name: &'a str,
    parent_href: String,
    parent_title: &'a str,
    ops: Vec<CallbackOp<'a>>,
}

struct CallbackOp<'a> {
    badge: &'static str,
    method: &'a str,
    path: &'a str,
    summary: Option<&'a str>,
    body: Html,
}

/// Everything of an operation below its title: deprecation, description, security, servers,
/// parameters, request body, responses, callbacks, extensions and the request samples. Section
/// headings are `<h{h}>`. On an operation's own page the samples and the responses' examples
/// form a second pane (`two_pane`), beside the rest on wide screens and after it otherwise.
#[derive(Template)]
#[template(path = "pages/operation_body.html", escape = "engine")]
struct OperationBody<'a> {
    h: u8,
    deprecated: bool,
    sunset: Option<&'a str>,
    operation_id: Option<&'a str>,
    tags: Vec<Link<'a>>,
    description: Option<Html>,
    external_docs: Option<Html>,
    /// The authentication requirements, when the operation or the document has some.
    security: Option<Html>,
    servers: Html,
    parameters: Vec<ParameterSection>,
    request_body: Option<RequestBodyView<'a>>,
    responses: Vec<ResponseView<'a>>,
    /// Links to the callbacks' pages, when the operation has callbacks.
    callbacks: Option<Vec<Link<'a>>>,
    /// `x-*` members: name and compact JSON.
    extensions: Vec<(&'a str, Html)>,
    /// The request samples (HTTP operations): the document's own, then the generated ones.
    samples: Vec<CodeSample>,
    /// Whether the samples and the responses' examples are a pane of their own.
    two_pane: bool,
    /// Whether some response has an example (shown in the second pane).
    response_examples: bool,
    /// The "Try it" form (pages/try_it.rs), first in the second pane.
    try_it: Option<Html>,
}

struct ParameterSection {
    label: &'static str,
    rows: Html,
}

struct RequestBodyView<'a> {
    required: bool,
    description: Option<Html>,
    content: Vec<MediaView<'a>>,
}

struct ResponseView<'a> {
    id: String,
    class: &'static str,
    status: &'a str,
    status_text: &'static str,
    description: Option<Html>,
    headers: Html,
    content: Vec<MediaView<'a>>,
    /// Whether some media type has an example (shown in the second pane, when there is one).
    has_examples: bool,
}

/// One media type: its schema tree and examples.
struct MediaView<'a> {
    media_type: &'a str,
    tree: Option<Html>,
    examples: Html,
    /// Whether the examples are shown in the second pane rather than here.
    aside: bool,
}

pub(super) fn operation_page(c: &mut Ctx<'_>, i: u32, try_it: TryItMode) -> Option<Html> {
    let doc = c.doc;
    let (_, op) = doc.model().operations.get_index(i as usize)?;
    let title = crate::site::operation_title(
        op.summary.as_deref(),
        &op.key.method,
        &op.path,
        op.operation_id.as_deref(),
    );
    let page = OperationPage {
        title: &title,
        badge: crate::site::method_badge(&op.key.method),
        method: &op.key.method,
        path: &op.path,
        webhook: op.key.kind == OperationKind::Webhook,
        beta: c
            .doc
            .value(&op.source)
            .and_then(|v| v.get("x-beta"))
            .and_then(V::as_bool)
            == Some(true),
        body: operation_body(c, op, 2, try_it),
    };
    Some(tpl::render(&page, page.body.as_str().len() + 512))
}

pub(super) fn callback_page(c: &mut Ctx<'_>, o: u32, cb: u32) -> Option<Html> {
    let doc = c.doc;
    let site = c.site;
    let (_, op) = doc.model().operations.get_index(o as usize)?;
    let (name, ops) = op.callbacks.get_index(cb as usize)?;
    let parent = &site.pages[site.op_pages[o as usize] as usize];
    let ops: Vec<CallbackOp<'_>> = ops
        .iter()
        .map(|cop| CallbackOp {
            badge: crate::site::method_badge(&cop.key.method),
            method: &cop.key.method,
            path: &cop.path,
            summary: cop.summary.as_deref(),
            body: operation_body(c, cop, 3, TryItMode::Off),
        })
        .collect();
    let size = ops
        .iter()
        .map(|o| o.body.as_str().len() + 256)
        .sum::<usize>()
        + 512;
    let page = CallbackPage {
        name,
        parent_href: tpl::href(c.base, &parent.path),
        parent_title: &parent.title,
        ops,
    };
    Some(tpl::render(&page, size))
}

/// The sections of an operation, computed in the order of the page (the schema trees share the
/// page's row budget and expand each named schema once).
fn operation_body<'a>(c: &mut Ctx<'a>, op: &'a Operation, h: u8, try_it: TryItMode) -> Html {
    let doc = c.doc;
    let description = op.description.as_deref().map(|d| md(d, h + 1));
    let security = op
        .security
        .as_deref()
        .or(doc.model().security.as_deref())
        .map(requirements);
    let servers = op
        .servers
        .as_deref()
        .map(|s| servers_section(s, h))
        .unwrap_or_default();
    let body = OperationBody {
        h,
        deprecated: op.deprecated,
        sunset: op.sunset.as_deref(),
        operation_id: op.operation_id.as_deref(),
        tags: tag_links(c, op),
        description,
        external_docs: external_docs(doc.value(&op.source).and_then(|v| v.get("externalDocs"))),
        security,
        servers,
        parameters: parameters(c, op),
        request_body: op.request_body.as_ref().map(|b| request_body(c, b, h)),
        responses: op
            .responses
            .iter()
            .map(|(status, r)| response(c, status, r, h))
            .collect(),
        callbacks: callbacks(c, op),
        extensions: extensions(doc, &op.source),
        samples: Vec::new(),
        two_pane: false,
        response_examples: false,
        try_it: None,
    };
    let mut body = with_samples(c, op, body);
    // The "Try it" form opens the second pane of an HTTP operation's own page, when the owner turned it on.
    if body.two_pane {
        body.try_it = super::try_it::try_it_panel(c, op, try_it);
    }
    tpl::render(&body, 16384)
}

/// Adds the request samples of an HTTP operation; on its own page (`h == 2`) they and the
/// responses' examples become the second pane.
fn with_samples<'a>(
    c: &Ctx<'a>,
    op: &'a Operation,
    mut body: OperationBody<'a>,
) -> OperationBody<'a> {
    if op.key.kind != OperationKind::Path {
        return body;
    }
    body.samples = code_samples(c, op);
    body.two_pane = body.h == 2;
    if body.two_pane {
        for r in &mut body.responses {
            for m in &mut r.content {
                m.aside = true;
                r.has_examples |= !m.examples.is_empty();
            }
            body.response_examples |= r.has_examples;
        }
    }
    body
}

/// The tags of the operation that have a group page, linked to it.
fn tag_links<'a>(c: &Ctx<'a>, op: &Operation) -> Vec<Link<'a>> {
    let doc = c.doc;
    let site = c.site;
    let mut links = Vec::new();
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
            links.push(Link {
                href: tpl::href(c.base, &site.pages[p as usize].path),
                text: &g.title,
            });
        }
    }
    links
}

/// The parameters, one section per location (path, query, header, cookie).
fn parameters<'a>(c: &mut Ctx<'a>, op: &'a Operation) -> Vec<ParameterSection> {
    let doc = c.doc;
    let mut sections = Vec::new();
    for (place, label) in [
        (ParameterIn::Path, "Path parameters"),
        (ParameterIn::Query, "Query parameters"),
        (ParameterIn::Header, "Header parameters"),
        (ParameterIn::Cookie, "Cookie parameters"),
    ] {
        let mut rows = Out::new();
        let mut any = false;
        for p in op.parameters.iter().filter(|p| p.location == place) {
            any = true;
            let schema = p
                .schema
                .as_ref()
                .or_else(|| p.content.values().next().and_then(|m| m.schema.as_ref()));
            let extra = param_examples(doc, &p.source);
            schema::field_row(
                c,
                &p.name,
                schema,
                p.required,
                p.deprecated,
                p.description.as_deref(),
                &extra,
                Mode::Request,
                &mut rows,
            );
        }
        if any {
            sections.push(ParameterSection {
                label,
                rows: rows.finish(),
            });
        }
    }
    sections
}

/// Each media type's schema tree and examples.
fn media<'a>(
    c: &mut Ctx<'a>,
    content: impl IntoIterator<Item = (&'a String, &'a specpress_apispec::MediaType)>,
    mode: Mode,
    swagger: bool,
) -> Vec<MediaView<'a>> {
    content
        .into_iter()
        .map(|(mt, m)| {
            let tree = m.schema.as_ref().map(|s| schema::tree(c, s, mode));
            let examples = media_examples(c, m.schema.as_ref(), &m.source, mt, mode, swagger);
            MediaView {
                media_type: mt,
                tree,
                examples,
                aside: false,
            }
        })
        .collect()
}

/// The request body: whether it is required, its description, and each media type's schema
/// and examples.
fn request_body<'a>(c: &mut Ctx<'a>, body: &'a RequestBody, h: u8) -> RequestBodyView<'a> {
    RequestBodyView {
        required: body.required,
        description: body.description.as_deref().map(|d| md(d, h + 1)),
        content: media(c, &body.content, Mode::Request, false),
    }
}

/// One response: its status, description, headers, and each media type's schema and examples.
fn response<'a>(c: &mut Ctx<'a>, status: &'a str, r: &'a Response, h: u8) -> ResponseView<'a> {
    let swagger = c.doc.version() == SpecVersion::OpenApi20;
    let description = r.description.as_deref().map(|d| md(d, h + 2));
    let mut headers = Out::new();
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
            &mut headers,
        );
    }
    ResponseView {
        id: format!("response-{}", crate::site::slug(status)),
        class: if status.starts_with('2') || status.starts_with('3') {
            "st-ok"
        } else {
            "st-err"
        },
        status,
        status_text: status_text(status),
        description,
        headers: headers.finish(),
        content: media(c, &r.content, Mode::Response, swagger),
        has_examples: false,
    }
}

/// Links to the pages of the operation's callbacks.
fn callbacks<'a>(c: &Ctx<'a>, op: &'a Operation) -> Option<Vec<Link<'a>>> {
    let site = c.site;
    if op.callbacks.is_empty() {
        return None;
    }
    let oi = c
        .doc
        .model()
        .operations
        .values()
        .position(|o| std::ptr::eq(o, op))?;
    let links = op
        .callbacks
        .keys()
        .enumerate()
        .filter_map(|(ci, name)| {
            let &p = site.callback_pages.get(oi)?.get(ci)?;
            Some(Link {
                href: tpl::href(c.base, &site.pages[p as usize].path),
                text: name,
            })
        })
        .collect();
    Some(links)
}

/// `x-*` members of an object (other than the ones shown elsewhere: `x-sunset`, the code
/// samples), as compact JSON.
fn extensions<'a>(doc: &'a Document, source: &Location) -> Vec<(&'a str, Html)> {
    let Some(o) = doc.value(source).and_then(V::as_object) else {
        return Vec::new();
    };
    o.iter()
        .filter(|(k, _)| {
            k.starts_with("x-") && !matches!(*k, "x-sunset" | "x-codeSamples" | "x-code-samples")
        })
        .map(|(k, v)| {
            let mut out = Out::new();
            schema::inline_value(v, &mut out);
            (k, out.finish())
        })
        .collect()
}

//! The page bodies: home, topics, groups, operations (paths, webhooks, callbacks), schemas,
//! AsyncAPI channels and operations. Every document string goes through `Out::text`/`attr`,
//! `markdown::render` or `url_or_text`.

use serde_json::Value;
use specpress_spec::{
    Direction, Document, Kind, Location, MessageOperation, Operation, OperationKind, ParameterIn,
    SecurityRequirement, Server, SpecFamily, SpecVersion, V,
};

use crate::html::{Html, Out, is_http_url, truncate, url_or_text};
use crate::markdown::{self, MAX_MARKDOWN_BYTES, MAX_TOPIC_BYTES};
use crate::schema::{self, Ctx, Mode};
use crate::shell::badge_text;
use crate::site::{Site, Target, resolve_value};
use crate::{Layout, PageContext, PageRef, RenderedPage, layout};

/// Examples shown per media type or message.
const MAX_EXAMPLES: usize = 3;
/// Entries of a "where it is used" list.
const MAX_USED_BY: usize = 300;
/// Bytes of the JSON body in a curl sample.
const MAX_SAMPLE_BODY: usize = 4 * 1024;

impl Site {
    /// Renders one page as a whole HTML document. `doc` must be the document the site was built
    /// from; a page the document no longer has renders as a short "not available" page.
    pub fn render(&self, doc: &Document, page: &PageRef, ctx: &PageContext<'_>) -> RenderedPage {
        let id = page.0 as usize;
        let mut sctx = Ctx::new(doc, self, ctx.base);
        let (title, body) = match self.pages.get(id) {
            Some(p) => {
                let body = match &p.target {
                    Target::Home => home(&mut sctx, ctx),
                    Target::Topic(i) => topic(&mut sctx, *i),
                    Target::Group(g) => group(&mut sctx, *g),
                    Target::Operation(i) => operation_page(&mut sctx, *i),
                    Target::Callback(o, c) => callback_page(&mut sctx, *o, *c),
                    Target::SchemasIndex => schemas_index(&mut sctx),
                    Target::Schema(i) => schema_page(&mut sctx, *i),
                    Target::Channel(i) => channel_page(&mut sctx, *i),
                    Target::MessageOperation(i) => message_page(&mut sctx, *i),
                };
                (p.title.clone(), body.unwrap_or_else(unavailable))
            }
            None => ("Not found".to_string(), unavailable()),
        };
        let sidebar = self.sidebar(ctx.base, Some(*page));
        let html = layout(
            ctx,
            &Layout {
                title: &title,
                description: None,
                body: &body,
                sidebar: Some(&sidebar),
            },
        );
        RenderedPage { html, title }
    }
}

fn unavailable() -> Html {
    Html(
        "<h1>Not available</h1><p>This page is not part of this version of the documentation.</p>"
            .to_string(),
    )
}

fn md(out: &mut Out, text: &str, min_heading: u8) {
    out.raw("<div class=\"md\">")
        .html(&markdown::render(text, min_heading, MAX_MARKDOWN_BYTES))
        .raw("</div>");
}

fn str_at<'d>(v: V<'d>, key: &str) -> Option<&'d str> {
    v.get(key).and_then(V::as_str)
}

// ---------------------------------------------------------------------------------- Home

fn home(c: &mut Ctx<'_>, pctx: &PageContext<'_>) -> Option<Html> {
    let doc = c.doc;
    let site = c.site;
    let root = doc.root();
    let info = root.get("info");
    let mut out = Out::new();
    let title = if doc.title().trim().is_empty() {
        "API reference"
    } else {
        doc.title()
    };
    out.raw("<h1>").text(title).raw("</h1><ul class=\"meta\">");
    if !doc.api_version().is_empty() {
        out.raw("<li>Version <code>")
            .text(doc.api_version())
            .raw("</code></li>");
    }
    let family = match doc.version().family() {
        SpecFamily::OpenApi if doc.version() == SpecVersion::OpenApi20 => "Swagger",
        SpecFamily::OpenApi => "OpenAPI",
        SpecFamily::AsyncApi => "AsyncAPI",
    };
    out.raw("<li>")
        .raw(family)
        .raw(" ")
        .text(doc.spec_version_string())
        .raw("</li>");
    if let Some(v) = pctx.version
        && !v.published_at.is_empty()
    {
        out.raw("<li>Published <time datetime=\"")
            .attr(v.published_at)
            .raw("\">")
            .text(&crate::human_time(v.published_at))
            .raw("</time></li>");
    }
    out.raw("</ul>");
    if let Some(s) = info.and_then(|i| str_at(i, "summary")) {
        out.raw("<p class=\"lead\">").text(s).raw("</p>");
    }
    if let Some(d) = doc.description() {
        md(&mut out, d, 2);
    }

    // Contact, licence, terms, external docs.
    let mut kv = Out::new();
    if let Some(contact) = info.and_then(|i| i.get("contact")) {
        let name = str_at(contact, "name");
        if let Some(url) = str_at(contact, "url") {
            kv.raw("<dt>Contact</dt><dd>");
            url_or_text(&mut kv, url, name);
            kv.raw("</dd>");
        } else if let Some(n) = name {
            kv.raw("<dt>Contact</dt><dd>").text(n).raw("</dd>");
        }
        if let Some(email) = str_at(contact, "email") {
            kv.raw("<dt>Email</dt><dd>");
            if email.contains('@') && !email.contains([':', '/', '?', ' ', '<', '>']) {
                kv.raw("<a href=\"mailto:")
                    .attr(email)
                    .raw("\">")
                    .text(email)
                    .raw("</a>");
            } else {
                kv.text(email);
            }
            kv.raw("</dd>");
        }
    }
    if let Some(licence) = info.and_then(|i| i.get("license")) {
        let name = str_at(licence, "name").unwrap_or("Licence");
        kv.raw("<dt>Licence</dt><dd>");
        match str_at(licence, "url") {
            Some(u) => url_or_text(&mut kv, u, Some(name)),
            None => {
                kv.text(name);
                if let Some(id) = str_at(licence, "identifier") {
                    kv.raw(" (<code>").text(id).raw("</code>)");
                }
            }
        }
        kv.raw("</dd>");
    }
    if let Some(t) = info.and_then(|i| str_at(i, "termsOfService")) {
        kv.raw("<dt>Terms of service</dt><dd>");
        url_or_text(&mut kv, t, None);
        kv.raw("</dd>");
    }
    if let Some(ed) = root.get("externalDocs") {
        external_docs_kv(&mut kv, ed);
    }
    if kv.len() > 0 {
        out.raw("<dl class=\"kv\">").html(&kv.finish()).raw("</dl>");
    }

    servers_section(&mut out, doc, &doc.model().servers, 2);
    if doc.version().family() == SpecFamily::AsyncApi {
        asyncapi_server_details(&mut out, doc);
    }
    authentication_section(c, &mut out);

    if !site.topics.is_empty() {
        out.raw("<h2>Guides</h2><ul class=\"cards\">");
        for &t in &site.topics {
            let p = &site.pages[t as usize];
            out.raw("<li>")
                .link_open(c.base, &p.path)
                .text(&p.title)
                .raw("</a></li>");
        }
        out.raw("</ul>");
    }

    let is_async = doc.version().family() == SpecFamily::AsyncApi;
    out.raw(if is_async {
        "<h2>Channels</h2>"
    } else {
        "<h2>API reference</h2>"
    });
    let n_ops = if is_async {
        doc.model().message_operations.len()
    } else {
        doc.model()
            .operations
            .values()
            .filter(|o| o.key.kind == OperationKind::Path)
            .count()
    };
    out.raw("<p>").num(n_ops).raw(if n_ops == 1 {
        " operation"
    } else {
        " operations"
    });
    if site.schema_count() > 0 {
        out.raw(", ").num(site.schema_count()).raw(" ");
        match site.schemas_index {
            Some(s) => {
                out.link_open(c.base, &site.pages[s as usize].path)
                    .raw("schemas</a>");
            }
            None => {
                out.raw("schemas");
            }
        }
    }
    out.raw(".</p><ul class=\"cards\">");
    for &g in &site.root_groups {
        group_card(c, &mut out, g);
    }
    out.raw("</ul>");
    Some(out.finish())
}

fn external_docs_kv(kv: &mut Out, ed: V<'_>) {
    if let Some(url) = str_at(ed, "url") {
        kv.raw("<dt>More documentation</dt><dd>");
        url_or_text(kv, url, str_at(ed, "description"));
        kv.raw("</dd>");
    }
}

/// A description's first line as plain text (its Markdown syntax dropped), for cards and lists.
fn first_line(s: &str, max: usize) -> String {
    crate::markdown::first_line_plain(s, max)
}

fn group_card(c: &Ctx<'_>, out: &mut Out, g: u32) {
    let site = c.site;
    let group = &site.groups[g as usize];
    out.raw("<li>");
    match group.page {
        Some(p) => {
            out.link_open(c.base, &site.pages[p as usize].path)
                .text(&group.title)
                .raw("</a>");
        }
        None => {
            out.raw("<strong>").text(&group.title).raw("</strong>");
        }
    }
    let n = group.items.len();
    out.raw(" <span class=\"note\">")
        .num(n)
        .raw(if n == 1 { " operation" } else { " operations" })
        .raw("</span>");
    let desc = group
        .tag
        .and_then(|t| c.doc.root().get("tags")?.at(t as usize))
        .and_then(|t| str_at(t, "description"));
    if let Some(d) = desc {
        out.raw("<p>").text(&first_line(d, 200)).raw("</p>");
    }
    out.raw("</li>");
}

fn servers_section(out: &mut Out, _doc: &Document, servers: &[Server], h: u8) {
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
fn asyncapi_server_details(out: &mut Out, doc: &Document) {
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

/// Security schemes, explained in words, and the document-wide requirement.
fn authentication_section(c: &mut Ctx<'_>, out: &mut Out) {
    let model = c.doc.model();
    if model.security_schemes.is_empty() {
        return;
    }
    out.raw("<h2>Authentication</h2>");
    if let Some(req) = &model.security {
        out.raw("<p>Unless an operation says otherwise: ");
        requirements(out, req);
        out.raw("</p>");
    }
    for (name, s) in &model.security_schemes {
        out.raw("<h3>").text(name).raw("</h3>");
        let src = c.doc.value(&s.source);
        out.raw("<p>");
        match s.scheme_type.as_str() {
            "apiKey" => {
                let place = s.location.as_deref().unwrap_or("header");
                out.raw("An API key sent in the ")
                    .raw(match place {
                        "query" => "query parameter",
                        "cookie" => "cookie",
                        _ => "header",
                    })
                    .raw(" <code>")
                    .text(s.name.as_deref().unwrap_or(""))
                    .raw("</code>.");
            }
            "http" => {
                let scheme = s.scheme.as_deref().unwrap_or("").to_ascii_lowercase();
                match scheme.as_str() {
                    "bearer" => {
                        out.raw("A bearer token in the <code>Authorization</code> header: <code>Authorization: Bearer &lt;token&gt;</code>");
                        if let Some(f) = &s.bearer_format {
                            out.raw(" (format: ").text(f).raw(")");
                        }
                        out.raw(".");
                    }
                    "basic" => {
                        out.raw("HTTP Basic authentication: a user name and password in the <code>Authorization</code> header.");
                    }
                    _ => {
                        out.raw("HTTP authentication with the <code>")
                            .text(s.scheme.as_deref().unwrap_or(""))
                            .raw("</code> scheme in the <code>Authorization</code> header.");
                    }
                }
            }
            "basic" => {
                out.raw("HTTP Basic authentication: a user name and password in the <code>Authorization</code> header.");
            }
            "oauth2" => {
                out.raw("OAuth 2.0: send the access token as <code>Authorization: Bearer &lt;token&gt;</code>.");
            }
            "openIdConnect" => {
                out.raw("OpenID Connect: send the token as <code>Authorization: Bearer &lt;token&gt;</code>.");
                if let Some(u) = &s.open_id_connect_url {
                    out.raw(" Discovery document: ");
                    url_or_text(out, u, None);
                    out.raw(".");
                }
            }
            "mutualTLS" | "X509" => {
                out.raw("Mutual TLS: the client presents a certificate.");
            }
            other => {
                out.raw("Scheme <code>").text(other).raw("</code>.");
            }
        }
        out.raw("</p>");
        if let Some(d) = src.and_then(|v| str_at(v, "description")) {
            md(out, d, 4);
        }
        if !s.flows.is_empty() {
            out.raw("<dl class=\"kv\">");
            let flows_v = src.and_then(|v| v.get("flows"));
            for (flow, scopes) in &s.flows {
                out.raw("<dt>").text(flow).raw(" flow</dt><dd>");
                let fv = flows_v.and_then(|f| f.get(flow)).or(src);
                for (key, label) in [
                    ("authorizationUrl", "authorization"),
                    ("tokenUrl", "token"),
                    ("refreshUrl", "refresh"),
                ] {
                    if let Some(u) = fv.and_then(|f| str_at(f, key)) {
                        out.raw(label).raw(": ");
                        url_or_text(out, u, None);
                        out.raw("<br>");
                    }
                }
                if !scopes.is_empty() {
                    out.raw("scopes: <ul>");
                    for (scope, desc) in scopes.iter().take(200) {
                        out.raw("<li><code>").text(scope).raw("</code>");
                        if !desc.is_empty() {
                            out.raw(" ").text(&first_line(desc, 300));
                        }
                        out.raw("</li>");
                    }
                    out.raw("</ul>");
                }
                out.raw("</dd>");
            }
            out.raw("</dl>");
        }
    }
}

fn requirements(out: &mut Out, req: &[SecurityRequirement]) {
    if req.is_empty() {
        out.raw("no authentication.");
        return;
    }
    for (i, alt) in req.iter().enumerate() {
        if i > 0 {
            out.raw(" <em>or</em> ");
        }
        if alt.is_empty() {
            out.raw("no authentication");
            continue;
        }
        for (j, (name, scopes)) in alt.iter().enumerate() {
            if j > 0 {
                out.raw(" <em>and</em> ");
            }
            out.raw("<code>").text(name).raw("</code>");
            if !scopes.is_empty() {
                out.raw(" (scopes ");
                for (k, s) in scopes.iter().take(50).enumerate() {
                    if k > 0 {
                        out.raw(", ");
                    }
                    out.raw("<code>").text(s).raw("</code>");
                }
                out.raw(")");
            }
        }
    }
}

// ---------------------------------------------------------------------------- Topics, groups

fn topic(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
    let doc = c.doc;
    let loc = Location::root(specpress_spec::FileId::ROOT)
        .child("x-topics")
        .index(i as usize);
    let t = resolve_value(doc, &loc, doc.value(&loc)?)?;
    let title = str_at(t, "title").unwrap_or("Topic");
    let mut out = Out::new();
    out.raw("<h1>").text(title).raw("</h1>");
    let content_loc = match doc.resolve(&loc) {
        Ok((l, _)) => l.child("content"),
        Err(_) => loc.child("content"),
    };
    let content = doc
        .resolve(&content_loc)
        .ok()
        .and_then(|(_, v)| v.as_str())
        .or_else(|| str_at(t, "content"));
    if let Some(text) = content {
        out.raw("<div class=\"md\">")
            .html(&markdown::render(text, 2, MAX_TOPIC_BYTES))
            .raw("</div>");
    }
    Some(out.finish())
}

fn ops_list(c: &Ctx<'_>, out: &mut Out, items: &[u32]) {
    let site = c.site;
    out.raw("<ul class=\"ops\">");
    for &p in items {
        let page = &site.pages[p as usize];
        out.raw("<li>");
        if let Some(b) = page.badge {
            out.raw("<span class=\"m ")
                .raw(b)
                .raw("\">")
                .raw(badge_text(b))
                .raw("</span>");
        }
        out.link_open(c.base, &page.path)
            .text(&page.title)
            .raw("</a>");
        let path = match page.target {
            Target::Operation(i) => c
                .doc
                .model()
                .operations
                .get_index(i as usize)
                .map(|(_, o)| o.path.as_str()),
            Target::MessageOperation(i) => c
                .doc
                .model()
                .message_operations
                .get_index(i as usize)
                .map(|(_, o)| o.channel_address.as_str()),
            _ => None,
        };
        if let Some(p) = path {
            out.raw("<code>").text(p).raw("</code>");
        }
        if page.deprecated {
            out.raw("<span class=\"b dp\">deprecated</span>");
        }
        out.raw("</li>");
    }
    out.raw("</ul>");
}

fn group(c: &mut Ctx<'_>, g: u32) -> Option<Html> {
    let site = c.site;
    let group = site.groups.get(g as usize)?;
    let mut out = Out::new();
    out.raw("<h1>").text(&group.title).raw("</h1>");
    if let Some(parent) = group.parent {
        let pg = &site.groups[parent as usize];
        if let Some(pp) = pg.page {
            out.raw("<p class=\"note\">Part of ")
                .link_open(c.base, &site.pages[pp as usize].path)
                .text(&pg.title)
                .raw("</a>.</p>");
        }
    }
    let tag = group
        .tag
        .and_then(|t| c.doc.root().get("tags")?.at(t as usize));
    if let Some(t) = tag {
        if let Some(d) = str_at(t, "description") {
            md(&mut out, d, 2);
        }
        if let Some(ed) = t.get("externalDocs") {
            let mut kv = Out::new();
            external_docs_kv(&mut kv, ed);
            if kv.len() > 0 {
                out.raw("<dl class=\"kv\">").html(&kv.finish()).raw("</dl>");
            }
        }
    }
    if !group.children.is_empty() {
        out.raw("<h2>Sections</h2><ul class=\"cards\">");
        for &ch in &group.children {
            group_card(c, &mut out, ch);
        }
        out.raw("</ul>");
    }
    if !group.items.is_empty() {
        out.raw("<h2>Operations</h2>");
        ops_list(c, &mut out, &group.items);
    }
    Some(out.finish())
}

// ------------------------------------------------------------------------------ Operations

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

fn operation_page(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
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

fn callback_page(c: &mut Ctx<'_>, o: u32, cb: u32) -> Option<Html> {
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

fn heading(out: &mut Out, h: u8, id: Option<&str>, text: &str) {
    out.raw("<h").num(h);
    if let Some(id) = id {
        out.raw(" id=\"").attr(id).raw("\"");
    }
    out.raw(">").text(text).raw("</h").num(h).raw(">");
}

/// Everything of an operation below its title: deprecation, description, security, servers,
/// parameters, request body, responses, callbacks, extensions and a curl sample. Section
/// headings are `<h{h}>`.
fn operation_body<'a>(c: &mut Ctx<'a>, op: &'a Operation, h: u8, out: &mut Out) {
    let doc = c.doc;
    let site = c.site;
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
    // Security.
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
    // Parameters by location.
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
    // Request body.
    if let Some(body) = &op.request_body {
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
    // Responses.
    if !op.responses.is_empty() {
        heading(out, h, Some("responses"), "Responses");
        for (status, r) in &op.responses {
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
    }
    // Callbacks.
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
    extensions(doc, &op.source, h, out);
    if op.key.kind == OperationKind::Path {
        heading(out, h, Some("sample"), "Request sample");
        let sample = curl(c, op);
        schema::code_block(&sample, "shell", false, out);
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

fn param_examples(doc: &Document, source: &Location, out: &mut Out) {
    let Some(p) = doc.value(source) else { return };
    let mut shown = 0;
    if let Some(x) = p.get("example") {
        out.raw("<p class=\"pc\"><span class=\"c\">example ");
        schema::inline_value(x, out);
        out.raw("</span></p>");
        shown += 1;
    }
    if let Some(xs) = p.get("examples").and_then(V::as_object) {
        for (name, ex) in xs.iter().take(MAX_EXAMPLES) {
            let ex_loc = source.child("examples").child(name);
            let Some(ex) = resolve_value(doc, &ex_loc, ex) else {
                continue;
            };
            if let Some(v) = ex.get("value") {
                if shown == 0 {
                    out.raw("<p class=\"pc\">");
                }
                out.raw("<span class=\"c\">").text(name).raw(": ");
                schema::inline_value(v, out);
                out.raw("</span> ");
                shown += 1;
            }
        }
        if shown > 0 {
            out.raw("</p>");
        }
    }
}

/// The examples of a media type: its own (`examples`, `example`; Swagger 2.0 `examples` by media
/// type on the response), else the schema's, else one generated from the schema (JSON only).
#[allow(clippy::too_many_arguments)]
fn media_examples(
    c: &Ctx<'_>,
    schema: Option<&Location>,
    source: &Location,
    mt: &str,
    mode: Mode,
    swagger_response: bool,
    out: &mut Out,
) {
    let doc = c.doc;
    let src = doc.value(source);
    let mut shown = 0;
    if swagger_response {
        if let Some(x) = src.and_then(|s| s.get("examples")).and_then(|e| e.get(mt)) {
            out.raw("<p class=\"mt\">Example</p>");
            schema::example_block(x, out);
            return;
        }
    } else if let Some(src) = src {
        if let Some(xs) = src.get("examples").and_then(V::as_object) {
            for (name, ex) in xs.iter() {
                if shown >= MAX_EXAMPLES {
                    break;
                }
                let ex_loc = source.child("examples").child(name);
                let Some(ex) = resolve_value(doc, &ex_loc, ex) else {
                    continue;
                };
                out.raw("<p class=\"mt\">Example: ")
                    .text(str_at(ex, "summary").unwrap_or(name))
                    .raw("</p>");
                if let Some(d) = str_at(ex, "description") {
                    md(out, d, 6);
                }
                match (ex.get("value"), str_at(ex, "externalValue")) {
                    (Some(v), _) => schema::example_block(v, out),
                    (None, Some(u)) => {
                        out.raw("<p>");
                        url_or_text(out, u, None);
                        out.raw("</p>");
                    }
                    _ => {}
                }
                shown += 1;
            }
            if shown > 0 {
                return;
            }
        }
        if let Some(x) = src.get("example") {
            out.raw("<p class=\"mt\">Example</p>");
            schema::example_block(x, out);
            return;
        }
    }
    let Some(s) = schema else { return };
    let json = mt.contains("json") || mt == "*/*";
    if !json {
        return;
    }
    let value = schema::generate(c, s, mode);
    if value.is_null() {
        return;
    }
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    let (text, cut) = truncate(&text, schema::MAX_EXAMPLE_BYTES);
    if schema::has_own_example(c, s) {
        out.raw("<p class=\"mt\">Example (from the schema)</p>");
    } else {
        out.raw("<p class=\"mt\">Example (generated from the schema)</p>");
    }
    schema::code_block(text, "json", cut, out);
}

// --------------------------------------------------------------------------------- curl sample

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn url_encode(s: &str, out: &mut String) {
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

/// A sample value for a parameter: its example, else its schema's example, default or first
/// enum value, else a placeholder.
fn param_value(c: &Ctx<'_>, source: &Location, schema: Option<&Location>, name: &str) -> String {
    let doc = c.doc;
    let scalar = |v: V<'_>| -> Option<String> {
        match v.kind() {
            Kind::String(s) => Some(s.to_string()),
            Kind::Number(n) => Some(n.to_string()),
            Kind::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    };
    let p = doc.value(source);
    if let Some(s) = p.and_then(|p| p.get("example")).and_then(scalar) {
        return s;
    }
    if let Some(l) = schema
        && let Ok((_, v)) = doc.resolve(l)
    {
        for key in ["example", "default"] {
            if let Some(s) = v.get(key).and_then(scalar) {
                return s;
            }
        }
        if let Some(s) = v.get("enum").and_then(|e| e.at(0)).and_then(scalar) {
            return s;
        }
        if let Some(s) = v.get("examples").and_then(|e| e.at(0)).and_then(scalar) {
            return s;
        }
        match v.get("type").and_then(V::as_str) {
            Some("integer") | Some("number") => return "1".to_string(),
            Some("boolean") => return "true".to_string(),
            _ => {}
        }
    }
    let mut placeholder = String::new();
    for ch in name.chars().take(40) {
        if ch.is_ascii_alphanumeric() {
            placeholder.push(ch.to_ascii_uppercase());
        } else {
            placeholder.push('_');
        }
    }
    placeholder
}

fn server_url(op: &Operation, doc: &Document) -> Option<String> {
    let server = op
        .servers
        .as_ref()
        .and_then(|s| s.first())
        .or_else(|| doc.model().servers.first())?;
    let mut url = server.url.clone();
    for (name, v) in &server.variables {
        if let Some(d) = &v.default {
            url = url.replace(&format!("{{{name}}}"), d);
        }
    }
    Some(url.trim_end_matches('/').to_string())
}

fn curl(c: &Ctx<'_>, op: &Operation) -> String {
    let doc = c.doc;
    let mut url = server_url(op, doc).unwrap_or_else(|| "https://api.example.com".to_string());
    if !is_http_url(&url) && !url.starts_with('/') && !url.contains("://") {
        url = format!("https://{url}");
    }
    if url.starts_with('/') {
        url = format!("https://api.example.com{url}");
    }
    // Path with parameters filled.
    let mut path = String::new();
    let mut rest = op.path.as_str();
    while let Some(open) = rest.find('{') {
        path.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let name = &rest[open + 1..open + close];
        let value = op
            .parameters
            .iter()
            .find(|p| p.location == ParameterIn::Path && p.name == name)
            .map(|p| param_value(c, &p.source, p.schema.as_ref(), name))
            .unwrap_or_else(|| name.to_ascii_uppercase());
        url_encode(&value, &mut path);
        rest = &rest[open + close + 1..];
    }
    path.push_str(rest);
    url.push_str(&path);
    let mut headers: Vec<String> = Vec::new();
    let mut query: Vec<(String, String)> = Vec::new();
    let mut user: Option<&str> = None;
    // Authentication: the first alternative of the effective requirement.
    let security = op.security.as_ref().or(doc.model().security.as_ref());
    if let Some(first) = security.and_then(|r| r.first()) {
        for name in first.keys() {
            let Some(s) = doc.model().security_schemes.get(name) else {
                continue;
            };
            match (
                s.scheme_type.as_str(),
                s.scheme.as_deref().map(str::to_ascii_lowercase),
            ) {
                ("apiKey", _) => {
                    let n = s.name.clone().unwrap_or_else(|| "api_key".into());
                    match s.location.as_deref() {
                        Some("query") => query.push((n, "YOUR_API_KEY".into())),
                        Some("cookie") => headers.push(format!("Cookie: {n}=YOUR_API_KEY")),
                        _ => headers.push(format!("{n}: YOUR_API_KEY")),
                    }
                }
                ("http", Some(ref b)) if b == "basic" => user = Some("USERNAME:PASSWORD"),
                ("basic", _) => user = Some("USERNAME:PASSWORD"),
                ("mutualTLS", _) => {}
                _ => headers.push("Authorization: Bearer YOUR_TOKEN".to_string()),
            }
        }
    }
    for p in &op.parameters {
        if !p.required {
            continue;
        }
        let v = || param_value(c, &p.source, p.schema.as_ref(), &p.name);
        match p.location {
            ParameterIn::Query => query.push((p.name.clone(), v())),
            ParameterIn::Header => headers.push(format!("{}: {}", p.name, v())),
            ParameterIn::Cookie => headers.push(format!("Cookie: {}={}", p.name, v())),
            ParameterIn::Path => {}
        }
    }
    for (i, (k, v)) in query.iter().enumerate() {
        url.push(if i == 0 && !url.contains('?') {
            '?'
        } else {
            '&'
        });
        url_encode(k, &mut url);
        url.push('=');
        url_encode(v, &mut url);
    }
    let mut s = format!(
        "curl --request {} \\\n  --url {}",
        op.key.method,
        shell_quote(&url)
    );
    if let Some(u) = user {
        s.push_str(&format!(" \\\n  --user {}", shell_quote(u)));
    }
    // The body: the first media type, JSON shown as JSON.
    let body = op.request_body.as_ref().and_then(|b| b.content.first());
    if let Some((mt, _)) = body {
        headers.push(format!("Content-Type: {mt}"));
    }
    for h in &headers {
        s.push_str(&format!(" \\\n  --header {}", shell_quote(h)));
    }
    if let Some((mt, m)) = body {
        if mt.contains("json") {
            let example = body_example(c, m.schema.as_ref(), &m.source);
            let text = serde_json::to_string_pretty(&example).unwrap_or_default();
            let (text, _) = truncate(&text, MAX_SAMPLE_BODY);
            s.push_str(&format!(" \\\n  --data {}", shell_quote(text)));
        } else if mt.starts_with("multipart/form-data")
            || mt.starts_with("application/x-www-form-urlencoded")
        {
            let flag = if mt.starts_with("multipart") {
                "--form"
            } else {
                "--data-urlencode"
            };
            if let Some(l) = &m.schema {
                let v = schema::generate(c, l, Mode::Request);
                if let Value::Object(map) = v {
                    for (k, v) in map.iter().take(20) {
                        let val = match v {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        s.push_str(&format!(
                            " \\\n  {flag} {}",
                            shell_quote(&format!("{k}={val}"))
                        ));
                    }
                }
            }
        } else {
            s.push_str(" \\\n  --data-binary @file");
        }
    }
    s
}

fn body_example(c: &Ctx<'_>, schema: Option<&Location>, source: &Location) -> Value {
    let doc = c.doc;
    if let Some(src) = doc.value(source) {
        if let Some(x) = src.get("example") {
            return bounded(x);
        }
        if let Some(xs) = src.get("examples").and_then(V::as_object)
            && let Some((name, ex)) = xs.iter().next()
            && let Some(ex) = resolve_value(doc, &source.child("examples").child(name), ex)
            && let Some(v) = ex.get("value")
        {
            return bounded(v);
        }
    }
    match schema {
        Some(s) => schema::generate(c, s, Mode::Request),
        None => Value::Object(Default::default()),
    }
}

fn bounded(v: V<'_>) -> Value {
    let mut s = String::new();
    if schema::write_json(v, &mut s, None, 0, MAX_SAMPLE_BODY) {
        serde_json::from_str(&s).unwrap_or(Value::Null)
    } else {
        Value::String("(example too large to show here)".to_string())
    }
}

// ----------------------------------------------------------------------------------- Schemas

fn schemas_index(c: &mut Ctx<'_>) -> Option<Html> {
    let site = c.site;
    let mut out = Out::new();
    out.raw("<h1>Schemas</h1><p>")
        .num(site.schema_count())
        .raw(" named schemas are defined by this document.</p><ul class=\"cards\">");
    for (i, (name, loc)) in c.doc.model().schemas.iter().enumerate() {
        let p = site.schema_pages[i];
        out.raw("<li>")
            .link_open(c.base, &site.pages[p as usize].path)
            .text(name)
            .raw("</a>");
        if let Some(d) = c
            .doc
            .value(loc)
            .and_then(|v| str_at(v, "title").or_else(|| str_at(v, "description")))
        {
            out.raw("<p>").text(&first_line(d, 120)).raw("</p>");
        }
        out.raw("</li>");
    }
    out.raw("</ul>");
    Some(out.finish())
}

fn schema_page(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
    let doc = c.doc;
    let site = c.site;
    let (name, loc) = doc.model().schemas.get_index(i as usize)?;
    let mut out = Out::new();
    out.raw("<h1>").text(name).raw("</h1>");
    let flat = schema::flatten(c, loc);
    if let Some(t) = flat.title
        && t != name
    {
        out.raw("<p class=\"lead\">").text(t).raw("</p>");
    }
    let tree = schema::tree(c, loc, Mode::Neutral);
    out.html(&tree);
    let value = schema::generate(c, loc, Mode::Neutral);
    if !value.is_null() {
        let text = serde_json::to_string_pretty(&value).unwrap_or_default();
        let (text, cut) = truncate(&text, schema::MAX_EXAMPLE_BYTES);
        out.raw("<h2>Example</h2>");
        schema::code_block(text, "json", cut, &mut out);
    }
    let users = site
        .used_by
        .get(i as usize)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    out.raw("<h2>Where it is used</h2>");
    if users.is_empty() {
        out.raw("<p>No operation of this document uses this schema.</p>");
    } else {
        out.raw("<p>")
            .num(users.len())
            .raw(if users.len() == 1 {
                " operation uses"
            } else {
                " operations use"
            })
            .raw(" this schema, directly or through other schemas.</p>");
        ops_list(c, &mut out, &users[..users.len().min(MAX_USED_BY)]);
        if users.len() > MAX_USED_BY {
            out.raw("<p class=\"note\">and ")
                .num(users.len() - MAX_USED_BY)
                .raw(" more.</p>");
        }
    }
    Some(out.finish())
}

// ---------------------------------------------------------------------------------- AsyncAPI

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

fn channel_page(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
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

fn message_page(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
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

//! The home page: the API's title, version, description, contact and licence, servers,
//! authentication, guides, and the cards of its navigation groups.

use specpress_spec::{Document, OperationKind, SpecFamily, SpecVersion, V};

use crate::PageContext;
use crate::html::{Html, Out, url_or_text};
use crate::schema::Ctx;

use super::lists::group_card;
use super::security::authentication_section;
use super::servers::{asyncapi_server_details, servers_section};
use super::{external_docs_kv, md, str_at};

pub(super) fn home(c: &mut Ctx<'_>, pctx: &PageContext<'_>) -> Option<Html> {
    let doc = c.doc;
    let mut out = Out::new();
    title_and_description(doc, pctx, &mut out);
    about(doc, &mut out);
    servers_section(&mut out, doc, &doc.model().servers, 2);
    if doc.version().family() == SpecFamily::AsyncApi {
        asyncapi_server_details(&mut out, doc);
    }
    authentication_section(c, &mut out);
    guides(c, &mut out);
    reference(c, &mut out);
    Some(out.finish())
}

/// The title, the version, the specification and the publication time, the summary and the
/// description.
fn title_and_description(doc: &Document, pctx: &PageContext<'_>, out: &mut Out) {
    let info = doc.root().get("info");
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
        md(out, d, 2);
    }
}

/// Contact, licence, terms of service and external documentation, as a list of terms.
fn about(doc: &Document, out: &mut Out) {
    let root = doc.root();
    let info = root.get("info");
    let mut kv = Out::new();
    if let Some(contact) = info.and_then(|i| i.get("contact")) {
        contact_kv(&mut kv, contact);
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
}

/// The contact's name (linked to its URL) and email (a `mailto:` link when it looks like one).
fn contact_kv(kv: &mut Out, contact: V<'_>) {
    let name = str_at(contact, "name");
    if let Some(url) = str_at(contact, "url") {
        kv.raw("<dt>Contact</dt><dd>");
        url_or_text(kv, url, name);
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

/// The cards of the `x-topics` guides.
fn guides(c: &Ctx<'_>, out: &mut Out) {
    let site = c.site;
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
}

/// The reference: how many operations and schemas, and the cards of the navigation groups.
fn reference(c: &Ctx<'_>, out: &mut Out) {
    let doc = c.doc;
    let site = c.site;
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
        group_card(c, out, g);
    }
    out.raw("</ul>");
}

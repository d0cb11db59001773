//! The home page (template `pages/home.html`): the API's title, version, description, contact
//! and licence, servers, authentication, guides, the cards of its navigation groups, and the
//! "Use with an AI agent" section of its MCP server (`crate::mcp`).

use askama::Template;
use specpress_apispec::{OperationKind, SpecFamily, SpecVersion};

use crate::PageContext;
use crate::html::{Html, Out, url_or_text};
use crate::schema::Ctx;
use crate::tpl::{self, Link};

use super::lists::group_cards;
use super::security::authentication_section;
use super::servers::{asyncapi_server_details, servers_section};
use super::{external_docs, md, str_at};

#[derive(Template)]
#[template(path = "pages/home.html", escape = "engine")]
struct Home<'a> {
    title: &'a str,
    api_version: &'a str,
    /// Swagger, OpenAPI or AsyncAPI.
    family: &'static str,
    spec_version: &'a str,
    /// The version's publication time: as written, and as a reader reads it.
    published: Option<(&'a str, String)>,
    summary: Option<&'a str>,
    description: Option<Html>,
    /// The contact's URL as a link (or text), labelled with its name.
    contact_link: Option<Html>,
    /// The contact's name, when it has no URL.
    contact_name: Option<&'a str>,
    email: Option<&'a str>,
    /// True when the email looks like an address (then a `mailto:` link).
    email_is_address: bool,
    licence: Option<Licence<'a>>,
    terms: Option<Html>,
    external_docs: Option<Html>,
    servers: Html,
    async_servers: Html,
    authentication: Option<Html>,
    guides: Vec<Link<'a>>,
    is_async: bool,
    n_ops: usize,
    schema_count: usize,
    schemas_href: Option<String>,
    /// The cards of the root navigation groups.
    cards: Html,
    /// "Use with an AI agent": the documentation's MCP server and its client configuration.
    agent: Option<Html>,
}

struct Licence<'a> {
    name: &'a str,
    /// The URL as a link (or text) labelled with the name, when there is one.
    link: Option<Html>,
    identifier: Option<&'a str>,
}

impl Home<'_> {
    /// Whether the list of contact, licence, terms and external documentation has any item.
    fn has_about(&self) -> bool {
        self.contact_link.is_some()
            || self.contact_name.is_some()
            || self.email.is_some()
            || self.licence.is_some()
            || self.terms.is_some()
            || self.external_docs.is_some()
    }
}

fn url_html(url: &str, label: Option<&str>) -> Html {
    let mut out = Out::new();
    url_or_text(&mut out, url, label);
    out.finish()
}

pub(super) fn home(c: &mut Ctx<'_>, pctx: &PageContext<'_>) -> Option<Html> {
    let doc = c.doc;
    let site = c.site;
    let root = doc.root();
    let info = root.get("info");
    let contact = info.and_then(|i| i.get("contact"));
    let contact_url = contact.and_then(|ct| str_at(ct, "url"));
    let contact_name = contact.and_then(|ct| str_at(ct, "name"));
    let email = contact.and_then(|ct| str_at(ct, "email"));
    let licence = info.and_then(|i| i.get("license")).map(|l| {
        let name = str_at(l, "name").unwrap_or("Licence");
        Licence {
            name,
            link: str_at(l, "url").map(|u| url_html(u, Some(name))),
            identifier: str_at(l, "identifier"),
        }
    });
    let servers = servers_section(&doc.model().servers, 2);
    let is_async = doc.version().family() == SpecFamily::AsyncApi;
    let async_servers = if is_async {
        asyncapi_server_details(doc)
    } else {
        Html::default()
    };
    let authentication = authentication_section(c);
    let cards = group_cards(c, &site.root_groups);
    let home = Home {
        title: if doc.title().trim().is_empty() {
            "API reference"
        } else {
            doc.title()
        },
        api_version: doc.api_version(),
        family: match doc.version().family() {
            SpecFamily::OpenApi if doc.version() == SpecVersion::OpenApi20 => "Swagger",
            SpecFamily::OpenApi => "OpenAPI",
            SpecFamily::AsyncApi => "AsyncAPI",
        },
        spec_version: doc.spec_version_string(),
        published: pctx
            .version
            .filter(|v| !v.published_at.is_empty())
            .map(|v| (v.published_at, crate::human_time(v.published_at))),
        summary: info.and_then(|i| str_at(i, "summary")),
        description: doc.description().map(|d| md(d, 2)),
        contact_link: contact_url.map(|u| url_html(u, contact_name)),
        contact_name,
        email,
        email_is_address: email
            .is_some_and(|e| e.contains('@') && !e.contains([':', '/', '?', ' ', '<', '>'])),
        licence,
        terms: info
            .and_then(|i| str_at(i, "termsOfService"))
            .map(|t| url_html(t, None)),
        external_docs: external_docs(root.get("externalDocs")),
        servers,
        async_servers,
        authentication,
        guides: site
            .topics
            .iter()
            .map(|&t| {
                let p = &site.pages[t as usize];
                Link {
                    href: tpl::href(c.base, &p.path),
                    text: &p.title,
                }
            })
            .collect(),
        is_async,
        n_ops: if is_async {
            doc.model().message_operations.len()
        } else {
            doc.model()
                .operations
                .values()
                .filter(|o| o.key.kind == OperationKind::Path)
                .count()
        },
        schema_count: site.schema_count(),
        schemas_href: site
            .schemas_index
            .map(|s| tpl::href(c.base, &site.pages[s as usize].path)),
        cards,
        agent: crate::mcp::agent_section(pctx.mcp.as_ref()),
    };
    Some(tpl::render(&home, 16384))
}

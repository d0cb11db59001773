//! The servers of a document or an operation, and the protocol details of AsyncAPI servers
//! (templates `pages/servers.html`, `pages/server_details.html`).

use askama::Template;
use specpress_apispec::{Document, Location, Server, V};

use crate::html::{Html, Out};
use crate::schema;
use crate::site::resolve_value;
use crate::tpl;

use super::{first_line, str_at};

#[derive(Template)]
#[template(path = "pages/servers.html", escape = "engine")]
struct Servers<'a> {
    h: u8,
    servers: Vec<ServerView<'a>>,
}

struct ServerView<'a> {
    server: &'a Server,
    /// The first line of the description.
    note: Option<String>,
}

#[derive(Template)]
#[template(path = "pages/server_details.html", escape = "engine")]
struct ServerDetails<'a> {
    details: Vec<ServerDetail<'a>>,
}

struct ServerDetail<'a> {
    name: &'a str,
    version: Option<&'a str>,
    bindings: Option<Html>,
}

/// The servers section (`<h{h}>Servers</h{h}>` and the list), empty without servers.
pub(super) fn servers_section(servers: &[Server], h: u8) -> Html {
    if servers.is_empty() {
        return Html::default();
    }
    let servers = servers
        .iter()
        .map(|server| ServerView {
            server,
            note: server.description.as_deref().map(|d| first_line(d, 300)),
        })
        .collect();
    tpl::render(&Servers { h, servers }, 1024)
}

/// AsyncAPI servers: protocol versions and bindings, by name (empty when none has any).
pub(super) fn asyncapi_server_details(doc: &Document) -> Html {
    let Some(servers) = doc.root().get("servers").and_then(V::as_object) else {
        return Html::default();
    };
    let mut details = Vec::new();
    for (name, sv) in servers.iter() {
        let loc = Location::root(specpress_apispec::FileId::ROOT)
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
        details.push(ServerDetail {
            name,
            version,
            bindings: bindings.map(|b| {
                let mut out = Out::new();
                schema::inline_value(b, &mut out);
                out.finish()
            }),
        });
    }
    if details.is_empty() {
        return Html::default();
    }
    tpl::render(&ServerDetails { details }, 1024)
}

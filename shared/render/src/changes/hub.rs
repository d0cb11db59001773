//! A hub's page: its APIs, their combined changelog, and how to use the hub with an AI agent.

use askama::Template;

use super::changelog::{Release, release_entries};
use super::no_links;
use crate::html::Html;
use crate::{Layout, PageContext, layout, tpl};

/// One API of a hub.
#[derive(Debug, Clone, Copy)]
pub struct HubApi<'a> {
    /// Name (untrusted).
    pub name: &'a str,
    /// Documentation URL (URL-safe).
    pub href: &'a str,
    /// `info.description` (Markdown, untrusted), if any.
    pub description: Option<&'a str>,
    /// `info.version` (untrusted), when something is published.
    pub api_version: Option<&'a str>,
    /// `OpenAPI` or `AsyncAPI`.
    pub kind: Option<&'a str>,
    /// RFC 3339 of the last release.
    pub released_at: Option<&'a str>,
}

/// A hub's page: its APIs and their combined changelog.
#[derive(Debug, Clone, Copy)]
pub struct HubPage<'a> {
    /// Name (untrusted).
    pub name: &'a str,
    /// Description (Markdown, untrusted).
    pub description: Option<&'a str>,
    pub apis: &'a [HubApi<'a>],
    /// The latest releases of its APIs, newest first.
    pub releases: &'a [Release<'a>],
    pub atom_href: &'a str,
    pub rss_href: &'a str,
}

/// Longest hub or API description shown on a hub page (Markdown source).
const HUB_DESCRIPTION_BYTES: usize = 4 * 1024;

#[derive(Template)]
#[template(path = "changes/hub.html", escape = "engine")]
struct HubBody<'a> {
    name: &'a str,
    description: Option<Html>,
    apis: Vec<ApiCard<'a>>,
    atom_href: &'a str,
    rss_href: &'a str,
    releases_empty: bool,
    entries: Html,
    /// "Use with an AI agent": the hub's MCP server and its client configuration.
    agent: Option<Html>,
}

struct ApiCard<'a> {
    name: &'a str,
    href: &'a str,
    kind: Option<&'a str>,
    /// The API's version, when something is published and it is not blank.
    version: Option<&'a str>,
    /// Nothing is published yet.
    unpublished: bool,
    /// The last release: as written, and as a reader reads it.
    released: Option<(&'a str, String)>,
    description: Option<Html>,
}

/// Renders a hub's page.
pub fn hub_page(ctx: &PageContext<'_>, page: &HubPage<'_>) -> String {
    let markdown = |d: Option<&str>, h: u8| {
        d.filter(|d| !d.trim().is_empty())
            .map(|d| crate::markdown::render(d, h, HUB_DESCRIPTION_BYTES))
    };
    let view = HubBody {
        name: page.name,
        description: markdown(page.description, 2),
        apis: page
            .apis
            .iter()
            .map(|api| ApiCard {
                name: api.name,
                href: api.href,
                kind: api.kind,
                version: api.api_version.filter(|v| !v.trim().is_empty()),
                unpublished: api.api_version.is_none(),
                released: api.released_at.map(|t| (t, crate::human_time(t))),
                description: markdown(api.description, 4),
            })
            .collect(),
        atom_href: page.atom_href,
        rss_href: page.rss_href,
        releases_empty: page.releases.is_empty(),
        entries: release_entries(page.releases, 3, &no_links),
        agent: crate::mcp::agent_section(ctx.mcp.as_ref()),
    };
    let body = tpl::render(&view, view.entries.as_str().len() + 4096);
    layout(
        ctx,
        &Layout {
            title: page.name,
            description: None,
            body: &body,
            sidebar: None,
        },
    )
}

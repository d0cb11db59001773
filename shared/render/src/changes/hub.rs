//! A hub's page: its APIs and their combined changelog.

use super::changelog::{Release, release_entry};
use super::no_links;
use super::tree::time_el;
use crate::html::Out;
use crate::{Layout, PageContext, layout};

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

/// Renders a hub's page.
pub fn hub_page(ctx: &PageContext<'_>, page: &HubPage<'_>) -> String {
    let mut out = Out::new();
    out.raw("<h1>").text(page.name).raw("</h1>");
    if let Some(d) = page.description.filter(|d| !d.trim().is_empty()) {
        out.raw("<div class=\"md lead\">")
            .html(&crate::markdown::render(d, 2, HUB_DESCRIPTION_BYTES))
            .raw("</div>");
    }
    out.raw("<h2 id=\"apis\">APIs <span class=\"n\">(")
        .num(page.apis.len())
        .raw(")</span></h2>");
    if page.apis.is_empty() {
        out.raw("<p>This hub has no published API yet.</p>");
    } else {
        out.raw("<ul class=\"cards apis\">");
        for api in page.apis {
            out.raw("<li><h3><a href=\"")
                .attr(api.href)
                .raw("\">")
                .text(api.name)
                .raw("</a></h3><ul class=\"meta\">");
            if let Some(k) = api.kind {
                out.raw("<li><span class=\"b\">")
                    .text(k)
                    .raw("</span></li>");
            }
            match api.api_version {
                Some(v) if !v.trim().is_empty() => {
                    out.raw("<li>Version <code>").text(v).raw("</code></li>");
                }
                Some(_) => {}
                None => {
                    out.raw("<li>Nothing published yet</li>");
                }
            }
            if let Some(t) = api.released_at {
                out.raw("<li>Last release ");
                time_el(&mut out, t);
                out.raw("</li>");
            }
            out.raw("</ul>");
            if let Some(d) = api.description.filter(|d| !d.trim().is_empty()) {
                out.raw("<div class=\"md\">")
                    .html(&crate::markdown::render(d, 4, HUB_DESCRIPTION_BYTES))
                    .raw("</div>");
            }
            out.raw("</li>");
        }
        out.raw("</ul>");
    }
    out.raw("<h2 id=\"changes\">Latest changes</h2><ul class=\"meta\"><li><a href=\"")
        .attr(page.atom_href)
        .raw("\">Atom feed</a></li><li><a href=\"")
        .attr(page.rss_href)
        .raw("\">RSS feed</a></li></ul>");
    if page.releases.is_empty() {
        out.raw("<p>No release yet.</p>");
    }
    for (n, r) in page.releases.iter().enumerate() {
        release_entry(&mut out, r, n, 3, &no_links);
    }
    let body = out.finish();
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

//! A documentation's changelog page: its releases, newest first, each with its changes grouped (top-level items
//! only), and the pager.

use super::tree::{item_name, markers, plain_state, short_id, time_el};
use super::{ENTRY_ITEMS, Group, Item, Linker, ReleaseChanges};
use crate::html::Out;
use crate::{Layout, PageContext, layout};

/// One entry of a changelog.
#[derive(Debug, Clone, Copy)]
pub struct Release<'a> {
    /// The change page of this version (URL-safe).
    pub href: &'a str,
    /// The version id.
    pub id: &'a str,
    /// The API's own version (`info.version`, untrusted).
    pub api_version: &'a str,
    /// The definition's title (untrusted).
    pub title: &'a str,
    /// RFC 3339.
    pub published_at: &'a str,
    /// For a hub's combined changelog: the documentation's name (untrusted) and URL.
    pub doc: Option<(&'a str, &'a str)>,
    pub changes: ReleaseChanges<'a>,
}

/// Renders a changelog entry: heading, date, markers, and its changes grouped (top-level items only).
pub(super) fn release_entry(
    out: &mut Out,
    r: &Release<'_>,
    n: usize,
    heading: u8,
    link: Linker<'_>,
) {
    let h = heading.clamp(2, 5);
    out.raw("<article class=\"rel")
        .raw(if r.changes.breaking() { " brk" } else { "" })
        .raw("\" aria-labelledby=\"r")
        .num(n)
        .raw("\"><h")
        .num(h)
        .raw(" id=\"r")
        .num(n)
        .raw("\">");
    if let Some((name, _)) = r.doc {
        out.text(name).raw(" ");
    }
    out.raw("<a href=\"").attr(r.href).raw("\">");
    if r.api_version.trim().is_empty() {
        out.raw("Version ").text(short_id(r.id));
    } else {
        out.text(r.api_version);
    }
    out.raw("</a>");
    if r.changes.breaking() {
        out.raw(" <span class=\"cs brk\">Breaking</span>");
    }
    out.raw("</h").num(h).raw("><ul class=\"meta\"><li>");
    time_el(out, r.published_at);
    out.raw("</li><li>").text(r.title).raw("</li>");
    if let Some((_, href)) = r.doc {
        out.raw("<li><a href=\"")
            .attr(href)
            .raw("\">Documentation</a></li>");
    }
    out.raw("</ul>");
    if let ReleaseChanges::Changes(c) = r.changes {
        if c.is_empty() {
            out.raw("<p class=\"cstate\">No structural change.</p>");
        }
        for g in Group::ALL {
            let items: Vec<&Item> = c.items.iter().filter(|i| Group::of(i) == g).collect();
            if items.is_empty() {
                continue;
            }
            out.raw("<p class=\"cg\"><span class=\"cgt ")
                .raw(g.key())
                .raw("\">")
                .raw(g.title())
                .raw("</span> <span class=\"n\">(")
                .num(items.len())
                .raw(")</span></p><ul class=\"chg compact\">");
            for item in items.iter().take(ENTRY_ITEMS) {
                out.raw("<li>");
                markers(out, item);
                out.raw(" ");
                item_name(out, item, link);
                out.raw("</li>");
            }
            if items.len() > ENTRY_ITEMS {
                out.raw("<li class=\"more\"><a href=\"")
                    .attr(r.href)
                    .raw("\">and ")
                    .num(items.len() - ENTRY_ITEMS)
                    .raw(" more</a></li>");
            }
            out.raw("</ul>");
        }
    } else {
        plain_state(out, &r.changes);
    }
    out.raw("</article>");
}

/// Previous and next pages of a changelog.
#[derive(Debug, Clone, Copy)]
pub struct Pager<'a> {
    /// 1-based.
    pub page: u64,
    pub pages: u64,
    /// Href of the newer page, if any (URL-safe).
    pub newer: Option<&'a str>,
    /// Href of the older page, if any (URL-safe).
    pub older: Option<&'a str>,
}

/// The changelog page of a documentation (on one branch).
#[derive(Debug, Clone, Copy)]
pub struct Changelog<'a> {
    /// The branch's name (untrusted), shown when the page is about a branch other than the default one.
    pub branch: Option<&'a str>,
    /// Total number of published versions on the branch.
    pub total: u64,
    pub releases: &'a [Release<'a>],
    pub pager: Pager<'a>,
    /// Atom and RSS feeds of this changelog (URL-safe).
    pub atom_href: &'a str,
    pub rss_href: &'a str,
    /// The compare page (URL-safe).
    pub compare_href: &'a str,
}

/// Renders a changelog page.
pub fn changelog_page(ctx: &PageContext<'_>, page: &Changelog<'_>, link: Linker<'_>) -> String {
    let mut out = Out::new();
    out.raw("<h1>Changelog</h1><p class=\"lead\">Every published version of ")
        .text(ctx.doc_name);
    if let Some(b) = page.branch {
        out.raw(" on the branch <strong>").text(b).raw("</strong>");
    }
    out.raw(", newest first (")
        .num(page.total)
        .raw(if page.total == 1 {
            " version).</p>"
        } else {
            " versions).</p>"
        });
    out.raw("<ul class=\"meta\"><li><a href=\"")
        .attr(page.atom_href)
        .raw("\">Atom feed</a></li><li><a href=\"")
        .attr(page.rss_href)
        .raw("\">RSS feed</a></li><li><a href=\"")
        .attr(page.compare_href)
        .raw("\">Compare two versions</a></li></ul>");
    if page.releases.is_empty() {
        out.raw("<p>No published version on this page.</p>");
    }
    for (n, r) in page.releases.iter().enumerate() {
        release_entry(&mut out, r, n, 2, link);
    }
    pager(&mut out, &page.pager);
    let body = out.finish();
    let title = match page.branch {
        Some(b) => format!("Changelog ({b})"),
        None => "Changelog".to_string(),
    };
    layout(
        ctx,
        &Layout {
            title: &title,
            description: None,
            body: &body,
            sidebar: None,
        },
    )
}

fn pager(out: &mut Out, p: &Pager<'_>) {
    if p.newer.is_none() && p.older.is_none() {
        return;
    }
    out.raw("<nav class=\"pager\" aria-label=\"Changelog pages\">");
    if let Some(h) = p.newer {
        out.raw("<a href=\"")
            .attr(h)
            .raw("\" rel=\"prev\">Newer versions</a>");
    }
    out.raw(" <span>Page ")
        .num(p.page)
        .raw(" of ")
        .num(p.pages.max(1))
        .raw("</span> ");
    if let Some(h) = p.older {
        out.raw("<a href=\"")
            .attr(h)
            .raw("\" rel=\"next\">Older versions</a>");
    }
    out.raw("</nav>");
}

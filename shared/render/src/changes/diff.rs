//! A public diff's page: the changes between two uploaded documents.

use super::tree::{shown_changes, time_el, tree};
use super::{ReleaseChanges, no_links};
use crate::html::Out;
use crate::{Layout, PageContext, layout};

/// A public diff (`POST /diffs`, `bump diff`): the two documents were uploaded, not published.
#[derive(Debug, Clone, Copy)]
pub struct DiffPage<'a> {
    /// `info.title` of the current document (untrusted).
    pub title: &'a str,
    pub changes: ReleaseChanges<'a>,
    /// The two documents as JSON (URL-safe).
    pub previous_href: &'a str,
    pub current_href: &'a str,
    /// RFC 3339, when the diff expires.
    pub expires_at: Option<&'a str>,
}

/// Renders a public diff's page.
pub fn diff_page(ctx: &PageContext<'_>, page: &DiffPage<'_>) -> String {
    let mut out = Out::new();
    out.raw("<h1>Changes to ").text(page.title).raw("</h1>");
    if page.changes.breaking() {
        out.raw("<p class=\"brkn\"><span class=\"cs brk\">Breaking</span> These changes break existing clients.</p>");
    }
    match page.changes {
        ReleaseChanges::Changes(c) if !c.is_empty() => tree(&mut out, c, 2, &no_links),
        ReleaseChanges::Changes(_) | ReleaseChanges::Unchanged => {
            out.raw("<p class=\"cstate\">No structural changes detected.</p>");
        }
        other => shown_changes(&mut out, &other, 2, &no_links),
    }
    out.raw("<ul class=\"meta\"><li><a href=\"")
        .attr(page.previous_href)
        .raw("\">Previous document (JSON)</a></li><li><a href=\"")
        .attr(page.current_href)
        .raw("\">Current document (JSON)</a></li>");
    if let Some(e) = page.expires_at {
        out.raw("<li>Expires ");
        time_el(&mut out, e);
        out.raw("</li>");
    }
    out.raw("</ul>");
    let body = out.finish();
    let title = format!("Changes to {}", page.title);
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

//! The compare page: a form to pick two versions, and what changed between them.

use super::release::{VersionRef, version_label};
use super::tree::shown_changes;
use super::{Linker, ReleaseChanges};
use crate::html::Out;
use crate::{Layout, PageContext, layout};

/// An entry of the compare form's lists.
#[derive(Debug, Clone, Copy)]
pub struct VersionOption<'a> {
    pub id: &'a str,
    /// Shown text (untrusted parts: branch name, `info.version`): escaped.
    pub label: &'a str,
}

/// The compare page: a GET form, and the result when both sides are given.
#[derive(Debug, Clone, Copy)]
pub struct ComparePage<'a> {
    /// The form's action (URL-safe).
    pub action: &'a str,
    /// Choices of the two lists, grouped by branch (the branch name, then its versions, newest first).
    pub options: &'a [(&'a str, Vec<VersionOption<'a>>)],
    pub from: Option<VersionRef<'a>>,
    pub to: Option<VersionRef<'a>>,
    /// The result, when both sides were given and found.
    pub changes: Option<ReleaseChanges<'a>>,
    /// A problem with the request, said on the page (unknown version...).
    pub problem: Option<&'a str>,
    /// The changelog (URL-safe).
    pub changelog_href: &'a str,
}

/// Renders the compare page.
pub fn compare_page(ctx: &PageContext<'_>, page: &ComparePage<'_>, link: Linker<'_>) -> String {
    let mut out = Out::new();
    out.raw("<p class=\"crumbs\"><a href=\"")
        .attr(page.changelog_href)
        .raw("\">Changelog</a></p><h1>Compare versions</h1>")
        .raw("<p class=\"lead\">What changed between any two published versions of ")
        .text(ctx.doc_name)
        .raw(", on the same branch or across branches.</p>");
    out.raw("<form class=\"cmp\" method=\"get\" action=\"")
        .attr(page.action)
        .raw("\">");
    for (name, label, current) in [
        ("from", "From (older)", page.from.map(|v| v.id)),
        ("to", "To (newer)", page.to.map(|v| v.id)),
    ] {
        out.raw("<p><label for=\"")
            .raw(name)
            .raw("\">")
            .raw(label)
            .raw("</label> <select id=\"")
            .raw(name)
            .raw("\" name=\"")
            .raw(name)
            .raw("\" required>");
        if current.is_none() {
            out.raw("<option value=\"\">Choose a version</option>");
        }
        let mut listed = false;
        for (branch, versions) in page.options {
            out.raw("<optgroup label=\"").attr(branch).raw("\">");
            for v in versions {
                let selected = current == Some(v.id);
                listed |= selected;
                out.raw("<option value=\"").attr(v.id).raw("\"");
                if selected {
                    out.raw(" selected");
                }
                out.raw(">").text(v.label).raw("</option>");
            }
            out.raw("</optgroup>");
        }
        if let Some(id) = current
            && !listed
        {
            // A version older than the lists go: kept selected.
            out.raw("<option value=\"")
                .attr(id)
                .raw("\" selected>")
                .text(id)
                .raw("</option>");
        }
        out.raw("</select></p>");
    }
    out.raw("<p><button type=\"submit\">Compare</button></p></form>");
    if let Some(p) = page.problem {
        out.raw("<p class=\"warn\" role=\"alert\">")
            .text(p)
            .raw("</p>");
    }
    if let (Some(from), Some(to), Some(changes)) = (&page.from, &page.to, &page.changes) {
        out.raw("<h2>From ");
        version_label(&mut out, from);
        out.raw(" to ");
        version_label(&mut out, to);
        out.raw("</h2>");
        if changes.breaking() {
            out.raw("<p class=\"brkn\"><span class=\"cs brk\">Breaking</span> Clients written for the first version may fail with the second.</p>");
        }
        shown_changes(&mut out, changes, 3, link);
    }
    let body = out.finish();
    layout(
        ctx,
        &Layout {
            title: "Compare versions",
            description: None,
            body: &body,
            sidebar: None,
        },
    )
}

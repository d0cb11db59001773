//! One release's change page: the version, the one it is compared with, and its changes.

use super::tree::{short_id, shown_changes, time_el};
use super::{Linker, ReleaseChanges};
use crate::html::Out;
use crate::{Layout, PageContext, layout};

/// One side of a comparison or of a change page.
#[derive(Debug, Clone, Copy)]
pub struct VersionRef<'a> {
    pub id: &'a str,
    /// `info.version` (untrusted).
    pub api_version: &'a str,
    /// The branch's name (untrusted).
    pub branch: &'a str,
    /// RFC 3339.
    pub published_at: &'a str,
    /// Its change page (URL-safe), if it has one.
    pub href: Option<&'a str>,
}

pub(super) fn version_label(out: &mut Out, v: &VersionRef<'_>) {
    let label = |out: &mut Out| {
        if v.api_version.trim().is_empty() {
            out.raw("version ").text(short_id(v.id));
        } else {
            out.text(v.api_version);
        }
    };
    match v.href {
        Some(h) => {
            out.raw("<a href=\"").attr(h).raw("\">");
            label(out);
            out.raw("</a>");
        }
        None => label(out),
    }
    out.raw(" (").text(v.branch).raw(", ");
    time_el(out, v.published_at);
    out.raw(")");
}

/// One release's change page.
#[derive(Debug, Clone, Copy)]
pub struct ChangePage<'a> {
    pub version: VersionRef<'a>,
    /// The definition's title (untrusted).
    pub title: &'a str,
    /// The version it is compared with.
    pub previous: Option<VersionRef<'a>>,
    pub changes: ReleaseChanges<'a>,
    /// The changelog (URL-safe).
    pub changelog_href: &'a str,
    /// The `.json` variant and the version's definition (URL-safe).
    pub json_href: &'a str,
    pub source_href: &'a str,
    /// The compare page preset with both versions (URL-safe), when there is a previous version.
    pub compare_href: Option<&'a str>,
    /// A temporary (unpublished) version: said so.
    pub temporary: bool,
}

/// Renders a release's change page.
pub fn change_page(ctx: &PageContext<'_>, page: &ChangePage<'_>, link: Linker<'_>) -> String {
    let mut out = Out::new();
    out.raw("<p class=\"crumbs\"><a href=\"")
        .attr(page.changelog_href)
        .raw("\">Changelog</a></p><h1>Changes in ");
    if page.version.api_version.trim().is_empty() {
        out.raw("version ").text(short_id(page.version.id));
    } else {
        out.text(page.version.api_version);
    }
    out.raw("</h1>");
    if page.changes.breaking() {
        out.raw("<p class=\"brkn\"><span class=\"cs brk\">Breaking</span> This release has breaking changes: existing clients may fail.</p>");
    }
    if page.temporary {
        out.raw("<p class=\"warn\">This version is not published: it was deployed for comparison and expires.</p>");
    }
    out.raw("<dl class=\"kv\"><dt>Title</dt><dd>")
        .text(page.title)
        .raw("</dd><dt>Version</dt><dd>");
    version_label(
        &mut out,
        &VersionRef {
            href: None,
            ..page.version
        },
    );
    out.raw(" <code>").text(page.version.id).raw("</code></dd>");
    if let Some(p) = &page.previous {
        out.raw("<dt>Compared with</dt><dd>");
        version_label(&mut out, p);
        out.raw("</dd>");
    }
    out.raw("</dl>");
    shown_changes(&mut out, &page.changes, 2, link);
    out.raw("<ul class=\"meta\"><li><a href=\"")
        .attr(page.json_href)
        .raw("\">These changes as JSON</a></li><li><a href=\"")
        .attr(page.source_href)
        .raw("\">Definition of this version</a></li>");
    if let Some(h) = page.compare_href {
        out.raw("<li><a href=\"")
            .attr(h)
            .raw("\">Compare with another version</a></li>");
    }
    out.raw("</ul>");
    let body = out.finish();
    let title = format!(
        "Changes in {}",
        if page.version.api_version.trim().is_empty() {
            short_id(page.version.id)
        } else {
            page.version.api_version
        }
    );
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

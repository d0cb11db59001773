//! One release's change page: the version, the one it is compared with, and its changes.

use askama::Template;

use super::tree::{short_id, shown_changes};
use super::{Linker, ReleaseChanges};
use crate::html::Out;
use crate::{Layout, PageContext, layout, tpl};

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

/// A version as the templates show it (macro `version` of `changes/macros.html`).
pub(super) struct VersionView<'a> {
    pub(super) href: Option<&'a str>,
    /// The API's version, unless it is blank (then the short id is shown).
    pub(super) api_version: Option<&'a str>,
    pub(super) short_id: &'a str,
    pub(super) branch: &'a str,
    pub(super) published_at: &'a str,
    /// The publication time as a reader reads it.
    pub(super) published: String,
}

impl<'a> VersionView<'a> {
    pub(super) fn new(v: &VersionRef<'a>) -> VersionView<'a> {
        VersionView {
            href: v.href,
            api_version: Some(v.api_version).filter(|a| !a.trim().is_empty()),
            short_id: short_id(v.id),
            branch: v.branch,
            published_at: v.published_at,
            published: crate::human_time(v.published_at),
        }
    }
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

#[derive(Template)]
#[template(path = "changes/release.html", escape = "engine")]
struct ReleaseBody<'a> {
    changelog_href: &'a str,
    /// The version (not linked: this is its page).
    version: VersionView<'a>,
    id: &'a str,
    title: &'a str,
    breaking: bool,
    temporary: bool,
    previous: Option<VersionView<'a>>,
    changes: crate::html::Html,
    json_href: &'a str,
    source_href: &'a str,
    compare_href: Option<&'a str>,
}

/// Renders a release's change page.
pub fn change_page(ctx: &PageContext<'_>, page: &ChangePage<'_>, link: Linker<'_>) -> String {
    let mut changes = Out::new();
    shown_changes(&mut changes, &page.changes, 2, link);
    let view = ReleaseBody {
        changelog_href: page.changelog_href,
        version: VersionView::new(&VersionRef {
            href: None,
            ..page.version
        }),
        id: page.version.id,
        title: page.title,
        breaking: page.changes.breaking(),
        temporary: page.temporary,
        previous: page.previous.as_ref().map(VersionView::new),
        changes: changes.finish(),
        json_href: page.json_href,
        source_href: page.source_href,
        compare_href: page.compare_href,
    };
    let body = tpl::render(&view, view.changes.as_str().len() + 2048);
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

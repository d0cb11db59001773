//! A public diff's page: the changes between two uploaded documents.

use askama::Template;

use super::tree::{State, shown_changes, state_html, tree};
use super::{ReleaseChanges, no_links};
use crate::html::{Html, Out};
use crate::{Layout, PageContext, layout, tpl};

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

#[derive(Template)]
#[template(path = "changes/diff.html", escape = "engine")]
struct DiffBody<'a> {
    title: &'a str,
    breaking: bool,
    changes: Html,
    previous_href: &'a str,
    current_href: &'a str,
    /// When the diff expires: as written, and as a reader reads it.
    expires: Option<(&'a str, String)>,
}

/// Renders a public diff's page.
pub fn diff_page(ctx: &PageContext<'_>, page: &DiffPage<'_>) -> String {
    let mut changes = Out::new();
    match page.changes {
        ReleaseChanges::Changes(c) if !c.is_empty() => tree(&mut changes, c, 2, &no_links),
        ReleaseChanges::Changes(_) | ReleaseChanges::Unchanged => {
            changes.html(&state_html(State::NothingDetected));
        }
        other => shown_changes(&mut changes, &other, 2, &no_links),
    }
    let view = DiffBody {
        title: page.title,
        breaking: page.changes.breaking(),
        changes: changes.finish(),
        previous_href: page.previous_href,
        current_href: page.current_href,
        expires: page.expires_at.map(|e| (e, crate::human_time(e))),
    };
    let body = tpl::render(&view, view.changes.as_str().len() + 1024);
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

//! The compare page: a form to pick two versions, and what changed between them.

use askama::Template;

use super::release::{VersionRef, VersionView};
use super::tree::shown_changes;
use super::{Linker, ReleaseChanges};
use crate::html::{Html, Out};
use crate::{Layout, PageContext, layout, tpl};

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

#[derive(Template)]
#[template(path = "changes/compare.html", escape = "engine")]
struct CompareBody<'a> {
    changelog_href: &'a str,
    doc_name: &'a str,
    action: &'a str,
    options: &'a [(&'a str, Vec<VersionOption<'a>>)],
    selects: [Select<'a>; 2],
    problem: Option<&'a str>,
    result: Option<CompareResult<'a>>,
}

/// One of the form's two lists.
struct Select<'a> {
    name: &'static str,
    label: &'static str,
    /// The version chosen, if any.
    current: Option<&'a str>,
    /// The version chosen when the lists do not have it (older than they go): kept selected.
    unlisted: Option<&'a str>,
}

impl Select<'_> {
    fn is_selected(&self, id: &str) -> bool {
        self.current == Some(id)
    }
}

struct CompareResult<'a> {
    from: VersionView<'a>,
    to: VersionView<'a>,
    breaking: bool,
    changes: Html,
}

fn select<'a>(
    options: &[(&str, Vec<VersionOption<'_>>)],
    name: &'static str,
    label: &'static str,
    current: Option<&'a str>,
) -> Select<'a> {
    Select {
        name,
        label,
        current,
        unlisted: current.filter(|id| {
            !options
                .iter()
                .any(|(_, versions)| versions.iter().any(|v| v.id == *id))
        }),
    }
}

/// Renders the compare page.
pub fn compare_page(ctx: &PageContext<'_>, page: &ComparePage<'_>, link: Linker<'_>) -> String {
    let result = match (&page.from, &page.to, &page.changes) {
        (Some(from), Some(to), Some(changes)) => {
            let mut shown = Out::new();
            shown_changes(&mut shown, changes, 3, link);
            Some(CompareResult {
                from: VersionView::new(from),
                to: VersionView::new(to),
                breaking: changes.breaking(),
                changes: shown.finish(),
            })
        }
        _ => None,
    };
    let view = CompareBody {
        changelog_href: page.changelog_href,
        doc_name: ctx.doc_name,
        action: page.action,
        options: page.options,
        selects: [
            select(
                page.options,
                "from",
                "From (older)",
                page.from.map(|v| v.id),
            ),
            select(page.options, "to", "To (newer)", page.to.map(|v| v.id)),
        ],
        problem: page.problem,
        result,
    };
    let body = tpl::render(&view, 8192);
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

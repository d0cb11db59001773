//! The history section of a reference page: when its operation, webhook, schema or channel appeared and every
//! later release that changed it, newest first, breaking ones marked, each linked to the release's change page;
//! and the subject's own history page ([`Site::render_history_page`]): all of it, a page of releases at a time,
//! linked from the section when it has more than [`MAX_HISTORY_ENTRIES`].
//!
//! The engine knows no storage: the presenter reads the releases (from stored release digests, never by diffing
//! per request), fills a [`PageHistory`] for the page's [`HistorySubject`] and asks [`Site::render_with_history`]
//! for the page. Every version string is document text and is escaped by the template.

use askama::Template;
use specpress_apispec::Document;

use crate::changes::Pager;
use crate::html::Html;
use crate::site::{Site, Target};
use crate::{Layout, PageContext, PageRef, RenderedPage, layout, tpl};

/// Releases listed on a page (the older ones are on the changelog).
pub const MAX_HISTORY_ENTRIES: usize = 10;

/// What a page's history is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryKind {
    /// An HTTP operation or a webhook, named `METHOD /path` (`METHOD name` for a webhook), as the diff names it.
    Operation,
    /// A named schema.
    Schema,
    /// An AsyncAPI channel, by its address.
    Channel,
}

impl HistoryKind {
    /// The kind as a reader calls it.
    fn word(self) -> &'static str {
        match self {
            HistoryKind::Operation => "operation",
            HistoryKind::Schema => "schema",
            HistoryKind::Channel => "channel",
        }
    }
}

/// The subject of a page with a history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistorySubject {
    pub kind: HistoryKind,
    /// The name releases know it by (document text).
    pub name: String,
    /// The canonical path of its page, relative to the documentation root (URL-safe: the site's paths are).
    pub path: String,
}

/// A release, as a history shows it.
#[derive(Debug, Clone)]
pub struct HistoryRelease {
    /// The API version it declared (document text; empty when none).
    pub api_version: String,
    /// The first characters of its id, shown when it declared no API version.
    pub short_id: String,
    /// Its change page (URL-safe).
    pub href: String,
    /// RFC 3339.
    pub published_at: String,
    /// As a reader reads it.
    pub published: String,
    /// The branch's first release.
    pub first: bool,
    /// The page as it was in this release (`/doc/{doc}/v/{version}/{page}`, URL-safe), when the page was there.
    pub page_href: Option<String>,
}

/// How a release touched the subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryStatus {
    Added,
    Changed,
    Removed,
}

/// One release that touched the subject.
#[derive(Debug, Clone)]
pub struct HistoryEntry {
    pub release: HistoryRelease,
    pub status: HistoryStatus,
    pub breaking: bool,
    /// What broke (document text and the diff's messages), first ones first.
    pub breaks: Vec<String>,
}

/// The history of one page's subject.
#[derive(Debug, Clone)]
pub struct PageHistory {
    /// Newest first; at most [`MAX_HISTORY_ENTRIES`] are shown.
    pub entries: Vec<HistoryEntry>,
    /// When no entry says it was added: the branch's first release, when the subject has been there since (the
    /// releases were read back to it).
    pub since: Option<HistoryRelease>,
    /// Releases read.
    pub read: usize,
    /// The releases were read back to the branch's first one.
    pub scanned_all: bool,
    /// Some release read kept only part of its changes (a very large diff).
    pub cut: bool,
    /// The branch's changelog (URL-safe).
    pub changelog_href: String,
    /// The subject's own history page (URL-safe), linked from the section when it lists only the newest
    /// [`MAX_HISTORY_ENTRIES`] of more entries.
    pub all_href: Option<String>,
}

struct EntryView<'a> {
    release: &'a HistoryRelease,
    class: &'static str,
    status: &'static str,
    breaking: bool,
    breaks: Vec<Vec<Piece<'a>>>,
}

/// A run of a diff message: plain text, or a code span (the diff writes names between backticks).
struct Piece<'a> {
    code: bool,
    text: &'a str,
}

/// A diff message cut into text and `code` spans; unbalanced backticks leave it all text. The template escapes
/// every piece.
fn pieces(message: &str) -> Vec<Piece<'_>> {
    if !message.matches('`').count().is_multiple_of(2) {
        return vec![Piece {
            code: false,
            text: message,
        }];
    }
    message
        .split('`')
        .enumerate()
        .filter(|(_, t)| !t.is_empty())
        .map(|(i, text)| Piece {
            code: i % 2 == 1,
            text,
        })
        .collect()
}

/// What the subject's own history page adds to the list: its heading, its reference page and its pager.
struct FullPage<'a> {
    /// The subject's page title (document text).
    title: &'a str,
    /// `operation`, `schema` or `channel`.
    kind: &'static str,
    /// Its reference page (URL-safe).
    page_href: &'a str,
    /// Entries on every page.
    total: usize,
    /// The pager, when there is more than one page.
    pager: Option<Pager<'a>>,
}

/// One template for the section of a reference page (`full: None`) and the subject's history page.
#[derive(Template)]
#[template(path = "pages/history.html", escape = "engine")]
struct HistoryList<'a> {
    entries: Vec<EntryView<'a>>,
    since: Option<&'a HistoryRelease>,
    more: usize,
    all_href: Option<&'a str>,
    read: usize,
    scanned_all: bool,
    cut: bool,
    changelog_href: &'a str,
    full: Option<FullPage<'a>>,
}

fn entry_views(entries: &[HistoryEntry], at_most: usize) -> Vec<EntryView<'_>> {
    entries
        .iter()
        .take(at_most)
        .map(|e| {
            let (class, status) = match e.status {
                HistoryStatus::Added => ("add", "Added"),
                HistoryStatus::Changed => ("mod", "Changed"),
                HistoryStatus::Removed => ("rem", "Removed"),
            };
            EntryView {
                release: &e.release,
                class,
                status,
                breaking: e.breaking,
                breaks: e.breaks.iter().map(|b| pieces(b)).collect(),
            }
        })
        .collect()
}

/// The history section of a page: the newest [`MAX_HISTORY_ENTRIES`] entries, and a link to the rest.
pub(crate) fn history_section(h: &PageHistory) -> Html {
    let entries = entry_views(&h.entries, MAX_HISTORY_ENTRIES);
    let section = HistoryList {
        more: h.entries.len().saturating_sub(entries.len()),
        entries,
        since: h.since.as_ref(),
        all_href: h.all_href.as_deref(),
        read: h.read,
        scanned_all: h.scanned_all,
        cut: h.cut,
        changelog_href: &h.changelog_href,
        full: None,
    };
    tpl::render(&section, 1024)
}

/// One page of a subject's own history.
#[derive(Debug, Clone, Copy)]
pub struct HistoryPage<'a> {
    /// The subject.
    pub subject: &'a HistorySubject,
    /// This page's entries (every one is listed) and what the section also says (`since`, notes, changelog).
    pub history: &'a PageHistory,
    /// Entries on every page.
    pub total: usize,
    /// This page among the subject's pages (`newer` and `older` are URL-safe hrefs).
    pub pager: Pager<'a>,
}

impl Site {
    /// What the history of `page` is about: an operation, webhook, schema or channel page has one; other pages
    /// (home, topics, groups, callbacks, AsyncAPI operations) do not.
    pub fn history_subject(&self, doc: &Document, page: &PageRef) -> Option<HistorySubject> {
        let model = doc.model();
        let entry = self.pages.get(page.0 as usize)?;
        let (kind, name) = match &entry.target {
            Target::Operation(i) => {
                let (_, op) = model.operations.get_index(*i as usize)?;
                (
                    HistoryKind::Operation,
                    format!("{} {}", op.key.method, op.path),
                )
            }
            Target::Schema(i) => {
                let (name, _) = model.schemas.get_index(*i as usize)?;
                (HistoryKind::Schema, name.to_string())
            }
            Target::Channel(i) => {
                let (_, ch) = model.channels.get_index(*i as usize)?;
                (HistoryKind::Channel, ch.address.clone())
            }
            _ => return None,
        };
        Some(HistorySubject {
            kind,
            name,
            path: entry.path.clone(),
        })
    }

    /// The subject's own history page of `page` (one with a [`HistorySubject`]): its title, a link back to its
    /// reference page, this page's entries and the pager, with the documentation's navigation (the subject's page
    /// marked current).
    pub fn render_history_page(
        &self,
        page: &PageRef,
        ctx: &PageContext<'_>,
        h: &HistoryPage<'_>,
    ) -> String {
        let info = self.info(*page);
        let page_href = tpl::href(ctx.base, info.path);
        let p = h.pager;
        let list = HistoryList {
            entries: entry_views(&h.history.entries, usize::MAX),
            since: h.history.since.as_ref(),
            more: 0,
            all_href: None,
            read: h.history.read,
            scanned_all: h.history.scanned_all,
            cut: h.history.cut,
            changelog_href: &h.history.changelog_href,
            full: Some(FullPage {
                title: info.title,
                kind: h.subject.kind.word(),
                page_href: &page_href,
                total: h.total,
                pager: (p.newer.is_some() || p.older.is_some()).then_some(p),
            }),
        };
        let body = tpl::render(&list, 512 * h.history.entries.len() + 1024);
        let sidebar = self.sidebar(ctx.base, Some(*page));
        let title = if p.pages > 1 {
            format!("History of {} (page {} of {})", info.title, p.page, p.pages)
        } else {
            format!("History of {}", info.title)
        };
        layout(
            ctx,
            &Layout {
                title: &title,
                description: None,
                body: &body,
                sidebar: Some(&sidebar),
            },
        )
    }

    /// [`Site::render`], with the history of the page's subject as the body's last section.
    pub fn render_with_history(
        &self,
        doc: &Document,
        page: &PageRef,
        ctx: &PageContext<'_>,
        history: Option<&PageHistory>,
    ) -> RenderedPage {
        self.render_page(doc, page, ctx, history.map(history_section))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: usize) -> HistoryEntry {
        HistoryEntry {
            release: HistoryRelease {
                api_version: format!("1.{n}<img src=x>"),
                short_id: "abcdef01".into(),
                href: format!("/doc/p/changes/v{n}"),
                published_at: "2026-01-01T00:00:00Z".into(),
                published: "2026-01-01 00:00 UTC".into(),
                first: false,
                page_href: (n == 1).then(|| format!("/doc/p/v/v{n}/operation/x")),
            },
            status: HistoryStatus::Changed,
            breaking: n == 0,
            breaks: vec!["<b>limit</b> became required, `<i>x</i>` too".into()],
        }
    }

    fn history(entries: usize, all_href: Option<&str>) -> PageHistory {
        PageHistory {
            entries: (0..entries).map(entry).collect(),
            since: None,
            read: entries,
            scanned_all: true,
            cut: false,
            changelog_href: "/doc/p/changes".into(),
            all_href: all_href.map(str::to_owned),
        }
    }

    #[test]
    fn code_spans_of_diff_messages_are_code_and_still_escaped() {
        let html = history_section(&history(1, None));
        let html = html.as_str();
        assert!(
            html.contains("<li>&#60;b&#62;limit&#60;/b&#62; became required, <code>&#60;i&#62;x&#60;/i&#62;</code> too</li>")
                || html.contains("<li>&lt;b&gt;limit&lt;/b&gt; became required, <code>&lt;i&gt;x&lt;/i&gt;</code> too</li>"),
            "{html}"
        );
        assert_eq!(pieces("a `b").len(), 1, "unbalanced backticks stay text");
    }

    #[test]
    fn a_long_section_lists_the_ten_newest_unnumbered_and_links_the_history_page() {
        let html = history_section(&history(12, Some("/doc/p/history/operation/x")));
        let html = html.as_str();
        assert!(
            html.contains("<ul class=\"hist\">") && !html.contains("<ol"),
            "{html}"
        );
        assert_eq!(
            html.matches("<li><span class=\"cs ").count(),
            MAX_HISTORY_ENTRIES
        );
        assert!(
            html.contains("2 earlier changes are on <a href=\"/doc/p/history/operation/x\">the full history</a>"),
            "{html}"
        );
        // Document text is escaped: versions and breaking messages.
        assert!(!html.contains("<img") && !html.contains("<b>"), "{html}");
        assert!(html.contains("1.0&lt;img src=x&gt;"), "{html}");
        // A release that had the page links to the page as it was then.
        assert!(
            html.contains("<a class=\"asof\" href=\"/doc/p/v/v1/operation/x\">this page in 1.1&lt;img src=x&gt;</a>"),
            "{html}"
        );
        assert_eq!(html.matches("class=\"asof\"").count(), 1, "{html}");
        // Without a history page (none linked), the rest is on the changelog; a short section links nothing.
        let html = history_section(&history(12, None));
        assert!(
            html.as_str()
                .contains("in <a href=\"/doc/p/changes\">the changelog</a>")
        );
        let html = history_section(&history(3, None));
        assert!(!html.as_str().contains("earlier"), "{}", html.as_str());
    }
}

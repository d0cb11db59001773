//! The history section of a reference page: when its operation, webhook, schema or channel appeared and every
//! later release that changed it, newest first, breaking ones marked, each linked to the release's change page.
//!
//! The engine knows no storage: the presenter reads the releases (from stored release digests, never by diffing
//! per request), fills a [`PageHistory`] for the page's [`HistorySubject`] and asks [`Site::render_with_history`]
//! for the page. Every version string is document text and is escaped by the template.

use askama::Template;
use specpress_spec::Document;

use crate::html::Html;
use crate::site::{Site, Target};
use crate::{PageContext, PageRef, RenderedPage, tpl};

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

/// The subject of a page with a history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistorySubject {
    pub kind: HistoryKind,
    /// The name releases know it by (document text).
    pub name: String,
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
}

struct EntryView<'a> {
    release: &'a HistoryRelease,
    class: &'static str,
    status: &'static str,
    breaking: bool,
    breaks: &'a [String],
}

#[derive(Template)]
#[template(path = "pages/history.html", escape = "engine")]
struct HistorySection<'a> {
    entries: Vec<EntryView<'a>>,
    since: Option<&'a HistoryRelease>,
    more: usize,
    read: usize,
    scanned_all: bool,
    cut: bool,
    changelog_href: &'a str,
}

/// The history section of a page.
pub(crate) fn history_section(h: &PageHistory) -> Html {
    let entries: Vec<EntryView<'_>> = h
        .entries
        .iter()
        .take(MAX_HISTORY_ENTRIES)
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
                breaks: &e.breaks,
            }
        })
        .collect();
    let section = HistorySection {
        more: h.entries.len().saturating_sub(entries.len()),
        entries,
        since: h.since.as_ref(),
        read: h.read,
        scanned_all: h.scanned_all,
        cut: h.cut,
        changelog_href: &h.changelog_href,
    };
    tpl::render(&section, 1024)
}

impl Site {
    /// What the history of `page` is about: an operation, webhook, schema or channel page has one; other pages
    /// (home, topics, groups, callbacks, AsyncAPI operations) do not.
    pub fn history_subject(&self, doc: &Document, page: &PageRef) -> Option<HistorySubject> {
        let model = doc.model();
        let (kind, name) = match &self.pages.get(page.0 as usize)?.target {
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
        Some(HistorySubject { kind, name })
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

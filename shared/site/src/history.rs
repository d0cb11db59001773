//! Histories of reference pages (an operation, a webhook, a schema, a channel): the section of each page and the
//! subject's own history page, both read from the branch's history index
//! ([`specpress_reader::history::BranchHistory`], built once per head from the stored release digests: no diff,
//! and no storage request once the head's index is kept).
//!
//! - The section lists the newest [`MAX_HISTORY_ENTRIES`]; when there are more it links the history page.
//! - `GET /doc/{doc}/history/{page}` and `GET /doc/{doc}/branches/{branch}/history/{page}` (`{page}` is the
//!   subject's page path, `operation/...`, `schema/...`, `channel/...`; `?page=N`): every release that changed
//!   it, [`HISTORY_PAGE_ENTRIES`](specpress_reader::history::HISTORY_PAGE_ENTRIES) a page, newest first, with previous and next links. A path that is not a page
//!   with a history, or a page number out of range, is a 404 page.

use specpress_domain::urls;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::routing::get;
use specpress_api::readers::Viewer;
use specpress_domain::model::Slug;
use specpress_domain::usecases::public::{PublicDoc, Reader};
use specpress_engines::cpu::CpuGate;
use specpress_reader::history::{BranchHistory, Mark, MarksPage, ReleaseRef, SubjectKind};
use specpress_reader::{BranchInUrl, DocView, Library, Missing, branch_in_url};
use specpress_render::Lookup;
use specpress_render::changes::Pager;
use specpress_render::history::{
    HistoryEntry, HistoryKind, HistoryPage, HistoryRelease, HistoryStatus, HistorySubject,
    MAX_HISTORY_ENTRIES, PageHistory,
};
use tracing::instrument;

use crate::SiteState;
use crate::chrome::Chrome;
use crate::error::{Page, PageError};
use crate::respond::{Validator, html_page, not_modified, redirect, rfc3339_seconds};

/// The routes of history pages.
pub fn routes() -> Router<SiteState> {
    Router::new()
        .route("/doc/{doc}/history/{*page}", get(doc_history))
        .route(
            "/doc/{doc}/branches/{branch}/history/{*page}",
            get(branch_history),
        )
}

/// Longest query string read.
const MAX_QUERY: usize = 1024;

fn kind_of(k: HistoryKind) -> SubjectKind {
    match k {
        HistoryKind::Operation => SubjectKind::Operation,
        HistoryKind::Schema => SubjectKind::Schema,
        HistoryKind::Channel => SubjectKind::Channel,
    }
}

/// A release of `view`'s branch as a history shows it; `page` is the subject's page path when the page was there
/// in that release (linked as it was then, `/doc/{doc}[/branches/{branch}]/v/{version}/{page}`).
fn release(view: &DocView, r: &ReleaseRef, first: bool, page: Option<&str>) -> HistoryRelease {
    let id = r.id.to_string();
    let published_at = rfc3339_seconds(r.created_at);
    HistoryRelease {
        api_version: r.api_version.clone(),
        short_id: id.chars().take(8).collect(),
        href: format!("{}/changes/{id}", urls::doc_path(&view.doc.slug)),
        published: specpress_render::human_time(&published_at),
        published_at,
        first,
        page_href: page.map(|p| format!("{}/v/{id}/{p}", view.base)),
    }
}

/// The history page of `subject` on `view`'s branch, page `n` (`?page=` only from the second on).
fn history_href(view: &DocView, subject: &HistorySubject, n: usize) -> String {
    let path = format!("{}/history/{}", view.base, subject.path);
    if n <= 1 {
        path
    } else {
        format!("{path}?page={n}")
    }
}

/// The entries of `marks` (some of `all`, the subject's every mark) and what the history says around them; `path`
/// is the subject's page path.
fn history_of(
    view: &DocView,
    index: &BranchHistory,
    (marks, all): (&[Mark], &[Mark]),
    path: &str,
) -> PageHistory {
    let first_id = index.first().map(|r| r.id);
    let entries: Vec<HistoryEntry> = marks
        .iter()
        .filter_map(|m| {
            let r = index.releases.get(m.release as usize)?;
            let status = match m.status.as_str() {
                "added" => HistoryStatus::Added,
                "removed" => HistoryStatus::Removed,
                _ => HistoryStatus::Changed,
            };
            // A release that removed the subject has no page of it.
            let page = (status != HistoryStatus::Removed).then_some(path);
            Some(HistoryEntry {
                release: release(view, r, Some(r.id) == first_id, page),
                status,
                breaking: m.breaking,
                breaks: m.breaks.clone(),
            })
        })
        .collect();
    // Present from the first release on: no release added it, and the walk went back to the first one.
    let since = index
        .first()
        .filter(|_| !all.iter().any(|m| m.status == "added"))
        .map(|r| release(view, r, true, Some(path)));
    PageHistory {
        entries,
        since,
        read: index.releases.len(),
        scanned_all: index.reached_first,
        cut: index.cut > 0,
        changelog_href: format!("{}/changes", view.base),
        all_href: None,
    }
}

/// The history section of `subject`'s page on `view`'s branch, from its index: every entry (the section shows the
/// newest [`MAX_HISTORY_ENTRIES`]) and, when there are more, the link to the subject's history page.
pub fn page_history(
    view: &DocView,
    index: &BranchHistory,
    subject: &HistorySubject,
) -> PageHistory {
    let marks = index.marks(kind_of(subject.kind), &subject.name);
    PageHistory {
        all_href: (marks.len() > MAX_HISTORY_ENTRIES).then(|| history_href(view, subject, 1)),
        ..history_of(view, index, (marks, marks), &subject.path)
    }
}

/// `GET /doc/{doc}/history/{page}`: a subject's history on the default branch.
#[instrument(skip_all)]
pub async fn doc_history(
    State(library): State<Arc<Library>>,
    Viewer(reader): Viewer,
    parts: Parts,
    Path((key, page)): Path<(String, String)>,
) -> Page {
    history_page(&library, &reader, &parts, &key, None, &page).await
}

/// `GET /doc/{doc}/branches/{branch}/history/{page}`: a subject's history on another branch (the default branch's
/// named form is redirected to the documentation's own URL).
#[instrument(skip_all)]
pub async fn branch_history(
    State(library): State<Arc<Library>>,
    Viewer(reader): Viewer,
    parts: Parts,
    Path((key, branch, page)): Path<(String, String, String)>,
) -> Page {
    history_page(&library, &reader, &parts, &key, Some(&branch), &page).await
}

/// The page number a history URL asks for: `?page=N`, 1 when absent; `None` for anything but a number from 1.
fn page_number(parts: &Parts) -> Option<usize> {
    let Some(q) = parts.uri.query().filter(|q| !q.is_empty()) else {
        return Some(1);
    };
    if q.len() > MAX_QUERY {
        return None;
    }
    match url::form_urlencoded::parse(q.as_bytes()).find(|(k, _)| k == "page") {
        None => Some(1),
        Some((_, v)) => v.parse::<usize>().ok().filter(|n| *n >= 1),
    }
}

fn no_such_page() -> PageError {
    PageError::not_found(
        "Page not found",
        "This history has no such page: it lists the releases that changed an operation, a schema or a channel, \
         fifty a page.",
    )
}

/// The branch a history URL names (`None`: the default branch), or the answer already due: the default branch's
/// named form redirected to the documentation's own URL, an unknown branch's 404 page.
fn branch_of(
    parts: &Parts,
    doc: &PublicDoc,
    branch: Option<&str>,
    page: &str,
) -> Result<Option<Slug>, PageError> {
    let Some(b) = branch else { return Ok(None) };
    match branch_in_url(doc, b)? {
        BranchInUrl::Default => Err(PageError::answered(redirect(
            StatusCode::TEMPORARY_REDIRECT,
            &format!("{}/history/{page}", urls::doc_path(&doc.slug)),
            parts.uri.query(),
        ))),
        BranchInUrl::Named(slug) => Ok(Some(slug)),
    }
}

/// A subject's history page: its page of the site (an alias redirected to the canonical path), its entries from
/// the branch's index, the validator, the rendering on the CPU gate.
async fn history_page(
    library: &Library,
    reader: &Reader,
    parts: &Parts,
    key: &str,
    branch: Option<&str>,
    page: &str,
) -> Page {
    let doc = crate::changes::open_doc(library, reader, key, &parts.uri).await?;
    let branch = branch_of(parts, &doc, branch, page)?;
    let n = page_number(parts).ok_or_else(no_such_page)?;
    let view = library.open(doc, branch).await?;
    let (loaded, version) = library.load_head(&view).await?;
    let page_ref = match loaded.site.lookup(page) {
        Lookup::Page(p) => p,
        Lookup::Redirect(to) => {
            return Ok(redirect(
                StatusCode::PERMANENT_REDIRECT,
                &format!("{}/history/{to}", view.base),
                parts.uri.query(),
            ));
        }
        Lookup::NotFound => return Err(Missing::Page.into()),
    };
    let subject = loaded
        .site
        .history_subject(&loaded.doc, &page_ref)
        .ok_or_else(|| {
            PageError::not_found(
                "Page not found",
                "This page has no history: operations, webhooks, schemas and channels have one.",
            )
        })?;
    let index = library.branch_history(&view, &version).await?;
    let etag = Validator::of_view(&view)
        .add(version.id.to_string())
        .add("history\0")
        .add(&subject.path)
        .add(n.to_le_bytes())
        // An index left incomplete (releases still to digest) shows less than a later one: another validator.
        .add(if index.complete { "h\0" } else { "h-\0" })
        .etag();
    if let Some(r) = not_modified(&parts.headers, &etag) {
        return Ok(r);
    }
    let kind = kind_of(subject.kind);
    let MarksPage {
        marks,
        page: n,
        pages,
        total,
    } = index
        .marks_page(kind, &subject.name, n)
        .ok_or_else(no_such_page)?;
    let history = history_of(
        &view,
        &index,
        (marks, index.marks(kind, &subject.name)),
        &subject.path,
    );
    let newer = (n > 1).then(|| history_href(&view, &subject, n - 1));
    let older = (n < pages).then(|| history_href(&view, &subject, n + 1));
    let chrome = Chrome::of_view(&view, Some(&version));
    let html = CpuGate::shared()
        .run(move || {
            let h = HistoryPage {
                subject: &subject,
                history: &history,
                total,
                pager: Pager {
                    page: n as u64,
                    pages: pages as u64,
                    newer: newer.as_deref(),
                    older: older.as_deref(),
                },
            };
            chrome.with(|ctx| loaded.site.render_history_page(&page_ref, ctx, &h))
        })
        .await?;
    Ok(html_page(html, &etag))
}

#[cfg(test)]
mod tests {
    use super::*;
    use specpress_reader::history::HISTORY_PAGE_ENTRIES;

    fn parts(uri: &str) -> Parts {
        let (parts, ()) = axum::http::Request::builder()
            .uri(uri)
            .body(())
            .expect("request")
            .into_parts();
        parts
    }

    #[test]
    fn a_history_url_names_a_page_from_one_and_nothing_else() {
        assert_eq!(page_number(&parts("/doc/p/history/operation/x")), Some(1));
        assert_eq!(page_number(&parts("/doc/p/history/operation/x?")), Some(1));
        assert_eq!(
            page_number(&parts("/doc/p/history/operation/x?page=2")),
            Some(2)
        );
        assert_eq!(
            page_number(&parts("/doc/p/history/operation/x?utm=a&page=3")),
            Some(3)
        );
        for bad in ["page=0", "page=-1", "page=two", "page=", "page=1e3"] {
            assert_eq!(
                page_number(&parts(&format!("/doc/p/history/operation/x?{bad}"))),
                None,
                "{bad}"
            );
        }
        let long = format!("/doc/p/history/operation/x?page=2&q={}", "a".repeat(2000));
        assert_eq!(page_number(&parts(&long)), None);
        assert_eq!(HISTORY_PAGE_ENTRIES, 50);
    }
}

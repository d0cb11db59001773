//! The history section of reference pages (an operation, a webhook, a schema, a channel): the branch's history
//! index ([`specpress_reader::history::BranchHistory`], built once per head from the stored release digests) read
//! for the page's subject and handed to the renderer.

use specpress_reader::DocView;
use specpress_reader::history::{BranchHistory, ReleaseRef, SubjectKind};
use specpress_render::history::{
    HistoryEntry, HistoryKind, HistoryRelease, HistoryStatus, HistorySubject, PageHistory,
};

use crate::respond::rfc3339_seconds;

fn kind_of(k: HistoryKind) -> SubjectKind {
    match k {
        HistoryKind::Operation => SubjectKind::Operation,
        HistoryKind::Schema => SubjectKind::Schema,
        HistoryKind::Channel => SubjectKind::Channel,
    }
}

fn release(view: &DocView, r: &ReleaseRef, first: bool) -> HistoryRelease {
    let id = r.id.to_string();
    let published_at = rfc3339_seconds(r.created_at);
    HistoryRelease {
        api_version: r.api_version.clone(),
        short_id: id.chars().take(8).collect(),
        href: format!("/doc/{}/changes/{id}", view.doc.slug),
        published: specpress_render::human_time(&published_at),
        published_at,
        first,
    }
}

/// The history of `subject` on `view`'s branch, from its index.
pub fn page_history(
    view: &DocView,
    index: &BranchHistory,
    subject: &HistorySubject,
) -> PageHistory {
    let first_id = index.first().map(|r| r.id);
    let marks = index.marks(kind_of(subject.kind), &subject.name);
    let entries: Vec<HistoryEntry> = marks
        .iter()
        .filter_map(|m| {
            let r = index.releases.get(m.release as usize)?;
            Some(HistoryEntry {
                release: release(view, r, Some(r.id) == first_id),
                status: match m.status.as_str() {
                    "added" => HistoryStatus::Added,
                    "removed" => HistoryStatus::Removed,
                    _ => HistoryStatus::Changed,
                },
                breaking: m.breaking,
                breaks: m.breaks.clone(),
            })
        })
        .collect();
    // Present from the first release on: no release added it, and the walk went back to the first one.
    let since = index
        .first()
        .filter(|_| !entries.iter().any(|e| e.status == HistoryStatus::Added))
        .map(|r| release(view, r, true));
    PageHistory {
        entries,
        since,
        read: index.releases.len(),
        scanned_all: index.reached_first,
        cut: index.cut > 0,
        changelog_href: format!("{}/changes", view.base),
    }
}

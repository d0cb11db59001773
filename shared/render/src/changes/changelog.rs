//! A documentation's changelog page: its releases, newest first, each with its changes grouped (top-level items
//! only), and the pager.

use askama::Template;

use super::tree::{ItemHead, State, plain_state_of, short_id, state_html};
use super::{ENTRY_ITEMS, Group, Linker, ReleaseChanges};
use crate::html::Html;
use crate::{Layout, PageContext, layout, tpl};

/// One entry of a changelog.
#[derive(Debug, Clone, Copy)]
pub struct Release<'a> {
    /// The change page of this version (URL-safe).
    pub href: &'a str,
    /// The version id.
    pub id: &'a str,
    /// The API's own version (`info.version`, untrusted).
    pub api_version: &'a str,
    /// The definition's title (untrusted).
    pub title: &'a str,
    /// RFC 3339.
    pub published_at: &'a str,
    /// For a hub's combined changelog: the documentation's name (untrusted) and URL.
    pub doc: Option<(&'a str, &'a str)>,
    pub changes: ReleaseChanges<'a>,
}

#[derive(Template)]
#[template(path = "changes/releases.html", escape = "engine")]
struct Entries<'a> {
    h: u8,
    entries: Vec<Entry<'a>>,
}

struct Entry<'a> {
    /// The entry's position (its heading's id `r{n}`).
    n: usize,
    breaking: bool,
    href: &'a str,
    /// The API's version, unless it is blank (then the version id is shown).
    api_version: Option<&'a str>,
    short_id: &'a str,
    title: &'a str,
    published_at: &'a str,
    /// The publication time as a reader reads it.
    published: String,
    doc_name: Option<&'a str>,
    doc_href: Option<&'a str>,
    /// What the release says instead of changes, if it has no tree or an empty one.
    state: Option<Html>,
    groups: Vec<EntryGroup<'a>>,
}

struct EntryGroup<'a> {
    key: &'static str,
    title: &'static str,
    count: usize,
    /// The first [`ENTRY_ITEMS`] items.
    heads: Vec<ItemHead<'a>>,
    /// How many more the group has.
    more: usize,
}

/// Renders changelog entries: heading, date, markers, and each release's changes grouped (top-level items only).
/// The entries' headings are `<h{heading}>`.
pub(super) fn release_entries(releases: &[Release<'_>], heading: u8, link: Linker<'_>) -> Html {
    let entries = releases
        .iter()
        .enumerate()
        .map(|(n, r)| {
            let mut groups = Vec::new();
            let state = match r.changes {
                ReleaseChanges::Changes(c) => {
                    for g in Group::ALL {
                        let items: Vec<_> = c.items.iter().filter(|i| Group::of(i) == g).collect();
                        if items.is_empty() {
                            continue;
                        }
                        groups.push(EntryGroup {
                            key: g.key(),
                            title: g.title(),
                            count: items.len(),
                            heads: items
                                .iter()
                                .take(ENTRY_ITEMS)
                                .map(|i| {
                                    let mut head = ItemHead::new(i, Some(link));
                                    // Accepted breaking changes stay breaking, with the reason.
                                    let reasons = super::accepted_reasons(i);
                                    head.accepted = (i.breaking && !reasons.is_empty())
                                        .then(|| reasons.join("; "));
                                    head
                                })
                                .collect(),
                            more: items.len().saturating_sub(ENTRY_ITEMS),
                        });
                    }
                    c.is_empty().then_some(State::NoStructuralChange)
                }
                ref other => plain_state_of(other),
            };
            Entry {
                n,
                breaking: r.changes.breaking(),
                href: r.href,
                api_version: Some(r.api_version).filter(|v| !v.trim().is_empty()),
                short_id: short_id(r.id),
                title: r.title,
                published_at: r.published_at,
                published: crate::human_time(r.published_at),
                doc_name: r.doc.map(|(name, _)| name),
                doc_href: r.doc.map(|(_, href)| href),
                state: state.map(state_html),
                groups,
            }
        })
        .collect();
    let view = Entries {
        h: heading.clamp(2, 5),
        entries,
    };
    tpl::render(&view, 2048 * releases.len() + 64)
}

/// Previous and next pages of a changelog.
#[derive(Debug, Clone, Copy)]
pub struct Pager<'a> {
    /// 1-based.
    pub page: u64,
    pub pages: u64,
    /// Href of the newer page, if any (URL-safe).
    pub newer: Option<&'a str>,
    /// Href of the older page, if any (URL-safe).
    pub older: Option<&'a str>,
}

/// The changelog page of a documentation (on one branch).
#[derive(Debug, Clone, Copy)]
pub struct Changelog<'a> {
    /// The branch's name (untrusted), shown when the page is about a branch other than the default one.
    pub branch: Option<&'a str>,
    /// Total number of published versions on the branch.
    pub total: u64,
    pub releases: &'a [Release<'a>],
    pub pager: Pager<'a>,
    /// Atom and RSS feeds of this changelog (URL-safe).
    pub atom_href: &'a str,
    pub rss_href: &'a str,
    /// The compare page (URL-safe).
    pub compare_href: &'a str,
}

#[derive(Template)]
#[template(path = "changes/changelog.html", escape = "engine")]
struct ChangelogBody<'a> {
    doc_name: &'a str,
    branch: Option<&'a str>,
    total: u64,
    atom_href: &'a str,
    rss_href: &'a str,
    compare_href: &'a str,
    /// No release on this page.
    empty: bool,
    entries: Html,
    /// The pager, when there is a newer or an older page.
    pager: Option<Pager<'a>>,
    pages: u64,
}

/// Renders a changelog page.
pub fn changelog_page(ctx: &PageContext<'_>, page: &Changelog<'_>, link: Linker<'_>) -> String {
    let p = page.pager;
    let view = ChangelogBody {
        doc_name: ctx.doc_name,
        branch: page.branch,
        total: page.total,
        atom_href: page.atom_href,
        rss_href: page.rss_href,
        compare_href: page.compare_href,
        empty: page.releases.is_empty(),
        entries: release_entries(page.releases, 2, link),
        pager: (p.newer.is_some() || p.older.is_some()).then_some(p),
        pages: p.pages.max(1),
    };
    let body = tpl::render(&view, view.entries.as_str().len() + 1024);
    let title = match page.branch {
        Some(b) => format!("Changelog ({b})"),
        None => "Changelog".to_string(),
    };
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

#[cfg(test)]
mod tests {
    use super::super::{Changes, ReleaseChanges, no_links};
    use super::*;

    #[test]
    fn a_changelog_entry_gives_an_accepted_change_s_reason_escaped() {
        let details = r#"[
          {"id":"get-pets-id","name":"GET /pets/{id}","status":"removed","type":"endpoint","breaking":true,
           "previous":{"path":"/pets/{id}","verb":"GET"},
           "changes":[{"message":"the operation was removed","level":"breaking",
                       "accepted":{"reason":"agreed <i>in</i> March & more","expires_at":null},
                       "migration":"**Alternatives:** none."}],
           "children":[]}
        ]"#;
        let reason = "(accepted: agreed &lt;i&gt;in&lt;/i&gt; March &amp; more)";
        let c = Changes::parse(details).expect("details");
        let release = super::super::Release {
            href: "/doc/x/changes/1",
            id: "1",
            api_version: "2",
            title: "T",
            published_at: "2026-01-01T00:00:00Z",
            doc: None,
            changes: ReleaseChanges::Changes(&c),
        };
        let entry = release_entries(&[release], 2, &no_links);
        assert!(
            entry.as_str().contains(&format!(
                "<code>GET /pets/{{id}}</code> <span class=\"acc\">{reason}</span>"
            )),
            "the changelog entry gives the reason: {}",
            entry.as_str()
        );
        assert_eq!(
            entry.as_str().matches("class=\"acc\"").count(),
            1,
            "{}",
            entry.as_str()
        );
    }
}

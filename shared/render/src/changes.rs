//! The portal's change pages: a documentation's changelog, one release's changes, a comparison of two versions, a
//! public diff, and a hub's combined changelog. They all show a diff as the diff engine's `DiffItem[]` tree (the JSON
//! that `GET /versions/{id}` returns as `diff_details` and the diffs API as `details`), read back here with a lenient
//! shape: the pages render what the engine produced and what was stored, whatever its age.
//!
//! Every name in a diff comes from a document: the pages are askama templates of `templates/changes/`, which escape
//! every value (see `tpl`).
//! Links into the reference pages come from the caller ([`Linker`]), which knows the documentation's URLs; this
//! module knows nothing of HTTP.
//!
//! Bounds: a change page shows at most [`MAX_NODES`] items of the tree, [`MAX_DEPTH`] levels deep, and says where
//! the rest is (the `.json` variant); a changelog entry lists at most [`ENTRY_ITEMS`] top-level items per group.
//!
//! Layout: this module reads the diff (`Changes`, `ReleaseChanges`); `tree` writes a diff's items; `migrate` the
//! migration notes of its breaking changes ("How to migrate"); `changelog`, `release`, `compare`, `diff` and `hub`
//! are the pages.

mod changelog;
mod compare;
mod diff;
mod hub;
mod migrate;
mod release;
mod tree;

use serde::Deserialize;
use serde_json::Value;

pub use changelog::{Changelog, Pager, Release, changelog_page};
pub use compare::{ComparePage, VersionOption, compare_page};
pub use diff::{DiffPage, diff_page};
pub use hub::{HubApi, HubPage, hub_page};
pub use migrate::{MAX_NOTES, MAX_NOTES_BYTES};
pub use release::{ChangePage, VersionRef, change_page};

/// Items of a diff tree shown on one page (every level together).
pub const MAX_NODES: usize = 2_000;
/// Levels of a diff tree shown below a top-level item.
pub const MAX_DEPTH: usize = 10;
/// Top-level items listed per group in a changelog entry (the change page has them all).
pub const ENTRY_ITEMS: usize = 8;
/// Messages shown per item.
const MAX_MESSAGES: usize = 8;

#[derive(Debug, Clone, Deserialize)]
struct Item {
    #[serde(default)]
    id: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    status: String,
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    breaking: bool,
    #[serde(default)]
    previous: Option<Value>,
    #[serde(default)]
    current: Option<Value>,
    #[serde(default)]
    children: Vec<Item>,
    #[serde(default)]
    changes: Vec<Message>,
    #[serde(rename = "ref", default)]
    reference: Option<String>,
    #[serde(default)]
    affected: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct Message {
    #[serde(default)]
    message: String,
    #[serde(default)]
    level: String,
    /// The migration note of a breaking change (Markdown), when the engine wrote one.
    #[serde(default)]
    migration: Option<String>,
    /// The documentation's producer accepted this change (it no longer fails CI; readers still see its level).
    #[serde(default)]
    accepted: Option<Acceptance>,
}

/// An accepted change's `accepted` member: why (the producer's words), and until when.
#[derive(Debug, Clone, Deserialize)]
struct Acceptance {
    #[serde(default)]
    reason: String,
}

impl Message {
    /// The reason the change was accepted, when it was.
    fn accepted_reason(&self) -> Option<&str> {
        self.accepted.as_ref().map(|a| a.reason.as_str())
    }
}

/// A diff as the pages show it: the top-level items of a `DiffItem[]` tree.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    items: Vec<Item>,
}

/// How many top-level changes of each group a diff has. An item is counted once: in `breaking` when it is
/// breaking, else under its status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub breaking: usize,
    pub added: usize,
    pub modified: usize,
    pub removed: usize,
}

impl Counts {
    /// The number of top-level changes.
    pub fn total(&self) -> usize {
        self.breaking + self.added + self.modified + self.removed
    }
}

/// The groups a change page shows, in order: breaking changes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Breaking,
    Added,
    Modified,
    Removed,
}

impl Group {
    const ALL: [Group; 4] = [
        Group::Breaking,
        Group::Added,
        Group::Modified,
        Group::Removed,
    ];

    fn of(item: &Item) -> Group {
        if item.breaking {
            return Group::Breaking;
        }
        match item.status.as_str() {
            "added" => Group::Added,
            "removed" => Group::Removed,
            _ => Group::Modified,
        }
    }

    fn title(self) -> &'static str {
        match self {
            Group::Breaking => "Breaking changes",
            Group::Added => "Added",
            Group::Modified => "Modified",
            Group::Removed => "Removed",
        }
    }

    fn key(self) -> &'static str {
        match self {
            Group::Breaking => "breaking",
            Group::Added => "added",
            Group::Modified => "modified",
            Group::Removed => "removed",
        }
    }
}

impl Changes {
    /// Reads a `DiffItem[]` JSON text (`null` reads as no change). An error when it is not an array of objects.
    pub fn parse(details: &str) -> Result<Changes, String> {
        let items: Option<Vec<Item>> =
            serde_json::from_str(details).map_err(|e| format!("diff details: {e}"))?;
        Ok(Changes {
            items: items.unwrap_or_default(),
        })
    }

    /// Reads a `DiffItem[]` JSON value.
    pub fn from_value(details: Value) -> Result<Changes, String> {
        let items: Option<Vec<Item>> =
            serde_json::from_value(details).map_err(|e| format!("diff details: {e}"))?;
        Ok(Changes {
            items: items.unwrap_or_default(),
        })
    }

    /// No structural change (a content-only change has no items).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Any breaking top-level change.
    pub fn breaking(&self) -> bool {
        self.items.iter().any(|i| i.breaking)
    }

    /// Top-level changes per group.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for i in &self.items {
            match Group::of(i) {
                Group::Breaking => c.breaking += 1,
                Group::Added => c.added += 1,
                Group::Modified => c.modified += 1,
                Group::Removed => c.removed += 1,
            }
        }
        c
    }

    /// One line per top-level change, breaking ones first (`Breaking: removed GET /pets/{id}`), at most `max`, then
    /// `… and N more`: the text of a feed entry.
    pub fn headlines(&self, max: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut shown = 0;
        for g in Group::ALL {
            for i in self.items.iter().filter(|i| Group::of(i) == g) {
                if shown == max {
                    continue;
                }
                shown += 1;
                out.push(match g {
                    Group::Breaking => match accepted_reasons(i).as_slice() {
                        [] => format!("Breaking: {} {}", status_word(&i.status), i.name),
                        reasons => format!(
                            "Breaking: {} {} (accepted: {})",
                            status_word(&i.status),
                            i.name,
                            reasons.join("; ")
                        ),
                    },
                    _ => format!("{}: {}", g.title(), i.name),
                });
            }
        }
        if self.items.len() > shown {
            out.push(format!("… and {} more", self.items.len() - shown));
        }
        out
    }
}

/// The reasons (each once, at most three) of the accepted breaking changes in an item and below it.
fn accepted_reasons(item: &Item) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let mut stack = vec![item];
    while let Some(i) = stack.pop() {
        for m in &i.changes {
            if let Some(r) = m.accepted_reason().filter(|_| m.level == "breaking")
                && out.len() < 3
                && !out.contains(&r)
            {
                out.push(r);
            }
        }
        stack.extend(i.children.iter().rev());
    }
    out
}

fn status_word(status: &str) -> &'static str {
    match status {
        "added" => "added",
        "removed" => "removed",
        _ => "modified",
    }
}

/// Turns an operation named by a diff into the href of its reference page, when the documentation has one. Given
/// the item's type (`endpoint`, `webhook`, ...), HTTP method (upper case) and path template as the document writes
/// them.
pub type Linker<'a> = &'a dyn Fn(&str, &str, &str) -> Option<String>;

/// A linker that links nothing (a public diff has no reference pages).
pub fn no_links(_: &str, _: &str, _: &str) -> Option<String> {
    None
}

/// What a page knows about one release's changes.
#[derive(Debug, Clone, Copy)]
pub enum ReleaseChanges<'a> {
    /// The first version of its branch: nothing to compare with.
    First,
    /// The version it followed is gone (an expired temporary baseline) or could not be compared.
    Unavailable,
    /// Nothing changed at all.
    Unchanged,
    /// Only descriptions, examples, summaries or other texts changed (these changes, for the pages that show them).
    ContentOnly(&'a Changes),
    /// Structural changes.
    Changes(&'a Changes),
}

impl ReleaseChanges<'_> {
    /// Any breaking change.
    pub fn breaking(&self) -> bool {
        matches!(self, ReleaseChanges::Changes(c) if c.breaking())
    }

    /// A plain-text summary (feed entries): what kind of release it is and its changes, one per line.
    pub fn summary_text(&self, max_lines: usize) -> String {
        match self {
            ReleaseChanges::First => "First published version.".into(),
            ReleaseChanges::Unavailable => {
                "The changes of this version cannot be shown (the version it followed is no longer available)."
                    .into()
            }
            ReleaseChanges::Unchanged => "No change to the definition.".into(),
            ReleaseChanges::ContentOnly(_) => {
                "Content-only release: descriptions, examples or other texts changed; the API's structure did not."
                    .into()
            }
            ReleaseChanges::Changes(c) => c.headlines(max_lines).join("\n"),
        }
    }
}

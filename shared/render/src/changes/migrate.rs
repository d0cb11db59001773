//! "How to migrate": the migration notes of a diff's breaking changes (the diff engine writes one per breaking
//! change, `changes[].migration`, Markdown), after the tree of a change, compare or diff page, each linked from its
//! change in the tree; and the same notes in a page's Markdown form.
//!
//! A note is rendered by the site's Markdown renderer and sanitizer like every text of a document (the engine
//! already writes every document string in it as code). Bounds: at most [`MAX_NOTES`] notes and
//! [`MAX_NOTES_BYTES`] of them per page; the page says how many more the JSON variant has.

use std::fmt::Write;

use askama::Template;

use super::{Changes, Item, Message};
use crate::html::Html;
use crate::markdown;
use crate::text::escape_markdown;
use crate::tpl;

/// Notes shown on one page.
pub const MAX_NOTES: usize = 100;
/// Bytes of notes (their Markdown) shown on one page.
pub const MAX_NOTES_BYTES: usize = 512 * 1024;
/// Bytes of one note rendered (the engine caps them at 16 KiB).
const MAX_NOTE_BYTES: usize = 32 * 1024;

/// One note as the page shows it.
pub(super) struct NoteView<'a> {
    /// Its anchor, `m{index}`.
    pub(super) index: usize,
    /// The top-level item's name, and the kind and name of the item under it the change is at.
    pub(super) top: &'a str,
    pub(super) child: Option<(&'a str, &'a str)>,
    /// The change's message.
    pub(super) message: &'a str,
    /// Why the change was accepted, when it was.
    pub(super) accepted: Option<&'a str>,
    pub(super) html: Html,
}

/// The notes met while a tree is written, in the order of the page.
#[derive(Default)]
pub(super) struct Notes<'a> {
    list: Vec<NoteView<'a>>,
    bytes: usize,
    /// Notes not shown (page budgets).
    left: usize,
}

impl<'a> Notes<'a> {
    /// Takes the note of a breaking change shown on the page; its anchor index, when it is shown.
    pub(super) fn add(
        &mut self,
        top: &'a str,
        child: Option<(&'a str, &'a str)>,
        m: &'a Message,
    ) -> Option<usize> {
        let note = note_of(m)?;
        if self.list.len() >= MAX_NOTES || self.bytes + note.len() > MAX_NOTES_BYTES {
            self.left += 1;
            return None;
        }
        self.bytes += note.len();
        let index = self.list.len();
        self.list.push(NoteView {
            index,
            top,
            child,
            message: &m.message,
            accepted: m.accepted_reason(),
            html: markdown::render(note, 4, MAX_NOTE_BYTES),
        });
        Some(index)
    }

    /// Counts the note of a message the page does not show.
    pub(super) fn skip_message(&mut self, m: &Message) {
        if note_of(m).is_some() {
            self.left += 1;
        }
    }

    /// Counts the notes of changes the page does not show (cut from the tree).
    pub(super) fn skip(&mut self, items: &[Item]) {
        let mut stack: Vec<&[Item]> = vec![items];
        while let Some(level) = stack.pop() {
            for i in level {
                self.left += i.changes.iter().filter(|m| note_of(m).is_some()).count();
                if !i.children.is_empty() {
                    stack.push(&i.children);
                }
            }
        }
    }

    /// The "How to migrate" section (empty when there is no note), its heading at level `h`.
    pub(super) fn section(self, h: u8) -> Html {
        if self.list.is_empty() && self.left == 0 {
            return Html::default();
        }
        let view = MigrateView {
            h,
            h2: h + 1,
            notes: self.list,
            left: self.left,
        };
        tpl::render(
            &view,
            view.notes
                .iter()
                .map(|n| n.html.as_str().len() + 256)
                .sum::<usize>()
                + 512,
        )
    }
}

/// The note of a breaking change, if it has one that says something.
fn note_of(m: &Message) -> Option<&str> {
    (m.level == "breaking")
        .then_some(m.migration.as_deref())
        .flatten()
        .filter(|n| !n.trim().is_empty())
}

#[derive(Template)]
#[template(path = "changes/migrate.html", escape = "engine")]
struct MigrateView<'a> {
    h: u8,
    h2: u8,
    notes: Vec<NoteView<'a>>,
    left: usize,
}

impl Changes {
    /// The migration notes of the breaking changes as Markdown (a change page's `.md` form): a `## How to migrate`
    /// section, one `###` heading per change (its item, escaped) followed by its message and its note; empty when no
    /// change has a note. At most [`MAX_NOTES`] notes and [`MAX_NOTES_BYTES`], then a line saying how many more.
    pub fn migration_markdown(&self) -> String {
        let mut out = String::new();
        let mut shown = 0usize;
        let mut left = 0usize;
        let mut stack: Vec<(&str, &Item, bool)> = self
            .items
            .iter()
            .rev()
            .map(|i| (i.name.as_str(), i, true))
            .collect();
        while let Some((top, item, is_top)) = stack.pop() {
            for m in &item.changes {
                let Some(note) = note_of(m) else { continue };
                if shown >= MAX_NOTES || out.len() + note.len() > MAX_NOTES_BYTES {
                    left += 1;
                    continue;
                }
                if out.is_empty() {
                    out.push_str("## How to migrate\n\n");
                }
                let _ = write!(out, "### {}", escape_markdown(top));
                if !is_top {
                    let _ = write!(
                        out,
                        " › {} {}",
                        escape_markdown(&item.kind),
                        escape_markdown(&item.name)
                    );
                }
                let _ = write!(out, "\n\n{}\n\n", escape_markdown(&m.message));
                if let Some(reason) = m.accepted_reason() {
                    let _ = write!(out, "Accepted: {}\n\n", escape_markdown(reason));
                }
                let _ = write!(out, "{}\n\n", note.trim_end());
                shown += 1;
            }
            for child in item.children.iter().rev() {
                stack.push((top, child, false));
            }
        }
        if left > 0 {
            let _ = writeln!(
                out,
                "{left} more notes are not shown here (size limit): the JSON variant of this page has them all.\n"
            );
        }
        out
    }
}

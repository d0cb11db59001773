//! Where each change is written: the file, line and column of its location in the current
//! document (and of its previous location in the previous one). The spec engine finds them
//! ([`specpress_apispec::Document::positions`]): one scan of each file that holds a change, per
//! side, only as far as its last change, and none at all when nothing changed.

use specpress_apispec::{Document, Location};

use crate::change::{Change, Place};

/// The places of `locations` in `document`.
fn places(document: &Document, locations: &[&Location]) -> Vec<Option<Place>> {
    document
        .positions(locations)
        .into_iter()
        .map(|found| {
            found.map(|(file, p)| Place {
                file: document.file_name(file).map(str::to_string),
                line: p.line,
                column: p.column,
            })
        })
        .collect()
}

/// Gives every change its places.
pub(crate) fn assign(changes: &mut [Change], previous: &Document, current: &Document) {
    let (mut before, mut before_of) = (Vec::new(), Vec::new());
    let (mut after, mut after_of) = (Vec::new(), Vec::new());
    for (i, c) in changes.iter().enumerate() {
        if let Some(at) = &c.previous_at {
            before.push(at);
            before_of.push(i);
        }
        if let Some(at) = &c.current_at {
            after.push(at);
            after_of.push(i);
        }
    }
    if before.is_empty() && after.is_empty() {
        return;
    }
    let found_before = places(previous, &before);
    let found_after = places(current, &after);
    for (i, place) in before_of.into_iter().zip(found_before) {
        changes[i].previous_place = place;
    }
    for (i, place) in after_of.into_iter().zip(found_after) {
        changes[i].place = place;
    }
}

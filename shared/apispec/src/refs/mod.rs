//! `$ref`s: where one may point, and following them.
//!
//! `location.rs` normalizes the locations of the `references` table and splits and resolves
//! `$ref` strings (no filesystem, no network: a location is a key into the table);
//! `check.rs` checks every `$ref` of a document when it is read; `resolve.rs` follows them on
//! demand ([`Document::resolve`](crate::Document::resolve),
//! [`Document::ref_target`](crate::Document::ref_target)).

use crate::tree::V;

mod check;
mod location;
mod resolve;

pub(crate) use location::{normalize_location, resolve_against, shorten, split_ref};

/// The `$ref` string of a reference object, if `v` is one.
#[inline]
pub(crate) fn ref_of(v: V<'_>) -> Option<&str> {
    v.get("$ref")?.as_str()
}

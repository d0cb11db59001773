//! What building the page index and building the navigation groups share: the pages and routes
//! added so far ([`Builder`]) and a new page ([`page`]). `build` and `groups` both use it; neither
//! imports the other's helpers.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use super::{Page, Route, Target};
use crate::PageKind;

/// The first 8 hex digits of the SHA-256 of `s`: what tells apart pages that would share a path.
pub(super) fn hash8(s: &str) -> String {
    hex::encode(&Sha256::digest(s.as_bytes())[..4])
}

/// The pages and routes added so far.
pub(super) struct Builder {
    pub(super) pages: Vec<Page>,
    pub(super) routes: HashMap<String, Route>,
}

impl Builder {
    pub(super) fn new() -> Builder {
        Builder {
            pages: Vec::new(),
            routes: HashMap::new(),
        }
    }

    /// Adds a page at `path`, or at `path-{hash of key}` when another page has it (the first
    /// one, in the model's sorted order, keeps the plain path).
    pub(super) fn add(&mut self, path: String, key: &str, page: Page) -> u32 {
        let id = self.pages.len() as u32;
        let mut p = path;
        if self.routes.contains_key(&p) {
            p = format!("{p}-{}", hash8(key));
            let mut n = 2;
            while self.routes.contains_key(&p) {
                p = format!("{p}-{n}");
                n += 1;
            }
        }
        self.routes.insert(p.clone(), Route::Page(id));
        self.pages.push(Page { path: p, ..page });
        id
    }

    /// Adds `path` as an alias of page `to`, unless the path is taken.
    pub(super) fn alias(&mut self, path: String, to: u32) {
        if !path.is_empty() && path.len() <= 2048 {
            self.routes.entry(path).or_insert(Route::Alias(to));
        }
    }
}

/// A page of `kind` showing `target`, its path set by [`Builder::add`].
pub(super) fn page(kind: PageKind, target: Target, title: String) -> Page {
    Page {
        path: String::new(),
        title,
        kind,
        target,
        badge: None,
        deprecated: false,
    }
}

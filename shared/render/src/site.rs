//! The page index of one document: every page's path, title and target, the navigation groups,
//! aliases, and where each named schema is used. Built once per version ([`Site::build`], in
//! `build`; the navigation groups in `groups`; what both add pages with, in `builder`); holds no borrow of the document (indices into
//! its model and locations only).

mod build;
mod builder;
mod groups;

use std::collections::HashMap;

use specpress_apispec::{Document, Location};

use crate::{Lookup, PageInfo, PageKind, PageRef};

/// What a page shows.
#[derive(Clone, Debug)]
pub(crate) enum Target {
    Home,
    /// Index into the root's `x-topics` array.
    Topic(u32),
    /// Index into [`Site::groups`].
    Group(u32),
    /// Index into `model.operations` (path operations and webhooks).
    Operation(u32),
    /// A callback of an operation: operation index, callback index in its map.
    Callback(u32, u32),
    SchemasIndex,
    /// Index into `model.schemas`.
    Schema(u32),
    /// Index into `model.channels`.
    Channel(u32),
    /// Index into `model.message_operations`.
    MessageOperation(u32),
    /// Index into `model.messages` (AsyncAPI `components/messages`): a message no channel
    /// uses, which no other page shows.
    Message(u32),
}

pub(crate) struct Page {
    pub path: String,
    pub title: String,
    pub kind: PageKind,
    pub target: Target,
    /// Method (`get`, ...) or AsyncAPI action (`send`, `receive`) shown as a badge in the
    /// navigation.
    pub badge: Option<&'static str>,
    pub deprecated: bool,
}

/// A navigation group: a tag (nested by OpenAPI 3.2 `parent`), the operations without a tag, a
/// path prefix (documents without tags), the webhooks, or an AsyncAPI channel.
pub(crate) struct Group {
    pub title: String,
    pub page: Option<u32>,
    pub items: Vec<u32>,
    pub children: Vec<u32>,
    /// Index into the root's `tags` array, for tags declared there.
    pub tag: Option<u32>,
    pub parent: Option<u32>,
}

enum Route {
    Page(u32),
    Alias(u32),
}

/// The page index and navigation of one document. `Send + Sync`, no borrow of the document.
pub struct Site {
    pub(crate) pages: Vec<Page>,
    order: Vec<u32>,
    routes: HashMap<String, Route>,
    pub(crate) groups: Vec<Group>,
    pub(crate) root_groups: Vec<u32>,
    pub(crate) topics: Vec<u32>,
    schema_loc: HashMap<Location, u32>,
    pub(crate) schema_pages: Vec<u32>,
    schema_names: Vec<String>,
    pub(crate) used_by: Vec<Vec<u32>>,
    pub(crate) op_pages: Vec<u32>,
    pub(crate) callback_pages: Vec<Vec<u32>>,
    pub(crate) channel_pages: Vec<u32>,
    pub(crate) message_pages: Vec<u32>,
    /// The pages of the component messages no channel uses (index: `model.messages`).
    pub(crate) lone_message_pages: Vec<Option<u32>>,
    pub(crate) schemas_index: Option<u32>,
}

/// Page paths are made of `[a-z0-9-]` segments (schema names keep `A-Z`, `.` and `_`): URL-safe
/// as they are.
pub(crate) fn slug(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(80));
    let mut dash = false;
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c.to_ascii_lowercase());
            if out.len() >= 80 {
                break;
            }
        } else {
            dash = true;
        }
    }
    out
}

pub(crate) fn method_badge(method: &str) -> &'static str {
    match method {
        "GET" => "get",
        "POST" => "post",
        "PUT" => "put",
        "PATCH" => "patch",
        "DELETE" => "delete",
        "HEAD" => "head",
        "OPTIONS" => "options",
        "TRACE" => "trace",
        "QUERY" => "query",
        _ => "other",
    }
}

pub(crate) fn operation_title(
    summary: Option<&str>,
    method: &str,
    path: &str,
    operation_id: Option<&str>,
) -> String {
    match summary.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => s.chars().take(200).collect(),
        None => match operation_id {
            Some(id) if !id.is_empty() => id.chars().take(200).collect(),
            _ => format!("{method} {}", path.chars().take(200).collect::<String>()),
        },
    }
}

impl Site {
    /// Finds the page at `path` (relative to the documentation root, no leading slash,
    /// percent-decoded): the page, a redirect to the canonical path for an alias or a trailing
    /// slash, or nothing.
    pub fn lookup(&self, path: &str) -> Lookup {
        let canonical = |id: u32| Lookup::Redirect(self.pages[id as usize].path.clone());
        match self.routes.get(path) {
            Some(Route::Page(id)) => Lookup::Page(PageRef(*id)),
            Some(Route::Alias(id)) => canonical(*id),
            None => match path.strip_suffix('/') {
                Some(p) if !p.is_empty() => match self.routes.get(p) {
                    Some(Route::Page(id) | Route::Alias(id)) => canonical(*id),
                    None => Lookup::NotFound,
                },
                _ => Lookup::NotFound,
            },
        }
    }

    /// Every page, in navigation order.
    pub fn pages(&self) -> impl Iterator<Item = PageInfo<'_>> {
        self.order.iter().map(|&id| self.info(PageRef(id)))
    }

    /// Number of pages.
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// Path, title and kind of one page.
    pub fn info(&self, page: PageRef) -> PageInfo<'_> {
        let p = &self.pages[(page.0 as usize).min(self.pages.len() - 1)];
        PageInfo {
            page,
            path: &p.path,
            title: &p.title,
            kind: p.kind,
        }
    }

    /// The page of a path operation or webhook, by method (upper case) and path template as
    /// written (or webhook name).
    pub fn operation_page(&self, doc: &Document, method: &str, path: &str) -> Option<PageRef> {
        doc.model()
            .operations
            .values()
            .position(|op| op.key.method == method && op.path == path)
            .and_then(|i| self.op_pages.get(i))
            .map(|&id| PageRef(id))
    }

    /// The named schema at `loc` (an index into the model's schemas), if any.
    #[inline]
    pub(crate) fn schema_index(&self, loc: &Location) -> Option<u32> {
        self.schema_loc.get(loc).copied()
    }

    /// Path and name of a named schema's page.
    pub(crate) fn schema_page(&self, i: u32) -> (&str, &str) {
        let page = self.schema_pages[i as usize];
        (
            &self.pages[page as usize].path,
            &self.schema_names[i as usize],
        )
    }

    pub(crate) fn schema_count(&self) -> usize {
        self.schema_names.len()
    }
}

/// Follows a `$ref` at `loc` when the value there is one (the samples engine's).
pub(crate) use specpress_samples::resolve_value;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_lower_case_words_joined_by_dashes() {
        assert_eq!(
            slug("/repos/{owner}/{repo}/git/refs"),
            "repos-owner-repo-git-refs"
        );
        assert_eq!(slug("  Hello, World!  "), "hello-world");
        assert_eq!(slug("/"), "");
        assert_eq!(slug("élan"), "lan");
    }
}

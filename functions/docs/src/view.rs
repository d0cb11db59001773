//! What every page about one documentation shares: which documentation and branch a URL names, its published
//! branches (the switcher), the head shown, and the page chrome built from them ([`Chrome`]). Reference pages, and
//! the portal's pages (changelog, search, ...) build on it, so they all answer the same way for an unknown
//! documentation or branch and show the same header.

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use specpress_domain::DomainError;
use specpress_domain::model::{Branch, Documentation, Slug, Version, VersionId};
use specpress_domain::usecases::public::PublicDoc;
use specpress_render::{Alternate, AssetUrls, BranchLink, NavLink, PageContext, VersionInfo};
use time::format_description::well_known::Rfc3339;

use crate::DocsState;
use crate::cache::Loaded;
use crate::headers::error_page;

/// An answer that is either the page or an error already shaped for its reader (an HTML page).
pub type Answer = Result<Response, Response>;

/// A 404 page.
pub fn not_found(st: &DocsState, title: &str, message: &str) -> Response {
    error_page(&st.assets, StatusCode::NOT_FOUND, title, message)
}

/// A failure while answering a page: a 404 as a page, anything else as the generic 500 page (details logged).
pub fn page_error(st: &DocsState, e: DomainError) -> Response {
    match e {
        DomainError::NotFound(m) => not_found(st, "Not found", &m),
        other => {
            tracing::error!(error = %other, "public page failed");
            error_page(
                &st.assets,
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "This page could not be shown. Try again in a moment.",
            )
        }
    }
}

/// A documentation on one branch, as a reader opened it.
#[derive(Debug, Clone)]
pub struct DocView {
    /// The documentation.
    pub doc: Documentation,
    /// Its branches that have a published version, the default one first, then by slug.
    pub branches: Vec<Branch>,
    /// The branch shown.
    pub branch: Branch,
    /// `true` when the URL named the branch (`/doc/{doc}/branches/{branch}`), `false` for the default branch.
    pub named: bool,
    /// The URL path of this documentation root on this branch: `/doc/pets` or `/doc/pets/branches/next`.
    pub base: String,
    /// The branch's published head ([`DocView::open`] opens published branches only).
    head: VersionId,
    /// The documentation is private (on its own or through its hub): its pages are marked `noindex`.
    pub private: bool,
}

impl DocView {
    /// Opens `doc` on `branch` (`None`: its default branch). A 404 page when the branch has nothing published.
    pub async fn open(
        st: &DocsState,
        doc: PublicDoc,
        branch: Option<Slug>,
    ) -> Result<DocView, Response> {
        let PublicDoc { doc, private, .. } = doc;
        let mut branches = st
            .app
            .store
            .list_branches(doc.id)
            .await
            .map_err(|e| page_error(st, e))?;
        branches.retain(|b| b.head.is_some());
        branches.sort_by(|a, b| {
            let not_default = |x: &Branch| x.name.slug() != &doc.default_branch;
            not_default(a)
                .cmp(&not_default(b))
                .then_with(|| a.name.slug().as_str().cmp(b.name.slug().as_str()))
        });
        let wanted = branch.as_ref().unwrap_or(&doc.default_branch);
        let found = branches
            .iter()
            .find(|b| b.name.slug() == wanted)
            .and_then(|b| Some((b.clone(), b.head.as_ref()?.version_id)));
        let Some((current, head)) = found else {
            return Err(if branch.is_some() {
                not_found(
                    st,
                    "Branch not found",
                    "This documentation has no published version on this branch.",
                )
            } else {
                not_found(
                    st,
                    "Nothing published yet",
                    "This documentation has no published version yet.",
                )
            });
        };
        let base = match &branch {
            Some(b) => format!("/doc/{}/branches/{b}", doc.slug),
            None => format!("/doc/{}", doc.slug),
        };
        Ok(DocView {
            doc,
            branches,
            branch: current,
            named: branch.is_some(),
            base,
            head,
            private,
        })
    }

    /// The head version id of the branch shown.
    pub fn head(&self) -> VersionId {
        self.head
    }

    /// The head version, parsed (from the cache when it is there); a failure as its error page.
    pub async fn load_head(&self, st: &DocsState) -> Result<(Arc<Loaded>, Version), Response> {
        crate::pages::loaded_version(st, self.head)
            .await
            .map_err(|e| page_error(st, e))
    }

    /// The URL path of a branch's documentation root (the default branch's is the documentation's own).
    pub fn branch_href(&self, slug: &Slug) -> String {
        if slug == &self.doc.default_branch {
            format!("/doc/{}", self.doc.slug)
        } else {
            format!("/doc/{}/branches/{slug}", self.doc.slug)
        }
    }

    /// Feeds a validator with everything the chrome shows about the documentation (name, branches, base).
    pub fn hash_into(&self, h: &mut Sha256) {
        h.update(build_id());
        h.update(&self.base);
        h.update(&self.doc.name);
        for b in &self.branches {
            h.update(b.name.name());
            h.update([0]);
            h.update(b.name.slug().as_str());
            h.update([u8::from(b.name.slug() == &self.doc.default_branch)]);
        }
    }

    /// The page chrome of this view (owned, so that a page can be rendered off the async workers).
    pub fn chrome(&self, st: &DocsState, version: Option<&Version>) -> Chrome {
        Chrome {
            base: self.base.clone(),
            doc_name: self.doc.name.clone(),
            branches: self
                .branches
                .iter()
                .map(|b| OwnedBranchLink {
                    name: b.name.name().to_owned(),
                    href: self.branch_href(b.name.slug()),
                    current: b.name.slug() == self.branch.name.slug(),
                    default: b.name.slug() == &self.doc.default_branch,
                })
                .collect(),
            version: version.map(|v| OwnedVersion {
                id: v.id.to_string(),
                published_at: rfc3339_seconds(v.created_at),
                api_version: v.analysis.api_version.clone(),
            }),
            assets: st.assets.clone(),
            links: vec![
                ("Reference".to_owned(), self.base.clone(), false),
                (
                    "Changelog".to_owned(),
                    format!("{}/changes", self.base),
                    false,
                ),
            ],
            search_action: Some(format!("{}/search", self.base)),
            alternates: vec![
                (
                    format!("{}/changes.atom", self.base),
                    "application/atom+xml".to_owned(),
                    format!("{} changelog (Atom)", self.doc.name),
                ),
                (
                    format!("{}/changes.rss", self.base),
                    "application/rss+xml".to_owned(),
                    format!("{} changelog (RSS)", self.doc.name),
                ),
            ],
            noindex: self.private,
            signed_in: crate::access::signed_in(),
        }
    }
}

/// A time as RFC 3339, to the second.
pub fn rfc3339_seconds(t: time::OffsetDateTime) -> String {
    t.replace_nanosecond(0)
        .unwrap_or(t)
        .format(&Rfc3339)
        .unwrap_or_default()
}

/// One branch of the switcher, owned.
#[derive(Debug, Clone)]
pub struct OwnedBranchLink {
    pub name: String,
    pub href: String,
    pub current: bool,
    pub default: bool,
}

/// The version a page shows, owned.
#[derive(Debug, Clone)]
pub struct OwnedVersion {
    pub id: String,
    pub published_at: String,
    pub api_version: String,
}

/// Everything a [`PageContext`] borrows, owned: built on the async side, lent to a render on the CPU gate.
#[derive(Debug, Clone)]
pub struct Chrome {
    pub base: String,
    pub doc_name: String,
    pub branches: Vec<OwnedBranchLink>,
    pub version: Option<OwnedVersion>,
    pub assets: Arc<AssetUrls>,
    /// Header links: (label, href, current).
    pub links: Vec<(String, String, bool)>,
    pub search_action: Option<String>,
    /// `<link rel="alternate">`: (href, media type, title).
    pub alternates: Vec<(String, String, String)>,
    pub noindex: bool,
    /// The page is answered to a signed-in reader (see [`crate::access::signed_in`]).
    pub signed_in: bool,
}

impl Chrome {
    /// Calls `f` with the [`PageContext`] these parts make.
    pub fn with<R>(&self, f: impl FnOnce(&PageContext<'_>) -> R) -> R {
        let branches: Vec<BranchLink<'_>> = self
            .branches
            .iter()
            .map(|b| BranchLink {
                name: &b.name,
                href: &b.href,
                current: b.current,
                default: b.default,
            })
            .collect();
        let links: Vec<NavLink<'_>> = self
            .links
            .iter()
            .map(|(label, href, current)| NavLink {
                label,
                href,
                current: *current,
            })
            .collect();
        let alternates: Vec<Alternate<'_>> = self
            .alternates
            .iter()
            .map(|(href, media_type, title)| Alternate {
                href,
                media_type,
                title,
            })
            .collect();
        let ctx = PageContext {
            base: &self.base,
            doc_name: &self.doc_name,
            branches: &branches,
            version: self.version.as_ref().map(|v| VersionInfo {
                id: &v.id,
                published_at: &v.published_at,
                api_version: &v.api_version,
            }),
            assets: &self.assets,
            links: &links,
            search_action: self.search_action.as_deref(),
            alternates: &alternates,
            noindex: self.noindex,
            session_href: self.signed_in.then_some(crate::access::SIGN_IN_PATH),
        };
        f(&ctx)
    }
}

/// A build identity for validators: a page changes when the renderer does.
pub fn build_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let mut h = Sha256::new();
        h.update(env!("CARGO_PKG_VERSION"));
        for a in specpress_render::assets() {
            h.update(&a.name);
        }
        if let Some(size) = std::env::current_exe()
            .ok()
            .and_then(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
        {
            h.update(size.to_le_bytes());
        }
        hex::encode(&h.finalize()[..6])
    })
}

/// The strong validator made of a hash.
pub fn etag_of(h: Sha256) -> String {
    format!("\"{}\"", hex::encode(&h.finalize()[..12]))
}

/// Whether the request's `If-None-Match` matches `etag` (a list, weak tags and `*` included).
pub fn etag_matches(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| {
            let t = t.trim();
            t == "*" || t.trim_start_matches("W/") == etag
        })
}

/// 304 when the request already holds `etag`; otherwise `None` and the page is to be rendered.
pub fn not_modified(headers: &HeaderMap, etag: &str) -> Option<Response> {
    if !etag_matches(headers, etag) {
        return None;
    }
    let value = HeaderValue::from_str(etag).ok()?;
    Some(
        (
            StatusCode::NOT_MODIFIED,
            [
                (header::ETAG, value),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            ],
        )
            .into_response(),
    )
}

/// A rendered HTML page with its validator, revalidated on every view.
pub fn html_page(html: String, etag: &str) -> Response {
    let mut resp = (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            // Cacheable, but revalidated on every view (a deploy or a promotion shows at once; a 304 costs little).
            (header::CACHE_CONTROL, "public, no-cache"),
        ],
        html,
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(etag) {
        resp.headers_mut().insert(header::ETAG, v);
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_if_none_match_list_or_a_weak_tag_matches_the_etag() {
        let mut h = HeaderMap::new();
        h.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_static("\"a\", W/\"b\""),
        );
        assert!(etag_matches(&h, "\"b\""));
        assert!(!etag_matches(&h, "\"c\""));
        assert!(not_modified(&h, "\"a\"").is_some());
    }
}

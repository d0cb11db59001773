//! The public URL scheme, in one place: every `*_public_url` of the API, webhook payloads and the published pages
//! build their links here. `base` is the public origin without a trailing slash (`https://docs.example.com`).
//!
//! | page | path |
//! |---|---|
//! | a documentation (default branch) | `/doc/{doc_slug}` |
//! | a branch of it | `/doc/{doc_slug}/branches/{branch_slug}` |
//! | one published version's changes | `/doc/{doc_slug}/changes/{version_id}` |
//! | a hub | `/hub/{hub_slug}` |
//! | a preview | `/preview/{preview_id}` |
//! | a public diff | `/diff/{diff_id}` |
//!
//! Slugs are `[a-z0-9-]` and ids are UUIDs, so no part needs escaping. The id forms of documentation URLs
//! (`/doc/{doc_id}`) stay valid: they redirect to the slug form.
//!
//! On a verified custom hostname (issue 40) the same pages live at other paths: a hub's hostname serves the hub at
//! `/` and its documentations at `/{doc_slug}/...`, a documentation's hostname serves it at `/`. The request being
//! answered says which ([`on_host`], set by the HTTP layer around the handler), and every path built here
//! ([`doc_path`], [`hub_path`], and the URLs above them) follows it, so a page's links, feeds, sitemaps and MCP URLs
//! all stay on the hostname the reader asked for.

use std::future::Future;

use crate::model::{DocId, Documentation, Hub, PreviewId, Slug, VersionId};

/// What a custom hostname serves at its root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SiteRoot {
    /// A documentation's hostname: the documentation at `/`.
    Doc(Slug),
    /// A hub's hostname: the hub at `/`, its documentations at `/{doc_slug}`.
    Hub(Slug),
}

/// The custom hostname a request is answered on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSite {
    /// `scheme://hostname`, the base of absolute URLs on it.
    pub origin: String,
    /// What it serves at `/`.
    pub root: SiteRoot,
}

tokio::task_local! {
    static HOST_SITE: HostSite;
}

/// Runs `f` (a request's handling) as answered on `site`: the paths built inside follow its root.
pub async fn on_host<F: Future>(site: HostSite, f: F) -> F::Output {
    HOST_SITE.scope(site, f).await
}

/// The custom hostname the request being answered came in on, if any.
pub fn host_site() -> Option<HostSite> {
    HOST_SITE.try_with(Clone::clone).ok()
}

/// The path of a documentation's root (default branch), no trailing slash: `/doc/{slug}`; `` on its own hostname;
/// `/{slug}` on its hub's hostname.
pub fn doc_path(doc: &Slug) -> String {
    let root = HOST_SITE.try_with(|s| match &s.root {
        SiteRoot::Doc(d) if d == doc => Some(String::new()),
        SiteRoot::Doc(_) => None,
        SiteRoot::Hub(_) => Some(format!("/{doc}")),
    });
    root.ok().flatten().unwrap_or_else(|| format!("/doc/{doc}"))
}

/// The path of a hub's page, no trailing slash: `/hub/{slug}`; `` on its own hostname.
pub fn hub_path(hub: &Slug) -> String {
    let own = HOST_SITE.try_with(|s| matches!(&s.root, SiteRoot::Hub(h) if h == hub));
    if own.unwrap_or(false) {
        String::new()
    } else {
        format!("/hub/{hub}")
    }
}

/// A root path as a link: `/` for the site root (``), else the path.
pub fn href(path: String) -> String {
    if path.is_empty() {
        "/".to_owned()
    } else {
        path
    }
}

/// A root path with a suffix as a link: `/.md` for the site root's (``, `.md`), `/` for the root itself, else the
/// path and the suffix.
pub fn href_with(path: String, suffix: &str) -> String {
    if path.is_empty() {
        format!("/{suffix}")
    } else {
        format!("{path}{suffix}")
    }
}

/// `{base}/doc/{slug}`: the documentation on its default branch (`{base}/` on its own hostname).
pub fn doc_url(base: &str, doc: &Slug) -> String {
    format!("{base}{}", href(doc_path(doc)))
}

/// `{base}/doc/{slug}/branches/{branch}`: the documentation on one branch.
pub fn branch_url(base: &str, doc: &Slug, branch: &Slug) -> String {
    format!("{base}{}/branches/{branch}", doc_path(doc))
}

/// `{base}/doc/{slug}/changes/{version}`: what one published version changed.
pub fn change_url(base: &str, doc: &Slug, version: VersionId) -> String {
    format!("{base}{}/changes/{version}", doc_path(doc))
}

/// `{base}/hub/{slug}`: a hub's page (`{base}/` on its own hostname).
pub fn hub_url(base: &str, hub: &Slug) -> String {
    format!("{base}{}", href(hub_path(hub)))
}

/// `{base}/preview/{id}`: a live preview.
pub fn preview_url(base: &str, id: PreviewId) -> String {
    format!("{base}/preview/{id}")
}

/// `{base}/diff/{id}`: a public diff.
pub fn diff_url(base: &str, id: &str) -> String {
    format!("{base}/diff/{id}")
}

/// The documentation's URL.
pub fn of_doc(base: &str, doc: &Documentation) -> String {
    doc_url(base, &doc.slug)
}

/// The hub's URL.
pub fn of_hub(base: &str, hub: &Hub) -> String {
    hub_url(base, &hub.slug)
}

/// The legacy id form of a documentation URL, `{base}/doc/{id}` (answered by a redirect to the slug form).
pub fn legacy_doc_url(base: &str, doc: DocId) -> String {
    format!("{base}/doc/{doc}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_urls_are_built_from_slugs() {
        let doc = Slug::parse("pets").unwrap();
        let branch = Slug::parse("next").unwrap();
        let v = VersionId::parse("2361df99-1234-4c80-a0cc-45c9fe565812").unwrap();
        assert_eq!(doc_url("https://x.io", &doc), "https://x.io/doc/pets");
        assert_eq!(
            branch_url("https://x.io", &doc, &branch),
            "https://x.io/doc/pets/branches/next"
        );
        assert_eq!(
            change_url("https://x.io", &doc, v),
            "https://x.io/doc/pets/changes/2361df99-1234-4c80-a0cc-45c9fe565812"
        );
        assert_eq!(
            hub_url("https://x.io", &Slug::parse("payments").unwrap()),
            "https://x.io/hub/payments"
        );
    }

    #[tokio::test]
    async fn on_a_custom_hostname_paths_follow_what_it_serves_at_its_root() {
        let pets = Slug::parse("pets").unwrap();
        let other = Slug::parse("other").unwrap();
        let hub = Slug::parse("payments").unwrap();
        let v = VersionId::parse("2361df99-1234-4c80-a0cc-45c9fe565812").unwrap();
        let on_doc = HostSite {
            origin: "https://docs.example.com".into(),
            root: SiteRoot::Doc(pets.clone()),
        };
        let got = on_host(on_doc, async {
            (
                doc_path(&pets),
                doc_url("https://docs.example.com", &pets),
                change_url("https://docs.example.com", &pets, v),
                doc_path(&other),
                hub_path(&hub),
            )
        })
        .await;
        assert_eq!(got.0, "");
        assert_eq!(got.1, "https://docs.example.com/");
        assert_eq!(
            got.2,
            "https://docs.example.com/changes/2361df99-1234-4c80-a0cc-45c9fe565812"
        );
        assert_eq!(got.3, "/doc/other");
        assert_eq!(got.4, "/hub/payments");
        let on_hub = HostSite {
            origin: "https://api.example.com".into(),
            root: SiteRoot::Hub(hub.clone()),
        };
        let got = on_host(on_hub, async {
            (
                hub_url("https://api.example.com", &hub),
                doc_path(&pets),
                branch_url("https://api.example.com", &pets, &other),
                host_site().map(|s| s.origin),
            )
        })
        .await;
        assert_eq!(got.0, "https://api.example.com/");
        assert_eq!(got.1, "/pets");
        assert_eq!(got.2, "https://api.example.com/pets/branches/other");
        assert_eq!(got.3.as_deref(), Some("https://api.example.com"));
        assert_eq!(doc_path(&pets), "/doc/pets");
        assert!(host_site().is_none());
    }
}

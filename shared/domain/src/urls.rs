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

use crate::model::{DocId, Documentation, Hub, PreviewId, Slug, VersionId};

/// `{base}/doc/{slug}`: the documentation on its default branch.
pub fn doc_url(base: &str, doc: &Slug) -> String {
    format!("{base}/doc/{doc}")
}

/// `{base}/doc/{slug}/branches/{branch}`: the documentation on one branch.
pub fn branch_url(base: &str, doc: &Slug, branch: &Slug) -> String {
    format!("{base}/doc/{doc}/branches/{branch}")
}

/// `{base}/doc/{slug}/changes/{version}`: what one published version changed.
pub fn change_url(base: &str, doc: &Slug, version: VersionId) -> String {
    format!("{base}/doc/{doc}/changes/{version}")
}

/// `{base}/hub/{slug}`: a hub's page.
pub fn hub_url(base: &str, hub: &Slug) -> String {
    format!("{base}/hub/{hub}")
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
}

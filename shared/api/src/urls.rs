//! Public URLs. Until rendered pages exist, each returns the stored definition (see `functions/deploy`).

use specpress_domain::model::{DocId, PreviewId, VersionId};

/// `{base}/doc/{doc_id}`: the documentation's current definition (default branch head).
pub fn doc_public_url(base: &str, doc: DocId) -> String {
    format!("{base}/doc/{doc}")
}

/// `{base}/doc/{doc_id}/changes/{version_id}`: a version (and, later, its change page).
pub fn diff_public_url(base: &str, doc: DocId, version: VersionId) -> String {
    format!("{base}/doc/{doc}/changes/{version}")
}

/// `{base}/preview/{id}`: a live preview.
pub fn preview_public_url(base: &str, id: PreviewId) -> String {
    format!("{base}/preview/{id}")
}

//! The compare page's JSON twin, `GET /doc/{doc}/compare.json?from={version}&to={version}`: what changed between two
//! versions, counted as the compare page counts it, and page by page: each operation, webhook, schema or channel
//! page that was added, changed or removed, with its page's path in the `to` version (on that version's branch; a
//! removed one has none). A shared component's change also marks the operations it names as affected.
//!
//! This is what a page's "since your last visit" script reads (the browser remembers the last release seen; the
//! server remembers nothing): the banner's counts, the link to the compare page, the navigation's marks. The diff is
//! the compare page's own (the diff cache keeps it by the pair of definitions), the answer revalidated by an `ETag`
//! of the two releases.

use std::collections::HashMap;

use serde_json::{Value, json};
use specpress_domain::digest::{ReleaseDigest, subject_key};

use super::*;

/// Pages listed at most (a diff of a whole document lists every page once).
const MAX_PAGES: usize = 5_000;

/// `GET /doc/{doc}/compare.json?from={version}&to={version}`.
#[instrument(skip_all)]
pub async fn compare_json(
    State(library): State<Arc<Library>>,
    Viewer(reader): Viewer,
    parts: Parts,
    Path(key): Path<String>,
) -> Page {
    let doc = library
        .find_doc(&reader, &key)
        .await
        .map_err(PageError::json)?;
    if doc.by_id {
        return Ok(to_slug_form(doc.slug.as_str(), &parts.uri, &key));
    }
    let (Some(from), Some(to)) = (
        query_value(&parts.uri, "from"),
        query_value(&parts.uri, "to"),
    ) else {
        return Err(PageError::json(ReadError::Failed(DomainError::BadRequest(
            "Name both versions: ?from={version}&to={version}".into(),
        ))));
    };
    let from = library
        .doc_version(&doc, &from)
        .await
        .map_err(PageError::json)?;
    let to = library
        .doc_version(&doc, &to)
        .await
        .map_err(PageError::json)?;
    let view = library.view_of(&doc, &to).await;
    let base = view
        .as_ref()
        .map_or_else(|| format!("/doc/{}", doc.slug), |v| v.base.clone());
    let etag = Validator::new()
        .add("compare.json\0")
        .add(from.id.to_string())
        .add(to.id.to_string())
        .add(&base)
        .etag();
    if let Some(r) = not_modified(&parts.headers, &etag) {
        return Ok(r);
    }
    let outcome = if from.id == to.id {
        None
    } else {
        Some(library.diff(&from, &to).await.map_err(PageError::json)?)
    };
    let (loaded, _) = library.load_version(to.id).await.map_err(PageError::json)?;
    let body = CpuGate::shared()
        .run(move || answer(&doc, (&from, &to), outcome.as_deref(), &loaded, &base))
        .await
        .map_err(PageError::json)?;
    Ok(revalidated(types::JSON, body.to_string(), &etag))
}

/// A version as the answer names it.
fn version_json(v: &Version) -> Value {
    json!({
        "id": v.id.to_string(),
        "api_version": v.analysis.api_version,
        "branch": v.branch.as_str(),
        "published_at": rfc3339_seconds(v.created_at),
    })
}

/// The page paths of `loaded`'s subjects with a history (operations, webhooks, schemas, channels), by kind and
/// subject key.
fn subject_pages(loaded: &Loaded) -> HashMap<(&'static str, String), String> {
    use specpress_render::history::HistoryKind;
    loaded
        .site
        .pages()
        .filter_map(|p| {
            let s = loaded.site.history_subject(&loaded.doc, &p.page)?;
            let kind = match s.kind {
                HistoryKind::Operation => "operation",
                HistoryKind::Schema => "schema",
                HistoryKind::Channel => "channel",
            };
            Some(((kind, subject_key(&s.name)), s.path))
        })
        .collect()
}

/// The kind of page a diff item's type names.
fn page_kind(item_type: &str) -> Option<&'static str> {
    match item_type {
        "endpoint" | "webhook" => Some("operation"),
        "schema" => Some("schema"),
        "channel" => Some("channel"),
        _ => None,
    }
}

/// The answer: both versions, the counts, the compare page, and the pages changed.
fn answer(
    doc: &PublicDoc,
    (from, to): (&Version, &Version),
    outcome: Option<&specpress_reader::DiffOutcome>,
    loaded: &Loaded,
    base: &str,
) -> Value {
    let counts = outcome.map(|o| o.changes.counts()).unwrap_or_default();
    let digest = outcome.and_then(|o| {
        serde_json::from_str::<Value>(&o.details)
            .ok()
            .map(|d| ReleaseDigest::of_details(&d, o.empty, o.structural))
    });
    let paths = subject_pages(loaded);
    let mut pages: Vec<Value> = Vec::new();
    let mut listed: HashMap<String, usize> = HashMap::new();
    let mut push = |name: &str, kind: &'static str, status: &str, breaking: bool| {
        let href = paths
            .get(&(kind, subject_key(name)))
            .filter(|_| status != "removed")
            .map(|p| format!("{base}/{p}"));
        if let Some(h) = &href
            && let Some(&i) = listed.get(h)
        {
            // Listed already (an operation a shared component affects, and its own change): breaking wins.
            if breaking {
                pages[i]["breaking"] = json!(true);
            }
            return;
        }
        if pages.len() >= MAX_PAGES {
            return;
        }
        if let Some(h) = &href {
            listed.insert(h.clone(), pages.len());
        }
        pages.push(json!({
            "name": name,
            "kind": kind,
            "status": status,
            "breaking": breaking,
            "href": href,
        }));
    };
    for item in digest.iter().flat_map(|d| d.items.iter()) {
        if let Some(kind) = page_kind(&item.kind) {
            push(&item.name, kind, &item.status, item.breaking);
        }
        for op in &item.affected {
            push(op, "operation", "modified", item.breaking);
        }
    }
    json!({
        "from": version_json(from),
        "to": version_json(to),
        "compare_href": format!("/doc/{}/compare?from={}&to={}", doc.slug, from.id, to.id),
        "counts": {
            "breaking": counts.breaking,
            "added": counts.added,
            "modified": counts.modified,
            "removed": counts.removed,
        },
        "pages": pages,
    })
}

//! One release's change page and its `.json` variant, and public diffs (`/diff/{id}`).

use super::*;
use specpress_domain::urls;

/// `GET /doc/{doc}/changes/{version}[.json]`: one release's changes, as a page or as the `DiffItem[]` JSON.
#[instrument(skip_all)]
pub async fn change(
    State(library): State<Arc<Library>>,
    State(config): State<Arc<ApiConfig>>,
    Viewer(reader): Viewer,
    parts: Parts,
    Path((key, segment)): Path<(String, String)>,
) -> Page {
    let st = Site::new(&library, &config);
    let (version, json) = match segment.strip_suffix(".json") {
        Some(v) => (v, true),
        None => (segment.as_str(), false),
    };
    let doc = open_doc(st.library, &reader, &key, &parts.uri).await?;
    if json {
        change_json(st, &parts.headers, &doc, version).await
    } else {
        change_page(st, &parts.headers, &doc, version).await
    }
}

async fn change_json(st: Site<'_>, headers: &HeaderMap, doc: &PublicDoc, id: &str) -> Page {
    let v = st
        .library
        .doc_version(doc, id)
        .await
        .map_err(PageError::json)?;
    let accepted = st.library.accepted(doc).await.map_err(PageError::json)?;
    let now = OffsetDateTime::now_utc();
    let etag = Validator::new()
        .add(v.id.to_string())
        .add(
            v.previous_version_id
                .map(|p| p.to_string())
                .unwrap_or_default(),
        )
        .add("json")
        .add(accepted.live_key(now))
        .etag();
    if let Some(r) = not_modified(headers, &etag) {
        return Ok(r);
    }
    let body = match st
        .library
        .release_state_accepting(&v, &accepted)
        .await
        .map_err(PageError::json)?
    {
        Shown::First => "[]".to_owned(),
        Shown::Unavailable => {
            return Err(PageError::json(ReadError::Failed(DomainError::NotFound(
                "The version this one followed is no longer available".into(),
            ))));
        }
        Shown::Diff(o) => o.details.clone(),
    };
    Ok(revalidated(types::JSON, body, &etag))
}

async fn change_page(st: Site<'_>, headers: &HeaderMap, doc: &PublicDoc, id: &str) -> Page {
    let v = st.library.doc_version(doc, id).await?;
    let view = st.library.view_of(doc, &v).await;
    let now = OffsetDateTime::now_utc();
    let previous =
        specpress_domain::usecases::public::previous_version(st.library.store(), &v, now).await?;
    let accepted = st.library.accepted(doc).await?;
    let mut validator = match &view {
        Some(view) => Validator::of_view(view),
        None => Validator::new(),
    }
    .add(v.id.to_string())
    .add(
        previous
            .as_ref()
            .map(|p| p.id.to_string())
            .unwrap_or_default(),
    )
    .add(accepted.live_key(now));
    if let Some(view) = &view {
        validator = validator.add(view.head().to_string());
    }
    let etag = validator.etag();
    if let Some(r) = not_modified(headers, &etag) {
        return Ok(r);
    }
    let state = match (&previous, v.previous_version_id) {
        (_, None) => Shown::First,
        (None, Some(_)) => Shown::Unavailable,
        (Some(p), Some(_)) => Shown::Diff(st.library.diff(p, &v).await?),
    }
    .accepting(&accepted, now)
    .map_err(ReadError::Failed)?;
    let head = match &view {
        Some(view) => st.library.load_head(view).await.ok(),
        None => None,
    };
    let mut chrome = match &view {
        Some(view) => doc_chrome(view, head.as_ref().map(|(_, hv)| hv), false),
        None => bare_chrome(doc),
    };
    if v.temporary {
        chrome.noindex = true;
    }
    let base = view
        .as_ref()
        .map_or_else(|| urls::doc_path(&doc.slug), |w| w.base.clone());
    let vid = v.id.to_string();
    let published = rfc3339_seconds(v.created_at);
    let branch = branch_name(view.as_ref(), &v.branch);
    let prev_id = previous.as_ref().map(|p| p.id.to_string());
    let prev_published = previous.as_ref().map(|p| rfc3339_seconds(p.created_at));
    let prev_branch = previous
        .as_ref()
        .map(|p| branch_name(view.as_ref(), &p.branch));
    let prev_href = prev_id
        .as_ref()
        .map(|p| format!("{}/changes/{p}", urls::doc_path(&doc.slug)));
    let changelog = format!("{base}/changes");
    let json = format!("{}/changes/{vid}.json", urls::doc_path(&doc.slug));
    let source = format!("{}/versions/{vid}/source", urls::doc_path(&doc.slug));
    let compare = prev_id
        .as_ref()
        .map(|p| format!("{}/compare?from={p}&to={vid}", urls::doc_path(&doc.slug)));
    let page = ChangePage {
        version: VersionRef {
            id: &vid,
            api_version: &v.analysis.api_version,
            branch: &branch,
            published_at: &published,
            href: None,
        },
        title: &v.analysis.title,
        previous: match (&previous, &prev_id, &prev_published, &prev_branch) {
            (Some(p), Some(id), Some(at), Some(b)) => Some(VersionRef {
                id,
                api_version: &p.analysis.api_version,
                branch: b,
                published_at: at,
                href: prev_href.as_deref(),
            }),
            _ => None,
        },
        changes: state.as_release(),
        changelog_href: &changelog,
        json_href: &json,
        source_href: &source,
        compare_href: compare.as_deref(),
        temporary: v.temporary,
    };
    let link = linker(head.as_ref().map(|(l, _)| l.as_ref()), &base);
    let html = chrome.with(|ctx| render::change_page(ctx, &page, &link));
    Ok(html_page(html, &etag))
}

/// `GET /diff/{id}`: a public diff (`POST /diffs`, what `bump diff` prints), read through the diffs use case, so an
/// expired or evicted anonymous diff is a 404 page.
#[instrument(skip_all)]
pub async fn diff(State(library): State<Arc<Library>>, Path(id): Path<String>) -> Page {
    let failed = |e: DomainError| PageError::from(ReadError::or_missing(e, Missing::Version));
    let view = diffs::get_diff(library.store(), &id, OffsetDateTime::now_utc())
        .await
        .map_err(|e| match e {
            DomainError::NotFound(m) => PageError::not_found("Not found", m),
            e => failed(e),
        })?;
    let parts = view.rendered.parts().map_err(failed)?;
    let details = parts.details.get().to_owned();
    let changes = CpuGate::shared()
        .run(move || Changes::parse(&details))
        .await
        .map_err(failed)?
        .map_err(|e| failed(DomainError::unexpected(e)))?;
    let rid = view.record.id.to_string();
    let base = format!("/diff/{rid}");
    let chrome = Chrome {
        alternates: vec![(
            format!("{base}/current.json"),
            "application/json".to_owned(),
            "Current document".to_owned(),
        )],
        ..Chrome::bare(base.clone(), view.record.title.clone())
    };
    let previous = format!("{base}/previous.json");
    let current = format!("{base}/current.json");
    let expires = view.record.expires_at.map(rfc3339_seconds);
    let page = DiffPage {
        title: &view.record.title,
        changes: ReleaseChanges::Changes(&changes),
        previous_href: &previous,
        current_href: &current,
        expires_at: expires.as_deref(),
    };
    let html = chrome.with(|ctx| render::diff_page(ctx, &page));
    Ok(html_no_store(StatusCode::OK, html, "no-store"))
}

//! One release's change page and its `.json` variant, and public diffs (`/diff/{id}`).

use super::*;

/// `GET /doc/{doc}/changes/{version}[.json]`: one release's changes, as a page or as the `DiffItem[]` JSON.
#[instrument(skip_all)]
pub async fn change(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    parts: Parts,
    Path((key, segment)): Path<(String, String)>,
) -> Response {
    let (version, json) = match segment.strip_suffix(".json") {
        Some(v) => (v, true),
        None => (segment.as_str(), false),
    };
    let doc = match open_doc(&st, &reader, &key, &parts.uri).await {
        Ok(d) => d,
        Err(r) => return r,
    };
    let answer = if json {
        change_json(&st, &parts.headers, &doc, version).await
    } else {
        change_page(&st, &parts.headers, &doc, version).await
    };
    answer.unwrap_or_else(|r| r)
}

async fn change_json(st: &DocsState, headers: &HeaderMap, doc: &PublicDoc, id: &str) -> Answer {
    let now = st.app.now();
    let api = |e: DomainError| ApiError::from(e).into_response();
    let v = public::doc_version(st.app.store.as_ref(), doc, id, now)
        .await
        .map_err(api)?;
    let mut h = Sha256::new();
    h.update(v.id.to_string());
    h.update(
        v.previous_version_id
            .map(|p| p.to_string())
            .unwrap_or_default(),
    );
    h.update("json");
    let etag = etag_of(h);
    if let Some(r) = not_modified(headers, &etag) {
        return Ok(r);
    }
    let body = match release_state(st, &v).await.map_err(api)? {
        Shown::First => "[]".to_owned(),
        Shown::Unavailable => {
            return Err(api(DomainError::NotFound(
                "The version this one followed is no longer available".into(),
            )));
        }
        Shown::Diff(o) => o.details.clone(),
    };
    let mut resp = (
        [
            (header::CONTENT_TYPE, "application/json; charset=utf-8"),
            (header::CACHE_CONTROL, "public, no-cache"),
        ],
        body,
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(&etag) {
        resp.headers_mut().insert(header::ETAG, v);
    }
    Ok(resp)
}

async fn change_page(st: &DocsState, headers: &HeaderMap, doc: &PublicDoc, id: &str) -> Answer {
    let now = st.app.now();
    let store = st.app.store.as_ref();
    let v = public::doc_version(store, doc, id, now)
        .await
        .map_err(|e| page_error(st, e))?;
    let view = view_of(st, doc, &v).await;
    let previous = public::previous_version(store, &v, now)
        .await
        .map_err(|e| page_error(st, e))?;
    let mut h = Sha256::new();
    match &view {
        Some(view) => view.hash_into(&mut h),
        None => h.update(crate::view::build_id()),
    }
    h.update(v.id.to_string());
    h.update(
        previous
            .as_ref()
            .map(|p| p.id.to_string())
            .unwrap_or_default(),
    );
    if let Some(view) = &view {
        h.update(view.head().to_string());
    }
    let etag = etag_of(h);
    if let Some(r) = not_modified(headers, &etag) {
        return Ok(r);
    }
    let state = match (&previous, v.previous_version_id) {
        (_, None) => Shown::First,
        (None, Some(_)) => Shown::Unavailable,
        (Some(p), Some(_)) => Shown::Diff(outcome(st, p, &v).await.map_err(|e| page_error(st, e))?),
    };
    let head = match view.as_ref().map(DocView::head) {
        Some(id) => crate::pages::loaded_version(st, id).await.ok(),
        None => None,
    };
    let mut chrome = match &view {
        Some(view) => doc_chrome(st, view, head.as_ref().map(|(_, hv)| hv), false),
        None => bare_chrome(st, doc),
    };
    if v.temporary {
        chrome.noindex = true;
    }
    let base = view
        .as_ref()
        .map_or_else(|| format!("/doc/{}", doc.slug), |w| w.base.clone());
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
        .map(|p| format!("/doc/{}/changes/{p}", doc.slug));
    let changelog = format!("{base}/changes");
    let json = format!("/doc/{}/changes/{vid}.json", doc.slug);
    let source = format!("/doc/{}/versions/{vid}/source", doc.slug);
    let compare = prev_id
        .as_ref()
        .map(|p| format!("/doc/{}/compare?from={p}&to={vid}", doc.slug));
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
pub async fn diff(State(st): State<DocsState>, Path(id): Path<String>) -> Response {
    diff_of(&st, &id).await.unwrap_or_else(|r| r)
}

async fn diff_of(st: &DocsState, id: &str) -> Answer {
    let view = diffs::get_diff(st.app.store.as_ref(), id, st.app.now())
        .await
        .map_err(|e| page_error(st, e))?;
    let parts = view.rendered.parts().map_err(|e| page_error(st, e))?;
    let details = parts.details.get().to_owned();
    let changes = CpuGate::shared()
        .run(move || Changes::parse(&details))
        .await
        .map_err(|e| page_error(st, e))?
        .map_err(|e| page_error(st, DomainError::unexpected(e)))?;
    let rid = view.record.id.to_string();
    let base = format!("/diff/{rid}");
    let chrome = Chrome {
        base: base.clone(),
        doc_name: view.record.title.clone(),
        branches: Vec::new(),
        version: None,
        assets: st.assets.clone(),
        links: Vec::new(),
        search_action: None,
        alternates: vec![(
            format!("{base}/current.json"),
            "application/json".to_owned(),
            "Current document".to_owned(),
        )],
        noindex: true,
        signed_in: crate::access::signed_in(),
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
    Ok((
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response())
}

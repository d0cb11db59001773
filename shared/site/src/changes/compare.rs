//! The compare page between any two versions of a documentation, on one branch or across branches.

use super::*;
use specpress_domain::urls;

/// A version named by the compare form; `None` when it is not given or not one of this documentation's.
async fn find_version(
    st: Site<'_>,
    doc: &Documentation,
    key: Option<&str>,
) -> Result<Option<Version>, PageError> {
    let Some(key) = key else { return Ok(None) };
    match st.library.doc_version(doc, key).await {
        Ok(v) => Ok(Some(v)),
        Err(ReadError::Missing(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn option_label(v: &Version) -> String {
    let date = rfc3339_seconds(v.created_at);
    let when = specpress_render::human_time(&date);
    let id = v.id.to_string();
    if v.analysis.api_version.trim().is_empty() {
        format!("{} · {when}", &id[..8])
    } else {
        format!("{} · {when} · {}", v.analysis.api_version, &id[..8])
    }
}

/// `GET /doc/{doc}/compare?from={version}&to={version}`: the changes between any two versions of a documentation,
/// on one branch or across branches; without both, the form alone.
#[instrument(skip_all)]
pub async fn compare(
    State(library): State<Arc<Library>>,
    State(config): State<Arc<ApiConfig>>,
    Viewer(reader): Viewer,
    parts: Parts,
    Path(key): Path<String>,
) -> Page {
    compare_of(Site::new(&library, &config), &reader, &parts, &key).await
}

async fn compare_of(st: Site<'_>, reader: &Reader, parts: &Parts, key: &str) -> Page {
    let doc = open_doc(st.library, reader, key, &parts.uri).await?;
    let view = st.library.open(doc, None).await?;
    let from_key = query_value(&parts.uri, "from");
    let to_key = query_value(&parts.uri, "to");
    let mut problem: Option<&str> = None;
    let mut status = StatusCode::OK;
    let from = find_version(st, &view.doc, from_key.as_deref()).await?;
    let to = find_version(st, &view.doc, to_key.as_deref()).await?;
    if (from_key.is_some() && from.is_none()) || (to_key.is_some() && to.is_none()) {
        problem = Some("This documentation has no such version: choose one in the lists.");
        status = StatusCode::NOT_FOUND;
    }
    let state = match (&from, &to) {
        (Some(a), Some(b)) if a.id == b.id => None,
        (Some(a), Some(b)) => {
            let accepted = st.library.accepted(&view.doc).await?;
            let diff = st.library.diff(a, b).await?;
            Some(
                Shown::Diff(diff)
                    .accepting(&accepted, OffsetDateTime::now_utc())
                    .map_err(ReadError::Failed)?,
            )
        }
        _ => None,
    };
    if let (Some(a), Some(b)) = (&from, &to)
        && a.id == b.id
    {
        problem = Some("Both sides are the same version: choose two different versions.");
    }
    // The form's lists: the newest versions of each published branch.
    let mut options_owned: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for b in view.branches.iter().take(COMPARE_BRANCHES) {
        let versions = st
            .library
            .releases(&view.doc, b, 0, COMPARE_VERSIONS)
            .await?;
        options_owned.push((
            b.name.name().to_owned(),
            versions
                .iter()
                .map(|v| (v.id.to_string(), option_label(v)))
                .collect(),
        ));
    }
    let options: Vec<(&str, Vec<VersionOption<'_>>)> = options_owned
        .iter()
        .map(|(b, vs)| {
            (
                b.as_str(),
                vs.iter()
                    .map(|(id, label)| VersionOption { id, label })
                    .collect(),
            )
        })
        .collect();
    let head = st.library.load_head(&view).await.ok();
    let chrome = doc_chrome(&view, head.as_ref().map(|(_, hv)| hv), false);
    let refs: Vec<Option<(String, String, String, String)>> = [&from, &to]
        .iter()
        .map(|v| {
            v.as_ref().map(|v| {
                (
                    v.id.to_string(),
                    rfc3339_seconds(v.created_at),
                    branch_name(Some(&view), &v.branch),
                    format!("{}/changes/{}", urls::doc_path(&view.doc.slug), v.id),
                )
            })
        })
        .collect();
    fn version_ref<'a>(
        v: &'a Option<Version>,
        r: &'a Option<(String, String, String, String)>,
    ) -> Option<VersionRef<'a>> {
        let v = v.as_ref()?;
        let (id, at, branch, href) = r.as_ref()?;
        Some(VersionRef {
            id,
            api_version: &v.analysis.api_version,
            branch,
            published_at: at,
            href: Some(href),
        })
    }
    let action = format!("{}/compare", urls::doc_path(&view.doc.slug));
    let changelog = format!("{}/changes", view.base);
    let page = ComparePage {
        action: &action,
        options: &options,
        from: version_ref(&from, &refs[0]),
        to: version_ref(&to, &refs[1]),
        changes: state.as_ref().map(Shown::as_release),
        problem,
        changelog_href: &changelog,
    };
    let link = linker(head.as_ref().map(|(l, _)| l.as_ref()), &view.base);
    let html = chrome.with(|ctx| render::compare_page(ctx, &page, &link));
    Ok(html_no_store(status, html, "no-cache"))
}

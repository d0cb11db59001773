//! A documentation's changelog (per branch, paginated in the store) and its Atom and RSS feeds.

use super::*;
use specpress_domain::urls;

/// Which answer a changelog URL asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Page,
    Atom,
    Rss,
}

/// `GET /doc/{doc}/changes[.atom|.rss]`.
#[instrument(skip_all)]
pub async fn changelog(
    State(library): State<Arc<Library>>,
    State(config): State<Arc<ApiConfig>>,
    Viewer(reader): Viewer,
    parts: Parts,
    Path(key): Path<String>,
) -> Page {
    let format = format_of(parts.uri.path());
    let st = Site::new(&library, &config);
    changelog_of(st, &reader, &parts, &key, None, format).await
}

/// `GET /doc/{doc}/branches/{branch}/changes[.atom|.rss]`.
#[instrument(skip_all)]
pub async fn branch_changelog(
    State(library): State<Arc<Library>>,
    State(config): State<Arc<ApiConfig>>,
    Viewer(reader): Viewer,
    parts: Parts,
    Path((key, branch)): Path<(String, String)>,
) -> Page {
    let format = format_of(parts.uri.path());
    let st = Site::new(&library, &config);
    changelog_of(st, &reader, &parts, &key, Some(&branch), format).await
}

fn format_of(path: &str) -> Format {
    if path.ends_with(".atom") {
        Format::Atom
    } else if path.ends_with(".rss") {
        Format::Rss
    } else {
        Format::Page
    }
}

fn suffix(format: Format) -> &'static str {
    match format {
        Format::Page => "",
        Format::Atom => ".atom",
        Format::Rss => ".rss",
    }
}

async fn changelog_of(
    st: Site<'_>,
    reader: &Reader,
    parts: &Parts,
    key: &str,
    branch: Option<&str>,
    format: Format,
) -> Page {
    let doc = open_doc(st.library, reader, key, &parts.uri).await?;
    let branch = changelog_branch(&doc, branch, format)?;
    let view = st.library.open(doc, branch).await?;
    let total = view.branch.seq;
    let pages = total.div_ceil(u64::from(PER_PAGE)).max(1);
    let page = changelog_page_number(parts, format, pages)?;
    let limit = if format == Format::Page {
        PER_PAGE
    } else {
        FEED_ENTRIES
    };
    let accepted = st.library.accepted(&view.doc).await?;
    let mut v = Validator::of_view(&view)
        .add(total.to_le_bytes())
        .add(view.head().to_string())
        .add(page.to_le_bytes())
        .add(suffix(format))
        .add(accepted.live_key(OffsetDateTime::now_utc()));
    if format != Format::Page {
        v = v.add(origin_of(st.config, &parts.headers));
    }
    let etag = v.etag();
    if let Some(r) = not_modified(&parts.headers, &etag) {
        return Ok(r);
    }
    let versions = st
        .library
        .releases(
            &view.doc,
            &view.branch,
            (page - 1) * u64::from(limit),
            limit,
        )
        .await?;
    let mut states = Vec::with_capacity(versions.len());
    for v in &versions {
        states.push(st.library.release_state_accepting(v, &accepted).await?);
    }
    let listed = Listed {
        hrefs: versions
            .iter()
            .map(|v| format!("{}/changes/{}", urls::doc_path(&view.doc.slug), v.id))
            .collect(),
        versions,
        states,
    };
    if format != Format::Page {
        return Ok(changelog_feed(st, parts, &view, &listed, format, &etag));
    }
    Ok(changelog_html(st, &view, &listed, page, pages, &etag).await)
}

/// The branch a changelog URL names (`None`: the default branch, whose changelog lives at the documentation's own
/// URL: its named form is redirected there), or the answer already due (an unknown branch's 404 page).
fn changelog_branch(
    doc: &PublicDoc,
    branch: Option<&str>,
    format: Format,
) -> Result<Option<Slug>, PageError> {
    let Some(b) = branch else { return Ok(None) };
    match branch_in_url(doc, b)? {
        BranchInUrl::Default => Err(PageError::answered(moved_temporarily(&format!(
            "{}/changes{}",
            urls::doc_path(&doc.slug),
            suffix(format)
        )))),
        BranchInUrl::Named(slug) => Ok(Some(slug)),
    }
}

/// The page a changelog URL asks for (`?page=`, pages only; feeds hold the newest entries): 1 to `pages`, else a 404
/// page.
fn changelog_page_number(parts: &Parts, format: Format, pages: u64) -> Result<u64, PageError> {
    match (format, query_value(&parts.uri, "page")) {
        (Format::Page, Some(p)) => match p.parse::<u64>() {
            Ok(n) if (1..=MAX_PAGE).contains(&n) && n <= pages => Ok(n),
            _ => Err(PageError::not_found(
                "Page not found",
                "This changelog has no such page.",
            )),
        },
        _ => Ok(1),
    }
}

/// The releases a changelog page or feed lists, with their changes and the paths of their change pages.
struct Listed {
    versions: Vec<Version>,
    states: Vec<Shown>,
    hrefs: Vec<String>,
}

/// A changelog as an Atom or RSS feed (absolute URLs on the public origin).
fn changelog_feed(
    st: Site<'_>,
    parts: &Parts,
    view: &DocView,
    listed: &Listed,
    format: Format,
    etag: &str,
) -> Response {
    let origin = origin_of(st.config, &parts.headers);
    let changelog_path = format!("{}/changes", view.base);
    let entries: Vec<FeedEntry> = listed
        .versions
        .iter()
        .zip(&listed.states)
        .zip(&listed.hrefs)
        .map(|((v, s), href)| feed_entry(&origin, None, v, s, href))
        .collect();
    let title = match view.named {
        true => format!("{} ({}): changelog", view.doc.name, view.branch.name.name()),
        false => format!("{}: changelog", view.doc.name),
    };
    let feed = Feed {
        title: &title,
        subtitle: "Every published version, newest first, with its changes.",
        self_url: &format!("{origin}{changelog_path}{}", suffix(format)),
        page_url: &format!("{origin}{changelog_path}"),
        updated: listed
            .versions
            .first()
            .map_or(view.doc.created_at, |v| v.created_at),
        entries: &entries,
    };
    feed_response(&feed, format, etag)
}

/// A changelog page: its releases with their changes, linked into the reference pages of the branch's head, and the
/// pager.
async fn changelog_html(
    st: Site<'_>,
    view: &DocView,
    listed: &Listed,
    page: u64,
    pages: u64,
    etag: &str,
) -> Response {
    let head = st.library.load_head(view).await.ok();
    let head_version = head.as_ref().map(|(_, v)| v.clone());
    let chrome = doc_chrome(view, head_version.as_ref(), true);
    let published: Vec<String> = listed
        .versions
        .iter()
        .map(|v| rfc3339_seconds(v.created_at))
        .collect();
    let ids: Vec<String> = listed.versions.iter().map(|v| v.id.to_string()).collect();
    let releases: Vec<Release<'_>> = listed
        .versions
        .iter()
        .enumerate()
        .map(|(i, v)| Release {
            href: &listed.hrefs[i],
            id: &ids[i],
            api_version: &v.analysis.api_version,
            title: &v.analysis.title,
            published_at: &published[i],
            doc: None,
            changes: listed.states[i].as_release(),
        })
        .collect();
    let changelog_path = format!("{}/changes", view.base);
    let page_href = |n: u64| {
        if n == 1 {
            changelog_path.clone()
        } else {
            format!("{changelog_path}?page={n}")
        }
    };
    let newer = (page > 1).then(|| page_href(page - 1));
    let older = (page < pages).then(|| page_href(page + 1));
    let atom = format!("{changelog_path}.atom");
    let rss = format!("{changelog_path}.rss");
    let compare = format!("{}/compare", urls::doc_path(&view.doc.slug));
    let body = Changelog {
        branch: view.named.then(|| view.branch.name.name()),
        total: view.branch.seq,
        releases: &releases,
        pager: Pager {
            page,
            pages,
            newer: newer.as_deref(),
            older: older.as_deref(),
        },
        atom_href: &atom,
        rss_href: &rss,
        compare_href: &compare,
    };
    let link = linker(head.as_ref().map(|(l, _)| l.as_ref()), &view.base);
    let html = chrome.with(|ctx| render::changelog_page(ctx, &body, &link));
    html_page(html, etag)
}

pub(crate) fn feed_entry(
    origin: &str,
    doc_name: Option<&str>,
    v: &Version,
    state: &Shown,
    href: &str,
) -> FeedEntry {
    let changes = state.as_release();
    let version = if v.analysis.api_version.trim().is_empty() {
        v.id.to_string()
    } else {
        v.analysis.api_version.clone()
    };
    let mut title = match doc_name {
        Some(d) => format!("{d} {version}"),
        None => format!("{version}: {}", v.analysis.title),
    };
    if changes.breaking() {
        title.push_str(" (breaking)");
    }
    FeedEntry {
        title,
        url: format!("{origin}{href}"),
        id: format!("urn:uuid:{}", v.id),
        published: v.created_at,
        summary: changes.summary_text(30),
    }
}

pub(crate) fn feed_response(feed: &Feed<'_>, format: Format, etag: &str) -> Response {
    let (body, ct) = match format {
        Format::Rss => (feed::rss(feed), "application/rss+xml; charset=utf-8"),
        _ => (feed::atom(feed), "application/atom+xml; charset=utf-8"),
    };
    revalidated(ct, body, etag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changelog_url_names_its_format_by_its_suffix() {
        assert_eq!(format_of("/doc/pets/changes"), Format::Page);
        assert_eq!(format_of("/doc/pets/changes.atom"), Format::Atom);
        assert_eq!(
            format_of("/doc/pets/branches/next/changes.rss"),
            Format::Rss
        );
    }
}

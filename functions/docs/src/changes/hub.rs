//! A hub's combined changelog: the newest releases across its documentations, for its page and feeds.

use super::*;

/// The releases of a hub's APIs, newest first: the `limit` newest across its documentations' default branches.
/// Only the documentations whose latest release is among the `limit` newest can contribute (any other has at least
/// `limit` newer releases elsewhere), so at most `limit` histories are read, each for at most `limit` versions.
pub(crate) async fn hub_releases(
    st: &DocsState,
    apis: &[specpress_domain::usecases::hubs::HubApi],
    limit: u32,
) -> Result<Vec<(Documentation, Version, Shown)>, DomainError> {
    let store = st.app.store.as_ref();
    let mut recent: Vec<&specpress_domain::usecases::hubs::HubApi> =
        apis.iter().filter(|a| a.head.is_some()).collect();
    recent.sort_by_key(|a| std::cmp::Reverse(a.head.as_ref().map(|h| h.created_at)));
    recent.truncate(limit as usize);
    let mut all: Vec<(Documentation, Version)> = Vec::new();
    for api in recent {
        let Some(branch) = public::doc_branch(store, &api.doc, &api.doc.default_branch).await?
        else {
            continue;
        };
        for v in public::releases(store, &api.doc, &branch, 0, limit).await? {
            all.push((api.doc.clone(), v));
        }
    }
    all.sort_by_key(|(_, v)| std::cmp::Reverse((v.created_at, v.id.0)));
    all.truncate(limit as usize);
    let mut out = Vec::with_capacity(all.len());
    for (doc, v) in all {
        let state = release_state(st, &v).await?;
        out.push((doc, v, state));
    }
    Ok(out)
}

/// Owned pieces of a hub's combined changelog, for its page and feeds.
pub(crate) struct HubReleases {
    pub hrefs: Vec<String>,
    pub doc_hrefs: Vec<String>,
    pub ids: Vec<String>,
    pub published: Vec<String>,
    pub items: Vec<(Documentation, Version, Shown)>,
}

impl HubReleases {
    pub(crate) fn new(items: Vec<(Documentation, Version, Shown)>) -> Self {
        HubReleases {
            hrefs: items
                .iter()
                .map(|(d, v, _)| format!("/doc/{}/changes/{}", d.slug, v.id))
                .collect(),
            doc_hrefs: items
                .iter()
                .map(|(d, _, _)| format!("/doc/{}", d.slug))
                .collect(),
            ids: items.iter().map(|(_, v, _)| v.id.to_string()).collect(),
            published: items
                .iter()
                .map(|(_, v, _)| rfc3339_seconds(v.created_at))
                .collect(),
            items,
        }
    }

    pub(crate) fn releases(&self) -> Vec<Release<'_>> {
        self.items
            .iter()
            .enumerate()
            .map(|(i, (d, v, s))| Release {
                href: &self.hrefs[i],
                id: &self.ids[i],
                api_version: &v.analysis.api_version,
                title: &v.analysis.title,
                published_at: &self.published[i],
                doc: Some((&d.name, &self.doc_hrefs[i])),
                changes: s.as_release(),
            })
            .collect()
    }

    pub(crate) fn feed_entries(&self, origin: &str) -> Vec<FeedEntry> {
        self.items
            .iter()
            .enumerate()
            .map(|(i, (d, v, s))| feed_entry(origin, Some(&d.name), v, s, &self.hrefs[i]))
            .collect()
    }
}

/// Feeds of a hub share the writer with documentation feeds.
pub(crate) fn hub_feed(feed: &Feed<'_>, rss: bool, etag: &str) -> Response {
    feed_response(feed, if rss { Format::Rss } else { Format::Atom }, etag)
}

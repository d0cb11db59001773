//! A hub's combined changelog: the newest releases across its documentations, for its page and feeds.

use super::*;
use specpress_domain::urls;

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
                .map(|(d, v, _)| format!("{}/changes/{}", urls::doc_path(&d.slug), v.id))
                .collect(),
            doc_hrefs: items
                .iter()
                .map(|(d, _, _)| urls::href(urls::doc_path(&d.slug)))
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

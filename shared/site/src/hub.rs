//! A hub's public page (`/hub/{slug}`, the `url` that `GET /api/v1/hubs/{hub}` returns): its APIs (name,
//! description, version, type, last release, link) and their combined changelog, with Atom and RSS feeds
//! (`/hub/{slug}/changes.atom`, `.rss`), and how to use it with an AI agent (its MCP server, `/hub/{slug}/mcp`, with
//! a client configuration on the request's public origin). The hub and its documentations are found by the reader
//! layer, which decides what a reader may see.

use specpress_domain::urls;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::request::Parts;
use axum::routing::get;
use specpress_api::ApiConfig;
use specpress_api::readers::Viewer;
use specpress_domain::model::Hub;
use specpress_domain::usecases::hubs::HubApi;
use specpress_domain::usecases::public::Reader;
use specpress_reader::Library;
use specpress_render::changes::{self as render, HubPage};
use specpress_render::feed::Feed;
use tracing::instrument;

use crate::SiteState;
use crate::changes::{HubReleases, hub_feed};
use crate::chrome::{Chrome, OwnedMcp};
use crate::error::Page;
use crate::respond::{Validator, html_page, not_modified, origin_of, rfc3339_seconds};

/// The routes of a hub's page and feeds.
pub fn routes() -> Router<SiteState> {
    Router::new()
        .route("/hub/{hub}", get(hub))
        .route("/hub/{hub}/changes.atom", get(hub_changes_feed))
        .route("/hub/{hub}/changes.rss", get(hub_changes_feed))
}

/// Releases in a hub's combined changelog (page and feeds).
pub const HUB_RELEASES: u32 = 15;

fn kind_of(specification: &str) -> &'static str {
    if specification.starts_with("asyncapi") {
        "AsyncAPI"
    } else {
        "OpenAPI"
    }
}

/// `GET /hub/{hub}`.
#[instrument(skip_all)]
pub async fn hub(
    State(library): State<Arc<Library>>,
    State(config): State<Arc<ApiConfig>>,
    Viewer(reader): Viewer,
    parts: Parts,
    Path(key): Path<String>,
) -> Page {
    hub_of(&library, &config, &reader, &parts, &key, None).await
}

/// `GET /hub/{hub}/changes.atom` and `.rss`.
#[instrument(skip_all)]
pub async fn hub_changes_feed(
    State(library): State<Arc<Library>>,
    State(config): State<Arc<ApiConfig>>,
    Viewer(reader): Viewer,
    parts: Parts,
    Path(key): Path<String>,
) -> Page {
    let rss = parts.uri.path().ends_with(".rss");
    hub_of(&library, &config, &reader, &parts, &key, Some(rss)).await
}

/// The validator of a hub's page or feed: the hub, each API's head, and the build.
fn hub_etag(hub: &Hub, apis: &[HubApi], what: &str, origin: &str) -> String {
    let mut v = Validator::new()
        .add(what)
        .add(origin)
        .add(hub.id.to_string())
        .add(&hub.name)
        .add(hub.description.as_deref().unwrap_or(""))
        .add(hub.modified_at.unix_timestamp().to_le_bytes())
        .add([u8::from(hub.visibility.is_private())]);
    for a in apis {
        v = v
            .add([u8::from(a.doc.visibility.is_private())])
            .add(a.doc.id.to_string())
            .add(&a.doc.name)
            .add(a.doc.slug.as_str())
            .add(
                a.head
                    .as_ref()
                    .map(|v| v.id.to_string())
                    .unwrap_or_default(),
            );
    }
    v.etag()
}

async fn hub_of(
    library: &Library,
    config: &ApiConfig,
    reader: &Reader,
    parts: &Parts,
    key: &str,
    feed: Option<bool>,
) -> Page {
    let hub = library.find_hub(reader, key).await?;
    let apis = library.hub_apis(reader, &hub).await?;
    // Feeds are written on the public origin, and the page shows the MCP client configuration on it.
    let origin = origin_of(config, &parts.headers);
    let what = match feed {
        None => "page",
        Some(false) => "atom",
        Some(true) => "rss",
    };
    let etag = hub_etag(&hub, &apis, what, &origin);
    if let Some(r) = not_modified(&parts.headers, &etag) {
        return Ok(r);
    }
    let releases = HubReleases::new(library.hub_releases(&apis, HUB_RELEASES).await?);
    let base = urls::hub_path(&hub.slug);
    let atom = format!("{base}/changes.atom");
    let rss = format!("{base}/changes.rss");
    if let Some(rss_wanted) = feed {
        let entries = releases.feed_entries(&origin);
        let title = format!("{}: changelog", hub.name);
        let self_url = format!("{origin}{}", if rss_wanted { &rss } else { &atom });
        let page_url = format!("{origin}{base}");
        let feed = Feed {
            title: &title,
            subtitle: "The latest releases of every API of this hub.",
            self_url: &self_url,
            page_url: &page_url,
            updated: releases
                .items
                .first()
                .map_or(hub.modified_at, |(_, v, _)| v.created_at),
            entries: &entries,
        };
        return Ok(hub_feed(&feed, rss_wanted, &etag));
    }
    let doc_hrefs: Vec<String> = apis
        .iter()
        .map(|a| urls::href(urls::doc_path(&a.doc.slug)))
        .collect();
    let released: Vec<Option<String>> = apis
        .iter()
        .map(|a| a.head.as_ref().map(|v| rfc3339_seconds(v.created_at)))
        .collect();
    let cards: Vec<render::HubApi<'_>> = apis
        .iter()
        .enumerate()
        .map(|(i, a)| render::HubApi {
            name: &a.doc.name,
            href: &doc_hrefs[i],
            description: a
                .head
                .as_ref()
                .and_then(|v| v.analysis.description.as_deref()),
            api_version: a.head.as_ref().map(|v| v.analysis.api_version.as_str()),
            kind: a.head.as_ref().map(|v| kind_of(&v.analysis.specification)),
            released_at: released[i].as_deref(),
        })
        .collect();
    let private = hub.visibility.is_private() || apis.iter().any(|a| a.doc.visibility.is_private());
    let chrome = Chrome {
        alternates: vec![
            (
                atom.clone(),
                "application/atom+xml".to_owned(),
                format!("{} changelog (Atom)", hub.name),
            ),
            (
                rss.clone(),
                "application/rss+xml".to_owned(),
                format!("{} changelog (RSS)", hub.name),
            ),
        ],
        noindex: private,
        mcp: Some(OwnedMcp::of_hub(hub.slug.as_str(), private).on(&origin)),
        follow: Some((format!("{base}/follow"), None)),
        ..Chrome::bare(base.clone(), hub.name.clone())
    };
    let entries = releases.releases();
    let page = HubPage {
        name: &hub.name,
        description: hub.description.as_deref(),
        apis: &cards,
        releases: &entries,
        atom_href: &atom,
        rss_href: &rss,
    };
    let html = chrome.with(|ctx| render::hub_page(ctx, &page));
    Ok(html_page(html, &etag))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_api_type_is_named_by_its_specification_family() {
        assert_eq!(kind_of("openapi/v3/json"), "OpenAPI");
        assert_eq!(kind_of("swagger/v2/yaml"), "OpenAPI");
        assert_eq!(kind_of("asyncapi/v2/yaml"), "AsyncAPI");
    }
}

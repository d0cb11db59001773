//! The docs function: what readers and tools open at the public URLs the API hands out.
//!
//! - `GET /doc/{doc}` and `GET /doc/{doc}/{page}`: the documentation's rendered pages on its default branch;
//!   `GET /doc/{doc}/branches/{branch}[/{page}]` on another branch. `{doc}` is the slug, or the id (answered with a
//!   redirect to the slug form). `{page}` is a path of the rendering engine's scheme (`operation/...`,
//!   `schema/...`, docs/rendering.md). `GET /doc/{doc}.json` / `.yaml`: the current definition.
//! - `GET /doc/{doc}/changes[.atom|.rss]` (and per branch, `/doc/{doc}/branches/{branch}/changes...`): the
//!   changelog, paginated, and its feeds; `GET /doc/{doc}/changes/{version}[.json]` (and the contract's `/change/`
//!   form, redirected): one release's changes; `GET /doc/{doc}/compare?from=&to=`: any two versions ([`changes`]).
//! - `GET /diff/{id}`: a public diff, rendered like a change page.
//! - `GET /hub/{hub}` and `/hub/{hub}/changes.atom|.rss`: a hub's APIs and combined changelog ([`hub`]).
//! - `GET /doc/{doc}/versions/{version}/source`: a version's definition exactly as deployed.
//! - `GET /doc/{doc}/search?q=`, `GET /doc/{doc}/branches/{branch}/search?q=`, `GET /hub/{hub}/search?q=`: search
//!   results pages ([`search`]); each with a `.json` twin (`/doc/{doc}/search.json?q=`...), the same results as
//!   JSON, which the search fields use to suggest results as one types.
//! - For machines ([`machine`]): `{page URL}.md` (every reference page as Markdown), `GET /doc/{doc}/llms.txt`,
//!   `GET /doc/{doc}/sitemap.xml`, `GET /hub/{hub}/llms.txt`, `GET /hub/{hub}/sitemap.xml` (a sitemap index).
//! - `GET /preview/{id}[/{page}]`: a live preview, rendered like a documentation.
//! - `GET /static/{file}`: the stylesheet and script of the pages (content-hashed names, cached for a year).
//! - `GET`/`POST /sign-in`, `POST /sign-out`: private documentation's sign-in ([`access`]). Every route sees its
//!   reader through [`access::readers`]: a private documentation or hub answers a reader who may not see it
//!   exactly as an unknown one does (404).
//!
//! Every request reads which documentation, branch and head it is about, so a deploy or a promotion shows at once;
//! what is cached is only the parsed document of a published version ([`cache`]), which never changes. Pages carry
//! an `ETag` (304 on a match), a strict Content-Security-Policy and the other headers of [`headers`], and are
//! compressed (br, gzip).
//!
//! [`router`] is mounted by the Lambda binary and by `specpress serve`.

pub mod access;
pub mod cache;
mod changes;
mod headers;
mod hub;
mod machine;
mod pages;
mod request;
pub mod search;
pub mod view;

use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use specpress_api::AppState;

use crate::cache::SiteCache;

/// Default budget of the parsed-document cache (`SPECPRESS_PAGE_CACHE_BYTES`).
pub const DEFAULT_CACHE_BYTES: u64 = 256 * 1024 * 1024;

/// Settings of the docs function.
#[derive(Debug, Clone)]
pub struct DocsConfig {
    /// Memory budget of the parsed documents kept for the pages, in bytes (estimated).
    pub cache_bytes: u64,
    /// Memory budget of the search indexes, in bytes.
    pub search_cache_bytes: u64,
}

impl Default for DocsConfig {
    fn default() -> Self {
        DocsConfig {
            cache_bytes: DEFAULT_CACHE_BYTES,
            search_cache_bytes: search::DEFAULT_SEARCH_CACHE_BYTES,
        }
    }
}

impl DocsConfig {
    /// The settings of `config` (`SPECPRESS_PAGE_CACHE_BYTES`, `SPECPRESS_SEARCH_CACHE_BYTES`; a malformed value was
    /// ignored with a warning when the configuration was read).
    pub fn from_config(config: &specpress_api::Config) -> Self {
        DocsConfig {
            cache_bytes: config.docs.page_cache_bytes,
            search_cache_bytes: config.docs.search_cache_bytes,
        }
    }
}

/// What the docs handlers share.
#[derive(Clone)]
pub struct DocsState {
    pub(crate) app: AppState,
    pub(crate) cache: Arc<SiteCache>,
    pub(crate) assets: Arc<specpress_render::AssetUrls>,
    pub(crate) diffs: Arc<changes::DiffCache>,
    pub(crate) search: Arc<search::SearchCache>,
}

impl DocsState {
    /// The parsed-document cache (its usage, for benchmarks and tests).
    pub fn cache(&self) -> &SiteCache {
        &self.cache
    }
}

/// Every public route, with the settings of the state's configuration.
pub fn router(state: AppState) -> Router {
    let config = DocsConfig::from_config(&state.settings);
    router_with(state, config)
}

/// Every public route, with explicit settings.
pub fn router_with(app: AppState, config: DocsConfig) -> Router {
    router_for(DocsState {
        app,
        cache: Arc::new(SiteCache::new(config.cache_bytes)),
        assets: Arc::new(specpress_render::asset_urls(headers::STATIC_PREFIX)),
        diffs: Arc::new(changes::DiffCache::new(changes::DEFAULT_DIFF_CACHE_BYTES)),
        search: Arc::new(search::SearchCache::new(config.search_cache_bytes)),
    })
}

/// The routes over a given state.
pub fn router_for(state: DocsState) -> Router {
    Router::new()
        .route("/doc/{doc}", get(pages::doc_root))
        .route("/doc/{doc}/{*rest}", get(pages::doc_path))
        .route("/doc/{doc}/changes", get(changes::changelog))
        .route("/doc/{doc}/changes.atom", get(changes::changelog))
        .route("/doc/{doc}/changes.rss", get(changes::changelog))
        .route("/doc/{doc}/changes/{version}", get(changes::change))
        .route("/doc/{doc}/compare", get(changes::compare))
        .route(
            "/doc/{doc}/branches/{branch}/changes",
            get(changes::branch_changelog),
        )
        .route(
            "/doc/{doc}/branches/{branch}/changes.atom",
            get(changes::branch_changelog),
        )
        .route(
            "/doc/{doc}/branches/{branch}/changes.rss",
            get(changes::branch_changelog),
        )
        .route("/diff/{id}", get(changes::diff))
        .route("/hub/{hub}", get(hub::hub))
        .route("/hub/{hub}/changes.atom", get(hub::hub_changes_feed))
        .route("/hub/{hub}/changes.rss", get(hub::hub_changes_feed))
        .route("/doc/{doc}/search", get(search::doc_search))
        .route(
            "/doc/{doc}/branches/{branch}/search",
            get(search::branch_search),
        )
        .route("/hub/{hub}/search", get(search::hub_search))
        .route("/doc/{doc}/search.json", get(search::doc_search))
        .route(
            "/doc/{doc}/branches/{branch}/search.json",
            get(search::branch_search),
        )
        .route("/hub/{hub}/search.json", get(search::hub_search))
        .route("/doc/{doc}/llms.txt", get(machine::doc_llms))
        .route("/doc/{doc}/sitemap.xml", get(machine::doc_sitemap))
        .route("/hub/{hub}/llms.txt", get(machine::hub_llms))
        .route("/hub/{hub}/sitemap.xml", get(machine::hub_sitemap))
        .route("/preview/{id}", get(pages::preview_root))
        .route("/preview/{id}/{*rest}", get(pages::preview_path))
        .route("/static/{file}", get(headers::asset))
        .route(
            access::SIGN_IN_PATH,
            get(access::sign_in_form).post(access::sign_in),
        )
        .route(access::SIGN_OUT_PATH, post(access::sign_out))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            access::readers,
        ))
        .layer(axum::middleware::from_fn(headers::public_headers))
        .layer(
            tower_http::compression::CompressionLayer::new()
                .quality(tower_http::CompressionLevel::Precise(5)),
        )
        .with_state(state)
}

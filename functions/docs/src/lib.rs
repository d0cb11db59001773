//! The docs function: what readers and tools open at the public URLs the API hands out.
//!
//! - `GET /doc/{doc}` and `GET /doc/{doc}/{page}`: the documentation's rendered pages on its default branch;
//!   `GET /doc/{doc}/branches/{branch}[/{page}]` on another branch. `{doc}` is the slug, or the id (answered with a
//!   redirect to the slug form). `{page}` is a path of the rendering engine's scheme (`operation/...`,
//!   `schema/...`, docs/rendering.md). `GET /doc/{doc}.json` / `.yaml`: the current definition.
//! - `GET /doc/{doc}/changes[.atom|.rss]` (and per branch, `/doc/{doc}/branches/{branch}/changes...`): the
//!   changelog, paginated, and its feeds; `GET /doc/{doc}/changes/{version}[.json]` (and the contract's `/change/`
//!   form, redirected): one release's changes; `GET /doc/{doc}/compare?from=&to=`: any two versions ([`changes`]).
//! - `GET /doc/{doc}/history/{page}` (and per branch, `/doc/{doc}/branches/{branch}/history/{page}`, `?page=N`): the
//!   history of an operation, webhook, schema or channel page, fifty releases a page ([`history`]).
//! - `GET /diff/{id}`: a public diff, rendered like a change page.
//! - `GET /hub/{hub}` and `/hub/{hub}/changes.atom|.rss`: a hub's APIs and combined changelog ([`hub`]).
//! - `GET /doc/{doc}/versions/{version}/source`: a version's definition exactly as deployed.
//! - `GET /doc/{doc}/search?q=`, `GET /doc/{doc}/branches/{branch}/search?q=`, `GET /hub/{hub}/search?q=`: search
//!   results pages ([`search`]); each with a `.json` twin (`/doc/{doc}/search.json?q=`...), the same results as
//!   JSON, which the search fields use to suggest results as one types.
//! - `{page URL}.md`: every reference page as Markdown ([`reference`] presents both forms of a page).
//! - For machines ([`machine`]): `GET /doc/{doc}/llms.txt`,
//!   `GET /doc/{doc}/sitemap.xml`, `GET /hub/{hub}/llms.txt`, `GET /hub/{hub}/sitemap.xml` (a sitemap index).
//! - For agents ([`mcp`]): MCP servers (Streamable HTTP, stateless) at `/doc/{doc}/mcp`,
//!   `/doc/{doc}/branches/{branch}/mcp` and `/hub/{hub}/mcp`.
//! - "Try it" ([`try_it`]): `POST /doc/{doc}/try` and `/doc/{doc}/branches/{branch}/try`, the proxy of a documentation
//!   whose owner set `try_it: proxy` (docs/try-it.md).
//! - `GET /preview/{id}[/{page}]`: a live preview, rendered like a documentation.
//! - `GET /static/{file}`: the stylesheet and script of the pages (content-hashed names, cached for a year).
//! - `GET`/`POST /sign-in`, `POST /sign-out`: private documentation's sign-in ([`access`]). Every route sees its
//!   reader through [`access::readers`]: a private documentation or hub answers a reader who may not see it
//!   exactly as an unknown one does (404).
//!
//! This crate is presenters and wiring. Which documentation, branch and version a URL names, whether its reader may
//! see it, the parsed site, search and diffs are the reader layer's (`specpress_reader::Library`), shared with every
//! other output; how an answer is shaped (error pages, validators, redirects, the page chrome) is [`respond`]'s.
//! Every request reads which documentation, branch and head it is about, so a deploy or a promotion shows at once;
//! what is cached is only what a content-addressed definition yields, which never changes. Answers carry an `ETag`
//! (304 on a match), a strict Content-Security-Policy and the other headers of [`headers`], and are compressed.
//!
//! [`router`] is mounted by the Lambda binary and by `specpress serve`.

pub mod access;
mod changes;
mod headers;
mod history;
mod hub;
mod machine;
pub mod mcp;
mod pages;
mod reference;
mod request;
mod respond;
mod search;
mod try_it;

use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use specpress_api::AppState;
use specpress_reader::{Budgets, Library};

/// What the docs handlers share.
#[derive(Clone)]
pub struct DocsState {
    pub(crate) app: AppState,
    /// The reader layer: every lookup, parsed site, search index and diff the pages present.
    pub(crate) library: Arc<Library>,
    pub(crate) assets: Arc<specpress_render::AssetUrls>,
    /// The MCP servers' Streamable HTTP service ([`mcp`]), built once.
    pub(crate) mcp: Arc<mcp::McpService>,
    /// The per-client limit of MCP requests (`None`: disabled).
    pub(crate) mcp_limit: Option<Arc<specpress_api::limit::RateLimiter>>,
    /// The per-client limit of "Try it" proxy requests (`None`: disabled).
    pub(crate) try_limit: Option<Arc<specpress_api::limit::RateLimiter>>,
    /// The client of the "Try it" proxy (`None`: it could not be built, logged; the proxy then answers 503).
    pub(crate) try_client: Option<specpress_fetch::SafeClient>,
}

impl DocsState {
    /// The reader layer (its caches' usage, for benchmarks and tests).
    pub fn library(&self) -> &Library {
        &self.library
    }
}

/// Every public route, with the cache budgets of the state's configuration (`SPECPRESS_PAGE_CACHE_BYTES`,
/// `SPECPRESS_SEARCH_CACHE_BYTES`).
pub fn router(app: AppState) -> Router {
    let budgets = Budgets::from_config(&app.settings);
    router_for(DocsState {
        library: Arc::new(Library::new(app.store.clone(), budgets)),
        mcp: Arc::new(mcp::service()),
        mcp_limit: specpress_api::limit::RateLimiter::new(
            app.settings.docs.mcp_rate_per_minute,
            app.settings.docs.mcp_burst,
        ),
        try_limit: specpress_api::limit::RateLimiter::new(
            app.settings.docs.try_rate_per_minute,
            app.settings.docs.try_burst,
        ),
        try_client: try_client(&app),
        app,
        assets: Arc::new(specpress_render::asset_urls(headers::STATIC_PREFIX)),
    })
}

/// The client of the "Try it" proxy: public addresses only (loopback too when `SPECPRESS_ALLOW_LOOPBACK_URLS=true`,
/// never inside Lambda), 10 s per request, answers cut at [`try_it::MAX_ANSWER_BYTES`].
fn try_client(app: &AppState) -> Option<specpress_fetch::SafeClient> {
    let policy = specpress_fetch::FetchPolicy {
        allow_loopback: app.settings.webhooks.allow_loopback_urls,
        max_body_bytes: try_it::MAX_ANSWER_BYTES,
        ..specpress_fetch::FetchPolicy::default()
    };
    match specpress_fetch::SafeClient::new(policy) {
        Ok(c) => Some(c),
        Err(e) => {
            tracing::error!(error = %e.detail(), "the Try it client could not be built; the proxy answers 503");
            None
        }
    }
}

/// The routes over a given state.
pub fn router_for(state: DocsState) -> Router {
    Router::new()
        .route("/doc/{doc}", get(pages::doc_root))
        .route("/doc/{doc}/", get(pages::doc_root_slash))
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
        .route("/doc/{doc}/history/{*page}", get(history::doc_history))
        .route(
            "/doc/{doc}/branches/{branch}/history/{*page}",
            get(history::branch_history),
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
        .route("/doc/{doc}/mcp", post(mcp::doc))
        .route("/doc/{doc}/branches/{branch}/mcp", post(mcp::branch))
        .route("/hub/{hub}/mcp", post(mcp::hub))
        .route("/doc/{doc}/try", post(try_it::doc))
        .route("/doc/{doc}/branches/{branch}/try", post(try_it::branch))
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
        .layer(specpress_api::compression::response_compression())
        .with_state(state)
}

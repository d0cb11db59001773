//! The public site: what readers open at the public URLs the API hands out. Each module owns its routes.
//!
//! - `pages`: `GET /doc/{doc}` and `GET /doc/{doc}/{page}`, the documentation's rendered pages on its default
//!   branch; `GET /doc/{doc}/branches/{branch}[/{page}]` on another branch. `{doc}` is the slug, or the id (answered
//!   with a redirect to the slug form). `{page}` is a path of the rendering engine's scheme (`operation/...`,
//!   `schema/...`, docs/rendering.md). `{page URL}.md`: every reference page as Markdown (`reference` presents
//!   both forms of a page). `GET /doc/{doc}.json` / `.yaml`: the current definition;
//!   `GET /doc/{doc}/versions/{version}/source`: a version's definition exactly as deployed. `GET
//!   /preview/{id}[/{page}]`: a live preview, rendered like a documentation.
//! - `releases`: `GET /doc/{doc}/v/{version}[/{page}]` and `GET /doc/{doc}/branches/{branch}/v/{version}[/{page}]`:
//!   every page of one published release as it was (HTML, `.md`, its definition, its search), with a banner
//!   naming it and linking the latest release and the compare page; canonical to the latest, never indexed.
//! - `changes`: `GET /doc/{doc}/changes[.atom|.rss]` (and per branch, `/doc/{doc}/branches/{branch}/changes...`):
//!   the changelog, paginated, and its feeds; `GET /doc/{doc}/changes/{version}[.json]` (and the contract's
//!   `/change/` form, redirected): one release's changes; `GET /doc/{doc}/compare?from=&to=`: any two versions,
//!   and its `.json` twin (the counts and the pages changed, added or removed: what "since your last visit" reads);
//!   `GET /diff/{id}`: a public diff, rendered like a change page.
//! - `history`: `GET /doc/{doc}/history/{page}` (and per branch, `?page=N`): the history of an operation,
//!   webhook, schema or channel page, fifty releases a page.
//! - `hub`: `GET /hub/{hub}` and `/hub/{hub}/changes.atom|.rss`: a hub's APIs and combined changelog.
//! - `search`: `GET /doc/{doc}/search?q=`, `GET /doc/{doc}/branches/{branch}/search?q=`, `GET
//!   /hub/{hub}/search?q=`: results pages, each with a `.json` twin the search fields use to suggest results.
//! - `machine`: `GET /doc/{doc}/llms.txt`, `GET /doc/{doc}/sitemap.xml`, `GET /hub/{hub}/llms.txt`, `GET
//!   /hub/{hub}/sitemap.xml` (a sitemap index).
//! - `access`: `GET`/`POST /sign-in`, `POST /sign-out`: private documentation's sign-in; `oidc`: `GET
//!   /sign-in/oidc` and its callback, the sign-in through the organization's identity provider (which one a page
//!   offers and the pending sign-in's cookie: `provider`).
//! - `follow`: `POST /doc/{doc}/follow` and `/hub/{hub}/follow` (the "Follow changes" form of every documentation,
//!   hub and operation page), the confirmation, manage and one-click unsubscribe pages of readers following by email
//!   (issue 38).
//! - `embed`: any page with `?embed=1`: embed mode (no header nor sidebar, links keep it, framed only by the
//!   documentation's or hub's `embed_origins`).
//! - `assets`: `GET /static/{file}`, the stylesheet and script of the pages (content-hashed names, cached for a
//!   year), the site's shell and its error pages.
//!
//! Every route but the static assets sees its reader through `specpress_api::readers` (a private documentation or
//! hub answers a reader who may not see it exactly as an unknown one does: 404) and its request's information
//! (`request`: the path asked for, whether the reader is signed in). Which documentation, branch and version a
//! URL names, whether its reader may see it, the parsed site, search and diffs are the reader layer's
//! (`specpress_reader::Library`), shared with the MCP servers; how an answer is shaped (validators, redirects) is
//! `respond`'s, the page chrome `chrome`'s, and a page that cannot be shown is a [`PageError`]. Every request
//! reads which documentation, branch and head it is about, so a deploy or a promotion shows at once; what is cached
//! is only what a content-addressed definition yields, which never changes. Answers carry an `ETag` (304 on a
//! match), a strict Content-Security-Policy (`assets::CSP`, `csp`) and the other security headers, and are
//! compressed.
//!
//! [`router`] is mounted by the docs Lambda and by `specpress serve` ([`router_with`], sharing one `Library` with
//! the MCP servers and "Try it").

mod access;
mod assets;
mod changes;
mod chrome;
mod csp;
mod embed;
mod error;
mod follow;
mod history;
mod hub;
mod machine;
mod oidc;
mod pages;
mod provider;
mod reference;
mod releases;
mod request;
mod respond;
mod search;

use std::sync::Arc;

use axum::Router;
use axum::extract::FromRef;
use axum::routing::get;
use specpress_api::readers::{Credentials, Readers};
use specpress_api::{ApiConfig, AppState};
use specpress_reader::Library;

pub use access::Access;
pub use error::{Page, PageError};

/// What the site's routes share; each handler takes only the part it uses ([`FromRef`]).
#[derive(Clone)]
pub struct SiteState {
    /// The reader layer: every lookup, parsed site, search index and diff the pages present.
    pub library: Arc<Library>,
    /// The HTTP settings (the public origin of absolute URLs).
    pub config: Arc<ApiConfig>,
    /// What the sign-in pages use.
    pub access: Access,
    /// What the follow routes use (issue 38).
    pub follow: follow::Follow,
}

impl FromRef<SiteState> for follow::Follow {
    fn from_ref(st: &SiteState) -> Self {
        st.follow.clone()
    }
}

impl FromRef<SiteState> for Arc<Library> {
    fn from_ref(st: &SiteState) -> Self {
        st.library.clone()
    }
}

impl FromRef<SiteState> for Arc<ApiConfig> {
    fn from_ref(st: &SiteState) -> Self {
        st.config.clone()
    }
}

impl FromRef<SiteState> for Access {
    fn from_ref(st: &SiteState) -> Self {
        st.access.clone()
    }
}

/// Every route of the site, over a library of its own with the cache budgets of `app`'s configuration
/// (`SPECPRESS_PAGE_CACHE_BYTES`, `SPECPRESS_SEARCH_CACHE_BYTES`).
pub fn router(app: AppState) -> Router {
    let library = Arc::new(Library::from_config(app.store.clone(), &app.settings));
    router_with(app, library)
}

/// The relying party of sign-ins through organizations' identity providers (one per process: it caches their
/// discovery documents and keys), with the state's sealer; `None`, loudly, without a secret key.
fn identity_provider(
    app: &AppState,
) -> Option<(
    Arc<dyn specpress_domain::ports::IdentityProvider>,
    specpress_domain::webhooks::SecretSealer,
)> {
    let Some(sealer) = app.sealer.clone() else {
        tracing::warn!("no secret key: sign-in through identity providers is not offered");
        return None;
    };
    match specpress_oidc::OidcClient::new(app.settings.webhooks.allow_loopback_urls) {
        Ok(client) => Some((Arc::new(client), sealer)),
        Err(e) => {
            tracing::error!(error = %e, "sign-in through identity providers is unavailable");
            None
        }
    }
}

/// Every route of the site over `library` (`specpress serve` shares one with the MCP servers and "Try it").
pub fn router_with(app: AppState, library: Arc<Library>) -> Router {
    let state = SiteState {
        library,
        config: app.config.clone(),
        access: Access {
            store: app.store.clone(),
            config: app.config.clone(),
            credentials: Credentials::of(&app),
            identity: identity_provider(&app),
        },
        follow: follow::Follow {
            store: app.store.clone(),
            sealer: app.sealer.clone(),
            mailer: app.mailer.clone(),
            limiter: specpress_api::limit::RateLimiter::new(follow::FOLLOWS_PER_MINUTE, 3),
        },
    };
    let readers = Readers::of(&app, Arc::new(access::too_many_attempts));
    Router::new()
        .merge(pages::routes())
        .merge(releases::routes())
        .merge(changes::routes())
        .merge(history::routes())
        .merge(hub::routes())
        .merge(search::routes())
        .merge(machine::routes())
        .merge(access::routes())
        .merge(oidc::routes())
        .merge(follow::routes())
        .layer(axum::middleware::from_fn(request::scope))
        .layer(axum::middleware::from_fn_with_state(
            readers,
            specpress_api::readers::readers,
        ))
        .layer(axum::middleware::from_fn_with_state(
            app.store.clone(),
            embed::embed,
        ))
        // The static assets are the same for every reader: no reader is resolved for them.
        .route(
            &format!("{}/{{file}}", assets::STATIC_PREFIX),
            get(assets::asset),
        )
        .layer(axum::middleware::from_fn(
            specpress_api::readers::public_headers,
        ))
        .layer(specpress_api::compression::response_compression())
        .with_state(state)
}

//! MCP servers over the published documentation, for AI agents (docs/mcp.md).
//!
//! - `POST /doc/{doc}/mcp`: the documentation on its default branch; `POST /doc/{doc}/branches/{branch}/mcp`: on
//!   another branch; `POST /hub/{hub}/mcp`: every documentation of a hub.
//!
//! Each is a Streamable HTTP endpoint of the official SDK on the MCP kit (`specpress_mcp`: stateless, JSON
//! answers, the request's scope, per-client limits, JSON refusals). The tools ([`tools`]) are presenters over the
//! reader layer, like the pages: `list_pages`, `search`, `get_pages`, `list_changes`, `get_change`,
//! `operation_history`, `compare`, `get_definition`.
//!
//! Before the SDK sees a request, this crate resolves what the URL names for its reader (the readers middleware,
//! `specpress_api::readers`, already read the token or session): a documentation or hub the reader may not see is
//! the same 404 as an unknown one, with the same work done, and no MCP exchange happens. What was resolved travels
//! to the tools in the request's extensions ([`Scope`]). Requests are limited per client
//! (`SPECPRESS_MCP_RATE_PER_MINUTE`, `SPECPRESS_MCP_BURST`): over the limit, 429 with `Retry-After`, as JSON, like
//! every refusal of these routes (a client whose failed credential checks are spent included).

mod answer;
mod breaking;
mod read;
pub mod tools;
pub mod wire;

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use specpress_api::readers::{Readers, Viewer};
use specpress_api::{ApiConfig, ApiError, AppState};
use specpress_domain::DomainError;
use specpress_domain::model::Hub;
use specpress_domain::usecases::public::Reader;
use specpress_mcp::{Limit, Service};
use specpress_reader::search::MAX_HUB_DOCS;
use specpress_reader::{DocView, Library, ReadError};
use tracing::instrument;

pub use tools::Tools;

/// Largest JSON-RPC request body accepted.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// What the MCP routes share.
#[derive(Clone)]
pub struct DocsMcp {
    /// The reader layer the tools present.
    library: Arc<Library>,
    /// The HTTP settings (the public origin of the URLs the tools hand out).
    config: Arc<ApiConfig>,
    /// The SDK's service, built once.
    mcp: Arc<Service<Tools>>,
    limit: Limit,
}

/// What an MCP request is about, resolved before the SDK sees it.
#[derive(Clone)]
pub struct Scope {
    pub(crate) library: Arc<Library>,
    /// The public origin URLs are written on (`https://docs.example.com`).
    pub(crate) origin: String,
    pub(crate) target: Target,
}

/// A documentation on one branch, or a hub and its documentations.
#[derive(Clone)]
pub enum Target {
    Doc(Box<DocView>),
    Hub { hub: Box<Hub>, views: Vec<DocView> },
}

/// The three MCP routes over a library of their own with the cache budgets of `app`'s configuration.
pub fn router(app: AppState) -> Router {
    let library = Arc::new(Library::from_config(app.store.clone(), &app.settings));
    router_with(app, library)
}

/// The three MCP routes over `library` (`specpress serve` shares one with the pages and "Try it").
pub fn router_with(app: AppState, library: Arc<Library>) -> Router {
    let state = DocsMcp {
        library,
        config: app.config.clone(),
        mcp: Arc::new(specpress_mcp::service(Tools::new(), MAX_REQUEST_BYTES)),
        limit: Limit::new(
            app.settings.docs.mcp_rate_per_minute,
            app.settings.docs.mcp_burst,
        ),
    };
    Router::new()
        .route("/doc/{doc}/mcp", post(doc))
        .route("/doc/{doc}/branches/{branch}/mcp", post(branch))
        .route("/hub/{hub}/mcp", post(hub))
        .layer(axum::middleware::from_fn_with_state(
            Readers::json(&app),
            specpress_api::readers::readers,
        ))
        .layer(axum::middleware::from_fn(
            specpress_api::readers::public_headers,
        ))
        .layer(specpress_api::compression::response_compression())
        .with_state(state)
}

/// A read that gave no answer, as JSON (`{message}`, the API's error shape): an unknown documentation is the
/// same 404 as one the reader may not see.
fn refused(e: ReadError) -> Response {
    ApiError::from(DomainError::from(e)).into_response()
}

impl DocsMcp {
    /// Hands a request to the SDK with what it is about.
    async fn serve(&self, target: Target, req: Request) -> Response {
        let scope = Scope {
            library: self.library.clone(),
            origin: specpress_api::urls::public_base(&self.config, req.headers()),
            target,
        };
        specpress_mcp::serve(&self.mcp, scope, req).await
    }
}

/// `/doc/{doc}/mcp`.
#[instrument(skip_all)]
pub async fn doc(
    State(st): State<DocsMcp>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    req: Request,
) -> Response {
    doc_endpoint(st, reader, &key, None, req).await
}

/// `/doc/{doc}/branches/{branch}/mcp`.
#[instrument(skip_all)]
pub async fn branch(
    State(st): State<DocsMcp>,
    Viewer(reader): Viewer,
    Path((key, branch)): Path<(String, String)>,
    req: Request,
) -> Response {
    doc_endpoint(st, reader, &key, Some(&branch), req).await
}

async fn doc_endpoint(
    st: DocsMcp,
    reader: Reader,
    key: &str,
    branch: Option<&str>,
    req: Request,
) -> Response {
    if let Err(refused) = st.limit.check(&req) {
        return refused;
    }
    match st.library.doc_view(&reader, key, branch).await {
        Ok(view) => st.serve(Target::Doc(Box::new(view)), req).await,
        Err(e) => refused(e),
    }
}

/// `/hub/{hub}/mcp`.
#[instrument(skip_all)]
pub async fn hub(
    State(st): State<DocsMcp>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    req: Request,
) -> Response {
    if let Err(refused) = st.limit.check(&req) {
        return refused;
    }
    let resolved = async {
        let hub = st.library.find_hub(&reader, &key).await?;
        let views = st.library.hub_views(&reader, &hub, MAX_HUB_DOCS).await?;
        Ok::<_, ReadError>((hub, views))
    };
    match resolved.await {
        Ok((hub, views)) => {
            let target = Target::Hub {
                hub: Box::new(hub),
                views,
            };
            st.serve(target, req).await
        }
        Err(e) => refused(e),
    }
}

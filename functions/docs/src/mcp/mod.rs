//! MCP servers over the published documentation, for AI agents (docs/mcp.md).
//!
//! - `POST /doc/{doc}/mcp`: the documentation on its default branch; `POST /doc/{doc}/branches/{branch}/mcp`: on
//!   another branch; `POST /hub/{hub}/mcp`: every documentation of a hub.
//!
//! Each is a Streamable HTTP endpoint of the official SDK (`rmcp`), stateless: every request stands alone (no
//! session id, no server-sent stream kept open, answers as `application/json`), so it runs unchanged on Lambda
//! behind API Gateway, on any instance. The tools ([`tools`]) are presenters over the reader layer, like the pages:
//! `list_pages`, `search`, `get_pages`, `list_changes`, `get_change`, `operation_history`, `compare`,
//! `get_definition`.
//!
//! Before the SDK sees a request, this module resolves what the URL names for its reader (the public middleware
//! already read the token or session): a documentation or hub the reader may not see is the same 404 as an unknown
//! one, with the same work done, and no MCP exchange happens. What was resolved travels to the tools in the
//! request's extensions ([`Scope`]). Requests are limited per client (`SPECPRESS_MCP_RATE_PER_MINUTE`,
//! `SPECPRESS_MCP_BURST`): over the limit, 429 with `Retry-After`.

mod answer;
mod read;
mod tools;
mod wire;

use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use specpress_domain::model::Hub;
use specpress_domain::usecases::public::Reader;
use specpress_reader::{BranchInUrl, DocView, ReadError, branch_in_url};
use tower::ServiceExt;
use tracing::instrument;

use crate::DocsState;
use crate::access::Viewer;
use crate::respond::{json_error, origin_of};

pub use tools::Tools;

/// Documentations of a hub an MCP server covers (the hub search's bound).
pub const MAX_HUB_DOCS: usize = crate::search::MAX_HUB_DOCS;
/// Largest JSON-RPC request body accepted.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// The SDK's service, built once per process.
pub type McpService = StreamableHttpService<Tools, NeverSessionManager>;

/// The Streamable HTTP service of every MCP endpoint: stateless, JSON answers, no keep-alive stream. The `Host`
/// check the SDK offers against DNS rebinding is off: the endpoints are public documentation behind the same
/// access rules as its pages, served under whatever host the deployment has (`SPECPRESS_PUBLIC_URL` or API
/// Gateway's), and a page of another origin cannot read a cross-origin answer (no CORS headers are sent).
pub fn service() -> McpService {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_sse_retry(None)
        .with_max_request_body_bytes(MAX_REQUEST_BYTES)
        .disable_allowed_hosts();
    let tools = Tools::new();
    StreamableHttpService::new(
        move || Ok(tools.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

/// What an MCP request is about, resolved before the SDK sees it.
#[derive(Clone)]
pub struct Scope {
    pub(crate) st: DocsState,
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

/// Resolves a documentation's view for `reader`, or the 404 due.
pub(crate) async fn doc_view(
    st: &DocsState,
    reader: &Reader,
    key: &str,
    branch: Option<&str>,
) -> Result<DocView, ReadError> {
    let doc = st.library.find_doc(reader, key).await?;
    let branch = match branch {
        None => None,
        Some(segment) => match branch_in_url(&doc, segment)? {
            BranchInUrl::Default => None,
            BranchInUrl::Named(slug) => Some(slug),
        },
    };
    st.library.open(doc, branch).await
}

/// The answer to a client over its limit, checked before any lookup (a refused request costs no storage read).
fn over_limit(st: &DocsState, req: &Request) -> Option<Response> {
    let limiter = st.mcp_limit.as_ref()?;
    let client = specpress_api::limit::client_of(req.extensions());
    let retry = limiter.check(&client).err()?;
    let mut resp = (
        StatusCode::TOO_MANY_REQUESTS,
        axum::Json(serde_json::json!({
            "message": "Too many requests to this MCP server; retry after the time in Retry-After."
        })),
    )
        .into_response();
    specpress_api::limit::set_retry_after(&mut resp, retry);
    Some(resp)
}

/// Hands a request to the SDK with its scope.
async fn serve(st: DocsState, scope: Scope, mut req: Request) -> Response {
    req.extensions_mut().insert(scope);
    match st.mcp.as_ref().clone().oneshot(req).await {
        Ok(resp) => resp.map(axum::body::Body::new),
        Err(never) => match never {},
    }
}

/// `/doc/{doc}/mcp`.
#[instrument(skip_all)]
pub async fn doc(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    req: Request,
) -> Response {
    doc_endpoint(st, reader, &key, None, req).await
}

/// `/doc/{doc}/branches/{branch}/mcp`.
#[instrument(skip_all)]
pub async fn branch(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    Path((key, branch)): Path<(String, String)>,
    req: Request,
) -> Response {
    doc_endpoint(st, reader, &key, Some(&branch), req).await
}

async fn doc_endpoint(
    st: DocsState,
    reader: Reader,
    key: &str,
    branch: Option<&str>,
    req: Request,
) -> Response {
    if let Some(refused) = over_limit(&st, &req) {
        return refused;
    }
    let view = match doc_view(&st, &reader, key, branch).await {
        Ok(v) => v,
        Err(e) => return json_error(e),
    };
    let (parts, body) = req.into_parts();
    let scope = Scope {
        origin: origin_of(&st, &parts),
        st: st.clone(),
        target: Target::Doc(Box::new(view)),
    };
    serve(st, scope, Request::from_parts(parts, body)).await
}

/// `/hub/{hub}/mcp`.
#[instrument(skip_all)]
pub async fn hub(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    req: Request,
) -> Response {
    if let Some(refused) = over_limit(&st, &req) {
        return refused;
    }
    let resolved = async {
        let hub = st.library.find_hub(&reader, &key).await?;
        let views = st.library.hub_views(&reader, &hub, MAX_HUB_DOCS).await?;
        Ok::<_, ReadError>((hub, views))
    };
    let (hub, views) = match resolved.await {
        Ok(r) => r,
        Err(e) => return json_error(e),
    };
    let (parts, body) = req.into_parts();
    let scope = Scope {
        origin: origin_of(&st, &parts),
        st: st.clone(),
        target: Target::Hub {
            hub: Box::new(hub),
            views,
        },
    };
    serve(st, scope, Request::from_parts(parts, body)).await
}

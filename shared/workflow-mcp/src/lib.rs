//! The workflow MCP servers (docs/workflows.md): `POST /mcp/{slug}` is the Streamable HTTP MCP endpoint of an MCP
//! server whose workflow document was deployed with `bump deploy FILE --mcp-server <slug>`; `GET /mcp/{slug}` is its
//! public page (tools, inputs, outputs, the client configuration).
//!
//! - **Stateless**: the official SDK (`rmcp`) with no session, answers as `application/json`, no stream kept open,
//!   so it runs unchanged on Lambda behind API Gateway.
//! - **Credentials**: the organization's token or the server's own (`Authorization: Bearer`/`Token`). Without one,
//!   or with a wrong one, or for a server that does not exist: the same 401 (nothing tells a guesser which servers
//!   exist). Failed checks spend the client's budget of failed credential checks (`SPECPRESS_AUTH_FAILURE_*`).
//! - **Limits**: requests per client (`SPECPRESS_MCP_RATE_PER_MINUTE`, `SPECPRESS_MCP_BURST`, shared with the
//!   documentation MCP servers' settings), checked before any lookup; a run is bounded in steps, time, response
//!   and output sizes ([`specpress_workflow::Budget`]); every request of a run goes through `shared/fetch`.
//! - The stateless service, the request's scope, the limit, the JSON refusals and the tools' standard schemas are
//!   the MCP kit's (`specpress_mcp`), shared with the documentation's MCP servers.

mod endpoint;
mod open;
mod page;
mod secrets;
mod tools;
mod transport;

use std::sync::Arc;

use axum::Router;
use axum::routing::post;
use specpress_api::AppState;
use specpress_domain::webhooks::SecretSealer;
use specpress_fetch::{FetchPolicy, SafeClient};
use specpress_mcp::{Limit, Service};
use specpress_workflow::Budget;

pub use tools::{WorkflowTools, tool_of};

/// Largest JSON-RPC request body accepted.
pub const MAX_REQUEST_BYTES: usize = 256 * 1024;

/// What the handlers share.
#[derive(Clone)]
pub struct WorkflowState {
    pub(crate) app: AppState,
    /// The SDK's service, built once.
    pub(crate) mcp: Arc<Service<WorkflowTools>>,
    /// The per-client limit of MCP requests.
    pub(crate) limit: Limit,
    /// The hardened client every run sends through.
    pub(crate) client: SafeClient,
    pub(crate) budget: Budget,
    pub(crate) assets: Arc<specpress_render::AssetUrls>,
    /// Opens the servers' sealed secrets (the key of webhook secrets, `SPECPRESS_WEBHOOK_SECRET_KEY`).
    pub(crate) sealer: SecretSealer,
}

/// The policy of a run's requests: public addresses (loopback only when `SPECPRESS_ALLOW_LOOPBACK_URLS=true`,
/// never inside Lambda), 10 s per request, the budget's response cap, three redirects within the document's
/// origins.
fn fetch_policy(app: &AppState, budget: &Budget) -> FetchPolicy {
    FetchPolicy {
        allow_loopback: app.settings.webhooks.allow_loopback_urls,
        max_body_bytes: budget.max_response_bytes as u64,
        ..FetchPolicy::default()
    }
}

/// The routes, with the clients built once; `sealer` opens the servers' secrets.
pub fn router(app: AppState, sealer: SecretSealer) -> Result<Router, specpress_fetch::FetchError> {
    let budget = Budget::default();
    let client = SafeClient::new(fetch_policy(&app, &budget))?;
    Ok(router_for(WorkflowState {
        limit: Limit::new(
            app.settings.docs.mcp_rate_per_minute,
            app.settings.docs.mcp_burst,
        ),
        mcp: Arc::new(specpress_mcp::service(WorkflowTools, MAX_REQUEST_BYTES)),
        client,
        budget,
        assets: Arc::new(specpress_render::asset_urls(STATIC_PREFIX)),
        sealer,
        app,
    }))
}

/// Where the site's static assets are served (by the docs function).
const STATIC_PREFIX: &str = "/static";

/// The routes over a given state (the caller adds the common layers: the Lambda helper, or `specpress serve`).
pub fn router_for(state: WorkflowState) -> Router {
    Router::new()
        .route("/mcp/{server}", post(endpoint::mcp).get(page::page))
        .with_state(state)
}

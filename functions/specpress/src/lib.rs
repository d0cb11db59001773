//! The `specpress` binary's library: the local server and operator commands.
//!
//! - [`app`] merges every HTTP function's router into one axum app (add a function's router there).
//! - [`serve`] runs it on 127.0.0.1 over the embedded DynamoDB engine persisted in a data directory, or over real
//!   AWS / moto when `SPECPRESS_TABLE` is set (standard AWS environment: `AWS_ENDPOINT_URL`, `AWS_REGION`, ...).
//! - [`self_doc`] publishes Specpress's own API reference as the documentation `specpress-api` at start.
//! - [`cli`] parses `specpress serve | admin mint-org-token | diff`.

pub mod backend;
pub mod cli;
pub mod self_doc;
pub mod serve;
pub mod webhooks_local;

use std::sync::Arc;

use axum::Router;
use specpress_api::{AppState, with_common_layers};
use specpress_reader::Library;

/// Every HTTP route of every function, as one app: this is what `specpress serve` runs. A new function adds its
/// `router(state.clone())` to the merge list. The public site, the documentation's MCP servers and "Try it" share
/// one reader layer (its caches), as they did when one function served them all.
pub fn app(state: AppState) -> Router {
    let library = Arc::new(Library::from_config(state.store.clone(), &state.settings));
    let routers = [
        deploy::router(state.clone()),
        diffs::router(state.clone()),
        branches::router(state.clone()),
        hubs::router(state.clone()),
        specpress_site::router_with(state.clone(), library.clone()),
        specpress_docs_mcp::router_with(state.clone(), library.clone()),
        specpress_try_it::router_with(state.clone(), library),
    ];
    let merged = routers.into_iter().fold(Router::new(), Router::merge);
    with_common_layers(merged.fallback(specpress_api::error::not_found_route))
}

/// [`app`] plus the webhook subscriptions routes (what `specpress serve` runs): deploys hand their committed events
/// to the webhook machinery `webhooks` runs (its publisher). The MCP servers routes seal their secrets with the same
/// key as webhook secrets, and the workflow MCP endpoints open them with it.
pub fn app_with_webhooks(
    state: AppState,
    webhooks: specpress_domain::usecases::delivery::DeliveryService,
) -> Router {
    let state = state.with_publisher(webhooks.publisher.clone());
    let mcp = mcp_servers::router(state.clone(), webhooks.sealer.clone());
    let app = app(state.clone()).merge(with_common_layers(mcp));
    // The workflow MCP endpoints and pages (`/mcp/{slug}`) open the same secrets. Their client (the hardened one)
    // cannot be built only when TLS cannot be set up: then they are left out, loudly.
    let app = match specpress_workflow_mcp::router(state.clone(), webhooks.sealer.clone()) {
        Ok(router) => app.merge(with_common_layers(router)),
        Err(e) => {
            tracing::error!(error = %e, "the workflow MCP servers are unavailable");
            app
        }
    };
    app.merge(with_common_layers(webhooks::router(state, webhooks)))
}

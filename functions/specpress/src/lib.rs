//! The `specpress` binary's library: the local server and operator commands.
//!
//! - [`app`] and [`app_with_webhooks`]: every router of every function, merged into one axum app. This is the one
//!   place that lists them: a new router is added here.
//! - [`serve`] runs it on 127.0.0.1 over the embedded DynamoDB engine persisted in a data directory, or over real
//!   AWS / moto when `SPECPRESS_TABLE` is set (standard AWS environment: `AWS_ENDPOINT_URL`, `AWS_REGION`, ...);
//!   what it runs besides the routers (data directory, storage backend, in-process webhooks, its own reference) is
//!   `specpress_local_server`'s.
//! - [`cli`] parses `specpress serve | admin mint-org-token | diff`; `serve` takes every setting of the one
//!   configuration (`specpress_config::Config`) as an option or its variable.

pub mod cli;
pub mod serve;

use std::sync::Arc;

use axum::Router;
use specpress_api::{AppState, with_common_layers};
use specpress_domain::ports::SpecEngine;
use specpress_domain::usecases::delivery::DeliveryService;
use specpress_reader::Library;

/// The routers that need nothing but the state (and the deploy routes, the spec engine), merged as one app. The
/// public site, the documentation's MCP servers and "Try it" share one reader layer (its caches), as they did when
/// one function served them all.
pub fn app(state: AppState, engine: Arc<dyn SpecEngine>) -> Router {
    specpress_api::hosts::routed(state.clone(), merged(state, engine))
}

/// The custom hostname routes over the resolver `SPECPRESS_DNS_RESOLVER` names (the system's otherwise); left out,
/// loudly, when it cannot be set up.
fn domains(state: &AppState) -> Option<Router> {
    match specpress_dns::DnsTxt::from_env() {
        Ok(dns) => Some(specpress_api_domains::router(state.clone(), Arc::new(dns))),
        Err(e) => {
            tracing::error!(error = %e, "the custom hostname routes are unavailable");
            None
        }
    }
}

/// [`app`]'s routers, without `Host`-based routing in front.
fn merged(state: AppState, engine: Arc<dyn SpecEngine>) -> Router {
    let library = Arc::new(Library::from_config(state.store.clone(), &state.settings));
    let routers = [
        specpress_api_deploy::router(state.clone(), engine),
        specpress_api_diffs::router(state.clone()),
        specpress_api_branches::router(state.clone()),
        specpress_api_hubs::router(state.clone()),
        specpress_api_readers::router(state.clone()),
        specpress_site::router_with(state.clone(), library.clone()),
        specpress_docs_mcp::router_with(state.clone(), library.clone()),
        specpress_try_it::router_with(state.clone(), library),
    ];
    let merged = routers
        .into_iter()
        .chain(domains(&state))
        .fold(Router::new(), Router::merge);
    with_common_layers(merged.fallback(specpress_api::error::not_found_route))
}

/// Every route `specpress serve` runs (`Host`-based routing in front, once): [`app`]'s plus the routers over the webhook machinery `webhooks` runs (its
/// publisher takes the deploys' committed events). The MCP servers routes seal their secrets with the same key as
/// webhook secrets, and the workflow MCP endpoints open them with it.
pub fn app_with_webhooks(
    state: AppState,
    engine: Arc<dyn SpecEngine>,
    webhooks: DeliveryService,
) -> Router {
    let state = state
        .with_publisher(webhooks.publisher.clone())
        .with_sealer(webhooks.sealer.clone());
    let mcp = specpress_mcp_servers_api::router(state.clone(), webhooks.sealer.clone());
    let app = merged(state.clone(), engine).merge(with_common_layers(mcp));
    // The workflow MCP endpoints and pages (`/mcp/{slug}`) open the same secrets. Their client (the hardened one)
    // cannot be built only when TLS cannot be set up: then they are left out, loudly.
    let app = match specpress_workflow_mcp::router(state.clone(), webhooks.sealer.clone()) {
        Ok(router) => app.merge(with_common_layers(router)),
        Err(e) => {
            tracing::error!(error = %e, "the workflow MCP servers are unavailable");
            app
        }
    };
    let hooks = specpress_api_webhooks::router(state.clone(), webhooks);
    specpress_api::hosts::routed(state, app.merge(with_common_layers(hooks)))
}

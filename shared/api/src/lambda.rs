//! Wiring shared by the HTTP Lambda functions (logging: [`crate::logging::init_lambda`]): the state every router carries, and the
//! `lambda_http` run loop around a router with [`with_common_layers`](crate::with_common_layers).
//!
//! A function's `main.rs` reads its configuration, builds its clients once and hands them here; what it serves stays
//! its own router.

use std::sync::Arc;

use axum::Router;
use specpress_domain::ports::Store;

use crate::AppState;
use crate::config::FunctionConfig;
use crate::engine::Engines;

/// The state of an HTTP function: its store, the spec/diff engines with the configured document limit, and the API
/// settings from `config`.
pub fn state(config: &FunctionConfig, store: Arc<dyn Store>) -> AppState {
    AppState::new(
        store,
        Arc::new(Engines::with_max_document_bytes(config.max_document_bytes)),
        config.api(),
    )
}

/// Serves `router`, wrapped with the common layers, as this Lambda's API Gateway handler until the runtime stops.
pub async fn run(router: Router) -> Result<(), lambda_http::Error> {
    lambda_http::run(crate::with_common_layers(router)).await
}

//! The deploy function: everything bump-cli's `deploy`, `deploy --dry-run`, `diff --doc` and `preview` use, plus
//! management routes (hubs, documentations, tokens), and the API's own OpenAPI document.
//!
//! [`router`] is mounted by the Lambda binary (via `lambda_http`) and by `specpress serve` (merged with the other
//! functions' routers). Handlers only extract, call one use case, and map the result.

mod dto;
mod handlers;
mod openapi;

use axum::Router;
use axum::routing::{get, post, put};
use specpress_api::AppState;

/// All routes of this function, under `/api/v1` (the public URLs it hands out are served by the `docs` function).
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/ping", get(handlers::ping))
        .route("/openapi.json", get(openapi::json))
        .route("/openapi.yaml", get(openapi::yaml))
        .route("/versions", post(handlers::create_version))
        .route("/versions/{id}", get(handlers::get_version))
        .route("/validations", post(handlers::validate))
        .route("/previews", post(handlers::create_preview))
        .route("/previews/{id}", put(handlers::update_preview))
        .route("/hubs", post(handlers::create_hub))
        .route("/docs", post(handlers::create_doc).get(handlers::list_docs))
        .route(
            "/docs/{doc}",
            get(handlers::get_doc).patch(handlers::update_doc),
        )
        .route("/hubs/{hub}/rotate_token", post(handlers::rotate_hub_token))
        .route("/docs/{doc}/rotate_token", post(handlers::rotate_doc_token))
        .route("/org/rotate_token", post(handlers::rotate_org_token));
    Router::new().nest("/api/v1", api).with_state(state)
}

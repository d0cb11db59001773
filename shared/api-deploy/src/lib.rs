//! The deploy routes: everything bump-cli's `deploy`, `deploy --dry-run`, `diff --doc` and `preview` use, plus
//! management routes (hubs, documentations, tokens, a documentation's accepted changes), and the API's own OpenAPI
//! document.
//!
//! [`router`] is mounted by the deploy Lambda (through the HTTP Lambda helper) and by `specpress serve` (merged with
//! the other routers). Handlers only extract, call one use case, and map the result. The spec engine (validation,
//! the diff of `GET /versions/{id}`) is the caller's: it builds one and hands it to [`router`].

mod accepted;
mod dto;
mod handlers;
mod openapi;

use std::sync::Arc;

use axum::routing::{get, post, put};
use axum::{Extension, Router};
use specpress_api::AppState;
use specpress_domain::ports::SpecEngine;

/// The spec engine the deploy handlers use, carried by the router (the HTTP kit's state holds none).
pub(crate) type Engine = Extension<Arc<dyn SpecEngine>>;

/// All routes of the deploy function, under `/api/v1` (the public URLs it hands out are served by the public site),
/// checking and diffing documents with `engine`.
pub fn router(state: AppState, engine: Arc<dyn SpecEngine>) -> Router {
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
        .route(
            "/docs/{doc}/accepted_changes",
            get(accepted::get).put(accepted::put),
        )
        .route("/hubs/{hub}/rotate_token", post(handlers::rotate_hub_token))
        .route("/docs/{doc}/rotate_token", post(handlers::rotate_doc_token))
        .route("/org/rotate_token", post(handlers::rotate_org_token))
        .layer(Extension(engine));
    Router::new().nest("/api/v1", api).with_state(state)
}

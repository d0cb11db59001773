//! The HTTP layer shared by every Specpress function.
//!
//! - [`AppState`]: what every router carries (`Arc<dyn Store>`, the engine, the configuration).
//! - [`ApiError`]: domain errors in the shapes bump-cli understands (`{message}`; 422 `{message, errors}`).
//! - [`auth::Auth`] / [`auth::MaybeAuth`]: `Authorization: Token <t>` and the three deprecated Basic forms.
//! - [`body::JsonBody`]: JSON request bodies with a byte limit (413) and clear 400/422 errors.
//! - [`engine::Engines`]: the [`SpecEngine`](specpress_domain::engine::SpecEngine) port over `specpress-spec` and
//!   `specpress-diff`, run off the async executor, through [`cpu::CpuGate`] (one CPU-bound job per core at a time).
//! - [`with_common_layers`]: request ids, tracing, panic catching; every function wraps its router with it.
//!
//! A function adds its routes by exposing `pub fn router(state: AppState) -> axum::Router` (paths under
//! `/api/v1`); Lambda runs it through `lambda_http`, and `specpress serve` merges all of them.

pub use specpress_alloc as allocator;
pub mod auth;
pub mod body;
pub mod config;
pub mod cpu;
pub mod engine;
pub mod error;
pub mod lambda;
pub mod logging;
pub mod pagination;
pub mod session;
pub mod urls;

use std::sync::Arc;

use axum::Router;
use specpress_domain::engine::SpecEngine;
use specpress_domain::ports::Store;
use time::OffsetDateTime;

pub use error::{ApiError, Result};

/// Default request body limit, counted after a `Content-Encoding: gzip` body is decompressed: room for the largest
/// real documents (GitHub's 13 MB description, twice in a diff, JSON-escaped). AWS Lambda refuses request payloads
/// over 6 MB before the function runs; larger bodies reach a function gzip-compressed.
pub const DEFAULT_MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// Default largest API document (the definition and each reference), checked before parsing.
pub const DEFAULT_MAX_DOCUMENT_BYTES: usize = 32 * 1024 * 1024;

/// Where the service runs, for what an over-limit answer advises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    /// `specpress serve`: the operator sets the limits.
    Local,
    /// AWS Lambda behind API Gateway: 6 MB request payloads at most.
    Lambda,
}

/// Settings the HTTP layer needs.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// Base of every `*_public_url` (no trailing slash), e.g. `http://127.0.0.1:3000`.
    pub public_base_url: String,
    /// Largest accepted request body in bytes, decompressed (413 beyond; 422 for bump-cli, see [`body`]).
    pub max_body_bytes: usize,
    /// Largest API document (each file), for the routes that parse documents themselves.
    pub max_document_bytes: usize,
    /// Where the service runs.
    pub runtime: Runtime,
}

impl ApiConfig {
    /// A configuration with the default body limit, for the local server.
    pub fn new(public_base_url: impl Into<String>) -> Self {
        let base: String = public_base_url.into();
        ApiConfig {
            public_base_url: base.trim_end_matches('/').to_owned(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
            runtime: Runtime::Local,
        }
    }
}

/// Shared state of every HTTP function. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    /// All storage ports.
    pub store: Arc<dyn Store>,
    /// Validation and diffing.
    pub engine: Arc<dyn SpecEngine>,
    /// Settings.
    pub config: Arc<ApiConfig>,
}

impl AppState {
    /// Builds the state.
    pub fn new(store: Arc<dyn Store>, engine: Arc<dyn SpecEngine>, config: ApiConfig) -> Self {
        AppState {
            store,
            engine,
            config: Arc::new(config),
        }
    }

    /// The current time (one place, so handlers never call the clock themselves).
    pub fn now(&self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Wraps a router with the layers every function uses: request id (`x-request-id`, generated when absent and echoed),
/// a tracing span per request (method, path, status, latency; never headers or bodies), panic-to-500, and JSON
/// `{"message"}` bodies on every error answer produced outside handlers ([`error::json_error_bodies`]: 405, 414, 431,
/// extractor rejections).
pub fn with_common_layers(router: Router) -> Router {
    use tower_http::catch_panic::CatchPanicLayer;
    use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
    use tower_http::trace::TraceLayer;
    let header = axum::http::HeaderName::from_static("x-request-id");
    router
        // Request bodies may come gzip- or deflate-compressed (the way past Lambda's 6 MB payload ceiling); the body
        // limits of the handlers count decompressed bytes, so a compression bomb stops at the limit.
        .layer(tower_http::decompression::RequestDecompressionLayer::new())
        .layer(CatchPanicLayer::custom(error::panic_response))
        .layer(axum::middleware::from_fn(error::json_error_bodies))
        .layer(
            TraceLayer::new_for_http().make_span_with(|req: &axum::http::Request<axum::body::Body>| {
                let id = req.headers().get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or("");
                tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id = %id)
            }),
        )
        .layer(PropagateRequestIdLayer::new(header.clone()))
        .layer(SetRequestIdLayer::new(header, MakeRequestUuid))
}

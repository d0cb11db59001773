//! The per-client rate limit of the unauthenticated diff routes: every request takes a cell from the client's
//! bucket of the shared limiter ([`specpress_api::limit`]), and an empty bucket answers 429 `{message}` with
//! `Retry-After`.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
pub use specpress_api::limit::{RateLimiter, client_key};
use specpress_api::readers::too_many_json;

/// Middleware: 429 `{message}` with `Retry-After` when the client's bucket is empty.
pub async fn rate_limit(
    State(limiter): State<Arc<RateLimiter>>,
    req: Request,
    next: Next,
) -> Response {
    let key = client_key(&req);
    match limiter.check(&key) {
        Ok(()) => next.run(req).await,
        Err(retry) => {
            let secs = specpress_api::limit::retry_after_secs(retry);
            too_many_json(
                retry,
                &format!("Too many diff requests from this client; retry in {secs} s"),
            )
        }
    }
}

//! The per-client rate limit of the unauthenticated diff routes: every request takes a cell from the client's
//! bucket of the shared limiter ([`specpress_api::limit`]), and an empty bucket answers 429 `{message}` with
//! `Retry-After`.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
pub use specpress_api::limit::{RateLimiter, client_key};

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
            let secs = retry.as_secs().max(1);
            let mut resp = (
                StatusCode::TOO_MANY_REQUESTS,
                axum::Json(serde_json::json!({
                    "message": format!("Too many diff requests from this client; retry in {secs} s")
                })),
            )
                .into_response();
            if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
                resp.headers_mut().insert(header::RETRY_AFTER, v);
            }
            resp
        }
    }
}

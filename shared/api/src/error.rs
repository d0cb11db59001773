//! [`ApiError`]: every failure as an HTTP response in the shapes bump-cli renders (bump-api.md §6).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use specpress_domain::{ConflictKind, DomainError};

/// An HTTP error. Bodies are `{"message": ...}`, or `{"message", "errors": {field: [..]}}` for 422.
#[derive(Debug)]
pub enum ApiError {
    /// A domain failure.
    Domain(DomainError),
    /// The body exceeds the limit (413; 422 for bump-cli, see [`crate::body`]).
    TooLarge(crate::body::TooLarge),
    /// The body is not JSON, or not an object (400).
    BadJson(String),
}

/// Result alias for handlers.
pub type Result<T, E = ApiError> = std::result::Result<T, E>;

impl From<DomainError> for ApiError {
    fn from(e: DomainError) -> Self {
        ApiError::Domain(e)
    }
}

impl ApiError {
    /// The status code.
    pub fn status_code(&self) -> StatusCode {
        match self {
            ApiError::TooLarge(t) if t.bump_cli => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::BadJson(_) => StatusCode::BAD_REQUEST,
            ApiError::Domain(e) => match e {
                DomainError::NotFound(_) => StatusCode::NOT_FOUND,
                DomainError::Conflict(_) => StatusCode::CONFLICT,
                DomainError::Invalid { .. } => StatusCode::UNPROCESSABLE_ENTITY,
                DomainError::BadRequest(_) => StatusCode::BAD_REQUEST,
                DomainError::Unauthorized => StatusCode::UNAUTHORIZED,
                DomainError::Forbidden(_) => StatusCode::FORBIDDEN,
                DomainError::Unexpected(_) => StatusCode::INTERNAL_SERVER_ERROR,
            },
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status_code();
        let body = match self {
            ApiError::TooLarge(t) => {
                let message = t.message();
                json!({"message": message, "errors": {"definition": [message]}})
            }
            ApiError::BadJson(m) => json!({ "message": m }),
            ApiError::Domain(e) => match e {
                DomainError::Invalid {
                    message,
                    field,
                    messages,
                } => {
                    let summary = if field == "raw_definition" {
                        "Invalid definition file".to_owned()
                    } else {
                        message
                    };
                    json!({"message": summary, "errors": { field: messages }})
                }
                DomainError::Unauthorized => json!({
                    "message": "Unauthorized: missing or invalid token. Send `Authorization: Token <token>`."
                }),
                DomainError::Conflict(kind) => json!({"message": match kind {
                    ConflictKind::Stale => "The resource changed or expired meanwhile; retry.",
                    _ => "Conflicting concurrent update; retry.",
                }}),
                DomainError::Unexpected(source) => {
                    tracing::error!(error = %source, source = ?source.source(), "request failed");
                    json!({"message": "Internal server error"})
                }
                other => json!({ "message": other.to_string() }),
            },
        };
        (status, Json(body)).into_response()
    }
}

/// Turns a caught panic into a generic 500 (details are logged, never returned).
pub fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    tracing::error!("handler panicked");
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        Json(json!({"message": "Internal server error"})),
    )
        .into_response()
}

/// The 404 for unknown routes, in the same JSON shape.
pub async fn not_found_route() -> Response {
    (StatusCode::NOT_FOUND, Json(json!({"message": "Not found"}))).into_response()
}

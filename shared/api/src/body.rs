//! JSON request bodies with a byte limit.

use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;
use specpress_domain::DomainError;

use crate::{ApiError, AppState};

/// A JSON body: over the configured limit is 413 `{message}`; invalid JSON is 400 `{message}`; valid JSON of the
/// wrong shape is 422 `{message, errors: {body: [...]}}`.
#[derive(Debug, Clone)]
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned + Send> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let limit = state.config.max_body_bytes;
        let declared = req
            .headers()
            .get(axum::http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > limit as u64) {
            return Err(ApiError::TooLarge(limit));
        }
        let bytes = match axum::body::to_bytes(req.into_body(), limit).await {
            Ok(b) => b,
            Err(e) => {
                let inner = e.into_inner();
                let too_large = inner
                    .downcast_ref::<http_body_util::LengthLimitError>()
                    .is_some()
                    || std::error::Error::source(inner.as_ref()).is_some_and(|s| {
                        s.downcast_ref::<http_body_util::LengthLimitError>()
                            .is_some()
                    });
                return Err(if too_large {
                    ApiError::TooLarge(limit)
                } else {
                    ApiError::BadJson("Could not read the request body.".into())
                });
            }
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::BadJson(
                "The request body is empty; send a JSON object.".into(),
            ));
        }
        match serde_json::from_slice::<T>(&bytes) {
            Ok(v) => Ok(JsonBody(v)),
            Err(e) if e.classify() == serde_json::error::Category::Data => {
                Err(DomainError::invalid("body", format!("Invalid request body: {e}")).into())
            }
            Err(e) => Err(ApiError::BadJson(format!("Malformed JSON body: {e}"))),
        }
    }
}

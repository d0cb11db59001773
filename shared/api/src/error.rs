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
    /// The client's budget of failed credential checks is spent (429 with `Retry-After`, [`crate::auth`]).
    TooManyFailures(std::time::Duration),
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
            ApiError::TooManyFailures(_) => StatusCode::TOO_MANY_REQUESTS,
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
        if let ApiError::TooManyFailures(retry) = self {
            let mut resp = (
                status,
                Json(json!({
                    "message": "Too many failed credential checks from this client; retry after the time in Retry-After."
                })),
            )
                .into_response();
            crate::limit::set_retry_after(&mut resp, retry);
            return resp;
        }
        let body = match self {
            ApiError::TooLarge(t) => {
                let message = t.message();
                json!({"message": message, "errors": {"definition": [message]}})
            }
            ApiError::BadJson(m) => json!({ "message": m }),
            ApiError::TooManyFailures(_) => json!({ "message": "Too many requests" }),
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

/// Longest request target (path and query) accepted, in bytes: 414 `{message}` beyond. Cursors (at most 4 KiB) and
/// every documented parameter fit well within it.
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// Largest header section accepted (names, values and separators), in bytes: 431 `{message}` beyond.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;
/// Longest plain-text error body carried over into `{message}`; longer ones get the status's generic message.
const MAX_CARRIED_MESSAGE: usize = 1024;

fn message_response(status: StatusCode, message: String) -> Response {
    (status, Json(json!({ "message": message }))).into_response()
}

/// The status's own sentence, for error answers that come without one.
fn generic_message(status: StatusCode) -> String {
    match status {
        StatusCode::NOT_FOUND => "Not found".to_owned(),
        // axum adds `Allow` after the layers have run, so the message points at it rather than repeating it.
        StatusCode::METHOD_NOT_ALLOWED => {
            "Method not allowed: the Allow header lists the methods this route accepts".to_owned()
        }
        s if s.is_server_error() => match s.canonical_reason() {
            Some(reason) if s != StatusCode::INTERNAL_SERVER_ERROR => reason.to_owned(),
            _ => "Internal server error".to_owned(),
        },
        s => s
            .canonical_reason()
            .map(str::to_owned)
            .unwrap_or_else(|| format!("HTTP {}", s.as_u16())),
    }
}

/// Whether a response body is already in one of our documented shapes (or a deliberate page, like a public HTML
/// error page): anything typed other than `text/plain`.
fn has_own_shape(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| {
            !t.trim_start()
                .to_ascii_lowercase()
                .starts_with("text/plain")
        })
}

/// Middleware of [`crate::with_common_layers`]: every 4xx/5xx answer is JSON `{"message"}`.
///
/// - Before routing: a request target over [`MAX_URI_BYTES`] is 414, a header section over [`MAX_HEADER_BYTES`] is
///   431 (both below the HTTP server's own hard limits, so ordinary excess gets a JSON answer).
/// - After: error answers produced outside handlers (axum's 405 with `Allow` and no body, extractor rejections in
///   `text/plain`, an unknown route's 404) get a JSON body: the plain text they carried when it is short, for 4xx,
///   else the status's own sentence. Headers (`Allow`, `Retry-After`, ...) are kept. Answers already typed (JSON, an
///   HTML page) are left alone.
pub async fn json_error_bodies(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let target_len = req
        .uri()
        .path_and_query()
        .map(|pq| pq.as_str().len())
        .unwrap_or(0);
    if target_len > MAX_URI_BYTES {
        return message_response(
            StatusCode::URI_TOO_LONG,
            format!("URI too long: the limit is {MAX_URI_BYTES} bytes of path and query"),
        );
    }
    let header_bytes: usize = req
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if header_bytes > MAX_HEADER_BYTES {
        return message_response(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!("Request header fields too large: the limit is {MAX_HEADER_BYTES} bytes"),
        );
    }
    let resp = next.run(req).await;
    let status = resp.status();
    if !(status.is_client_error() || status.is_server_error()) || has_own_shape(resp.headers()) {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let carried = if status.is_client_error() {
        use http_body_util::BodyExt as _;
        match http_body_util::Limited::new(body, MAX_CARRIED_MESSAGE)
            .collect()
            .await
        {
            Ok(collected) => String::from_utf8(collected.to_bytes().to_vec())
                .ok()
                .map(|t| t.trim().to_owned())
                .filter(|t| !t.is_empty()),
            Err(_) => None,
        }
    } else {
        None
    };
    let message = carried.unwrap_or_else(|| generic_message(status));
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    parts.headers.insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    Response::from_parts(
        parts,
        axum::body::Body::from(json!({ "message": message }).to_string()),
    )
}

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::body::Body;
    use axum::http::{Request, header};
    use axum::routing::get;
    use http_body_util::BodyExt as _;
    use serde_json::Value;
    use tower::ServiceExt as _;

    use super::*;

    #[derive(serde::Deserialize)]
    struct Q {
        #[allow(dead_code)]
        n: u32,
    }

    fn app() -> Router {
        let router = Router::new()
            .route("/things", get(|| async { "ok" }).post(|| async { "made" }))
            .route(
                "/typed",
                get(|axum::extract::Query(_q): axum::extract::Query<Q>| async { "typed" }),
            )
            .route(
                "/page",
                get(|| async {
                    (
                        StatusCode::NOT_FOUND,
                        [(header::CONTENT_TYPE, "text/html")],
                        "<p>gone</p>",
                    )
                }),
            );
        crate::with_common_layers(router.fallback(not_found_route))
    }

    async fn call(req: Request<Body>) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
        let resp = app().oneshot(req).await.expect("infallible");
        let (parts, body) = resp.into_parts();
        let bytes = body.collect().await.expect("body").to_bytes().to_vec();
        (parts.status, parts.headers, bytes)
    }

    fn message(bytes: &[u8]) -> String {
        let v: Value = serde_json::from_slice(bytes).expect("a JSON body");
        v["message"].as_str().expect("a message").to_owned()
    }

    #[tokio::test]
    async fn method_not_allowed_is_json_and_keeps_allow() {
        let (status, headers, body) = call(
            Request::delete("/things")
                .body(Body::empty())
                .expect("request"),
        )
        .await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
        let allow = headers
            .get(header::ALLOW)
            .and_then(|v| v.to_str().ok())
            .expect("Allow kept")
            .to_owned();
        assert!(allow.contains("GET") && allow.contains("POST"), "{allow}");
        assert_eq!(
            headers.get(header::CONTENT_TYPE).map(|v| v.as_bytes()),
            Some(&b"application/json"[..])
        );
        assert!(message(&body).contains("Allow"), "{}", message(&body));
    }

    #[tokio::test]
    async fn extractor_rejections_become_json_messages() {
        let (status, _, body) = call(
            Request::get("/typed?n=%2010")
                .body(Body::empty())
                .expect("request"),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(message(&body).contains("query"), "{}", message(&body));
    }

    #[tokio::test]
    async fn an_over_long_uri_is_414_json() {
        let uri = format!("/things?q={}", "a".repeat(MAX_URI_BYTES));
        let (status, _, body) = call(Request::get(uri).body(Body::empty()).expect("request")).await;
        assert_eq!(status, StatusCode::URI_TOO_LONG);
        assert!(message(&body).contains("8192"));
        let fits = format!("/things?q={}", "a".repeat(MAX_URI_BYTES - 10));
        let (status, _, _) = call(Request::get(fits).body(Body::empty()).expect("request")).await;
        assert_eq!(status, StatusCode::OK);
    }

    #[tokio::test]
    async fn an_over_large_header_section_is_431_json() {
        let mut req = Request::get("/things");
        for i in 0..40 {
            req = req.header(format!("x-filler-{i}"), "v".repeat(1000));
        }
        let (status, _, body) = call(req.body(Body::empty()).expect("request")).await;
        assert_eq!(status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
        assert!(message(&body).contains("32768"));
    }

    #[tokio::test]
    async fn unknown_routes_are_json_404_and_typed_pages_are_left_alone() {
        let (status, _, body) = call(
            Request::get("/nowhere")
                .body(Body::empty())
                .expect("request"),
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(message(&body), "Not found");
        let (status, headers, body) =
            call(Request::get("/page").body(Body::empty()).expect("request")).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(
            headers.get(header::CONTENT_TYPE).map(|v| v.as_bytes()),
            Some(&b"text/html"[..])
        );
        assert_eq!(body, b"<p>gone</p>");
    }
}

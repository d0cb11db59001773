//! "Try it": the proxy through which readers of a documentation's operation pages send an operation's request
//! (docs/try-it.md), and the Content-Security-Policy of a `direct` documentation's operation pages.
//!
//! `POST /doc/{doc}/try` and `POST /doc/{doc}/branches/{branch}/try`, body
//! `{"method", "url", "headers": [[name, value], ...], "body"?}` (at most [`MAX_REQUEST_BYTES`]), answer
//! `{"status", "headers": [[name, value], ...], "body", "truncated", "time_ms"}` (the body as text, at most
//! [`MAX_ANSWER_BYTES`], `truncated` when cut). In order, each refusal in the API's JSON error shape:
//!
//! 1. the request's `Origin` must be this service's own (the rule of the sign-in posts,
//!    `specpress_api::readers::same_origin`): a page of another site cannot use the proxy (403);
//! 2. the client's rate (`SPECPRESS_TRY_RATE_PER_MINUTE`, `SPECPRESS_TRY_BURST`): 429 with `Retry-After`;
//! 3. the documentation must exist, be visible to this reader (a private one takes the same token or session as
//!    its pages) and have `try_it: proxy`: otherwise the same 404 as an unknown documentation;
//! 4. the body must be the JSON above (400), within its size (413);
//! 5. the method one of [`METHODS`], the URL's origin one of the origins of the head's servers
//!    (`specpress_reader::origins::server_origins`): 422 naming what is refused;
//! 6. the request is sent through `specpress_fetch` (public addresses only unless
//!    `SPECPRESS_ALLOW_LOOPBACK_URLS=true`, outside Lambda; timeouts; redirects followed only within the same
//!    origins): a refused address is 422, a failure of the upstream side (timeout, connection refused, DNS) 502.
//!
//! Every refusal is JSON, a client whose failed credential checks are spent included (429 with `Retry-After`).
//!
//! Hop-by-hop and cookie headers are dropped both ways ([`DROPPED`]). Nothing of what the reader sends is stored;
//! the log names the documentation, the method, the target's origin, the status and the time: never a header
//! value, a body, a path or a query string, where credentials travel. The proxy only reads storage.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::json;
use specpress_api::limit::{RateLimiter, client_of};
use specpress_api::readers::{Readers, Viewer, same_origin, too_many_json};
use specpress_api::{ApiConfig, ApiError, AppState};
use specpress_domain::DomainError;
use specpress_domain::model::TryIt;
use specpress_domain::usecases::public::Reader;
use specpress_fetch::{FetchError, FetchPolicy, Outbound, SafeClient};
use specpress_reader::origins;
use specpress_reader::{DocView, Library, Missing, ReadError};
use tracing::instrument;

/// What the proxy's routes share.
#[derive(Clone)]
pub struct TryState {
    /// The reader layer (which documentation, may this reader see it, the head's servers).
    library: Arc<Library>,
    /// The HTTP settings (this service's own origin).
    config: Arc<ApiConfig>,
    /// The per-client limit of requests (`None`: disabled).
    limit: Option<Arc<RateLimiter>>,
    /// The client requests are sent through (`None`: it could not be built, logged; the proxy then answers 503).
    client: Option<SafeClient>,
}

/// The proxy's routes over a library of their own with the cache budgets of `app`'s configuration.
pub fn router(app: AppState) -> Router {
    let library = Arc::new(Library::from_config(app.store.clone(), &app.settings));
    router_with(app, library)
}

/// The proxy's routes over `library` (`specpress serve` shares one with the pages and the MCP servers).
pub fn router_with(app: AppState, library: Arc<Library>) -> Router {
    let state = TryState {
        library,
        config: app.config.clone(),
        limit: RateLimiter::new(
            app.settings.docs.try_rate_per_minute,
            app.settings.docs.try_burst,
        ),
        client: client(&app),
    };
    Router::new()
        .route("/doc/{doc}/try", post(doc))
        .route("/doc/{doc}/branches/{branch}/try", post(branch))
        .layer(axum::middleware::from_fn_with_state(
            Readers::json(&app),
            specpress_api::readers::readers,
        ))
        .layer(axum::middleware::from_fn(
            specpress_api::readers::public_headers,
        ))
        .layer(specpress_api::compression::response_compression())
        .with_state(state)
}

/// The client of the proxy: public addresses only (loopback too when `SPECPRESS_ALLOW_LOOPBACK_URLS=true`, never
/// inside Lambda), 10 s per request, answers cut at [`MAX_ANSWER_BYTES`].
fn client(app: &AppState) -> Option<SafeClient> {
    let policy = FetchPolicy {
        allow_loopback: app.settings.webhooks.allow_loopback_urls,
        max_body_bytes: MAX_ANSWER_BYTES,
        ..FetchPolicy::default()
    };
    match SafeClient::new(policy) {
        Ok(c) => Some(c),
        Err(e) => {
            tracing::error!(error = %e.detail(), "the Try it client could not be built; the proxy answers 503");
            None
        }
    }
}

/// A read that gave no answer, as JSON (`{message}`): an unknown documentation is the same 404 as one the reader
/// may not see, or one without the proxy.
fn json_error(e: ReadError) -> Response {
    ApiError::from(DomainError::from(e)).into_response()
}

/// Largest request body accepted (the JSON envelope with the request's own body).
pub const MAX_REQUEST_BYTES: usize = 256 * 1024;
/// Largest answer body relayed; the rest is cut (`truncated`).
pub const MAX_ANSWER_BYTES: u64 = 1024 * 1024;
/// Most headers one request may carry.
const MAX_HEADERS: usize = 64;
/// The methods an operation may have (OpenAPI's, `TRACE` and `CONNECT` aside).
pub const METHODS: [&str; 7] = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH"];
/// Headers never relayed, either way: hop-by-hop (RFC 9110 7.6.1), framing and target (the HTTP stack's), cookies
/// (the reader's cookies of this site never leave, an API's never reach the reader's browser through us), and the
/// forwarding headers a reader could spoof.
const DROPPED: [&str; 20] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
    "cookie",
    "cookie2",
    "set-cookie",
    "set-cookie2",
    "forwarded",
    "x-forwarded-for",
    "x-forwarded-host",
    "x-forwarded-proto",
    "x-real-ip",
];

/// The body of `POST .../try`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TryRequest {
    method: String,
    url: String,
    #[serde(default)]
    headers: Vec<(String, String)>,
    body: Option<String>,
}

/// The answer of `POST .../try`.
#[derive(Serialize)]
struct TryAnswer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    truncated: bool,
    time_ms: u64,
}

/// An answer in the API's error shape, `{"message"}`.
fn refused(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "message": message }))).into_response()
}

/// A 422 about one field of the request, in the API's shape (`{"message", "errors": {field: [message]}}`).
fn invalid(field: &str, message: &str) -> Response {
    ApiError::from(DomainError::invalid(field, message)).into_response()
}

/// `POST /doc/{doc}/try`.
#[instrument(skip_all)]
pub async fn doc(
    State(st): State<TryState>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    req: Request,
) -> Response {
    endpoint(st, reader, &key, None, req).await
}

/// `POST /doc/{doc}/branches/{branch}/try`.
#[instrument(skip_all)]
pub async fn branch(
    State(st): State<TryState>,
    Viewer(reader): Viewer,
    Path((key, branch)): Path<(String, String)>,
    req: Request,
) -> Response {
    endpoint(st, reader, &key, Some(&branch), req).await
}

/// The client's rate: the 429 due when it is spent.
fn over_limit(st: &TryState, req: &Request) -> Option<Response> {
    let limiter = st.limit.as_ref()?;
    let retry = limiter.check(&client_of(req.extensions())).err()?;
    Some(too_many_json(
        retry,
        "Too many requests sent through Try it; retry after the time in Retry-After.",
    ))
}

/// The view of a documentation whose `try_it` is `proxy`, or the 404 of an unknown one.
async fn proxied_view(
    st: &TryState,
    reader: &Reader,
    key: &str,
    branch: Option<&str>,
) -> Result<DocView, ReadError> {
    let view = st.library.doc_view(reader, key, branch).await?;
    if view.doc.try_it != TryIt::Proxy {
        return Err(ReadError::Missing(Missing::Documentation));
    }
    Ok(view)
}

async fn endpoint(
    st: TryState,
    reader: Reader,
    key: &str,
    branch: Option<&str>,
    req: Request,
) -> Response {
    if !same_origin(&st.config, req.headers()) {
        return refused(
            StatusCode::FORBIDDEN,
            "Try it only takes requests from this site's own pages.",
        );
    }
    if let Some(r) = over_limit(&st, &req) {
        return r;
    }
    let view = match proxied_view(&st, &reader, key, branch).await {
        Ok(v) => v,
        Err(e) => return json_error(e),
    };
    let request = match read_request(req).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    let allowed = match st.library.load_head(&view).await {
        Ok((loaded, _)) => origins::server_origins(loaded.doc.model()),
        Err(e) => return json_error(e),
    };
    let outbound = match outbound(request, &allowed) {
        Ok(o) => o,
        Err(r) => return r,
    };
    relay(&st, view.doc.slug.as_str(), outbound, &allowed).await
}

/// The request body, parsed: 413 beyond [`MAX_REQUEST_BYTES`], 400 when it is not the documented JSON.
#[allow(clippy::result_large_err)]
async fn read_request(req: Request) -> Result<TryRequest, Response> {
    let Ok(bytes) = axum::body::to_bytes(req.into_body(), MAX_REQUEST_BYTES).await else {
        return Err(refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("A Try it request is at most {MAX_REQUEST_BYTES} bytes."),
        ));
    };
    serde_json::from_slice(&bytes).map_err(|e| {
        // serde's message names a field or a position, never a value.
        refused(
            StatusCode::BAD_REQUEST,
            &format!(
                "The body must be {{\"method\", \"url\", \"headers\": [[name, value]], \"body\"?}}: {e}"
            ),
        )
    })
}

/// The request to send, checked against the documentation's servers (`allowed`): a 422 otherwise.
// The error is the answer itself, made once per request: boxing it would only add an allocation.
#[allow(clippy::result_large_err)]
fn outbound(r: TryRequest, allowed: &[String]) -> Result<Outbound, Response> {
    let method = r.method.trim().to_ascii_uppercase();
    if !METHODS.contains(&method.as_str()) {
        return Err(invalid(
            "method",
            &format!("method must be one of {}", METHODS.join(", ")),
        ));
    }
    let Some(origin) = origins::http_origin(&r.url) else {
        return Err(invalid(
            "url",
            "url must be an absolute http or https URL without user name or password",
        ));
    };
    if !allowed.iter().any(|a| a == &origin) {
        let servers = if allowed.is_empty() {
            "this documentation has no server with an absolute http(s) URL".to_owned()
        } else {
            format!("its servers are {}", allowed.join(", "))
        };
        return Err(invalid(
            "url",
            &format!("{origin} is not one of this documentation's servers: {servers}"),
        ));
    }
    if r.headers.len() > MAX_HEADERS {
        return Err(invalid(
            "headers",
            &format!("at most {MAX_HEADERS} headers are sent"),
        ));
    }
    let headers = r
        .headers
        .into_iter()
        .filter(|(name, _)| !dropped(name))
        .collect();
    Ok(Outbound {
        method,
        url: r.url.trim().to_owned(),
        headers,
        body: r.body.map(Bytes::from),
    })
}

/// Whether a header is one of [`DROPPED`].
fn dropped(name: &str) -> bool {
    let name = name.trim().to_ascii_lowercase();
    DROPPED.contains(&name.as_str())
}

/// Sends the request and relays the answer (502 when the upstream side failed, 422 when the address is refused).
async fn relay(st: &TryState, doc: &str, outbound: Outbound, allowed: &[String]) -> Response {
    let Some(client) = &st.client else {
        return refused(
            StatusCode::SERVICE_UNAVAILABLE,
            "Try it is unavailable on this server.",
        );
    };
    let method = outbound.method.clone();
    let target = origins::http_origin(&outbound.url).unwrap_or_default();
    let started = Instant::now();
    let result = client.send_truncating(outbound, allowed).await;
    let time_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    match result {
        Ok(got) => {
            tracing::info!(doc, %method, %target, status = got.status.as_u16(), time_ms, "try it request relayed");
            Json(TryAnswer {
                status: got.status.as_u16(),
                headers: relayed_headers(&got.headers),
                body: String::from_utf8_lossy(&got.bytes).into_owned(),
                truncated: got.truncated,
                time_ms,
            })
            .into_response()
        }
        Err(e) => {
            tracing::info!(doc, %method, %target, time_ms, error = %e.detail(), "try it request not relayed");
            failure(&e)
        }
    }
}

/// A failure's answer: 422 for a refusal of the target itself, 502 for a failure of the upstream side.
fn failure(e: &FetchError) -> Response {
    let message = e.user_message();
    if e.is_refusal() {
        invalid("url", &format!("The request was refused: {message}"))
    } else {
        refused(
            StatusCode::BAD_GATEWAY,
            &format!("The API did not answer: {message}"),
        )
    }
}

/// The answer's headers as pairs, without [`DROPPED`] ones; values that are not text are shown lossily.
fn relayed_headers(h: &HeaderMap) -> Vec<(String, String)> {
    h.iter()
        .filter(|(name, _)| !dropped(name.as_str()))
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, url: &str, headers: &[(&str, &str)]) -> TryRequest {
        TryRequest {
            method: method.into(),
            url: url.into(),
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
            body: None,
        }
    }

    #[test]
    fn only_the_servers_origins_and_the_operations_methods_are_sent_to() {
        let allowed = vec!["https://api.example.com".to_owned()];
        let ok = |m: &str, u: &str| outbound(request(m, u, &[]), &allowed).is_ok();
        assert!(ok("get", "https://api.example.com/pets?limit=1"));
        assert!(ok("PATCH", "https://API.example.com:443/pets/1"));
        for (m, u) in [
            ("GET", "https://evil.example/pets"),
            ("GET", "http://api.example.com/pets"),
            ("GET", "https://api.example.com:8443/pets"),
            ("GET", "https://user:pw@api.example.com/pets"),
            ("GET", "/pets"),
            ("GET", "file:///etc/passwd"),
            ("TRACE", "https://api.example.com/pets"),
            ("CONNECT", "https://api.example.com/pets"),
        ] {
            let r = outbound(request(m, u, &[]), &allowed);
            assert_eq!(
                r.map(|_| ()).map_err(|r| r.status()),
                Err(StatusCode::UNPROCESSABLE_ENTITY),
                "{m} {u}"
            );
        }
        assert!(outbound(request("GET", "https://api.example.com/", &[]), &[]).is_err());
    }

    #[test]
    fn hop_by_hop_cookie_and_forwarding_headers_are_dropped_and_the_others_sent() {
        let got = outbound(
            request(
                "GET",
                "https://api.example.com/",
                &[
                    ("Authorization", "Bearer t"),
                    ("X-Api-Key", "k"),
                    ("Cookie", "session=1"),
                    ("Connection", "close"),
                    ("Host", "evil.example"),
                    ("X-Forwarded-For", "1.2.3.4"),
                    ("Proxy-Authorization", "Basic x"),
                ],
            ),
            &["https://api.example.com".to_owned()],
        )
        .map_err(|r| r.status())
        .expect("sent");
        let names: Vec<&str> = got.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Authorization", "X-Api-Key"]);
    }
}

//! The diff routes, served by the diffs function: public (unauthenticated) diffs between two API definitions.
//!
//! Routes (bump-api.md §3.6, §3.7, §5):
//! - `POST /api/v1/diffs`: 201 `{id, public_url, expires_at?}`; 422 naming the missing field (neither pair, both
//!   pairs, half a pair), an invalid document, a refused URL or a bad `expires_at`; 413 over the body limit; 429 over
//!   the per-client rate limit; 401 for an invalid token; 503 when the anonymous quota stayed full of diffs being
//!   created. Without a token the diff is anonymous: its expiry is clamped to the anonymous ceiling and its bytes
//!   count in the anonymous quota (oldest evicted first); with a valid token it keeps any expiry, uncounted.
//! - `GET /api/v1/diffs/{id}?formats[]=...`: 200 `{id, title, public_url, breaking, previous_version_url,
//!   current_version_url}` plus `text`/`markdown`/`html`/`details` for the requested formats (default text and
//!   markdown); 404 for an unknown or expired id; 400 for an unknown format.
//! - `GET /api/v1/diffs/{id}/previous.json` and `/current.json`: the two documents as JSON.
//! - Public URLs: `GET /diff/{id}/previous.json`, `/current.json` (the page `GET /diff/{id}` is the docs function's).
//!
//! Diffs are computed synchronously at creation, so `GET` never answers 202. Every answer is compressed (gzip or br)
//! when the client's `Accept-Encoding` asks.

mod body;
pub mod engine;
pub mod fetcher;
pub mod limit;

use std::sync::Arc;

use axum::Router;
use axum::extract::{FromRequestParts, Path, RawQuery, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::json;
use serde_json::value::RawValue;
use specpress_api::auth::MaybeAuth;
use specpress_api::cpu::CpuGate;
use specpress_api::{ApiError, AppState};
use specpress_domain::DomainError;
use specpress_domain::ports::{DiffEngine, DocumentFetcher};
use specpress_domain::usecases::diffs::{
    self, AnonymousLimits, Creator, DiffDeps, DiffFormat, DiffSide, DiffView,
};
use specpress_fetch::FetchPolicy;

use crate::engine::SpecDiffEngine;
use crate::fetcher::SafeFetcher;
use crate::limit::RateLimiter;

/// Settings of the diff function.
#[derive(Debug, Clone)]
pub struct DiffsConfig {
    /// Largest `POST /diffs` body (413 beyond); `None` uses the function's `max_body_bytes`
    /// (`SPECPRESS_MAX_BODY_BYTES`).
    pub max_body_bytes: Option<usize>,
    /// Per-client requests per minute on the diff routes; 0 disables the limiter.
    pub rate_per_minute: u32,
    /// Per-client burst.
    pub rate_burst: u32,
    /// Largest document (each side, each reference, each download); `None` uses the function's
    /// `max_document_bytes` (`SPECPRESS_MAX_DOCUMENT_BYTES`).
    pub max_document_bytes: Option<usize>,
    /// Policy of the URL downloader (`allow_loopback` from `SPECPRESS_ALLOW_LOOPBACK_URLS`; its body cap is
    /// replaced by the document limit).
    pub fetch: FetchPolicy,
    /// What diffs created without a token may keep (`SPECPRESS_ANONYMOUS_DIFF_MAX_DAYS`,
    /// `SPECPRESS_ANONYMOUS_DIFF_QUOTA_BYTES`).
    pub anonymous: AnonymousLimits,
    /// How the `POST /diffs` body is read (the benchmark compares both readers in one run).
    pub body_reader: BodyReader,
}

/// Reads a `POST /diffs` body with `reader` (blocking: several MB of JSON).
pub fn read_diff_body(
    reader: BodyReader,
    bytes: &[u8],
) -> Result<specpress_domain::usecases::diffs::DiffInput, ApiError> {
    match reader {
        BodyReader::OnePass => body::diff_input(bytes),
        BodyReader::Serde => body::with_serde(bytes),
    }
}

/// How the `POST /diffs` body is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BodyReader {
    /// The one-pass reader (`body.rs`), serde_json deciding what it declines.
    #[default]
    OnePass,
    /// serde_json alone, in two passes.
    Serde,
}

impl Default for DiffsConfig {
    /// The settings of a process configured by nothing: the configuration's defaults.
    fn default() -> Self {
        DiffsConfig::from_config(&specpress_config::Config::default())
    }
}

impl DiffsConfig {
    /// The settings of `config` (`SPECPRESS_DIFF_MAX_BODY_BYTES`, `SPECPRESS_DIFF_RATE_PER_MINUTE`,
    /// `SPECPRESS_DIFF_RATE_BURST`, `SPECPRESS_ALLOW_LOOPBACK_URLS`, `SPECPRESS_ANONYMOUS_DIFF_MAX_DAYS` and
    /// `SPECPRESS_ANONYMOUS_DIFF_QUOTA_BYTES`; ranges and defaults are declared, and checked when it was read, by
    /// `specpress_config`).
    pub fn from_config(config: &specpress_config::Config) -> Self {
        DiffsConfig {
            max_body_bytes: config.diffs.max_body_bytes.get(),
            rate_per_minute: config.diffs.rate_per_minute,
            rate_burst: config.diffs.rate_burst,
            max_document_bytes: None,
            fetch: FetchPolicy {
                allow_loopback: config.webhooks.allow_loopback_urls,
                ..FetchPolicy::default()
            },
            anonymous: AnonymousLimits {
                max_life: time::Duration::days(i64::from(config.diffs.anonymous_max_days)),
                quota_bytes: config.diffs.anonymous_quota_bytes,
            },
            body_reader: BodyReader::default(),
        }
    }
}

/// Everything the diff handlers use.
#[derive(Clone)]
pub struct DiffsState {
    app: AppState,
    engine: Arc<dyn DiffEngine>,
    fetcher: Arc<dyn DocumentFetcher>,
    max_body_bytes: usize,
    /// The body limit is the diff route's own (`SPECPRESS_DIFF_MAX_BODY_BYTES`), not the function's.
    diff_limit_set: bool,
    /// What anonymous diffs may keep.
    anonymous: AnonymousLimits,
    body_reader: BodyReader,
}

/// The diff routes with the settings of the state's configuration ([`DiffsConfig::from_config`]).
pub fn router(state: AppState) -> Router {
    let config = DiffsConfig::from_config(&state.settings);
    router_with(state, config)
}

/// The diff routes with explicit settings.
pub fn router_with(state: AppState, mut config: DiffsConfig) -> Router {
    let max_document_bytes = config
        .max_document_bytes
        .unwrap_or(state.config.max_document_bytes);
    config.fetch.max_body_bytes = max_document_bytes as u64;
    let fetcher: Arc<dyn DocumentFetcher> = match SafeFetcher::new(config.fetch.clone()) {
        Ok(f) => Arc::new(f),
        Err(e) => {
            // TLS setup failure: URL diffs answer 422 "unavailable"; definition diffs keep working.
            tracing::error!(detail = %e.detail(), "the URL downloader could not be built");
            Arc::new(Unavailable)
        }
    };
    let engine = SpecDiffEngine::new(specpress_engines::engine::admission_limits(
        max_document_bytes,
    ));
    router_with_parts(state, config, Arc::new(engine), fetcher)
}

/// The diff routes with explicit parts (tests inject a downloader with a custom resolver).
pub fn router_with_parts(
    app: AppState,
    config: DiffsConfig,
    engine: Arc<dyn DiffEngine>,
    fetcher: Arc<dyn DocumentFetcher>,
) -> Router {
    let max_body_bytes = config.max_body_bytes.unwrap_or(app.config.max_body_bytes);
    let state = DiffsState {
        app,
        engine,
        fetcher,
        max_body_bytes,
        diff_limit_set: config.max_body_bytes.is_some(),
        anonymous: config.anonymous,
        body_reader: config.body_reader,
    };
    let create = post(create_diff);
    let create = match RateLimiter::new(config.rate_per_minute, config.rate_burst) {
        Some(l) => create.layer(axum::middleware::from_fn_with_state(l, limit::rate_limit)),
        None => create,
    };
    Router::new()
        .route("/api/v1/diffs", create)
        .route("/api/v1/diffs/{id}", get(show_diff))
        .route("/api/v1/diffs/{id}/previous.json", get(previous_json))
        .route("/api/v1/diffs/{id}/current.json", get(current_json))
        .route("/diff/{id}/previous.json", get(previous_json))
        .route("/diff/{id}/current.json", get(current_json))
        // Compressed as asked, like the public site's answers: the two documents of a large diff (7 MB and more)
        // only pass AWS Lambda's 6 MB payload limit compressed.
        .layer(specpress_api::compression::response_compression())
        .with_state(state)
}

struct Unavailable;

#[async_trait::async_trait]
impl DocumentFetcher for Unavailable {
    async fn fetch(&self, field: &str, _url: &str) -> specpress_domain::Result<String> {
        Err(DomainError::invalid(
            field,
            format!("{field} cannot be downloaded: URL downloads are unavailable"),
        ))
    }
}

fn diff_url(state: &DiffsState, id: &str) -> String {
    format!("{}/diff/{id}", state.app.config.public_base_url)
}

fn rfc3339(t: time::OffsetDateTime) -> Option<String> {
    t.format(&time::format_description::well_known::Rfc3339)
        .ok()
}

/// The answer when the anonymous quota stayed full of diffs being created (each keeps its bytes until it is done).
fn busy() -> Response {
    let mut resp = (
        StatusCode::SERVICE_UNAVAILABLE,
        axum::Json(json!({
            "message": "Anonymous diff storage is busy with diffs being created; retry in a few seconds"
        })),
    )
        .into_response();
    resp.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("2"));
    resp
}

async fn create_diff(State(state): State<DiffsState>, req: Request) -> Result<Response, ApiError> {
    // A token is optional: with a valid one the diff keeps today's terms; an invalid one is a 401 as elsewhere.
    let (mut parts, body) = req.into_parts();
    let MaybeAuth(principal) = MaybeAuth::from_request_parts(&mut parts, &state.app).await?;
    let req = Request::from_parts(parts, body);
    let creator = match principal {
        Some(_) => Creator::Authenticated,
        None => Creator::Anonymous(state.anonymous),
    };
    let setting = if state.diff_limit_set {
        "SPECPRESS_DIFF_MAX_BODY_BYTES"
    } else {
        "SPECPRESS_MAX_BODY_BYTES"
    };
    let bytes =
        specpress_api::body::read_limited(req, state.max_body_bytes, setting, &state.app.config)
            .await?;
    let reader = state.body_reader;
    let input = CpuGate::shared()
        .run(move || read_diff_body(reader, &bytes))
        .await??;
    let deps = DiffDeps {
        store: &*state.app.store,
        engine: &*state.engine,
        fetcher: &*state.fetcher,
    };
    let record = match diffs::create_diff(deps, input, creator, state.app.now()).await {
        Ok(r) => r,
        Err(DomainError::Conflict(_)) => return Ok(busy()),
        Err(e) => return Err(e.into()),
    };
    let id = record.id.to_string();
    let public_url = diff_url(&state, &id);
    // The effective expiry (an anonymous diff's is clamped to the ceiling); absent for a diff that never expires.
    let mut answer = json!({ "id": id, "public_url": public_url });
    if let Some(e) = record.expires_at.and_then(rfc3339) {
        answer["expires_at"] = json!(e);
    }
    Ok((StatusCode::CREATED, axum::Json(answer)).into_response())
}

/// Most values a request may give for `formats[]`, and for `formats`.
const MAX_FORMAT_VALUES: usize = 16;

/// The values of `formats[]` and `formats` in a raw query string; more than [`MAX_FORMAT_VALUES`] for either name is
/// a 400 (the ones past the limit were silently ignored, unchecked, before).
fn format_values(query: Option<&str>) -> Result<Vec<String>, ApiError> {
    let mut values = Vec::new();
    let (mut arrays, mut plain) = (0usize, 0usize);
    for (key, value) in url::form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        let count = match key.as_ref() {
            "formats[]" => &mut arrays,
            "formats" => &mut plain,
            _ => continue,
        };
        *count += 1;
        if *count > MAX_FORMAT_VALUES {
            return Err(DomainError::BadRequest(format!(
                "`{key}` takes at most {MAX_FORMAT_VALUES} values"
            ))
            .into());
        }
        values.push(value.into_owned());
    }
    Ok(values)
}

/// The JSON answer of `GET /diffs/{id}`: the record's fields, then the requested renderings in the order asked,
/// copied as stored.
struct DiffJson<'a> {
    id: String,
    title: &'a str,
    public_url: String,
    breaking: bool,
    expires_at: Option<String>,
    renderings: Vec<(&'static str, &'a RawValue)>,
}

impl Serialize for DiffJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &self.id)?;
        m.serialize_entry("title", self.title)?;
        m.serialize_entry("public_url", &self.public_url)?;
        m.serialize_entry("breaking", &self.breaking)?;
        m.serialize_entry(
            "previous_version_url",
            &format!("{}/previous.json", self.public_url),
        )?;
        m.serialize_entry(
            "current_version_url",
            &format!("{}/current.json", self.public_url),
        )?;
        if let Some(e) = &self.expires_at {
            m.serialize_entry("expires_at", e)?;
        }
        for (key, value) in &self.renderings {
            m.serialize_entry(key, value)?;
        }
        m.end()
    }
}

fn view_json(
    state: &DiffsState,
    view: &DiffView,
    formats: &[DiffFormat],
) -> Result<Vec<u8>, ApiError> {
    let id = view.record.id.to_string();
    let public_url = diff_url(state, &id);
    let expires_at = view.record.expires_at.and_then(rfc3339);
    let parts = view.rendered.parts()?;
    let renderings = formats
        .iter()
        .map(|f| match f {
            DiffFormat::Text => ("text", parts.text),
            DiffFormat::Markdown => ("markdown", parts.markdown),
            DiffFormat::Html => ("html", parts.html),
            DiffFormat::Json => ("details", parts.details),
        })
        .collect();
    let out = DiffJson {
        id,
        title: &view.record.title,
        public_url,
        breaking: view.record.breaking,
        expires_at,
        renderings,
    };
    serde_json::to_vec(&out).map_err(|e| ApiError::from(DomainError::unexpected(e)))
}

async fn show_diff(
    State(state): State<DiffsState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let values = format_values(query.as_deref())?;
    let formats = diffs::parse_formats(values.iter().map(String::as_str))?;
    let view = diffs::get_diff(&*state.app.store, &id, state.app.now()).await?;
    let body = view_json(&state, &view, &formats)?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

async fn document(state: &DiffsState, id: &str, side: DiffSide) -> Result<Response, ApiError> {
    let text =
        diffs::diff_document(&*state.app.store, &*state.engine, id, side, state.app.now()).await?;
    let mut resp = text.into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Ok(resp)
}

async fn previous_json(
    State(state): State<DiffsState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    document(&state, &id, DiffSide::Previous).await
}

async fn current_json(
    State(state): State<DiffsState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    document(&state, &id, DiffSide::Current).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configured_defaults_are_the_domain_defaults_of_anonymous_diffs() {
        let d = DiffsConfig::default();
        assert_eq!(d.anonymous, AnonymousLimits::default());
        assert_eq!((d.rate_per_minute, d.rate_burst), (120, 30));
        assert_eq!((d.max_body_bytes, d.max_document_bytes), (None, None));
        assert!(!d.fetch.allow_loopback);
    }
}

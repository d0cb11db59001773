//! The HTTP kit shared by every Specpress router.
//!
//! - [`AppState`]: what every router carries (`Arc<dyn Store>`, the publisher, the configuration). No engine: a
//!   router that parses or diffs documents takes its engine beside the state.
//! - [`ApiError`]: domain errors in the shapes bump-cli understands (`{message}`; 422 `{message, errors}`).
//! - [`auth::Auth`] / [`auth::MaybeAuth`]: `Authorization: Token <t>` and the three deprecated Basic forms.
//! - [`body::JsonBody`]: JSON request bodies with a byte limit (413) and clear 400/422 errors.
//! - [`cpu::CpuGate`] (`specpress-cpu`): the process's one gate of CPU-bound jobs.
//! - [`with_common_layers`]: request ids, tracing, panic catching, the security headers of every answer
//!   ([`security`]); every function wraps its router with it.
//! - [`limit::RateLimiter`]: per-client rate limits (the diff routes; failed credential checks of the public site).
//! - [`session`]: the public site's session cookies; [`readers`]: who is reading the public routes (the site, the
//!   documentation's MCP servers, "Try it").
//! - [`reader_settings`]: the reader settings (`sso_readers`, `embed_origins`) of the documentation and hub `PATCH`.
//! - [`compression::response_compression`]: answers compressed as the client accepts (gzip, br).
//!
//! A router is a `fn router(state: AppState, ..) -> axum::Router` in a library crate of its API area (paths under
//! `/api/v1`); a Lambda function runs it through the HTTP Lambda helper (`specpress-http-lambda`), and
//! `specpress serve` merges all of them. This crate links no storage adapter, no engine and no AWS SDK.

pub mod auth;
pub mod body;
pub mod compression;
pub mod error;
pub mod hosts;
pub mod limit;
pub mod pagination;
pub mod reader_settings;
pub mod readers;
pub mod security;
pub mod session;
pub mod urls;

pub use specpress_config::{Config, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DOCUMENT_BYTES, Runtime};
pub use specpress_cpu as cpu;

use std::sync::Arc;

use axum::Router;
use specpress_domain::ports::{EventPublisher, NoPublisher, Store};
use specpress_domain::webhooks::SecretSealer;
use time::OffsetDateTime;

pub use error::{ApiError, Result};

/// Settings the HTTP layer needs.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// Base of every `*_public_url` (no trailing slash), e.g. `http://127.0.0.1:3000`; empty: derived from each
    /// request ([`urls::public_base`]).
    pub public_base_url: String,
    /// `SPECPRESS_TRUST_FORWARDED_HOST`: a derived base may take `X-Forwarded-Host` and `X-Forwarded-Proto` (set by
    /// a proxy in front); otherwise only `Host` ([`urls::public_base`]).
    pub trust_forwarded_host: bool,
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
            trust_forwarded_host: false,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
            runtime: Runtime::Local,
        }
    }

    /// The HTTP-layer part of a [`Config`].
    pub fn from_config(config: &Config) -> Self {
        ApiConfig {
            max_body_bytes: config.max_body_bytes,
            max_document_bytes: config.max_document_bytes,
            runtime: config.runtime,
            trust_forwarded_host: config.trust_forwarded_host,
            ..ApiConfig::new(config.public_url.clone())
        }
    }
}

/// Shared state of every HTTP function. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    /// All storage ports.
    pub store: Arc<dyn Store>,
    /// Where deploys hand their committed events (the webhook queue); [`NoPublisher`] (the outbox sweeper's job)
    /// unless [`AppState::with_publisher`] sets one.
    pub publisher: Arc<dyn EventPublisher>,
    /// Settings of the HTTP layer.
    pub config: Arc<ApiConfig>,
    /// The whole configuration (the functions' own settings: diff limits, page caches), read once at start.
    pub settings: Arc<Config>,
    /// The per-client limit of failed credential checks on the public site (`SPECPRESS_AUTH_FAILURE_*`); `None`
    /// when disabled. One per process, so in `specpress serve` every router counts against the same budget.
    pub auth_failures: Option<Arc<limit::RateLimiter>>,
    /// Seals and opens the secrets kept at rest (the identity provider's client secret), with the key of
    /// `SPECPRESS_WEBHOOK_SECRET_KEY` (`specpress serve`: the data directory's); `None` when no key is configured,
    /// and then what needs it answers 503.
    pub sealer: Option<SecretSealer>,
    /// Outbound mail (confirmation mails of readers following a documentation); `None` when this process sends
    /// none, and then the follow form answers 503.
    pub mailer: Option<Arc<dyn specpress_domain::ports::Mailer>>,
}

impl AppState {
    /// Builds the state.
    pub fn new(store: Arc<dyn Store>, config: ApiConfig) -> Self {
        AppState {
            store,
            publisher: Arc::new(NoPublisher),
            config: Arc::new(config),
            settings: Arc::new(Config::default()),
            auth_failures: auth_failure_limiter(&Config::default()),
            sealer: None,
            mailer: None,
        }
    }

    /// The state of a process configured by `config`: the HTTP layer has its settings.
    pub fn from_config(config: &Config, store: Arc<dyn Store>) -> Self {
        AppState {
            settings: Arc::new(config.clone()),
            auth_failures: auth_failure_limiter(config),
            sealer: config
                .webhooks
                .secret_key()
                .ok()
                .map(|key| SecretSealer::new(&key)),
            ..AppState::new(store, ApiConfig::from_config(config))
        }
    }

    /// The same state, sealing secrets with `sealer`.
    pub fn with_sealer(mut self, sealer: SecretSealer) -> Self {
        self.sealer = Some(sealer);
        self
    }

    /// The same state, sending mail with `mailer`.
    pub fn with_mailer(mut self, mailer: Arc<dyn specpress_domain::ports::Mailer>) -> Self {
        self.mailer = Some(mailer);
        self
    }

    /// The same state, deploys handing their committed events to `publisher`.
    pub fn with_publisher(mut self, publisher: Arc<dyn EventPublisher>) -> Self {
        self.publisher = publisher;
        self
    }

    /// The same state, deploys handing their committed events to `publisher` when there is one (else to the
    /// outbox sweeper, as before).
    pub fn publishing_to(self, publisher: Option<Arc<dyn EventPublisher>>) -> Self {
        match publisher {
            Some(p) => self.with_publisher(p),
            None => self,
        }
    }

    /// The current time (one place, so handlers never call the clock themselves).
    pub fn now(&self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }
}

/// The limiter of failed credential checks `config` asks for.
fn auth_failure_limiter(config: &Config) -> Option<Arc<limit::RateLimiter>> {
    limit::RateLimiter::new(
        config.auth.failure_rate_per_minute,
        config.auth.failure_burst,
    )
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
/// extractor rejections), the security headers on every answer ([`security::security_headers`]), and the rest of a
/// body its handler did not read, read before answering ([`body::linger`]).
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
        .layer(axum::middleware::from_fn(security::security_headers))
        .layer(
            TraceLayer::new_for_http().make_span_with(|req: &axum::http::Request<axum::body::Body>| {
                let id = req.headers().get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or("");
                tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id = %id)
            }),
        )
        .layer(PropagateRequestIdLayer::new(header.clone()))
        .layer(SetRequestIdLayer::new(header, MakeRequestUuid))
        // Outermost, so that whatever a handler leaves unread of a body is read before its answer leaves.
        .layer(axum::middleware::from_fn(body::linger))
}

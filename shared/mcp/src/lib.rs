//! The MCP kit: what both MCP servers of Specpress (the documentation's, `specpress-docs-mcp`, and the workflows',
//! `specpress-workflow-mcp`) share, so that each is only its tools and how it resolves a request.
//!
//! - [`service`]: the official SDK's (`rmcp`) Streamable HTTP service, stateless: every request stands alone (no
//!   session id, no server-sent stream kept open, answers as `application/json`), so it runs unchanged on Lambda
//!   behind API Gateway, on any instance. The SDK's `Host` check against DNS rebinding is off: the endpoints are
//!   served under whatever host the deployment has (`SPECPRESS_PUBLIC_URL` or API Gateway's), behind their own
//!   access rules, and send no CORS headers, so a page of another origin cannot read an answer.
//! - The request's scope: what a server resolved before the SDK sees the request (the documentation and its
//!   reader, or the workflows and their secrets) travels to the tools in the request's extensions ([`serve`],
//!   [`scope_in`], [`scope_of`]).
//! - [`Limit`]: requests per client (`SPECPRESS_MCP_RATE_PER_MINUTE`, `SPECPRESS_MCP_BURST`), checked before any
//!   lookup, so a refused request costs no storage read.
//! - [`answer`]: every HTTP refusal of an MCP route is JSON in the API's shape (`{message}`), a 429 with
//!   `Retry-After`, never an HTML page; a tool's failure is either a tool error result or a JSON-RPC error
//!   ([`answer::Fail`]).
//! - [`schema`]: tool schemas in standard JSON Schema (no `format` a standard validator does not know, such as the
//!   `uint` schemars writes for unsigned integers), and the check the servers' tests run on every tool.
//! - [`server_config`]: what every server tells a client it connects to.

pub mod answer;
pub mod schema;

use std::sync::Arc;

use axum::extract::Request;
use axum::http::request::Parts;
use axum::response::Response;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler};
use specpress_api::limit::{RateLimiter, client_of};
use tower::ServiceExt;

/// The SDK's stateless service over a handler, built once per process.
pub type Service<H> = StreamableHttpService<H, NeverSessionManager>;

/// The Streamable HTTP service of `handler` (see the crate documentation), taking JSON-RPC request bodies of at
/// most `max_request_bytes`.
pub fn service<H>(handler: H, max_request_bytes: usize) -> Service<H>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_sse_retry(None)
        .with_max_request_body_bytes(max_request_bytes)
        .disable_allowed_hosts();
    StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

/// Hands a request to the SDK with its `scope` (what the route resolved) in its extensions.
pub async fn serve<H, T>(service: &Service<H>, scope: T, mut req: Request) -> Response
where
    H: ServerHandler + Send + 'static,
    T: Clone + Send + Sync + 'static,
{
    req.extensions_mut().insert(scope);
    match service.clone().oneshot(req).await {
        Ok(resp) => resp.map(axum::body::Body::new),
        Err(never) => match never {},
    }
}

/// The scope [`serve`] put in a request, from the request parts a tool receives (`Extension<Parts>`).
pub fn scope_in<T: Send + Sync + 'static>(parts: &Parts) -> Option<&T> {
    parts.extensions.get::<T>()
}

/// The scope [`serve`] put in the request a handler answers.
pub fn scope_of<T: Send + Sync + 'static>(context: &RequestContext<RoleServer>) -> Option<&T> {
    context
        .extensions
        .get::<Parts>()
        .and_then(|p| p.extensions.get::<T>())
}

/// What a server tells every client: its name, this build's version, that it has tools, and its instructions.
pub fn server_config(name: &'static str, instructions: &'static str) -> ServerConfig {
    ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        .with_server_info(Implementation::new(name, env!("CARGO_PKG_VERSION")))
        .with_instructions(instructions)
}

/// The per-client limit of MCP requests (`None` inside: disabled).
#[derive(Clone, Default)]
pub struct Limit(Option<Arc<RateLimiter>>);

impl Limit {
    /// `burst` requests at once, refilled at `per_minute` a minute (0: no limit).
    pub fn new(per_minute: u32, burst: u32) -> Self {
        Limit(RateLimiter::new(per_minute, burst))
    }

    /// The 429 due when the request's client is over its limit (a request is taken from its budget otherwise).
    // The error is the answer itself, made at most once per request.
    #[allow(clippy::result_large_err)]
    pub fn check(&self, req: &Request) -> Result<(), Response> {
        let Some(limiter) = &self.0 else {
            return Ok(());
        };
        limiter
            .check(&client_of(req.extensions()))
            .map_err(answer::too_many_requests)
    }

    /// Whether the limiter is on (tests).
    pub fn enabled(&self) -> bool {
        self.0.is_some()
    }
}

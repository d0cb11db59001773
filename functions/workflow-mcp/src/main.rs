//! The workflow MCP Lambda: wiring only (the HTTP Lambda helper: tracing, configuration, clients built once, run).

use specpress_alloc as _;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_http_lambda::run(|w| {
        let key = w.config.webhooks.secret_key()?;
        let sealer = specpress_domain::webhooks::SecretSealer::new(&key);
        let router = specpress_workflow_mcp::router(w.state, sealer)?;
        Ok(router.fallback(specpress_api::error::not_found_route))
    })
    .await
}

//! The MCP servers Lambda: wiring only (the HTTP Lambda helper, plus the secret sealer).

use specpress_alloc as _;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_http_lambda::run(|w| {
        let key = w.config.webhooks.secret_key()?;
        let sealer = specpress_domain::webhooks::SecretSealer::new(&key);
        Ok(specpress_mcp_servers_api::router(w.state, sealer)
            .fallback(specpress_api::error::not_found_route))
    })
    .await
}

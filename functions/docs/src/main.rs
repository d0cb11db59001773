//! The docs Lambda: wiring only (the HTTP Lambda helper: tracing, configuration, clients built once, run).

use specpress_alloc as _;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_http_lambda::run(|w| Ok(specpress_site::router(w.state))).await
}

//! The docs Lambda: wiring only (the HTTP Lambda helper: tracing, configuration, clients built once, run).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_api::lambda::run(|w| Ok(specpress_site::router(w.state))).await
}

//! The Try it Lambda: wiring only (the HTTP Lambda helper: tracing, configuration, clients built once, run).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_api::lambda::run(|w| Ok(specpress_try_it::router(w.state))).await
}

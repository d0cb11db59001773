//! The diff Lambda: wiring only (the HTTP Lambda helper: tracing, configuration, clients built once, run).
//! API Gateway caps payloads at 6 MB whatever is configured; larger documents are compared by URL.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_api::lambda::run(|w| Ok(diffs::router(w.state))).await
}

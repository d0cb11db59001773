//! The diff Lambda: wiring only (the HTTP Lambda helper: tracing, configuration, clients built once, run).
//! AWS caps what passes whatever is configured: Lambda's invocation payload at 6 MB, API Gateway's request body at
//! 10 MB. Larger documents are sent gzip-compressed or compared by URL; the helper compresses (or refuses with a 406
//! naming the way around) answers over the limit (docs/limits.md, "On AWS").

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_api::lambda::run(|w| Ok(diffs::router(w.state))).await
}

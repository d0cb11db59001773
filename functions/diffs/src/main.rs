//! The diff Lambda: wiring only (the HTTP Lambda helper: tracing, configuration, clients built once, run). The
//! routes, their engine and their URL downloader are `specpress_api_diffs`'.
//! AWS caps what passes whatever is configured: Lambda's invocation payload at 6 MB, API Gateway's request body at
//! 10 MB. Larger documents are sent gzip-compressed or compared by URL; the helper compresses (or refuses with a 406
//! naming the way around) answers over the limit (docs/limits.md, "On AWS").

use specpress_alloc as _; // The global allocator (mimalloc): each binary links it itself.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_http_lambda::run(|w| Ok(specpress_api_diffs::router(w.state))).await
}

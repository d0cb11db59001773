//! The branches Lambda: wiring only (the HTTP Lambda helper: tracing, configuration, clients built once, run). The
//! routes are `specpress_api_branches`'.

// The global allocator of every Specpress binary (mimalloc), linked by each binary itself.
use specpress_alloc as _;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_http_lambda::run(|w| Ok(specpress_api_branches::router(w.state))).await
}

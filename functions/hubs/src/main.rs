//! The hubs Lambda: wiring only (the HTTP Lambda helper: tracing, configuration, clients built once, run). The routes
//! are `specpress_api_hubs`' and `specpress_api_readers`' (reader tokens of hubs and documentations); this function
//! links no spec or diff engine.

use specpress_alloc as _; // The global allocator (mimalloc): each binary links it itself.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_http_lambda::run(|w| {
        Ok(specpress_api_hubs::router(w.state.clone())
            .merge(specpress_api_readers::router(w.state)))
    })
    .await
}

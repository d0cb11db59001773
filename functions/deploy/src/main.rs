//! The deploy Lambda: wiring only (the HTTP Lambda helper, the spec engine, and the webhook queue, to which committed
//! events are published right after each deploy transaction when one is configured; the sweeper covers failures).

use specpress_alloc as _; // The global allocator (mimalloc): each binary links it itself.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_http_lambda::run(|w| {
        let engine = std::sync::Arc::new(specpress_engines::Engines::for_config(&w.config));
        let publisher = specpress_queue_sqs::publisher(&w.aws, &w.config);
        let router = specpress_api_deploy::router(w.state.publishing_to(publisher), engine);
        Ok(router.fallback(specpress_api::error::not_found_route))
    })
    .await
}

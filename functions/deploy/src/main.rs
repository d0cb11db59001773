//! The deploy Lambda: wiring only (the HTTP Lambda helper, the spec engine, the webhook queue). With a webhook queue
//! configured, committed events are published to it right after each deploy transaction (the outbox sweeper covers
//! failures).

use std::sync::Arc;

use specpress_engines::Engines;
// The global allocator of every Specpress binary (mimalloc), linked by each binary itself.
use specpress_alloc as _;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_http_lambda::run(|w| {
        let engine = Arc::new(Engines::with_max_document_bytes(
            w.config.max_document_bytes,
        ));
        let state = match specpress_queue_sqs::publisher(&w.aws, &w.config) {
            Some(publisher) => w.state.with_publisher(publisher),
            None => w.state,
        };
        let router = specpress_api_deploy::router(state, engine);
        Ok(router.fallback(specpress_api::error::not_found_route))
    })
    .await
}

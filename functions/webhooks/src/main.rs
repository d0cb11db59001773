//! The webhooks Lambda: wiring only (the HTTP Lambda helper, plus the SQS queue and the delivery service). The
//! routes are `specpress_api_webhooks`'.

use std::sync::Arc;

use specpress_engines::Engines;
// The global allocator of every Specpress binary (mimalloc), linked by each binary itself.
use specpress_alloc as _;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_http_lambda::run(|w| {
        let queue = Arc::new(specpress_queue_sqs::SqsQueue::from_config(
            &w.aws, &w.config,
        )?);
        let engine = Arc::new(Engines::with_max_document_bytes(
            w.config.max_document_bytes,
        ));
        let store = w.state.store.clone();
        let service = specpress_workers::delivery_service(&w.config, store, engine, queue)?;
        let router = specpress_api_webhooks::router(w.state, service);
        Ok(router.fallback(specpress_api::error::not_found_route))
    })
    .await
}

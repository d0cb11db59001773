//! The webhooks Lambda: wiring only (the HTTP Lambda helper, plus the SQS queue and the delivery service). The
//! routes are `specpress_api_webhooks`'.

use specpress_alloc as _; // The global allocator (mimalloc): each binary links it itself.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_http_lambda::run(|w| {
        let store = w.state.store.clone();
        let (service, _) = specpress_workers::lambda::sqs_event_path(&w.config, &w.aws, store)?;
        let router = specpress_api_webhooks::router(w.state, service);
        Ok(router.fallback(specpress_api::error::not_found_route))
    })
    .await
}

//! The webhooks Lambda: wiring only (the HTTP Lambda helper, plus the SQS queue and the delivery service).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_api::lambda::run(|w| {
        let queue = std::sync::Arc::new(specpress_queue_sqs::SqsQueue::from_config(
            &w.aws, &w.config,
        )?);
        let (store, engine) = (w.state.store.clone(), w.state.engine.clone());
        let service = specpress_workers::delivery_service(&w.config, store, engine, queue)?;
        Ok(webhooks::router(w.state, service).fallback(specpress_api::error::not_found_route))
    })
    .await
}

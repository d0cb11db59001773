//! Lambda entry point for the deploy function: wiring only (tracing, config, clients built once, run).

use std::sync::Arc;

use specpress_api::config::FunctionConfig;
use specpress_api::lambda;
use specpress_store_dynamodb::DynamoStore;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_api::logging::init_lambda();
    let config = FunctionConfig::from_env()?;
    let aws = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
    let mut store = DynamoStore::new(aws_sdk_dynamodb::Client::new(&aws), config.table.clone());
    if let Some(url) = &config.queue_url {
        // Committed events go to the webhook queue right after the transaction (the sweeper covers failures).
        let dlq = std::env::var("SPECPRESS_DEAD_LETTER_QUEUE_URL").ok();
        let sqs = specpress_queue_sqs::SqsClient::new(&aws);
        store = store.with_event_queue(Arc::new(specpress_queue_sqs::SqsQueue::new(
            sqs,
            url.clone(),
            dlq,
        )));
    }
    let state = lambda::state(&config, Arc::new(store));
    lambda::run(deploy::router(state).fallback(specpress_api::error::not_found_route)).await
}

//! Lambda entry point for the webhook delivery function: wiring only (tracing, config, clients built once, run).

use std::sync::Arc;

use specpress_api::config::FunctionConfig;
use specpress_api::engine::Engines;
use specpress_queue_sqs::config::{WebhookSettings, delivery_service, queue_urls_from_env};
use specpress_queue_sqs::{BatchOptions, SqsClient, SqsQueue};
use specpress_store_dynamodb::DynamoStore;
use webhook_delivery::{Handler, handle};

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    specpress_api::logging::init_lambda();
    let config = FunctionConfig::from_env()?;
    let settings = WebhookSettings::from_env(None)?;
    let (queue_url, dead_letter_url) = queue_urls_from_env()?;
    let aws = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
    let queue = Arc::new(SqsQueue::new(
        SqsClient::new(&aws),
        queue_url,
        dead_letter_url,
    ));
    let store = Arc::new(DynamoStore::new(
        aws_sdk_dynamodb::Client::new(&aws),
        config.table.clone(),
    ));
    let service = delivery_service(
        store,
        Arc::new(Engines::default()),
        queue.clone(),
        &settings,
        &config.public_base_url,
    )?;
    let handler = Handler {
        service,
        queue,
        options: BatchOptions::default(),
    };
    lambda_runtime::run(lambda_runtime::service_fn(|event| handle(&handler, event))).await
}

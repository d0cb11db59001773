//! The docs Lambda: wiring only (tracing, configuration from the environment, clients built once, run).

use std::sync::Arc;

use specpress_api::config::FunctionConfig;
use specpress_api::lambda;
use specpress_store_dynamodb::DynamoStore;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_api::logging::init_lambda();
    let config = FunctionConfig::from_env()?;
    let aws = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(&aws), config.table.clone());
    lambda::run(docs::router(lambda::state(&config, Arc::new(store)))).await
}

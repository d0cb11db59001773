//! The hubs Lambda: wiring only (tracing, configuration from the environment, clients built once, run).

use std::sync::Arc;

use specpress_api::AppState;
use specpress_api::config::FunctionConfig;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    tracing_subscriber::fmt()
        .json()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let config = FunctionConfig::from_env()?;
    let aws = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
    let store = specpress_store_dynamodb::DynamoStore::new(
        aws_sdk_dynamodb::Client::new(&aws),
        config.table.clone(),
    );
    let state = AppState::new(
        Arc::new(store),
        Arc::new(specpress_api::engine::Engines::default()),
        config.api(),
    );
    lambda_http::run(specpress_api::with_common_layers(hubs::router(state))).await
}

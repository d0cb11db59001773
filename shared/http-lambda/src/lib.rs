//! The helper of the HTTP Lambda kind: every HTTP function's `main.rs` hands [`run`] the function that builds its
//! router. [`run`] sets up tracing, reads the [`Config`] once (failing fast naming a variable), installs the cursor
//! key, builds the clients once (the AWS SDK configuration and the DynamoDB store) and serves the router, wrapped with
//! [`with_common_layers`] and then, outermost, with the Lambda response layer ([`response::fit_for_lambda`]: repeated
//! headers joined, answers over the 6 MB invocation payload limit gzip-compressed or refused with a 406 naming the way
//! around), through `lambda_http` until the runtime stops.
//!
//! A crate of its own, apart from the HTTP kit (`specpress-api`), so that the kit links no AWS SDK and no storage
//! adapter: `specpress serve` and the tests use the kit without this. It builds no engine either: a function that
//! parses or diffs documents builds its engine from [`Wiring::config`] and carries it in its own router.
//!
//! Mail (issue 38): when `SPECPRESS_MAIL_FROM` is set (template.yaml sets it on the functions that send, from its
//! `MailFrom` parameter), the state carries the Amazon SES mailer ([`specpress_mail::aws_mailer`]); the docs function
//! sends the follow form's confirmations with it.

pub mod response;

use std::sync::Arc;

use axum::Router;
use specpress_api::{AppState, with_common_layers};
use specpress_config::{Config, Runtime, logging};
use specpress_store_dynamodb::DynamoStore;

/// What a router is built from: the configuration, the state every router carries, and the AWS SDK configuration
/// for the clients a function adds (the SQS queue of the deploy and webhooks functions).
#[derive(Debug)]
pub struct Wiring {
    /// The configuration.
    pub config: Config,
    /// Store and settings (deploys publish nowhere until a function sets a publisher).
    pub state: AppState,
    /// The AWS SDK configuration the store was built with.
    pub aws: aws_config::SdkConfig,
}

/// Runs an HTTP function on Lambda: tracing, configuration, clients, `router(wiring)` with the common layers and the
/// Lambda response layer, `lambda_http::run`.
pub async fn run<F>(router: F) -> Result<(), lambda_http::Error>
where
    F: FnOnce(Wiring) -> Result<Router, lambda_http::Error>,
{
    let _ = logging::init_tracing(Runtime::Lambda);
    let config = Config::from_env()?;
    specpress_api::pagination::install_configured_key(config.cursor_key.as_deref());
    let aws = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(&aws), config.require_table()?);
    let mut state = AppState::from_config(&config, Arc::new(store));
    if let Some(mailer) = specpress_mail::aws_mailer(&config, &aws)? {
        state = state.with_mailer(mailer);
    }
    let router = router(Wiring { config, state, aws })?;
    let app = response::fit_for_lambda(with_common_layers(router));
    lambda_http::run(app).await
}

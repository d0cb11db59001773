//! The webhook event path outside HTTP, in a crate that links no HTTP server (no axum, lambda_http or tower-http).
//!
//! - [`batch`]: the per-batch driver shared by the SQS consumer Lambda and the local consumer.
//! - [`lambda`]: one helper per non-HTTP Lambda kind: [`lambda::run_sqs_consumer`] (webhook delivery) and
//!   [`lambda::run_scheduled`] with [`lambda::sweep_once`] (the outbox sweeper).
//!   [`lambda::send_digests_once`] (the digests function).
//! - [`local`]: the consumer, sweeper and digest loops `specpress serve` runs in-process.
//! - [`mail_events`]: SES bounces and complaints (through SNS) suspend the address (the `mail-events` function).
//! - [`service::delivery_service`]: the event path ([`DeliveryService`]) from the configuration;
//!   [`sender::FetchSender`]: webhook POSTs through the hardened HTTP client.
//!
//! [`DeliveryService`]: specpress_domain::usecases::delivery::DeliveryService

pub mod batch;
pub mod lambda;
pub mod local;
pub mod mail_events;
pub mod sender;
pub mod service;

pub use batch::{BatchOptions, BatchReport, process_batch};
pub use local::{run_consumer, run_digests, run_sweeper};
pub use service::delivery_service;

//! Specpress domain: the entities, newtypes and token rules, the storage ports (one trait per capability plus the
//! [`ports::Store`] supertrait), the spec-engine port, and the use cases the HTTP functions call.
//!
//! This crate knows nothing of DynamoDB, HTTP or Lambda. Adapters (`specpress-store-dynamodb`, `specpress-api`)
//! implement the ports; functions wire them together.

pub mod branch_rules;
pub mod engine;
pub mod error;
pub mod model;
pub mod ports;
pub mod token;
pub mod urls;
pub mod usecases;
pub mod webhooks;

pub use error::{ConflictKind, DomainError, Result};

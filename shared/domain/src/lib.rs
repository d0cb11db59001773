//! Specpress domain: the entities, newtypes and token rules, the ports (one trait per capability, in [`ports`],
//! with the [`ports::Store`] supertrait), and the use cases the functions call.
//!
//! This crate knows nothing of DynamoDB, SQS, HTTP or Lambda. Adapters implement the ports; functions wire them
//! together. Module dependencies point one way: `usecases` -> `ports` -> (`model`, `webhooks`, `token`, `mcp`,
//! `session`, `readers`, `sso`, `hostname`, `embed`, `accepted`, `follow`).

pub mod accepted;
pub mod branch_rules;
pub mod digest;
pub mod embed;
pub mod error;
pub mod follow;
pub mod hostname;
pub mod mcp;
pub mod model;
pub mod notify;
pub mod ports;
pub mod readers;
pub mod session;
pub mod sso;
pub mod token;
pub mod urls;
pub mod usecases;
pub mod webhooks;

pub use error::{ConflictKind, DomainError, Result};

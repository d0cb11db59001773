//! AttributeValue helpers and SDK error mapping, shared with the table-resident queue (`specpress-local`). The SDK
//! types stay in the adapters.

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use specpress_domain::DomainError;
use std::collections::HashMap;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

pub type Item = HashMap<String, AttributeValue>;

pub fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

pub fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

pub fn b(v: Vec<u8>) -> AttributeValue {
    AttributeValue::B(Blob::new(v))
}

pub fn ts(t: OffsetDateTime) -> AttributeValue {
    // Rfc3339 formatting of a UTC time cannot fail for years 0..=9999.
    s(t.format(&Rfc3339).unwrap_or_default())
}

/// A malformed stored item: a bug or corruption, never a client error.
#[derive(Debug, thiserror::Error)]
#[error("stored item is malformed: {0}")]
pub struct Malformed(pub String);

pub fn bad(what: &str) -> DomainError {
    DomainError::unexpected(Malformed(what.to_owned()))
}

pub fn get_s<'a>(item: &'a Item, k: &str) -> Result<&'a str, DomainError> {
    match item.get(k) {
        Some(AttributeValue::S(v)) => Ok(v),
        _ => Err(bad(k)),
    }
}

pub fn opt_s<'a>(item: &'a Item, k: &str) -> Option<&'a str> {
    match item.get(k) {
        Some(AttributeValue::S(v)) => Some(v),
        _ => None,
    }
}

pub fn get_n<T: std::str::FromStr>(item: &Item, k: &str) -> Result<T, DomainError> {
    match item.get(k) {
        Some(AttributeValue::N(v)) => v.parse().map_err(|_| bad(k)),
        _ => Err(bad(k)),
    }
}

pub fn get_bool(item: &Item, k: &str) -> bool {
    matches!(item.get(k), Some(AttributeValue::Bool(true)))
}

pub fn get_b<'a>(item: &'a Item, k: &str) -> Result<&'a [u8], DomainError> {
    match item.get(k) {
        Some(AttributeValue::B(v)) => Ok(v.as_ref()),
        _ => Err(bad(k)),
    }
}

pub fn get_ts(item: &Item, k: &str) -> Result<OffsetDateTime, DomainError> {
    OffsetDateTime::parse(get_s(item, k)?, &Rfc3339).map_err(|_| bad(k))
}

pub fn opt_ts(item: &Item, k: &str) -> Result<Option<OffsetDateTime>, DomainError> {
    match opt_s(item, k) {
        Some(v) => OffsetDateTime::parse(v, &Rfc3339)
            .map(Some)
            .map_err(|_| bad(k)),
        None => Ok(None),
    }
}

pub fn parse_uuid(item: &Item, k: &str) -> Result<uuid::Uuid, DomainError> {
    uuid::Uuid::try_parse(get_s(item, k)?).map_err(|_| bad(k))
}

pub fn opt_uuid(item: &Item, k: &str) -> Result<Option<uuid::Uuid>, DomainError> {
    match opt_s(item, k) {
        Some(v) => uuid::Uuid::try_parse(v).map(Some).map_err(|_| bad(k)),
        None => Ok(None),
    }
}

/// Maps an SDK error to `Unexpected`, logging its code (never request data).
pub fn sdk<E, R>(op: &'static str) -> impl FnOnce(SdkError<E, R>) -> DomainError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug + Send + Sync + 'static,
{
    move |e| {
        tracing::error!(operation = op, code = ?e.code(), message = ?e.message(), "dynamodb call failed");
        DomainError::unexpected(e)
    }
}

/// The outcome of a conditional write: `Some(output)` when written, `None` when DynamoDB refused it because its
/// condition did not hold (`ConditionalCheckFailedException`); any other failure is mapped by [`sdk`].
pub fn conditional<T, E, R>(
    op: &'static str,
    r: Result<T, SdkError<E, R>>,
) -> Result<Option<T>, DomainError>
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug + Send + Sync + 'static,
{
    match r {
        Ok(out) => Ok(Some(out)),
        Err(e)
            if e.as_service_error()
                .is_some_and(|e| e.code() == Some("ConditionalCheckFailedException")) =>
        {
            Ok(None)
        }
        Err(e) => Err(sdk(op)(e)),
    }
}

/// The elements of list attribute `k`, each mapped by `f`; `None` when the item has no list under `k`.
pub fn map_list<T>(
    item: &Item,
    k: &str,
    f: impl FnMut(&AttributeValue) -> Result<T, DomainError>,
) -> Result<Option<Vec<T>>, DomainError> {
    match item.get(k) {
        Some(AttributeValue::L(l)) => l.iter().map(f).collect::<Result<_, _>>().map(Some),
        _ => Ok(None),
    }
}

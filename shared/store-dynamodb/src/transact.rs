//! The one way this adapter runs a `TransactWriteItems`: every multi-item write (deploy commits, creations, token
//! rotations, branch administration, subscriptions, MCP servers) goes through [`transact_conditional`], or through
//! [`transact`] when each action's failed condition means one [`ConflictKind`].

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::TransactWriteItem;
use specpress_domain::{ConflictKind, DomainError, Result};

use crate::attr::sdk;

/// Attempts of a transaction cancelled by a concurrent transaction on the same items (`TransactionConflict`).
const CONFLICT_ATTEMPTS: u32 = 6;

/// Runs a transaction; on cancellation, returns the index of the first action whose condition failed. A cancellation
/// caused only by a concurrent transaction (DynamoDB's `TransactionConflict`: nothing was written) is retried with a
/// short backoff.
pub(crate) async fn transact_conditional(
    client: &aws_sdk_dynamodb::Client,
    items: Vec<TransactWriteItem>,
) -> Result<Result<(), usize>> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        match client
            .transact_write_items()
            .set_transact_items(Some(items.clone()))
            .send()
            .await
        {
            Ok(_) => return Ok(Ok(())),
            Err(SdkError::ServiceError(se)) => {
                if let TransactWriteItemsError::TransactionCanceledException(tc) = se.err() {
                    let reasons = tc.cancellation_reasons();
                    if let Some(i) = reasons
                        .iter()
                        .position(|r| r.code().is_some_and(|c| c == "ConditionalCheckFailed"))
                    {
                        return Ok(Err(i));
                    }
                    let conflict = reasons
                        .iter()
                        .any(|r| r.code().is_some_and(|c| c == "TransactionConflict"));
                    if conflict && attempt < CONFLICT_ATTEMPTS {
                        tokio::time::sleep(std::time::Duration::from_millis(10 << attempt)).await;
                        continue;
                    }
                }
                return Err(sdk("TransactWriteItems")(SdkError::ServiceError(se)));
            }
            Err(e) => return Err(sdk("TransactWriteItems")(e)),
        }
    }
}

/// Runs a transaction, mapping a cancellation to the conflict kind of its first failed action: `kinds[i]` for the
/// action at `i` (`Stale` for an action past the end of `kinds`).
pub(crate) async fn transact(
    client: &aws_sdk_dynamodb::Client,
    items: Vec<TransactWriteItem>,
    kinds: &[ConflictKind],
) -> Result<()> {
    match transact_conditional(client, items).await? {
        Ok(()) => Ok(()),
        Err(i) => Err(DomainError::Conflict(
            kinds.get(i).copied().unwrap_or(ConflictKind::Stale),
        )),
    }
}

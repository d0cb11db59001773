//! Webhook subscriptions storage.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::model::DocId;
use crate::webhooks::{Subscription, SubscriptionId};

/// Subscriptions storage.
#[async_trait]
pub trait SubscriptionStore: Send + Sync {
    /// Creates a subscription; `Conflict(AlreadyExists)` on an id collision.
    async fn create_subscription(&self, s: &Subscription) -> Result<()>;
    /// Reads a subscription of a documentation.
    async fn get_subscription(
        &self,
        doc: DocId,
        id: SubscriptionId,
    ) -> Result<Option<Subscription>>;
    /// A documentation's subscriptions, oldest first.
    async fn list_subscriptions(&self, doc: DocId) -> Result<Vec<Subscription>>;
    /// Writes the API-managed fields (url, description, branches, enabled, disabled reason, secrets,
    /// updated_at); `NotFound` when it no longer exists. Never touches the failure streak.
    async fn update_subscription(&self, s: &Subscription) -> Result<()>;
    /// Deletes a subscription; `false` when it did not exist.
    async fn delete_subscription(&self, doc: DocId, id: SubscriptionId) -> Result<bool>;
    /// Records the outcome of an attempt on the endpoint's failure streak: a success clears it, a failure
    /// starts it at `now` unless one is running. Returns the streak start after the update.
    async fn record_endpoint_outcome(
        &self,
        doc: DocId,
        id: SubscriptionId,
        success: bool,
        now: OffsetDateTime,
    ) -> Result<Option<OffsetDateTime>>;
    /// Disables a subscription automatically with a reason.
    async fn disable_subscription(
        &self,
        doc: DocId,
        id: SubscriptionId,
        reason: &str,
        now: OffsetDateTime,
    ) -> Result<()>;
}

//! A documentation's or hub's owner settings (`visibility`, `try_it`): one attribute of its item set, with
//! `modified_at`, by a conditional update that never creates the item.

use aws_sdk_dynamodb::types::ReturnValue;
use specpress_domain::model::Visibility;
use specpress_domain::{DomainError, Result};
use time::OffsetDateTime;

use crate::DynamoStore;
use crate::attr::*;

impl DynamoStore {
    /// Sets `visibility` and `modified_at` of an existing hub or documentation item and answers the item as stored
    /// (`NotFound(missing)` when there is no such item: it is never created by this update).
    pub(crate) async fn set_visibility(
        &self,
        pk: String,
        sk: &str,
        visibility: Visibility,
        now: OffsetDateTime,
        missing: &str,
    ) -> Result<Item> {
        self.set_setting(pk, sk, ("visibility", visibility.as_str()), now, missing)
            .await
    }

    /// Sets one string attribute (`(name, value)`, a name of ours, never the caller's) and `modified_at` of an
    /// existing item and answers the item as stored (`NotFound(missing)` when there is no such item).
    pub(crate) async fn set_setting(
        &self,
        pk: String,
        sk: &str,
        (name, value): (&'static str, &str),
        now: OffsetDateTime,
        missing: &str,
    ) -> Result<Item> {
        let r = self
            .client()
            .update_item()
            .table_name(self.table())
            .key("pk", s(pk))
            .key("sk", s(sk))
            .update_expression("SET #n = :v, modified_at = :t")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_names("#n", name)
            .expression_attribute_values(":v", s(value))
            .expression_attribute_values(":t", ts(now))
            .return_values(ReturnValue::AllNew)
            .send()
            .await;
        match r {
            Ok(out) => out
                .attributes
                .ok_or_else(|| DomainError::unexpected("UpdateItem returned no attributes")),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
            {
                Err(DomainError::NotFound(missing.into()))
            }
            Err(e) => Err(sdk("UpdateItem")(e)),
        }
    }
}

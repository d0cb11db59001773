//! [`AcceptedChangeStore`] over DynamoDB (docs/storage.md, "Items"): one `DOC#<doc id>` / `ACCEPTED` item per
//! documentation holding its whole set as a list of maps `{id, reason, accepted_at, expires_at?}` and the time it
//! was last replaced. A `PUT` replaces the item (an empty set deletes it); the set's bounds (200 entries, reasons of
//! 300 characters: at most about 250 KB in four-byte characters) keep it under the 400 KB an item holds.

use async_trait::async_trait;
use aws_sdk_dynamodb::types::AttributeValue;
use specpress_domain::Result;
use specpress_domain::accepted::{AcceptedChange, AcceptedChanges};
use specpress_domain::model::DocId;
use specpress_domain::ports::AcceptedChangeStore;
use time::OffsetDateTime;

use crate::DynamoStore;
use crate::attr::*;
use crate::items::{doc_pk, keyed};

/// Sort key of a documentation's accepted changes (under its `DOC#<id>` partition).
pub const ACCEPTED_SK: &str = "ACCEPTED";

fn entry_value(c: &AcceptedChange) -> AttributeValue {
    let mut m = Item::new();
    m.insert("id".into(), s(c.id.as_str()));
    m.insert("reason".into(), s(c.reason.as_str()));
    m.insert("accepted_at".into(), ts(c.accepted_at));
    if let Some(e) = c.expires_at {
        m.insert("expires_at".into(), ts(e));
    }
    AttributeValue::M(m)
}

fn entry_from(v: &AttributeValue) -> Result<AcceptedChange> {
    let AttributeValue::M(m) = v else {
        return Err(bad("accepted change is not a map"));
    };
    Ok(AcceptedChange {
        id: get_s(m, "id")?.to_owned(),
        reason: get_s(m, "reason")?.to_owned(),
        accepted_at: get_ts(m, "accepted_at")?,
        expires_at: opt_ts(m, "expires_at")?,
    })
}

#[async_trait]
impl AcceptedChangeStore for DynamoStore {
    async fn get_accepted(&self, doc: DocId) -> Result<AcceptedChanges> {
        let out = self
            .client()
            .get_item()
            .table_name(self.table())
            .key("pk", s(doc_pk(doc)))
            .key("sk", s(ACCEPTED_SK))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("GetItem"))?;
        let Some(item) = out.item else {
            return Ok(AcceptedChanges::default());
        };
        let changes = map_list(&item, "changes", entry_from)?.unwrap_or_default();
        Ok(AcceptedChanges { changes })
    }

    async fn put_accepted(
        &self,
        doc: DocId,
        set: &AcceptedChanges,
        now: OffsetDateTime,
    ) -> Result<()> {
        if set.is_empty() {
            self.client()
                .delete_item()
                .table_name(self.table())
                .key("pk", s(doc_pk(doc)))
                .key("sk", s(ACCEPTED_SK))
                .send()
                .await
                .map_err(sdk("DeleteItem"))?;
            return Ok(());
        }
        let mut item = keyed(doc_pk(doc), ACCEPTED_SK);
        item.insert(
            "changes".into(),
            AttributeValue::L(set.changes.iter().map(entry_value).collect()),
        );
        item.insert("modified_at".into(), ts(now));
        self.client()
            .put_item()
            .table_name(self.table())
            .set_item(Some(item))
            .send()
            .await
            .map_err(sdk("PutItem"))?;
        Ok(())
    }
}

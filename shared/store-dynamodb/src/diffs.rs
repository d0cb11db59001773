//! [`DiffStore`] over DynamoDB: one `DIFF#<id>` / `DIFF` item pointing at three blobs (docs/storage.md, "Diffs").

use async_trait::async_trait;
use specpress_domain::model::BlobRef;
use specpress_domain::usecases::diffs::{DiffId, DiffRecord, DiffStore};
use specpress_domain::{ConflictKind, DomainError, Result};
use time::OffsetDateTime;

use crate::DynamoStore;
use crate::attr::*;
use crate::items::{epoch, keyed};

/// Partition key of a diff.
pub fn diff_pk(id: DiffId) -> String {
    format!("DIFF#{id}")
}
/// Sort key of a diff.
pub const DIFF_SK: &str = "DIFF";

fn put_ref(i: &mut Item, prefix: &str, r: &BlobRef) {
    i.insert(format!("{prefix}_sha256"), s(&r.sha256));
    i.insert(format!("{prefix}_size"), n(r.size));
}

fn get_ref(i: &Item, prefix: &str) -> Result<BlobRef> {
    Ok(BlobRef {
        sha256: get_s(i, &format!("{prefix}_sha256"))?.to_owned(),
        size: get_n(i, &format!("{prefix}_size"))?,
    })
}

fn diff_item(d: &DiffRecord) -> Item {
    let mut i = keyed(diff_pk(d.id), DIFF_SK);
    i.insert("id".into(), s(d.id.to_string()));
    i.insert("title".into(), s(&d.title));
    i.insert(
        "breaking".into(),
        aws_sdk_dynamodb::types::AttributeValue::Bool(d.breaking),
    );
    put_ref(&mut i, "previous", &d.previous);
    put_ref(&mut i, "current", &d.current);
    put_ref(&mut i, "result", &d.result);
    if let Some(e) = d.expires_at {
        i.insert("expires_at".into(), ts(e));
        i.insert("ttl".into(), n(epoch(e)));
    }
    i.insert("created_at".into(), ts(d.created_at));
    i
}

fn diff_from(i: &Item) -> Result<DiffRecord> {
    Ok(DiffRecord {
        id: DiffId(parse_uuid(i, "id")?),
        title: get_s(i, "title")?.to_owned(),
        breaking: get_bool(i, "breaking"),
        previous: get_ref(i, "previous")?,
        current: get_ref(i, "current")?,
        result: get_ref(i, "result")?,
        expires_at: opt_ts(i, "expires_at")?,
        created_at: get_ts(i, "created_at")?,
    })
}

#[async_trait]
impl DiffStore for DynamoStore {
    async fn create_diff(&self, d: &DiffRecord) -> Result<()> {
        let r = self
            .client()
            .put_item()
            .table_name(self.table())
            .set_item(Some(diff_item(d)))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await;
        conditional("PutItem", r)?
            .map(drop)
            .ok_or(DomainError::Conflict(ConflictKind::AlreadyExists))
    }

    async fn get_diff(&self, id: DiffId, now: OffsetDateTime) -> Result<Option<DiffRecord>> {
        let out = self
            .client()
            .get_item()
            .table_name(self.table())
            .key("pk", s(diff_pk(id)))
            .key("sk", s(DIFF_SK))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("GetItem"))?;
        let Some(i) = out.item else { return Ok(None) };
        let d = diff_from(&i)?;
        Ok(if d.is_expired(now) { None } else { Some(d) })
    }
}

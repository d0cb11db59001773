//! Webhook subscriptions and deliveries over the single table (docs/storage.md, "Webhooks").
//!
//! - `DOC#<doc>` / `WEBHOOK#<id>`: a subscription; secrets (and a Slack or Teams URL, `sealed_url`) sealed
//!   (XChaCha20-Poly1305) as binary attributes; `format`, `filter` (its JSON); a hub's subscription (`hub: true`)
//!   is under `DOC#<hub id>`.
//! - `DELIVERY#<id>` / `DELIVERY`: a delivery with its attempt log; GSI1 `WEBHOOK#<subscription>` /
//!   `<created nanos>#<id>` lists a subscription's deliveries newest first; TTL 30 days.
//! - `EVENT#<id>` / `PAYLOAD`: the body of an event's deliveries, recorded once (first writer wins); TTL 30 days.
//!
//! Every item here has a size bound whatever the diff: the payload is at most 64 KiB (the delivery use case bounds
//! it), the attempt log at most 50 attempts of bounded text. A write DynamoDB still refuses as invalid
//! (`ValidationException`, such as an item over 400 KB) is reported as [`DomainError::Invalid`], which the delivery
//! use case treats as permanent.

use async_trait::async_trait;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, Put, ReturnValue, TransactWriteItem, Update};
use specpress_domain::model::{DocId, EventId, OrgId};
use specpress_domain::notify::Filter;
use specpress_domain::ports::{DeliveryStore, SubscriptionStore};
use specpress_domain::webhooks::*;
use specpress_domain::{ConflictKind, DomainError, Result};
use time::OffsetDateTime;

use crate::DynamoStore;
use crate::attr::*;
use crate::items::{doc_sk, event_pk, keyed, org_pk};
use crate::schema::GSI1;

const NOT_EXISTS: &str = "attribute_not_exists(pk)";

fn sub_pk(doc: DocId) -> String {
    format!("DOC#{doc}")
}
fn sub_sk(id: SubscriptionId) -> String {
    format!("WEBHOOK#{id}")
}
fn delivery_pk(id: DeliveryId) -> String {
    format!("DELIVERY#{id}")
}
const DELIVERY_SK: &str = "DELIVERY";
const PAYLOAD_SK: &str = "PAYLOAD";
fn deliveries_gsi1pk(sub: SubscriptionId) -> String {
    format!("WEBHOOK#{sub}")
}

/// Like [`conditional`], with DynamoDB's `ValidationException` (a record it will never accept, such as an item over
/// its 400 KB limit) reported as [`DomainError::Invalid`] about `field`: retrying the same write cannot succeed.
fn conditional_valid<T, E, R>(
    op: &'static str,
    field: &str,
    r: std::result::Result<T, SdkError<E, R>>,
) -> Result<Option<T>>
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug + Send + Sync + 'static,
{
    match r {
        Err(e)
            if e.as_service_error()
                .is_some_and(|e| e.code() == Some("ValidationException")) =>
        {
            let message = e
                .as_service_error()
                .and_then(ProvideErrorMetadata::message)
                .unwrap_or("the record was refused")
                .to_owned();
            tracing::error!(operation = op, code = "ValidationException", %message, "dynamodb refused a record");
            Err(DomainError::invalid(
                field,
                format!("{op} refused by DynamoDB (ValidationException): {message}"),
            ))
        }
        r => conditional(op, r),
    }
}

fn millis(t: OffsetDateTime) -> i64 {
    i64::try_from(t.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
}

fn from_millis(ms: i64) -> Result<OffsetDateTime> {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .map_err(|_| bad("next_at"))
}

impl DynamoStore {
    /// An update of one subscription item; the caller adds the expressions.
    fn update_subscription_item(&self, doc: DocId, id: SubscriptionId) -> UpdateItemFluentBuilder {
        self.client()
            .update_item()
            .table_name(self.table())
            .key("pk", s(sub_pk(doc)))
            .key("sk", s(sub_sk(id)))
    }

    /// An update of one delivery item; the caller adds the expressions.
    fn update_delivery_item(&self, id: DeliveryId) -> UpdateItemFluentBuilder {
        self.client()
            .update_item()
            .table_name(self.table())
            .key("pk", s(delivery_pk(id)))
            .key("sk", s(DELIVERY_SK))
    }

    /// Every item of one partition (of the table, or of `index`), optionally only sort keys starting with
    /// `sk_prefix`, following pagination to the end.
    async fn query_pages(
        &self,
        index: Option<&str>,
        pk_attr: &str,
        pk: String,
        sk_prefix: Option<&str>,
        forward: bool,
    ) -> Result<Vec<Item>> {
        let mut out = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let mut query = self
                .client()
                .query()
                .table_name(self.table())
                .set_index_name(index.map(str::to_owned))
                .expression_attribute_names("#k", pk_attr)
                .expression_attribute_values(":pk", s(pk.clone()));
            query = match sk_prefix {
                Some(prefix) => query
                    .key_condition_expression("#k = :pk AND begins_with(sk, :p)")
                    .expression_attribute_values(":p", s(prefix)),
                None => query.key_condition_expression("#k = :pk"),
            };
            let page = query
                .scan_index_forward(forward)
                .set_exclusive_start_key(start.take())
                .consistent_read(index.is_none())
                .send()
                .await
                .map_err(sdk("Query"))?;
            out.extend(page.items.unwrap_or_default());
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => break,
            }
        }
        Ok(out)
    }
}

fn secrets_attr(secrets: &[StoredSecret]) -> AttributeValue {
    AttributeValue::L(
        secrets
            .iter()
            .map(|x| {
                let mut m = Item::new();
                m.insert("sealed".into(), b(x.sealed.clone()));
                m.insert("created_at".into(), ts(x.created_at));
                if let Some(e) = x.expires_at {
                    m.insert("expires_at".into(), ts(e));
                }
                AttributeValue::M(m)
            })
            .collect(),
    )
}

fn branches_attr(branches: &[String]) -> AttributeValue {
    AttributeValue::L(branches.iter().map(|x| s(x.clone())).collect())
}

fn subscription_item(x: &Subscription) -> Item {
    let mut i = keyed(sub_pk(x.doc_id), &sub_sk(x.id));
    i.insert("id".into(), s(x.id.to_string()));
    i.insert("org_id".into(), s(x.org_id.to_string()));
    i.insert("doc_id".into(), s(x.doc_id.to_string()));
    i.insert("url".into(), s(&x.url));
    if let Some(u) = &x.sealed_url {
        i.insert("sealed_url".into(), b(u.clone()));
    }
    i.insert("format".into(), s(x.format.as_str()));
    if !x.filter.is_empty() {
        i.insert("filter".into(), s(filter_json(&x.filter)));
    }
    if x.hub {
        i.insert("hub".into(), AttributeValue::Bool(true));
    }
    if let Some(d) = &x.description {
        i.insert("description".into(), s(d));
    }
    i.insert("branches".into(), branches_attr(&x.branches));
    i.insert("enabled".into(), AttributeValue::Bool(x.enabled));
    if let Some(r) = &x.disabled_reason {
        i.insert("disabled_reason".into(), s(r));
    }
    i.insert("secrets".into(), secrets_attr(&x.secrets));
    if let Some(f) = x.failing_since {
        i.insert("failing_since".into(), ts(f));
    }
    i.insert("created_at".into(), ts(x.created_at));
    i.insert("updated_at".into(), ts(x.updated_at));
    i
}

/// A subscription's filter as stored: its JSON (bounded by `Filter::validate`).
fn filter_json(f: &Filter) -> String {
    serde_json::to_string(f).unwrap_or_default()
}

fn subscription_from(i: &Item) -> Result<Subscription> {
    let branches = map_list(i, "branches", |v| match v {
        AttributeValue::S(x) => Ok(x.clone()),
        _ => Err(bad("branches")),
    })?
    .unwrap_or_default();
    let secrets = map_list(i, "secrets", |v| match v {
        AttributeValue::M(m) => Ok(StoredSecret {
            sealed: get_b(m, "sealed")?.to_vec(),
            created_at: get_ts(m, "created_at")?,
            expires_at: opt_ts(m, "expires_at")?,
        }),
        _ => Err(bad("secrets")),
    })?
    .ok_or_else(|| bad("secrets"))?;
    Ok(Subscription {
        id: SubscriptionId(parse_uuid(i, "id")?),
        org_id: OrgId(parse_uuid(i, "org_id")?),
        doc_id: DocId(parse_uuid(i, "doc_id")?),
        url: get_s(i, "url")?.to_owned(),
        sealed_url: i
            .get("sealed_url")
            .map(|_| get_b(i, "sealed_url").map(<[u8]>::to_vec))
            .transpose()?,
        // Written before formats existed: standard.
        format: match opt_s(i, "format") {
            None => Format::Standard,
            Some(f) => Format::parse(f).ok_or_else(|| bad("format"))?,
        },
        filter: match opt_s(i, "filter") {
            None => Filter::default(),
            Some(f) => serde_json::from_str(f).map_err(|_| bad("filter"))?,
        },
        hub: get_bool(i, "hub"),
        description: opt_s(i, "description").map(str::to_owned),
        branches,
        enabled: get_bool(i, "enabled"),
        disabled_reason: opt_s(i, "disabled_reason").map(str::to_owned),
        secrets,
        failing_since: opt_ts(i, "failing_since")?,
        created_at: get_ts(i, "created_at")?,
        updated_at: get_ts(i, "updated_at")?,
    })
}

fn attempt_attr(a: &Attempt) -> Result<AttributeValue> {
    Ok(s(serde_json::to_string(a).map_err(DomainError::unexpected)?))
}

fn delivery_item(d: &Delivery) -> Result<Item> {
    let mut i = keyed(delivery_pk(d.id), DELIVERY_SK);
    i.insert("id".into(), s(d.id.to_string()));
    i.insert("org_id".into(), s(d.org_id.to_string()));
    i.insert("doc_id".into(), s(d.doc_id.to_string()));
    i.insert("subscription_id".into(), s(d.subscription_id.to_string()));
    if let Some(e) = d.event_id {
        i.insert("event_id".into(), s(e.to_string()));
    }
    i.insert("kind".into(), s(&d.kind));
    i.insert("webhook_id".into(), s(&d.webhook_id));
    i.insert("payload".into(), s(&d.payload));
    i.insert("status".into(), s(d.status.as_str()));
    i.insert("attempt_count".into(), n(d.attempt_count));
    i.insert("next_at".into(), n(millis(d.next_attempt_at)));
    i.insert(
        "attempts".into(),
        AttributeValue::L(d.attempts.iter().map(attempt_attr).collect::<Result<_>>()?),
    );
    i.insert("created_at".into(), ts(d.created_at));
    i.insert("updated_at".into(), ts(d.updated_at));
    i.insert(
        "ttl".into(),
        n((d.created_at + DELIVERY_RETENTION).unix_timestamp()),
    );
    i.insert("gsi1pk".into(), s(deliveries_gsi1pk(d.subscription_id)));
    i.insert(
        "gsi1sk".into(),
        s(format!(
            "{:024}#{}",
            d.created_at.unix_timestamp_nanos().max(0),
            d.id
        )),
    );
    Ok(i)
}

fn delivery_from(i: &Item) -> Result<Delivery> {
    let attempts = map_list(i, "attempts", |v| match v {
        AttributeValue::S(x) => serde_json::from_str::<Attempt>(x).map_err(|_| bad("attempts")),
        _ => Err(bad("attempts")),
    })?
    .unwrap_or_default();
    Ok(Delivery {
        id: DeliveryId(parse_uuid(i, "id")?),
        org_id: OrgId(parse_uuid(i, "org_id")?),
        doc_id: DocId(parse_uuid(i, "doc_id")?),
        subscription_id: SubscriptionId(parse_uuid(i, "subscription_id")?),
        event_id: opt_uuid(i, "event_id")?.map(EventId),
        kind: get_s(i, "kind")?.to_owned(),
        webhook_id: get_s(i, "webhook_id")?.to_owned(),
        payload: get_s(i, "payload")?.to_owned(),
        status: DeliveryStatus::parse(get_s(i, "status")?).ok_or_else(|| bad("status"))?,
        attempt_count: get_n(i, "attempt_count")?,
        next_attempt_at: from_millis(get_n(i, "next_at")?)?,
        attempts,
        created_at: get_ts(i, "created_at")?,
        updated_at: get_ts(i, "updated_at")?,
    })
}

#[async_trait]
impl SubscriptionStore for DynamoStore {
    async fn create_subscription(&self, x: &Subscription) -> Result<()> {
        let put = Put::builder()
            .table_name(self.table())
            .set_item(Some(subscription_item(x)))
            .condition_expression(NOT_EXISTS)
            .build()
            .map_err(DomainError::unexpected)?;
        if x.hub {
            // A hub's subscription, under its hub's key: the documentations of a hub queue their events whatever
            // their `never_subscribed` (see the deploy), so there is no flag to clear.
            let items = vec![TransactWriteItem::builder().put(put).build()];
            return match crate::transact::transact_conditional(self.client(), items).await? {
                Ok(()) => Ok(()),
                Err(_) => Err(DomainError::Conflict(ConflictKind::AlreadyExists)),
            };
        }
        // The documentation has a subscription from now on: its deploys queue their events again. In the same
        // transaction, so a deploy that read the documentation before it and commits after it fails its check and
        // re-reads (see `Commit::queue_event`).
        let subscribed = Update::builder()
            .table_name(self.table())
            .key("pk", s(org_pk(x.org_id)))
            .key("sk", s(doc_sk(x.doc_id)))
            .update_expression("REMOVE never_subscribed")
            .condition_expression("attribute_exists(pk)")
            .build()
            .map_err(DomainError::unexpected)?;
        let items = vec![
            TransactWriteItem::builder().put(put).build(),
            TransactWriteItem::builder().update(subscribed).build(),
        ];
        match crate::transact::transact_conditional(self.client(), items).await? {
            Ok(()) => Ok(()),
            Err(0) => Err(DomainError::Conflict(ConflictKind::AlreadyExists)),
            Err(_) => Err(DomainError::NotFound("Documentation does not exist".into())),
        }
    }

    async fn get_subscription(
        &self,
        doc: DocId,
        id: SubscriptionId,
    ) -> Result<Option<Subscription>> {
        let out = self
            .client()
            .get_item()
            .table_name(self.table())
            .key("pk", s(sub_pk(doc)))
            .key("sk", s(sub_sk(id)))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("GetItem"))?;
        out.item.as_ref().map(subscription_from).transpose()
    }

    async fn list_subscriptions(&self, doc: DocId) -> Result<Vec<Subscription>> {
        let items = self
            .query_pages(None, "pk", sub_pk(doc), Some("WEBHOOK#"), true)
            .await?;
        let mut out = items
            .iter()
            .map(subscription_from)
            .collect::<Result<Vec<_>>>()?;
        out.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.0.cmp(&b.id.0)));
        Ok(out)
    }

    async fn update_subscription(&self, x: &Subscription) -> Result<()> {
        let mut set = vec![
            "#url = :url",
            "branches = :br",
            "enabled = :en",
            "secrets = :sec",
            "updated_at = :up",
            "#format = :fo",
        ];
        let mut remove = Vec::new();
        let mut req = self
            .update_subscription_item(x.doc_id, x.id)
            .expression_attribute_names("#url", "url")
            .expression_attribute_values(":url", s(&x.url))
            .expression_attribute_values(":br", branches_attr(&x.branches))
            .expression_attribute_values(":en", AttributeValue::Bool(x.enabled))
            .expression_attribute_values(":sec", secrets_attr(&x.secrets))
            .expression_attribute_values(":up", ts(x.updated_at))
            .expression_attribute_names("#format", "format")
            .expression_attribute_values(":fo", s(x.format.as_str()));
        match &x.sealed_url {
            Some(u) => {
                set.push("sealed_url = :su");
                req = req.expression_attribute_values(":su", b(u.clone()));
            }
            None => remove.push("sealed_url"),
        }
        if x.filter.is_empty() {
            remove.push("#filter");
        } else {
            set.push("#filter = :fi");
            req = req.expression_attribute_values(":fi", s(filter_json(&x.filter)));
        }
        req = req.expression_attribute_names("#filter", "filter");
        match &x.description {
            Some(d) => {
                set.push("description = :de");
                req = req.expression_attribute_values(":de", s(d));
            }
            None => remove.push("description"),
        }
        match &x.disabled_reason {
            Some(r) => {
                set.push("disabled_reason = :dr");
                req = req.expression_attribute_values(":dr", s(r));
            }
            None => remove.push("disabled_reason"),
        }
        let mut expr = format!("SET {}", set.join(", "));
        if !remove.is_empty() {
            expr.push_str(&format!(" REMOVE {}", remove.join(", ")));
        }
        let r = req
            .update_expression(expr)
            .condition_expression("attribute_exists(pk)")
            .send()
            .await;
        conditional("UpdateItem", r)?
            .map(drop)
            .ok_or_else(|| DomainError::NotFound("Webhook not found".into()))
    }

    async fn delete_subscription(&self, doc: DocId, id: SubscriptionId) -> Result<bool> {
        let out = self
            .client()
            .delete_item()
            .table_name(self.table())
            .key("pk", s(sub_pk(doc)))
            .key("sk", s(sub_sk(id)))
            .return_values(ReturnValue::AllOld)
            .send()
            .await
            .map_err(sdk("DeleteItem"))?;
        Ok(out.attributes.is_some_and(|a| !a.is_empty()))
    }

    async fn record_endpoint_outcome(
        &self,
        doc: DocId,
        id: SubscriptionId,
        success: bool,
        now: OffsetDateTime,
    ) -> Result<Option<OffsetDateTime>> {
        let req = self
            .update_subscription_item(doc, id)
            .condition_expression("attribute_exists(pk)");
        let r = if success {
            req.update_expression("REMOVE failing_since").send().await
        } else {
            req.update_expression("SET failing_since = if_not_exists(failing_since, :now)")
                .expression_attribute_values(":now", ts(now))
                .return_values(ReturnValue::AllNew)
                .send()
                .await
        };
        match conditional("UpdateItem", r)? {
            _ if success => Ok(None),
            Some(out) => match out.attributes {
                Some(a) => opt_ts(&a, "failing_since"),
                None => Ok(Some(now)),
            },
            // The subscription is gone: report the failure as starting now.
            None => Ok(Some(now)),
        }
    }

    async fn disable_subscription(
        &self,
        doc: DocId,
        id: SubscriptionId,
        reason: &str,
        now: OffsetDateTime,
    ) -> Result<()> {
        let r = self
            .update_subscription_item(doc, id)
            .update_expression("SET enabled = :f, disabled_reason = :r, updated_at = :t")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_values(":f", AttributeValue::Bool(false))
            .expression_attribute_values(":r", s(reason))
            .expression_attribute_values(":t", ts(now))
            .send()
            .await;
        // A subscription deleted meanwhile needs no disabling.
        conditional("UpdateItem", r).map(drop)
    }
}

#[async_trait]
impl DeliveryStore for DynamoStore {
    async fn create_delivery(&self, d: &Delivery) -> Result<bool> {
        let r = self
            .client()
            .put_item()
            .table_name(self.table())
            .set_item(Some(delivery_item(d)?))
            .condition_expression(NOT_EXISTS)
            .send()
            .await;
        Ok(conditional_valid("PutItem", "delivery", r)?.is_some())
    }

    async fn get_delivery(&self, id: DeliveryId) -> Result<Option<Delivery>> {
        let out = self
            .client()
            .get_item()
            .table_name(self.table())
            .key("pk", s(delivery_pk(id)))
            .key("sk", s(DELIVERY_SK))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("GetItem"))?;
        out.item.as_ref().map(delivery_from).transpose()
    }

    async fn list_deliveries(&self, subscription: SubscriptionId) -> Result<Vec<Delivery>> {
        let items = self
            .query_pages(
                Some(GSI1),
                "gsi1pk",
                deliveries_gsi1pk(subscription),
                None,
                false,
            )
            .await?;
        items.iter().map(delivery_from).collect()
    }

    async fn claim_attempt(
        &self,
        id: DeliveryId,
        attempts_made: u32,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
    ) -> Result<bool> {
        let r = self
            .update_delivery_item(id)
            .update_expression("SET attempt_count = :next, next_at = :lease, updated_at = :t")
            .condition_expression("#st = :pending AND attempt_count = :made AND next_at <= :now")
            .expression_attribute_names("#st", "status")
            .expression_attribute_values(":pending", s(DeliveryStatus::Pending.as_str()))
            .expression_attribute_values(":made", n(attempts_made))
            .expression_attribute_values(":next", n(attempts_made.saturating_add(1)))
            .expression_attribute_values(":now", n(millis(now)))
            .expression_attribute_values(":lease", n(millis(lease_until)))
            .expression_attribute_values(":t", ts(now))
            .send()
            .await;
        Ok(conditional("UpdateItem", r)?.is_some())
    }

    async fn record_attempt(&self, id: DeliveryId, record: &AttemptRecord) -> Result<bool> {
        let r = self
            .update_delivery_item(id)
            .update_expression(
                "SET attempts = list_append(if_not_exists(attempts, :empty), :one), #st = :st, next_at = :next, updated_at = :t",
            )
            .condition_expression("#st = :pending AND attempt_count = :num")
            .expression_attribute_names("#st", "status")
            .expression_attribute_values(":empty", AttributeValue::L(Vec::new()))
            .expression_attribute_values(":one", AttributeValue::L(vec![attempt_attr(&record.attempt)?]))
            .expression_attribute_values(":st", s(record.status.as_str()))
            .expression_attribute_values(":pending", s(DeliveryStatus::Pending.as_str()))
            .expression_attribute_values(":num", n(record.attempt.number))
            .expression_attribute_values(":next", n(millis(record.next_attempt_at)))
            .expression_attribute_values(":t", ts(OffsetDateTime::now_utc()))
            .send()
            .await;
        Ok(conditional_valid("UpdateItem", "delivery", r)?.is_some())
    }

    async fn restart_delivery(&self, id: DeliveryId, now: OffsetDateTime) -> Result<()> {
        let d = self
            .get_delivery(id)
            .await?
            .ok_or_else(|| DomainError::NotFound("Delivery not found".into()))?;
        // Keep the log bounded: drop the oldest attempts beyond the cap.
        let keep = MAX_LOGGED_ATTEMPTS.saturating_sub(8);
        let start = d.attempts.len().saturating_sub(keep);
        let attempts = d.attempts[start..]
            .iter()
            .map(attempt_attr)
            .collect::<Result<Vec<_>>>()?;
        let r = self
            .update_delivery_item(id)
            .update_expression("SET #st = :pending, attempt_count = :zero, next_at = :now, attempts = :a, updated_at = :t")
            .condition_expression("attribute_exists(pk) AND #st <> :pending AND updated_at = :seen")
            .expression_attribute_names("#st", "status")
            .expression_attribute_values(":pending", s(DeliveryStatus::Pending.as_str()))
            .expression_attribute_values(":zero", n(0))
            .expression_attribute_values(":now", n(millis(now)))
            .expression_attribute_values(":a", AttributeValue::L(attempts))
            .expression_attribute_values(":t", ts(now))
            .expression_attribute_values(":seen", ts(d.updated_at))
            .send()
            .await;
        conditional("UpdateItem", r)?
            .map(drop)
            .ok_or(DomainError::Conflict(ConflictKind::Stale))
    }

    async fn get_event_payload(&self, event: EventId) -> Result<Option<String>> {
        let out = self
            .client()
            .get_item()
            .table_name(self.table())
            .key("pk", s(event_pk(event)))
            .key("sk", s(PAYLOAD_SK))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("GetItem"))?;
        out.item
            .as_ref()
            .map(|i| get_s(i, "payload").map(str::to_owned))
            .transpose()
    }

    async fn record_event_payload(
        &self,
        event: EventId,
        payload: &str,
        now: OffsetDateTime,
    ) -> Result<String> {
        let mut item = keyed(event_pk(event), PAYLOAD_SK);
        item.insert("payload".into(), s(payload));
        item.insert("created_at".into(), ts(now));
        item.insert("ttl".into(), n((now + DELIVERY_RETENTION).unix_timestamp()));
        let r = self
            .client()
            .put_item()
            .table_name(self.table())
            .set_item(Some(item))
            .condition_expression(NOT_EXISTS)
            .send()
            .await;
        if conditional_valid("PutItem", "payload", r)?.is_some() {
            return Ok(payload.to_owned());
        }
        // Another copy of the event message recorded its payload first: that one is the event's.
        self.get_event_payload(event).await?.ok_or_else(|| {
            DomainError::unexpected("an event payload was recorded but cannot be read")
        })
    }
}

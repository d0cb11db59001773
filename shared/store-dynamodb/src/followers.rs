//! [`FollowerStore`] over DynamoDB (docs/storage.md, "Items", issue 38):
//! - the follower, `FOLLOWER#<id>` / `FOLLOWER`, listed per documentation or hub on GSI1
//!   (`FOLLOWERS#<doc|hub>#<id>` / `<created ns>#<id>`) and, while a confirmed digest follower, on GSI2
//!   (`DIGESTS` / `<next digest ns>#<id>`); its address only sealed (`sealed_address`, AAD = the follower id) and as
//!   a keyed hash (`address_hash`);
//! - the address index, `FADDR#<address hash>` / `F#<follower id>` (what a bounce suspends), and the address's
//!   confirmation count of a day, `FADDR#<address hash>` / `QUOTA#<YYYY-MM-DD>` (`c`, TTL two days).
//!
//! A pending follower and its index entry carry `ttl` = its expiry (48 h); the confirmation removes it.

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue, TransactWriteItem, Update};
use specpress_domain::follow::{
    Cadence, Follower, FollowerId, FollowerState, MAX_FOLLOWERS_PER_SCOPE,
};
use specpress_domain::model::{DocOrHub, OrgId};
use specpress_domain::ports::FollowerStore;
use specpress_domain::{ConflictKind, DomainError, Result};
use time::OffsetDateTime;

use crate::DynamoStore;
use crate::attr::*;
use crate::items::{doc_sk, epoch, keyed, org_pk};
use crate::schema::{GSI1, GSI2};

const FOLLOWER_SK: &str = "FOLLOWER";
const DIGESTS_PK: &str = "DIGESTS";

fn follower_pk(id: FollowerId) -> String {
    format!("FOLLOWER#{id}")
}

fn address_pk(hash: &str) -> String {
    format!("FADDR#{hash}")
}

fn index_sk(id: FollowerId) -> String {
    format!("F#{id}")
}

fn scope_key(scope: DocOrHub) -> String {
    format!("FOLLOWERS#{}#{}", scope.kind(), scope.id_string())
}

fn nanos(t: OffsetDateTime) -> String {
    format!("{:024}", t.unix_timestamp_nanos().max(0))
}

fn follower_item(f: &Follower) -> Item {
    let mut i = keyed(follower_pk(f.id), FOLLOWER_SK);
    i.insert("id".into(), s(f.id.to_string()));
    i.insert("org_id".into(), s(f.org_id.to_string()));
    i.insert("scope_kind".into(), s(f.scope.kind()));
    i.insert("scope_id".into(), s(f.scope.id_string()));
    if let Some(op) = &f.operation {
        i.insert("operation".into(), s(op));
    }
    i.insert(
        "breaking_only".into(),
        AttributeValue::Bool(f.breaking_only),
    );
    i.insert("cadence".into(), s(f.cadence.as_str()));
    i.insert("state".into(), s(f.state.as_str()));
    if let Some(r) = &f.suspended_reason {
        i.insert("suspended_reason".into(), s(r));
    }
    i.insert("address_hash".into(), s(&f.address_hash));
    i.insert("sealed_address".into(), b(f.sealed_address.clone()));
    i.insert("link_salt".into(), s(&f.link_salt));
    if let Some(n) = &f.confirm_nonce {
        i.insert("confirm_nonce".into(), s(n));
    }
    i.insert("created_at".into(), ts(f.created_at));
    if let Some(e) = f.expires_at {
        i.insert("expires_at".into(), ts(e));
        i.insert("ttl".into(), n(epoch(e)));
    }
    if let Some(c) = f.confirmed_at {
        i.insert("confirmed_at".into(), ts(c));
    }
    if let Some(d) = f.next_digest_at {
        i.insert("next_digest_at".into(), ts(d));
        if f.state == FollowerState::Confirmed {
            i.insert("gsi2pk".into(), s(DIGESTS_PK));
            i.insert("gsi2sk".into(), s(format!("{}#{}", nanos(d), f.id)));
        }
    }
    i.insert("gsi1pk".into(), s(scope_key(f.scope)));
    i.insert(
        "gsi1sk".into(),
        s(format!("{}#{}", nanos(f.created_at), f.id)),
    );
    i
}

fn follower_from(i: &Item) -> Result<Follower> {
    Ok(Follower {
        id: FollowerId(parse_uuid(i, "id")?),
        org_id: OrgId(parse_uuid(i, "org_id")?),
        scope: DocOrHub::from_parts(get_s(i, "scope_kind")?, get_s(i, "scope_id")?)
            .ok_or_else(|| bad("scope"))?,
        operation: opt_s(i, "operation").map(str::to_owned),
        breaking_only: get_bool(i, "breaking_only"),
        cadence: Cadence::parse(get_s(i, "cadence")?).ok_or_else(|| bad("cadence"))?,
        state: FollowerState::parse(get_s(i, "state")?).ok_or_else(|| bad("state"))?,
        suspended_reason: opt_s(i, "suspended_reason").map(str::to_owned),
        address_hash: get_s(i, "address_hash")?.to_owned(),
        sealed_address: get_b(i, "sealed_address")?.to_vec(),
        link_salt: get_s(i, "link_salt")?.to_owned(),
        confirm_nonce: opt_s(i, "confirm_nonce").map(str::to_owned),
        created_at: get_ts(i, "created_at")?,
        expires_at: opt_ts(i, "expires_at")?,
        confirmed_at: opt_ts(i, "confirmed_at")?,
        next_digest_at: opt_ts(i, "next_digest_at")?,
    })
}

fn index_item(f: &Follower) -> Item {
    let mut i = keyed(address_pk(&f.address_hash), &index_sk(f.id));
    i.insert("follower_id".into(), s(f.id.to_string()));
    if let Some(e) = f.expires_at {
        i.insert("ttl".into(), n(epoch(e)));
    }
    i
}

impl DynamoStore {
    /// Every item of a GSI partition, in sort-key order, at most `limit`.
    async fn query_index(
        &self,
        index: &str,
        pk: String,
        sk_max: Option<String>,
        limit: usize,
    ) -> Result<Vec<Item>> {
        let (pk_attr, sk_attr) = if index == GSI1 {
            ("gsi1pk", "gsi1sk")
        } else {
            ("gsi2pk", "gsi2sk")
        };
        let mut out = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let mut q = self
                .client()
                .query()
                .table_name(self.table())
                .index_name(index)
                .expression_attribute_names("#k", pk_attr)
                .expression_attribute_values(":pk", s(pk.clone()));
            q = match &sk_max {
                Some(max) => q
                    .key_condition_expression("#k = :pk AND #s <= :max")
                    .expression_attribute_names("#s", sk_attr)
                    .expression_attribute_values(":max", s(max.clone())),
                None => q.key_condition_expression("#k = :pk"),
            };
            let page = q
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(sdk("Query"))?;
            out.extend(page.items.unwrap_or_default());
            if out.len() >= limit {
                out.truncate(limit);
                break;
            }
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => break,
            }
        }
        Ok(out)
    }
}

#[async_trait]
impl FollowerStore for DynamoStore {
    async fn put_pending_follower(&self, follower: &Follower, now: OffsetDateTime) -> Result<()> {
        let put = aws_sdk_dynamodb::types::Put::builder()
            .table_name(self.table())
            .set_item(Some(follower_item(follower)))
            .condition_expression(
                "attribute_not_exists(pk) OR #st = :pending OR (attribute_exists(#ttl) AND #ttl <= :now)",
            )
            .expression_attribute_names("#st", "state")
            .expression_attribute_names("#ttl", "ttl")
            .expression_attribute_values(":pending", s(FollowerState::Pending.as_str()))
            .expression_attribute_values(":now", n(epoch(now)))
            .build()
            .map_err(DomainError::unexpected)?;
        let items = vec![
            TransactWriteItem::builder().put(put).build(),
            self.put(index_item(follower), None)?,
        ];
        crate::transact::transact(self.client(), items, &[ConflictKind::AlreadyExists]).await
    }

    async fn get_follower(&self, id: FollowerId, now: OffsetDateTime) -> Result<Option<Follower>> {
        let Some(item) = self.get(follower_pk(id), FOLLOWER_SK).await? else {
            return Ok(None);
        };
        let f = follower_from(&item)?;
        Ok(f.is_live(now).then_some(f))
    }

    async fn confirm_follower(
        &self,
        id: FollowerId,
        nonce: &str,
        now: OffsetDateTime,
        next_digest_at: Option<OffsetDateTime>,
    ) -> Result<bool> {
        let Some(mut f) = self.get_follower(id, now).await? else {
            return Ok(false);
        };
        if f.state != FollowerState::Pending || f.confirm_nonce.as_deref() != Some(nonce) {
            return Ok(false);
        }
        f.state = FollowerState::Confirmed;
        f.confirm_nonce = None;
        f.expires_at = None;
        f.confirmed_at = Some(now);
        f.next_digest_at = next_digest_at;
        let put = aws_sdk_dynamodb::types::Put::builder()
            .table_name(self.table())
            .set_item(Some(follower_item(&f)))
            .condition_expression("#st = :pending AND confirm_nonce = :n AND #ttl > :now")
            .expression_attribute_names("#st", "state")
            .expression_attribute_names("#ttl", "ttl")
            .expression_attribute_values(":pending", s(FollowerState::Pending.as_str()))
            .expression_attribute_values(":n", s(nonce))
            .expression_attribute_values(":now", n(epoch(now)))
            .build()
            .map_err(DomainError::unexpected)?;
        if let DocOrHub::Doc(doc) = f.scope {
            // A documentation with a confirmed follower queues its deploys' events from now on, as a first webhook
            // subscription makes it do. Before the confirmation: a deploy that read the documentation before this
            // write and commits after it fails its `never_subscribed` check and re-reads (see
            // `Commit::queue_event`), so no release of a confirmed follower goes unqueued. A documentation that no
            // longer exists is left absent (the condition), not recreated.
            let r = self
                .client()
                .update_item()
                .table_name(self.table())
                .key("pk", s(org_pk(f.org_id)))
                .key("sk", s(doc_sk(doc)))
                .update_expression("REMOVE never_subscribed")
                .condition_expression("attribute_exists(pk)")
                .send()
                .await;
            conditional("UpdateItem", r)?;
        }
        let items = vec![
            TransactWriteItem::builder().put(put).build(),
            self.put(index_item(&f), None)?,
        ];
        Ok(crate::transact::transact_conditional(self.client(), items)
            .await?
            .is_ok())
    }

    async fn delete_follower(&self, id: FollowerId) -> Result<Option<Follower>> {
        let out = self
            .client()
            .delete_item()
            .table_name(self.table())
            .key("pk", s(follower_pk(id)))
            .key("sk", s(FOLLOWER_SK))
            .return_values(ReturnValue::AllOld)
            .send()
            .await
            .map_err(sdk("DeleteItem"))?;
        let Some(old) = out.attributes.filter(|a| !a.is_empty()) else {
            return Ok(None);
        };
        let f = follower_from(&old)?;
        self.client()
            .delete_item()
            .table_name(self.table())
            .key("pk", s(address_pk(&f.address_hash)))
            .key("sk", s(index_sk(id)))
            .send()
            .await
            .map_err(sdk("DeleteItem"))?;
        Ok(Some(f))
    }

    async fn list_followers(&self, scope: DocOrHub, now: OffsetDateTime) -> Result<Vec<Follower>> {
        let items = self
            .query_index(GSI1, scope_key(scope), None, MAX_FOLLOWERS_PER_SCOPE)
            .await?;
        let mut out = Vec::with_capacity(items.len());
        for i in &items {
            let f = follower_from(i)?;
            if f.is_live(now) {
                out.push(f);
            }
        }
        Ok(out)
    }

    async fn followers_of_address(&self, address_hash: &str) -> Result<Vec<FollowerId>> {
        let out = self
            .client()
            .query()
            .table_name(self.table())
            .key_condition_expression("pk = :pk AND begins_with(sk, :p)")
            .expression_attribute_values(":pk", s(address_pk(address_hash)))
            .expression_attribute_values(":p", s("F#"))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("Query"))?;
        out.items
            .unwrap_or_default()
            .iter()
            .map(|i| parse_uuid(i, "follower_id").map(FollowerId))
            .collect()
    }

    async fn set_follower_state(
        &self,
        id: FollowerId,
        state: FollowerState,
        reason: Option<&str>,
    ) -> Result<bool> {
        let mut set = vec!["#st = :st"];
        let mut remove = Vec::new();
        if reason.is_some() {
            set.push("suspended_reason = :r");
        } else {
            remove.push("suspended_reason");
        }
        if state != FollowerState::Confirmed {
            remove.extend(["gsi2pk", "gsi2sk"]);
        }
        let mut expr = format!("SET {}", set.join(", "));
        if !remove.is_empty() {
            expr.push_str(&format!(" REMOVE {}", remove.join(", ")));
        }
        let mut u = self
            .client()
            .update_item()
            .table_name(self.table())
            .key("pk", s(follower_pk(id)))
            .key("sk", s(FOLLOWER_SK))
            .update_expression(expr)
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_names("#st", "state")
            .expression_attribute_values(":st", s(state.as_str()));
        if let Some(r) = reason {
            u = u.expression_attribute_values(":r", s(r));
        }
        let r = u.send().await;
        Ok(conditional("UpdateItem", r)?.is_some())
    }

    async fn count_confirmation(&self, address_hash: &str, day: &str, limit: u32) -> Result<bool> {
        let expires = OffsetDateTime::now_utc() + time::Duration::days(2);
        let r = self
            .client()
            .update_item()
            .table_name(self.table())
            .key("pk", s(address_pk(address_hash)))
            .key("sk", s(format!("QUOTA#{day}")))
            .update_expression("ADD c :one SET #ttl = :ttl")
            .condition_expression("attribute_not_exists(c) OR c < :limit")
            .expression_attribute_names("#ttl", "ttl")
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":ttl", n(epoch(expires)))
            .expression_attribute_values(":limit", n(limit))
            .send()
            .await;
        Ok(conditional("UpdateItem", r)?.is_some())
    }

    async fn due_digests(&self, now: OffsetDateTime, limit: usize) -> Result<Vec<Follower>> {
        let items = self
            .query_index(
                GSI2,
                DIGESTS_PK.to_owned(),
                Some(format!("{}#~", nanos(now))),
                limit,
            )
            .await?;
        let mut out = Vec::new();
        for i in &items {
            let f = follower_from(i)?;
            if f.state == FollowerState::Confirmed {
                out.push(f);
            }
        }
        Ok(out)
    }

    async fn advance_digest(
        &self,
        id: FollowerId,
        from: OffsetDateTime,
        to: OffsetDateTime,
    ) -> Result<bool> {
        let u = Update::builder()
            .table_name(self.table())
            .key("pk", s(follower_pk(id)))
            .key("sk", s(FOLLOWER_SK))
            .update_expression("SET next_digest_at = :to, gsi2sk = :sk")
            .condition_expression("next_digest_at = :from AND #st = :confirmed")
            .expression_attribute_names("#st", "state")
            .expression_attribute_values(":to", ts(to))
            .expression_attribute_values(":sk", s(format!("{}#{}", nanos(to), id)))
            .expression_attribute_values(":from", ts(from))
            .expression_attribute_values(":confirmed", s(FollowerState::Confirmed.as_str()))
            .build()
            .map_err(DomainError::unexpected)?;
        Ok(crate::transact::transact_conditional(
            self.client(),
            vec![TransactWriteItem::builder().update(u).build()],
        )
        .await?
        .is_ok())
    }
}

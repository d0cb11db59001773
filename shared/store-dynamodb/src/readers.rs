//! [`ReaderStore`] over the single table (docs/storage.md, "Items", patterns 48-51):
//!
//! - `TOKEN#<sha256>` / `TOKEN` with `kind = read`: a reader token's lookup item (what it opens, its expiry, its
//!   last use); `kind = sso`: a provider sign-in's grant ([`crate::sso`]). Neither is a principal of the API.
//! - `ORG#<org>` / `READER#<doc|hub>#<id>#<reader id>`: the listing item (the same fields and the token's hash, so a
//!   revocation finds what to delete). Both are written, and deleted, in one transaction.
//! - `sso_readers` (BOOL) and `embed_origins` (L of S) on the documentation's or hub's own item: its reader
//!   settings, read with it.

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, Delete, ReturnValue, TransactWriteItem, Update,
};
use specpress_domain::embed::EmbedOrigins;
use specpress_domain::model::{DocOrHub, OrgId};
use specpress_domain::ports::ReaderStore;
use specpress_domain::readers::{Credential, ReaderSettings, ReaderToken, ReaderTokenId};
use specpress_domain::token::TokenHash;
use specpress_domain::{ConflictKind, DomainError, Result};
use time::OffsetDateTime;

use crate::DynamoStore;
use crate::attr::*;
use crate::items::{TOKEN_SK, doc_sk, epoch, hub_sk, keyed, org_pk, token_pk};
use crate::store::principal_from;

const EXISTS: &str = "attribute_exists(pk)";
const NOT_EXISTS: &str = "attribute_not_exists(pk)";

/// The key of a documentation's or hub's own item.
pub(crate) fn target_key(org: OrgId, of: DocOrHub) -> (String, String) {
    match of {
        DocOrHub::Doc(d) => (org_pk(org), doc_sk(d)),
        DocOrHub::Hub(h) => (org_pk(org), hub_sk(h)),
    }
}

/// The sort-key prefix of the reader tokens of a documentation or hub (under `ORG#<org>`).
fn listing_prefix(of: DocOrHub) -> String {
    format!("READER#{}#{}#", of.kind(), of.id_string())
}

fn listing_sk(of: DocOrHub, id: ReaderTokenId) -> String {
    format!("{}{id}", listing_prefix(of))
}

/// The fields both items of a reader token carry.
fn put_reader_fields(i: &mut Item, t: &ReaderToken) {
    i.insert("reader_id".into(), s(t.id.to_string()));
    i.insert("org_id".into(), s(t.org_id.to_string()));
    i.insert("scope_kind".into(), s(t.scope.kind()));
    i.insert("scope_id".into(), s(t.scope.id_string()));
    i.insert("name".into(), s(&t.name));
    i.insert("created_at".into(), ts(t.created_at));
    if let Some(e) = t.expires_at {
        i.insert("expires_at".into(), ts(e));
        i.insert("ttl".into(), n(epoch(e)));
    }
    if let Some(u) = t.last_used_at {
        i.insert("last_used_at".into(), ts(u));
    }
}

fn reader_from(i: &Item) -> Result<ReaderToken> {
    Ok(ReaderToken {
        id: ReaderTokenId(parse_uuid(i, "reader_id")?),
        org_id: OrgId(parse_uuid(i, "org_id")?),
        scope: DocOrHub::from_parts(get_s(i, "scope_kind")?, get_s(i, "scope_id")?)
            .ok_or_else(|| bad("scope"))?,
        name: get_s(i, "name")?.to_owned(),
        created_at: get_ts(i, "created_at")?,
        expires_at: opt_ts(i, "expires_at")?,
        last_used_at: opt_ts(i, "last_used_at")?,
    })
}

/// The reader settings on a documentation's or hub's item (absent attributes: the defaults).
pub(crate) fn reader_settings_from(i: &Item) -> Result<ReaderSettings> {
    let origins = map_list(i, "embed_origins", |v| match v {
        AttributeValue::S(o) => Ok(o.clone()),
        _ => Err(bad("embed_origins")),
    })?
    .unwrap_or_default();
    Ok(ReaderSettings {
        sso_readers: get_bool(i, "sso_readers"),
        embed_origins: EmbedOrigins::from_stored(origins),
    })
}

impl DynamoStore {
    fn delete_action(
        &self,
        pk: String,
        sk: &str,
        condition: Option<&str>,
    ) -> Result<TransactWriteItem> {
        let d = Delete::builder()
            .table_name(self.table())
            .key("pk", s(pk))
            .key("sk", s(sk))
            .set_condition_expression(condition.map(str::to_owned))
            .build()
            .map_err(DomainError::unexpected)?;
        Ok(TransactWriteItem::builder().delete(d).build())
    }

    pub(crate) fn exists_check(&self, (pk, sk): (String, String)) -> Result<TransactWriteItem> {
        let c = ConditionCheck::builder()
            .table_name(self.table())
            .key("pk", s(pk))
            .key("sk", s(sk))
            .condition_expression(EXISTS)
            .build()
            .map_err(DomainError::unexpected)?;
        Ok(TransactWriteItem::builder().condition_check(c).build())
    }

    fn touch_action(&self, pk: String, sk: &str, now: OffsetDateTime) -> Result<TransactWriteItem> {
        let u = Update::builder()
            .table_name(self.table())
            .key("pk", s(pk))
            .key("sk", s(sk))
            .update_expression("SET last_used_at = :t")
            .condition_expression(EXISTS)
            .expression_attribute_values(":t", ts(now))
            .build()
            .map_err(DomainError::unexpected)?;
        Ok(TransactWriteItem::builder().update(u).build())
    }
}

#[async_trait]
impl ReaderStore for DynamoStore {
    async fn create_reader_token(&self, token: &ReaderToken, hash: &TokenHash) -> Result<()> {
        let mut lookup = keyed(token_pk(hash.as_str()), TOKEN_SK);
        lookup.insert("kind".into(), s("read"));
        put_reader_fields(&mut lookup, token);
        let mut listing = keyed(org_pk(token.org_id), &listing_sk(token.scope, token.id));
        put_reader_fields(&mut listing, token);
        listing.insert("token_hash".into(), s(hash.as_str()));
        let items = vec![
            self.exists_check(target_key(token.org_id, token.scope))?,
            self.put(lookup, Some(NOT_EXISTS))?,
            self.put(listing, Some(NOT_EXISTS))?,
        ];
        match crate::transact::transact(
            self.client(),
            items,
            &[
                ConflictKind::Stale,
                ConflictKind::AlreadyExists,
                ConflictKind::AlreadyExists,
            ],
        )
        .await
        {
            Err(DomainError::Conflict(ConflictKind::Stale)) => {
                Err(DomainError::NotFound("Not found".into()))
            }
            other => other,
        }
    }

    async fn list_reader_tokens(&self, org: OrgId, scope: DocOrHub) -> Result<Vec<ReaderToken>> {
        let items = self
            .query_all(
                None,
                "pk = :pk AND begins_with(sk, :p)",
                vec![(":pk", s(org_pk(org))), (":p", s(listing_prefix(scope)))],
                true,
                None,
            )
            .await?;
        let mut tokens = items.iter().map(reader_from).collect::<Result<Vec<_>>>()?;
        tokens.sort_by_key(|t| (t.created_at, t.id.0));
        Ok(tokens)
    }

    async fn revoke_reader_token(
        &self,
        org: OrgId,
        scope: DocOrHub,
        id: ReaderTokenId,
    ) -> Result<bool> {
        let sk = listing_sk(scope, id);
        let Some(listing) = self.get(org_pk(org), &sk).await? else {
            return Ok(false);
        };
        let hash = get_s(&listing, "token_hash")?.to_owned();
        let items = vec![
            self.delete_action(org_pk(org), &sk, Some(EXISTS))?,
            self.delete_action(token_pk(&hash), TOKEN_SK, None)?,
        ];
        match crate::transact::transact(self.client(), items, &[ConflictKind::Stale; 2]).await {
            Ok(()) => Ok(true),
            // Revoked by a concurrent request between the read and the transaction.
            Err(DomainError::Conflict(ConflictKind::Stale)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    async fn touch_reader_token(
        &self,
        token: &ReaderToken,
        hash: &TokenHash,
        now: OffsetDateTime,
    ) -> Result<()> {
        let items = vec![
            self.touch_action(token_pk(hash.as_str()), TOKEN_SK, now)?,
            self.touch_action(
                org_pk(token.org_id),
                &listing_sk(token.scope, token.id),
                now,
            )?,
        ];
        match crate::transact::transact(self.client(), items, &[ConflictKind::Stale; 2]).await {
            // Revoked meanwhile: nothing to record.
            Ok(()) | Err(DomainError::Conflict(ConflictKind::Stale)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    async fn credential_by_token(
        &self,
        hash: &TokenHash,
        now: OffsetDateTime,
    ) -> Result<Option<Credential>> {
        let Some(i) = self.get(token_pk(hash.as_str()), TOKEN_SK).await? else {
            return Ok(None);
        };
        match get_s(&i, "kind")? {
            "read" => {
                let t = reader_from(&i)?;
                Ok(t.is_live(now).then_some(Credential::ReaderToken(t)))
            }
            "sso" => {
                let g = crate::sso::grant_from(&i)?;
                Ok((g.expires_at > now).then_some(Credential::Sso(g)))
            }
            _ => Ok(principal_from(&i)?.map(Credential::Member)),
        }
    }

    async fn reader_settings(&self, org: OrgId, of: DocOrHub) -> Result<Option<ReaderSettings>> {
        let (pk, sk) = target_key(org, of);
        let out = self
            .client()
            .get_item()
            .table_name(self.table())
            .key("pk", s(pk))
            .key("sk", s(sk))
            .consistent_read(true)
            .projection_expression("pk, sso_readers, embed_origins")
            .send()
            .await
            .map_err(sdk("GetItem"))?;
        out.item.as_ref().map(reader_settings_from).transpose()
    }

    async fn update_reader_settings(
        &self,
        org: OrgId,
        of: DocOrHub,
        sso_readers: Option<bool>,
        embed_origins: Option<&EmbedOrigins>,
        now: OffsetDateTime,
    ) -> Result<ReaderSettings> {
        let (pk, sk) = target_key(org, of);
        let mut sets = vec!["modified_at = :t"];
        let mut u = self
            .client()
            .update_item()
            .table_name(self.table())
            .key("pk", s(pk))
            .key("sk", s(sk))
            .condition_expression(EXISTS)
            .expression_attribute_values(":t", ts(now))
            .return_values(ReturnValue::AllNew);
        if let Some(v) = sso_readers {
            sets.push("sso_readers = :s");
            u = u.expression_attribute_values(":s", AttributeValue::Bool(v));
        }
        if let Some(o) = embed_origins {
            sets.push("embed_origins = :e");
            u = u.expression_attribute_values(
                ":e",
                AttributeValue::L(o.as_slice().iter().map(|x| s(x.as_str())).collect()),
            );
        }
        let r = u
            .update_expression(format!("SET {}", sets.join(", ")))
            .send()
            .await;
        match conditional("UpdateItem", r)? {
            Some(out) => reader_settings_from(
                out.attributes
                    .as_ref()
                    .ok_or_else(|| DomainError::unexpected("UpdateItem returned no attributes"))?,
            ),
            None => Err(DomainError::NotFound("Not found".into())),
        }
    }
}

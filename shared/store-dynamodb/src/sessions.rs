//! [`SessionStore`] over DynamoDB (docs/storage.md, "Items"): one `SESSION#<id hex>` / `SESSION` item per reader
//! session, with the token's hash, its times and a `ttl` at its expiry. A read compares the expiry with the clock,
//! so an expired session is absent before TTL deletes it; signing out deletes the item.

use async_trait::async_trait;
use specpress_domain::ports::SessionStore;
use specpress_domain::session::{Session, SessionId};
use specpress_domain::token::TokenHash;
use specpress_domain::{ConflictKind, DomainError, Result};
use time::OffsetDateTime;

use crate::DynamoStore;
use crate::attr::*;
use crate::items::{epoch, keyed};

/// Partition key of a session.
pub fn session_pk(id: &SessionId) -> String {
    format!("SESSION#{}", id.to_hex())
}
/// Sort key of a session.
pub const SESSION_SK: &str = "SESSION";

pub(crate) fn session_item(session: &Session) -> Item {
    let mut i = keyed(session_pk(&session.id), SESSION_SK);
    i.insert("token_hash".into(), s(session.token_hash.as_str()));
    i.insert("created_at".into(), ts(session.created_at));
    i.insert("expires_at".into(), ts(session.expires_at));
    i.insert("ttl".into(), n(epoch(session.expires_at)));
    i
}

fn session_from(id: SessionId, i: &Item) -> Result<Session> {
    Ok(Session {
        id,
        token_hash: TokenHash::from_stored(get_s(i, "token_hash")?.to_owned()),
        created_at: get_ts(i, "created_at")?,
        expires_at: get_ts(i, "expires_at")?,
    })
}

#[async_trait]
impl SessionStore for DynamoStore {
    async fn create_session(&self, session: &Session) -> Result<()> {
        let r = self
            .client()
            .put_item()
            .table_name(self.table())
            .set_item(Some(session_item(session)))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await;
        match conditional("PutItem", r)? {
            Some(_) => Ok(()),
            None => Err(DomainError::Conflict(ConflictKind::AlreadyExists)),
        }
    }

    async fn get_session(&self, id: &SessionId, now: OffsetDateTime) -> Result<Option<Session>> {
        let out = self
            .client()
            .get_item()
            .table_name(self.table())
            .key("pk", s(session_pk(id)))
            .key("sk", s(SESSION_SK))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("GetItem"))?;
        let Some(item) = out.item else {
            return Ok(None);
        };
        let session = session_from(*id, &item)?;
        Ok((session.expires_at > now).then_some(session))
    }

    async fn delete_session(&self, id: &SessionId) -> Result<()> {
        self.client()
            .delete_item()
            .table_name(self.table())
            .key("pk", s(session_pk(id)))
            .key("sk", s(SESSION_SK))
            .send()
            .await
            .map_err(sdk("DeleteItem"))?;
        Ok(())
    }
}

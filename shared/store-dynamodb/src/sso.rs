//! [`SsoStore`] over the single table (docs/storage.md, "Items", patterns 52-53):
//!
//! - `ORG#<org>` / `SSO`: the organization's provider settings, the client secret sealed (binary attribute).
//! - `TOKEN#<sha256>` / `TOKEN` with `kind = sso`: the grant a sign-in leaves, named by the reader's session; it
//!   carries a `ttl` at the session's end. It is written in one transaction with the session.

use async_trait::async_trait;
use aws_sdk_dynamodb::types::AttributeValue;
use specpress_domain::hostname::Hostname;
use specpress_domain::model::OrgId;
use specpress_domain::ports::SsoStore;
use specpress_domain::session::Session;
use specpress_domain::sso::{SsoConfigId, SsoGrant, SsoSettings};
use specpress_domain::token::TokenHash;
use specpress_domain::{ConflictKind, DomainError, Result};

use crate::DynamoStore;
use crate::attr::*;
use crate::items::{TOKEN_SK, epoch, keyed, org_pk, token_pk};

const SSO_SK: &str = "SSO";
const NOT_EXISTS: &str = "attribute_not_exists(pk)";

fn strings(v: &[String]) -> AttributeValue {
    AttributeValue::L(v.iter().map(|x| s(x.as_str())).collect())
}

fn strings_from(i: &Item, k: &str) -> Result<Vec<String>> {
    Ok(map_list(i, k, |v| match v {
        AttributeValue::S(x) => Ok(x.clone()),
        _ => Err(bad(k)),
    })?
    .unwrap_or_default())
}

fn settings_item(st: &SsoSettings) -> Item {
    let mut i = keyed(org_pk(st.org_id), SSO_SK);
    i.insert("org_id".into(), s(st.org_id.to_string()));
    i.insert("config_id".into(), s(st.config_id.to_string()));
    i.insert("issuer".into(), s(&st.issuer));
    i.insert("client_id".into(), s(&st.client_id));
    i.insert("sealed_secret".into(), b(st.sealed_secret.clone()));
    let domains: Vec<String> = st
        .allowed_domains
        .iter()
        .map(|d| d.as_str().to_owned())
        .collect();
    i.insert("allowed_domains".into(), strings(&domains));
    if let Some(c) = &st.groups_claim {
        i.insert("groups_claim".into(), s(c));
    }
    i.insert("allowed_groups".into(), strings(&st.allowed_groups));
    i.insert("created_at".into(), ts(st.created_at));
    i.insert("updated_at".into(), ts(st.updated_at));
    i
}

fn settings_from(i: &Item) -> Result<SsoSettings> {
    Ok(SsoSettings {
        org_id: OrgId(parse_uuid(i, "org_id")?),
        config_id: SsoConfigId(parse_uuid(i, "config_id")?),
        issuer: get_s(i, "issuer")?.to_owned(),
        client_id: get_s(i, "client_id")?.to_owned(),
        sealed_secret: get_b(i, "sealed_secret")?.to_vec(),
        allowed_domains: strings_from(i, "allowed_domains")?
            .into_iter()
            .map(Hostname::from_stored)
            .collect(),
        groups_claim: opt_s(i, "groups_claim").map(str::to_owned),
        allowed_groups: strings_from(i, "allowed_groups")?,
        created_at: get_ts(i, "created_at")?,
        updated_at: get_ts(i, "updated_at")?,
    })
}

/// A grant's lookup item (`kind = sso`).
fn grant_item(g: &SsoGrant, hash: &TokenHash) -> Item {
    let mut i = keyed(token_pk(hash.as_str()), TOKEN_SK);
    i.insert("kind".into(), s("sso"));
    i.insert("org_id".into(), s(g.org_id.to_string()));
    i.insert("config_id".into(), s(g.config_id.to_string()));
    if let Some(d) = &g.email_domain {
        i.insert("email_domain".into(), s(d));
    }
    i.insert("groups".into(), strings(&g.groups));
    i.insert("created_at".into(), ts(g.created_at));
    i.insert("expires_at".into(), ts(g.expires_at));
    i.insert("ttl".into(), n(epoch(g.expires_at)));
    i
}

/// The grant of a `kind = sso` token item.
pub(crate) fn grant_from(i: &Item) -> Result<SsoGrant> {
    Ok(SsoGrant {
        org_id: OrgId(parse_uuid(i, "org_id")?),
        config_id: SsoConfigId(parse_uuid(i, "config_id")?),
        email_domain: opt_s(i, "email_domain").map(str::to_owned),
        groups: strings_from(i, "groups")?,
        created_at: get_ts(i, "created_at")?,
        expires_at: get_ts(i, "expires_at")?,
    })
}

#[async_trait]
impl SsoStore for DynamoStore {
    async fn get_sso(&self, org: OrgId) -> Result<Option<SsoSettings>> {
        self.get(org_pk(org), SSO_SK)
            .await?
            .as_ref()
            .map(settings_from)
            .transpose()
    }

    async fn put_sso(&self, settings: &SsoSettings, previous: Option<&SsoSettings>) -> Result<()> {
        let mut put = self
            .client()
            .put_item()
            .table_name(self.table())
            .set_item(Some(settings_item(settings)));
        put = match previous {
            None => put.condition_expression(NOT_EXISTS),
            Some(p) => put
                .condition_expression("config_id = :c AND updated_at = :u")
                .expression_attribute_values(":c", s(p.config_id.to_string()))
                .expression_attribute_values(":u", ts(p.updated_at)),
        };
        match conditional("PutItem", put.send().await)? {
            Some(_) => Ok(()),
            None => Err(DomainError::Conflict(ConflictKind::Stale)),
        }
    }

    async fn delete_sso(&self, org: OrgId) -> Result<bool> {
        let out = self
            .client()
            .delete_item()
            .table_name(self.table())
            .key("pk", s(org_pk(org)))
            .key("sk", s(SSO_SK))
            .return_values(aws_sdk_dynamodb::types::ReturnValue::AllOld)
            .send()
            .await
            .map_err(sdk("DeleteItem"))?;
        Ok(out.attributes.is_some_and(|a| !a.is_empty()))
    }

    async fn start_sso_session(
        &self,
        grant: &SsoGrant,
        grant_hash: &TokenHash,
        session: &Session,
    ) -> Result<()> {
        let items = vec![
            self.put(grant_item(grant, grant_hash), Some(NOT_EXISTS))?,
            self.put(crate::sessions::session_item(session), Some(NOT_EXISTS))?,
        ];
        crate::transact::transact(self.client(), items, &[ConflictKind::AlreadyExists; 2]).await
    }
}

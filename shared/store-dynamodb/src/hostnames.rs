//! [`HostnameStore`] over the single table (docs/storage.md, "Items", patterns 54-57):
//!
//! - `HOST#<hostname>` / `CLAIM#<org>#<doc|hub>#<id>`: one documentation's or hub's claim of the hostname (its
//!   verification value, its status). Any number of targets may hold a pending claim of one hostname: a claim
//!   blocks nobody, so nobody can hold a name they do not control.
//! - `HOST#<hostname>` / `ROUTE`: the verified claim the hostname routes to, the one item `Host`-based routing
//!   reads. It is written by the first verification (`attribute_not_exists(pk)` or the same target), so one
//!   hostname never reaches two targets, nor another organization's documentation.
//! - `hostname` (S) and `hostname_verified` (BOOL) on the target's own item, read with it.

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{ConditionCheck, Delete, TransactWriteItem, Update};
use specpress_domain::hostname::{CustomDomain, DomainStatus, Hostname};
use specpress_domain::model::{DocOrHub, OrgId};
use specpress_domain::ports::HostnameStore;
use specpress_domain::{ConflictKind, DomainError, Result};
use time::OffsetDateTime;

use crate::DynamoStore;
use crate::attr::*;
use crate::items::keyed;
use crate::readers::target_key;
use crate::transact::transact_conditional;

const ROUTE_SK: &str = "ROUTE";
/// The route belongs to this target (`:o`, `:k`, `:i`).
const SAME_TARGET: &str = "org_id = :o AND target_kind = :k AND target_id = :i";

fn host_pk(h: &Hostname) -> String {
    format!("HOST#{h}")
}

fn claim_sk(org: OrgId, target: DocOrHub) -> String {
    format!("CLAIM#{org}#{}#{}", target.kind(), target.id_string())
}

fn domain_item(d: &CustomDomain, sk: &str) -> Item {
    let mut i = keyed(host_pk(&d.hostname), sk);
    i.insert("hostname".into(), s(d.hostname.as_str()));
    i.insert("org_id".into(), s(d.org_id.to_string()));
    i.insert("target_kind".into(), s(d.target.kind()));
    i.insert("target_id".into(), s(d.target.id_string()));
    i.insert("status".into(), s(d.status.as_str()));
    i.insert("value".into(), s(&d.value));
    i.insert("created_at".into(), ts(d.created_at));
    if let Some(v) = d.verified_at {
        i.insert("verified_at".into(), ts(v));
    }
    i
}

fn domain_from(i: &Item) -> Result<CustomDomain> {
    Ok(CustomDomain {
        hostname: Hostname::from_stored(get_s(i, "hostname")?.to_owned()),
        org_id: OrgId(parse_uuid(i, "org_id")?),
        target: DocOrHub::from_parts(get_s(i, "target_kind")?, get_s(i, "target_id")?)
            .ok_or_else(|| bad("target"))?,
        status: DomainStatus::parse(get_s(i, "status")?).ok_or_else(|| bad("status"))?,
        value: get_s(i, "value")?.to_owned(),
        created_at: get_ts(i, "created_at")?,
        verified_at: opt_ts(i, "verified_at")?,
    })
}

impl DynamoStore {
    /// The condition values naming `d`'s target.
    fn same_target_values(
        d: &CustomDomain,
    ) -> [(&'static str, aws_sdk_dynamodb::types::AttributeValue); 3] {
        [
            (":o", s(d.org_id.to_string())),
            (":k", s(d.target.kind())),
            (":i", s(d.target.id_string())),
        ]
    }

    /// Deletes `d`'s route when `d`'s target holds it (passes when the route is absent; fails, cancelling the
    /// transaction, when another target holds it).
    fn release_route(&self, d: &CustomDomain) -> Result<TransactWriteItem> {
        let mut del = Delete::builder()
            .table_name(self.table())
            .key("pk", s(host_pk(&d.hostname)))
            .key("sk", s(ROUTE_SK))
            .condition_expression(format!("attribute_not_exists(pk) OR ({SAME_TARGET})"));
        for (k, v) in Self::same_target_values(d) {
            del = del.expression_attribute_values(k, v);
        }
        Ok(TransactWriteItem::builder()
            .delete(del.build().map_err(DomainError::unexpected)?)
            .build())
    }

    /// Runs `actions`, then `release` (route deletions) at the end; when a release fails because another target
    /// holds that route, runs the rest again without it. `Err(i)`: the action at index `i` of `actions` failed.
    async fn transact_releasing(
        &self,
        actions: Vec<TransactWriteItem>,
        mut release: Vec<TransactWriteItem>,
    ) -> Result<std::result::Result<(), usize>> {
        loop {
            let n = actions.len();
            let mut all = actions.clone();
            all.extend(release.iter().cloned());
            match transact_conditional(self.client(), all).await? {
                Ok(()) => return Ok(Ok(())),
                Err(i) if i >= n => {
                    release.remove(i - n);
                }
                Err(i) => return Ok(Err(i)),
            }
        }
    }

    fn update_target(
        &self,
        d: &CustomDomain,
        expression: &str,
        condition: &str,
        values: Vec<(&str, aws_sdk_dynamodb::types::AttributeValue)>,
    ) -> Result<TransactWriteItem> {
        let (pk, sk) = target_key(d.org_id, d.target);
        let mut u = Update::builder()
            .table_name(self.table())
            .key("pk", s(pk))
            .key("sk", s(sk))
            .update_expression(expression)
            .condition_expression(condition);
        for (k, v) in values {
            u = u.expression_attribute_values(k, v);
        }
        Ok(TransactWriteItem::builder()
            .update(u.build().map_err(DomainError::unexpected)?)
            .build())
    }
}

#[async_trait]
impl HostnameStore for DynamoStore {
    async fn domain_of(&self, org: OrgId, target: DocOrHub) -> Result<Option<CustomDomain>> {
        let (pk, sk) = target_key(org, target);
        let out = self
            .client()
            .get_item()
            .table_name(self.table())
            .key("pk", s(pk))
            .key("sk", s(sk))
            .consistent_read(true)
            .projection_expression("hostname")
            .send()
            .await
            .map_err(sdk("GetItem"))?;
        let Some(name) = out.item.as_ref().and_then(|i| opt_s(i, "hostname")) else {
            return Ok(None);
        };
        let hostname = Hostname::from_stored(name.to_owned());
        self.get(host_pk(&hostname), &claim_sk(org, target))
            .await?
            .as_ref()
            .map(domain_from)
            .transpose()
    }

    async fn set_domain(
        &self,
        domain: &CustomDomain,
        replacing: Option<&CustomDomain>,
    ) -> Result<()> {
        let mut route_free = ConditionCheck::builder()
            .table_name(self.table())
            .key("pk", s(host_pk(&domain.hostname)))
            .key("sk", s(ROUTE_SK))
            .condition_expression(format!("attribute_not_exists(pk) OR ({SAME_TARGET})"));
        for (k, v) in Self::same_target_values(domain) {
            route_free = route_free.expression_attribute_values(k, v);
        }
        let target = match replacing {
            Some(old) => self.update_target(
                domain,
                "SET hostname = :h REMOVE hostname_verified",
                "attribute_exists(pk) AND hostname = :old",
                vec![
                    (":h", s(domain.hostname.as_str())),
                    (":old", s(old.hostname.as_str())),
                ],
            )?,
            None => self.update_target(
                domain,
                "SET hostname = :h REMOVE hostname_verified",
                "attribute_exists(pk) AND attribute_not_exists(hostname)",
                vec![(":h", s(domain.hostname.as_str()))],
            )?,
        };
        let mut actions = vec![
            TransactWriteItem::builder()
                .condition_check(route_free.build().map_err(DomainError::unexpected)?)
                .build(),
            target,
            self.put(
                domain_item(domain, &claim_sk(domain.org_id, domain.target)),
                None,
            )?,
        ];
        let mut release = Vec::new();
        if let Some(old) = replacing {
            let del = Delete::builder()
                .table_name(self.table())
                .key("pk", s(host_pk(&old.hostname)))
                .key("sk", s(claim_sk(old.org_id, old.target)))
                .build()
                .map_err(DomainError::unexpected)?;
            actions.push(TransactWriteItem::builder().delete(del).build());
            release.push(self.release_route(old)?);
        }
        match self.transact_releasing(actions, release).await? {
            Ok(()) => Ok(()),
            Err(0) => Err(DomainError::Conflict(ConflictKind::AlreadyExists)),
            Err(_) => Err(DomainError::Conflict(ConflictKind::Stale)),
        }
    }

    async fn mark_domain_verified(&self, domain: &CustomDomain, now: OffsetDateTime) -> Result<()> {
        let mut verified = domain.clone();
        verified.status = DomainStatus::Verified;
        verified.verified_at = Some(domain.verified_at.unwrap_or(now));
        let mut route = aws_sdk_dynamodb::types::Put::builder()
            .table_name(self.table())
            .set_item(Some(domain_item(&verified, ROUTE_SK)))
            .condition_expression(format!("attribute_not_exists(pk) OR ({SAME_TARGET})"));
        for (k, v) in Self::same_target_values(domain) {
            route = route.expression_attribute_values(k, v);
        }
        let claim = Update::builder()
            .table_name(self.table())
            .key("pk", s(host_pk(&domain.hostname)))
            .key("sk", s(claim_sk(domain.org_id, domain.target)))
            .update_expression("SET #st = :v, verified_at = :t")
            .condition_expression("#value = :value")
            .expression_attribute_names("#st", "status")
            .expression_attribute_names("#value", "value")
            .expression_attribute_values(":v", s(DomainStatus::Verified.as_str()))
            .expression_attribute_values(":t", ts(verified.verified_at.unwrap_or(now)))
            .expression_attribute_values(":value", s(&domain.value))
            .build()
            .map_err(DomainError::unexpected)?;
        let actions = vec![
            TransactWriteItem::builder()
                .put(route.build().map_err(DomainError::unexpected)?)
                .build(),
            TransactWriteItem::builder().update(claim).build(),
            self.update_target(
                domain,
                "SET hostname_verified = :yes",
                "hostname = :h",
                vec![
                    (":yes", aws_sdk_dynamodb::types::AttributeValue::Bool(true)),
                    (":h", s(domain.hostname.as_str())),
                ],
            )?,
        ];
        match transact_conditional(self.client(), actions).await? {
            Ok(()) => Ok(()),
            Err(0) => Err(DomainError::Conflict(ConflictKind::AlreadyExists)),
            Err(_) => Err(DomainError::Conflict(ConflictKind::Stale)),
        }
    }

    async fn delete_domain(&self, domain: &CustomDomain) -> Result<bool> {
        let claim = Delete::builder()
            .table_name(self.table())
            .key("pk", s(host_pk(&domain.hostname)))
            .key("sk", s(claim_sk(domain.org_id, domain.target)))
            .condition_expression("attribute_exists(pk)")
            .build()
            .map_err(DomainError::unexpected)?;
        let actions = vec![
            TransactWriteItem::builder().delete(claim).build(),
            self.update_target(
                domain,
                "REMOVE hostname, hostname_verified",
                "hostname = :h",
                vec![(":h", s(domain.hostname.as_str()))],
            )?,
        ];
        match self
            .transact_releasing(actions, vec![self.release_route(domain)?])
            .await?
        {
            Ok(()) => Ok(true),
            Err(_) => Ok(false),
        }
    }

    async fn verified_domain(&self, hostname: &Hostname) -> Result<Option<CustomDomain>> {
        self.get(host_pk(hostname), ROUTE_SK)
            .await?
            .as_ref()
            .map(domain_from)
            .transpose()
    }
}

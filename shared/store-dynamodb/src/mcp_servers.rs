//! MCP servers over the single table (docs/storage.md, "Items" and patterns 41-47):
//!
//! - `ORG#<org>` / `MCP#<id>`: the server (its token as a SHA-256 hex only, its `visibility`, absent on items
//!   written before it existed: public, the current version and its digest);
//!   `ORG#<org>` / `MCPSLUG#<slug>`: the organization's slug marker; `PUBLIC#MCP#<slug>` / `SLUG`: the
//!   installation-wide claim (the public page and the runtime name a server by slug alone); `MCP#<id>` / `META`: the
//!   id pointer (`org_id`). All four are written and deleted in one transaction.
//! - `MCP#<id>` / `VERSION#<version id>`: a deployed version; GSI1 `MCPVERSIONS#<id>` / `<created ns, 24
//!   digits>#<version id>` lists them newest first. The definition and references, and the validated model's JSON,
//!   are content-addressed blobs (`BLOB#<sha256>` chunks, as definitions), written before the commit.
//! - `MCP#<id>` / `SECRET#<name>`: a secret, sealed (XChaCha20-Poly1305; AAD = server id and name).

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{
    ConditionCheck, Delete, DeleteRequest, Put, TransactWriteItem, Update, WriteRequest,
};
use specpress_domain::mcp::*;
use specpress_domain::model::{BlobRef, OrgId, Slug};
use specpress_domain::ports::McpServerStore;
use specpress_domain::token::TokenHash;
use specpress_domain::{ConflictKind, DomainError, Result};
use time::OffsetDateTime;

use crate::DynamoStore;
use crate::attr::*;
use crate::items::{PUBLIC_SLUG_SK, keyed, org_pk, visibility_from};
use crate::schema::GSI1;
use crate::transact::transact;

const NOT_EXISTS: &str = "attribute_not_exists(pk)";
const EXISTS: &str = "attribute_exists(pk)";
/// Largest version summary (workflows and schemes) read back, uncompressed.
const MAX_SUMMARY_JSON: usize = 64 * 1024 * 1024;

fn server_sk(id: McpServerId) -> String {
    format!("MCP#{id}")
}
fn slug_sk(slug: &Slug) -> String {
    format!("MCPSLUG#{slug}")
}
fn public_pk(slug: &Slug) -> String {
    format!("PUBLIC#MCP#{slug}")
}
fn server_pk(id: McpServerId) -> String {
    format!("MCP#{id}")
}
const META_SK: &str = "META";
fn version_sk(id: McpVersionId) -> String {
    format!("VERSION#{id}")
}
fn versions_gsi1pk(id: McpServerId) -> String {
    format!("MCPVERSIONS#{id}")
}
fn secret_sk(name: &str) -> String {
    format!("SECRET#{name}")
}

fn server_item(sv: &McpServer) -> Item {
    let mut i = keyed(org_pk(sv.org_id), &server_sk(sv.id));
    i.insert("id".into(), s(sv.id.to_string()));
    i.insert("org_id".into(), s(sv.org_id.to_string()));
    i.insert("slug".into(), s(sv.slug.as_str()));
    i.insert("name".into(), s(sv.name.clone()));
    if let Some(d) = &sv.description {
        i.insert("description".into(), s(d.clone()));
    }
    i.insert("visibility".into(), s(sv.visibility.as_str()));
    i.insert("token_hash".into(), s(sv.token_hash.as_str()));
    if let Some(v) = sv.current_version_id {
        i.insert("current_version_id".into(), s(v.to_string()));
    }
    if let Some(d) = &sv.current_digest {
        i.insert("current_digest".into(), s(d.clone()));
    }
    i.insert("created_at".into(), ts(sv.created_at));
    i.insert("updated_at".into(), ts(sv.updated_at));
    i
}

fn server_from(i: &Item) -> Result<McpServer> {
    Ok(McpServer {
        id: McpServerId(parse_uuid(i, "id")?),
        org_id: OrgId(parse_uuid(i, "org_id")?),
        slug: Slug::parse(get_s(i, "slug")?).map_err(|_| bad("slug"))?,
        name: get_s(i, "name")?.to_owned(),
        description: opt_s(i, "description").map(str::to_owned),
        visibility: visibility_from(i)?,
        token_hash: TokenHash::from_stored(get_s(i, "token_hash")?.to_owned()),
        current_version_id: opt_uuid(i, "current_version_id")?.map(McpVersionId),
        current_digest: opt_s(i, "current_digest").map(str::to_owned),
        created_at: get_ts(i, "created_at")?,
        updated_at: get_ts(i, "updated_at")?,
    })
}

/// The version summary as stored: `[workflows, schemes]` (JSON, zstd).
type Summary = (Vec<WorkflowSummary>, Vec<String>);

fn version_item(v: &McpVersion) -> Result<Item> {
    let mut i = keyed(server_pk(v.server_id), &version_sk(v.id));
    i.insert("gsi1pk".into(), s(versions_gsi1pk(v.server_id)));
    i.insert(
        "gsi1sk".into(),
        s(format!(
            "{:024}#{}",
            v.created_at.unix_timestamp_nanos().max(0),
            v.id
        )),
    );
    i.insert("id".into(), s(v.id.to_string()));
    i.insert("server_id".into(), s(v.server_id.to_string()));
    i.insert("org_id".into(), s(v.org_id.to_string()));
    i.insert("created_at".into(), ts(v.created_at));
    i.insert("digest".into(), s(v.digest.clone()));
    i.insert("format".into(), s(v.format.clone()));
    i.insert("format_version".into(), s(v.format_version.clone()));
    i.insert("title".into(), s(v.title.clone()));
    let summary: (&[WorkflowSummary], &[String]) = (&v.workflows, &v.schemes);
    let summary = serde_json::to_vec(&summary).map_err(DomainError::unexpected)?;
    let packed = zstd::bulk::compress(&summary, 3).map_err(DomainError::unexpected)?;
    i.insert("summary".into(), b(packed));
    i.insert("bundle_sha256".into(), s(v.bundle.sha256.clone()));
    i.insert("bundle_size".into(), n(v.bundle.size));
    i.insert("model_sha256".into(), s(v.model.sha256.clone()));
    i.insert("model_size".into(), n(v.model.size));
    Ok(i)
}

fn version_from(i: &Item) -> Result<McpVersion> {
    let json = zstd::bulk::decompress(get_b(i, "summary")?, MAX_SUMMARY_JSON)
        .map_err(|_| bad("summary"))?;
    let (workflows, schemes): Summary =
        serde_json::from_slice(&json).map_err(|_| bad("summary"))?;
    Ok(McpVersion {
        id: McpVersionId(parse_uuid(i, "id")?),
        server_id: McpServerId(parse_uuid(i, "server_id")?),
        org_id: OrgId(parse_uuid(i, "org_id")?),
        created_at: get_ts(i, "created_at")?,
        digest: get_s(i, "digest")?.to_owned(),
        format: get_s(i, "format")?.to_owned(),
        format_version: get_s(i, "format_version")?.to_owned(),
        title: get_s(i, "title")?.to_owned(),
        workflows,
        schemes,
        bundle: BlobRef {
            sha256: get_s(i, "bundle_sha256")?.to_owned(),
            size: get_n(i, "bundle_size")?,
        },
        model: BlobRef {
            sha256: get_s(i, "model_sha256")?.to_owned(),
            size: get_n(i, "model_size")?,
        },
    })
}

fn secret_from(i: &Item) -> Result<StoredMcpSecret> {
    Ok(StoredMcpSecret {
        name: get_s(i, "name")?.to_owned(),
        sealed: get_b(i, "sealed")?.to_vec(),
        updated_at: get_ts(i, "updated_at")?,
    })
}

impl DynamoStore {
    async fn mcp_get(&self, pk: String, sk: &str) -> Result<Option<Item>> {
        let out = self
            .client()
            .get_item()
            .table_name(self.table())
            .key("pk", s(pk))
            .key("sk", s(sk))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("GetItem"))?;
        Ok(out.item)
    }

    fn mcp_put(&self, item: Item, condition: &str) -> Result<TransactWriteItem> {
        let put = Put::builder()
            .table_name(self.table())
            .set_item(Some(item))
            .condition_expression(condition)
            .build()
            .map_err(DomainError::unexpected)?;
        Ok(TransactWriteItem::builder().put(put).build())
    }

    fn mcp_delete(
        &self,
        pk: String,
        sk: &str,
        condition: Option<&str>,
    ) -> Result<TransactWriteItem> {
        let del = Delete::builder()
            .table_name(self.table())
            .key("pk", s(pk))
            .key("sk", s(sk))
            .set_condition_expression(condition.map(str::to_owned))
            .build()
            .map_err(DomainError::unexpected)?;
        Ok(TransactWriteItem::builder().delete(del).build())
    }

    async fn mcp_partition(&self, server: McpServerId, prefix: &str) -> Result<Vec<Item>> {
        self.query_all(
            None,
            "pk = :pk AND begins_with(sk, :p)",
            vec![(":pk", s(server_pk(server))), (":p", s(prefix))],
            true,
            None,
        )
        .await
    }
}

#[async_trait]
impl McpServerStore for DynamoStore {
    async fn create_mcp_server(&self, sv: &McpServer) -> Result<()> {
        let mut marker = keyed(org_pk(sv.org_id), &slug_sk(&sv.slug));
        marker.insert("server_id".into(), s(sv.id.to_string()));
        let mut public = keyed(public_pk(&sv.slug), PUBLIC_SLUG_SK);
        public.insert("server_id".into(), s(sv.id.to_string()));
        public.insert("org_id".into(), s(sv.org_id.to_string()));
        let mut pointer = keyed(server_pk(sv.id), META_SK);
        pointer.insert("org_id".into(), s(sv.org_id.to_string()));
        transact(
            self.client(),
            vec![
                self.mcp_put(marker, NOT_EXISTS)?,
                self.mcp_put(public, NOT_EXISTS)?,
                self.mcp_put(server_item(sv), NOT_EXISTS)?,
                self.mcp_put(pointer, NOT_EXISTS)?,
            ],
            &[
                ConflictKind::SlugTaken,
                ConflictKind::SlugTaken,
                ConflictKind::AlreadyExists,
                ConflictKind::AlreadyExists,
            ],
        )
        .await
    }

    async fn get_mcp_server(&self, org: OrgId, id: McpServerId) -> Result<Option<McpServer>> {
        self.mcp_get(org_pk(org), &server_sk(id))
            .await?
            .as_ref()
            .map(server_from)
            .transpose()
    }

    async fn mcp_server_by_slug(&self, org: OrgId, slug: &Slug) -> Result<Option<McpServer>> {
        let Some(m) = self.mcp_get(org_pk(org), &slug_sk(slug)).await? else {
            return Ok(None);
        };
        self.get_mcp_server(org, McpServerId(parse_uuid(&m, "server_id")?))
            .await
    }

    async fn get_mcp_server_public(&self, id: McpServerId) -> Result<Option<McpServer>> {
        let Some(p) = self.mcp_get(server_pk(id), META_SK).await? else {
            return Ok(None);
        };
        self.get_mcp_server(OrgId(parse_uuid(&p, "org_id")?), id)
            .await
    }

    async fn mcp_server_by_public_slug(&self, slug: &Slug) -> Result<Option<McpServer>> {
        let Some(m) = self.mcp_get(public_pk(slug), PUBLIC_SLUG_SK).await? else {
            return Ok(None);
        };
        let org = OrgId(parse_uuid(&m, "org_id")?);
        self.get_mcp_server(org, McpServerId(parse_uuid(&m, "server_id")?))
            .await
    }

    async fn list_mcp_servers(&self, org: OrgId) -> Result<Vec<McpServer>> {
        let items = self
            .query_all(
                None,
                "pk = :pk AND begins_with(sk, :p)",
                vec![(":pk", s(org_pk(org))), (":p", s("MCP#"))],
                true,
                None,
            )
            .await?;
        items.iter().map(server_from).collect()
    }

    async fn update_mcp_server(&self, sv: &McpServer) -> Result<()> {
        let mut u = self
            .client()
            .update_item()
            .table_name(self.table())
            .key("pk", s(org_pk(sv.org_id)))
            .key("sk", s(server_sk(sv.id)))
            .condition_expression(EXISTS)
            .expression_attribute_names("#name", "name")
            .expression_attribute_values(":name", s(sv.name.clone()))
            .expression_attribute_values(":vis", s(sv.visibility.as_str()))
            .expression_attribute_values(":u", ts(sv.updated_at));
        u = match &sv.description {
            Some(d) => u
                .update_expression(
                    "SET #name = :name, description = :d, visibility = :vis, updated_at = :u",
                )
                .expression_attribute_values(":d", s(d.clone())),
            None => u.update_expression(
                "SET #name = :name, visibility = :vis, updated_at = :u REMOVE description",
            ),
        };
        match conditional("UpdateItem", u.send().await)? {
            Some(_) => Ok(()),
            None => Err(DomainError::NotFound("MCP server not found".into())),
        }
    }

    async fn rotate_mcp_token(
        &self,
        sv: &McpServer,
        old: &TokenHash,
        new: &TokenHash,
        now: OffsetDateTime,
    ) -> Result<()> {
        let r = self
            .client()
            .update_item()
            .table_name(self.table())
            .key("pk", s(org_pk(sv.org_id)))
            .key("sk", s(server_sk(sv.id)))
            .condition_expression("attribute_exists(pk) AND token_hash = :old")
            .update_expression("SET token_hash = :new, updated_at = :u")
            .expression_attribute_values(":old", s(old.as_str()))
            .expression_attribute_values(":new", s(new.as_str()))
            .expression_attribute_values(":u", ts(now))
            .send()
            .await;
        match conditional("UpdateItem", r)? {
            Some(_) => Ok(()),
            None => Err(DomainError::Conflict(ConflictKind::Stale)),
        }
    }

    async fn delete_mcp_server(&self, sv: &McpServer) -> Result<bool> {
        let r = transact(
            self.client(),
            vec![
                self.mcp_delete(org_pk(sv.org_id), &server_sk(sv.id), Some(EXISTS))?,
                self.mcp_delete(org_pk(sv.org_id), &slug_sk(&sv.slug), None)?,
                self.mcp_delete(public_pk(&sv.slug), PUBLIC_SLUG_SK, None)?,
                self.mcp_delete(server_pk(sv.id), META_SK, None)?,
            ],
            &[ConflictKind::Stale; 4],
        )
        .await;
        match r {
            Err(DomainError::Conflict(ConflictKind::Stale)) => return Ok(false),
            r => r?,
        }
        // The server is unreachable from here on: its versions and secrets go next (retried by a second delete of
        // nothing if this fails midway; the partition is never read without the server).
        let rest = self
            .query_all(
                None,
                "pk = :pk",
                vec![(":pk", s(server_pk(sv.id)))],
                true,
                None,
            )
            .await?;
        let requests: Vec<WriteRequest> = rest
            .into_iter()
            .filter_map(|mut i| {
                let pk = i.remove("pk")?;
                let sk = i.remove("sk")?;
                let del = DeleteRequest::builder()
                    .key("pk", pk)
                    .key("sk", sk)
                    .build()
                    .ok()?;
                Some(WriteRequest::builder().delete_request(del).build())
            })
            .collect();
        self.batch_write(requests).await?;
        Ok(true)
    }

    async fn commit_mcp_version(
        &self,
        v: &McpVersion,
        expected: Option<McpVersionId>,
    ) -> Result<()> {
        let mut update = Update::builder()
            .table_name(self.table())
            .key("pk", s(org_pk(v.org_id)))
            .key("sk", s(server_sk(v.server_id)))
            .update_expression("SET current_version_id = :v, current_digest = :d, updated_at = :u")
            .expression_attribute_values(":v", s(v.id.to_string()))
            .expression_attribute_values(":d", s(v.digest.clone()))
            .expression_attribute_values(":u", ts(v.created_at));
        update = match expected {
            Some(old) => update
                .condition_expression("attribute_exists(pk) AND current_version_id = :old")
                .expression_attribute_values(":old", s(old.to_string())),
            None => update.condition_expression(
                "attribute_exists(pk) AND attribute_not_exists(current_version_id)",
            ),
        };
        let update = update.build().map_err(DomainError::unexpected)?;
        transact(
            self.client(),
            vec![
                self.mcp_put(version_item(v)?, NOT_EXISTS)?,
                TransactWriteItem::builder().update(update).build(),
            ],
            &[ConflictKind::AlreadyExists, ConflictKind::Stale],
        )
        .await
    }

    async fn list_mcp_versions(&self, server: McpServerId) -> Result<Vec<McpVersion>> {
        let items = self
            .query_all(
                Some(GSI1),
                "gsi1pk = :pk",
                vec![(":pk", s(versions_gsi1pk(server)))],
                false,
                None,
            )
            .await?;
        items.iter().map(version_from).collect()
    }

    async fn get_mcp_version(
        &self,
        server: McpServerId,
        id: McpVersionId,
    ) -> Result<Option<McpVersion>> {
        self.mcp_get(server_pk(server), &version_sk(id))
            .await?
            .as_ref()
            .map(version_from)
            .transpose()
    }

    async fn put_mcp_secret(&self, server: &McpServer, secret: &StoredMcpSecret) -> Result<()> {
        let mut i = keyed(server_pk(server.id), &secret_sk(&secret.name));
        i.insert("name".into(), s(secret.name.clone()));
        i.insert("sealed".into(), b(secret.sealed.clone()));
        i.insert("updated_at".into(), ts(secret.updated_at));
        let put = Put::builder()
            .table_name(self.table())
            .set_item(Some(i))
            .build()
            .map_err(DomainError::unexpected)?;
        // The server must still exist: a secret never outlives its server's deletion.
        let check = ConditionCheck::builder()
            .table_name(self.table())
            .key("pk", s(org_pk(server.org_id)))
            .key("sk", s(server_sk(server.id)))
            .condition_expression(EXISTS)
            .build()
            .map_err(DomainError::unexpected)?;
        let r = transact(
            self.client(),
            vec![
                TransactWriteItem::builder().condition_check(check).build(),
                TransactWriteItem::builder().put(put).build(),
            ],
            &[ConflictKind::Stale; 2],
        )
        .await;
        match r {
            Err(DomainError::Conflict(_)) => {
                Err(DomainError::NotFound("MCP server not found".into()))
            }
            r => r,
        }
    }

    async fn list_mcp_secrets(&self, server: McpServerId) -> Result<Vec<StoredMcpSecret>> {
        let items = self.mcp_partition(server, "SECRET#").await?;
        items.iter().map(secret_from).collect()
    }

    async fn delete_mcp_secret(&self, server: McpServerId, name: &str) -> Result<bool> {
        let out = self
            .client()
            .delete_item()
            .table_name(self.table())
            .key("pk", s(server_pk(server)))
            .key("sk", s(secret_sk(name)))
            .return_values(aws_sdk_dynamodb::types::ReturnValue::AllOld)
            .send()
            .await
            .map_err(sdk("DeleteItem"))?;
        Ok(out.attributes.is_some_and(|a| !a.is_empty()))
    }
}

//! [`DynamoStore`]: every storage port over one DynamoDB table.

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, Delete, Put, PutRequest, TransactWriteItem, Update,
    WriteRequest,
};
use specpress_domain::model::*;
use specpress_domain::ports::*;
use specpress_domain::token::{Principal, Scope, TokenHash, TokenOwner};
use specpress_domain::{ConflictKind, DomainError, Result};
use time::OffsetDateTime;

use crate::attr::*;
use crate::blob;
use crate::default_branch::default_move;
use crate::items::*;
use crate::schema::{GSI1, GSI2};
use crate::transact::transact;

/// Bundles up to this size are encoded on the calling task; larger ones on the blocking pool.
const INLINE_ENCODE_BYTES: usize = 256 * 1024;

/// The DynamoDB implementation of [`Store`]. Cheap to clone (the SDK client is an `Arc`).
#[derive(Clone, Debug)]
pub struct DynamoStore {
    client: Client,
    table: String,
    /// The local server's organization once it has been read (it never changes once recorded): public slug lookups
    /// that miss fall back to it, and the cache keeps that fallback to one read whatever the answer.
    default_org: std::sync::Arc<std::sync::OnceLock<OrgId>>,
}

const NOT_EXISTS: &str = "attribute_not_exists(pk)";

impl DynamoStore {
    /// Wraps a client and a table name.
    pub fn new(client: Client, table: impl Into<String>) -> Self {
        DynamoStore {
            client,
            table: table.into(),
            default_org: Default::default(),
        }
    }

    /// The table name.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The SDK client (for table administration in tests and tools).
    pub fn client(&self) -> &Client {
        &self.client
    }

    pub(crate) fn put(&self, item: Item, condition: Option<&str>) -> Result<TransactWriteItem> {
        let put = Put::builder()
            .table_name(&self.table)
            .set_item(Some(item))
            .set_condition_expression(condition.map(str::to_owned))
            .build()
            .map_err(DomainError::unexpected)?;
        Ok(TransactWriteItem::builder().put(put).build())
    }

    pub(crate) async fn get(&self, pk: String, sk: &str) -> Result<Option<Item>> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .key("pk", s(pk))
            .key("sk", s(sk))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("GetItem"))?;
        Ok(out.item)
    }

    /// Runs a query to exhaustion (all pages).
    pub(crate) async fn query_all(
        &self,
        index: Option<&str>,
        key_condition: &str,
        values: Vec<(&str, AttributeValue)>,
        forward: bool,
        limit: Option<u32>,
    ) -> Result<Vec<Item>> {
        let mut out = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let mut q = self
                .client
                .query()
                .table_name(&self.table)
                .set_index_name(index.map(str::to_owned))
                .key_condition_expression(key_condition)
                .scan_index_forward(forward)
                .set_exclusive_start_key(start.take())
                .consistent_read(index.is_none());
            for (k, v) in &values {
                q = q.expression_attribute_values(*k, v.clone());
            }
            if let Some(l) = limit {
                q = q.limit(l.saturating_sub(out.len() as u32).max(1) as i32);
            }
            let page = q.send().await.map_err(sdk("Query"))?;
            out.extend(page.items.unwrap_or_default());
            if limit.is_some_and(|l| out.len() as u32 >= l) {
                break;
            }
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => break,
            }
        }
        Ok(out)
    }

    /// The item of chunk `i` of `total` of an encoded bundle.
    fn chunk_item(encoded: &EncodedBundle, i: usize, total: usize, data: &[u8]) -> Item {
        blob::chunk_item(
            keyed(blob_pk(&encoded.blob.sha256), &chunk_sk(i)),
            encoded,
            total,
            data,
        )
    }

    /// Writes items with BatchWriteItem (at most 25 requests per call; chunks of 300 KiB keep a batch under its
    /// 16 MB), retrying unprocessed items with a growing pause.
    pub(crate) async fn batch_write(&self, requests: Vec<WriteRequest>) -> Result<()> {
        for batch in requests.chunks(25) {
            let mut pending = batch.to_vec();
            for attempt in 0..8u32 {
                let out = self
                    .client
                    .batch_write_item()
                    .request_items(&self.table, pending)
                    .send()
                    .await
                    .map_err(sdk("BatchWriteItem"))?;
                pending = out
                    .unprocessed_items
                    .and_then(|mut m| m.remove(&self.table))
                    .unwrap_or_default();
                if pending.is_empty() {
                    break;
                }
                if attempt == 7 {
                    return Err(DomainError::unexpected(
                        "BatchWriteItem left unprocessed items",
                    ));
                }
                tokio::time::sleep(std::time::Duration::from_millis(20 << attempt)).await;
            }
        }
        Ok(())
    }

    /// Writes an encoded bundle's chunks. Permanent: unconditional (overwriting drops any TTL, making a temporary
    /// blob permanent). Temporary: never shortens a life (skips a chunk that is permanent or lives longer).
    async fn write_blob(&self, encoded: &EncodedBundle, retention: Retention) -> Result<()> {
        let chunks = blob::chunks(encoded);
        let total = chunks.len();
        match retention {
            Retention::Permanent => {
                let mut requests: Vec<WriteRequest> = Vec::with_capacity(total);
                for (i, data) in chunks.into_iter().enumerate() {
                    let put = PutRequest::builder()
                        .set_item(Some(Self::chunk_item(encoded, i, total, data)))
                        .build()
                        .map_err(DomainError::unexpected)?;
                    requests.push(WriteRequest::builder().put_request(put).build());
                }
                self.batch_write(requests).await?;
            }
            Retention::Until(expiry) => {
                let ttl = epoch(expiry);
                for (i, data) in chunks.into_iter().enumerate() {
                    let mut item = Self::chunk_item(encoded, i, total, data);
                    item.insert("ttl".into(), n(ttl));
                    let r = self
                        .client
                        .put_item()
                        .table_name(&self.table)
                        .set_item(Some(item))
                        .condition_expression(
                            "attribute_not_exists(pk) OR (attribute_exists(#ttl) AND #ttl < :ttl)",
                        )
                        .expression_attribute_names("#ttl", "ttl")
                        .expression_attribute_values(":ttl", n(ttl))
                        .send()
                        .await;
                    match r {
                        Ok(_) => {}
                        Err(e)
                            if e.as_service_error()
                                .is_some_and(|e| e.is_conditional_check_failed_exception()) => {}
                        Err(e) => return Err(sdk("PutItem")(e)),
                    }
                }
            }
        }
        Ok(())
    }

    fn token_item(&self, hash: &TokenHash, owner: TokenOwner, now: OffsetDateTime) -> Item {
        let mut i = keyed(token_pk(hash.as_str()), TOKEN_SK);
        let (kind, org) = match owner {
            TokenOwner::Org(o) => ("org", o),
            TokenOwner::Hub(o, h) => {
                i.insert("hub_id".into(), s(h.to_string()));
                ("hub", o)
            }
            TokenOwner::Doc(o, d) => {
                i.insert("doc_id".into(), s(d.to_string()));
                ("doc", o)
            }
        };
        i.insert("kind".into(), s(kind));
        i.insert("org_id".into(), s(org.to_string()));
        i.insert("created_at".into(), ts(now));
        i
    }

    fn owner_key(owner: TokenOwner) -> (String, String) {
        match owner {
            TokenOwner::Org(o) => (org_pk(o), ORG_SK.to_owned()),
            TokenOwner::Hub(o, h) => (org_pk(o), hub_sk(h)),
            TokenOwner::Doc(o, d) => (org_pk(o), doc_sk(d)),
        }
    }

    /// Actions that create a documentation, its slug marker, its id pointer and its token.
    fn doc_actions(
        &self,
        d: &Documentation,
        token: &TokenHash,
    ) -> Result<(Vec<TransactWriteItem>, Vec<ConflictKind>)> {
        let mut marker = keyed(org_pk(d.org_id), &doc_slug_sk(&d.slug));
        marker.insert("doc_id".into(), s(d.id.to_string()));
        let mut pointer = keyed(doc_pk(d.id), DOC_META_SK);
        pointer.insert("org_id".into(), s(d.org_id.to_string()));
        let mut public = keyed(public_doc_slug_pk(&d.slug), PUBLIC_SLUG_SK);
        public.insert("doc_id".into(), s(d.id.to_string()));
        public.insert("org_id".into(), s(d.org_id.to_string()));
        let owner = TokenOwner::Doc(d.org_id, d.id);
        Ok((
            vec![
                self.put(marker, Some(NOT_EXISTS))?,
                self.put(public, Some(NOT_EXISTS))?,
                self.put(doc_item(d, token.as_str()), Some(NOT_EXISTS))?,
                self.put(pointer, Some(NOT_EXISTS))?,
                self.put(
                    self.token_item(token, owner, d.created_at),
                    Some(NOT_EXISTS),
                )?,
            ],
            vec![
                ConflictKind::SlugTaken,
                ConflictKind::SlugTaken,
                ConflictKind::AlreadyExists,
                ConflictKind::AlreadyExists,
                ConflictKind::AlreadyExists,
            ],
        ))
    }
}

#[async_trait]
impl TokenStore for DynamoStore {
    async fn principal_by_token(&self, hash: &TokenHash) -> Result<Option<Principal>> {
        let Some(i) = self.get(token_pk(hash.as_str()), TOKEN_SK).await? else {
            return Ok(None);
        };
        // Reader tokens and provider grants share the item layout but are no principal: the API answers them as no
        // token (issue 40).
        principal_from(&i)
    }

    async fn rotate_token(
        &self,
        owner: TokenOwner,
        current: Option<&TokenHash>,
        new: &TokenHash,
        now: OffsetDateTime,
    ) -> Result<()> {
        let (pk, sk) = Self::owner_key(owner);
        let entity = self
            .get(pk.clone(), &sk)
            .await?
            .ok_or(DomainError::Conflict(ConflictKind::Stale))?;
        let old = get_s(&entity, "token_hash")?.to_owned();
        // The transaction's `token_hash = :old` condition makes this check hold at commit time too.
        if current.is_some_and(|c| c.as_str() != old) {
            return Err(DomainError::Conflict(ConflictKind::Stale));
        }
        let delete = Delete::builder()
            .table_name(&self.table)
            .key("pk", s(token_pk(&old)))
            .key("sk", s(TOKEN_SK))
            .condition_expression("attribute_exists(pk)")
            .build()
            .map_err(DomainError::unexpected)?;
        let update = Update::builder()
            .table_name(&self.table)
            .key("pk", s(pk))
            .key("sk", s(sk))
            .update_expression("SET token_hash = :new")
            .condition_expression("token_hash = :old")
            .expression_attribute_values(":new", s(new.as_str()))
            .expression_attribute_values(":old", s(old))
            .build()
            .map_err(DomainError::unexpected)?;
        let items = vec![
            TransactWriteItem::builder().delete(delete).build(),
            self.put(self.token_item(new, owner, now), Some(NOT_EXISTS))?,
            TransactWriteItem::builder().update(update).build(),
        ];
        transact(
            &self.client,
            items,
            &[
                ConflictKind::Stale,
                ConflictKind::AlreadyExists,
                ConflictKind::Stale,
            ],
        )
        .await
    }
}

#[async_trait]
impl OrgStore for DynamoStore {
    async fn create_org(
        &self,
        org: &Organization,
        token: &TokenHash,
        as_default: bool,
    ) -> Result<()> {
        let mut item = keyed(org_pk(org.id), ORG_SK);
        item.insert("id".into(), s(org.id.to_string()));
        item.insert("name".into(), s(&org.name));
        item.insert("created_at".into(), ts(org.created_at));
        item.insert("token_hash".into(), s(token.as_str()));
        let mut items = vec![
            self.put(item, Some(NOT_EXISTS))?,
            self.put(
                self.token_item(token, TokenOwner::Org(org.id), org.created_at),
                Some(NOT_EXISTS),
            )?,
        ];
        if as_default {
            let mut marker = keyed(SETTINGS_PK.to_owned(), DEFAULT_ORG_SK);
            marker.insert("org_id".into(), s(org.id.to_string()));
            items.push(self.put(marker, Some(NOT_EXISTS))?);
        }
        transact(&self.client, items, &[ConflictKind::AlreadyExists; 3]).await
    }

    async fn get_org(&self, id: OrgId) -> Result<Option<Organization>> {
        let Some(i) = self.get(org_pk(id), ORG_SK).await? else {
            return Ok(None);
        };
        Ok(Some(Organization {
            id,
            name: get_s(&i, "name")?.to_owned(),
            created_at: get_ts(&i, "created_at")?,
        }))
    }

    async fn get_default_org(&self) -> Result<Option<OrgId>> {
        match self.get(SETTINGS_PK.to_owned(), DEFAULT_ORG_SK).await? {
            Some(i) => Ok(Some(OrgId(parse_uuid(&i, "org_id")?))),
            None => Ok(None),
        }
    }
}

/// The principal of an organization, hub or documentation token's item; `None` for the other kinds of items under
/// `TOKEN#` (reader tokens, provider grants).
pub(crate) fn principal_from(i: &Item) -> Result<Option<Principal>> {
    let org_id = OrgId(parse_uuid(i, "org_id")?);
    let scope = match get_s(i, "kind")? {
        "org" => Scope::Org,
        "hub" => Scope::Hub(HubId(parse_uuid(i, "hub_id")?)),
        "doc" => Scope::Doc(DocId(parse_uuid(i, "doc_id")?)),
        "read" | "sso" => return Ok(None),
        _ => return Err(bad("kind")),
    };
    Ok(Some(Principal { org_id, scope }))
}

impl DynamoStore {
    /// [`OrgStore::get_default_org`], read from the table until it is found, then from memory.
    async fn default_org_cached(&self) -> Result<Option<OrgId>> {
        if let Some(org) = self.default_org.get() {
            return Ok(Some(*org));
        }
        let org = self.get_default_org().await?;
        if let Some(o) = org {
            let _ = self.default_org.set(o);
        }
        Ok(org)
    }
}

#[async_trait]
impl HubStore for DynamoStore {
    async fn create_hub(&self, hub: &Hub, token: &TokenHash) -> Result<()> {
        let mut marker = keyed(org_pk(hub.org_id), &hub_slug_sk(&hub.slug));
        marker.insert("hub_id".into(), s(hub.id.to_string()));
        let mut public = keyed(public_hub_slug_pk(&hub.slug), PUBLIC_SLUG_SK);
        public.insert("hub_id".into(), s(hub.id.to_string()));
        public.insert("org_id".into(), s(hub.org_id.to_string()));
        let items = vec![
            self.put(marker, Some(NOT_EXISTS))?,
            self.put(public, Some(NOT_EXISTS))?,
            self.put(hub_item(hub, token.as_str()), Some(NOT_EXISTS))?,
            self.put(
                self.token_item(token, TokenOwner::Hub(hub.org_id, hub.id), hub.created_at),
                Some(NOT_EXISTS),
            )?,
        ];
        transact(
            &self.client,
            items,
            &[
                ConflictKind::SlugTaken,
                ConflictKind::SlugTaken,
                ConflictKind::AlreadyExists,
                ConflictKind::AlreadyExists,
            ],
        )
        .await
    }

    async fn get_hub(&self, org: OrgId, id: HubId) -> Result<Option<Hub>> {
        self.get(org_pk(org), &hub_sk(id))
            .await?
            .as_ref()
            .map(hub_from)
            .transpose()
    }

    async fn hub_by_slug(&self, org: OrgId, slug: &Slug) -> Result<Option<Hub>> {
        let Some(m) = self.get(org_pk(org), &hub_slug_sk(slug)).await? else {
            return Ok(None);
        };
        self.get_hub(org, HubId(parse_uuid(&m, "hub_id")?)).await
    }

    async fn list_hubs(&self, org: OrgId) -> Result<Vec<Hub>> {
        let items = self
            .query_all(
                None,
                "pk = :pk AND begins_with(sk, :p)",
                vec![(":pk", s(org_pk(org))), (":p", s("HUB#"))],
                true,
                None,
            )
            .await?;
        let mut hubs = items.iter().map(hub_from).collect::<Result<Vec<_>>>()?;
        hubs.sort_by(|a, b| a.slug.as_str().cmp(b.slug.as_str()));
        Ok(hubs)
    }

    async fn hub_by_public_slug(&self, slug: &Slug) -> Result<Option<Hub>> {
        match self.get(public_hub_slug_pk(slug), PUBLIC_SLUG_SK).await? {
            Some(m) => {
                let org = OrgId(parse_uuid(&m, "org_id")?);
                self.get_hub(org, HubId(parse_uuid(&m, "hub_id")?)).await
            }
            // Hubs created before slugs were claimed installation-wide: the local server's organization.
            None => match self.default_org_cached().await? {
                Some(org) => self.hub_by_slug(org, slug).await,
                None => Ok(None),
            },
        }
    }

    async fn set_hub_visibility(
        &self,
        org: OrgId,
        id: HubId,
        visibility: Visibility,
        now: OffsetDateTime,
    ) -> Result<Hub> {
        let item = self
            .set_visibility(org_pk(org), &hub_sk(id), visibility, now, "Hub not found")
            .await?;
        hub_from(&item)
    }
}

#[async_trait]
impl DocStore for DynamoStore {
    async fn create_doc(&self, doc: &Documentation, token: &TokenHash) -> Result<()> {
        let (items, kinds) = self.doc_actions(doc, token)?;
        transact(&self.client, items, &kinds).await
    }

    async fn get_doc(&self, org: OrgId, id: DocId) -> Result<Option<Documentation>> {
        self.get(org_pk(org), &doc_sk(id))
            .await?
            .as_ref()
            .map(doc_from)
            .transpose()
    }

    async fn get_doc_public(&self, id: DocId) -> Result<Option<Documentation>> {
        let Some(p) = self.get(doc_pk(id), DOC_META_SK).await? else {
            return Ok(None);
        };
        self.get_doc(OrgId(parse_uuid(&p, "org_id")?), id).await
    }

    async fn doc_by_slug(&self, org: OrgId, slug: &Slug) -> Result<Option<Documentation>> {
        let Some(m) = self.get(org_pk(org), &doc_slug_sk(slug)).await? else {
            return Ok(None);
        };
        self.get_doc(org, DocId(parse_uuid(&m, "doc_id")?)).await
    }

    async fn doc_by_public_slug(&self, slug: &Slug) -> Result<Option<Documentation>> {
        match self.get(public_doc_slug_pk(slug), PUBLIC_SLUG_SK).await? {
            Some(m) => {
                let org = OrgId(parse_uuid(&m, "org_id")?);
                self.get_doc(org, DocId(parse_uuid(&m, "doc_id")?)).await
            }
            // Documentations created before slugs were claimed installation-wide: the local server's organization.
            // A miss costs two reads like a hit (the public slug, then the organization's slug marker or the
            // default organization when there is none), so the time of an answer does not tell a private
            // documentation from an unknown one (`usecases::public::find_doc`).
            None => match self.default_org_cached().await? {
                Some(org) => self.doc_by_slug(org, slug).await,
                None => Ok(None),
            },
        }
    }

    async fn list_docs(&self, org: OrgId, hub: Option<HubId>) -> Result<Vec<Documentation>> {
        let items = match hub {
            Some(h) => {
                self.query_all(
                    Some(GSI1),
                    "gsi1pk = :pk",
                    vec![(":pk", s(hub_gsi1pk(h)))],
                    true,
                    None,
                )
                .await?
            }
            None => {
                self.query_all(
                    None,
                    "pk = :pk AND begins_with(sk, :p)",
                    vec![(":pk", s(org_pk(org))), (":p", s("DOC#"))],
                    true,
                    None,
                )
                .await?
            }
        };
        let mut docs = items.iter().map(doc_from).collect::<Result<Vec<_>>>()?;
        docs.retain(|d| d.org_id == org);
        docs.sort_by(|a, b| a.slug.as_str().cmp(b.slug.as_str()));
        Ok(docs)
    }

    async fn set_doc_visibility(
        &self,
        org: OrgId,
        id: DocId,
        visibility: Visibility,
        now: OffsetDateTime,
    ) -> Result<Documentation> {
        let item = self
            .set_visibility(
                org_pk(org),
                &doc_sk(id),
                visibility,
                now,
                "Documentation does not exist",
            )
            .await?;
        doc_from(&item)
    }

    async fn set_doc_try_it(
        &self,
        org: OrgId,
        id: DocId,
        try_it: TryIt,
        now: OffsetDateTime,
    ) -> Result<Documentation> {
        let item = self
            .set_setting(
                org_pk(org),
                &doc_sk(id),
                ("try_it", try_it.as_str()),
                now,
                "Documentation does not exist",
            )
            .await?;
        doc_from(&item)
    }
}

#[async_trait]
impl BranchStore for DynamoStore {
    async fn get_branch(&self, doc: DocId, slug: &Slug) -> Result<Option<Branch>> {
        self.get(doc_pk(doc), &branch_sk(slug))
            .await?
            .as_ref()
            .map(branch_from)
            .transpose()
    }

    async fn list_branches(&self, doc: DocId) -> Result<Vec<Branch>> {
        let items = self
            .query_all(
                None,
                "pk = :pk AND begins_with(sk, :p)",
                vec![(":pk", s(doc_pk(doc))), (":p", s("BRANCH#"))],
                true,
                None,
            )
            .await?;
        items.iter().map(branch_from).collect()
    }
}

#[async_trait]
impl VersionStore for DynamoStore {
    async fn commit(&self, c: &Commit) -> Result<()> {
        let mut items = Vec::new();
        let mut kinds = Vec::new();
        if let Some((doc, token)) = &c.create_doc {
            let (i, k) = self.doc_actions(doc, token)?;
            items.extend(i);
            kinds.extend(k);
        }
        if let Some(encoded) = &c.blob {
            if encoded.compressed.len() <= blob::CHUNK_BYTES {
                // One item: written by the transaction itself (unconditional, so it never cancels it).
                let item = Self::chunk_item(encoded, 0, 1, &encoded.compressed);
                items.push(self.put(item, None)?);
                kinds.push(ConflictKind::AlreadyExists);
            } else {
                // Too large for one transaction item: chunks first (content-addressed, harmless if the commit fails).
                self.write_blob(encoded, Retention::Permanent).await?;
            }
        }
        let v = &c.version;
        // The incarnation whose history the version joins.
        let mut generation = None;
        if let Some((name, expect)) = &c.branch {
            let seq = v
                .seq
                .ok_or_else(|| DomainError::unexpected("published version without seq"))?;
            match expect {
                BranchExpectation::Absent { generation: g } => {
                    generation = Some(*g);
                    let head = (&v.id, v.analysis.fingerprint.as_str());
                    let b = branch_item(v.doc_id, name, *g, seq, Some(head), v.created_at);
                    items.push(self.put(b, Some(NOT_EXISTS))?);
                }
                BranchExpectation::AtSeq {
                    seq: prev,
                    generation: g,
                } => {
                    generation = *g;
                    // The same incarnation at the same `seq`: a branch deleted and recreated since it was read fails
                    // this even when it is back at that `seq`.
                    let same_incarnation = match g {
                        Some(_) => "seq = :prev AND generation = :g",
                        None => "seq = :prev AND attribute_not_exists(generation)",
                    };
                    let mut u = Update::builder()
                        .table_name(&self.table)
                        .key("pk", s(doc_pk(v.doc_id)))
                        .key("sk", s(branch_sk(name.slug())))
                        .update_expression(
                            "SET seq = :next, head_version_id = :v, head_fingerprint = :f, modified_at = :t",
                        )
                        .condition_expression(same_incarnation)
                        .expression_attribute_values(":next", n(seq))
                        .expression_attribute_values(":prev", n(*prev))
                        .expression_attribute_values(":v", s(v.id.to_string()))
                        .expression_attribute_values(":f", s(&v.analysis.fingerprint))
                        .expression_attribute_values(":t", ts(v.created_at));
                    if let Some(g) = g {
                        u = u.expression_attribute_values(":g", s(g.to_string()));
                    }
                    let u = u.build().map_err(DomainError::unexpected)?;
                    items.push(TransactWriteItem::builder().update(u).build());
                }
            }
            kinds.push(ConflictKind::BranchMoved);
        } else if c.create_doc.is_none() {
            // A temporary version: the documentation must still exist when it is written.
            let cc = ConditionCheck::builder()
                .table_name(&self.table)
                .key("pk", s(doc_pk(v.doc_id)))
                .key("sk", s(DOC_META_SK))
                .condition_expression("attribute_exists(pk)")
                .build()
                .map_err(DomainError::unexpected)?;
            items.push(TransactWriteItem::builder().condition_check(cc).build());
            kinds.push(ConflictKind::Stale);
        }
        items.push(self.put(version_item(v, generation), Some(NOT_EXISTS))?);
        kinds.push(ConflictKind::AlreadyExists);
        if let Some(e) = &c.event {
            let mut item = event_item(e);
            // The action that goes with the event: its queue message (when the publisher's queue lives in this
            // table), or, for a documentation that has never had a subscription, the check that it still has not.
            let mut companion = None;
            let queue = c.enqueue_in.as_deref().filter(|_| c.queue_event);
            if !c.queue_event || queue.is_some() {
                // Not pending in the outbox: enqueued in this very transaction, or with nobody to notify (so the
                // sweeper never sends it).
                item.remove("gsi2pk");
                item.remove("gsi2sk");
            }
            if let Some(queue) = queue {
                item.insert("enqueued_at".into(), ts(e.created_at));
                let body = specpress_domain::webhooks::QueueBody::for_event(e).to_json();
                let message =
                    crate::queue_items::message_item(queue, &body, std::time::Duration::ZERO);
                companion = Some((self.put(message, None)?, ConflictKind::AlreadyExists));
            } else if !c.queue_event && c.create_doc.is_none() && c.default_from.is_none() {
                // A first subscription clears the flag in the transaction that creates it, so a deploy that read
                // the documentation before that cannot commit after it without queueing its event. (A commit that
                // moves the default branch checks it on its update of the documentation: one action per item.)
                let cc = ConditionCheck::builder()
                    .table_name(&self.table)
                    .key("pk", s(org_pk(e.org_id)))
                    .key("sk", s(doc_sk(e.doc_id)))
                    .condition_expression("never_subscribed = :t")
                    .expression_attribute_values(":t", AttributeValue::Bool(true))
                    .build()
                    .map_err(DomainError::unexpected)?;
                companion = Some((
                    TransactWriteItem::builder().condition_check(cc).build(),
                    ConflictKind::Stale,
                ));
            }
            items.push(self.put(item, Some(NOT_EXISTS))?);
            kinds.push(ConflictKind::AlreadyExists);
            if let Some((action, kind)) = companion {
                items.push(action);
                kinds.push(kind);
            }
        }
        if let (Some(old), None) = (&c.default_from, &c.create_doc) {
            for (action, kind) in default_move(&self.table, v, old, !c.queue_event)? {
                items.push(action);
                kinds.push(kind);
            }
        }
        transact(&self.client, items, &kinds).await
    }

    async fn get_version(&self, id: VersionId, now: OffsetDateTime) -> Result<Option<Version>> {
        let Some(i) = self.get(version_pk(id), VERSION_SK).await? else {
            return Ok(None);
        };
        let v = version_from(&i)?;
        Ok(if v.is_expired(now) { None } else { Some(v) })
    }

    async fn list_versions(
        &self,
        branch: &Branch,
        positions: std::ops::RangeInclusive<u64>,
    ) -> Result<Vec<Version>> {
        if positions.is_empty() {
            return Ok(Vec::new());
        }
        // A key range, newest first: as many items as positions in the range (a legacy partition may hold a few
        // more, one per earlier branch of the same slug that reached those positions).
        let items = self
            .query_all(
                Some(GSI1),
                "gsi1pk = :pk AND gsi1sk BETWEEN :lo AND :hi",
                vec![
                    (
                        ":pk",
                        s(history_pk(
                            branch.doc_id,
                            branch.name.slug(),
                            branch.generation,
                        )),
                    ),
                    (":lo", s(history_sk(*positions.start()))),
                    (":hi", s(history_sk(*positions.end()))),
                ],
                false,
                None,
            )
            .await?;
        let mut out: Vec<Version> = Vec::with_capacity(items.len());
        for item in &items {
            let v = version_from(item)?;
            match out.last_mut() {
                // Two versions at one position: a legacy partition, where an earlier branch of this slug reached it
                // too. The current branch's version is the one committed last, hence the newest (docs/storage.md).
                Some(last) if last.seq == v.seq => {
                    if v.created_at > last.created_at {
                        *last = v;
                    }
                }
                _ => out.push(v),
            }
        }
        Ok(out)
    }
}

#[async_trait]
impl BlobStore for DynamoStore {
    async fn put_bundle(&self, bundle: &Bundle, retention: Retention) -> Result<BlobRef> {
        let encoded = self.encode_bundle(bundle).await?;
        self.write_blob(&encoded, retention).await?;
        Ok(encoded.blob)
    }

    async fn encode_bundle(&self, bundle: &Bundle) -> Result<EncodedBundle> {
        // Compressing a few MiB takes milliseconds: keep it off the async workers for large bundles.
        let size = bundle.definition.len()
            + bundle
                .references
                .iter()
                .map(|r| r.content.len())
                .sum::<usize>();
        if size <= INLINE_ENCODE_BYTES {
            return blob::encode(bundle);
        }
        // Serializing is a copy of the definition (no escaping): it is the copy the blocking task needs anyway.
        let raw = blob::serialize(bundle)?;
        tokio::task::spawn_blocking(move || blob::encode_serialized(raw))
            .await
            .map_err(DomainError::unexpected)?
    }

    async fn get_bundle(&self, r: &BlobRef) -> Result<Option<Bundle>> {
        let items = self
            .query_all(
                None,
                "pk = :pk",
                vec![(":pk", s(blob_pk(&r.sha256)))],
                true,
                None,
            )
            .await?;
        if items.is_empty() {
            return Ok(None);
        }
        let compressed = blob::assemble(&items, chunk_sk)?.ok_or_else(|| bad("blob chunks"))?;
        blob::decode(&r.sha256, r.size, &compressed).map(Some)
    }
}

#[async_trait]
impl PreviewStore for DynamoStore {
    async fn create_preview(&self, p: &Preview) -> Result<()> {
        let r = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(preview_item(p)))
            .condition_expression(NOT_EXISTS)
            .send()
            .await;
        match r {
            Ok(_) => Ok(()),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
            {
                Err(DomainError::Conflict(ConflictKind::AlreadyExists))
            }
            Err(e) => Err(sdk("PutItem")(e)),
        }
    }

    async fn update_preview(&self, p: &Preview, now: OffsetDateTime) -> Result<()> {
        let r = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(preview_item(p)))
            .condition_expression("attribute_exists(pk) AND #ttl > :now")
            .expression_attribute_names("#ttl", "ttl")
            .expression_attribute_values(":now", n(epoch(now)))
            .send()
            .await;
        match r {
            Ok(_) => Ok(()),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
            {
                Err(DomainError::Conflict(ConflictKind::Stale))
            }
            Err(e) => Err(sdk("PutItem")(e)),
        }
    }

    async fn get_preview(&self, id: PreviewId, now: OffsetDateTime) -> Result<Option<Preview>> {
        let Some(i) = self.get(preview_pk(id), PREVIEW_SK).await? else {
            return Ok(None);
        };
        let p = preview_from(&i)?;
        Ok(if p.expires_at <= now { None } else { Some(p) })
    }
}

#[async_trait]
impl EventStore for DynamoStore {
    async fn pending_events(&self, limit: u32) -> Result<Vec<Event>> {
        let items = self
            .query_all(
                Some(GSI2),
                "gsi2pk = :pk",
                vec![(":pk", s(OUTBOX_PK))],
                true,
                Some(limit),
            )
            .await?;
        items.iter().take(limit as usize).map(event_from).collect()
    }

    async fn mark_event_enqueued(&self, id: EventId) -> Result<()> {
        let r = self
            .client
            .update_item()
            .table_name(&self.table)
            .key("pk", s(event_pk(id)))
            .key("sk", s(EVENT_SK))
            .update_expression("REMOVE gsi2pk, gsi2sk SET enqueued_at = :t")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_values(":t", ts(OffsetDateTime::now_utc()))
            .send()
            .await;
        match r {
            Ok(_) => Ok(()),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
            {
                Err(DomainError::NotFound("Event not found".into()))
            }
            Err(e) => Err(sdk("UpdateItem")(e)),
        }
    }

    async fn get_event(&self, id: EventId) -> Result<Option<Event>> {
        self.get(event_pk(id), EVENT_SK)
            .await?
            .as_ref()
            .map(event_from)
            .transpose()
    }
}

//! Keys and entity <-> item conversions. docs/storage.md is the authoritative description of this layout.

use specpress_domain::Result;
use specpress_domain::model::*;
use time::OffsetDateTime;

use crate::attr::*;

pub fn token_pk(hash: &str) -> String {
    format!("TOKEN#{hash}")
}
pub const TOKEN_SK: &str = "TOKEN";
pub fn org_pk(org: OrgId) -> String {
    format!("ORG#{org}")
}
pub const ORG_SK: &str = "ORG";
pub const SETTINGS_PK: &str = "SETTINGS";
pub const DEFAULT_ORG_SK: &str = "DEFAULT_ORG";
pub fn hub_sk(id: HubId) -> String {
    format!("HUB#{id}")
}
pub fn hub_slug_sk(slug: &Slug) -> String {
    format!("HUBSLUG#{slug}")
}
pub fn doc_sk(id: DocId) -> String {
    format!("DOC#{id}")
}
pub fn doc_slug_sk(slug: &Slug) -> String {
    format!("DOCSLUG#{slug}")
}
/// The installation-wide claim of a documentation slug (public URLs name documentations by slug alone).
pub fn public_doc_slug_pk(slug: &Slug) -> String {
    format!("PUBLIC#DOC#{slug}")
}
/// The installation-wide claim of a hub slug.
pub fn public_hub_slug_pk(slug: &Slug) -> String {
    format!("PUBLIC#HUB#{slug}")
}
pub const PUBLIC_SLUG_SK: &str = "SLUG";
pub fn doc_pk(id: DocId) -> String {
    format!("DOC#{id}")
}
pub const DOC_META_SK: &str = "META";
pub fn hub_gsi1pk(id: HubId) -> String {
    format!("HUB#{id}")
}
pub fn branch_sk(slug: &Slug) -> String {
    format!("BRANCH#{slug}")
}
pub fn version_pk(id: VersionId) -> String {
    format!("VERSION#{id}")
}
pub const VERSION_SK: &str = "VERSION";
/// The history partition of one incarnation of a branch. `None`: a branch created before generations existed, whose
/// versions share the legacy partition with those of earlier branches of the same slug (docs/storage.md, "Legacy
/// histories").
pub fn history_pk(doc: DocId, branch: &Slug, generation: Option<BranchGeneration>) -> String {
    match generation {
        Some(g) => format!("DOC#{doc}#BRANCH#{branch}#GEN#{g}"),
        None => format!("DOC#{doc}#BRANCH#{branch}"),
    }
}
pub fn history_sk(seq: u64) -> String {
    format!("V#{seq:012}")
}
pub fn blob_pk(sha: &str) -> String {
    format!("BLOB#{sha}")
}
pub fn chunk_sk(i: usize) -> String {
    format!("CHUNK#{i:04}")
}
pub fn preview_pk(id: PreviewId) -> String {
    format!("PREVIEW#{id}")
}
pub const PREVIEW_SK: &str = "PREVIEW";
pub fn event_pk(id: EventId) -> String {
    format!("EVENT#{id}")
}
pub const EVENT_SK: &str = "EVENT";
pub const OUTBOX_PK: &str = "OUTBOX";

pub fn keyed(pk: String, sk: &str) -> Item {
    let mut i = Item::new();
    i.insert("pk".into(), s(pk));
    i.insert("sk".into(), s(sk));
    i
}

pub fn epoch(t: OffsetDateTime) -> i64 {
    t.unix_timestamp()
}

// ---- hub ----
pub fn hub_item(h: &Hub, token: &str) -> Item {
    let mut i = keyed(org_pk(h.org_id), &hub_sk(h.id));
    i.insert("id".into(), s(h.id.to_string()));
    i.insert("org_id".into(), s(h.org_id.to_string()));
    i.insert("slug".into(), s(h.slug.as_str()));
    i.insert("name".into(), s(&h.name));
    if let Some(d) = &h.description {
        i.insert("description".into(), s(d));
    }
    i.insert("created_at".into(), ts(h.created_at));
    i.insert("modified_at".into(), ts(h.modified_at));
    i.insert("visibility".into(), s(h.visibility.as_str()));
    i.insert("token_hash".into(), s(token));
    i
}

pub fn hub_from(i: &Item) -> Result<Hub> {
    Ok(Hub {
        id: HubId(parse_uuid(i, "id")?),
        org_id: OrgId(parse_uuid(i, "org_id")?),
        slug: Slug::parse(get_s(i, "slug")?)?,
        name: get_s(i, "name")?.to_owned(),
        description: opt_s(i, "description").map(str::to_owned),
        created_at: get_ts(i, "created_at")?,
        modified_at: get_ts(i, "modified_at")?,
        visibility: visibility_from(i)?,
    })
}

/// A hub's or documentation's `visibility`: public when absent (items written before visibility existed).
pub fn visibility_from(i: &Item) -> Result<Visibility> {
    match opt_s(i, "visibility") {
        None => Ok(Visibility::Public),
        Some(v) => Visibility::parse("visibility", v),
    }
}

// ---- documentation ----
pub fn doc_item(d: &Documentation, token: &str) -> Item {
    let mut i = keyed(org_pk(d.org_id), &doc_sk(d.id));
    i.insert("id".into(), s(d.id.to_string()));
    i.insert("org_id".into(), s(d.org_id.to_string()));
    if let Some(h) = d.hub_id {
        i.insert("hub_id".into(), s(h.to_string()));
        i.insert("gsi1pk".into(), s(hub_gsi1pk(h)));
        i.insert("gsi1sk".into(), s(format!("DOC#{}", d.slug)));
    }
    i.insert("slug".into(), s(d.slug.as_str()));
    i.insert("name".into(), s(&d.name));
    i.insert("default_branch".into(), s(d.default_branch.as_str()));
    i.insert("created_at".into(), ts(d.created_at));
    i.insert("modified_at".into(), ts(d.modified_at));
    i.insert("visibility".into(), s(d.visibility.as_str()));
    i.insert("try_it".into(), s(d.try_it.as_str()));
    i.insert("token_hash".into(), s(token));
    if d.never_subscribed {
        i.insert(
            "never_subscribed".into(),
            aws_sdk_dynamodb::types::AttributeValue::Bool(true),
        );
    }
    i
}

pub fn doc_from(i: &Item) -> Result<Documentation> {
    Ok(Documentation {
        id: DocId(parse_uuid(i, "id")?),
        org_id: OrgId(parse_uuid(i, "org_id")?),
        hub_id: opt_uuid(i, "hub_id")?.map(HubId),
        slug: Slug::parse(get_s(i, "slug")?)?,
        name: get_s(i, "name")?.to_owned(),
        default_branch: Slug::parse(get_s(i, "default_branch")?)?,
        created_at: get_ts(i, "created_at")?,
        modified_at: get_ts(i, "modified_at")?,
        never_subscribed: get_bool(i, "never_subscribed"),
        visibility: visibility_from(i)?,
        try_it: try_it_from(i)?,
    })
}

/// A documentation's `try_it` (`off` when absent: documentations stored before the setting existed).
pub fn try_it_from(i: &Item) -> Result<TryIt> {
    match opt_s(i, "try_it") {
        None => Ok(TryIt::Off),
        Some(v) => TryIt::parse("try_it", v),
    }
}

// ---- branch ----
/// A new branch item: `seq` published versions so far, the head if any, a new incarnation.
pub fn branch_item(
    doc: DocId,
    name: &BranchName,
    generation: BranchGeneration,
    seq: u64,
    head: Option<(&VersionId, &str)>,
    now: OffsetDateTime,
) -> Item {
    let mut b = keyed(doc_pk(doc), &branch_sk(name.slug()));
    b.insert("doc_id".into(), s(doc.to_string()));
    b.insert("name".into(), s(name.name()));
    b.insert("slug".into(), s(name.slug().as_str()));
    b.insert("generation".into(), s(generation.to_string()));
    b.insert("seq".into(), n(seq));
    if let Some((id, fingerprint)) = head {
        b.insert("head_version_id".into(), s(id.to_string()));
        b.insert("head_fingerprint".into(), s(fingerprint));
    }
    b.insert("created_at".into(), ts(now));
    b.insert("modified_at".into(), ts(now));
    b
}

pub fn branch_from(i: &Item) -> Result<Branch> {
    let head = match (opt_s(i, "head_version_id"), opt_s(i, "head_fingerprint")) {
        (Some(v), Some(f)) => Some(BranchHead {
            version_id: VersionId(uuid::Uuid::try_parse(v).map_err(|_| bad("head_version_id"))?),
            fingerprint: f.to_owned(),
        }),
        _ => None,
    };
    Ok(Branch {
        doc_id: DocId(parse_uuid(i, "doc_id")?),
        name: BranchName::from_stored(
            get_s(i, "name")?.to_owned(),
            Slug::parse(get_s(i, "slug")?)?,
        ),
        seq: get_n(i, "seq")?,
        generation: opt_uuid(i, "generation")?.map(BranchGeneration),
        head,
        created_at: get_ts(i, "created_at")?,
    })
}

// ---- analysis ----
fn put_analysis(i: &mut Item, a: &Analysis) {
    i.insert("specification".into(), s(&a.specification));
    i.insert("title".into(), s(&a.title));
    i.insert("api_version".into(), s(&a.api_version));
    i.insert("fingerprint".into(), s(&a.fingerprint));
    if let Some(d) = &a.description {
        i.insert("description".into(), s(d));
    }
}

fn analysis_from(i: &Item) -> Result<Analysis> {
    Ok(Analysis {
        specification: get_s(i, "specification")?.to_owned(),
        title: get_s(i, "title")?.to_owned(),
        api_version: get_s(i, "api_version")?.to_owned(),
        fingerprint: get_s(i, "fingerprint")?.to_owned(),
        description: opt_s(i, "description").map(str::to_owned),
    })
}

fn put_blob(i: &mut Item, b: &BlobRef) {
    i.insert("blob_sha256".into(), s(&b.sha256));
    i.insert("blob_size".into(), n(b.size));
}

fn blob_from(i: &Item) -> Result<BlobRef> {
    Ok(BlobRef {
        sha256: get_s(i, "blob_sha256")?.to_owned(),
        size: get_n(i, "blob_size")?,
    })
}

// ---- version ----
/// A version item. A published one (with a `seq`) is indexed in the history of the branch incarnation `generation`.
pub fn version_item(v: &Version, generation: Option<BranchGeneration>) -> Item {
    let mut i = keyed(version_pk(v.id), VERSION_SK);
    i.insert("id".into(), s(v.id.to_string()));
    i.insert("org_id".into(), s(v.org_id.to_string()));
    i.insert("doc_id".into(), s(v.doc_id.to_string()));
    i.insert("branch".into(), s(v.branch.as_str()));
    if let Some(seq) = v.seq {
        i.insert("seq".into(), n(seq));
        i.insert(
            "gsi1pk".into(),
            s(history_pk(v.doc_id, &v.branch, generation)),
        );
        i.insert("gsi1sk".into(), s(history_sk(seq)));
        if let Some(g) = generation {
            i.insert("generation".into(), s(g.to_string()));
        }
    }
    if let Some(p) = v.previous_version_id {
        i.insert("previous_version_id".into(), s(p.to_string()));
    }
    put_blob(&mut i, &v.blob);
    put_analysis(&mut i, &v.analysis);
    i.insert(
        "temporary".into(),
        aws_sdk_dynamodb::types::AttributeValue::Bool(v.temporary),
    );
    if let Some(e) = v.expires_at {
        i.insert("expires_at".into(), ts(e));
        i.insert("ttl".into(), n(epoch(e)));
    }
    i.insert("created_at".into(), ts(v.created_at));
    i
}

pub fn version_from(i: &Item) -> Result<Version> {
    Ok(Version {
        id: VersionId(parse_uuid(i, "id")?),
        org_id: OrgId(parse_uuid(i, "org_id")?),
        doc_id: DocId(parse_uuid(i, "doc_id")?),
        branch: Slug::parse(get_s(i, "branch")?)?,
        seq: if i.contains_key("seq") {
            Some(get_n(i, "seq")?)
        } else {
            None
        },
        previous_version_id: opt_uuid(i, "previous_version_id")?.map(VersionId),
        blob: blob_from(i)?,
        analysis: analysis_from(i)?,
        temporary: get_bool(i, "temporary"),
        expires_at: opt_ts(i, "expires_at")?,
        created_at: get_ts(i, "created_at")?,
    })
}

// ---- preview ----
pub fn preview_item(p: &Preview) -> Item {
    let mut i = keyed(preview_pk(p.id), PREVIEW_SK);
    i.insert("id".into(), s(p.id.to_string()));
    put_blob(&mut i, &p.blob);
    put_analysis(&mut i, &p.analysis);
    i.insert("expires_at".into(), ts(p.expires_at));
    i.insert("ttl".into(), n(epoch(p.expires_at)));
    i.insert("created_at".into(), ts(p.created_at));
    i.insert("updated_at".into(), ts(p.updated_at));
    i
}

pub fn preview_from(i: &Item) -> Result<Preview> {
    Ok(Preview {
        id: PreviewId(parse_uuid(i, "id")?),
        blob: blob_from(i)?,
        analysis: analysis_from(i)?,
        expires_at: get_ts(i, "expires_at")?,
        created_at: get_ts(i, "created_at")?,
        updated_at: get_ts(i, "updated_at")?,
    })
}

// ---- event ----
pub fn event_item(e: &Event) -> Item {
    let mut i = keyed(event_pk(e.id), EVENT_SK);
    i.insert("id".into(), s(e.id.to_string()));
    i.insert("kind".into(), s(&e.kind));
    i.insert("org_id".into(), s(e.org_id.to_string()));
    i.insert("doc_id".into(), s(e.doc_id.to_string()));
    i.insert("branch".into(), s(e.branch.as_str()));
    i.insert("version_id".into(), s(e.version_id.to_string()));
    if let Some(p) = e.previous_version_id {
        i.insert("previous_version_id".into(), s(p.to_string()));
    }
    i.insert("created_at".into(), ts(e.created_at));
    i.insert("gsi2pk".into(), s(OUTBOX_PK));
    i.insert(
        "gsi2sk".into(),
        s(format!("{}#{}", epoch_nanos(e.created_at), e.id)),
    );
    i
}

fn epoch_nanos(t: OffsetDateTime) -> String {
    format!("{:024}", t.unix_timestamp_nanos().max(0))
}

pub fn event_from(i: &Item) -> Result<Event> {
    Ok(Event {
        id: EventId(parse_uuid(i, "id")?),
        kind: get_s(i, "kind")?.to_owned(),
        org_id: OrgId(parse_uuid(i, "org_id")?),
        doc_id: DocId(parse_uuid(i, "doc_id")?),
        branch: Slug::parse(get_s(i, "branch")?)?,
        version_id: VersionId(parse_uuid(i, "version_id")?),
        previous_version_id: opt_uuid(i, "previous_version_id")?.map(VersionId),
        created_at: get_ts(i, "created_at")?,
    })
}

//! Public URLs (`doc_public_url`, `diff_public_url`, preview `public_url`): finding what a reader asked for, and
//! deciding whether this reader may see it. A documentation is named by its slug (slugs are unique across the
//! installation); its id is also accepted, and the caller answers that form with a redirect to the slug form.
//!
//! Every lookup takes the [`Reader`]: a private documentation (or any documentation of a private hub) and a private
//! hub are answered to a reader who may not see them exactly as an unknown slug is (`NotFound`, same message), and
//! hub listings leave them out, so their existence does not leak.

use time::OffsetDateTime;

use crate::error::{DomainError, Result};
use crate::model::{
    BlobRef, Branch, Bundle, DocId, Documentation, Hub, PreviewId, Slug, Version, VersionId,
    Visibility,
};
use crate::model::{DocOrHub, OrgId};
use crate::ports::Store;
use crate::readers::{ReaderSettings, ReaderToken, sso_may_read_doc, sso_may_read_hub};
use crate::sso::SsoGrant;
use crate::token::Principal;
use crate::usecases::auth::{can_access_doc, can_access_hub};
use crate::usecases::branches::{History, HistoryStart, history_page};
use crate::usecases::hubs::HubApi;

fn missing() -> DomainError {
    DomainError::unexpected("stored definition missing")
}

fn doc_not_found() -> DomainError {
    DomainError::NotFound("Documentation does not exist".into())
}

/// Who is reading a public page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Reader {
    /// Nobody in particular: sees public documentations and hubs only.
    #[default]
    Anonymous,
    /// A reader who presented a live token (in `Authorization`, or through a session cookie made from one): also
    /// sees the private documentations and hubs that token reaches.
    Member(Principal),
    /// A reader who presented a live reader token (`sp_read_...`), or a session started with one: also sees the
    /// documentation or hub it names (a hub's: its documentations too), nothing else.
    ReaderToken(ReaderToken),
    /// A reader signed in through the organization's OpenID provider: also sees its private documentations and hubs
    /// whose settings let provider readers in (`sso_readers`, [`crate::readers::sso_may_read_doc`]).
    Sso(SsoGrant),
}

impl Reader {
    /// Whether the reader presented live credentials of any kind (their answers are never stored by shared caches).
    pub fn is_signed_in(&self) -> bool {
        !matches!(self, Reader::Anonymous)
    }

    /// Whether this reader may see `doc`, whose hub (if any) is `hub`, as far as the documentation and hub alone
    /// tell: a provider reader also needs their reader settings ([`may_read_doc`]), so this answers `false` for one
    /// when the documentation is private.
    pub fn may_read_doc(&self, doc: &Documentation, hub: Option<&Hub>) -> bool {
        if !is_private(doc, hub) {
            return true;
        }
        match self {
            Reader::Anonymous | Reader::Sso(_) => false,
            Reader::Member(p) => can_access_doc(p, doc),
            Reader::ReaderToken(t) => t.may_read_doc(doc),
        }
    }

    /// Whether this reader may see the hub's own pages, as far as the hub alone tells (see [`Reader::may_read_doc`]).
    pub fn may_read_hub(&self, hub: &Hub) -> bool {
        match (hub.visibility, self) {
            (Visibility::Public, _) => true,
            (Visibility::Private, Reader::Anonymous | Reader::Sso(_)) => false,
            (Visibility::Private, Reader::Member(p)) => can_access_hub(p, hub),
            (Visibility::Private, Reader::ReaderToken(t)) => t.may_read_hub(hub),
        }
    }
}

/// The reader settings of a documentation or hub (the defaults when it is gone meanwhile: nothing opened).
async fn settings_of(store: &dyn Store, org: OrgId, of: DocOrHub) -> Result<ReaderSettings> {
    Ok(store.reader_settings(org, of).await?.unwrap_or_default())
}

/// Whether `reader` may see `doc`, whose hub (if any) is `hub`: [`Reader::may_read_doc`], and for a reader signed in
/// through the organization's provider, the reader settings of each private layer (one read each, only then).
pub async fn may_read_doc(
    store: &dyn Store,
    reader: &Reader,
    doc: &Documentation,
    hub: Option<&Hub>,
) -> Result<bool> {
    let Reader::Sso(grant) = reader else {
        return Ok(reader.may_read_doc(doc, hub));
    };
    if !is_private(doc, hub) {
        return Ok(true);
    }
    if grant.org_id != doc.org_id {
        return Ok(false);
    }
    let doc_settings = if doc.visibility.is_private() {
        settings_of(store, doc.org_id, DocOrHub::Doc(doc.id)).await?
    } else {
        ReaderSettings::default()
    };
    let hub_settings = match hub {
        Some(h) if h.visibility.is_private() => {
            settings_of(store, h.org_id, DocOrHub::Hub(h.id)).await?
        }
        _ => ReaderSettings::default(),
    };
    Ok(sso_may_read_doc(
        grant,
        doc,
        &doc_settings,
        hub.map(|h| (h, &hub_settings)),
    ))
}

/// Whether `reader` may see the hub's own pages ([`Reader::may_read_hub`], and a provider reader's settings check).
pub async fn may_read_hub(store: &dyn Store, reader: &Reader, hub: &Hub) -> Result<bool> {
    match reader {
        Reader::Sso(grant) if hub.visibility.is_private() && grant.org_id == hub.org_id => {
            let settings = settings_of(store, hub.org_id, DocOrHub::Hub(hub.id)).await?;
            Ok(sso_may_read_hub(grant, hub, &settings))
        }
        _ => Ok(reader.may_read_hub(hub)),
    }
}

/// Whether a documentation is private, on its own or through its hub.
pub fn is_private(doc: &Documentation, hub: Option<&Hub>) -> bool {
    doc.visibility.is_private() || hub.is_some_and(|h| h.visibility.is_private())
}

/// A documentation a reader asked for and may see.
#[derive(Debug, Clone)]
pub struct PublicDoc {
    /// The documentation.
    pub doc: Documentation,
    /// `true` when the URL named it by id: answer with a redirect to the slug form.
    pub by_id: bool,
    /// Whether it is private (on its own or through its hub): its pages are never cached by shared caches nor
    /// indexed.
    pub private: bool,
}

impl std::ops::Deref for PublicDoc {
    type Target = Documentation;

    fn deref(&self) -> &Documentation {
        &self.doc
    }
}

/// The hub a documentation belongs to, if any (`None` as well when the hub is gone).
async fn hub_of(store: &dyn Store, doc: &Documentation) -> Result<Option<Hub>> {
    match doc.hub_id {
        Some(h) => store.get_hub(doc.org_id, h).await,
        None => Ok(None),
    }
}

/// A hub read whose answer is dropped, made where a "not found" would otherwise have done one read less than the
/// answer for a documentation in a hub (its result, even a failure, changes nothing).
async fn same_work_as_a_hub_read(store: &dyn Store) {
    let nobody = crate::model::OrgId(uuid::Uuid::nil());
    let none = crate::model::HubId(uuid::Uuid::nil());
    let _ = store.get_hub(nobody, none).await;
}

/// A documentation read whose answer is dropped (an organization no documentation has), made where an unknown id
/// would otherwise have done one read less than a known one.
async fn same_work_as_a_doc_read(store: &dyn Store, id: DocId) {
    let nobody = crate::model::OrgId(uuid::Uuid::nil());
    let _ = store.get_doc(nobody, id).await;
}

/// Finds a documentation by slug or id for a public page. `NotFound` when there is none, or when the reader may not
/// see it (the same answer).
///
/// The same work is done before every "not found", whatever the reason: one documentation read and one hub read (of
/// its hub, or of an id that names none), so that a private documentation cannot be told from an unknown key by how
/// long the answer takes. A key that cannot be a slug or an id is refused before any read, the same for all. By id,
/// a documentation is two reads (its id pointer, then the item) where an unknown id is one: a miss reads the
/// documentation item an id that names none would have, so both cost two.
pub async fn find_doc(store: &dyn Store, reader: &Reader, key: &str) -> Result<PublicDoc> {
    let (doc, by_id) = if let Some(id) = DocId::parse(key) {
        let doc = store.get_doc_public(id).await?;
        if doc.is_none() {
            same_work_as_a_doc_read(store, id).await;
        }
        (doc, true)
    } else {
        let slug = Slug::parse(key).map_err(|_| doc_not_found())?;
        (store.doc_by_public_slug(&slug).await?, false)
    };
    let Some(doc) = doc else {
        same_work_as_a_hub_read(store).await;
        return Err(doc_not_found());
    };
    let hub = match doc.hub_id {
        Some(_) => hub_of(store, &doc).await?,
        None if doc.visibility.is_private() => {
            same_work_as_a_hub_read(store).await;
            None
        }
        // A public documentation outside any hub is shown: nothing to hide, no read to match.
        None => None,
    };
    if !may_read_doc(store, reader, &doc, hub.as_ref()).await? {
        return Err(doc_not_found());
    }
    Ok(PublicDoc {
        private: is_private(&doc, hub.as_ref()),
        doc,
        by_id,
    })
}

/// A stored definition and its content address (the blob's SHA-256 names its bytes for ever: a validator needs
/// nothing more).
#[derive(Debug, Clone)]
pub struct Definition {
    /// Where it is stored, by content.
    pub blob: BlobRef,
    /// The definition and its external files.
    pub bundle: Bundle,
}

impl std::ops::Deref for Definition {
    type Target = Bundle;

    fn deref(&self) -> &Bundle {
        &self.bundle
    }
}

/// Reads the bundle of `blob`.
async fn definition(store: &dyn Store, blob: BlobRef) -> Result<Definition> {
    let bundle = store.get_bundle(&blob).await?.ok_or_else(missing)?;
    Ok(Definition { blob, bundle })
}

/// The definition at the head of a documentation's default branch.
pub async fn doc_definition(store: &dyn Store, doc: &Documentation) -> Result<Definition> {
    let branch = store.get_branch(doc.id, &doc.default_branch).await?;
    let head = branch
        .and_then(|b| b.head)
        .ok_or_else(|| DomainError::NotFound("No version published yet".into()))?;
    let now = OffsetDateTime::now_utc();
    let version = store
        .get_version(head.version_id, now)
        .await?
        .ok_or_else(doc_not_found)?;
    definition(store, version.blob).await
}

/// The definition of one published version of a documentation.
pub async fn version_definition(
    store: &dyn Store,
    doc: &Documentation,
    version: &str,
    now: OffsetDateTime,
) -> Result<Definition> {
    let not_found = || DomainError::NotFound("Version not found".into());
    let id = VersionId::parse(version).ok_or_else(not_found)?;
    let v = store
        .get_version(id, now)
        .await?
        .filter(|v| v.doc_id == doc.id)
        .ok_or_else(not_found)?;
    definition(store, v.blob).await
}

/// The definition of a live preview.
pub async fn preview_definition(
    store: &dyn Store,
    id: &str,
    now: OffsetDateTime,
) -> Result<Definition> {
    let not_found = || DomainError::NotFound("Preview not found".into());
    let id = PreviewId::parse(id).ok_or_else(not_found)?;
    let p = store.get_preview(id, now).await?.ok_or_else(not_found)?;
    definition(store, p.blob).await
}

fn hub_not_found() -> DomainError {
    DomainError::NotFound("Hub does not exist".into())
}

/// Finds a hub by its slug for a public page (`/hub/{slug}`). `NotFound` when there is none, or when the reader may
/// not see it (the same answer).
pub async fn find_hub(store: &dyn Store, reader: &Reader, key: &str) -> Result<Hub> {
    let slug = Slug::parse(key).map_err(|_| hub_not_found())?;
    match store.hub_by_public_slug(&slug).await? {
        Some(hub) if may_read_hub(store, reader, &hub).await? => Ok(hub),
        _ => Err(hub_not_found()),
    }
}

/// The documentations a hub's public page lists that the reader may see, with the head of their default branch, by
/// slug.
pub async fn hub_apis(
    store: &dyn Store,
    reader: &Reader,
    hub: &Hub,
    now: OffsetDateTime,
) -> Result<Vec<HubApi>> {
    let apis = crate::usecases::hubs::hub_apis(store, hub, now).await?;
    let mut shown = Vec::with_capacity(apis.len());
    for a in apis {
        if may_read_doc(store, reader, &a.doc, Some(hub)).await? {
            shown.push(a);
        }
    }
    Ok(shown)
}

/// A branch of a documentation found for a public page; `None` when it does not exist.
pub async fn doc_branch(
    store: &dyn Store,
    doc: &Documentation,
    slug: &Slug,
) -> Result<Option<Branch>> {
    store.get_branch(doc.id, slug).await
}

/// One page of a branch's published versions, newest first: at most `limit` after skipping the `skip` newest. One
/// range read of the branch's history index whatever its length (docs/storage.md, "Branch histories").
pub async fn releases(
    store: &dyn Store,
    doc: &Documentation,
    branch: &Branch,
    skip: u64,
    limit: u32,
) -> Result<Vec<Version>> {
    let history = History {
        doc: doc.clone(),
        branch: branch.clone(),
    };
    history_page(store, &history, HistoryStart::Offset(skip), limit).await
}

/// A version of a documentation, published or temporary (until it expires): what its change page shows.
pub async fn doc_version(
    store: &dyn Store,
    doc: &Documentation,
    version: &str,
    now: OffsetDateTime,
) -> Result<Version> {
    let not_found = || DomainError::NotFound("Version not found".into());
    let id = VersionId::parse(version).ok_or_else(not_found)?;
    store
        .get_version(id, now)
        .await?
        .filter(|v| v.doc_id == doc.id)
        .ok_or_else(not_found)
}

/// The version another one was compared against, when it still exists (a temporary baseline expires).
pub async fn previous_version(
    store: &dyn Store,
    version: &Version,
    now: OffsetDateTime,
) -> Result<Option<Version>> {
    match version.previous_version_id {
        Some(id) => Ok(store
            .get_version(id, now)
            .await?
            .filter(|p| p.doc_id == version.doc_id)),
        None => Ok(None),
    }
}

/// The documentations a hub lists on its public pages that the reader may see, by slug.
pub async fn hub_docs(store: &dyn Store, reader: &Reader, hub: &Hub) -> Result<Vec<PublicDoc>> {
    let listed = store.list_docs(hub.org_id, Some(hub.id)).await?;
    let mut docs = Vec::with_capacity(listed.len());
    for d in listed {
        if may_read_doc(store, reader, &d, Some(hub)).await? {
            docs.push(d);
        }
    }
    docs.sort_by(|a, b| a.slug.as_str().cmp(b.slug.as_str()));
    Ok(docs
        .into_iter()
        .map(|doc| PublicDoc {
            private: is_private(&doc, Some(hub)),
            doc,
            by_id: false,
        })
        .collect())
}

//! `specpress serve` publishes Specpress's own API reference (`specpress-openapi`) as the documentation
//! [`SLUG`](specpress_openapi::SLUG), so `/doc/specpress-api` shows it from the first start.
//!
//! - The document is deployed through the same use case as `POST /versions`, as the default organization: it has
//!   versions, diffs and a changelog like any other. A start whose document equals the branch head publishes
//!   nothing (the deploy's 204); a newer Specpress whose document changed publishes a new version.
//! - The documentation is created with an id derived from the organization's ([`self_doc_id`]), which is how a
//!   later start recognizes it as Specpress's own. A documentation with the slug that is not it (a user's, made
//!   before this existed or while publishing was off, or another organization's) is left untouched: the reference
//!   is then not published, and the start-up banner says why.
//! - The operator turns it off with `--no-self-doc` or `SPECPRESS_SELF_DOC=false` (options of `specpress serve`).

use sha2::{Digest, Sha256};
use specpress_domain::model::{Bundle, DEFAULT_BRANCH, DocId, Documentation, OrgId, Slug};
use specpress_domain::ports::{EventPublisher, SpecEngine, Store};
use specpress_domain::token::{Principal, Scope, TokenKind, mint};
use specpress_domain::usecases::deploy::{DeployInput, DeployOutcome, deploy};
use specpress_domain::usecases::resolve::{DocLookup, find_doc};
use specpress_domain::{ConflictKind, DomainError, Result};
use time::OffsetDateTime;

/// What publishing the reference did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelfDoc {
    /// A new version was published (first start, or a changed document).
    Published,
    /// The document equals the published one.
    Unchanged,
    /// Another documentation holds the slug; nothing was touched.
    SlugTaken,
}

/// The id of the reference's documentation in an organization: the first 16 bytes of
/// SHA-256(`specpress-self-doc:` | organization id) as a UUID (version 8, custom).
pub fn self_doc_id(org: OrgId) -> DocId {
    let mut hash = Sha256::new();
    hash.update(b"specpress-self-doc:");
    hash.update(org.0.as_bytes());
    let digest = hash.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    DocId(uuid::Builder::from_custom_bytes(bytes).into_uuid())
}

/// The text published: the document with `servers` naming this server.
pub fn definition(public_base: &str) -> String {
    specpress_openapi::yaml(&specpress_openapi::api_base(public_base))
}

async fn create(
    store: &dyn Store,
    org: OrgId,
    now: OffsetDateTime,
) -> Result<Option<Documentation>> {
    let doc = Documentation {
        id: self_doc_id(org),
        org_id: org,
        hub_id: None,
        slug: Slug::parse(specpress_openapi::SLUG)?,
        name: specpress_openapi::NAME.to_owned(),
        default_branch: Slug::parse(DEFAULT_BRANCH)?,
        created_at: now,
        modified_at: now,
        never_subscribed: true,
        visibility: specpress_domain::model::Visibility::Public,
        try_it: Default::default(),
    };
    // Its token is never shown: the operator gets one with `POST /docs/specpress-api/rotate_token`.
    let token = mint(TokenKind::Doc);
    match store.create_doc(&doc, &token.hash).await {
        Ok(()) => Ok(Some(doc)),
        // The slug is taken installation-wide (another organization), or a concurrent start created it first.
        Err(DomainError::Conflict(ConflictKind::SlugTaken | ConflictKind::AlreadyExists)) => {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Publishes the reference in `org` (the server's default organization), creating its documentation on the
/// first start.
pub async fn publish(
    store: &dyn Store,
    publisher: &dyn EventPublisher,
    engine: &dyn SpecEngine,
    org: OrgId,
    public_base: &str,
    now: OffsetDateTime,
) -> Result<SelfDoc> {
    let principal = Principal {
        org_id: org,
        scope: Scope::Org,
    };
    let ours = self_doc_id(org);
    let mut doc = None;
    // Twice: a creation that lost to a concurrent one (another process starting on the same data) looks again.
    for _ in 0..2 {
        match find_doc(store, &principal, specpress_openapi::SLUG, None).await? {
            DocLookup::Found(d) if d.id == ours => {
                doc = Some(d);
                break;
            }
            DocLookup::Found(_) | DocLookup::Hidden => return Ok(SelfDoc::SlugTaken),
            DocLookup::Absent => {
                if let Some(d) = create(store, org, now).await? {
                    doc = Some(d);
                    break;
                }
            }
        }
    }
    // Still absent from the organization after a refused creation: another organization holds the slug.
    let Some(doc) = doc else {
        return Ok(SelfDoc::SlugTaken);
    };
    let input = DeployInput {
        documentation: doc.id.to_string(),
        bundle: Bundle {
            definition: definition(public_base),
            references: Vec::new(),
        },
        ..DeployInput::default()
    };
    Ok(
        match deploy(store, publisher, engine, &principal, input, now).await? {
            DeployOutcome::Created { .. } => SelfDoc::Published,
            DeployOutcome::Unchanged { .. } => SelfDoc::Unchanged,
        },
    )
}

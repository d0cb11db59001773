//! `POST /versions`: deploy a definition to a documentation's branch.

use time::OffsetDateTime;

use crate::error::{ConflictKind, DomainError, Result};
use crate::model::*;
use crate::ports::SpecEngine;
use crate::ports::{BranchExpectation, Commit, EventPublisher, EventRoute, Store};
use crate::token::{Principal, Scope, TokenKind, mint};
use crate::usecases::resolve::{DocLookup, find_doc, resolve_hub_in_scope};
use crate::usecases::{MAX_COMMIT_ATTEMPTS, TEMPORARY_VERSION_TTL};

/// The request, as the API received it (bump-api.md §3.2).
#[derive(Debug, Clone, Default)]
pub struct DeployInput {
    /// UUID or slug of the documentation.
    pub documentation: String,
    /// UUID or slug of the hub.
    pub hub: Option<String>,
    /// Name for an auto-created documentation.
    pub documentation_name: Option<String>,
    /// Create the documentation if missing.
    pub auto_create: bool,
    /// Definition and references.
    pub bundle: Bundle,
    /// Target branch (created if missing); default branch when absent.
    pub branch_name: Option<String>,
    /// Compare against this version instead of the branch head.
    pub previous_version_id: Option<String>,
    /// Temporary version (`temporary` or its alias `unpublished`).
    pub temporary: bool,
}

/// What a deploy did.
// Returned once per request and matched immediately: boxing the larger variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum DeployOutcome {
    /// A new version (201).
    Created {
        /// The version.
        version: Version,
        /// Its documentation.
        doc: Documentation,
    },
    /// Identical to the baseline (204).
    Unchanged {
        /// The documentation.
        doc: Documentation,
    },
}

/// Deploys a version. Nothing is written unless the whole deploy succeeds (a temporary version's blob, or a
/// published definition too large for one item, content-addressed and idempotent, is the only thing written before
/// the transaction). A published version's event is committed with it, then handed to `publisher`
/// ([`hand_over`](crate::usecases::outbox::hand_over)).
pub async fn deploy(
    store: &dyn Store,
    publisher: &dyn EventPublisher,
    engine: &dyn SpecEngine,
    p: &Principal,
    input: DeployInput,
    now: OffsetDateTime,
) -> Result<DeployOutcome> {
    let key = input.documentation.trim();
    if key.is_empty() {
        return Err(DomainError::invalid(
            "documentation",
            "documentation is required (UUID or slug)",
        ));
    }
    let hub = match input
        .hub
        .as_deref()
        .map(str::trim)
        .filter(|h| !h.is_empty())
    {
        Some(h) => Some(resolve_hub_in_scope(store, store, p, h).await?),
        None => None,
    };
    let mut lookup = find_doc(store, p, key, hub.as_ref()).await?;
    let mut to_create: Option<Documentation> = match &lookup {
        DocLookup::Found(_) => None,
        DocLookup::Hidden => return Err(not_found_doc()),
        DocLookup::Absent if !input.auto_create => return Err(not_found_doc()),
        DocLookup::Absent => Some(new_doc(
            p,
            key,
            input.documentation_name.as_deref(),
            hub.as_ref(),
            now,
        )?),
    };

    // Absent (bump-cli without `--branch` omits the field) means the default branch; given, it must be a valid
    // name: a blank one is refused rather than read as "absent" and deployed to the default branch.
    let branch_name = match input.branch_name.as_deref() {
        Some(b) if b.trim().is_empty() => {
            return Err(DomainError::invalid(
                "branch_name",
                "branch_name is blank: give a branch name, or omit the field to deploy to the default branch",
            ));
        }
        // The same rules as `POST /docs/{doc}/branches` (length, characters, slug length, reserved names),
        // reported on the deploy's own attribute.
        Some(b) => Some(
            crate::branch_rules::validate_branch_name(b).map_err(|e| match e {
                DomainError::Invalid {
                    message, messages, ..
                } => DomainError::Invalid {
                    message,
                    field: "branch_name".to_owned(),
                    messages,
                },
                other => other,
            })?,
        ),
        None => None,
    };
    let explicit_previous = input
        .previous_version_id
        .as_deref()
        .filter(|s| !s.is_empty())
        .map(str::to_owned);

    let analysis = engine.check(&input.bundle).await?;
    // A documentation created without `documentation_name` is named after the document's `info.title`, as a
    // reader would name it (the slug only when the title cannot be a name).
    let unnamed = input
        .documentation_name
        .as_deref()
        .is_none_or(|n| n.trim().is_empty());
    if let Some(d) = to_create.as_mut().filter(|_| unnamed)
        && let Some(title) = name_from_title(&analysis.title)
    {
        d.name = title;
    }
    // A published definition is written by the commit itself (nothing at all for an unchanged one); a temporary
    // one first, with its expiry (a temporary write never shortens the life of a blob that already exists).
    let (blob, encoded) = if input.temporary {
        let retention = Retention::Until(now + TEMPORARY_VERSION_TTL);
        (store.put_bundle(&input.bundle, retention).await?, None)
    } else {
        let encoded = store.encode_bundle(&input.bundle).await?;
        (encoded.blob.clone(), Some(encoded))
    };
    let doc_token = mint(TokenKind::Doc);
    let enqueue_in = match publisher.route() {
        EventRoute::InCommit { queue } => Some(queue),
        EventRoute::Outbox | EventRoute::AfterCommit => None,
    };

    for _ in 0..MAX_COMMIT_ATTEMPTS {
        let doc = match (&lookup, &to_create) {
            (_, Some(d)) => d.clone(),
            (DocLookup::Found(d), None) => d.clone(),
            _ => return Err(not_found_doc()),
        };
        let branch = branch_name.clone().unwrap_or_else(|| {
            BranchName::from_stored(
                doc.default_branch.as_str().to_owned(),
                doc.default_branch.clone(),
            )
        });
        let current = if to_create.is_some() {
            None
        } else {
            store.get_branch(doc.id, branch.slug()).await?
        };
        let head = current.as_ref().and_then(|b| b.head.clone());

        let previous = match &explicit_previous {
            Some(s) => Some(load_previous(store, &doc, s, now).await?),
            None => None,
        };
        let baseline = match (&previous, input.temporary) {
            (Some(v), true) => Some(v.analysis.fingerprint.clone()),
            _ => head.as_ref().map(|h| h.fingerprint.clone()),
        };
        if baseline.as_deref() == Some(analysis.fingerprint.as_str()) {
            return Ok(DeployOutcome::Unchanged { doc });
        }
        let previous_version_id = previous
            .as_ref()
            .map(|v| v.id)
            .or(head.as_ref().map(|h| h.version_id));

        let seq = current.as_ref().map(|b| b.seq).unwrap_or(0);
        let version = Version {
            id: VersionId::new(),
            org_id: doc.org_id,
            doc_id: doc.id,
            branch: branch.slug().clone(),
            seq: (!input.temporary).then_some(seq + 1),
            previous_version_id,
            blob: blob.clone(),
            analysis: analysis.clone(),
            temporary: input.temporary,
            expires_at: input.temporary.then_some(now + TEMPORARY_VERSION_TTL),
            created_at: now,
        };
        let (branch_move, event) = if input.temporary {
            (None, None)
        } else {
            // A new branch gets a new incarnation; an existing one must still be the incarnation read.
            let expect = BranchExpectation::of(current.as_ref());
            let event = Event {
                id: EventId::new(),
                kind: EVENT_DOCUMENTATION_PUBLISHED.into(),
                org_id: doc.org_id,
                doc_id: doc.id,
                branch: branch.slug().clone(),
                version_id: version.id,
                previous_version_id,
                created_at: now,
            };
            (Some((branch.clone(), expect)), Some(event))
        };
        let commit = Commit {
            create_doc: to_create.clone().map(|d| (d, doc_token.hash.clone())),
            version: version.clone(),
            branch: branch_move,
            event,
            // A documentation nobody ever subscribed to has nobody to notify (the commit checks it still is so).
            queue_event: !doc.never_subscribed,
            enqueue_in: enqueue_in.clone(),
            blob: encoded.clone(),
        };
        match store.commit(&commit).await {
            Ok(()) => {
                if let Some(event) = commit.event.as_ref().filter(|_| commit.queue_event) {
                    // Hand the committed event to the webhook queue. Best effort: a failure is logged and the
                    // outbox sweeper re-sends the event, so the deploy never fails because of it.
                    crate::usecases::outbox::hand_over(store, publisher, event).await;
                }
                return Ok(DeployOutcome::Created { version, doc });
            }
            Err(DomainError::Conflict(ConflictKind::BranchMoved | ConflictKind::AlreadyExists)) => {
                continue;
            }
            Err(DomainError::Conflict(kind))
                if matches!(
                    (kind, &to_create),
                    (ConflictKind::SlugTaken, Some(_)) | (ConflictKind::Stale, None)
                ) =>
            {
                // Someone created the documentation meanwhile (deploy into it if we may), or the documentation
                // changed since it was read (its first webhook subscription, so the event must be queued after all;
                // or it was deleted): read it again.
                lookup = find_doc(store, p, key, hub.as_ref()).await?;
                to_create = None;
                if !matches!(lookup, DocLookup::Found(_)) {
                    return Err(not_found_doc());
                }
            }
            Err(e) => return Err(e),
        }
    }
    Err(DomainError::unexpected(
        "too much contention on the branch; retry the deploy",
    ))
}

/// A documentation name from a document title: trimmed, cut to the name length limit, `None` when empty or when it
/// holds control characters.
fn name_from_title(title: &str) -> Option<String> {
    let cut: String = title
        .trim()
        .chars()
        .take(crate::usecases::manage::NAME_MAX)
        .collect();
    crate::usecases::manage::check_name("documentation_name", &cut).ok()
}

/// `POST /validations` with a token: when the request names a documentation (and maybe a hub), it must be one the
/// token reaches, or one a deploy with this token would auto-create (a slug, absent from the organization, with an
/// organization token or a hub token in its own hub), since bump-cli's `deploy --dry-run --auto-create` validates
/// before the first deploy and never sends `auto_create_documentation` on a dry run. Anything else is the same 404
/// as a deploy's. Nothing is read beyond the lookups and nothing is written.
pub async fn check_validation_target(
    store: &dyn Store,
    p: &Principal,
    documentation: Option<&str>,
    hub: Option<&str>,
    now: OffsetDateTime,
) -> Result<()> {
    let Some(key) = documentation.map(str::trim).filter(|k| !k.is_empty()) else {
        return Ok(());
    };
    let hub = match hub.map(str::trim).filter(|h| !h.is_empty()) {
        Some(h) => Some(resolve_hub_in_scope(store, store, p, h).await?),
        None => None,
    };
    match find_doc(store, p, key, hub.as_ref()).await? {
        DocLookup::Found(_) => Ok(()),
        DocLookup::Hidden => Err(not_found_doc()),
        DocLookup::Absent => new_doc(p, key, None, hub.as_ref(), now)
            .map(|_| ())
            .map_err(|_| not_found_doc()),
    }
}

fn not_found_doc() -> DomainError {
    DomainError::NotFound("Documentation does not exist".into())
}

async fn load_previous(
    store: &dyn Store,
    doc: &Documentation,
    id: &str,
    now: OffsetDateTime,
) -> Result<Version> {
    let not_found = || DomainError::NotFound("Previous version not found".into());
    let id = VersionId::parse(id).ok_or_else(not_found)?;
    match store.get_version(id, now).await? {
        Some(v) if v.doc_id == doc.id && v.org_id == doc.org_id => Ok(v),
        _ => Err(not_found()),
    }
}

fn new_doc(
    p: &Principal,
    key: &str,
    name: Option<&str>,
    hub: Option<&Hub>,
    now: OffsetDateTime,
) -> Result<Documentation> {
    // Only an organization token, or a hub token deploying into its own hub, may create documentations.
    let hub_id = match (p.scope, hub) {
        (Scope::Org, h) => h.map(|h| h.id),
        (Scope::Hub(mine), Some(h)) if h.id == mine => Some(mine),
        (Scope::Hub(mine), None) => Some(mine),
        _ => return Err(not_found_doc()),
    };
    if DocId::parse(key).is_some() {
        return Err(not_found_doc());
    }
    let slug = Slug::parse(key).map_err(|_| {
        DomainError::invalid(
            "documentation",
            format!("cannot create documentation '{}': the slug must be 1 to 64 lowercase letters, digits and single dashes", key.chars().take(80).collect::<String>()),
        )
    })?;
    let name = match name.map(str::trim).filter(|n| !n.is_empty()) {
        Some(n) => crate::usecases::manage::check_name("documentation_name", n)?,
        None => slug.as_str().to_owned(),
    };
    Ok(Documentation {
        id: DocId::new(),
        org_id: p.org_id,
        hub_id,
        slug,
        name,
        default_branch: Slug::parse(DEFAULT_BRANCH).map_err(DomainError::unexpected)?,
        created_at: now,
        modified_at: now,
        never_subscribed: true,
        visibility: Visibility::Public,
    })
}

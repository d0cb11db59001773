//! `POST /versions`: deploy a definition to a documentation's branch.

use time::OffsetDateTime;

use crate::error::{ConflictKind, DomainError, Result};
use crate::model::*;
use crate::ports::SpecEngine;
use crate::ports::{BranchExpectation, Commit, EncodedBundle, EventPublisher, EventRoute, Store};
use crate::token::{MintedToken, Principal, Scope, TokenKind, mint};
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
///
/// The steps: find the documentation (or decide to create it), check the branch name, check the document with the
/// engine, store a temporary definition (a published one goes with the commit), then commit, reading the branch
/// again and retrying when a concurrent deploy moved it first.
pub async fn deploy(
    store: &dyn Store,
    publisher: &dyn EventPublisher,
    engine: &dyn SpecEngine,
    p: &Principal,
    input: DeployInput,
    now: OffsetDateTime,
) -> Result<DeployOutcome> {
    let mut target = Target::resolve(store, p, &input, now).await?;
    let branch_name = requested_branch(input.branch_name.as_deref())?;
    let analysis = engine.check(&input.bundle).await?;
    target.name_after_title(&input, &analysis);
    // A published definition is written by the commit itself (nothing at all for an unchanged one); a temporary
    // one first, with its expiry (a temporary write never shortens the life of a blob that already exists).
    let (blob, encoded) = if input.temporary {
        let retention = Retention::Until(now + TEMPORARY_VERSION_TTL);
        (store.put_bundle(&input.bundle, retention).await?, None)
    } else {
        let encoded = store.encode_bundle(&input.bundle).await?;
        (encoded.blob.clone(), Some(encoded))
    };
    let plan = Plan {
        temporary: input.temporary,
        explicit_previous: input
            .previous_version_id
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(str::to_owned),
        branch_name,
        analysis,
        blob,
        encoded,
        doc_token: mint(TokenKind::Doc),
        enqueue_in: match publisher.route() {
            EventRoute::InCommit { queue } => Some(queue),
            EventRoute::Outbox | EventRoute::AfterCommit => None,
        },
        now,
    };
    for _ in 0..MAX_COMMIT_ATTEMPTS {
        match plan.attempt(store, publisher, &target).await? {
            Attempt::Done(outcome) => return Ok(outcome),
            Attempt::BranchMoved => continue,
            Attempt::DocChanged => target.read_again(store, p).await?,
        }
    }
    Err(DomainError::unexpected(
        "too much contention on the branch; retry the deploy",
    ))
}

/// The documentation a deploy goes to: found, or to be created with the commit.
struct Target {
    /// The request's `documentation` (id or slug), trimmed.
    key: String,
    /// The request's hub, resolved.
    hub: Option<Hub>,
    /// What the lookup found.
    lookup: DocLookup,
    /// The documentation to create in the commit (auto-create), when it does not exist.
    to_create: Option<Documentation>,
}

impl Target {
    /// Finds the documentation the request names (in its hub, if given), or prepares its creation when the request
    /// may auto-create it; a documentation the token does not reach is the same 404 as an absent one.
    async fn resolve(
        store: &dyn Store,
        p: &Principal,
        input: &DeployInput,
        now: OffsetDateTime,
    ) -> Result<Target> {
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
        let lookup = find_doc(store, p, key, hub.as_ref()).await?;
        let to_create = match &lookup {
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
        Ok(Target {
            key: key.to_owned(),
            hub,
            lookup,
            to_create,
        })
    }

    /// A documentation created without `documentation_name` is named after the document's `info.title`, as a reader
    /// would name it (the slug only when the title cannot be a name).
    fn name_after_title(&mut self, input: &DeployInput, analysis: &Analysis) {
        let unnamed = input
            .documentation_name
            .as_deref()
            .is_none_or(|n| n.trim().is_empty());
        if let Some(d) = self.to_create.as_mut().filter(|_| unnamed)
            && let Some(title) = name_from_title(&analysis.title)
        {
            d.name = title;
        }
    }

    /// The documentation as this attempt sees it.
    fn doc(&self) -> Result<Documentation> {
        match (&self.lookup, &self.to_create) {
            (_, Some(d)) => Ok(d.clone()),
            (DocLookup::Found(d), None) => Ok(d.clone()),
            _ => Err(not_found_doc()),
        }
    }

    /// Someone created the documentation meanwhile (deploy into it if we may), or it changed since it was read (its
    /// first webhook subscription, so the event must be queued after all; or it was deleted): read it again.
    async fn read_again(&mut self, store: &dyn Store, p: &Principal) -> Result<()> {
        self.lookup = find_doc(store, p, &self.key, self.hub.as_ref()).await?;
        self.to_create = None;
        match self.lookup {
            DocLookup::Found(_) => Ok(()),
            _ => Err(not_found_doc()),
        }
    }
}

/// The branch a deploy names: absent (bump-cli without `--branch` omits the field) means the default branch; given,
/// it must be a valid name, by the same rules as `POST /docs/{doc}/branches` (length, characters, slug length,
/// reserved names), reported on the deploy's own attribute. A blank one is refused rather than read as absent.
fn requested_branch(name: Option<&str>) -> Result<Option<BranchName>> {
    match name {
        Some(b) if b.trim().is_empty() => Err(DomainError::invalid(
            "branch_name",
            "branch_name is blank: give a branch name, or omit the field to deploy to the default branch",
        )),
        Some(b) => crate::branch_rules::validate_branch_name(b)
            .map(Some)
            .map_err(|e| match e {
                DomainError::Invalid {
                    message, messages, ..
                } => DomainError::Invalid {
                    message,
                    field: "branch_name".to_owned(),
                    messages,
                },
                other => other,
            }),
        None => Ok(None),
    }
}

/// Everything a commit attempt needs that does not change between attempts.
struct Plan {
    temporary: bool,
    explicit_previous: Option<String>,
    branch_name: Option<BranchName>,
    analysis: Analysis,
    blob: BlobRef,
    encoded: Option<EncodedBundle>,
    doc_token: MintedToken,
    enqueue_in: Option<String>,
    now: OffsetDateTime,
}

/// How one commit attempt ended.
// Matched at once by the retry loop: boxing the larger variant would buy nothing.
#[allow(clippy::large_enum_variant)]
enum Attempt {
    /// The deploy is answered.
    Done(DeployOutcome),
    /// A concurrent deploy moved the branch first: try again on the new head.
    BranchMoved,
    /// The documentation was created or changed meanwhile: read it again, then try again.
    DocChanged,
}

impl Plan {
    /// One attempt: read the branch, compare with the baseline, commit the version (and its branch move and event).
    async fn attempt(
        &self,
        store: &dyn Store,
        publisher: &dyn EventPublisher,
        target: &Target,
    ) -> Result<Attempt> {
        let mut doc = target.doc()?;
        let branch = self.branch_name.clone().unwrap_or_else(|| {
            BranchName::from_stored(
                doc.default_branch.as_str().to_owned(),
                doc.default_branch.clone(),
            )
        });
        let current = if target.to_create.is_some() {
            None
        } else {
            store.get_branch(doc.id, branch.slug()).await?
        };
        let head = current.as_ref().and_then(|b| b.head.clone());
        let previous = match &self.explicit_previous {
            Some(s) => Some(load_previous(store, &doc, s, self.now).await?),
            None => None,
        };
        let baseline = match (&previous, self.temporary) {
            (Some(v), true) => Some(v.analysis.fingerprint.clone()),
            _ => head.as_ref().map(|h| h.fingerprint.clone()),
        };
        if baseline.as_deref() == Some(self.analysis.fingerprint.as_str()) {
            return Ok(Attempt::Done(DeployOutcome::Unchanged { doc }));
        }
        let previous_version_id = previous
            .as_ref()
            .map(|v| v.id)
            .or(head.as_ref().map(|h| h.version_id));
        let moves_default = self.moves_default(store, target, &doc, &branch).await?;
        let slug = branch.slug().clone();
        let commit = self.commit(
            target,
            &doc,
            branch,
            current.as_ref(),
            previous_version_id,
            moves_default,
        );
        match store.commit(&commit).await {
            Ok(()) => {
                if let Some(event) = commit.event.as_ref().filter(|_| commit.queue_event) {
                    // Hand the committed event to the webhook queue. Best effort: a failure is logged and the
                    // outbox sweeper re-sends the event, so the deploy never fails because of it.
                    crate::usecases::outbox::hand_over(store, publisher, event).await;
                }
                if moves_default {
                    doc.default_branch = slug;
                    doc.modified_at = self.now;
                }
                Ok(Attempt::Done(DeployOutcome::Created {
                    version: commit.version,
                    doc,
                }))
            }
            Err(DomainError::Conflict(ConflictKind::BranchMoved | ConflictKind::AlreadyExists)) => {
                Ok(Attempt::BranchMoved)
            }
            Err(DomainError::Conflict(kind))
                if matches!(
                    (kind, &target.to_create),
                    (ConflictKind::SlugTaken, Some(_)) | (ConflictKind::Stale, None)
                ) =>
            {
                Ok(Attempt::DocChanged)
            }
            Err(e) => Err(e),
        }
    }

    /// Whether publishing on `branch` makes it the documentation's default branch: it is not the default, and the
    /// default has no published version (a documentation created by this very deploy has none). Then the first
    /// branch to get a release is the one the documentation's URL shows, not an empty default.
    async fn moves_default(
        &self,
        store: &dyn Store,
        target: &Target,
        doc: &Documentation,
        branch: &BranchName,
    ) -> Result<bool> {
        if self.temporary || branch.slug() == &doc.default_branch {
            return Ok(false);
        }
        if target.to_create.is_some() {
            return Ok(true);
        }
        let default = store.get_branch(doc.id, &doc.default_branch).await?;
        Ok(default.is_none_or(|b| b.head.is_none()))
    }

    /// The commit of a new version on `branch` (whose current state is `current`): for a published version, the
    /// branch move expected from that state and the event; with `moves_default`, the documentation's default branch
    /// moved to `branch` (a documentation created by the commit is created with it as its default).
    fn commit(
        &self,
        target: &Target,
        doc: &Documentation,
        branch: BranchName,
        current: Option<&Branch>,
        previous_version_id: Option<VersionId>,
        moves_default: bool,
    ) -> Commit {
        let new_default = moves_default.then(|| branch.slug().clone());
        let seq = current.map(|b| b.seq).unwrap_or(0);
        let version = Version {
            id: VersionId::new(),
            org_id: doc.org_id,
            doc_id: doc.id,
            branch: branch.slug().clone(),
            seq: (!self.temporary).then_some(seq + 1),
            previous_version_id,
            blob: self.blob.clone(),
            analysis: self.analysis.clone(),
            temporary: self.temporary,
            expires_at: self.temporary.then_some(self.now + TEMPORARY_VERSION_TTL),
            created_at: self.now,
        };
        let (branch_move, event) = if self.temporary {
            (None, None)
        } else {
            // A new branch gets a new incarnation; an existing one must still be the incarnation read.
            let expect = BranchExpectation::of(current);
            let event = Event {
                id: EventId::new(),
                kind: EVENT_DOCUMENTATION_PUBLISHED.into(),
                org_id: doc.org_id,
                doc_id: doc.id,
                branch: branch.slug().clone(),
                version_id: version.id,
                previous_version_id,
                created_at: self.now,
            };
            (Some((branch, expect)), Some(event))
        };
        let create_doc = target.to_create.clone().map(|mut d| {
            if let Some(slug) = &new_default {
                d.default_branch = slug.clone();
            }
            (d, self.doc_token.hash.clone())
        });
        Commit {
            default_from: new_default
                .filter(|_| create_doc.is_none())
                .map(|_| doc.default_branch.clone()),
            create_doc,
            version,
            branch: branch_move,
            event,
            // A documentation nobody ever subscribed to has nobody to notify (the commit checks it still is so).
            // A documentation of a hub queues its events: its hub may have subscriptions (now or later).
            queue_event: !doc.never_subscribed || doc.hub_id.is_some(),
            enqueue_in: self.enqueue_in.clone(),
            blob: self.encoded.clone(),
        }
    }
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
        try_it: Default::default(),
    })
}

//! MCP servers (`/api/v1/mcp-servers`, docs/api.md "MCP servers"): create, list, read, update (name, description,
//! visibility), delete, rotate the server's token, deploy a workflow document (bump-cli `deploy --mcp-server`), list
//! versions, write-only secrets; and the two reads of the public side: [`open_runtime`] (the MCP endpoint, with a
//! credential) and [`open_page`] (the server's page: anyone's for a public server, only the caller with its token or
//! its organization's for a private one, which answers everyone else exactly as an unknown server does).
//!
//! Every management call needs an organization token; a server of another organization answers exactly like an
//! unknown one (404). The workflow engine is the caller's: [`deploy`] takes the validation as a closure returning the
//! model as opaque JSON bytes, so this crate never reads a workflow document.

use std::future::Future;

use subtle::ConstantTimeEq;
use time::OffsetDateTime;

use crate::error::{ConflictKind, DomainError, Result};
use crate::mcp::*;
use crate::model::{Bundle, Retention, Slug, Visibility};
use crate::ports::{BlobStore, McpServerStore, TokenStore};
use crate::token::{MintedToken, Principal, Scope, TokenHash, TokenKind, mint};
use crate::usecases::auth::require_org;
use crate::usecases::manage::check_name;

/// Attempts of a deploy's commit against concurrent deploys to the same server.
const MAX_COMMIT_ATTEMPTS: usize = 16;

fn not_found() -> DomainError {
    DomainError::NotFound("MCP server not found".into())
}

fn check_description(d: Option<String>) -> Result<Option<String>> {
    if let Some(text) = &d
        && (text.chars().count() > DESCRIPTION_MAX || text.contains('\0'))
    {
        return Err(DomainError::invalid(
            "description",
            format!("description must be at most {DESCRIPTION_MAX} characters, without NUL"),
        ));
    }
    Ok(d.map(|d| d.trim().to_owned()).filter(|d| !d.is_empty()))
}

/// The organization's server named by `key` (id or slug); `NotFound` otherwise.
pub async fn resolve<S: McpServerStore + ?Sized>(
    store: &S,
    p: &Principal,
    key: &str,
) -> Result<McpServer> {
    require_org(p)?;
    find_in_org(store, p, key).await?.ok_or_else(not_found)
}

async fn find_in_org<S: McpServerStore + ?Sized>(
    store: &S,
    p: &Principal,
    key: &str,
) -> Result<Option<McpServer>> {
    if let Some(id) = McpServerId::parse(key) {
        return store.get_mcp_server(p.org_id, id).await;
    }
    match Slug::parse(key) {
        Ok(slug) => store.mcp_server_by_slug(p.org_id, &slug).await,
        Err(_) => Ok(None),
    }
}

async fn find_public<S: McpServerStore + ?Sized>(
    store: &S,
    key: &str,
) -> Result<Option<McpServer>> {
    if let Some(id) = McpServerId::parse(key) {
        return store.get_mcp_server_public(id).await;
    }
    match Slug::parse(key) {
        Ok(slug) => store.mcp_server_by_public_slug(&slug).await,
        Err(_) => Ok(None),
    }
}

fn new_server(
    p: &Principal,
    name: String,
    slug: Slug,
    description: Option<String>,
    now: OffsetDateTime,
) -> (McpServer, MintedToken) {
    let token = mint(TokenKind::Mcp);
    let server = McpServer {
        id: McpServerId::new(),
        org_id: p.org_id,
        slug,
        name,
        description,
        visibility: Visibility::Public,
        token_hash: token.hash.clone(),
        current_version_id: None,
        current_digest: None,
        created_at: now,
        updated_at: now,
    };
    (server, token)
}

async fn insert<S: McpServerStore + ?Sized>(store: &S, server: &McpServer) -> Result<()> {
    match store.create_mcp_server(server).await {
        Err(DomainError::Conflict(ConflictKind::SlugTaken)) => Err(DomainError::invalid(
            "slug",
            format!("an MCP server with slug '{}' already exists", server.slug),
        )),
        r => r,
    }
}

/// Creates a server (`POST /mcp-servers`); the minted token is shown once.
pub async fn create<S: McpServerStore + ?Sized>(
    store: &S,
    p: &Principal,
    name: &str,
    slug: Option<&str>,
    description: Option<String>,
    now: OffsetDateTime,
) -> Result<(McpServer, MintedToken)> {
    require_org(p)?;
    let name = check_name("name", name)?;
    let slug = match slug.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => Slug::parse(s)?,
        None => Slug::from_name(&name).ok_or_else(|| {
            DomainError::invalid(
                "slug",
                "the name has no letter or digit to build a slug from; pass a slug",
            )
        })?,
    };
    let description = check_description(description)?;
    let (server, token) = new_server(p, name, slug, description, now);
    insert(store, &server).await?;
    Ok((server, token))
}

/// The organization's servers, oldest first.
pub async fn list<S: McpServerStore + ?Sized>(store: &S, p: &Principal) -> Result<Vec<McpServer>> {
    require_org(p)?;
    let mut all = store.list_mcp_servers(p.org_id).await?;
    all.sort_by_key(|s| (s.created_at, s.id.0));
    Ok(all)
}

/// Fields `PATCH` may change; `description: Some(None)` clears it.
#[derive(Debug, Default)]
pub struct UpdateServer {
    /// New name.
    pub name: Option<String>,
    /// New description (`Some(None)` clears).
    pub description: Option<Option<String>>,
    /// New visibility (`public` or `private`, as written: checked here).
    pub visibility: Option<String>,
}

/// Updates a server's name, description and visibility (all checked before anything is written).
pub async fn update<S: McpServerStore + ?Sized>(
    store: &S,
    p: &Principal,
    key: &str,
    input: UpdateServer,
    now: OffsetDateTime,
) -> Result<McpServer> {
    let mut server = resolve(store, p, key).await?;
    if let Some(name) = input.name {
        server.name = check_name("name", &name)?;
    }
    if let Some(d) = input.description {
        server.description = check_description(d)?;
    }
    if let Some(v) = input.visibility {
        server.visibility = Visibility::parse("visibility", &v)?;
    }
    server.updated_at = now;
    store.update_mcp_server(&server).await?;
    Ok(server)
}

/// Deletes a server with its versions and secrets.
pub async fn delete<S: McpServerStore + ?Sized>(store: &S, p: &Principal, key: &str) -> Result<()> {
    let server = resolve(store, p, key).await?;
    if store.delete_mcp_server(&server).await? {
        Ok(())
    } else {
        Err(not_found())
    }
}

/// Replaces the server's token: the old one stops working at once. The new one is shown once.
pub async fn rotate_token<S: McpServerStore + ?Sized>(
    store: &S,
    p: &Principal,
    key: &str,
    now: OffsetDateTime,
) -> Result<MintedToken> {
    let server = resolve(store, p, key).await?;
    let token = mint(TokenKind::Mcp);
    store
        .rotate_mcp_token(&server, &server.token_hash, &token.hash, now)
        .await?;
    Ok(token)
}

/// What a deploy did.
#[derive(Debug)]
pub enum DeployOutcome {
    /// A new version is current (201).
    Created {
        /// The server.
        server: Box<McpServer>,
        /// The new version.
        version: Box<McpVersion>,
    },
    /// The document equals the current version's (204).
    Unchanged(Box<McpServer>),
}

/// Deploys a workflow document (`POST /mcp-servers/{key}/deploy`). `validate` runs the workflow engine (off the
/// async threads) and gives the bundle back with what it learned, or `DomainError::Invalid` (422). An unknown slug
/// creates the server, named after the document's title (the caller holds an organization token).
pub async fn deploy<S, F, Fut>(
    store: &S,
    p: &Principal,
    key: &str,
    bundle: Bundle,
    validate: F,
    now: OffsetDateTime,
) -> Result<DeployOutcome>
where
    S: McpServerStore + BlobStore + ?Sized,
    F: FnOnce(Bundle) -> Fut,
    Fut: Future<Output = Result<(Bundle, ValidatedWorkflow)>>,
{
    require_org(p)?;
    let digest = bundle_digest(&bundle);
    let found = find_in_org(store, p, key).await?;
    if let Some(s) = found
        .as_ref()
        .filter(|s| s.current_digest.as_deref() == Some(digest.as_str()))
    {
        return Ok(DeployOutcome::Unchanged(Box::new(s.clone())));
    }
    let auto_slug = match (&found, McpServerId::parse(key)) {
        (None, Some(_)) => return Err(not_found()),
        (None, None) => Some(Slug::parse(key).map_err(|_| not_found())?),
        (Some(_), _) => None,
    };
    let (bundle, validated) = validate(bundle).await?;
    let mut server = match (found, auto_slug) {
        (Some(s), _) => s,
        (None, Some(slug)) => {
            let name = check_name("name", &validated.title)
                .or_else(|_| check_name("name", slug.as_str()))?;
            let (server, _token) = new_server(p, name, slug, None, now);
            insert(store, &server).await?;
            server
        }
        (None, None) => return Err(not_found()),
    };
    let bundle_ref = store.put_bundle(&bundle, Retention::Permanent).await?;
    drop(bundle);
    let model_text = String::from_utf8(validated.model)
        .map_err(|_| DomainError::unexpected("the workflow model is not UTF-8 JSON"))?;
    let model_ref = store
        .put_bundle(
            &Bundle {
                definition: model_text,
                references: Vec::new(),
            },
            Retention::Permanent,
        )
        .await?;
    let version = McpVersion {
        id: McpVersionId::new(),
        server_id: server.id,
        org_id: server.org_id,
        created_at: now,
        digest: digest.clone(),
        format: validated.format,
        format_version: validated.format_version,
        title: validated.title,
        workflows: validated.workflows,
        schemes: validated.schemes,
        bundle: bundle_ref,
        model: model_ref,
    };
    for _ in 0..MAX_COMMIT_ATTEMPTS {
        match store
            .commit_mcp_version(&version, server.current_version_id)
            .await
        {
            Ok(()) => {
                server.current_version_id = Some(version.id);
                server.current_digest = Some(digest);
                server.updated_at = now;
                return Ok(DeployOutcome::Created {
                    server: Box::new(server),
                    version: Box::new(version),
                });
            }
            Err(DomainError::Conflict(ConflictKind::Stale)) => {
                server = store
                    .get_mcp_server(server.org_id, server.id)
                    .await?
                    .ok_or_else(not_found)?;
                if server.current_digest.as_deref() == Some(digest.as_str()) {
                    return Ok(DeployOutcome::Unchanged(Box::new(server)));
                }
            }
            Err(e) => return Err(e),
        }
    }
    Err(DomainError::Conflict(ConflictKind::Stale))
}

/// A server's versions, newest first.
pub async fn versions<S: McpServerStore + ?Sized>(
    store: &S,
    p: &Principal,
    key: &str,
) -> Result<(McpServer, Vec<McpVersion>)> {
    let server = resolve(store, p, key).await?;
    let list = store.list_mcp_versions(server.id).await?;
    Ok((server, list))
}

/// One version with its definition text.
pub async fn version<S: McpServerStore + BlobStore + ?Sized>(
    store: &S,
    p: &Principal,
    key: &str,
    id: &str,
) -> Result<(McpVersion, String)> {
    let server = resolve(store, p, key).await?;
    let missing = || DomainError::NotFound("MCP server version not found".into());
    let id = McpVersionId::parse(id).ok_or_else(missing)?;
    let v = store
        .get_mcp_version(server.id, id)
        .await?
        .ok_or_else(missing)?;
    let bundle = store
        .get_bundle(&v.bundle)
        .await?
        .ok_or_else(|| DomainError::unexpected("a version's definition blob is missing"))?;
    Ok((v, bundle.definition))
}

/// Writes a secret (created or replaced), sealed.
pub async fn put_secret<S: McpServerStore + ?Sized>(
    store: &S,
    sealer: &crate::webhooks::SecretSealer,
    p: &Principal,
    key: &str,
    name: &str,
    value: &str,
    now: OffsetDateTime,
) -> Result<()> {
    check_secret_name(name)?;
    check_secret_value(value)?;
    let server = resolve(store, p, key).await?;
    let existing = store.list_mcp_secrets(server.id).await?;
    if existing.len() >= MAX_SECRETS_PER_SERVER && !existing.iter().any(|s| s.name == name) {
        return Err(DomainError::invalid(
            "name",
            format!("an MCP server has at most {MAX_SECRETS_PER_SERVER} secrets"),
        ));
    }
    let secret = StoredMcpSecret {
        name: name.to_owned(),
        sealed: seal_secret(sealer, server.id, name, value)?,
        updated_at: now,
    };
    store.put_mcp_secret(&server, &secret).await
}

/// One secret as listed: never its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretEntry {
    /// Name.
    pub name: String,
    /// Last write.
    pub updated_at: OffsetDateTime,
    /// Whether the current version's documents name it as a security scheme.
    pub used_by_current_version: bool,
}

/// A server's secrets (names only) and the scheme names its current version needs that have none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretListing {
    /// Secrets, by name.
    pub secrets: Vec<SecretEntry>,
    /// Schemes of the current version without a secret, sorted.
    pub missing: Vec<String>,
}

/// Lists a server's secrets.
pub async fn secrets<S: McpServerStore + ?Sized>(
    store: &S,
    p: &Principal,
    key: &str,
) -> Result<SecretListing> {
    let server = resolve(store, p, key).await?;
    let schemes = match server.current_version_id {
        Some(v) => store
            .get_mcp_version(server.id, v)
            .await?
            .map(|v| v.schemes)
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let mut stored = store.list_mcp_secrets(server.id).await?;
    stored.sort_by(|a, b| a.name.cmp(&b.name));
    let mut missing: Vec<String> = schemes
        .iter()
        .filter(|s| !stored.iter().any(|x| &x.name == *s))
        .cloned()
        .collect();
    missing.sort();
    missing.dedup();
    Ok(SecretListing {
        secrets: stored
            .into_iter()
            .map(|s| SecretEntry {
                used_by_current_version: schemes.contains(&s.name),
                name: s.name,
                updated_at: s.updated_at,
            })
            .collect(),
        missing,
    })
}

/// Deletes a secret; `NotFound` when there is none of that name.
pub async fn delete_secret<S: McpServerStore + ?Sized>(
    store: &S,
    p: &Principal,
    key: &str,
    name: &str,
) -> Result<()> {
    let server = resolve(store, p, key).await?;
    if check_secret_name(name).is_ok() && store.delete_mcp_secret(server.id, name).await? {
        Ok(())
    } else {
        Err(DomainError::NotFound("secret not found".into()))
    }
}

async fn current_version<S: McpServerStore + BlobStore + ?Sized>(
    store: &S,
    server: &McpServer,
) -> Result<Option<CurrentVersion>> {
    let Some(id) = server.current_version_id else {
        return Ok(None);
    };
    let Some(v) = store.get_mcp_version(server.id, id).await? else {
        return Ok(None);
    };
    let model = store
        .get_bundle(&v.model)
        .await?
        .ok_or_else(|| DomainError::unexpected("a version's model blob is missing"))?;
    Ok(Some(CurrentVersion {
        id: v.id,
        created_at: v.created_at,
        digest: v.digest,
        schemes: v.schemes,
        model: model.definition.into_bytes().into(),
    }))
}

/// What the MCP endpoint (`/mcp/{slug}`) may use: the server named by `key` (id or slug), its current version and
/// its opened secrets, only when `credential` is the organization's token or the server's current token. `None` for
/// an unknown server and for a wrong credential alike, after the same reads (the server, the token lookup) and one
/// constant-time comparison either way.
pub async fn open_runtime<S>(
    store: &S,
    sealer: &crate::webhooks::SecretSealer,
    key: &str,
    credential: &str,
) -> Result<Option<RuntimeView>>
where
    S: McpServerStore + BlobStore + TokenStore + ?Sized,
{
    let server = find_public_padded(store, key).await?;
    let opens = credential_opens(store, server.as_ref(), credential).await?;
    let Some(server) = server.filter(|_| opens.opens) else {
        return Ok(None);
    };
    let current = current_version(store, &server).await?;
    let mut secrets = Secrets::default();
    for s in store.list_mcp_secrets(server.id).await? {
        let value = open_secret(sealer, server.id, &s.name, &s.sealed)?;
        secrets.0.insert(s.name, value);
    }
    Ok(Some(RuntimeView {
        server,
        current,
        secrets,
    }))
}

/// The server `key` names (id or slug), any organization's; a miss costs the same storage work as a hit.
async fn find_public_padded<S: McpServerStore + ?Sized>(
    store: &S,
    key: &str,
) -> Result<Option<McpServer>> {
    match find_public(store, key).await? {
        Some(s) => Ok(Some(s)),
        None => {
            // A miss costs one read where a hit costs two (marker or pointer, then the server): read a pointer no
            // server has, so an unknown server answers after the same storage work as a known one.
            store
                .get_mcp_server_public(McpServerId(uuid::Uuid::nil()))
                .await?;
            Ok(None)
        }
    }
}

/// What a credential is to a server.
struct CredentialCheck {
    /// It is the server's current token, or a token of its organization's scope.
    opens: bool,
    /// It is neither a live token nor the server's token.
    failed: bool,
}

/// Whether `credential` opens `server` (`None`: an unknown server, which nothing opens): one token lookup and one
/// constant-time comparison whatever the server, so that the answer takes the same work for every server and none.
async fn credential_opens<S: TokenStore + ?Sized>(
    store: &S,
    server: Option<&McpServer>,
    credential: &str,
) -> Result<CredentialCheck> {
    let presented = TokenHash::of(credential);
    let principal = store.principal_by_token(&presented).await?;
    const NO_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";
    let stored = server.map_or(NO_HASH, |s| s.token_hash.as_str());
    let token_ok: bool = presented
        .as_str()
        .as_bytes()
        .ct_eq(stored.as_bytes())
        .into();
    let org_ok = matches!(
        (&principal, server),
        (Some(Principal { org_id, scope: Scope::Org }), Some(s)) if *org_id == s.org_id
    );
    Ok(CredentialCheck {
        opens: server.is_some() && (token_ok || org_ok),
        failed: principal.is_none() && !token_ok,
    })
}

/// What the page of the server `key` names (id or slug) shows the caller presenting `credential` (a token, or
/// none): a public server to anyone; a private one only when `credential` is its token or its organization's
/// ([`PageAccess::Shown`]). Everything else is [`PageAccess::NotFound`], exactly as for an unknown server, after
/// the same storage work: the server (a miss padded to a hit's reads), then, when a credential was presented and
/// the server is not public, one token lookup; nothing more until the caller may see it.
pub async fn open_page<S>(store: &S, key: &str, credential: Option<&str>) -> Result<PageAccess>
where
    S: McpServerStore + BlobStore + TokenStore + ?Sized,
{
    let server = find_public_padded(store, key).await?;
    let public = server
        .as_ref()
        .is_some_and(|s| s.visibility == Visibility::Public);
    let (opens, credential_failed) = match credential {
        _ if public => (true, false),
        Some(c) => {
            let check = credential_opens(store, server.as_ref(), c).await?;
            (check.opens, check.failed)
        }
        None => (false, false),
    };
    let Some(server) = server.filter(|_| opens) else {
        return Ok(PageAccess::NotFound { credential_failed });
    };
    let current = current_version(store, &server).await?;
    Ok(PageAccess::Shown(Box::new(PublicView { server, current })))
}

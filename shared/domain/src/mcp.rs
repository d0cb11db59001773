//! MCP servers: workflow documents (Arazzo, Flower) published as MCP tools. The entities: a server, its deployed
//! versions, its secrets (sealed at rest, write-only through the API), and what the runtime and the public page
//! read. The domain never reads a workflow document: the validated model is opaque JSON bytes here, produced and read
//! by the functions through the workflow engine. The port is [`crate::ports::McpServerStore`], the use cases are in
//! [`crate::usecases::mcp_servers`].

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use crate::error::{DomainError, Result};
use crate::model::{BlobRef, Bundle, OrgId, Slug, Visibility};
use crate::token::TokenHash;
use crate::webhooks::SecretSealer;

crate::model::id_type!(/// MCP server id.
    McpServerId);
crate::model::id_type!(/// Deployed workflow version id.
    McpVersionId);

/// Longest secret name.
pub const SECRET_NAME_MAX: usize = 128;
/// Largest secret value, in bytes.
pub const SECRET_VALUE_MAX: usize = 8192;
/// Most secrets per server.
pub const MAX_SECRETS_PER_SERVER: usize = 100;
/// Longest description.
pub const DESCRIPTION_MAX: usize = 2000;

/// An MCP server of an organization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServer {
    /// Id.
    pub id: McpServerId,
    /// Owner organization.
    pub org_id: OrgId,
    /// Unique across the installation (the public page and the runtime are addressed by slug).
    pub slug: Slug,
    /// Display name.
    pub name: String,
    /// Free text.
    pub description: Option<String>,
    /// Who may see its page (`GET /mcp/{slug}`): anyone, or only a caller with its token or its organization's. Its
    /// endpoint always takes one of those tokens.
    pub visibility: Visibility,
    /// SHA-256 of the server's current token (the only form stored).
    pub token_hash: TokenHash,
    /// The current (latest) version, if any was deployed.
    pub current_version_id: Option<McpVersionId>,
    /// The current version's [`bundle_digest`] (answers an unchanged deploy with 204).
    pub current_digest: Option<String>,
    /// Creation time.
    pub created_at: OffsetDateTime,
    /// Last change by the API or a deploy.
    pub updated_at: OffsetDateTime,
}

/// One workflow of a version, as lists show it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WorkflowSummary {
    /// The workflow id (the MCP tool's name).
    pub id: String,
    /// Its summary.
    #[serde(default)]
    pub summary: Option<String>,
}

/// What the validating engine tells the domain about a workflow document (the function produces it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidatedWorkflow {
    /// The validated model, serialized (JSON, opaque to the domain).
    pub model: Vec<u8>,
    /// Document title (names an auto-created server).
    pub title: String,
    /// `arazzo` or `flower`.
    pub format: String,
    /// The format version the document declares.
    pub format_version: String,
    /// The workflows, in document order.
    pub workflows: Vec<WorkflowSummary>,
    /// Names of the security schemes a run fills from the server's secrets.
    pub schemes: Vec<String>,
}

/// A deployed version of a server's workflow document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpVersion {
    /// Id.
    pub id: McpVersionId,
    /// Its server.
    pub server_id: McpServerId,
    /// Owner organization.
    pub org_id: OrgId,
    /// Deploy time.
    pub created_at: OffsetDateTime,
    /// [`bundle_digest`] of the definition and references.
    pub digest: String,
    /// `arazzo` or `flower`.
    pub format: String,
    /// Declared format version.
    pub format_version: String,
    /// Document title.
    pub title: String,
    /// Workflows, in document order.
    pub workflows: Vec<WorkflowSummary>,
    /// Security scheme names (the secrets the document needs).
    pub schemes: Vec<String>,
    /// The definition and references as received (a content-addressed blob).
    pub bundle: BlobRef,
    /// The validated model's JSON (a content-addressed blob: its `definition` is the JSON text).
    pub model: BlobRef,
}

/// A secret as stored: sealed, bound to its server and name.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredMcpSecret {
    /// The name (a security scheme name of the documents).
    pub name: String,
    /// `nonce || ciphertext` (see [`seal_secret`]).
    pub sealed: Vec<u8>,
    /// Last write.
    pub updated_at: OffsetDateTime,
}

impl fmt::Debug for StoredMcpSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredMcpSecret")
            .field("name", &self.name)
            .field("updated_at", &self.updated_at)
            .finish_non_exhaustive()
    }
}

/// An opened secret value. `Debug` and `Display` never show it; [`SecretValue::expose`] does.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretValue(String);

impl SecretValue {
    /// Wraps a value.
    pub fn new(value: String) -> Self {
        SecretValue(value)
    }
    /// The value itself: for the request that needs it, never for a log.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SecretValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretValue(***)")
    }
}

/// A server's opened secrets, by name. `Debug` shows the names only.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secrets(pub BTreeMap<String, SecretValue>);

impl Secrets {
    /// The secret named `name`.
    pub fn get(&self, name: &str) -> Option<&SecretValue> {
        self.0.get(name)
    }
    /// The names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

/// A version as the runtime and the public page read it: its identity and its model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrentVersion {
    /// Version id (a cache key: a version never changes).
    pub id: McpVersionId,
    /// Deploy time.
    pub created_at: OffsetDateTime,
    /// [`bundle_digest`] of its document.
    pub digest: String,
    /// Security scheme names the document needs.
    pub schemes: Vec<String>,
    /// The validated model's JSON (the workflow engine's `WorkflowSet`).
    pub model: Arc<[u8]>,
}

/// What the MCP endpoint may use once the caller's credential was accepted: the server, its current version, its
/// opened secrets.
#[derive(Debug, Clone)]
pub struct RuntimeView {
    /// The server.
    pub server: McpServer,
    /// Its current version (`None` before the first deploy).
    pub current: Option<CurrentVersion>,
    /// Its secrets, opened.
    pub secrets: Secrets,
}

/// What the page of a server shows: no secret.
#[derive(Debug, Clone)]
pub struct PublicView {
    /// The server.
    pub server: McpServer,
    /// Its current version (`None` before the first deploy).
    pub current: Option<CurrentVersion>,
}

/// What a caller of a server's page gets.
#[derive(Debug, Clone)]
pub enum PageAccess {
    /// The page.
    Shown(Box<PublicView>),
    /// The answer of an unknown server: there is none, or it is private and the caller's credential opens it not.
    NotFound {
        /// A credential was presented and it is neither a live token nor the server's own: a failed credential
        /// check (the HTTP layer spends the caller's budget of those).
        credential_failed: bool,
    },
}

/// The version identity of a document: SHA-256 over the definition and each reference's name, location and content,
/// each field length-prefixed (so no two different bundles share the encoding), references in the order sent.
pub fn bundle_digest(bundle: &Bundle) -> String {
    fn field(h: &mut Sha256, tag: u8, bytes: &[u8]) {
        h.update([tag]);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    let mut h = Sha256::new();
    h.update(b"specpress-workflow-bundle-1\n");
    field(&mut h, b'd', bundle.definition.as_bytes());
    h.update((bundle.references.len() as u64).to_le_bytes());
    for r in &bundle.references {
        match &r.name {
            Some(n) => field(&mut h, b'n', n.as_bytes()),
            None => h.update([b'-']),
        }
        field(&mut h, b'l', r.location.as_bytes());
        field(&mut h, b'c', r.content.as_bytes());
    }
    hex::encode(h.finalize())
}

/// Checks a secret name: 1 to 128 characters of `[A-Za-z0-9._-]`.
pub fn check_secret_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= SECRET_NAME_MAX
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(DomainError::invalid(
            "name",
            format!(
                "a secret name is 1 to {SECRET_NAME_MAX} characters of A-Z, a-z, 0-9, '.', '_' and '-'"
            ),
        ))
    }
}

/// Checks a secret value: 1 to 8192 bytes.
pub fn check_secret_value(value: &str) -> Result<()> {
    if value.is_empty() || value.len() > SECRET_VALUE_MAX {
        return Err(DomainError::invalid(
            "value",
            format!("a secret value is 1 to {SECRET_VALUE_MAX} bytes"),
        ));
    }
    Ok(())
}

/// The associated data binding a sealed secret to its server and name.
fn secret_aad(server: McpServerId, name: &str) -> Vec<u8> {
    let mut aad = b"specpress-mcp-secret\0".to_vec();
    aad.extend_from_slice(server.0.as_bytes());
    aad.push(0);
    aad.extend_from_slice(name.as_bytes());
    aad
}

/// Seals a secret value of server `server` named `name`.
pub fn seal_secret(
    sealer: &SecretSealer,
    server: McpServerId,
    name: &str,
    value: &str,
) -> Result<Vec<u8>> {
    sealer.seal_bound(&secret_aad(server, name), value.as_bytes())
}

/// Opens a sealed secret of server `server` named `name`; `Err` when it belongs elsewhere, the key differs, or the
/// bytes are corrupted.
pub fn open_secret(
    sealer: &SecretSealer,
    server: McpServerId,
    name: &str,
    sealed: &[u8],
) -> Result<SecretValue> {
    let fail = || {
        DomainError::unexpected(
            "a stored MCP server secret cannot be opened (wrong key or corrupted)",
        )
    };
    let plain = sealer
        .open_bound(&secret_aad(server, name), sealed)
        .ok_or_else(fail)?;
    String::from_utf8(plain)
        .map(SecretValue)
        .map_err(|_| fail())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Reference;

    #[test]
    fn a_sealed_secret_opens_only_for_its_server_and_name() {
        let sealer = SecretSealer::new(&[3u8; 32]);
        let id = McpServerId::new();
        let sealed = seal_secret(&sealer, id, "api_key", "s3cr3t-value").unwrap();
        assert!(!sealed.windows(6).any(|w| w == b"s3cr3t"));
        assert_eq!(
            open_secret(&sealer, id, "api_key", &sealed)
                .unwrap()
                .expose(),
            "s3cr3t-value"
        );
        assert!(open_secret(&sealer, id, "other", &sealed).is_err());
        assert!(open_secret(&sealer, McpServerId::new(), "api_key", &sealed).is_err());
        assert!(open_secret(&SecretSealer::new(&[4u8; 32]), id, "api_key", &sealed).is_err());
        let v = SecretValue::new("s3cr3t-value".into());
        assert!(!format!("{v:?}").contains("s3cr3t"));
        let mut m = BTreeMap::new();
        m.insert("api_key".to_owned(), v);
        let all = Secrets(m);
        assert_eq!(format!("{all:?}"), "{\"api_key\"}");
    }

    #[test]
    fn secret_names_and_values_are_bounded() {
        assert!(check_secret_name("petstore_auth.v2-x").is_ok());
        for bad in ["", "a b", "é", &"x".repeat(129), "a/b"] {
            assert!(check_secret_name(bad).is_err(), "{bad:?}");
        }
        assert!(check_secret_value("").is_err());
        assert!(check_secret_value(&"x".repeat(8193)).is_err());
        assert!(check_secret_value(&"x".repeat(8192)).is_ok());
    }

    #[test]
    fn the_digest_covers_every_field_and_their_boundaries() {
        let r = |name: Option<&str>, location: &str, content: &str| Reference {
            name: name.map(str::to_owned),
            location: location.into(),
            content: content.into(),
        };
        let base = Bundle {
            definition: "d".into(),
            references: vec![r(Some("n"), "l", "c")],
        };
        let d = bundle_digest(&base);
        assert_eq!(d, bundle_digest(&base.clone()));
        for other in [
            Bundle {
                definition: "d2".into(),
                ..base.clone()
            },
            Bundle {
                references: vec![r(None, "l", "c")],
                ..base.clone()
            },
            Bundle {
                references: vec![r(Some("n"), "lc", "")],
                ..base.clone()
            },
            Bundle {
                references: vec![],
                ..base.clone()
            },
        ] {
            assert_ne!(d, bundle_digest(&other));
        }
    }
}

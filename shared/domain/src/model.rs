//! Entities and newtypes.

use serde::{Deserialize, Serialize};
use std::fmt;
use time::OffsetDateTime;

use crate::error::DomainError;

/// Declares a UUID newtype: `new` (random v4), `parse` (`None` for anything but a UUID), `Default`, `Display`
/// (hyphenated), transparent serde. The one macro for every id of the domain (entities here, webhook and diff ids).
macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub ::uuid::Uuid);

        impl $name {
            /// A fresh random id.
            pub fn new() -> Self {
                Self(::uuid::Uuid::new_v4())
            }
            /// Parses a UUID; `None` for anything else (the caller then treats the input as a slug).
            pub fn parse(s: &str) -> Option<Self> {
                ::uuid::Uuid::try_parse(s).ok().map(Self)
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                self.0.hyphenated().fmt(f)
            }
        }
    };
}
pub(crate) use id_type;

id_type!(/// Organization id.
    OrgId);
id_type!(/// Hub id.
    HubId);
id_type!(/// Documentation id.
    DocId);
id_type!(/// Version id.
    VersionId);
id_type!(/// Preview id.
    PreviewId);
id_type!(/// Outbox event id.
    EventId);
id_type!(/// One incarnation of a branch: minted when the branch item is created (by its first deploy or by
    /// `POST .../branches`) and kept for the branch's life. It is part of the key of the branch's history, so a branch
    /// deleted and created again with the same slug starts an empty history, whatever the timing of the deploys
    /// racing the recreation.
    BranchGeneration);
id_type!(/// Public diff id.
    DiffId);

/// What a reader token, a custom hostname or reader settings belong to: one documentation or one hub.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "lowercase")]
pub enum DocOrHub {
    /// A documentation.
    Doc(DocId),
    /// A hub (and, for reading, every documentation in it).
    Hub(HubId),
}

impl DocOrHub {
    /// `doc` or `hub`.
    pub fn kind(self) -> &'static str {
        match self {
            DocOrHub::Doc(_) => "doc",
            DocOrHub::Hub(_) => "hub",
        }
    }

    /// The id's text.
    pub fn id_string(self) -> String {
        match self {
            DocOrHub::Doc(d) => d.to_string(),
            DocOrHub::Hub(h) => h.to_string(),
        }
    }

    /// Rebuilds a stored value from its kind and id (`None` for anything else).
    pub fn from_parts(kind: &str, id: &str) -> Option<Self> {
        match kind {
            "doc" => DocId::parse(id).map(DocOrHub::Doc),
            "hub" => HubId::parse(id).map(DocOrHub::Hub),
            _ => None,
        }
    }
}

/// A URL-safe identifier: `[a-z0-9]` runs joined by single `-`, 1 to 64 characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Slug(String);

/// Maximum slug length.
pub const SLUG_MAX: usize = 64;

impl Slug {
    /// Accepts only an already-normalized slug.
    pub fn parse(s: &str) -> Result<Self, DomainError> {
        let ok = !s.is_empty()
            && s.len() <= SLUG_MAX
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !s.starts_with('-')
            && !s.ends_with('-')
            && !s.contains("--");
        if ok {
            Ok(Slug(s.to_owned()))
        } else {
            Err(DomainError::invalid(
                "slug",
                format!(
                    "'{}' is not a valid slug: use 1 to {SLUG_MAX} lowercase letters, digits and single dashes",
                    truncate(s, 80)
                ),
            ))
        }
    }

    /// Derives a slug from a free-form name ([`specpress_slug::slug`]: lowercase ASCII letters and digits, other
    /// runs become `-`), cut to [`SLUG_MAX`] characters. `None` when nothing usable remains.
    pub fn from_name(name: &str) -> Option<Self> {
        let out = specpress_slug::slug_at_most(name, SLUG_MAX);
        if out.is_empty() {
            None
        } else {
            Some(Slug(out))
        }
    }

    /// The slug text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A branch: the name as given (1 to 100 printable characters) and its slug (the storage key).
/// `feature/Login` has slug `feature-login`; two names with the same slug are the same branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BranchName {
    name: String,
    slug: Slug,
}

/// Maximum branch name length in characters.
pub const BRANCH_NAME_MAX: usize = 100;

impl BranchName {
    /// Validates a branch name.
    pub fn parse(name: &str) -> Result<Self, DomainError> {
        let name = name.trim();
        let bad = || {
            DomainError::invalid(
                "branch_name",
                format!(
                    "'{}' is not a valid branch name: use 1 to {BRANCH_NAME_MAX} printable characters including at least one letter or digit",
                    truncate(name, 80)
                ),
            )
        };
        if name.is_empty()
            || name.chars().count() > BRANCH_NAME_MAX
            || name.chars().any(char::is_control)
        {
            return Err(bad());
        }
        let slug = Slug::from_name(name).ok_or_else(bad)?;
        Ok(BranchName {
            name: name.to_owned(),
            slug,
        })
    }

    /// Rebuilds a stored branch name without re-validating.
    pub fn from_stored(name: String, slug: Slug) -> Self {
        BranchName { name, slug }
    }

    /// The name as given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The storage key.
    pub fn slug(&self) -> &Slug {
        &self.slug
    }
}

/// The default branch of a new documentation.
pub const DEFAULT_BRANCH: &str = "main";

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// An organization: the tenant that owns hubs and documentations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Organization {
    /// Id.
    pub id: OrgId,
    /// Display name.
    pub name: String,
    /// Creation time.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// Who may read a documentation's or a hub's public pages.
///
/// A `private` documentation, or any documentation of a `private` hub, answers an anonymous reader exactly as an
/// unknown slug does (404), on every public URL; a reader with a token that reaches it (the organization's, its
/// hub's, or its own) sees it. The API and webhook payloads are the same either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Anyone with the URL (the default).
    #[default]
    Public,
    /// Only readers holding a token that reaches it.
    Private,
}

impl Visibility {
    /// Parses `public` or `private` (exactly); a 422 naming `field` otherwise.
    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        match s {
            "public" => Ok(Visibility::Public),
            "private" => Ok(Visibility::Private),
            _ => Err(DomainError::invalid(
                field,
                format!(
                    "{field} must be \"public\" or \"private\", not '{}'",
                    truncate(s, 40)
                ),
            )),
        }
    }

    /// The wire form: `public` or `private`.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Private => "private",
        }
    }

    /// Whether this is [`Visibility::Private`].
    pub fn is_private(self) -> bool {
        self == Visibility::Private
    }
}

/// Whether readers of a documentation's operation pages may send requests from them ("Try it", docs/try-it.md).
///
/// The default is [`TryIt::Off`]: sending requests is something an owner turns on knowingly, since
/// [`TryIt::Proxy`] makes this service send requests to the document's servers on readers' behalf, and
/// [`TryIt::Direct`] widens the pages' Content-Security-Policy to those servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TryIt {
    /// No form; nothing is sent (the default).
    #[default]
    Off,
    /// The reader's browser sends the request itself (the API's CORS decides what it may read).
    Direct,
    /// The request goes through this service's proxy (`POST /doc/{doc}/try`), to the document's servers only.
    Proxy,
}

impl TryIt {
    /// Parses `off`, `direct` or `proxy` (exactly); a 422 naming `field` otherwise.
    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        match s {
            "off" => Ok(TryIt::Off),
            "direct" => Ok(TryIt::Direct),
            "proxy" => Ok(TryIt::Proxy),
            _ => Err(DomainError::invalid(
                field,
                format!(
                    "{field} must be \"off\", \"direct\" or \"proxy\", not '{}'",
                    truncate(s, 40)
                ),
            )),
        }
    }

    /// The wire form: `off`, `direct` or `proxy`.
    pub fn as_str(self) -> &'static str {
        match self {
            TryIt::Off => "off",
            TryIt::Direct => "direct",
            TryIt::Proxy => "proxy",
        }
    }
}

/// A hub groups documentations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hub {
    /// Id.
    pub id: HubId,
    /// Owner.
    pub org_id: OrgId,
    /// Unique within the organization.
    pub slug: Slug,
    /// Display name.
    pub name: String,
    /// Optional description.
    pub description: Option<String>,
    /// Creation time.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// Last modification time.
    #[serde(with = "time::serde::rfc3339")]
    pub modified_at: OffsetDateTime,
    /// Who may read its public page; a private hub also makes every documentation in it private.
    #[serde(default)]
    pub visibility: Visibility,
}

/// A documentation: one API, with branches of versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Documentation {
    /// Id.
    pub id: DocId,
    /// Owner.
    pub org_id: OrgId,
    /// The hub it belongs to, if any.
    pub hub_id: Option<HubId>,
    /// Unique within the organization.
    pub slug: Slug,
    /// Display name.
    pub name: String,
    /// Slug of the default branch.
    pub default_branch: Slug,
    /// Creation time.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// Last modification time.
    #[serde(with = "time::serde::rfc3339")]
    pub modified_at: OffsetDateTime,
    /// No webhook subscription was ever created for it: its published versions' events have nobody to go to, so
    /// they are recorded but not queued for fan-out. Set when the documentation is created and cleared for good by
    /// its first subscription. Documentations created before this flag existed lack it (`false`), so their events
    /// are queued as before. Storage detail: never part of a response.
    #[serde(skip)]
    pub never_subscribed: bool,
    /// Who may read its public pages (its hub's visibility applies as well: see [`Visibility`]).
    #[serde(default)]
    pub visibility: Visibility,
    /// Whether its operation pages let readers send requests, and how ([`TryIt`]; `off` unless the owner sets it).
    #[serde(default)]
    pub try_it: TryIt,
}

/// A branch of a documentation and its head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Branch {
    /// Documentation.
    pub doc_id: DocId,
    /// Name and slug.
    pub name: BranchName,
    /// Optimistic-concurrency counter: number of published versions on this branch (positions `1..=seq` of its
    /// history).
    pub seq: u64,
    /// Its incarnation. `None` for a branch created before generations existed (its history is then read from the
    /// legacy index partition, see docs/storage.md).
    pub generation: Option<BranchGeneration>,
    /// The current head, if any version was published.
    pub head: Option<BranchHead>,
    /// Creation time.
    pub created_at: OffsetDateTime,
}

/// The published version a branch points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchHead {
    /// Head version.
    pub version_id: VersionId,
    /// Its definition fingerprint (used to answer 204 "unchanged").
    pub fingerprint: String,
}

/// Where a stored definition bundle lives: content-addressed by the SHA-256 of its serialized bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlobRef {
    /// Hex SHA-256 of the uncompressed serialized bundle.
    pub sha256: String,
    /// Uncompressed size in bytes.
    pub size: u64,
}

/// One external file of a multi-file definition (the API's `references` entries).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    /// Where the root definition refers to it (`$ref` target).
    pub location: String,
    /// The file's text, verbatim.
    pub content: String,
    /// Optional name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A definition and its references, exactly as received.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bundle {
    /// The root definition text, byte for byte.
    pub definition: String,
    /// External files.
    #[serde(default)]
    pub references: Vec<Reference>,
}

/// How long a stored blob must live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retention {
    /// Referenced by a published version: never expires.
    Permanent,
    /// Referenced only by temporary objects: may be removed after this instant.
    Until(OffsetDateTime),
}

/// What the spec engine learned about a definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Analysis {
    /// `openapi/v3/json`...
    pub specification: String,
    /// `info.title`.
    pub title: String,
    /// `info.version`.
    pub api_version: String,
    /// `info.description` (Markdown), cut to [`Analysis::DESCRIPTION_MAX`] characters; absent on versions stored
    /// before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Canonical fingerprint (equal across formatting changes).
    pub fingerprint: String,
}

impl Analysis {
    /// The longest `description` kept with a version (hub listings and webhook payloads show it; the page shows the
    /// document's own).
    pub const DESCRIPTION_MAX: usize = 2000;

    /// `info.description` as recorded: trimmed, `None` when blank, cut to [`Analysis::DESCRIPTION_MAX`] characters.
    pub fn description_of(text: Option<&str>) -> Option<String> {
        let t = text?.trim();
        (!t.is_empty()).then(|| t.chars().take(Self::DESCRIPTION_MAX).collect())
    }
}

/// A deployed version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// Id.
    pub id: VersionId,
    /// Owner organization.
    pub org_id: OrgId,
    /// Documentation.
    pub doc_id: DocId,
    /// Branch slug.
    pub branch: Slug,
    /// Position on the branch (1-based) for published versions; `None` for temporary ones.
    pub seq: Option<u64>,
    /// The version this one is compared against.
    pub previous_version_id: Option<VersionId>,
    /// Stored definition.
    pub blob: BlobRef,
    /// What the engine found.
    pub analysis: Analysis,
    /// Temporary versions expire and never become a head.
    pub temporary: bool,
    /// Expiry of a temporary version.
    pub expires_at: Option<OffsetDateTime>,
    /// Creation time.
    pub created_at: OffsetDateTime,
}

impl Version {
    /// True once a temporary version is past its expiry (TTL deletion is lazy, so reads must check).
    pub fn is_expired(&self, now: OffsetDateTime) -> bool {
        self.expires_at.is_some_and(|e| e <= now)
    }
}

/// A preview of a definition, live for 30 minutes after its last update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview {
    /// Id.
    pub id: PreviewId,
    /// Stored definition.
    pub blob: BlobRef,
    /// What the engine found.
    pub analysis: Analysis,
    /// Expiry.
    pub expires_at: OffsetDateTime,
    /// Creation time.
    pub created_at: OffsetDateTime,
    /// Last update.
    pub updated_at: OffsetDateTime,
}

/// Kinds of durable events (the outbox).
pub const EVENT_DOCUMENTATION_PUBLISHED: &str = "documentation.published";

/// A durable event, written in the same transaction as the change it announces, consumed by the webhook issue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Id (also the SQS message id / `webhook-id` seed).
    pub id: EventId,
    /// `documentation.published`.
    pub kind: String,
    /// Organization.
    pub org_id: OrgId,
    /// Documentation.
    pub doc_id: DocId,
    /// Branch slug.
    pub branch: Slug,
    /// The published version.
    pub version_id: VersionId,
    /// The version it replaced as head.
    pub previous_version_id: Option<VersionId>,
    /// Creation time.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

// Public diffs (`POST /diffs`): what the diff store keeps.

/// A stored public diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffRecord {
    /// Id.
    pub id: DiffId,
    /// `info.title` of the current definition.
    pub title: String,
    /// Any breaking change.
    pub breaking: bool,
    /// The previous bundle.
    pub previous: BlobRef,
    /// The current bundle.
    pub current: BlobRef,
    /// The rendered results ([`Rendered`] as JSON in a bundle's `definition`).
    pub result: BlobRef,
    /// Expiry; `None` for `"never"`.
    pub expires_at: Option<OffsetDateTime>,
    /// Creation time.
    pub created_at: OffsetDateTime,
    /// Where its parts live.
    pub storage: DiffStorage,
}

impl DiffRecord {
    /// True once past its expiry (TTL deletion is lazy, so reads must check).
    pub fn is_expired(&self, now: OffsetDateTime) -> bool {
        self.expires_at.is_some_and(|e| e <= now)
    }
}

/// Where a diff's three parts live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffStorage {
    /// Content-addressed blobs, possibly shared with other diffs or deployed versions: diffs created with a token,
    /// and every diff stored before anonymous diffs owned their bytes.
    Shared,
    /// The diff's own (anonymous diffs): stored under the diff, with its expiry, and deleted with it; `bytes` is
    /// what its slot counts in the anonymous quota.
    Owned {
        /// Bytes counted for the diff (its parts, record and slot).
        bytes: u64,
    },
}

/// One of the three stored parts of a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DiffPart {
    /// The previous bundle.
    Previous,
    /// The current bundle.
    Current,
    /// The renderings.
    Result,
}

impl DiffPart {
    /// The part's name in storage keys.
    pub fn name(self) -> &'static str {
        match self {
            DiffPart::Previous => "previous",
            DiffPart::Current => "current",
            DiffPart::Result => "result",
        }
    }
}

/// An anonymous diff's place in the quota. It is written, and its bytes counted, before any of those bytes; it is
/// removed, and its bytes subtracted, after all of them are deleted: what the count says is always at least what
/// anonymous diffs keep, and never more than the quota.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnonymousSlot {
    /// The diff.
    pub id: DiffId,
    /// When the diff was created: eviction goes oldest first.
    pub created_at: OffsetDateTime,
    /// When it expires: expired diffs are removed before any live one is evicted.
    pub expires_at: OffsetDateTime,
    /// Bytes counted for it.
    pub bytes: u64,
    /// While the diff is being created, until when it may not be evicted; `None` once its record is written.
    pub lease_until: Option<OffsetDateTime>,
}

impl AnonymousSlot {
    /// Whether the slot may be removed now: its diff is complete, or its creator has outlived its lease.
    pub fn evictable(&self, now: OffsetDateTime) -> bool {
        self.lease_until.is_none_or(|l| l <= now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn try_it_reads_its_three_words_exactly_and_is_off_by_default() {
        assert_eq!(TryIt::default(), TryIt::Off);
        for t in [TryIt::Off, TryIt::Direct, TryIt::Proxy] {
            assert_eq!(TryIt::parse("try_it", t.as_str()).ok(), Some(t));
        }
        for bad in ["", "Proxy", "on", " off", "true"] {
            assert!(TryIt::parse("try_it", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn slug_parse_accepts_normalized_and_rejects_others() {
        assert!(Slug::parse("my-api-2").is_ok());
        for bad in ["", "My-Api", "-a", "a-", "a--b", "a b", &"a".repeat(65)] {
            assert!(Slug::parse(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn slug_from_name_normalizes_free_text() {
        assert_eq!(
            Slug::from_name("  My Great API!! v2 ").unwrap().as_str(),
            "my-great-api-v2"
        );
        assert!(Slug::from_name("!!!").is_none());
    }

    #[test]
    fn slugs_from_long_names_are_cut_to_a_valid_slug() {
        let long = Slug::from_name(&"a".repeat(70)).unwrap();
        assert_eq!(long.as_str(), "a".repeat(SLUG_MAX));
        // A cut right after a separator drops the dash: the slug stays one `Slug::parse` accepts.
        let cut = Slug::from_name(&format!("{} b", "a".repeat(SLUG_MAX - 1))).unwrap();
        assert_eq!(cut.as_str(), "a".repeat(SLUG_MAX - 1));
        assert!(Slug::parse(cut.as_str()).is_ok());
    }

    #[test]
    fn branch_names_map_to_slugs() {
        let b = BranchName::parse("feature/Login").unwrap();
        assert_eq!(b.name(), "feature/Login");
        assert_eq!(b.slug().as_str(), "feature-login");
        assert!(BranchName::parse("   ").is_err());
        assert!(BranchName::parse("a\nb").is_err());
        assert!(BranchName::parse(&"x".repeat(101)).is_err());
    }
}

//! Ports: the traits the use cases need from the world, one file per capability. Adapters implement them
//! (`specpress-store-dynamodb`, `specpress-queue-sqs`, `specpress-embedded`, `specpress-engines`, ...); the domain
//! never names an adapter. Every port is re-exported here, so callers write `ports::TokenStore`.
//!
//! | File | Ports |
//! |---|---|
//! | `tokens.rs` | [`TokenStore`] |
//! | `orgs.rs` | [`OrgStore`] |
//! | `hubs.rs` | [`HubStore`] |
//! | `docs.rs` | [`DocStore`] |
//! | `branches.rs` | [`BranchStore`], [`BranchAdminStore`] |
//! | `versions.rs` | [`VersionStore`] and the deploy's [`Commit`] |
//! | `blobs.rs` | [`BlobStore`] |
//! | `previews.rs` | [`PreviewStore`] |
//! | `sessions.rs` | [`SessionStore`] (reader sessions of the public site) |
//! | `events.rs` | [`EventStore`] (the outbox) |
//! | `diffs.rs` | [`DiffStore`] |
//! | `digests.rs` | [`DigestStore`] (what each release changed, for histories) |
//! | `subscriptions.rs`, `deliveries.rs` | [`SubscriptionStore`], [`DeliveryStore`] |
//! | `queue.rs` | [`MessageQueue`] (the webhook work queue) |
//! | `publisher.rs` | [`EventPublisher`] (committed events to the queue) |
//! | `sender.rs` | [`WebhookSender`] (outbound webhook POSTs) |
//! | `engine.rs`, `diff_engine.rs` | [`SpecEngine`], [`DiffEngine`] |
//! | `fetcher.rs` | [`DocumentFetcher`] (definitions by URL) |
//! | `mcp_servers.rs` | [`McpServerStore`] (MCP servers, their versions and sealed secrets) |
//! | `readers.rs` | [`ReaderStore`] (reader tokens, credentials by hash, reader settings) |
//! | `sso.rs` | [`SsoStore`] (the organization's OpenID provider settings, sign-in grants) |
//! | `hostnames.rs` | [`HostnameStore`] (custom hostnames) |
//! | `identity.rs` | [`IdentityProvider`] (an OpenID provider's code flow) |
//! | `dns.rs` | [`TxtResolver`] (TXT lookups for hostname verification) |
//! | `mail.rs` | [`Mailer`] (outbound mail: confirmations, release mails, digests) |
//! | `accepted.rs` | [`AcceptedChangeStore`] (a documentation's accepted changes) |
//! | `followers.rs` | [`FollowerStore`] (readers following by email, issue 38) |
//!
//! The storage ports make up [`Store`], the supertrait `AppState` carries as `Arc<dyn Store>`; callers take the
//! narrowest trait they need. Conventions every storage implementation follows (the DynamoDB adapter is the
//! reference, see docs/storage.md):
//! - reads of single items are strongly consistent;
//! - uniqueness (slugs, branch names, ids) is enforced by conditional writes and reported as
//!   [`DomainError::Conflict`](crate::DomainError::Conflict);
//! - expired temporary objects are reported as absent even if TTL has not deleted them yet.

mod accepted;
mod blobs;
mod branches;
mod deliveries;
mod diff_engine;
mod diffs;
mod digests;
mod dns;
mod docs;
mod engine;
mod events;
mod fetcher;
mod followers;
mod hostnames;
mod hubs;
mod identity;
mod mail;
mod mcp_servers;
mod orgs;
mod previews;
mod publisher;
mod queue;
mod readers;
mod sender;
mod sessions;
mod sso;
mod subscriptions;
mod tokens;
mod versions;

pub use accepted::AcceptedChangeStore;
pub use blobs::{BlobStore, EncodedBundle};
pub use branches::{BranchAdminStore, BranchStore, BranchWriteError};
pub use deliveries::DeliveryStore;
pub use diff_engine::{Comparison, DiffEngine, Rendered};
pub use diffs::DiffStore;
pub use digests::DigestStore;
pub use dns::{LookupFailed, TxtResolver};
pub use docs::DocStore;
pub use engine::{DiffSummary, OperationFacts, SpecEngine};
pub use events::EventStore;
pub use fetcher::DocumentFetcher;
pub use followers::FollowerStore;
pub use hostnames::HostnameStore;
pub use hubs::HubStore;
pub use identity::IdentityProvider;
pub use mail::{Confirmation, FollowLinks, Mail, MailContent, Mailer, ReleaseNote};
pub use mcp_servers::McpServerStore;
pub use orgs::OrgStore;
pub use previews::PreviewStore;
pub use publisher::{EventPublisher, EventRoute, NoPublisher};
pub use queue::{MessageQueue, ReceivedMessage};
pub use readers::ReaderStore;
pub use sender::{PostOutcome, WebhookSender};
pub use sessions::SessionStore;
pub use sso::SsoStore;
pub use subscriptions::SubscriptionStore;
pub use tokens::TokenStore;
pub use versions::{BranchExpectation, Commit, VersionStore};

/// Declares [`Store`] over the list of storage ports, and implements it for every type implementing them all: the
/// list is written once.
macro_rules! store_of {
    ($first:ident $(, $port:ident)* $(,)?) => {
        /// Every storage port: what `AppState` holds (`Arc<dyn Store>`). Implemented for any type that implements
        /// all of them.
        pub trait Store: $first $(+ $port)* {}

        impl<T: $first $(+ $port)* + ?Sized> Store for T {}
    };
}

store_of!(
    TokenStore,
    OrgStore,
    HubStore,
    DocStore,
    BranchStore,
    BranchAdminStore,
    VersionStore,
    BlobStore,
    PreviewStore,
    EventStore,
    DiffStore,
    SubscriptionStore,
    DeliveryStore,
    SessionStore,
    DigestStore,
    McpServerStore,
    ReaderStore,
    SsoStore,
    HostnameStore,
    AcceptedChangeStore,
    FollowerStore,
);

//! Readers without deploy rights (issue 40): reader tokens, the owner's reader settings of a documentation or hub
//! (`sso_readers`, `embed_origins`), and what a credential presented on a reader surface turns out to be.
//!
//! A reader token (`sp_read_...`) names exactly one documentation or one hub and opens it everywhere a reader reads
//! (pages, `.md`, feeds, sign-in sessions, MCP). It is never a [`Principal`]: the API's authentication does not know
//! it (the storage port answers it as no token), so every `/api/v1` write and management read answers it as it
//! answers no token. Only its SHA-256 is stored, like every token's; it dies when revoked or at its expiry, and the
//! sessions started with it die with it (a session names its credential by hash and looks it up on every request).

use time::OffsetDateTime;

use crate::embed::EmbedOrigins;
use crate::model::{DocOrHub, Documentation, Hub, OrgId};
use crate::sso::SsoGrant;
use crate::token::Principal;

crate::model::id_type!(/// Reader token id (what `GET .../reader_tokens` lists and `DELETE .../reader_tokens/{id}` names).
    ReaderTokenId);

/// Most live reader tokens one documentation or hub may have (a listing stays one small query).
pub const MAX_READER_TOKENS: usize = 100;

/// A reader token as stored and listed: never its secret (only the hash is kept, beside, by the store).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReaderToken {
    /// Id.
    pub id: ReaderTokenId,
    /// The organization of what it opens.
    pub org_id: OrgId,
    /// What it opens.
    pub scope: DocOrHub,
    /// The owner's label ("Partner X"), checked like every display name.
    pub name: String,
    /// Creation time.
    pub created_at: OffsetDateTime,
    /// When it stops opening anything (never when `None`).
    pub expires_at: Option<OffsetDateTime>,
    /// Last time it opened something, to the hour ([`LAST_USED_GRANULARITY`]).
    pub last_used_at: Option<OffsetDateTime>,
}

/// How precisely `last_used_at` is kept: a token used again within this time is not written again, so reading
/// with a reader token costs a write at most once an hour.
pub const LAST_USED_GRANULARITY: time::Duration = time::Duration::hours(1);

impl ReaderToken {
    /// Whether it is still live at `now` (not expired; a revoked token is not found at all).
    pub fn is_live(&self, now: OffsetDateTime) -> bool {
        self.expires_at.is_none_or(|e| e > now)
    }

    /// Whether its `last_used_at` is old enough to be written again at `now`.
    pub fn needs_touch(&self, now: OffsetDateTime) -> bool {
        self.last_used_at
            .is_none_or(|t| now - t >= LAST_USED_GRANULARITY)
    }

    /// Whether it opens `doc`: the documentation it names, or any documentation of the hub it names, in its own
    /// organization.
    pub fn may_read_doc(&self, doc: &Documentation) -> bool {
        self.org_id == doc.org_id
            && match self.scope {
                DocOrHub::Doc(d) => doc.id == d,
                DocOrHub::Hub(h) => doc.hub_id == Some(h),
            }
    }

    /// Whether it opens the hub's own pages: only a token naming that hub.
    pub fn may_read_hub(&self, hub: &Hub) -> bool {
        self.org_id == hub.org_id && self.scope == DocOrHub::Hub(hub.id)
    }
}

/// The owner's settings about readers of one documentation or hub, kept on its item.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReaderSettings {
    /// Readers signed in through the organization's identity provider may read it while it is private.
    pub sso_readers: bool,
    /// The origins that may frame its pages in embed mode (`frame-ancestors`).
    pub embed_origins: EmbedOrigins,
}

/// What a credential presented on a reader surface (`Authorization: Token ...`, or a session cookie naming one)
/// turned out to be, once found live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// An organization, hub or documentation token: reads what it reaches (and is also an API token).
    Member(Principal),
    /// A reader token: reads what it names, nothing else.
    ReaderToken(ReaderToken),
    /// A reader signed in through the organization's identity provider, still admitted by its current settings.
    Sso(SsoGrant),
}

/// Whether a documentation is private, on its own or through its hub (as `usecases::public` decides).
fn private_layers<'a>(
    doc: &Documentation,
    doc_settings: &'a ReaderSettings,
    hub: Option<(&Hub, &'a ReaderSettings)>,
) -> impl Iterator<Item = &'a ReaderSettings> {
    let own = doc.visibility.is_private().then_some(doc_settings);
    let through_hub = hub.and_then(|(h, s)| h.visibility.is_private().then_some(s));
    own.into_iter().chain(through_hub)
}

/// Whether a reader signed in through the provider of the organization may read `doc` (whose hub, if any, is
/// `hub`), each with its reader settings: a public documentation, or one of its own organization where every
/// setting that makes it private lets provider readers in (`sso_readers` on the documentation when it is private on
/// its own, and on its hub when the hub is private). A layer that did not open itself to them keeps them out, so
/// an owner can keep one documentation of an open hub closed.
pub fn sso_may_read_doc(
    grant: &SsoGrant,
    doc: &Documentation,
    doc_settings: &ReaderSettings,
    hub: Option<(&Hub, &ReaderSettings)>,
) -> bool {
    let mut layers = private_layers(doc, doc_settings, hub).peekable();
    if layers.peek().is_none() {
        return true;
    }
    grant.org_id == doc.org_id && layers.all(|s| s.sso_readers)
}

/// Whether a reader signed in through the provider of the organization may read the hub's own pages.
pub fn sso_may_read_hub(grant: &SsoGrant, hub: &Hub, settings: &ReaderSettings) -> bool {
    !hub.visibility.is_private() || (grant.org_id == hub.org_id && settings.sso_readers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DocId, HubId, Slug, Visibility};
    use crate::sso::SsoConfigId;
    use time::Duration;

    fn doc(org: OrgId, hub: Option<HubId>, visibility: Visibility) -> Documentation {
        Documentation {
            id: DocId::new(),
            org_id: org,
            hub_id: hub,
            slug: Slug::parse("d").unwrap(),
            name: "d".into(),
            default_branch: Slug::parse("main").unwrap(),
            created_at: OffsetDateTime::UNIX_EPOCH,
            modified_at: OffsetDateTime::UNIX_EPOCH,
            never_subscribed: true,
            visibility,
            try_it: Default::default(),
        }
    }

    fn hub(org: OrgId, visibility: Visibility) -> Hub {
        Hub {
            id: HubId::new(),
            org_id: org,
            slug: Slug::parse("h").unwrap(),
            name: "h".into(),
            description: None,
            created_at: OffsetDateTime::UNIX_EPOCH,
            modified_at: OffsetDateTime::UNIX_EPOCH,
            visibility,
        }
    }

    fn token(org: OrgId, scope: DocOrHub) -> ReaderToken {
        ReaderToken {
            id: ReaderTokenId::new(),
            org_id: org,
            scope,
            name: "partner".into(),
            created_at: OffsetDateTime::UNIX_EPOCH,
            expires_at: None,
            last_used_at: None,
        }
    }

    fn grant(org: OrgId) -> SsoGrant {
        SsoGrant {
            org_id: org,
            config_id: SsoConfigId::new(),
            email_domain: Some("example.com".into()),
            groups: vec![],
            created_at: OffsetDateTime::UNIX_EPOCH,
            expires_at: OffsetDateTime::UNIX_EPOCH + Duration::hours(12),
        }
    }

    #[test]
    fn a_documentation_reader_token_opens_that_documentation_only() {
        let org = OrgId::new();
        let h = hub(org, Visibility::Private);
        let named = doc(org, Some(h.id), Visibility::Private);
        let sibling = doc(org, Some(h.id), Visibility::Private);
        let t = token(org, DocOrHub::Doc(named.id));
        assert!(t.may_read_doc(&named));
        assert!(!t.may_read_doc(&sibling), "never a sibling");
        assert!(!t.may_read_hub(&h), "never the hub's own pages");
        let mut foreign = named.clone();
        foreign.org_id = OrgId::new();
        assert!(!t.may_read_doc(&foreign), "never another organization");
    }

    #[test]
    fn a_hub_reader_token_opens_the_hub_and_its_documentations_only() {
        let org = OrgId::new();
        let h = hub(org, Visibility::Private);
        let other_hub = hub(org, Visibility::Private);
        let inside = doc(org, Some(h.id), Visibility::Private);
        let outside = doc(org, Some(other_hub.id), Visibility::Private);
        let standalone = doc(org, None, Visibility::Private);
        let t = token(org, DocOrHub::Hub(h.id));
        assert!(t.may_read_hub(&h) && t.may_read_doc(&inside));
        assert!(!t.may_read_hub(&other_hub));
        assert!(!t.may_read_doc(&outside) && !t.may_read_doc(&standalone));
    }

    #[test]
    fn a_reader_token_lives_until_its_expiry_and_is_touched_at_most_hourly() {
        let now = OffsetDateTime::UNIX_EPOCH + Duration::days(100);
        let mut t = token(OrgId::new(), DocOrHub::Doc(DocId::new()));
        assert!(t.is_live(now), "no expiry: live");
        t.expires_at = Some(now + Duration::seconds(1));
        assert!(t.is_live(now));
        t.expires_at = Some(now);
        assert!(!t.is_live(now), "dead at its expiry instant");
        assert!(t.needs_touch(now), "never used: touch");
        t.last_used_at = Some(now - Duration::minutes(59));
        assert!(!t.needs_touch(now));
        t.last_used_at = Some(now - Duration::hours(1));
        assert!(t.needs_touch(now));
    }

    #[test]
    fn provider_readers_pass_only_the_private_layers_that_let_them_in() {
        let org = OrgId::new();
        let g = grant(org);
        let open = ReaderSettings {
            sso_readers: true,
            ..Default::default()
        };
        let closed = ReaderSettings::default();
        let public_doc = doc(org, None, Visibility::Public);
        assert!(sso_may_read_doc(&g, &public_doc, &closed, None));
        let private_doc = doc(org, None, Visibility::Private);
        assert!(sso_may_read_doc(&g, &private_doc, &open, None));
        assert!(!sso_may_read_doc(&g, &private_doc, &closed, None));
        // Private through its hub: the hub's setting decides.
        let private_hub = hub(org, Visibility::Private);
        let in_hub = doc(org, Some(private_hub.id), Visibility::Public);
        assert!(sso_may_read_doc(
            &g,
            &in_hub,
            &closed,
            Some((&private_hub, &open))
        ));
        assert!(!sso_may_read_doc(
            &g,
            &in_hub,
            &open,
            Some((&private_hub, &closed))
        ));
        // Private on its own inside an open hub: both layers must let them in.
        let closed_in_open_hub = doc(org, Some(private_hub.id), Visibility::Private);
        assert!(!sso_may_read_doc(
            &g,
            &closed_in_open_hub,
            &closed,
            Some((&private_hub, &open))
        ));
        assert!(sso_may_read_doc(
            &g,
            &closed_in_open_hub,
            &open,
            Some((&private_hub, &open))
        ));
        // Another organization's provider never opens anything private.
        let stranger = grant(OrgId::new());
        assert!(!sso_may_read_doc(&stranger, &private_doc, &open, None));
        assert!(sso_may_read_hub(&g, &private_hub, &open));
        assert!(!sso_may_read_hub(&g, &private_hub, &closed));
        assert!(!sso_may_read_hub(&stranger, &private_hub, &open));
        assert!(sso_may_read_hub(
            &stranger,
            &hub(org, Visibility::Public),
            &closed
        ));
    }

    #[test]
    fn doc_or_hub_round_trips_through_its_stored_parts() {
        let d = DocOrHub::Doc(DocId::new());
        let h = DocOrHub::Hub(HubId::new());
        for x in [d, h] {
            assert_eq!(DocOrHub::from_parts(x.kind(), &x.id_string()), Some(x));
        }
        assert_eq!(DocOrHub::from_parts("org", &d.id_string()), None);
        assert_eq!(DocOrHub::from_parts("doc", "not-an-id"), None);
    }
}

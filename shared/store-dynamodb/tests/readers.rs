//! Readers without deploy rights (issue 40) over the DynamoDB adapter: reader tokens, reader settings, the
//! organization's OpenID provider settings and sign-in grants, and custom hostnames, through the domain's use cases.
//! Every test runs against the embedded engine (in process, and over its HTTP server) and against moto when
//! `SPECPRESS_TEST_MOTO_ENDPOINT` is set, like `tests/store.rs`.
//!
//! The OpenID provider and the DNS resolver are the domain's ports: here they are answered by small stand-ins that
//! say what a provider or a zone would (the real adapters are tested against a real provider and a real DNS server
//! in `shared/oidc` and `shared/dns`).

use std::sync::Mutex;

use async_trait::async_trait;
use specpress_domain::DomainError;
use specpress_domain::model::*;
use specpress_domain::ports::*;
use specpress_domain::readers::Credential;
use specpress_domain::sso::{Identity, LoginSecrets, ProviderConfig, SsoInput};
use specpress_domain::token::{Principal, Scope};
use specpress_domain::usecases::readers::{self as readers, Target};
use specpress_domain::usecases::{auth, hostnames, manage, sso};
use specpress_domain::webhooks::SecretSealer;
use specpress_local::embedded::{Embedded, Storage, Transport};
use specpress_store_dynamodb::DynamoStore;
use time::{Duration, OffsetDateTime};

enum Guard {
    Embedded(#[allow(dead_code)] Embedded),
    Moto,
}

async fn embedded_over(transport: Transport) -> (Guard, DynamoStore) {
    let e = Embedded::start_with(Storage::Memory, transport)
        .await
        .expect("embedded engine starts");
    let store = e.store("specpress").await.expect("table created");
    (Guard::Embedded(e), store)
}

/// A fresh table on the moto server (`specpress_testkit::Tool::Moto`; ignored outside CI when there is none).
async fn moto() -> (Guard, DynamoStore) {
    let endpoint = specpress_testkit::moto_endpoint();
    let client = specpress_store_dynamodb::client_for_endpoint(&endpoint).await;
    let table = format!("specpress-test-{}", uuid::Uuid::new_v4().simple());
    specpress_store_dynamodb::schema::ensure_table(&client, &table)
        .await
        .expect("moto table created");
    (Guard::Moto, DynamoStore::new(client, table))
}

macro_rules! backends {
    ($($name:ident),* $(,)?) => {
        mod embedded_engine {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                let (_g, store) = super::embedded_over(super::Transport::InProcess).await;
                super::$name(store).await;
            })*
        }
        mod embedded_engine_over_http {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                let (_g, store) = super::embedded_over(super::Transport::Http).await;
                super::$name(store).await;
            })*
        }
        mod moto_server {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            #[cfg_attr(missing_moto, ignore = "needs a moto server (SPECPRESS_TEST_MOTO_ENDPOINT)")]
            async fn $name() {
                let (_g, store) = super::moto().await;
                super::$name(store).await;
            })*
        }
    };
}

backends!(
    a_reader_token_reads_what_it_names_never_the_api_and_dies_when_revoked_or_expired,
    reader_tokens_are_created_by_the_tokens_that_reach_their_target_only,
    reader_settings_are_set_field_by_field_beside_the_other_settings,
    provider_settings_keep_their_secret_sealed_and_sign_ins_end_with_the_provider,
    hostnames_route_only_once_verified_and_never_to_two_targets,
);

fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc().replace_nanosecond(0).unwrap()
}

fn unique(prefix: &str) -> String {
    format!(
        "{prefix}-{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    )
}

struct Org {
    p: Principal,
    hub: Hub,
    hub_token: String,
    doc: Documentation,
    doc_token: String,
    sibling: Documentation,
}

/// An organization with a private hub holding two private documentations.
async fn org(store: &DynamoStore) -> Org {
    let t = now();
    let (o, _) = manage::create_org(store, "Acme", t).await.unwrap();
    let p = Principal {
        org_id: o.id,
        scope: Scope::Org,
    };
    let hub_slug = unique("hub");
    let (hub, hub_token) = manage::create_hub(
        store,
        &p,
        "Partners",
        Some(&hub_slug),
        None,
        Visibility::Private,
        t,
    )
    .await
    .unwrap();
    let (doc, doc_token) = manage::create_doc(
        store,
        &p,
        "Pets",
        Some(&unique("pets")),
        Some(&hub_slug),
        Visibility::Private,
        t,
    )
    .await
    .unwrap();
    let (sibling, _) = manage::create_doc(
        store,
        &p,
        "Stores",
        Some(&unique("stores")),
        Some(&hub_slug),
        Visibility::Private,
        t,
    )
    .await
    .unwrap();
    Org {
        p,
        hub,
        hub_token: hub_token.secret,
        doc,
        doc_token: doc_token.secret,
        sibling,
    }
}

fn reader_token_of(c: Option<Credential>) -> specpress_domain::readers::ReaderToken {
    match c {
        Some(Credential::ReaderToken(t)) => t,
        other => panic!("not a reader token: {other:?}"),
    }
}

async fn a_reader_token_reads_what_it_names_never_the_api_and_dies_when_revoked_or_expired(
    store: DynamoStore,
) {
    let o = org(&store).await;
    let t0 = now();
    let doc_key = o.doc.slug.as_str();
    let (token, minted) =
        readers::create_reader_token(&store, &o.p, Target::Doc(doc_key), "Partner X", None, t0)
            .await
            .unwrap();
    assert!(minted.secret.starts_with("sp_read_"));
    assert_eq!(token.scope, DocOrHub::Doc(o.doc.id));
    assert_eq!(token.name, "Partner X");

    // The API does not know it: every authenticated call answers as for no token.
    assert!(matches!(
        auth::authenticate(&store, &minted.secret).await,
        Err(DomainError::Unauthorized)
    ));
    assert_eq!(store.principal_by_token(&minted.hash).await.unwrap(), None);
    assert!(matches!(
        auth::start_session(&store, &minted.secret, t0, Duration::hours(12)).await,
        Err(DomainError::Unauthorized)
    ));

    // On reader surfaces it is a reader token of that documentation only; its use is recorded.
    let t1 = t0 + Duration::minutes(5);
    let read = reader_token_of(
        readers::reader_credential(&store, &minted.secret, t1)
            .await
            .unwrap(),
    );
    assert_eq!(read.id, token.id);
    assert!(
        read.may_read_doc(&o.doc) && !read.may_read_doc(&o.sibling) && !read.may_read_hub(&o.hub)
    );
    let listed = readers::list_reader_tokens(&store, &o.p, Target::Doc(doc_key), t1)
        .await
        .unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].last_used_at, Some(t1), "first use recorded");
    // Used again within the hour: not written again.
    readers::reader_credential(&store, &minted.secret, t1 + Duration::minutes(30))
        .await
        .unwrap();
    let listed = readers::list_reader_tokens(&store, &o.p, Target::Doc(doc_key), t1)
        .await
        .unwrap();
    assert_eq!(listed[0].last_used_at, Some(t1));

    // Members' tokens are members on reader surfaces too; a mangled reader token is nothing, without a lookup.
    assert!(matches!(
        readers::reader_credential(&store, &o.doc_token, t1).await.unwrap(),
        Some(Credential::Member(p)) if p.scope == Scope::Doc(o.doc.id)
    ));
    let mangled = minted.secret.replacen("sp_read_", "sp_doc_", 1);
    assert_eq!(
        readers::reader_credential(&store, &mangled, t1)
            .await
            .unwrap(),
        None
    );

    // A session started with it opens what the token opens, until the token is revoked.
    let (_, session) =
        readers::start_reader_session(&store, &minted.secret, t1, Duration::hours(12))
            .await
            .unwrap();
    assert_eq!(session.expires_at, t1 + Duration::hours(12));
    assert!(matches!(
        readers::session_credential(&store, &session.id, t1).await.unwrap(),
        Some(Credential::ReaderToken(t)) if t.id == token.id
    ));
    readers::revoke_reader_token(&store, &o.p, Target::Doc(doc_key), &token.id.to_string())
        .await
        .unwrap();
    assert_eq!(
        readers::reader_credential(&store, &minted.secret, t1)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        readers::session_credential(&store, &session.id, t1)
            .await
            .unwrap(),
        None
    );
    assert!(
        readers::list_reader_tokens(&store, &o.p, Target::Doc(doc_key), t1)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(matches!(
        readers::revoke_reader_token(&store, &o.p, Target::Doc(doc_key), &token.id.to_string())
            .await,
        Err(DomainError::NotFound(_))
    ));

    // An expiring hub token: its sessions end with it, and it is neither listed nor live past its expiry.
    let expiry = t0 + Duration::hours(1);
    let (hub_reader, hub_minted) = readers::create_reader_token(
        &store,
        &o.p,
        Target::Hub(o.hub.slug.as_str()),
        "Auditors",
        Some(expiry),
        t0,
    )
    .await
    .unwrap();
    let read = reader_token_of(
        readers::reader_credential(&store, &hub_minted.secret, t0)
            .await
            .unwrap(),
    );
    assert!(
        read.may_read_hub(&o.hub) && read.may_read_doc(&o.doc) && read.may_read_doc(&o.sibling)
    );
    let (_, s) = readers::start_reader_session(&store, &hub_minted.secret, t0, Duration::hours(12))
        .await
        .unwrap();
    assert_eq!(
        s.expires_at, expiry,
        "a session never outlives its reader token"
    );
    let late = expiry + Duration::seconds(1);
    assert_eq!(
        readers::reader_credential(&store, &hub_minted.secret, late)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        readers::session_credential(&store, &s.id, late)
            .await
            .unwrap(),
        None
    );
    assert!(
        readers::list_reader_tokens(&store, &o.p, Target::Hub(o.hub.slug.as_str()), late)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        readers::list_reader_tokens(&store, &o.p, Target::Hub(o.hub.slug.as_str()), t0)
            .await
            .unwrap()
            .iter()
            .map(|t| t.id)
            .collect::<Vec<_>>(),
        [hub_reader.id]
    );
    assert!(matches!(
        readers::create_reader_token(&store, &o.p, Target::Doc(doc_key), "Past", Some(t0), t0).await,
        Err(DomainError::Invalid { field, .. }) if field == "expires_at"
    ));
}

async fn reader_tokens_are_created_by_the_tokens_that_reach_their_target_only(store: DynamoStore) {
    let o = org(&store).await;
    let t0 = now();
    let doc_p = auth::authenticate(&store, &o.doc_token).await.unwrap();
    let hub_p = auth::authenticate(&store, &o.hub_token).await.unwrap();
    // A documentation token: its own documentation only.
    readers::create_reader_token(
        &store,
        &doc_p,
        Target::Doc(o.doc.slug.as_str()),
        "a",
        None,
        t0,
    )
    .await
    .unwrap();
    for target in [
        Target::Doc(o.sibling.slug.as_str()),
        Target::Hub(o.hub.slug.as_str()),
    ] {
        assert!(matches!(
            readers::create_reader_token(&store, &doc_p, target, "b", None, t0).await,
            Err(DomainError::NotFound(_))
        ));
        assert!(matches!(
            readers::list_reader_tokens(&store, &doc_p, target, t0).await,
            Err(DomainError::NotFound(_))
        ));
    }
    // A hub token: the hub and its documentations.
    readers::create_reader_token(
        &store,
        &hub_p,
        Target::Hub(o.hub.slug.as_str()),
        "c",
        None,
        t0,
    )
    .await
    .unwrap();
    let (by_hub, _) = readers::create_reader_token(
        &store,
        &hub_p,
        Target::Doc(o.sibling.slug.as_str()),
        "d",
        None,
        t0,
    )
    .await
    .unwrap();
    // Another organization's token reaches nothing here, not even by id.
    let stranger = org(&store).await;
    let sibling_id = o.sibling.id.to_string();
    assert!(matches!(
        readers::create_reader_token(&store, &stranger.p, Target::Doc(&sibling_id), "e", None, t0)
            .await,
        Err(DomainError::NotFound(_))
    ));
    assert!(matches!(
        readers::revoke_reader_token(
            &store,
            &stranger.p,
            Target::Doc(&sibling_id),
            &by_hub.id.to_string()
        )
        .await,
        Err(DomainError::NotFound(_))
    ));
    // An id of another documentation's token is not found under this one.
    assert!(matches!(
        readers::revoke_reader_token(
            &store,
            &o.p,
            Target::Doc(o.doc.slug.as_str()),
            &by_hub.id.to_string()
        )
        .await,
        Err(DomainError::NotFound(_))
    ));
    // Names are display names.
    assert!(matches!(
        readers::create_reader_token(&store, &o.p, Target::Doc(o.doc.slug.as_str()), "a\u{202e}b", None, t0).await,
        Err(DomainError::Invalid { field, .. }) if field == "name"
    ));
    assert_eq!(
        readers::list_reader_tokens(&store, &o.p, Target::Doc(o.sibling.slug.as_str()), t0)
            .await
            .unwrap()
            .len(),
        1
    );
}

async fn reader_settings_are_set_field_by_field_beside_the_other_settings(store: DynamoStore) {
    let o = org(&store).await;
    let t0 = now();
    let doc = Target::Doc(o.doc.slug.as_str());
    let initial = readers::reader_settings(&store, &o.p, doc).await.unwrap();
    assert!(!initial.sso_readers && initial.embed_origins.is_empty());
    let s = readers::update_reader_settings(&store, &o.p, doc, Some(true), None, t0)
        .await
        .unwrap();
    assert!(s.sso_readers && s.embed_origins.is_empty());
    let origins = vec![
        "https://WWW.Example.com/".to_owned(),
        "https://app.example.com:8443".to_owned(),
    ];
    let s = readers::update_reader_settings(&store, &o.p, doc, None, Some(&origins), t0)
        .await
        .unwrap();
    assert!(s.sso_readers, "left as it was");
    assert_eq!(
        s.embed_origins.frame_ancestors(),
        "https://www.example.com https://app.example.com:8443"
    );
    // The documentation's other settings and its reading are untouched; its visibility change keeps these.
    manage::set_doc_visibility(&store, &o.p, o.doc.slug.as_str(), Visibility::Public, t0)
        .await
        .unwrap();
    let again = readers::reader_settings(&store, &o.p, doc).await.unwrap();
    assert_eq!(again, s);
    let read = store.get_doc(o.p.org_id, o.doc.id).await.unwrap().unwrap();
    assert_eq!(read.visibility, Visibility::Public);
    // Emptied.
    let s = readers::update_reader_settings(&store, &o.p, doc, Some(false), Some(&[]), t0)
        .await
        .unwrap();
    assert!(!s.sso_readers && s.embed_origins.is_empty());
    // Who may: the hub's token for its documentations and itself, never a documentation token.
    let hub_p = auth::authenticate(&store, &o.hub_token).await.unwrap();
    let doc_p = auth::authenticate(&store, &o.doc_token).await.unwrap();
    readers::update_reader_settings(
        &store,
        &hub_p,
        Target::Hub(o.hub.slug.as_str()),
        Some(true),
        None,
        t0,
    )
    .await
    .unwrap();
    assert!(
        readers::reader_settings(&store, &o.p, Target::Hub(o.hub.slug.as_str()))
            .await
            .unwrap()
            .sso_readers
    );
    assert!(matches!(
        readers::update_reader_settings(&store, &doc_p, doc, Some(true), None, t0).await,
        Err(DomainError::Forbidden(_))
    ));
    assert!(matches!(
        readers::update_reader_settings(
            &store,
            &o.p,
            doc,
            None,
            Some(&["http://www.example.com".to_owned()]),
            t0
        )
        .await,
        Err(DomainError::Invalid { field, .. }) if field == "embed_origins"
    ));
    assert!(matches!(
        readers::update_reader_settings(
            &store,
            &o.p,
            Target::Doc("no-such-doc"),
            Some(true),
            None,
            t0
        )
        .await,
        Err(DomainError::NotFound(_))
    ));
}

/// A provider that vouches for `identity` when given `good-code` with the verifier it handed out.
struct StandInProvider {
    identity: Mutex<Identity>,
}

#[async_trait]
impl IdentityProvider for StandInProvider {
    async fn authorization_url(
        &self,
        config: &ProviderConfig,
        redirect_uri: &str,
    ) -> specpress_domain::Result<(String, LoginSecrets)> {
        assert_eq!(
            config.client_secret.expose(),
            "s3cret",
            "the secret is opened for the provider"
        );
        Ok((
            format!("{}/authorize?redirect_uri={redirect_uri}", config.issuer),
            LoginSecrets {
                state: "state-1".into(),
                nonce: "nonce-1".into(),
                pkce_verifier: "verifier-1".into(),
            },
        ))
    }

    async fn identity(
        &self,
        _config: &ProviderConfig,
        _redirect_uri: &str,
        secrets: &LoginSecrets,
        code: &str,
    ) -> specpress_domain::Result<Identity> {
        if code == "good-code" && secrets.pkce_verifier == "verifier-1" {
            Ok(self.identity.lock().unwrap().clone())
        } else {
            Err(DomainError::Unauthorized)
        }
    }
}

async fn provider_settings_keep_their_secret_sealed_and_sign_ins_end_with_the_provider(
    store: DynamoStore,
) {
    let o = org(&store).await;
    let t0 = now();
    let sealer = SecretSealer::new(&[7u8; 32]);
    let input = SsoInput {
        issuer: "https://login.example.com".into(),
        client_id: "specpress".into(),
        client_secret: Some("s3cret".into()),
        allowed_domains: Some(vec!["example.com".into()]),
        ..Default::default()
    };
    assert!(matches!(
        sso::get_sso(&store, &o.p).await,
        Err(DomainError::NotFound(_))
    ));
    let first = sso::put_sso(&store, &sealer, &o.p, &input, false, t0)
        .await
        .unwrap();
    let stored = sso::get_sso(&store, &o.p).await.unwrap();
    assert_eq!(stored, first);
    assert!(
        !stored.sealed_secret.windows(6).any(|w| w == b"s3cret"),
        "sealed at rest"
    );
    // Only the organization's token.
    let hub_p = auth::authenticate(&store, &o.hub_token).await.unwrap();
    assert!(matches!(
        sso::put_sso(&store, &sealer, &hub_p, &input, false, t0).await,
        Err(DomainError::Forbidden(_))
    ));
    // The same client without its secret keeps secret and incarnation; another issuer needs a secret.
    let mut no_secret = input.clone();
    no_secret.client_secret = None;
    no_secret.allowed_domains = Some(vec!["example.com".into(), "example.org".into()]);
    let second = sso::put_sso(
        &store,
        &sealer,
        &o.p,
        &no_secret,
        false,
        t0 + Duration::seconds(1),
    )
    .await
    .unwrap();
    assert_eq!(second.config_id, first.config_id);
    assert_eq!(second.sealed_secret, first.sealed_secret);
    assert_eq!(second.allowed_domains.len(), 2);
    let mut moved = no_secret.clone();
    moved.issuer = "https://idp.example.net".into();
    assert!(matches!(
        sso::put_sso(&store, &sealer, &o.p, &moved, false, t0).await,
        Err(DomainError::Invalid { field, .. }) if field == "client_secret"
    ));

    // A sign-in: the state must be the browser's, then the provider vouches and the rules admit.
    let provider = StandInProvider {
        identity: Mutex::new(Identity {
            subject: "ann".into(),
            email: Some("ann@example.com".into()),
            email_verified: true,
            groups: vec![],
        }),
    };
    let redirect = "https://docs.example.com/sign-in/oidc/callback";
    let (url, pending) = sso::begin_sign_in(
        &store, &provider, &sealer, o.p.org_id, redirect, "/doc/x", t0,
    )
    .await
    .unwrap();
    assert!(url.starts_with("https://login.example.com/authorize"));
    assert_eq!(pending.next, "/doc/x");
    let t1 = t0 + Duration::minutes(1);
    let life = Duration::hours(12);
    for (state, code) in [
        ("state-2", "good-code"),
        ("", "good-code"),
        ("state-1", "bad-code"),
    ] {
        assert!(matches!(
            sso::finish_sign_in(
                &store, &provider, &sealer, &pending, state, code, redirect, t1, life
            )
            .await,
            Err(DomainError::Unauthorized)
        ));
    }
    // Too late.
    assert!(matches!(
        sso::finish_sign_in(
            &store,
            &provider,
            &sealer,
            &pending,
            "state-1",
            "good-code",
            redirect,
            pending.expires_at,
            life
        )
        .await,
        Err(DomainError::Unauthorized)
    ));
    let (grant, session) = sso::finish_sign_in(
        &store,
        &provider,
        &sealer,
        &pending,
        "state-1",
        "good-code",
        redirect,
        t1,
        life,
    )
    .await
    .unwrap();
    assert_eq!(grant.email_domain.as_deref(), Some("example.com"));
    match readers::session_credential(&store, &session.id, t1)
        .await
        .unwrap()
    {
        Some(Credential::Sso(g)) => assert_eq!(g, grant),
        other => panic!("{other:?}"),
    }
    // The grant is no API principal, whatever finds its hash.
    assert_eq!(
        store.principal_by_token(&session.token_hash).await.unwrap(),
        None
    );

    // An address outside the allowed domains gets nothing.
    *provider.identity.lock().unwrap() = Identity {
        subject: "eve".into(),
        email: Some("eve@evil.test".into()),
        email_verified: true,
        groups: vec![],
    };
    assert!(matches!(
        sso::finish_sign_in(
            &store,
            &provider,
            &sealer,
            &pending,
            "state-1",
            "good-code",
            redirect,
            t1,
            life
        )
        .await,
        Err(DomainError::Unauthorized)
    ));

    // Narrowing the domains ends the session; so does removing the provider.
    let mut narrowed = no_secret.clone();
    narrowed.allowed_domains = Some(vec!["example.org".into()]);
    sso::put_sso(&store, &sealer, &o.p, &narrowed, false, t1)
        .await
        .unwrap();
    assert_eq!(
        readers::session_credential(&store, &session.id, t1)
            .await
            .unwrap(),
        None
    );
    sso::put_sso(
        &store,
        &sealer,
        &o.p,
        &no_secret,
        false,
        t1 + Duration::seconds(1),
    )
    .await
    .unwrap();
    assert!(
        readers::session_credential(&store, &session.id, t1)
            .await
            .unwrap()
            .is_some()
    );
    sso::delete_sso(&store, &o.p).await.unwrap();
    assert_eq!(
        readers::session_credential(&store, &session.id, t1)
            .await
            .unwrap(),
        None
    );
    assert!(matches!(
        sso::delete_sso(&store, &o.p).await,
        Err(DomainError::NotFound(_))
    ));
    // Set up again with the same client: a new incarnation, the old session stays ended.
    sso::put_sso(&store, &sealer, &o.p, &input, false, t1)
        .await
        .unwrap();
    assert_eq!(
        readers::session_credential(&store, &session.id, t1)
            .await
            .unwrap(),
        None
    );
    // A sign-in begun before the provider changed is refused.
    assert!(matches!(
        sso::finish_sign_in(
            &store,
            &provider,
            &sealer,
            &pending,
            "state-1",
            "good-code",
            redirect,
            t1,
            life
        )
        .await,
        Err(DomainError::Unauthorized)
    ));
}

/// A zone answering TXT lookups from a table.
struct Zone(Mutex<Vec<(String, Vec<String>)>>);

impl Zone {
    fn set(&self, name: &str, records: &[&str]) {
        let mut z = self.0.lock().unwrap();
        z.retain(|(n, _)| n != name);
        z.push((
            name.to_owned(),
            records.iter().map(|r| r.to_string()).collect(),
        ));
    }
}

#[async_trait]
impl TxtResolver for Zone {
    async fn txt_records(&self, name: &str) -> Result<Vec<String>, LookupFailed> {
        Ok(self
            .0
            .lock()
            .unwrap()
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r.clone())
            .unwrap_or_default())
    }
}

async fn hostnames_route_only_once_verified_and_never_to_two_targets(store: DynamoStore) {
    let a = org(&store).await;
    let b = org(&store).await;
    let t0 = now();
    let zone = Zone(Mutex::new(Vec::new()));
    let host = format!("{}.example.com", unique("docs"));
    let hub_a = Target::Hub(a.hub.slug.as_str());
    let doc_b = Target::Doc(b.doc.slug.as_str());

    // Only the organization's token sets hostnames.
    let hub_p = auth::authenticate(&store, &a.hub_token).await.unwrap();
    assert!(matches!(
        hostnames::set_domain(&store, &hub_p, hub_a, &host, t0).await,
        Err(DomainError::Forbidden(_))
    ));
    let pending = hostnames::set_domain(&store, &a.p, hub_a, &host.to_uppercase(), t0)
        .await
        .unwrap();
    assert_eq!(pending.hostname.as_str(), host, "normalized");
    assert!(!pending.is_verified());
    assert_eq!(
        hostnames::get_domain(&store, &a.p, hub_a).await.unwrap(),
        pending
    );
    // Set again: unchanged, same value.
    assert_eq!(
        hostnames::set_domain(&store, &a.p, hub_a, &host, t0)
            .await
            .unwrap()
            .value,
        pending.value
    );
    // A pending hostname serves nothing, and blocks nobody: another organization may claim it too.
    assert_eq!(hostnames::site_for_host(&store, &host).await.unwrap(), None);
    let rival = hostnames::set_domain(&store, &b.p, doc_b, &host, t0)
        .await
        .unwrap();
    assert_ne!(rival.value, pending.value);

    // Verification: nothing there, then the wrong value, then the right one.
    let txt = format!("_specpress.{host}");
    let missing = hostnames::verify_domain(&store, &zone, &a.p, hub_a, t0)
        .await
        .unwrap_err()
        .to_string();
    assert!(missing.contains("No TXT record"), "{missing}");
    zone.set(&txt, &["v=spf1 -all", &rival.value]);
    let wrong = hostnames::verify_domain(&store, &zone, &a.p, hub_a, t0)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        wrong.contains("v=spf1 -all") && wrong.contains(&pending.value),
        "{wrong}"
    );
    zone.set(&txt, &[&pending.value]);
    let verified = hostnames::verify_domain(&store, &zone, &a.p, hub_a, t0)
        .await
        .unwrap();
    assert!(verified.is_verified());
    let routed = hostnames::site_for_host(&store, &format!("{}:443", host.to_uppercase()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (routed.org_id, routed.target),
        (a.p.org_id, DocOrHub::Hub(a.hub.id))
    );
    // Verifying again keeps it, even once the record is gone.
    zone.set(&txt, &[]);
    assert!(
        hostnames::verify_domain(&store, &zone, &a.p, hub_a, t0)
            .await
            .unwrap()
            .is_verified()
    );

    // The rival's claim can never be verified now, and nobody may set the verified hostname any more.
    zone.set(&txt, &[&rival.value]);
    assert!(matches!(
        hostnames::verify_domain(&store, &zone, &b.p, doc_b, t0).await,
        Err(DomainError::Invalid { .. })
    ));
    assert!(matches!(
        hostnames::set_domain(&store, &a.p, Target::Doc(a.doc.slug.as_str()), &host, t0).await,
        Err(DomainError::Invalid { .. })
    ));
    let routed = hostnames::site_for_host(&store, &host)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(routed.target, DocOrHub::Hub(a.hub.id));

    // Replacing the hostname ends its route at once; the old name is free for the rival to verify.
    let other = format!("{}.example.com", unique("api"));
    let replaced = hostnames::set_domain(&store, &a.p, hub_a, &other, t0)
        .await
        .unwrap();
    assert!(!replaced.is_verified());
    assert_eq!(hostnames::site_for_host(&store, &host).await.unwrap(), None);
    let won = hostnames::verify_domain(&store, &zone, &b.p, doc_b, t0)
        .await
        .unwrap();
    assert!(won.is_verified());
    assert_eq!(
        hostnames::site_for_host(&store, &host)
            .await
            .unwrap()
            .map(|d| d.target),
        Some(DocOrHub::Doc(b.doc.id))
    );

    // Deleting removes route and claim; unknown targets and hostnames are 404s.
    hostnames::delete_domain(&store, &b.p, doc_b).await.unwrap();
    assert_eq!(hostnames::site_for_host(&store, &host).await.unwrap(), None);
    assert!(matches!(
        hostnames::get_domain(&store, &b.p, doc_b).await,
        Err(DomainError::NotFound(_))
    ));
    assert!(matches!(
        hostnames::delete_domain(&store, &b.p, doc_b).await,
        Err(DomainError::NotFound(_))
    ));
    assert!(matches!(
        hostnames::verify_domain(&store, &zone, &b.p, doc_b, t0).await,
        Err(DomainError::NotFound(_))
    ));
    assert!(matches!(
        hostnames::set_domain(&store, &a.p, hub_a, "127.0.0.1", t0).await,
        Err(DomainError::Invalid { field, .. }) if field == "hostname"
    ));
    // A hostname named by no claim, and the rival's claim on the other documentation, are unaffected.
    assert_eq!(
        hostnames::site_for_host(&store, "nothing.example.com")
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        hostnames::get_domain(&store, &a.p, hub_a)
            .await
            .unwrap()
            .hostname
            .as_str(),
        other
    );
}

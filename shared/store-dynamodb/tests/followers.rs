//! Readers following by email (issue 38) over the DynamoDB adapter, through the domain's use cases: double opt-in,
//! the confirmation quota, single-use confirmation links, unsubscribing, suspension and digest times. Every test runs
//! against the embedded engine (in process, and over its HTTP server) and against moto when
//! `SPECPRESS_TEST_MOTO_ENDPOINT` is set, like `tests/store.rs`.
//!
//! The mailer is the domain's port answered by a recorder (the real transports are tested in `shared/mail`).

use std::sync::Mutex;

use async_trait::async_trait;
use specpress_domain::follow::{Cadence, FollowerState, LinkPurpose, PENDING_TTL};
use specpress_domain::model::*;
use specpress_domain::ports::*;
use specpress_domain::usecases::follow::{self, FollowForm, FollowTarget};
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
    a_follow_request_sends_one_confirmation_and_nothing_else_until_its_single_use_link_is_used,
    confirmation_mails_are_at_most_three_per_address_and_day_and_every_answer_is_the_same,
    pending_requests_expire_after_48_hours_and_unsubscribing_deletes_the_address,
    a_bounce_suspends_every_follower_of_the_address_and_digests_come_due_once,
);

/// Records every mail instead of sending it.
#[derive(Default)]
struct Recorder(Mutex<Vec<Mail>>);

#[async_trait]
impl Mailer for Recorder {
    async fn send(&self, mail: &Mail) -> specpress_domain::Result<()> {
        self.0.lock().unwrap().push(mail.clone());
        Ok(())
    }
    fn describe(&self) -> String {
        "recorder".into()
    }
}

impl Recorder {
    fn take(&self) -> Vec<Mail> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

fn sealer() -> SecretSealer {
    SecretSealer::new(&[3u8; 32])
}

fn target() -> FollowTarget {
    FollowTarget {
        org_id: OrgId::new(),
        scope: DocOrHub::Doc(DocId::new()),
        title: "Pets <API>".into(),
        scope_url: "https://docs.example.com/doc/pets".into(),
    }
}

fn form(email: &str) -> FollowForm {
    FollowForm {
        email: email.into(),
        cadence: "release".into(),
        breaking_only: false,
        operation: None,
    }
}

/// The token at the end of a link.
fn token_of(url: &str) -> String {
    url.rsplit('/').next().unwrap().to_owned()
}

fn confirm_url(mail: &Mail) -> String {
    match &mail.content {
        MailContent::Confirm(c) => c.confirm_url.clone(),
        other => panic!("not a confirmation: {other:?}"),
    }
}

async fn a_follow_request_sends_one_confirmation_and_nothing_else_until_its_single_use_link_is_used(
    store: DynamoStore,
) {
    let (sealer, mailer, t) = (sealer(), Recorder::default(), target());
    let now = OffsetDateTime::now_utc();
    let mut f = form(" Jane@Example.com ");
    f.operation = Some("get /pets/{id}".into());
    f.breaking_only = true;
    follow::follow(&store, &sealer, &mailer, &t, &f, now)
        .await
        .unwrap();
    let mails = mailer.take();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, "jane@example.com");
    let url = confirm_url(&mails[0]);
    assert!(
        url.starts_with("https://docs.example.com/doc/pets/follow/confirm/"),
        "{url}"
    );
    let MailContent::Confirm(c) = &mails[0].content else {
        unreachable!()
    };
    assert_eq!(c.title, "Pets <API>");
    assert_eq!(c.expires_in_hours, 48);
    assert!(
        c.scope.contains("breaking changes to GET /pets/{id}"),
        "{}",
        c.scope
    );

    let listed = store.list_followers(t.scope, now).await.unwrap();
    assert_eq!(listed.len(), 1);
    let pending = &listed[0];
    assert_eq!(pending.state, FollowerState::Pending);
    assert_eq!(pending.operation.as_deref(), Some("GET /pets/{id}"));
    assert!(pending.breaking_only);
    assert!(
        !pending.sealed_address.windows(8).any(|w| w == b"jane@exa"),
        "the address is sealed at rest"
    );
    assert_eq!(pending.address(&sealer).unwrap(), "jane@example.com");

    // A manage link of a pending follower works only once it exists; a confirmation link is not a manage link.
    let token = token_of(&url);
    assert!(
        !follow::unsubscribe(&store, &sealer, &token, now)
            .await
            .unwrap()
    );
    assert!(
        follow::manage(&store, &sealer, &token, now)
            .await
            .unwrap()
            .is_none()
    );

    let confirmed = follow::confirm(&store, &sealer, &token, now)
        .await
        .unwrap()
        .expect("confirmed");
    assert_eq!(confirmed.state, FollowerState::Confirmed);
    assert_eq!(confirmed.expires_at, None);
    assert_eq!(
        confirmed.next_digest_at, None,
        "release cadence has no digest"
    );
    // Single use.
    assert!(
        follow::confirm(&store, &sealer, &token, now)
            .await
            .unwrap()
            .is_none()
    );
    // Well after the pending expiry, it is still there.
    assert!(
        store
            .get_follower(confirmed.id, now + Duration::days(30))
            .await
            .unwrap()
            .is_some()
    );

    // A repeated request of a confirmed follower: the same answer, nothing sent, the entry unchanged.
    let mut again = f.clone();
    again.cadence = "weekly".into();
    follow::follow(&store, &sealer, &mailer, &t, &again, now)
        .await
        .unwrap();
    assert!(mailer.take().is_empty());
    let same = store
        .get_follower(confirmed.id, now)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(same.cadence, Cadence::Release);
    assert_eq!(store.list_followers(t.scope, now).await.unwrap().len(), 1);

    // The manage view masks the address.
    let keys = specpress_domain::follow::FollowKeys::new(&sealer);
    let manage = keys.token(&same, LinkPurpose::Manage).unwrap();
    let view = follow::manage(&store, &sealer, &manage, now)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(view.masked_address, "j***@e***.com");
    // A forged token (another MAC) opens nothing.
    let forged = format!("{}.{}", same.id.0.simple(), "0".repeat(40));
    assert!(
        follow::manage(&store, &sealer, &forged, now)
            .await
            .unwrap()
            .is_none()
    );
    // Another key opens nothing either.
    assert!(
        follow::manage(&store, &SecretSealer::new(&[4u8; 32]), &manage, now)
            .await
            .unwrap()
            .is_none()
    );
}

async fn confirmation_mails_are_at_most_three_per_address_and_day_and_every_answer_is_the_same(
    store: DynamoStore,
) {
    let (sealer, mailer, t) = (sealer(), Recorder::default(), target());
    let now = OffsetDateTime::now_utc();
    for i in 0..5 {
        // The same scope re-uses the entry; another cadence updates the pending entry.
        let mut f = form("bob@example.org");
        if i % 2 == 1 {
            f.cadence = "daily".into();
        }
        follow::follow(&store, &sealer, &mailer, &t, &f, now)
            .await
            .unwrap();
    }
    let mails = mailer.take();
    assert_eq!(mails.len(), 3, "three confirmations a day");
    let listed = store.list_followers(t.scope, now).await.unwrap();
    assert_eq!(listed.len(), 1, "one entry for one address and scope");
    assert_eq!(listed[0].cadence, Cadence::Release);
    // Every mail's link confirms the one entry (the first one to be used wins).
    let first = token_of(&confirm_url(&mails[0]));
    assert!(
        follow::confirm(&store, &sealer, &first, now)
            .await
            .unwrap()
            .is_some()
    );

    // Another scope counts against the same address's quota.
    let other = FollowTarget {
        scope: DocOrHub::Hub(HubId::new()),
        ..target()
    };
    follow::follow(
        &store,
        &sealer,
        &mailer,
        &other,
        &form("BOB@example.org"),
        now,
    )
    .await
    .unwrap();
    assert!(mailer.take().is_empty());
    // The next day, it is counted afresh.
    follow::follow(
        &store,
        &sealer,
        &mailer,
        &other,
        &form("bob@example.org"),
        now + Duration::days(1),
    )
    .await
    .unwrap();
    assert_eq!(mailer.take().len(), 1);

    // Malformed forms are refused, and send nothing.
    for bad in [
        form("not-an-address"),
        FollowForm {
            cadence: "hourly".into(),
            ..form("c@example.com")
        },
    ] {
        assert!(
            follow::follow(&store, &sealer, &mailer, &t, &bad, now)
                .await
                .is_err()
        );
    }
    assert!(mailer.take().is_empty());
}

async fn pending_requests_expire_after_48_hours_and_unsubscribing_deletes_the_address(
    store: DynamoStore,
) {
    let (sealer, mailer, t) = (sealer(), Recorder::default(), target());
    let now = OffsetDateTime::now_utc();
    follow::follow(&store, &sealer, &mailer, &t, &form("late@example.com"), now)
        .await
        .unwrap();
    let late = token_of(&confirm_url(&mailer.take()[0]));
    let after = now + PENDING_TTL + Duration::minutes(1);
    assert!(
        store
            .list_followers(t.scope, after)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        follow::confirm(&store, &sealer, &late, after)
            .await
            .unwrap()
            .is_none()
    );
    // A new request after the expiry is a new entry with new links: the old link stays dead.
    follow::follow(
        &store,
        &sealer,
        &mailer,
        &t,
        &form("late@example.com"),
        after,
    )
    .await
    .unwrap();
    let fresh = token_of(&confirm_url(&mailer.take()[0]));
    assert_ne!(fresh, late);
    assert!(
        follow::confirm(&store, &sealer, &late, after)
            .await
            .unwrap()
            .is_none()
    );
    let f = follow::confirm(&store, &sealer, &fresh, after)
        .await
        .unwrap()
        .unwrap();

    let keys = specpress_domain::follow::FollowKeys::new(&sealer);
    let manage = keys.token(&f, LinkPurpose::Manage).unwrap();
    assert!(
        follow::unsubscribe(&store, &sealer, &manage, after)
            .await
            .unwrap()
    );
    assert!(store.get_follower(f.id, after).await.unwrap().is_none());
    assert!(
        store
            .followers_of_address(&f.address_hash)
            .await
            .unwrap()
            .is_empty()
    );
    // Twice: nothing left, the same page.
    assert!(
        !follow::unsubscribe(&store, &sealer, &manage, after)
            .await
            .unwrap()
    );
}

async fn a_bounce_suspends_every_follower_of_the_address_and_digests_come_due_once(
    store: DynamoStore,
) {
    let (sealer, mailer, t) = (sealer(), Recorder::default(), target());
    let hub = FollowTarget {
        scope: DocOrHub::Hub(HubId::new()),
        ..target()
    };
    let now = OffsetDateTime::now_utc();
    let mut weekly = form("ann@example.net");
    weekly.cadence = "weekly".into();
    follow::follow(&store, &sealer, &mailer, &t, &weekly, now)
        .await
        .unwrap();
    follow::follow(
        &store,
        &sealer,
        &mailer,
        &hub,
        &form("ann@example.net"),
        now,
    )
    .await
    .unwrap();
    follow::follow(
        &store,
        &sealer,
        &mailer,
        &t,
        &form("other@example.net"),
        now,
    )
    .await
    .unwrap();
    let mut ids = Vec::new();
    for m in mailer.take() {
        ids.push(
            follow::confirm(&store, &sealer, &token_of(&confirm_url(&m)), now)
                .await
                .unwrap()
                .unwrap(),
        );
    }
    let digest = ids.iter().find(|f| f.cadence == Cadence::Weekly).unwrap();
    let due_at = digest
        .next_digest_at
        .expect("a weekly follower has a digest time");
    assert_eq!(due_at, now + Duration::weeks(1));
    assert!(store.due_digests(now, 10).await.unwrap().is_empty());
    let due = store.due_digests(due_at, 10).await.unwrap();
    assert_eq!(
        due.iter().map(|f| f.id).collect::<Vec<_>>(),
        vec![digest.id]
    );
    let next = due_at + Duration::weeks(1);
    assert!(store.advance_digest(digest.id, due_at, next).await.unwrap());
    assert!(
        !store.advance_digest(digest.id, due_at, next).await.unwrap(),
        "another runner sent it"
    );
    assert!(store.due_digests(due_at, 10).await.unwrap().is_empty());

    assert_eq!(
        follow::suspend_address(&store, &sealer, "ANN@example.net", "bounce")
            .await
            .unwrap(),
        2
    );
    let states: Vec<_> = store
        .list_followers(t.scope, now)
        .await
        .unwrap()
        .into_iter()
        .map(|f| (f.address(&sealer).unwrap(), f.state, f.suspended_reason))
        .collect();
    assert!(states.contains(&(
        "ann@example.net".into(),
        FollowerState::Suspended,
        Some("bounce".into())
    )));
    assert!(states.contains(&("other@example.net".into(), FollowerState::Confirmed, None)));
    assert!(
        store.due_digests(next, 10).await.unwrap().is_empty(),
        "a suspended follower gets no digest"
    );
    // A suspended follower asking again gets nothing sent.
    follow::follow(
        &store,
        &sealer,
        &mailer,
        &hub,
        &form("ann@example.net"),
        now,
    )
    .await
    .unwrap();
    assert!(mailer.take().is_empty());
    assert_eq!(
        follow::suspend_address(&store, &sealer, "nobody@example.net", "bounce")
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        follow::suspend_address(&store, &sealer, "garbage", "bounce")
            .await
            .unwrap(),
        0
    );
}

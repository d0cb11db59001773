//! Accepted changes over the embedded engine (in-process and over its HTTP server): the use cases of
//! `usecases::accepted` with the DynamoDB adapter. A set is stored under its documentation, replaced as a whole
//! (kept entries keep their acceptance time), emptied by an empty set; a token that does not reach the
//! documentation gets 404 and changes nothing; a refused set changes nothing.

use specpress_domain::DomainError;
use specpress_domain::accepted::AcceptedInput;
use specpress_domain::model::Visibility;
use specpress_domain::ports::AcceptedChangeStore;
use specpress_domain::token::{Principal, Scope};
use specpress_domain::usecases::{accepted, manage};
use specpress_local::embedded::{Embedded, Storage, Transport};
use specpress_store_dynamodb::DynamoStore;
use time::{Duration, OffsetDateTime};

async fn embedded(transport: Transport) -> (Embedded, DynamoStore) {
    let e = Embedded::start_with(Storage::Memory, transport)
        .await
        .expect("embedded engine starts");
    let store = e.store("specpress").await.expect("table created");
    (e, store)
}

fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc().replace_nanosecond(0).unwrap()
}

fn entry(id: &str, reason: &str, expires_at: Option<&str>) -> AcceptedInput {
    AcceptedInput {
        id: Some(id.into()),
        reason: Some(reason.into()),
        expires_at: expires_at.map(Into::into),
    }
}

const A: &str = "0123456789abcdef";
const B: &str = "00000000000000ff";

async fn a_set_is_replaced_as_a_whole_and_only_through_a_token_that_reaches_it(store: DynamoStore) {
    let t0 = now();
    let (org, _) = manage::create_org(&store, "Acme", t0).await.unwrap();
    let org_p = Principal {
        org_id: org.id,
        scope: Scope::Org,
    };
    let (doc, _) = manage::create_doc(&store, &org_p, "Pets", None, None, Visibility::Public, t0)
        .await
        .unwrap();
    let (other, _) =
        manage::create_doc(&store, &org_p, "Other", None, None, Visibility::Public, t0)
            .await
            .unwrap();
    let doc_p = Principal {
        org_id: org.id,
        scope: Scope::Doc(doc.id),
    };
    let other_p = Principal {
        org_id: org.id,
        scope: Scope::Doc(other.id),
    };

    // GIVEN nothing accepted yet
    let (_, set) = accepted::get_accepted(&store, &doc_p, "pets")
        .await
        .unwrap();
    assert!(set.is_empty());

    // WHEN the documentation's token accepts two changes
    let expiry = (t0 + Duration::days(30))
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    accepted::put_accepted(
        &store,
        &doc_p,
        "pets",
        vec![
            entry(A, "announced <in> March", None),
            entry(B, "beta clients", Some(&expiry)),
        ],
        t0,
    )
    .await
    .unwrap();
    // THEN they are read back, by slug or id, with their times
    let (_, set) = accepted::get_accepted(&store, &org_p, &doc.id.to_string())
        .await
        .unwrap();
    assert_eq!(set.changes.len(), 2);
    assert_eq!(set.changes[0].reason, "announced <in> March");
    assert_eq!(set.changes[0].accepted_at, t0);
    assert_eq!(set.changes[1].expires_at, Some(t0 + Duration::days(30)));
    assert!(
        store.get_accepted(other.id).await.unwrap().is_empty(),
        "another documentation's set is its own"
    );

    // WHEN a later PUT keeps A and drops B
    let t1 = t0 + Duration::hours(1);
    accepted::put_accepted(
        &store,
        &org_p,
        "pets",
        vec![entry(A, "still agreed", None)],
        t1,
    )
    .await
    .unwrap();
    let set = store.get_accepted(doc.id).await.unwrap();
    assert_eq!(set.changes.len(), 1);
    assert_eq!(set.changes[0].reason, "still agreed");
    assert_eq!(
        set.changes[0].accepted_at, t0,
        "a kept entry keeps its acceptance time"
    );

    // A refused set changes nothing
    let refused =
        accepted::put_accepted(&store, &org_p, "pets", vec![entry("nope", "r", None)], t1).await;
    assert!(
        matches!(refused, Err(DomainError::Invalid { ref field, .. }) if field == "changes[0].id")
    );
    assert_eq!(store.get_accepted(doc.id).await.unwrap().changes.len(), 1);

    // Another documentation's token gets 404, and changes nothing
    for call in [
        accepted::put_accepted(&store, &other_p, "pets", vec![], t1)
            .await
            .map(|_| ()),
        accepted::get_accepted(&store, &other_p, "pets")
            .await
            .map(|_| ()),
    ] {
        assert!(matches!(call, Err(DomainError::NotFound(_))));
    }
    assert_eq!(store.get_accepted(doc.id).await.unwrap().changes.len(), 1);

    // An empty set removes every acceptance
    accepted::put_accepted(&store, &doc_p, "pets", vec![], t1)
        .await
        .unwrap();
    assert!(store.get_accepted(doc.id).await.unwrap().is_empty());
}

async fn the_largest_set_fits_one_item(store: DynamoStore) {
    let t0 = now();
    let (org, _) = manage::create_org(&store, "Acme", t0).await.unwrap();
    let org_p = Principal {
        org_id: org.id,
        scope: Scope::Org,
    };
    let (doc, _) = manage::create_doc(&store, &org_p, "Pets", None, None, Visibility::Public, t0)
        .await
        .unwrap();
    // Every entry at its bounds: the longest reason, in characters of four bytes each, and an expiry.
    let reason = "𝄞".repeat(specpress_domain::accepted::MAX_REASON_CHARS);
    let expiry = "2999-12-31T23:59:59Z";
    let entries = (0..specpress_domain::accepted::MAX_ACCEPTED)
        .map(|i| entry(&format!("{i:016x}"), &reason, Some(expiry)))
        .collect();
    accepted::put_accepted(&store, &org_p, "pets", entries, t0)
        .await
        .unwrap();
    let set = store.get_accepted(doc.id).await.unwrap();
    assert_eq!(set.changes.len(), specpress_domain::accepted::MAX_ACCEPTED);
    assert_eq!(set.changes[199].reason, reason);
}

macro_rules! over_both_transports {
    ($($name:ident),* $(,)?) => {
        mod embedded_engine {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                let (_e, store) = super::embedded(super::Transport::InProcess).await;
                super::$name(store).await;
            })*
        }
        mod embedded_engine_over_http {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                let (_e, store) = super::embedded(super::Transport::Http).await;
                super::$name(store).await;
            })*
        }
    };
}

over_both_transports!(
    a_set_is_replaced_as_a_whole_and_only_through_a_token_that_reaches_it,
    the_largest_set_fits_one_item,
);

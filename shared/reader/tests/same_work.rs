//! A private documentation cannot be told from an unknown one by the work its "not found" takes, named by slug or by
//! id: the storage requests behind each lookup, counted at the SDK on the embedded engine, are the same in number
//! and kind.

mod common;

use specpress_domain::model::Visibility;
use specpress_domain::usecases::manage;
use specpress_domain::usecases::public::Reader;
use specpress_reader::{Budgets, Library, Missing, ReadError};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_not_found_of_a_documentation_costs_the_same_storage_requests() {
    let world = common::World::start().await;
    let (requests, store, p, now) = (
        world.requests.clone(),
        world.store.clone(),
        world.p.clone(),
        world.now,
    );
    let hub = |slug: &'static str, v| {
        let store = store.clone();
        let p = p.clone();
        async move {
            manage::create_hub(store.as_ref(), &p, slug, Some(slug), None, v, now)
                .await
                .expect("hub");
        }
    };
    hub("open", Visibility::Public).await;
    hub("closed", Visibility::Private).await;
    let mut ids = Vec::new();
    for (slug, hub, v) in [
        ("alone", None, Visibility::Private),
        ("in-open", Some("open"), Visibility::Private),
        ("in-closed", Some("closed"), Visibility::Public),
        ("shown", None, Visibility::Public),
    ] {
        let (doc, _) = manage::create_doc(store.as_ref(), &p, slug, Some(slug), hub, v, now)
            .await
            .expect("doc");
        ids.push(doc.id.to_string());
    }
    let unknown_id = specpress_domain::model::DocId::new().to_string();
    let library = Library::new(store.clone(), Budgets::default());
    let compare = |phase: &'static str| {
        let library = &library;
        let requests = requests.clone();
        async move {
            let mut seen = Vec::new();
            for key in ["no-such-doc", "alone", "in-open", "in-closed"] {
                requests.take();
                let answer = library.find_doc(&Reader::Anonymous, key).await;
                assert!(
                    matches!(answer, Err(ReadError::Missing(Missing::Documentation))),
                    "{phase}, {key}: {answer:?}"
                );
                seen.push((key, requests.take()));
            }
            let (first, want) = &seen[0];
            // The public slug, the documentation (or, for a miss, the fallback read), and a hub.
            assert_eq!(want.len(), 3, "{phase}: {want:?}");
            for (key, got) in &seen {
                assert_eq!(got, want, "{phase}: {key} did other work than {first}");
            }
        }
    };
    compare("as on AWS, no default organization").await;
    // By id: an unknown id and the private documentations' ids cost the same requests.
    let mut by_id = Vec::new();
    for key in std::iter::once(unknown_id.as_str()).chain(ids[..3].iter().map(String::as_str)) {
        requests.take();
        let answer = library.find_doc(&Reader::Anonymous, key).await;
        assert!(
            matches!(answer, Err(ReadError::Missing(Missing::Documentation))),
            "{key}: {answer:?}"
        );
        by_id.push((key, requests.take()));
    }
    let (_, want) = &by_id[0];
    // The id pointer, the documentation (or, for a miss, the same read of an id naming none), and a hub.
    assert_eq!(want.len(), 3, "by id: {want:?}");
    for (key, got) in &by_id {
        assert_eq!(got, want, "by id: {key} did other work than an unknown id");
    }
    // The local server has a default organization, which slug lookups fall back to.
    manage::bootstrap_default_org(store.as_ref(), "Local", None, now)
        .await
        .expect("default organization");
    let _ = library.find_doc(&Reader::Anonymous, "warm-up").await;
    compare("as in specpress serve, with a default organization").await;
    // A public documentation outside any hub is shown without the hub read: nothing to hide.
    requests.take();
    assert!(library.find_doc(&Reader::Anonymous, "shown").await.is_ok());
    assert_eq!(requests.take().len(), 2);
}

//! Histories read what each release changed from the stored release digests: a process that never saw the
//! documentation (a fresh Lambda) walks a history without loading a single definition, so without diffing.

mod common;

use std::sync::Arc;

use specpress_domain::model::Bundle;
use specpress_domain::ports::NoPublisher;
use specpress_domain::usecases::deploy::{DeployInput, DeployOutcome, deploy};
use specpress_domain::usecases::public::Reader;
use specpress_engines::engine::Engines;
use specpress_reader::{Budgets, Library};

fn fixture(name: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    std::fs::read_to_string(dir.join(name)).expect("fixture")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_process_reads_a_history_from_stored_digests_without_diffing() {
    let world = common::World::start().await;
    let (requests, store, p, now) = (
        world.requests.clone(),
        world.store.clone(),
        world.p.clone(),
        world.now,
    );
    // Three releases: GET /pets changes in the second (a parameter becomes required) and back in the third.
    for file in ["petstore.yaml", "petstore-v2.yaml", "petstore.yaml"] {
        let input = DeployInput {
            documentation: "pets".into(),
            auto_create: true,
            bundle: Bundle {
                definition: fixture(file),
                references: vec![],
            },
            ..Default::default()
        };
        let outcome = deploy(
            store.as_ref(),
            &NoPublisher,
            &Engines::default(),
            &p,
            input,
            now,
        )
        .await
        .expect("deployed");
        assert!(matches!(outcome, DeployOutcome::Created { .. }));
    }
    let reader = Reader::Member(p.clone());

    // The first process diffs each release once and stores its digest.
    let first = Library::new(store.clone(), Budgets::default());
    let doc = first.find_doc(&reader, "pets").await.expect("doc");
    let view = first.open(doc.clone(), None).await.expect("view");
    let h = first
        .subject_history(&view, "get /pets", 0)
        .await
        .expect("history");
    let statuses: Vec<(&str, bool)> = h
        .touches
        .iter()
        .map(|t| (t.item.status.as_str(), t.item.breaking))
        .collect();
    assert_eq!(statuses, [("modified", false), ("modified", true)]);
    assert_eq!((h.scanned, h.next), (3, None));
    assert_eq!(h.first.as_ref().and_then(|v| v.seq), Some(1));
    let diffing = requests.take();
    assert_eq!(
        diffing.iter().filter(|r| *r == "PutItem").count(),
        3,
        "one digest stored per release: {diffing:?}"
    );

    // A fresh process (empty caches) reads the same history from the digests: no definition loaded.
    let fresh = Library::new(store.clone(), Budgets::default());
    let view = fresh.open(doc, None).await.expect("view");
    requests.take();
    let again = fresh
        .subject_history(&view, "GET /pets", 0)
        .await
        .expect("history");
    let reading = requests.take();
    assert_eq!(again.touches.len(), 2);
    assert_eq!(
        fresh.site_cache().usage().0,
        0,
        "no definition was loaded, so nothing was diffed"
    );
    assert_eq!(
        reading.iter().filter(|r| *r == "BatchGetItem").count(),
        1,
        "{reading:?}"
    );
    assert!(
        reading.len() <= 3 && !reading.iter().any(|r| r == "PutItem"),
        "a history read is a range read and one batch read: {reading:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_branchs_history_index_is_read_once_per_head_and_answers_every_page_from_memory() {
    let world = common::World::start().await;
    let (requests, store, p, now) = (
        world.requests.clone(),
        world.store.clone(),
        world.p.clone(),
        world.now,
    );
    for file in ["petstore.yaml", "petstore-v2.yaml", "petstore.yaml"] {
        let input = DeployInput {
            documentation: "pets".into(),
            auto_create: true,
            bundle: Bundle {
                definition: fixture(file),
                references: vec![],
            },
            ..Default::default()
        };
        deploy(
            store.as_ref(),
            &NoPublisher,
            &Engines::default(),
            &p,
            input,
            now,
        )
        .await
        .expect("deployed");
    }
    let reader = Reader::Member(p.clone());
    // A first process shows the releases (diffing each once, storing its digest).
    let first = Library::new(store.clone(), Budgets::default());
    let doc = first.find_doc(&reader, "pets").await.expect("doc");
    let view = first.open(doc.clone(), None).await.expect("view");
    let head = first.head_version(&view).await.expect("head");
    let index = first.branch_history(&view, &head).await.expect("index");
    assert!(index.complete && index.reached_first);
    assert_eq!(index.releases.len(), 3);

    // A fresh process builds the index from the digests: a range read and one batch read, no definition loaded.
    let fresh = Library::new(store.clone(), Budgets::default());
    let view = fresh.open(doc, None).await.expect("view");
    requests.take();
    let index = fresh.branch_history(&view, &head).await.expect("index");
    let reading = requests.take();
    assert_eq!(fresh.site_cache().usage().0, 0, "nothing diffed");
    assert_eq!(
        reading.iter().filter(|r| *r == "BatchGetItem").count(),
        1,
        "{reading:?}"
    );
    assert!(reading.len() <= 3, "{reading:?}");

    // Every page of that head is answered from memory: no request at all.
    let again = fresh.branch_history(&view, &head).await.expect("index");
    assert!(Arc::ptr_eq(&index, &again));
    assert!(requests.take().is_empty(), "the index is kept per head");

    let marks = |kind, name| -> Vec<(String, bool)> {
        index
            .marks(kind, name)
            .iter()
            .map(|m| (m.status.clone(), m.breaking))
            .collect()
    };
    use specpress_reader::history::SubjectKind::{Channel, Operation, Schema};
    let list = index.marks(Operation, "get /pets/");
    assert_eq!(
        list.iter()
            .map(|m| (m.status.as_str(), m.breaking, m.release))
            .collect::<Vec<_>>(),
        [("modified", false, 0), ("modified", true, 1)],
        "GET /pets, newest first, found in any spelling"
    );
    let one: Vec<(&str, bool)> = index
        .marks(Operation, "GET /pets/{id}")
        .iter()
        .map(|m| (m.status.as_str(), m.breaking))
        .collect();
    assert_eq!(one, [("added", false), ("removed", true)]);
    assert!(!marks(Schema, "Pet").is_empty(), "the schema's changes");
    assert!(
        marks(Channel, "Pet").is_empty() && marks(Schema, "GET /pets").is_empty(),
        "kinds are kept apart"
    );
    assert_eq!(index.first().map(|r| r.api_version.as_str()), Some("1.0.0"));
}

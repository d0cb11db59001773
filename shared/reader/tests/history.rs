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

/// The petstore at release `n` (API version `1.0.{n}`): `GET /pets` has the optional query parameters `q1` to `qn`,
/// so every release after the first changes it (one parameter added, not breaking) and nothing else.
fn pets_release(n: usize) -> String {
    let extra: String = (1..=n)
        .map(|i| {
            format!("        - name: q{i}\n          in: query\n          required: false\n          schema:\n            type: string\n")
        })
        .collect();
    fixture("petstore.yaml")
        .replacen("version: 1.0.0", &format!("version: 1.0.{n}"), 1)
        .replacen(
            "      parameters:\n        - name: limit\n",
            &format!("      parameters:\n{extra}        - name: limit\n"),
            1,
        )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_history_is_paged_from_the_branch_index_without_another_storage_request() {
    use specpress_reader::history::{HISTORY_PAGE_ENTRIES, SubjectKind::Operation};
    let world = common::World::start().await;
    let (requests, store, p, now) = (
        world.requests.clone(),
        world.store.clone(),
        world.p.clone(),
        world.now,
    );
    // 56 releases: GET /pets is in the first and changed by each of the 55 others.
    for n in 0..=55 {
        let input = DeployInput {
            documentation: "pets".into(),
            auto_create: true,
            bundle: Bundle {
                definition: pets_release(n),
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
        assert!(
            matches!(outcome, DeployOutcome::Created { .. }),
            "release {n}"
        );
    }
    let reader = Reader::Member(p.clone());
    // A first process digests the releases (an index left incomplete by the diffing budget is built again).
    let first = Library::new(store.clone(), Budgets::default());
    let doc = first.find_doc(&reader, "pets").await.expect("doc");
    let view = first.open(doc.clone(), None).await.expect("view");
    let head = first.head_version(&view).await.expect("head");
    let mut built = first.branch_history(&view, &head).await.expect("index");
    for _ in 0..20 {
        if built.complete {
            break;
        }
        built = first.branch_history(&view, &head).await.expect("index");
    }
    assert!(built.complete && built.reached_first);

    // A fresh process builds the index from the stored digests: one range read, one batch read, nothing diffed.
    let fresh = Library::new(store.clone(), Budgets::default());
    let view = fresh.open(doc, None).await.expect("view");
    requests.take();
    let index = fresh.branch_history(&view, &head).await.expect("index");
    let reading = requests.take();
    assert_eq!(index.releases.len(), 56);
    assert_eq!(fresh.site_cache().usage().0, 0, "nothing diffed");
    assert_eq!(
        reading.iter().filter(|r| *r == "BatchGetItem").count(),
        1,
        "{reading:?}"
    );
    assert!(reading.len() <= 3, "{reading:?}");

    // Both pages of GET /pets, newest first: 50 changes, then the 5 oldest.
    assert_eq!(HISTORY_PAGE_ENTRIES, 50);
    let one = index.marks_page(Operation, "GET /pets", 1).expect("page 1");
    assert_eq!((one.page, one.pages, one.total), (1, 2, 55));
    assert_eq!(
        one.marks.iter().map(|m| m.release).collect::<Vec<_>>(),
        (0..50).collect::<Vec<u32>>()
    );
    assert!(
        one.marks
            .iter()
            .all(|m| m.status == "modified" && !m.breaking)
    );
    let two = index.marks_page(Operation, "get /pets", 2).expect("page 2");
    assert_eq!((two.page, two.pages, two.total), (2, 2, 55));
    assert_eq!(
        two.marks.iter().map(|m| m.release).collect::<Vec<_>>(),
        (50..55).collect::<Vec<u32>>(),
        "the oldest changes; the first release added nothing"
    );
    let oldest = index
        .releases
        .get(two.marks[4].release as usize)
        .expect("release");
    assert_eq!(oldest.api_version, "1.0.1");
    // Out of range: page 0 and past the last; a subject no release touched has one empty page.
    assert!(index.marks_page(Operation, "GET /pets", 0).is_none());
    assert!(index.marks_page(Operation, "GET /pets", 3).is_none());
    let untouched = index
        .marks_page(Operation, "GET /pets/{id}", 1)
        .expect("one page");
    assert_eq!((untouched.marks.len(), untouched.pages), (0, 1));
    assert!(index.marks_page(Operation, "GET /pets/{id}", 2).is_none());

    // Every page, and the index asked again for the same head, cost no storage request at all.
    let again = fresh.branch_history(&view, &head).await.expect("index");
    assert!(Arc::ptr_eq(&index, &again));
    assert!(
        requests.take().is_empty(),
        "paging is a slice of the kept index"
    );
}

//! The webhook payload of a release that removes a beta operation (`x-beta: true`) says non-breaking: the real
//! event path (`DeliveryService::event_payload`, the diff of the two stored versions by the spec engine) over the
//! embedded engine, as `specpress serve` runs it. The same removal of an operation that is not beta says breaking.
//!
//! The payload is built in `shared/domain` (`usecases/delivery/payload.rs`), which has no test dependencies on a
//! store or the spec engine; this crate links both, as the server does.

use serde_json::Value;
use specpress_domain::model::{Bundle, EVENT_DOCUMENTATION_PUBLISHED, Event, EventId, Slug};
use specpress_domain::ports::NoPublisher;
use specpress_domain::token::{Principal, Scope};
use specpress_domain::usecases::deploy::{DeployInput, DeployOutcome, deploy};
use specpress_domain::usecases::manage::{Bootstrap, bootstrap_default_org};
use specpress_engines::Engines;
use specpress_local_server::backend::{Backend, BackendOptions};
use specpress_local_server::webhooks::LocalWebhooks;
use time::OffsetDateTime;

/// `GET /pets` (with `attrs` spliced into the operation) and `GET /stable`, or only `GET /stable`.
fn definition(pets: Option<&str>) -> String {
    let pets = pets.map_or(String::new(), |attrs| {
        format!(
            "  /pets:\n    get:\n      {attrs}\n      responses: {{'200': {{description: ok}}}}\n"
        )
    });
    format!(
        "openapi: 3.1.0\ninfo: {{title: Pets, version: '1'}}\npaths:\n{pets}  /stable:\n    get:\n      responses: {{'200': {{description: ok}}}}\n"
    )
}

/// The payload of the webhook event of a release that removes `GET /pets` (marked with `attrs` before).
async fn payload_of_removing(attrs: &str) -> Value {
    let dir = tempfile::tempdir().expect("temp dir");
    let backend = Backend::connect(&BackendOptions {
        data_dir: dir.path().to_path_buf(),
        table: None,
        create_table: false,
    })
    .await
    .expect("embedded engine");
    let now = OffsetDateTime::now_utc();
    let org = match bootstrap_default_org(backend.store.as_ref(), "Local", None, now)
        .await
        .expect("bootstrap")
    {
        Bootstrap::Minted(org, _) => org.id,
        other => panic!("a fresh store mints: {other:?}"),
    };
    let principal = Principal {
        org_id: org,
        scope: Scope::Org,
    };
    let mut released = Vec::new();
    for text in [definition(Some(attrs)), definition(None)] {
        let input = DeployInput {
            documentation: "pets".into(),
            auto_create: true,
            bundle: Bundle {
                definition: text,
                references: vec![],
            },
            ..DeployInput::default()
        };
        match deploy(
            backend.store.as_ref(),
            &NoPublisher,
            &Engines::default(),
            &principal,
            input,
            now,
        )
        .await
        .expect("deployed")
        {
            DeployOutcome::Created { version, doc } => released.push((version, doc)),
            DeployOutcome::Unchanged { .. } => panic!("each release changes the document"),
        }
    }
    let (version, doc) = released.pop().expect("the second release");
    let hooks = LocalWebhooks::start(&backend.store, "http://docs.test", dir.path())
        .await
        .expect("the event path");
    let event = Event {
        id: EventId::new(),
        kind: EVENT_DOCUMENTATION_PUBLISHED.to_owned(),
        org_id: org,
        doc_id: doc.id,
        branch: Slug::parse("main").expect("slug"),
        version_id: version.id,
        previous_version_id: version.previous_version_id,
        created_at: now,
    };
    assert!(event.previous_version_id.is_some(), "a second release");
    let text = hooks.service.event_payload(&event).await.expect("payload");
    hooks.stop().await;
    backend.close().await;
    serde_json::from_str(&text).expect("a payload is JSON")
}

/// The payload's top-level diff item about `GET /pets`.
fn pets_item(payload: &Value) -> &Value {
    payload["diff"]["details"]
        .as_array()
        .expect("details")
        .iter()
        .find(|i| i["name"] == "GET /pets")
        .unwrap_or_else(|| panic!("GET /pets is in the details: {payload:#}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_webhook_payload_of_removing_a_beta_operation_says_non_breaking() {
    // GIVEN a release whose GET /pets is beta, WHEN the next release removes it
    let payload = payload_of_removing("x-beta: true").await;
    // THEN the payload's diff is not breaking, and neither is the removal it lists, which it does list
    assert_eq!(
        payload["diff"]["breaking"],
        Value::Bool(false),
        "{payload:#}"
    );
    assert_eq!(
        payload["diff"]["details_summary"]["breaking_items"], 0,
        "{payload:#}"
    );
    let item = pets_item(&payload);
    assert_eq!(item["status"], "removed", "{item:#}");
    assert_eq!(item["breaking"], Value::Bool(false), "{item:#}");
    assert!(
        !payload.to_string().contains("\"breaking\":true"),
        "nothing in the payload says breaking: {payload:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_webhook_payload_of_removing_an_operation_that_is_not_beta_says_breaking() {
    let payload = payload_of_removing("summary: List pets").await;
    assert_eq!(
        payload["diff"]["breaking"],
        Value::Bool(true),
        "{payload:#}"
    );
    assert_eq!(pets_item(&payload)["breaking"], Value::Bool(true));
}

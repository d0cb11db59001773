//! The event path end to end over the embedded engine and the persistent in-process queue, with a real subscriber
//! verifying every delivery (official Standard Webhooks library + independent X-Bump-Signature-256 check).

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use common::*;
use serde_json::json;
use specpress_domain::ports::{MessageQueue, ReceivedMessage};
use specpress_domain::usecases::webhooks as uc;
use specpress_domain::webhooks::{DeliveryStatus, QueueBody};
use specpress_domain::{DomainError, Result};
use specpress_webhook::RetryPolicy;
use specpress_workers::{BatchOptions, process_batch};

const WAIT: Duration = Duration::from_secs(20);

fn fast(scale: f64) -> RetryPolicy {
    RetryPolicy::default().with_scale(scale)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn first_version_and_content_only_change_are_delivered_signed_with_the_bump_shape() {
    let mut w = World::new(fast(0.001), None, None).await;
    w.start_consumer();
    let doc = w.doc("pets").await;
    w.subscribe_scripted(&doc, "/a", json!([])).await;
    let v1 = w
        .deploy(&doc, openapi("Pets", "one", &["/pets"]), None)
        .await;
    let v2 = w
        .deploy(&doc, openapi("Pets", "two", &["/pets"]), None)
        .await;
    let v3 = w
        .deploy(&doc, openapi("Pets", "two", &["/pets", "/owners"]), None)
        .await;
    let got = w.receiver.wait_for("/a", 3, WAIT).await;
    assert_eq!(
        got.len(),
        3,
        "three published versions, three deliveries: {got:?}"
    );
    assert_all_verified(&got);
    let by_version = |id: String| {
        got.iter()
            .find(|r| r.body["version"]["id"] == json!(id))
            .expect("delivery")
            .clone()
    };
    let (d1, d2, d3) = (
        by_version(v1.id.to_string()),
        by_version(v2.id.to_string()),
        by_version(v3.id.to_string()),
    );
    for d in [&d1, &d2, &d3] {
        assert_eq!(d.body["event"], "documentation.published");
        assert_eq!(d.body["documentation"]["slug"], "pets");
        assert_eq!(d.body["branch"], "main");
        assert!(
            d.body["api"].is_object() && d.body["diff"].is_object(),
            "Bump.sh {{api, diff}} kept"
        );
        assert_eq!(
            d.webhook_id,
            format!(
                "msg_{}",
                d.body["id"].as_str().expect("id").replace('-', "")
            )
        );
    }
    assert_eq!(d1.body["structural"], true, "a first version is structural");
    assert_eq!(
        d2.body["structural"], false,
        "a description-only change is not structural"
    );
    assert_eq!(d3.body["structural"], true, "a new path is structural");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn failing_three_times_then_succeeding_takes_four_attempts_with_one_id_and_fresh_timestamps()
{
    // Scale 0.002: the 5 s, 5 min, 30 min delays become 10 ms, 0.6 s and 3.6 s (±20%).
    let mut w = World::new(fast(0.002), None, None).await;
    w.start_consumer();
    let doc = w.doc("retry").await;
    let (sub, _) = w
        .subscribe_scripted(
            &doc,
            "/r",
            json!([[500, {}], [500, {}], [500, {}], [200, {}]]),
        )
        .await;
    w.deploy(&doc, openapi("R", "d", &["/x"]), None).await;
    let got = w.receiver.wait_for("/r", 4, WAIT).await;
    assert_eq!(got.len(), 4, "{got:?}");
    assert_all_verified(&got);
    assert!(
        got.iter().all(|r| r.webhook_id == got[0].webhook_id),
        "one webhook-id across retries"
    );
    assert_eq!(
        got.iter().map(|r| r.answered).collect::<Vec<_>>(),
        vec![500, 500, 500, 200]
    );
    for r in &got {
        assert!(
            (r.timestamp as f64 - r.received_at).abs() <= 1.5,
            "timestamp is the attempt's own: {r:?}"
        );
    }
    assert!(
        got[3].timestamp > got[0].timestamp,
        "timestamps are fresh per attempt"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let log = uc::deliveries(&w.service, &w.principal, "retry", &sub.id.to_string())
        .await
        .expect("log");
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].status, DeliveryStatus::Delivered);
    let codes: Vec<_> = log[0].attempts.iter().map(|a| a.status_code).collect();
    assert_eq!(codes, vec![Some(500), Some(500), Some(500), Some(200)]);
    assert_eq!(
        w.receiver.at("/r").await.len(),
        4,
        "no attempt after the success"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn gone_410_disables_the_subscription_at_once_and_nothing_more_is_sent() {
    let mut w = World::new(fast(0.001), None, None).await;
    w.start_consumer();
    let doc = w.doc("gone").await;
    let (sub, _) = w
        .subscribe_scripted(&doc, "/g", json!([[410, {}], [200, {}], [200, {}]]))
        .await;
    w.deploy(&doc, openapi("G", "1", &["/x"]), None).await;
    assert_eq!(w.receiver.wait_for("/g", 1, WAIT).await.len(), 1);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let s = uc::get(&w.service, &w.principal, "gone", &sub.id.to_string())
        .await
        .expect("sub");
    assert!(!s.enabled, "disabled after 410");
    assert!(
        s.disabled_reason
            .as_deref()
            .is_some_and(|r| r.contains("410"))
    );
    w.deploy(&doc, openapi("G", "2", &["/x"]), None).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(
        w.receiver.at("/g").await.len(),
        1,
        "no retry and no new delivery to a disabled endpoint"
    );
    let log = uc::deliveries(&w.service, &w.principal, "gone", &sub.id.to_string())
        .await
        .expect("log");
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].status, DeliveryStatus::Failed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn too_many_requests_with_retry_after_defers_the_next_attempt() {
    // Scale 0.002: the schedule's 5 s becomes 10 ms, while Retry-After: 1000 becomes 2 s.
    let mut w = World::new(fast(0.002), None, None).await;
    w.start_consumer();
    let doc = w.doc("throttled").await;
    w.subscribe_scripted(
        &doc,
        "/t",
        json!([[429, {"Retry-After": "1000"}], [200, {}]]),
    )
    .await;
    w.deploy(&doc, openapi("T", "1", &["/x"]), None).await;
    let got = w.receiver.wait_for("/t", 2, WAIT).await;
    assert_eq!(got.len(), 2, "{got:?}");
    assert_all_verified(&got);
    let gap = got[1].received_at - got[0].received_at;
    assert!(
        gap >= 1.9,
        "Retry-After honoured (scaled to 2 s), got {gap:.3} s"
    );
}

/// A queue whose sends always fail: SQS down right after the deploy transaction committed.
struct DownQueue;

#[async_trait]
impl MessageQueue for DownQueue {
    async fn send(&self, _: &str, _: Duration) -> Result<()> {
        Err(DomainError::unexpected("injected: SendMessage failed"))
    }
    async fn receive(&self, _: u32, _: Duration) -> Result<Vec<ReceivedMessage>> {
        Ok(vec![])
    }
    async fn delete(&self, _: &str) -> Result<()> {
        Ok(())
    }
    async fn change_visibility(&self, _: &str, _: Duration) -> Result<()> {
        Ok(())
    }
    async fn send_to_dead_letter(&self, _: &str) -> Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn queue_send_failing_after_commit_is_delivered_by_the_sweeper() {
    let mut w = World::new(fast(0.001), None, Some(Arc::new(DownQueue))).await;
    w.start_consumer();
    let doc = w.doc("swept").await;
    w.subscribe_scripted(&doc, "/s", json!([])).await;
    let v = w.deploy(&doc, openapi("S", "1", &["/x"]), None).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        w.receiver.at("/s").await.is_empty(),
        "the inline send failed, nothing delivered yet"
    );
    let pending = w.store.pending_events(10).await.expect("outbox");
    assert_eq!(pending.len(), 1, "the event is still in the outbox");
    assert_eq!(
        w.service.sweep(Duration::ZERO, 100).await.expect("sweep"),
        1
    );
    let got = w.receiver.wait_for("/s", 1, WAIT).await;
    assert_eq!(got.len(), 1);
    assert_all_verified(&got);
    assert_eq!(got[0].body["version"]["id"], json!(v.id.to_string()));
    assert!(
        w.store.pending_events(10).await.expect("outbox").is_empty(),
        "marked enqueued"
    );
    assert_eq!(
        w.service.sweep(Duration::ZERO, 100).await.expect("sweep"),
        0
    );
}

use specpress_domain::ports::EventStore as _;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn deadline_hit_mid_batch_hands_back_unstarted_messages_and_never_resends_finished_ones() {
    let w = World::new(fast(0.001), None, None).await;
    let doc = w.doc("deadline").await;
    let (_, secret) = w.subscribe(&doc, "/d", None).await;
    w.receiver.configure("/d", &[&secret], json!([]), 300).await;
    for i in 0..6 {
        w.deploy(&doc, openapi("D", &format!("v{i}"), &["/x"]), None)
            .await;
    }
    // Fan the six events out (no POST yet).
    let events = w
        .queue
        .receive(10, Duration::from_secs(1))
        .await
        .expect("receive");
    assert_eq!(events.len(), 6);
    let options = BatchOptions {
        concurrency: 1,
        per_message_budget: Duration::from_millis(200),
        delete_done: true,
        ..BatchOptions::default()
    };
    let far = Instant::now() + Duration::from_secs(60);
    let r = process_batch(&w.service, &w.queue, events, far, &options).await;
    assert_eq!(r.done.len(), 6);
    let deliveries = w
        .queue
        .receive(10, Duration::from_secs(1))
        .await
        .expect("receive");
    assert_eq!(deliveries.len(), 6);
    // Each POST takes 300 ms; with 200 ms budget and a 1 s deadline only the first few may start.
    let r = process_batch(
        &w.service,
        &w.queue,
        deliveries,
        Instant::now() + Duration::from_secs(1),
        &options,
    )
    .await;
    assert!(!r.handed_back.is_empty() && !r.done.is_empty(), "{r:?}");
    assert_eq!(r.done.len() + r.handed_back.len(), 6);
    assert_eq!(
        w.receiver.at("/d").await.len(),
        r.done.len(),
        "handed-back messages were not started"
    );
    // Every message of the batch comes back (finished ones too, as after a Lambda timeout): none is re-POSTed.
    let again = w
        .queue
        .receive(10, Duration::from_secs(1))
        .await
        .expect("receive");
    assert_eq!(
        again.len(),
        r.handed_back.len(),
        "handed-back messages are visible again at once"
    );
    let r2 = process_batch(
        &w.service,
        &w.queue,
        again,
        Instant::now() + Duration::from_secs(60),
        &options,
    )
    .await;
    assert_eq!(r2.done.len(), r.handed_back.len());
    let got = w.receiver.at("/d").await;
    assert_eq!(got.len(), 6, "every delivery POSTed exactly once");
    let mut ids: Vec<_> = got.iter().map(|g| g.webhook_id.clone()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 6);
    assert_all_verified(&got);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn a_redelivered_message_never_reposts_a_delivered_delivery() {
    let w = World::new(fast(0.001), None, None).await;
    let doc = w.doc("dup").await;
    let (sub, _) = w.subscribe_scripted(&doc, "/u", json!([])).await;
    w.deploy(&doc, openapi("U", "1", &["/x"]), None).await;
    let events = w
        .queue
        .receive(10, Duration::from_secs(1))
        .await
        .expect("receive");
    let event_body = events[0].body.clone();
    // The same event message twice (SQS at-least-once): one delivery.
    assert_eq!(
        w.service.handle(&event_body).await,
        specpress_domain::usecases::delivery::Disposition::Done
    );
    assert_eq!(
        w.service.handle(&event_body).await,
        specpress_domain::usecases::delivery::Disposition::Done
    );
    let log = uc::deliveries(&w.service, &w.principal, "dup", &sub.id.to_string())
        .await
        .expect("log");
    assert_eq!(log.len(), 1);
    let body = QueueBody::Delivery {
        delivery_id: log[0].id,
    }
    .to_json();
    for _ in 0..3 {
        assert_eq!(
            w.service.handle(&body).await,
            specpress_domain::usecases::delivery::Disposition::Done
        );
    }
    assert_eq!(
        w.receiver.at("/u").await.len(),
        1,
        "delivered once despite three copies of the message"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn poison_message_goes_to_the_dead_letter_queue_and_the_rest_of_the_batch_succeeds() {
    let w = World::new(fast(0.001), None, None).await;
    let doc = w.doc("poison").await;
    w.subscribe_scripted(&doc, "/p", json!([])).await;
    w.deploy(&doc, openapi("P", "1", &["/x"]), None).await;
    w.queue
        .send("{not json", Duration::ZERO)
        .await
        .expect("send poison");
    w.queue
        .send(r#"{"type":"event","event_id":"nope"}"#, Duration::ZERO)
        .await
        .expect("send poison");
    let options = BatchOptions {
        concurrency: 4,
        per_message_budget: Duration::from_secs(5),
        delete_done: true,
        ..BatchOptions::default()
    };
    let batch = w
        .queue
        .receive(10, Duration::from_secs(1))
        .await
        .expect("receive");
    assert_eq!(batch.len(), 3);
    let r = process_batch(
        &w.service,
        &w.queue,
        batch.clone(),
        Instant::now() + Duration::from_secs(60),
        &options,
    )
    .await;
    assert_eq!((r.done.len(), r.failed.len()), (1, 2), "{r:?}");
    for m in batch.iter().filter(|m| r.failed.contains(&m.message_id)) {
        w.queue
            .change_visibility(&m.receipt, Duration::ZERO)
            .await
            .expect("visible");
    }
    // Drain with a consumer whose redrive policy allows 3 receives (one queue value: its clones share the
    // in-memory leases and receive counts): the delivery goes out; the poison messages are received until
    // maxReceiveCount, then dead-lettered.
    let local = specpress_local::LocalQueue::new(
        w.store.client().clone(),
        w.store.table(),
        "webhooks",
        Duration::from_secs(30),
        3,
    );
    let consumer: Arc<dyn MessageQueue> = Arc::new(local.clone());
    for _ in 0..6 {
        let batch = consumer
            .receive(10, Duration::from_millis(100))
            .await
            .expect("receive");
        let r = process_batch(
            &w.service,
            &consumer,
            batch.clone(),
            Instant::now() + Duration::from_secs(60),
            &options,
        )
        .await;
        // Failed messages become visible again at once (the visibility timeout, compressed).
        for m in batch.iter().filter(|m| r.failed.contains(&m.message_id)) {
            consumer
                .change_visibility(&m.receipt, Duration::ZERO)
                .await
                .expect("visible");
        }
    }
    let dead = local.dead_letters().await.expect("dlq");
    assert_eq!(dead.len(), 2, "{dead:?}");
    assert!(dead.iter().any(|b| b == "{not json"));
    assert_eq!(local.depth().await.expect("depth"), 0);
    let got = w.receiver.at("/p").await;
    assert_eq!(got.len(), 1);
    assert_all_verified(&got);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn after_secret_rotation_both_secrets_verify_during_the_overlap() {
    let mut w = World::new(fast(0.001), None, None).await;
    w.start_consumer();
    let doc = w.doc("rotate").await;
    let (sub, old) = w.subscribe(&doc, "/k", None).await;
    let rotated = uc::rotate_secret(&w.service, &w.principal, "rotate", &sub.id.to_string())
        .await
        .expect("rotate");
    let new = rotated.secret.expect("new secret shown on rotation");
    assert_ne!(new, old);
    w.receiver
        .configure("/k", &[&old, &new], json!([]), 0)
        .await;
    w.deploy(&doc, openapi("K", "1", &["/x"]), None).await;
    let got = w.receiver.wait_for("/k", 1, WAIT).await;
    assert_eq!(got.len(), 1);
    assert_eq!(
        got[0].std_ok,
        vec![0, 1],
        "the Standard signature list verifies with the old AND the new secret"
    );
    assert_eq!(
        got[0].bump_ok,
        vec![1],
        "X-Bump-Signature-256 uses the newest secret"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn an_exhausted_schedule_marks_the_delivery_failed_and_dead_letters_its_message() {
    let policy = RetryPolicy::new(vec![Duration::from_millis(20), Duration::from_millis(20)])
        .with_jitter(0.0);
    let mut w = World::new(policy, None, None).await;
    w.start_consumer();
    let doc = w.doc("exhaust").await;
    let (sub, _) = w
        .subscribe_scripted(
            &doc,
            "/x",
            json!([[500, {}], [502, {}], [503, {}], [200, {}]]),
        )
        .await;
    w.deploy(&doc, openapi("X", "1", &["/x"]), None).await;
    assert_eq!(w.receiver.wait_for("/x", 3, WAIT).await.len(), 3);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        w.receiver.at("/x").await.len(),
        3,
        "three attempts, then no more"
    );
    let log = uc::deliveries(&w.service, &w.principal, "exhaust", &sub.id.to_string())
        .await
        .expect("log");
    assert_eq!(log[0].status, DeliveryStatus::Failed);
    let local = specpress_local::LocalQueue::new(
        w.store.client().clone(),
        w.store.table(),
        "webhooks",
        Duration::from_secs(30),
        3,
    );
    assert_eq!(local.dead_letters().await.expect("dlq").len(), 1);
    // A manual redelivery starts a new series with the same webhook-id.
    let d = uc::redeliver(
        &w.service,
        &w.principal,
        "exhaust",
        &sub.id.to_string(),
        &log[0].id.to_string(),
    )
    .await
    .expect("redeliver");
    assert_eq!(d.status, DeliveryStatus::Pending);
    let got = w.receiver.wait_for("/x", 4, WAIT).await;
    assert_eq!(got.len(), 4);
    assert!(got.iter().all(|g| g.webhook_id == got[0].webhook_id));
    assert_all_verified(&got);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn branch_filters_and_disabled_subscriptions_receive_nothing() {
    let mut w = World::new(fast(0.001), None, None).await;
    w.start_consumer();
    let doc = w.doc("filters").await;
    let (_, s_all) = w.subscribe(&doc, "/all", None).await;
    let (_, s_dev) = w.subscribe(&doc, "/dev", Some(vec!["Dev".into()])).await;
    let (off, s_off) = w.subscribe(&doc, "/off", None).await;
    let upd = uc::UpdateSubscription {
        enabled: Some(false),
        ..Default::default()
    };
    uc::update(
        &w.service,
        &w.principal,
        "filters",
        &off.id.to_string(),
        upd,
    )
    .await
    .expect("disable");
    for (p, s) in [("/all", &s_all), ("/dev", &s_dev), ("/off", &s_off)] {
        w.receiver.configure(p, &[s], json!([]), 0).await;
    }
    w.deploy(&doc, openapi("F", "1", &["/x"]), None).await;
    w.deploy(&doc, openapi("F", "2", &["/x"]), Some("dev"))
        .await;
    assert_eq!(w.receiver.wait_for("/all", 2, WAIT).await.len(), 2);
    let dev = w.receiver.wait_for("/dev", 1, WAIT).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(dev.len(), 1);
    assert_eq!(dev[0].body["branch"], "dev");
    assert!(w.receiver.at("/off").await.is_empty());
}

/// The event message of the one version deployed to `doc` (received from the queue and parsed).
async fn event_message(
    w: &World,
) -> (
    specpress_domain::model::EventId,
    Option<specpress_domain::model::DocId>,
) {
    let got = w
        .queue
        .receive(10, Duration::from_secs(1))
        .await
        .expect("receive");
    assert_eq!(got.len(), 1, "one event message: {got:?}");
    match QueueBody::parse(&got[0].body) {
        Some(QueueBody::Event { event_id, doc_id }) => (event_id, doc_id),
        other => panic!("an event message: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn an_event_message_without_its_documentation_id_is_still_fanned_out() {
    let w = World::new(fast(0.001), None, None).await;
    let doc = w.doc("legacy").await;
    let (sub, _) = w.subscribe_scripted(&doc, "/l", json!([])).await;
    w.deploy(&doc, openapi("L", "1", &["/x"]), None).await;
    let (event_id, doc_id) = event_message(&w).await;
    assert_eq!(doc_id, Some(doc.id), "new messages name the documentation");
    // A message written before the field existed: the event read supplies the documentation.
    let legacy = json!({"type": "event", "event_id": event_id}).to_string();
    assert_eq!(
        w.service.handle(&legacy).await,
        specpress_domain::usecases::delivery::Disposition::Done
    );
    let log = uc::deliveries(&w.service, &w.principal, "legacy", &sub.id.to_string())
        .await
        .expect("log");
    assert_eq!(log.len(), 1, "one delivery from the message without doc_id");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn an_event_message_naming_a_documentation_without_enabled_subscriptions_is_done_without_reading_the_event()
 {
    let w = World::new(fast(0.001), None, None).await;
    let watched = w.doc("watched").await;
    let quiet = w.doc("quiet").await;
    let (sub, _) = w.subscribe_scripted(&watched, "/w", json!([])).await;
    w.deploy(&watched, openapi("W", "1", &["/x"]), None).await;
    let (event_id, _) = event_message(&w).await;
    let log = || async {
        uc::deliveries(&w.service, &w.principal, "watched", &sub.id.to_string())
            .await
            .expect("log")
            .len()
    };
    // The event belongs to `watched`, which has a subscriber; a message naming `quiet` (no subscription) is
    // finished after listing quiet's subscriptions: had the event been read, watched's subscriber would get it.
    let naming_quiet =
        json!({"type": "event", "event_id": event_id, "doc_id": quiet.id}).to_string();
    assert_eq!(
        w.service.handle(&naming_quiet).await,
        specpress_domain::usecases::delivery::Disposition::Done
    );
    assert_eq!(log().await, 0, "the event was not read");
    // A named documentation that has subscriptions but is not the event's: the event is the authority.
    let other = w.doc("other").await;
    let (other_sub, _) = w.subscribe_scripted(&other, "/o", json!([])).await;
    let naming_other =
        json!({"type": "event", "event_id": event_id, "doc_id": other.id}).to_string();
    assert_eq!(
        w.service.handle(&naming_other).await,
        specpress_domain::usecases::delivery::Disposition::Done
    );
    assert_eq!(log().await, 1, "delivered to the event's own subscriber");
    let others = uc::deliveries(&w.service, &w.principal, "other", &other_sub.id.to_string())
        .await
        .expect("log");
    assert!(
        others.is_empty(),
        "nothing for the documentation the message named"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn deploys_to_a_documentation_nobody_subscribed_to_queue_nothing_until_its_first_subscription()
 {
    let w = World::new(fast(0.001), None, None).await;
    let doc = w.doc("fresh").await;
    w.deploy(&doc, openapi("F", "1", &["/x"]), None).await;
    let got = w
        .queue
        .receive(10, Duration::from_millis(300))
        .await
        .expect("receive");
    assert!(got.is_empty(), "no subscriber, no message: {got:?}");
    assert!(
        w.store
            .pending_events(100)
            .await
            .expect("outbox")
            .is_empty(),
        "nor anything left for the sweeper"
    );
    // The first subscription: the next deploy is queued and delivered, once.
    let (sub, _) = w.subscribe_scripted(&doc, "/f", json!([])).await;
    let v2 = w.deploy(&doc, openapi("F", "2", &["/x", "/y"]), None).await;
    let got = w
        .queue
        .receive(10, Duration::from_secs(2))
        .await
        .expect("receive");
    assert_eq!(
        got.len(),
        1,
        "one message for the subscribed deploy: {got:?}"
    );
    assert_eq!(
        w.service.handle(&got[0].body).await,
        specpress_domain::usecases::delivery::Disposition::Done
    );
    let log = uc::deliveries(&w.service, &w.principal, "fresh", &sub.id.to_string())
        .await
        .expect("log");
    assert_eq!(log.len(), 1, "one delivery");
    let payload: serde_json::Value = serde_json::from_str(&log[0].payload).expect("payload");
    assert_eq!(payload["version"]["id"], json!(v2.id.to_string()));
}

/// A queue whose batch deletes fail (everything else goes to the inner queue).
struct NoBatchDelete(Arc<dyn MessageQueue>);

#[async_trait]
impl MessageQueue for NoBatchDelete {
    async fn send(&self, body: &str, delay: Duration) -> Result<()> {
        self.0.send(body, delay).await
    }
    async fn receive(&self, max: u32, wait: Duration) -> Result<Vec<ReceivedMessage>> {
        self.0.receive(max, wait).await
    }
    async fn delete(&self, receipt: &str) -> Result<()> {
        self.0.delete(receipt).await
    }
    async fn delete_batch(&self, _: &[String]) -> Result<()> {
        Err(DomainError::unexpected(
            "injected: DeleteMessageBatch failed",
        ))
    }
    async fn change_visibility(&self, receipt: &str, delay: Duration) -> Result<()> {
        self.0.change_visibility(receipt, delay).await
    }
    async fn send_to_dead_letter(&self, receipt: &str) -> Result<()> {
        self.0.send_to_dead_letter(receipt).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn a_failed_batch_delete_brings_the_messages_back_and_nothing_is_posted_twice() {
    let w = World::new(fast(0.001), None, None).await;
    let doc = w.doc("undeleted").await;
    w.subscribe_scripted(&doc, "/u", json!([])).await;
    w.deploy(&doc, openapi("U", "1", &["/x"]), None).await;
    let flaky: Arc<dyn MessageQueue> = Arc::new(NoBatchDelete(w.queue.clone()));
    let service = specpress_domain::usecases::delivery::DeliveryService {
        queue: flaky.clone(),
        ..w.service.clone()
    };
    let options = BatchOptions {
        concurrency: 4,
        per_message_budget: Duration::from_secs(20),
        delete_done: true,
        ..BatchOptions::default()
    };
    let far = Instant::now() + Duration::from_secs(60);
    // Round 1: the event is fanned out, then the batch delete fails.
    let events = w
        .queue
        .receive(10, Duration::from_secs(1))
        .await
        .expect("receive");
    assert_eq!(events.len(), 1);
    let r = process_batch(&service, &flaky, events.clone(), far, &options).await;
    assert_eq!(r.done.len(), 1, "the message was handled: {r:?}");
    // Its visibility timeout runs out (made to at once here): the event message is back, beside the delivery's.
    w.queue
        .change_visibility(&events[0].receipt, Duration::ZERO)
        .await
        .expect("visible again");
    let mut rounds = 0;
    let mut handled = 0;
    loop {
        let batch = w
            .queue
            .receive(10, Duration::from_millis(300))
            .await
            .expect("receive");
        if batch.is_empty() {
            break;
        }
        rounds += 1;
        assert!(rounds <= 5, "the queue drains");
        handled += batch.len();
        process_batch(&w.service, &w.queue, batch, far, &options).await;
    }
    assert!(
        handled >= 2,
        "the undeleted event came back with the delivery"
    );
    assert_eq!(
        w.receiver.at("/u").await.len(),
        1,
        "one POST: the repeated fan-out and its duplicate delivery message post nothing more"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn a_retry_past_the_receive_limit_leaves_one_fresh_copy_and_deletes_the_old_one_with_the_batch()
 {
    let w = World::new(fast(0.001), None, None).await;
    let doc = w.doc("fresh-copy").await;
    w.subscribe_scripted(&doc, "/c", json!([[500, {}]])).await;
    w.deploy(&doc, openapi("C", "1", &["/x"]), None).await;
    let options = BatchOptions {
        concurrency: 4,
        per_message_budget: Duration::from_secs(20),
        delete_done: true,
        // Every retry is re-enqueued as a fresh copy.
        reenqueue_after: 1,
        ..BatchOptions::default()
    };
    let far = Instant::now() + Duration::from_secs(60);
    let events = w
        .queue
        .receive(10, Duration::from_secs(1))
        .await
        .expect("receive");
    process_batch(&w.service, &w.queue, events, far, &options).await;
    let deliveries = w
        .queue
        .receive(10, Duration::from_secs(1))
        .await
        .expect("receive");
    assert_eq!(deliveries.len(), 1, "one delivery message");
    let old = deliveries[0].receipt.clone();
    let r = process_batch(&w.service, &w.queue, deliveries, far, &options).await;
    assert_eq!(r.done.len(), 1, "re-enqueued counts as finished: {r:?}");
    assert_eq!(
        w.receiver.at("/c").await.len(),
        1,
        "the first attempt failed"
    );
    // The old copy is gone (deleted with the batch); the fresh one arrives after the retry delay, received once.
    assert!(
        w.queue
            .change_visibility(&old, Duration::ZERO)
            .await
            .is_err(),
        "the old copy was deleted"
    );
    let again = w
        .queue
        .receive(10, Duration::from_secs(2))
        .await
        .expect("receive");
    assert_eq!(again.len(), 1, "exactly one fresh copy: {again:?}");
    assert_eq!(again[0].receive_count, 1);
    process_batch(&w.service, &w.queue, again, far, &options).await;
    assert_eq!(w.receiver.at("/c").await.len(), 2, "the retry was made");
}

/// Deploys `pair` to a documentation with a subscriber, over the embedded engine and the in-process consumer.
async fn a_large_corpus_diff_is_delivered_bounded(pair: &CorpusPair, path: &str) {
    let mut w = World::build(Setup {
        policy: Some(fast(0.001)),
        max_document_bytes: Some(CORPUS_DOCUMENT_BYTES),
        ..Setup::default()
    })
    .await;
    w.start_consumer();
    let deployed = deploy_pair(&w, pair, path).await;
    w.receiver.wait_for(path, 2, Duration::from_secs(120)).await;
    let (size, summary) = assert_large_diff_delivered(&w, path, &deployed).await;
    eprintln!("{}: payload of {size} bytes, {summary}", pair.slug);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    any(missing_python_tools, missing_corpus),
    ignore = "needs the tools' Python (scripts/install-tools.sh) and the API corpus (SPECPRESS_CORPUS)"
)]
async fn the_stripe_2022_diff_is_delivered_within_the_payload_bound_marked_truncated_and_linked() {
    a_large_corpus_diff_is_delivered_bounded(&STRIPE_2022, "/stripe").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    any(missing_python_tools, missing_corpus),
    ignore = "needs the tools' Python (scripts/install-tools.sh) and the API corpus (SPECPRESS_CORPUS)"
)]
async fn the_github_diff_is_delivered_within_the_payload_bound_marked_truncated_and_linked() {
    a_large_corpus_diff_is_delivered_bounded(&GITHUB, "/github").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    any(missing_python_tools, missing_corpus),
    ignore = "needs the tools' Python (scripts/install-tools.sh) and the API corpus (SPECPRESS_CORPUS)"
)]
async fn the_kubernetes_diff_is_delivered_within_the_payload_bound_marked_truncated_and_linked() {
    a_large_corpus_diff_is_delivered_bounded(&KUBERNETES, "/kubernetes").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    any(missing_python_tools, missing_corpus),
    ignore = "needs the tools' Python (scripts/install-tools.sh) and the API corpus (SPECPRESS_CORPUS)"
)]
async fn the_openai_diff_is_delivered_within_the_payload_bound_marked_truncated_and_linked() {
    a_large_corpus_diff_is_delivered_bounded(&OPENAI, "/openai").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    any(missing_python_tools, missing_corpus),
    ignore = "needs the tools' Python (scripts/install-tools.sh) and the API corpus (SPECPRESS_CORPUS)"
)]
async fn a_corpus_diff_under_the_bound_is_delivered_whole_and_marked_complete() {
    let mut w = World::new(fast(0.001), None, None).await;
    w.start_consumer();
    let deployed = deploy_pair(&w, &STRIPE_2023, "/whole").await;
    let got = w.receiver.wait_for("/whole", 2, WAIT).await;
    assert_eq!(got.len(), 2);
    assert_all_verified(&got);
    let second = got
        .iter()
        .find(|g| g.body["version"]["id"] == json!(deployed.second.id.to_string()))
        .expect("the second version's delivery");
    let diff = &second.body["diff"];
    assert_eq!(diff["details_truncated"], json!(false));
    assert_eq!(diff["details"], deployed.full.details, "the full tree");
    let total = deployed.full.details.as_array().expect("details").len();
    assert_eq!(diff["details_summary"]["total_items"], json!(total));
    assert_eq!(diff["details_summary"]["included_items"], json!(total));
    assert_eq!(
        diff["details_url"],
        json!(format!(
            "{}.json",
            diff["public_url"].as_str().expect("url")
        ))
    );
    assert!(second.size <= PAYLOAD_BOUND);
    eprintln!("stripe 2023: payload of {} bytes", second.size);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn a_delivery_the_store_refuses_to_record_is_dead_lettered_at_once_and_logged_with_its_ids() {
    let logs = capture_logs();
    let oversize = Arc::new(OversizeDeliveries::default());
    let w = World::build(Setup {
        policy: Some(fast(0.001)),
        dynamodb_interceptor: Some(aws_sdk_dynamodb::config::SharedInterceptor::new(
            ArcInterceptor(oversize.clone()),
        )),
        ..Setup::default()
    })
    .await;
    let (service, engine) = counting(&w);
    let doc = w.doc("refused").await;
    let (sub, secret) = w.subscribe_scripted(&doc, "/refused", json!([])).await;
    w.deploy(&doc, openapi("R", "1", &["/x"]), None).await;
    w.deploy(&doc, openapi("R", "1", &["/x", "/y"]), None).await;
    let options = BatchOptions {
        concurrency: 4,
        per_message_budget: Duration::from_secs(20),
        delete_done: true,
        ..BatchOptions::default()
    };
    // GIVEN both event messages, WHEN the consumer handles them and DynamoDB refuses every delivery item
    let events = w
        .queue
        .receive(10, Duration::from_secs(1))
        .await
        .expect("receive");
    assert_eq!(events.len(), 2);
    let bodies: Vec<String> = events.iter().map(|m| m.body.clone()).collect();
    let r = process_batch(
        &service,
        &w.queue,
        events,
        Instant::now() + Duration::from_secs(60),
        &options,
    )
    .await;
    // THEN each message is finished at once: moved to the dead-letter queue, not left to come back
    assert_eq!(r.done.len(), 2, "{r:?}");
    let local = specpress_local::LocalQueue::new(
        w.store.client().clone(),
        w.store.table(),
        "webhooks",
        Duration::from_secs(30),
        20,
    );
    let mut dead = local.dead_letters().await.expect("dead letters");
    dead.sort();
    let mut expected = bodies.clone();
    expected.sort();
    assert_eq!(dead, expected, "both event messages dead-lettered");
    // Nothing is left to come back after a visibility timeout, and nothing was attempted or computed twice.
    assert_eq!(
        local.depth().await.expect("depth"),
        0,
        "no message is left waiting or in flight to come back"
    );
    assert_eq!(
        oversize.refused.load(std::sync::atomic::Ordering::SeqCst),
        2
    );
    assert_eq!(
        engine.diffs.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "the second version's diff, once"
    );
    assert!(w.receiver.at("/refused").await.is_empty());
    // The error names the event, the documentation, the subscription and the delivery, and nothing secret.
    let text = logs.text();
    let errors: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("ERROR") && l.contains("failed permanently"))
        .collect();
    assert_eq!(errors.len(), 2, "{text}");
    for body in &bodies {
        let Some(QueueBody::Event { event_id, .. }) = QueueBody::parse(body) else {
            panic!("an event message");
        };
        let delivery = specpress_domain::webhooks::DeliveryId::for_event(event_id, sub.id);
        let line = errors
            .iter()
            .find(|l| l.contains(&format!("event_id={event_id}")))
            .unwrap_or_else(|| panic!("an error line for {event_id}: {text}"));
        assert!(line.contains(&format!("doc_id={}", doc.id)), "{line}");
        assert!(
            line.contains(&format!("subscription_id={}", sub.id)),
            "{line}"
        );
        assert!(line.contains(&format!("delivery_id={delivery}")), "{line}");
        assert!(line.contains("ValidationException"), "{line}");
    }
    assert!(!text.contains("whsec_") && !text.contains(&secret));
    assert!(
        !text.contains("documentation.published"),
        "no payload in the log"
    );
    // The deliveries API has no entry for them: the dead-letter queue (alarmed) is where they show.
    let log = uc::deliveries(&w.service, &w.principal, "refused", &sub.id.to_string())
        .await
        .expect("log");
    assert!(log.is_empty());
}

/// A queue whose first `n` sends fail (everything else goes to the inner queue).
struct FailingSends(Arc<dyn MessageQueue>, std::sync::atomic::AtomicUsize);

#[async_trait]
impl MessageQueue for FailingSends {
    async fn send(&self, body: &str, delay: Duration) -> Result<()> {
        let left = self.1.load(std::sync::atomic::Ordering::SeqCst);
        if left > 0 {
            self.1.store(left - 1, std::sync::atomic::Ordering::SeqCst);
            return Err(DomainError::unexpected("injected: SendMessage failed"));
        }
        self.0.send(body, delay).await
    }
    async fn receive(&self, max: u32, wait: Duration) -> Result<Vec<ReceivedMessage>> {
        self.0.receive(max, wait).await
    }
    async fn delete(&self, receipt: &str) -> Result<()> {
        self.0.delete(receipt).await
    }
    async fn change_visibility(&self, receipt: &str, delay: Duration) -> Result<()> {
        self.0.change_visibility(receipt, delay).await
    }
    async fn send_to_dead_letter(&self, body: &str) -> Result<()> {
        self.0.send_to_dead_letter(body).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn a_redelivered_event_message_reuses_the_recorded_payload_instead_of_diffing_again() {
    let mut w = World::new(fast(0.001), None, None).await;
    let (service, engine) = counting(&w);
    let doc = w.doc("again").await;
    let (sub, _) = w.subscribe_scripted(&doc, "/again", json!([])).await;
    let (second, _) = w.subscribe(&doc, "/again-2", None).await;
    w.deploy(&doc, openapi("A", "1", &["/x"]), None).await;
    w.deploy(&doc, openapi("A", "1", &["/x", "/y"]), None).await;
    let events = w
        .queue
        .receive(10, Duration::from_secs(1))
        .await
        .expect("receive");
    assert_eq!(events.len(), 2);
    // GIVEN the first handling of each event message fails after its first delivery was recorded (the queue
    // refuses the delivery message): a transient failure, so the message comes back
    let flaky = specpress_domain::usecases::delivery::DeliveryService {
        queue: Arc::new(FailingSends(
            w.queue.clone(),
            std::sync::atomic::AtomicUsize::new(2),
        )),
        ..service.clone()
    };
    for m in &events {
        assert_eq!(
            flaky.handle(&m.body).await,
            specpress_domain::usecases::delivery::Disposition::Failed
        );
    }
    assert_eq!(engine.diffs.load(std::sync::atomic::Ordering::SeqCst), 1);
    // WHEN they are handled again
    for m in &events {
        assert_eq!(
            service.handle(&m.body).await,
            specpress_domain::usecases::delivery::Disposition::Done
        );
    }
    // THEN the diff was computed once, and both subscriptions' deliveries of an event carry the same bytes
    assert_eq!(
        engine.diffs.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "the redelivered message reused the recorded payload"
    );
    let first = uc::deliveries(&w.service, &w.principal, "again", &sub.id.to_string())
        .await
        .expect("log");
    let other = uc::deliveries(&w.service, &w.principal, "again", &second.id.to_string())
        .await
        .expect("log");
    assert_eq!(first.len(), 2);
    for d in &first {
        let twin = other
            .iter()
            .find(|o| o.event_id == d.event_id)
            .expect("the other subscription's delivery");
        assert_eq!(twin.payload, d.payload);
    }
    w.start_consumer();
    assert_eq!(w.receiver.wait_for("/again", 2, WAIT).await.len(), 2);
}

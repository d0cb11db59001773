//! The delivery Lambda's handler against moto's SQS: real `aws-sdk-sqs` calls (send, receive, visibility changes,
//! redrive to the dead-letter queue), the handler invoked with the SqsEvent Lambda would build. The endpoint comes
//! from `SPECPRESS_TEST_MOTO_ENDPOINT` (`specpress_testkit::Tool::Moto`; scripts/test.sh starts moto): without it
//! the tests fail under CI=true and are reported as ignored otherwise.

mod common;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_lambda_events::event::sqs::{SqsEvent, SqsMessage};
use common::*;
use lambda_runtime::{Context, LambdaEvent};
use serde_json::json;
use specpress_domain::ports::MessageQueue;
use specpress_queue_sqs::{SqsClient, SqsQueue, client_for_endpoint};
use specpress_webhook::RetryPolicy;
use specpress_workers::BatchOptions;
use specpress_workers::lambda::{Handler, handle};

struct Queues {
    client: SqsClient,
    queue: SqsQueue,
    dlq_url: String,
}

impl Queues {
    /// The bodies of the messages waiting in the dead-letter queue now (one receive, no long poll).
    async fn dead_letter_bodies(&self) -> Vec<String> {
        let out = self
            .client
            .receive_message()
            .queue_url(&self.dlq_url)
            .wait_time_seconds(0)
            .send()
            .await
            .expect("dlq");
        out.messages
            .unwrap_or_default()
            .into_iter()
            .filter_map(|m| m.body)
            .collect()
    }
}

/// Fresh queues on the moto server (`specpress_testkit::Tool::Moto`: the tests are ignored outside CI without one).
async fn queues(name: &str, max_receive: u32) -> Queues {
    let endpoint = specpress_testkit::moto_endpoint();
    let client = client_for_endpoint(&endpoint).await;
    let suffix = format!(
        "{}-{}",
        std::process::id(),
        time::OffsetDateTime::now_utc().unix_timestamp_nanos()
    );
    let dlq = client
        .create_queue()
        .queue_name(format!("{name}-dlq-{suffix}"))
        .send()
        .await
        .expect("create dlq");
    let dlq_url = dlq.queue_url.expect("dlq url");
    let attrs = client
        .get_queue_attributes()
        .queue_url(&dlq_url)
        .attribute_names(aws_sdk_sqs::types::QueueAttributeName::QueueArn)
        .send()
        .await
        .expect("dlq arn");
    let arn = attrs
        .attributes
        .and_then(|a| {
            a.get(&aws_sdk_sqs::types::QueueAttributeName::QueueArn)
                .cloned()
        })
        .expect("arn");
    let q = client
        .create_queue()
        .queue_name(format!("{name}-{suffix}"))
        .attributes(
            aws_sdk_sqs::types::QueueAttributeName::VisibilityTimeout,
            "1",
        )
        .attributes(
            aws_sdk_sqs::types::QueueAttributeName::RedrivePolicy,
            json!({"deadLetterTargetArn": arn, "maxReceiveCount": max_receive.to_string()})
                .to_string(),
        )
        .send()
        .await
        .expect("create queue");
    let url = q.queue_url.expect("queue url");
    Queues {
        queue: SqsQueue::new(client.clone(), url, Some(dlq_url.clone())),
        client,
        dlq_url,
    }
}

/// Polls moto like the Lambda event source mapping: receive, invoke the handler, delete what succeeded.
async fn pump(handler: &Handler, q: &SqsQueue, rounds: usize) -> usize {
    let mut handled = 0;
    for _ in 0..rounds {
        let out = q
            .client()
            .receive_message()
            .queue_url(q.queue_url())
            .max_number_of_messages(10)
            .wait_time_seconds(1)
            .message_system_attribute_names(aws_sdk_sqs::types::MessageSystemAttributeName::All)
            .send()
            .await
            .expect("receive");
        let messages = out.messages.unwrap_or_default();
        if messages.is_empty() {
            continue;
        }
        let mut event = SqsEvent::default();
        let mut receipts = HashMap::new();
        for m in messages {
            let mut r = SqsMessage::default();
            r.message_id = m.message_id.clone();
            r.receipt_handle = m.receipt_handle.clone();
            r.body = m.body.clone();
            if let (Some(id), Some(rh)) = (m.message_id, m.receipt_handle) {
                receipts.insert(id, rh);
            }
            event.records.push(r);
        }
        let mut ctx = Context::default();
        ctx.deadline = u64::try_from(
            (time::OffsetDateTime::now_utc() + time::Duration::seconds(60)).unix_timestamp_nanos()
                / 1_000_000,
        )
        .expect("ms");
        let response = handle(handler, LambdaEvent::new(event, ctx))
            .await
            .expect("the handler never fails the batch");
        let failed: Vec<String> = response
            .batch_item_failures
            .into_iter()
            .map(|f| f.item_identifier)
            .collect();
        for (id, rh) in receipts {
            if !failed.contains(&id) {
                q.delete(&rh)
                    .await
                    .expect("delete (as Lambda does for successes)");
                handled += 1;
            }
        }
    }
    handled
}

/// The world with moto's queue `q` as its webhook queue, retrying on `retry`, and the delivery Lambda's handler
/// consuming that queue.
async fn world_and_handler(q: &Queues, retry: RetryPolicy) -> (World, Handler) {
    let queue: Arc<dyn MessageQueue> = Arc::new(q.queue.clone());
    let w = World::new(retry, Some(queue.clone()), None).await;
    let handler = Handler {
        service: w.service.clone(),
        queue,
        options: BatchOptions::default(),
    };
    (w, handler)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    any(missing_python_tools, missing_moto),
    ignore = "needs the tools' Python (scripts/install-tools.sh) and a moto server (SPECPRESS_TEST_MOTO_ENDPOINT)"
)]
async fn lambda_handler_over_moto_sqs_delivers_with_retries_through_visibility_changes() {
    let q = queues("deliver", 10).await;
    let retry = RetryPolicy::default().with_scale(0.0002).with_jitter(0.0);
    let (w, handler) = world_and_handler(&q, retry).await;
    let doc = w.doc("moto").await;
    w.subscribe_scripted(&doc, "/m", json!([[500, {}], [503, {}], [200, {}]]))
        .await;
    w.deploy(&doc, openapi("M", "1", &["/x"]), None).await;
    let started = Instant::now();
    while w.receiver.at("/m").await.len() < 3 && started.elapsed() < Duration::from_secs(30) {
        pump(&handler, &q.queue, 1).await;
    }
    let got = w.receiver.at("/m").await;
    assert_eq!(
        got.iter().map(|g| g.answered).collect::<Vec<_>>(),
        vec![500, 503, 200]
    );
    assert!(got.iter().all(|g| g.webhook_id == got[0].webhook_id));
    assert_all_verified(&got);
    pump(&handler, &q.queue, 2).await;
    assert_eq!(
        w.receiver.at("/m").await.len(),
        3,
        "nothing after the success"
    );
    assert!(q.dead_letter_bodies().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    any(missing_python_tools, missing_moto),
    ignore = "needs the tools' Python (scripts/install-tools.sh) and a moto server (SPECPRESS_TEST_MOTO_ENDPOINT)"
)]
async fn poison_message_is_redriven_to_the_dead_letter_queue_while_the_batch_succeeds() {
    let q = queues("poison", 2).await;
    let (w, handler) = world_and_handler(&q, RetryPolicy::default().with_scale(0.0002)).await;
    let doc = w.doc("moto-poison").await;
    w.subscribe_scripted(&doc, "/p", json!([])).await;
    handler
        .queue
        .send("this is not a webhook message", Duration::ZERO)
        .await
        .expect("send poison");
    w.deploy(&doc, openapi("P", "1", &["/x"]), None).await;
    let started = Instant::now();
    let mut dead = Vec::new();
    while started.elapsed() < Duration::from_secs(30) {
        pump(&handler, &q.queue, 1).await;
        dead.extend(q.dead_letter_bodies().await);
        if !dead.is_empty() && !w.receiver.at("/p").await.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(600)).await;
    }
    assert_eq!(
        dead,
        vec!["this is not a webhook message".to_owned()],
        "the poison message was redriven"
    );
    let got = w.receiver.at("/p").await;
    assert_eq!(got.len(), 1, "the valid event was delivered");
    assert_all_verified(&got);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_moto,
    ignore = "needs a moto server (SPECPRESS_TEST_MOTO_ENDPOINT)"
)]
async fn a_batch_delete_removes_more_messages_than_one_sqs_batch_request_takes() {
    // Redrive after 2 receives: a message that was not deleted would land in the dead-letter queue below.
    let q = queues("batchdelete", 2).await;
    for i in 0..13 {
        q.queue
            .send(&format!("m{i}"), Duration::ZERO)
            .await
            .expect("send");
    }
    let mut receipts = Vec::new();
    let started = Instant::now();
    while receipts.len() < 13 && started.elapsed() < Duration::from_secs(20) {
        let got = q
            .queue
            .receive(10, Duration::from_secs(1))
            .await
            .expect("receive");
        receipts.extend(got.into_iter().map(|m| m.receipt));
    }
    assert_eq!(receipts.len(), 13, "every message received once");
    q.queue
        .delete_batch(&receipts)
        .await
        .expect("one batch delete for 13 messages (two SQS requests)");
    // Past the 1 s visibility timeout, a message not deleted would be received again.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let again = q
        .queue
        .receive(10, Duration::from_secs(1))
        .await
        .expect("receive");
    assert!(again.is_empty(), "deleted messages came back: {again:?}");
    assert!(q.dead_letter_bodies().await.is_empty());
}

/// Deploys `pair` to a documentation with a subscriber, with the table on moto's DynamoDB (its own 400 KB item
/// limit) and the queue on moto's SQS, consumed by the Lambda handler.
async fn a_large_corpus_diff_is_delivered_bounded_over_moto(pair: &CorpusPair, path: &str) {
    let q = queues(pair.slug, 3).await;
    let endpoint = specpress_testkit::moto_endpoint();
    let queue: Arc<dyn MessageQueue> = Arc::new(q.queue.clone());
    let w = World::build(Setup {
        policy: Some(RetryPolicy::default().with_scale(0.0002)),
        queue: Some(queue.clone()),
        moto_dynamodb: Some(endpoint),
        max_document_bytes: Some(CORPUS_DOCUMENT_BYTES),
        ..Setup::default()
    })
    .await;
    let handler = Handler {
        service: w.service.clone(),
        queue,
        options: BatchOptions::default(),
    };
    let deployed = deploy_pair(&w, pair, path).await;
    let started = Instant::now();
    while w.receiver.at(path).await.len() < 2 && started.elapsed() < Duration::from_secs(120) {
        pump(&handler, &q.queue, 1).await;
    }
    let (size, summary) = assert_large_diff_delivered(&w, path, &deployed).await;
    eprintln!("{} (moto): payload of {size} bytes, {summary}", pair.slug);
    assert!(q.dead_letter_bodies().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    any(missing_python_tools, missing_moto, missing_corpus),
    ignore = "needs the tools' Python (scripts/install-tools.sh) and a moto server (SPECPRESS_TEST_MOTO_ENDPOINT) and the API corpus (SPECPRESS_CORPUS)"
)]
async fn over_moto_the_stripe_2022_diff_is_delivered_within_the_payload_bound_marked_truncated_and_linked()
 {
    a_large_corpus_diff_is_delivered_bounded_over_moto(&STRIPE_2022, "/stripe").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    any(missing_python_tools, missing_moto, missing_corpus),
    ignore = "needs the tools' Python (scripts/install-tools.sh) and a moto server (SPECPRESS_TEST_MOTO_ENDPOINT) and the API corpus (SPECPRESS_CORPUS)"
)]
async fn over_moto_the_github_diff_is_delivered_within_the_payload_bound_marked_truncated_and_linked()
 {
    a_large_corpus_diff_is_delivered_bounded_over_moto(&GITHUB, "/github").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    any(missing_python_tools, missing_moto, missing_corpus),
    ignore = "needs the tools' Python (scripts/install-tools.sh) and a moto server (SPECPRESS_TEST_MOTO_ENDPOINT) and the API corpus (SPECPRESS_CORPUS)"
)]
async fn over_moto_the_kubernetes_diff_is_delivered_within_the_payload_bound_marked_truncated_and_linked()
 {
    a_large_corpus_diff_is_delivered_bounded_over_moto(&KUBERNETES, "/kubernetes").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    any(missing_python_tools, missing_moto),
    ignore = "needs the tools' Python (scripts/install-tools.sh) and a moto server (SPECPRESS_TEST_MOTO_ENDPOINT)"
)]
async fn over_moto_a_delivery_dynamodb_refuses_to_record_is_dead_lettered_once_and_logged() {
    let logs = capture_logs();
    // A redrive policy of 10 receives: a message left to the queue would come back every second, ten times.
    let q = queues("refused", 10).await;
    let endpoint = specpress_testkit::moto_endpoint();
    let oversize = Arc::new(OversizeDeliveries::default());
    let queue: Arc<dyn MessageQueue> = Arc::new(q.queue.clone());
    let w = World::build(Setup {
        policy: Some(RetryPolicy::default().with_scale(0.0002)),
        queue: Some(queue.clone()),
        moto_dynamodb: Some(endpoint),
        dynamodb_interceptor: Some(aws_sdk_dynamodb::config::SharedInterceptor::new(
            ArcInterceptor(oversize.clone()),
        )),
        ..Setup::default()
    })
    .await;
    let (service, engine) = counting(&w);
    let handler = Handler {
        service,
        queue,
        options: BatchOptions::default(),
    };
    let doc = w.doc("moto-refused").await;
    let (sub, secret) = w.subscribe_scripted(&doc, "/r", json!([])).await;
    w.deploy(&doc, openapi("R", "1", &["/x"]), None).await;
    w.deploy(&doc, openapi("R", "1", &["/x", "/y"]), None).await;
    let mut dead = Vec::new();
    let started = Instant::now();
    while dead.len() < 2 && started.elapsed() < Duration::from_secs(30) {
        pump(&handler, &q.queue, 1).await;
        dead.extend(q.dead_letter_bodies().await);
    }
    assert_eq!(dead.len(), 2, "both event messages dead-lettered: {dead:?}");
    // Past the 1 s visibility timeout, nothing comes back to be handled again.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(pump(&handler, &q.queue, 2).await, 0, "nothing came back");
    assert_eq!(
        oversize.refused.load(std::sync::atomic::Ordering::SeqCst),
        2
    );
    assert_eq!(engine.diffs.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert!(w.receiver.at("/r").await.is_empty());
    let text = logs.text();
    let errors: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("ERROR") && l.contains("failed permanently"))
        .collect();
    assert_eq!(errors.len(), 2, "{text}");
    for line in errors {
        assert!(line.contains(&format!("doc_id={}", doc.id)), "{line}");
        assert!(
            line.contains(&format!("subscription_id={}", sub.id)),
            "{line}"
        );
        assert!(line.contains("ValidationException"), "{line}");
    }
    assert!(!text.contains("whsec_") && !text.contains(&secret));
}

//! Daily and weekly digests (issue 38) over the embedded engine, the in-process queue and a real SMTP server
//! (Python's `aiosmtpd`, every message parsed by Python's `email` package): readers follow through the follow use
//! case and confirm through the link of their confirmation mail; releases are kept for digest followers by their
//! filter; the digest job (the `digests` function's, run here at chosen times) mails each follower one digest of
//! its period's releases once the period has ended, nothing for an empty period, nothing twice; a digest the mail
//! transport refused is sent at the next run.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use specpress_domain::follow::FollowerId;
use specpress_domain::model::{DocOrHub, Documentation};
use specpress_domain::ports::{DeliveryStore, FollowerStore, Mailer};
use specpress_domain::usecases::delivery::{DigestRun, KIND_DIGEST_ENTRY};
use specpress_domain::usecases::follow::{FollowForm, FollowTarget, confirm, follow};
use specpress_domain::webhooks::{DeliveryStatus, SubscriptionId};
use specpress_mail::{Sender, SmtpMailer};
use specpress_testkit::smtp::{Receiver as SmtpReceiver, inspect_json};
use specpress_webhook::RetryPolicy;
use time::OffsetDateTime;

/// An OpenAPI document with these GET operations (`{id}` paths declare their parameter).
fn document(version: &str, paths: &[&str]) -> String {
    let mut p = serde_json::Map::new();
    for path in paths {
        let parameters: Vec<Value> = if path.contains("{id}") {
            vec![
                json!({"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}),
            ]
        } else {
            Vec::new()
        };
        p.insert(
            (*path).into(),
            json!({"get": {"parameters": parameters, "responses": {"200": {"description": "ok"}}}}),
        );
    }
    json!({"openapi": "3.0.3", "info": {"title": "Zoo", "version": version}, "paths": p})
        .to_string()
}

fn smtp_mailer(url: &str) -> Arc<dyn Mailer> {
    let sender = Sender::parse("Specpress <specpress@localhost>").expect("sender");
    Arc::new(SmtpMailer::new(url, sender).expect("SMTP mailer"))
}

/// The messages received so far, parsed, each with its envelope recipient.
fn mails(smtp: &SmtpReceiver) -> Vec<(String, Value)> {
    let files = smtp.received();
    if files.is_empty() {
        return Vec::new();
    }
    let parsed: Vec<Value> = serde_json::from_str(&inspect_json(&files)).expect("parsed mails");
    files
        .iter()
        .zip(parsed)
        .map(|(f, m)| (smtp.recipients(f).trim().to_owned(), m))
        .collect()
}

fn text(m: &Value) -> String {
    m["parts"]
        .as_array()
        .and_then(|parts| parts.iter().find(|p| p["type"] == "text/plain"))
        .and_then(|p| p["text"].as_str())
        .unwrap_or_default()
        .to_owned()
}

fn subject(m: &Value) -> String {
    m["headers"]["subject"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// A follow form: `email`, `cadence`, `breaking_only` and `operation`.
fn form(email: &str, cadence: &str, breaking_only: bool, operation: Option<&str>) -> FollowForm {
    FollowForm {
        email: email.into(),
        cadence: cadence.into(),
        breaking_only,
        operation: operation.map(str::to_owned),
    }
}

/// Follows `doc` with `form`, then confirms through the link of the confirmation mail, as the reader would; the
/// follower's id.
async fn follow_and_confirm(
    w: &World,
    smtp: &SmtpReceiver,
    mailer: &dyn Mailer,
    doc: &Documentation,
    form: FollowForm,
) -> FollowerId {
    let email = form.email.clone();
    let target = FollowTarget {
        org_id: doc.org_id,
        scope: DocOrHub::Doc(doc.id),
        title: doc.name.clone(),
        scope_url: format!("http://docs.test/doc/{}", doc.slug),
    };
    let before = smtp.received().len();
    follow(
        w.store.as_ref(),
        &sealer(),
        mailer,
        &target,
        &form,
        OffsetDateTime::now_utc(),
    )
    .await
    .expect("follow");
    smtp.wait_for_within(before + 1, Duration::from_secs(20));
    let all = mails(smtp);
    let (_, mail) = all
        .iter()
        .rev()
        .find(|(to, _)| *to == email)
        .expect("a confirmation mail");
    let body = text(mail);
    let token = body
        .split_whitespace()
        .find_map(|w| w.split("/follow/confirm/").nth(1))
        .map(|t| t.trim_end_matches(['>', ')', '.']).to_owned())
        .unwrap_or_else(|| panic!("no confirmation link in {body}"));
    let f = confirm(
        w.store.as_ref(),
        &sealer(),
        &token,
        OffsetDateTime::now_utc(),
    )
    .await
    .expect("confirm")
    .expect("the link confirms");
    assert!(f.next_digest_at.is_some(), "a digest follower has a period");
    f.id
}

/// A run's figures: digests sent, empty periods, digests held.
fn figures(sent: usize, empty: usize, held: usize) -> DigestRun {
    DigestRun { sent, empty, held }
}

/// Runs the digest job as at `at`.
async fn run_at(w: &World, at: OffsetDateTime) -> DigestRun {
    w.service
        .send_due_digests(at, 100)
        .await
        .expect("digest run")
}

/// The pending digest entries kept for follower `id`.
async fn entries(w: &World, id: FollowerId) -> usize {
    w.store
        .list_deliveries(SubscriptionId(id.0))
        .await
        .expect("deliveries")
        .iter()
        .filter(|d| d.kind == KIND_DIGEST_ENTRY && d.status == DeliveryStatus::Pending)
        .count()
}

/// Waits until each follower has its expected number of pending entries (the events go through the queue).
async fn wait_entries(w: &World, expected: &[(FollowerId, usize)]) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let mut got = Vec::new();
        for (id, _) in expected {
            got.push(entries(w, *id).await);
        }
        let want: Vec<usize> = expected.iter().map(|(_, n)| *n).collect();
        if got == want {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "digest entries: got {got:?}, want {want:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python with aiosmtpd (scripts/install-tools.sh)"
)]
async fn digests_group_the_periods_matching_releases_once_and_skip_empty_periods() {
    let smtp = SmtpReceiver::start();
    let mailer = smtp_mailer(&smtp.url());
    let mut w = World::new(RetryPolicy::default().with_scale(0.001), None, None).await;
    w.service.mailer = Some(mailer.clone());
    w.start_consumer();
    let zoo = w.doc("zoo").await;
    let quiet = w.doc("quiet").await;
    w.deploy(&zoo, document("1.0", &["/pets", "/pets/{id}"]), None)
        .await;
    w.deploy(&quiet, document("1.0", &["/birds"]), None).await;

    // GIVEN four confirmed digest followers: every release daily, breaking ones weekly, one operation daily, and a
    // daily follower of a documentation that will have no release.
    let m = mailer.as_ref();
    let ann = follow_and_confirm(
        &w,
        &smtp,
        m,
        &zoo,
        form("ann@example.com", "daily", false, None),
    )
    .await;
    let bob = follow_and_confirm(
        &w,
        &smtp,
        m,
        &zoo,
        form("bob@example.com", "weekly", true, None),
    )
    .await;
    let cy_form = form("cy@example.com", "daily", false, Some("GET /pets/{id}"));
    let cy = follow_and_confirm(&w, &smtp, m, &zoo, cy_form).await;
    let dee = follow_and_confirm(
        &w,
        &smtp,
        m,
        &quiet,
        form("dee@example.com", "daily", false, None),
    )
    .await;
    let start = OffsetDateTime::now_utc();
    assert_eq!(smtp.received().len(), 4, "four confirmation mails");

    // WHEN two releases are published: 2.0 adds GET /owners (not breaking, not GET /pets/{id}); 3.0 removes
    // GET /pets/{id} (breaking, that operation)
    w.deploy(
        &zoo,
        document("2.0", &["/pets", "/pets/{id}", "/owners"]),
        None,
    )
    .await;
    w.deploy(&zoo, document("3.0", &["/pets", "/owners"]), None)
        .await;
    // THEN each is kept for the followers it matches, and nothing is mailed at release time
    wait_entries(&w, &[(ann, 2), (bob, 1), (cy, 1), (dee, 0)]).await;
    assert_eq!(
        smtp.received().len(),
        4,
        "a digest follower gets no release mail"
    );

    // Before a period ends, nothing is due.
    let early = run_at(&w, start + time::Duration::hours(23)).await;
    assert_eq!(early, DigestRun::default());

    // WHEN the daily period has ended and the mail transport refuses everything
    let day = start + time::Duration::days(1) + time::Duration::minutes(1);
    let mut refused = w.service.clone();
    refused.mailer = Some(smtp_mailer("smtp://127.0.0.1:9"));
    let run = refused
        .send_due_digests(day, 100)
        .await
        .expect("digest run");
    // THEN the two digests are held (nothing lost, nothing moved on) and the empty period of dee is moved on
    assert_eq!(run, figures(0, 1, 2));
    assert_eq!(
        entries(&w, ann).await,
        2,
        "entries kept while the digest is not sent"
    );

    // WHEN the job runs again with the transport back (past the failed mail's retry delay)
    let later = day + time::Duration::minutes(2);
    let run = run_at(&w, later).await;
    // THEN ann and cy get one digest each; dee gets nothing (an empty period)
    assert_eq!(run, figures(2, 0, 0));
    let all = mails(&smtp);
    let digests: Vec<&(String, Value)> = all.iter().skip(4).collect();
    assert_eq!(
        digests.len(),
        2,
        "{:?}",
        digests
            .iter()
            .map(|(t, m)| (t, subject(m)))
            .collect::<Vec<_>>()
    );
    let to_ann: Vec<&Value> = digests
        .iter()
        .filter(|(t, _)| t == "ann@example.com")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(to_ann.len(), 1);
    let ann_mail = to_ann[0];
    assert_eq!(
        subject(ann_mail),
        "Daily digest: 2 releases of zoo, 1 breaking change"
    );
    let body = text(ann_mail);
    let (v2, v3) = (
        body.find("2.0").expect("release 2.0 listed"),
        body.find("3.0").expect("release 3.0 listed"),
    );
    assert!(v2 < v3, "oldest first: {body}");
    assert!(body.contains("GET /pets/{id}"), "{body}");
    let headers = &ann_mail["headers"];
    assert!(
        headers["list-unsubscribe"]
            .as_str()
            .unwrap_or_default()
            .contains("/follow/unsubscribe/"),
        "{headers}"
    );
    assert_eq!(
        headers["list-unsubscribe-post"],
        "List-Unsubscribe=One-Click"
    );
    let to_cy: Vec<&Value> = digests
        .iter()
        .filter(|(t, _)| t == "cy@example.com")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(to_cy.len(), 1);
    assert_eq!(
        subject(to_cy[0]),
        "Daily digest: 1 release of zoo, 1 breaking change"
    );
    assert!(
        !text(to_cy[0]).contains("/owners"),
        "only the followed operation's changes: {}",
        text(to_cy[0])
    );
    assert_eq!(entries(&w, ann).await, 0, "sent entries are marked");

    // WHEN the job runs again at the same time THEN nothing is sent twice
    let again = run_at(&w, later).await;
    assert_eq!(again, DigestRun::default());

    // WHEN the weekly period has ended THEN bob gets his digest; the daily followers' periods since are empty
    let week = start + time::Duration::weeks(1) + time::Duration::minutes(1);
    let run = run_at(&w, week).await;
    assert_eq!(run, figures(1, 3, 0));
    let all = mails(&smtp);
    assert_eq!(all.len(), 7, "four confirmations and three digests");
    let (to, bob_mail) = &all[6];
    assert_eq!(to, "bob@example.com");
    assert_eq!(
        subject(bob_mail),
        "Weekly digest: 1 release of zoo, 1 breaking change"
    );
    assert!(
        text(bob_mail).contains("3.0") && !text(bob_mail).contains("2.0"),
        "{}",
        text(bob_mail)
    );

    // Each follower's next period is in the future: nothing more is due now.
    let f = w
        .store
        .get_follower(bob, week)
        .await
        .expect("follower")
        .expect("still there");
    assert!(f.next_digest_at.is_some_and(|t| t > week));
}

/// Stops the digest job as a crash would, right after the digest was sent and recorded: while armed, the first two
/// updates of delivery items (claiming the digest's record, then recording it delivered) go through and every later
/// update of a delivery or follower item (marking the entries, moving the period on) fails on the wire.
#[derive(Debug, Default)]
struct CrashAfterSend {
    armed: std::sync::atomic::AtomicBool,
    allowed: std::sync::atomic::AtomicUsize,
    refused: std::sync::atomic::AtomicUsize,
}

#[derive(Debug)]
struct Lend(Arc<CrashAfterSend>);

impl aws_sdk_dynamodb::config::Intercept for Lend {
    fn name(&self) -> &'static str {
        "CrashAfterSend"
    }

    fn modify_before_signing(
        &self,
        context: &mut aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextMut<
            '_,
        >,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        use std::sync::atomic::Ordering::SeqCst;
        let c = &self.0;
        let request = context.request_mut();
        if !c.armed.load(SeqCst)
            || request.headers().get("x-amz-target") != Some("DynamoDB_20120810.UpdateItem")
        {
            return Ok(());
        }
        let body: Value = request
            .body()
            .bytes()
            .and_then(|b| serde_json::from_slice(b).ok())
            .unwrap_or_default();
        let pk = body["Key"]["pk"]["S"].as_str().unwrap_or_default();
        if pk.starts_with("DELIVERY#") && c.allowed.load(SeqCst) < 2 {
            c.allowed.fetch_add(1, SeqCst);
            return Ok(());
        }
        if pk.starts_with("DELIVERY#") || pk.starts_with("FOLLOWER#") {
            c.refused.fetch_add(1, SeqCst);
            return Err("the digest job crashed here".into());
        }
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python with aiosmtpd (scripts/install-tools.sh)"
)]
async fn a_digest_job_that_crashed_after_sending_never_sends_the_digest_twice() {
    let smtp = SmtpReceiver::start();
    let mailer = smtp_mailer(&smtp.url());
    let crash = Arc::new(CrashAfterSend::default());
    let mut w = World::build(Setup {
        policy: Some(RetryPolicy::default().with_scale(0.001)),
        dynamodb_interceptor: Some(aws_sdk_dynamodb::config::SharedInterceptor::new(Lend(
            crash.clone(),
        ))),
        ..Setup::default()
    })
    .await;
    w.service.mailer = Some(mailer.clone());
    w.start_consumer();
    let zoo = w.doc("zoo").await;
    w.deploy(&zoo, document("1.0", &["/pets"]), None).await;
    let ann = follow_and_confirm(
        &w,
        &smtp,
        mailer.as_ref(),
        &zoo,
        form("ann@example.com", "daily", false, None),
    )
    .await;
    let start = OffsetDateTime::now_utc();
    w.deploy(&zoo, document("2.0", &["/pets", "/owners"]), None)
        .await;
    wait_entries(&w, &[(ann, 1)]).await;

    // WHEN the job sends the digest, records it, and crashes before marking its entry and moving the period on
    let day = start + time::Duration::days(1) + time::Duration::minutes(1);
    crash.armed.store(true, std::sync::atomic::Ordering::SeqCst);
    let run = run_at(&w, day).await;
    crash
        .armed
        .store(false, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(run, figures(0, 0, 1));
    assert!(crash.refused.load(std::sync::atomic::Ordering::SeqCst) >= 1);
    smtp.wait_for_within(2, Duration::from_secs(20));
    assert_eq!(smtp.received().len(), 2, "the confirmation and the digest");
    assert_eq!(
        entries(&w, ann).await,
        1,
        "the crash left the entry pending"
    );

    // WHEN the next run comes THEN it finds the digest sent: it marks the entry and moves on, and mails nothing
    let run = run_at(&w, day).await;
    assert_eq!(run, figures(1, 0, 0));
    assert_eq!(entries(&w, ann).await, 0);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(smtp.received().len(), 2, "never twice");
    let again = run_at(&w, day).await;
    assert_eq!(again, DigestRun::default());
    let all = mails(&smtp);
    assert_eq!(subject(&all[1].1), "Daily digest: 1 release of zoo");
}

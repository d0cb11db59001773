//! The `mail-events` job over SNS events carrying SES notifications (the shapes AWS documents): every address of a
//! permanent bounce or complaint reaches the suspension, nothing else does, and a failed suspension fails the
//! invocation so Lambda retries it.

use std::sync::Mutex;

use serde_json::json;
use specpress_mail::bounces::Reason;
use specpress_workers::mail_events::{Outcome, handle};

fn record(notification: serde_json::Value) -> serde_json::Value {
    json!({
        "EventSource": "aws:sns",
        "EventVersion": "1.0",
        "EventSubscriptionArn": "arn:aws:sns:us-east-1:123456789012:specpress-mail-events:1f2e",
        "Sns": {
            "Type": "Notification",
            "MessageId": "95df01b4-ee98-5cb9-9903-4c221d41eb5e",
            "TopicArn": "arn:aws:sns:us-east-1:123456789012:specpress-mail-events",
            "Subject": null,
            "Message": notification.to_string(),
            "Timestamp": "2026-12-07T10:31:02.512Z",
            "SignatureVersion": "1",
            "Signature": "EXAMPLE",
            "SigningCertUrl": "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000.pem",
            "UnsubscribeUrl": "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe",
            "MessageAttributes": {}
        }
    })
}

fn bounce(kind: &str, to: &[&str]) -> serde_json::Value {
    let recipients: Vec<serde_json::Value> = to
        .iter()
        .map(|a| json!({"emailAddress": a, "action": "failed", "status": "5.1.1"}))
        .collect();
    json!({
        "notificationType": "Bounce",
        "bounce": {"bounceType": kind, "bounceSubType": "General", "bouncedRecipients": recipients,
                   "timestamp": "2026-12-07T10:31:02.148Z", "feedbackId": "0100018c-000000"},
        "mail": {"source": "docs@example.com", "messageId": "0100018c-1", "destination": to}
    })
}

fn complaint(to: &str) -> serde_json::Value {
    json!({
        "notificationType": "Complaint",
        "complaint": {"complainedRecipients": [{"emailAddress": to}], "complaintFeedbackType": "abuse",
                      "timestamp": "2026-12-07T11:02:00.000Z", "feedbackId": "0100018c-000001"},
        "mail": {"source": "docs@example.com", "messageId": "0100018c-2", "destination": [to]}
    })
}

#[tokio::test]
async fn permanent_bounces_and_complaints_reach_the_suspension_and_nothing_else_does() {
    let event = json!({"Records": [
        record(bounce("Permanent", &["gone@example.net"])),
        record(bounce("Transient", &["full@example.net"])),
        record(complaint("annoyed@example.com")),
    ]});
    let seen = Mutex::new(Vec::new());
    let outcome = handle(&event, |s| {
        seen.lock().expect("lock").push((s.address, s.reason));
        async { Ok::<(), String>(()) }
    })
    .await
    .expect("handled");
    assert_eq!(
        outcome,
        Outcome {
            suspended: 2,
            skipped: 0
        }
    );
    assert_eq!(
        seen.into_inner().expect("lock"),
        [
            ("gone@example.net".to_owned(), Reason::Bounce),
            ("annoyed@example.com".to_owned(), Reason::Complaint)
        ]
    );
}

#[tokio::test]
async fn a_failed_suspension_fails_the_invocation_and_a_foreign_record_is_skipped() {
    let event = json!({"Records": [record(json!("not an SES notification")), record(complaint("a@example.com"))]});
    let err = handle(&event, |_| async { Err::<(), _>("table unreachable") })
        .await
        .expect_err("retried by Lambda");
    assert!(err.contains("table unreachable"), "{err}");
    assert!(
        !err.contains("a@example.com"),
        "no address in the error: {err}"
    );
    let ok = handle(&event, |_| async { Ok::<(), String>(()) })
        .await
        .expect("handled");
    assert_eq!(
        ok,
        Outcome {
            suspended: 1,
            skipped: 1
        }
    );
    assert!(
        handle(&json!({"detail-type": "Scheduled Event"}), |_| async {
            Ok::<(), String>(())
        })
        .await
        .is_err()
    );
}

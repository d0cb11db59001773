//! SES bounce and complaint notifications as SNS delivers them (samples in `support/ses/`, in the format AWS
//! documents for SES notifications and for SNS messages and Lambda SNS events): permanent bounces and complaints
//! suspend their recipients, transient bounces and deliveries nothing.

use serde_json::json;
use specpress_mail::bounces::{Reason, from_lambda_event, from_ses, from_sns};

fn sample(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/support/ses")
            .join(name),
    )
    .expect("sample")
}

/// The SNS message SES publishes for `notification`.
fn sns(notification: &str) -> serde_json::Value {
    json!({
        "Type": "Notification",
        "MessageId": "b8e1a4f2-3c5d-5e6f-8a9b-0c1d2e3f4a5b",
        "TopicArn": "arn:aws:sns:us-east-1:123456789012:specpress-mail-events",
        "Message": notification,
        "Timestamp": "2026-12-07T10:31:02.512Z",
        "SignatureVersion": "1",
        "Signature": "EXAMPLEpH+DcEwjAPg8O9mY8dReBSwksfg2S7WKQcikcNKWLQjwu6A4VbeS0QHVCkhRS7fUQvi2egU3N858fiTDN6bkkOxYDVrY0Ad8L10Hs3zH81mtnPk5uvvolIC1CXGu43obcgFxeL3khZl8IKvO61GWB6jI9b5+gLPoBc1Q=",
        "SigningCertURL": "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem",
        "UnsubscribeURL": "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-east-1:123456789012:specpress-mail-events:0b0f7e3a"
    })
}

/// The Lambda event of an SNS subscription delivering `messages`.
fn lambda_event(messages: &[serde_json::Value]) -> serde_json::Value {
    let records: Vec<serde_json::Value> = messages
        .iter()
        .map(|m| {
            let mut sns = m.clone();
            // Lambda spells two of the fields differently from SNS's HTTP deliveries.
            let obj = sns.as_object_mut().expect("object");
            if let Some(v) = obj.remove("SigningCertURL") {
                obj.insert("SigningCertUrl".to_owned(), v);
            }
            if let Some(v) = obj.remove("UnsubscribeURL") {
                obj.insert("UnsubscribeUrl".to_owned(), v);
            }
            obj.insert("Subject".to_owned(), serde_json::Value::Null);
            obj.insert("MessageAttributes".to_owned(), json!({}));
            json!({
                "EventSource": "aws:sns",
                "EventVersion": "1.0",
                "EventSubscriptionArn": "arn:aws:sns:us-east-1:123456789012:specpress-mail-events:0b0f7e3a",
                "Sns": sns
            })
        })
        .collect();
    json!({ "Records": records })
}

fn addresses(found: &[specpress_mail::bounces::Suspension]) -> Vec<(&str, Reason)> {
    found
        .iter()
        .map(|s| (s.address.as_str(), s.reason))
        .collect()
}

#[test]
fn a_permanent_bounce_suspends_every_bounced_recipient() {
    let found = from_ses(&sample("bounce-permanent.json")).expect("parsed");
    assert_eq!(
        addresses(&found),
        [
            ("gone.reader@example.net", Reason::Bounce),
            ("former@example.org", Reason::Bounce)
        ]
    );
    assert!(
        !format!("{found:?}").contains("example"),
        "Debug shows no address"
    );
}

#[test]
fn a_complaint_suspends_its_recipient_in_both_notification_formats() {
    let found = from_ses(&sample("complaint.json")).expect("parsed");
    assert_eq!(
        addresses(&found),
        [("annoyed@example.com", Reason::Complaint)]
    );
    let event = from_ses(&sample("event-complaint.json")).expect("parsed");
    assert_eq!(
        addresses(&event),
        [("spam-button@example.com", Reason::Complaint)]
    );
}

#[test]
fn transient_bounces_and_deliveries_suspend_nobody() {
    assert!(
        from_ses(&sample("bounce-transient.json"))
            .expect("parsed")
            .is_empty()
    );
    assert!(
        from_ses(&sample("delivery.json"))
            .expect("parsed")
            .is_empty()
    );
}

#[test]
fn an_sns_message_carries_the_notification_as_a_string() {
    let message = sns(&sample("complaint.json")).to_string();
    let found = from_sns(&message).expect("parsed");
    assert_eq!(
        addresses(&found),
        [("annoyed@example.com", Reason::Complaint)]
    );
    let confirmation = json!({
        "Type": "SubscriptionConfirmation",
        "Message": "You have chosen to subscribe to the topic ...",
        "SubscribeURL": "https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription"
    });
    assert!(
        from_sns(&confirmation.to_string())
            .expect("parsed")
            .is_empty()
    );
}

#[test]
fn a_lambda_event_gives_every_record_s_addresses_once_and_reports_a_foreign_record() {
    let event = lambda_event(&[
        sns(&sample("bounce-permanent.json")),
        sns(&sample("bounce-transient.json")),
        sns(&sample("complaint.json")),
        sns(&sample("bounce-permanent.json")),
        sns("not json at all"),
    ]);
    let (found, refused) = from_lambda_event(&event).expect("parsed");
    assert_eq!(
        addresses(&found),
        [
            ("gone.reader@example.net", Reason::Bounce),
            ("former@example.org", Reason::Bounce),
            ("annoyed@example.com", Reason::Complaint)
        ]
    );
    assert_eq!(refused.len(), 1);
    assert!(from_lambda_event(&json!({"detail-type": "Scheduled Event"})).is_err());
}

#[test]
fn a_notification_that_is_not_one_is_refused() {
    for bad in ["", "{}", "[]", "{\"notificationType\": 3}"] {
        assert!(from_ses(bad).is_err(), "{bad:?}");
    }
    let huge = format!(
        "{{\"notificationType\":\"Bounce\",\"pad\":\"{}\"}}",
        "x".repeat(300_000)
    );
    assert!(from_ses(&huge).is_err());
}

//! SES bounce and complaint notifications, as SNS delivers them to the `mail-events` function: which addresses to
//! suspend.
//!
//! SES publishes a JSON notification to the SNS topic of its identity's `Bounce` and `Complaint` feedback
//! (`notificationType`, or `eventType` when a configuration set's event destination publishes it), with
//! `bounce.bounceType` (`Permanent`, `Transient`, `Undetermined`) and `bounce.bouncedRecipients[].emailAddress`, or
//! `complaint.complainedRecipients[].emailAddress`. SNS wraps it as a string in its own message's `Message`; a
//! Lambda subscribed to the topic receives `{"Records": [{"EventSource": "aws:sns", "Sns": {...}}]}`.
//!
//! Only permanent bounces (the address does not exist or refuses for good) and complaints (the reader marked the
//! mail as spam) suspend an address; a transient bounce (a full mailbox, a greylisting server) does not.
//! Deliveries, delays and anything else are ignored. Addresses are personal data: the parser returns them, it logs
//! none.

use serde::Deserialize;

/// Why an address is suspended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// A permanent bounce.
    Bounce,
    /// A complaint.
    Complaint,
}

/// An address to suspend.
#[derive(Clone, PartialEq, Eq)]
pub struct Suspension {
    /// The address, as SES reports it (lower-cased and trimmed).
    pub address: String,
    /// Why.
    pub reason: Reason,
}

impl std::fmt::Debug for Suspension {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Suspension")
            .field("reason", &self.reason)
            .finish_non_exhaustive()
    }
}

/// A notification that is not what SES sends.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not an SES notification: {0}")]
pub struct NotANotification(String);

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SesNotification {
    notification_type: Option<String>,
    event_type: Option<String>,
    bounce: Option<Bounce>,
    complaint: Option<Complaint>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Bounce {
    bounce_type: String,
    #[serde(default)]
    bounced_recipients: Vec<Recipient>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Complaint {
    #[serde(default)]
    complained_recipients: Vec<Recipient>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Recipient {
    email_address: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct SnsMessage {
    #[serde(rename = "Type")]
    kind: Option<String>,
    message: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct LambdaSnsEvent {
    records: Vec<LambdaSnsRecord>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct LambdaSnsRecord {
    sns: SnsMessage,
}

/// Longest notification read (SES sends a few kilobytes; a bounce to many recipients stays far below this).
pub const MAX_NOTIFICATION_BYTES: usize = 256 * 1024;

/// The addresses an SES notification (its JSON, SNS's `Message`) asks to suspend: the recipients of a permanent
/// bounce or of a complaint; none for anything else.
pub fn from_ses(json: &str) -> Result<Vec<Suspension>, NotANotification> {
    if json.len() > MAX_NOTIFICATION_BYTES {
        return Err(NotANotification("too large".to_owned()));
    }
    let n: SesNotification =
        serde_json::from_str(json).map_err(|e| NotANotification(e.to_string()))?;
    let kind = n
        .notification_type
        .or(n.event_type)
        .ok_or_else(|| NotANotification("no notificationType".to_owned()))?;
    let (reason, recipients) = match (kind.as_str(), n.bounce, n.complaint) {
        ("Bounce", Some(b), _) if b.bounce_type == "Permanent" => {
            (Reason::Bounce, b.bounced_recipients)
        }
        ("Complaint", _, Some(c)) => (Reason::Complaint, c.complained_recipients),
        _ => return Ok(Vec::new()),
    };
    let mut out: Vec<Suspension> = Vec::new();
    for r in recipients {
        let address = r.email_address.trim().to_ascii_lowercase();
        if address.contains('@') && !out.iter().any(|s| s.address == address) {
            out.push(Suspension { address, reason });
        }
    }
    Ok(out)
}

/// The addresses of one SNS message (its JSON: `{"Type": "Notification", "Message": "<SES JSON>", ...}`). A
/// subscription confirmation or any other SNS type asks for nothing.
pub fn from_sns(json: &str) -> Result<Vec<Suspension>, NotANotification> {
    let m: SnsMessage = serde_json::from_str(json).map_err(|e| NotANotification(e.to_string()))?;
    from_sns_message(m)
}

fn from_sns_message(m: SnsMessage) -> Result<Vec<Suspension>, NotANotification> {
    match m.kind.as_deref() {
        None | Some("Notification") => from_ses(&m.message),
        Some(_) => Ok(Vec::new()),
    }
}

/// The addresses of a Lambda SNS event (`{"Records": [{"Sns": {...}}]}`), every record's, each address once; a
/// record that is not an SES notification is reported in the second list (its error) and does not stop the others.
pub fn from_lambda_event(
    event: &serde_json::Value,
) -> Result<(Vec<Suspension>, Vec<NotANotification>), NotANotification> {
    let event: LambdaSnsEvent =
        serde_json::from_value(event.clone()).map_err(|e| NotANotification(e.to_string()))?;
    let mut out: Vec<Suspension> = Vec::new();
    let mut refused = Vec::new();
    for record in event.records {
        match from_sns_message(record.sns) {
            Ok(found) => {
                for s in found {
                    if !out.iter().any(|o| o.address == s.address) {
                        out.push(s);
                    }
                }
            }
            Err(e) => refused.push(e),
        }
    }
    Ok((out, refused))
}

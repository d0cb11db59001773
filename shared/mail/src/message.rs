//! The RFC 5322 message of a [`Mail`]: `multipart/alternative` (the text part, then the HTML part), built with
//! lettre's message builder, which encodes every header (RFC 2047) so no value can add a header of its own.
//!
//! Headers beside `From`, `To`, `Subject` and `Date`:
//! - `Message-ID: <specpress.HASH@DOMAIN>`: `HASH` from [`Mail::id`] alone, `DOMAIN` the sender's, so every attempt
//!   of the same mail carries the same id (receivers and mail clients drop a duplicate);
//! - `List-Unsubscribe: <URL>` and `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058) on every mail but
//!   a confirmation (a confirmation is the answer to a request, not a list's mail);
//! - `Auto-Submitted: auto-generated` (RFC 3834): out-of-office replies stay away.

use lettre::Message;
use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use sha2::{Digest, Sha256};
use specpress_domain::ports::Mail;
use specpress_domain::{DomainError, Result};

use crate::compose::{Composed, compose};

/// The sender of every mail: its mailbox (`Specpress <docs@example.com>`) and the domain of its address, which
/// names the `Message-ID`s.
#[derive(Debug, Clone)]
pub struct Sender {
    mailbox: Mailbox,
}

impl Sender {
    /// The sender from `Name <address>` or a bare address; `Err` saying why when it is not one.
    pub fn parse(from: &str) -> std::result::Result<Self, String> {
        let mailbox: Mailbox = from.trim().parse().map_err(|e| {
            format!("`{from}` is not a sender address (`Name <docs@example.com>`): {e}")
        })?;
        Ok(Self { mailbox })
    }

    /// The sender's mailbox.
    pub fn mailbox(&self) -> &Mailbox {
        &self.mailbox
    }

    /// The sender's bare address (`docs@example.com`): SES's `FromEmailAddress`.
    pub fn address(&self) -> String {
        self.mailbox.email.to_string()
    }

    /// The domain of the sender's address.
    pub fn domain(&self) -> &str {
        self.mailbox.email.domain()
    }

    /// The `Message-ID` of the mail with id `id`: the same for every attempt.
    pub fn message_id(&self, id: &str) -> String {
        let hash = hex::encode(Sha256::digest(id.as_bytes()));
        format!("<specpress.{}@{}>", &hash[..40], self.domain())
    }
}

/// A built message: its bytes as sent, and the subject (for tests and logs that name no address).
#[derive(Debug, Clone)]
pub struct Built {
    /// The lettre message (envelope included).
    pub message: Message,
    /// The composed parts.
    pub composed: Composed,
}

impl Built {
    /// The message as RFC 5322 bytes (CRLF line ends), what SMTP, the `.eml` file and SES carry.
    pub fn bytes(&self) -> Vec<u8> {
        self.message.formatted()
    }
}

fn header(name: &'static str, value: String) -> HeaderValue {
    HeaderValue::new(HeaderName::new_from_ascii_str(name), value)
}

/// The message of `mail` from `sender`. `Err` (invalid `to`) when the recipient is not an address (never logged).
pub fn build(sender: &Sender, mail: &Mail) -> Result<Built> {
    let to: Mailbox = mail
        .to
        .trim()
        .parse()
        .map_err(|_| DomainError::invalid("email", "is not a mail address"))?;
    let composed = compose(&mail.content);
    let mut builder = Message::builder()
        .from(sender.mailbox.clone())
        .to(to)
        .subject(composed.subject.clone())
        .message_id(Some(sender.message_id(&mail.id)))
        .raw_header(header("Auto-Submitted", "auto-generated".to_owned()));
    if let Some(url) = &composed.unsubscribe {
        builder = builder
            .raw_header(header("List-Unsubscribe", format!("<{url}>")))
            .raw_header(header(
                "List-Unsubscribe-Post",
                "List-Unsubscribe=One-Click".to_owned(),
            ));
    }
    let message = builder
        .multipart(MultiPart::alternative_plain_html(
            composed.text.clone(),
            composed.html.clone(),
        ))
        .map_err(DomainError::unexpected)?;
    Ok(Built { message, composed })
}

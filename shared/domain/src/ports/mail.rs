//! Outbound mail (issue 38): confirmation mails of readers who follow a documentation, release mails and digests.
//! Adapters (`shared/mail`): SMTP (`SPECPRESS_SMTP_URL`), `.eml` files in the data directory's outbox (`serve`
//! without SMTP), Amazon SES (AWS).

use async_trait::async_trait;

use crate::error::Result;

/// One message, composed by the domain (subject, both bodies, the unsubscribe link), sent by an adapter.
#[derive(Clone, PartialEq, Eq)]
pub struct Mail {
    /// The recipient's address (personal data: never logged; `Debug` hides it).
    pub to: String,
    /// Subject line (one line, no control characters).
    pub subject: String,
    /// The `text/plain` part.
    pub text: String,
    /// The `text/html` part (escaped, no script).
    pub html: String,
    /// The one-click unsubscribe URL (`List-Unsubscribe` with `List-Unsubscribe-Post: List-Unsubscribe=One-Click`,
    /// RFC 8058); `None` for a confirmation mail.
    pub list_unsubscribe: Option<String>,
    /// A stable id of this message (the same for every attempt of the same mail): the adapter derives its
    /// `Message-ID` from it, and a `.eml` outbox its file name.
    pub id: String,
}

impl std::fmt::Debug for Mail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mail")
            .field("id", &self.id)
            .field("subject", &self.subject)
            .finish_non_exhaustive()
    }
}

/// Sends mail.
#[async_trait]
pub trait Mailer: Send + Sync {
    /// Sends one message; `Err` when the transport refused it or could not be reached (the caller retries).
    async fn send(&self, mail: &Mail) -> Result<()>;
    /// Where mail goes, for the start-up log (`smtp://host:port`, the outbox folder, `SES`); never a password.
    fn describe(&self) -> String;
}

//! Outbound mail (issue 38): confirmation mails of readers who follow a documentation, release mails and digests.
//! The domain says what a mail tells ([`MailContent`]); the adapter (`shared/mail`) composes its text and HTML parts
//! from the site's templates (escaped, no script), adds the headers (`List-Unsubscribe` and
//! `List-Unsubscribe-Post: List-Unsubscribe=One-Click`, RFC 8058, on every mail but a confirmation) and sends it:
//! SMTP (`SPECPRESS_SMTP_URL`), `.eml` files in the data directory's outbox (`serve` without SMTP), Amazon SES (AWS).

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::notify::ChangeNote;

/// One message to one address.
#[derive(Clone, PartialEq, Eq)]
pub struct Mail {
    /// The recipient's address (personal data: never logged; `Debug` hides it).
    pub to: String,
    /// A stable id of this message, the same for every attempt of the same mail (a release mail: the follower and
    /// the release): the adapter derives its `Message-ID` from it, a `.eml` outbox its file name.
    pub id: String,
    /// What it tells.
    pub content: MailContent,
}

impl std::fmt::Debug for Mail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mail")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// What a mail tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MailContent {
    /// Asks the address's owner to confirm a follow request (double opt-in): nothing else is sent before.
    Confirm(Confirmation),
    /// One release of a followed documentation (cadence `release`).
    Release {
        /// The release.
        release: ReleaseNote,
        /// The follower's links.
        links: FollowLinks,
    },
    /// The releases of a period (cadence `daily` or `weekly`), grouped per documentation; never empty.
    Digest {
        /// `daily` or `weekly`.
        period: String,
        /// The releases, oldest first.
        releases: Vec<ReleaseNote>,
        /// The follower's links.
        links: FollowLinks,
    },
}

/// A confirmation request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmation {
    /// The followed documentation's or hub's title.
    pub title: String,
    /// Its page.
    pub page_url: String,
    /// What will be sent, as a sentence (`Every release`, `Breaking releases that touch GET /pets/{id}`, `A weekly
    /// digest`).
    pub scope: String,
    /// The single-use confirmation page (it asks for one click: mail scanners fetch links).
    pub confirm_url: String,
    /// Hours until the request expires.
    pub expires_in_hours: u32,
}

/// One release as a mail shows it (stored as a digest entry until its digest goes: serializable).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReleaseNote {
    /// The documentation's title.
    pub doc_title: String,
    /// The released document's `info.version`, when it has one.
    pub version: Option<String>,
    /// The branch.
    pub branch: String,
    /// When it was published.
    #[serde(with = "time::serde::rfc3339")]
    pub published_at: OffsetDateTime,
    /// Its change page.
    pub change_url: String,
    /// How many breaking changes it has.
    pub breaking: usize,
    /// The first changes, breaking first (empty for a private documentation: its mails carry titles and links,
    /// never change content).
    pub notes: Vec<ChangeNote>,
    /// Changes left out of `notes`.
    pub more: usize,
}

/// A follower's links, on every mail but a confirmation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FollowLinks {
    /// The page where the follower sees and changes what they follow.
    pub manage_url: String,
    /// The one-click unsubscribe URL (`List-Unsubscribe`; a POST there without `Origin` unsubscribes, a GET shows a
    /// page with one button).
    pub unsubscribe_url: String,
}

/// Sends mail.
#[async_trait]
pub trait Mailer: Send + Sync {
    /// Composes and sends one message; `Err` when the transport refused it or could not be reached (the caller
    /// retries).
    async fn send(&self, mail: &Mail) -> Result<()>;
    /// Where mail goes, for the start-up log (`smtp://host:port`, the outbox folder, `Amazon SES`); never a
    /// password.
    fn describe(&self) -> String;
}

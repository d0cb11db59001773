//! Outbound mail (issue 38), the adapter of [`specpress_domain::ports::Mailer`] (docs/mail.md):
//!
//! | File | What |
//! |---|---|
//! | `text.rs` | document strings cleaned and clipped before a template sees them |
//! | `compose.rs` | [`compose::compose`]: subject, text and HTML parts from the askama templates in `templates/mail/` |
//! | `message.rs` | the RFC 5322 message (lettre): `Message-ID`, RFC 8058 `List-Unsubscribe`, `Auto-Submitted` |
//! | `smtp.rs`, `outbox.rs`, `ses.rs` | the transports: SMTP, `.eml` files in a folder, Amazon SES v2 |
//! | `bounces.rs` | SES bounce and complaint notifications (through SNS): the addresses to suspend |
//!
//! Which transport a process uses is [`local_mailer`]'s and [`aws_mailer`]'s rule, from the [`Config`]'s
//! [`MailSettings`](specpress_config::MailSettings).

pub mod bounces;
pub mod compose;
pub mod message;
pub mod outbox;
pub mod ses;
pub mod smtp;
pub mod text;

use std::path::Path;
use std::sync::Arc;

use specpress_config::{Config, ConfigError, DEFAULT_LOCAL_MAIL_FROM, settings::problem};
use specpress_domain::ports::Mailer;

pub use message::Sender;
pub use outbox::EmlOutbox;
pub use ses::SesMailer;
pub use smtp::SmtpMailer;

/// The folder of the data directory that `.eml` mail goes to.
pub const OUTBOX_DIR: &str = "outbox";

/// The sender of `config` (`SPECPRESS_MAIL_FROM`), or `default` when unset; `Err` naming the variable when lettre
/// does not take it as a mailbox.
fn sender(config: &Config, default: &str) -> Result<Sender, ConfigError> {
    let from = config.mail.mail_from.as_deref().unwrap_or(default);
    Sender::parse(from).map_err(|e| problem("SPECPRESS_MAIL_FROM", e))
}

/// The mailer of `specpress serve`: SMTP when `SPECPRESS_SMTP_URL` is set, else `.eml` files in `data_dir`'s
/// `outbox/` folder; the sender `SPECPRESS_MAIL_FROM`, or `Specpress <specpress@localhost>`.
pub fn local_mailer(config: &Config, data_dir: &Path) -> Result<Arc<dyn Mailer>, ConfigError> {
    let sender = sender(config, DEFAULT_LOCAL_MAIL_FROM)?;
    Ok(match config.mail.smtp_url.as_deref() {
        Some(url) => {
            Arc::new(SmtpMailer::new(url, sender).map_err(|e| problem("SPECPRESS_SMTP_URL", e))?)
        }
        None => Arc::new(EmlOutbox::new(data_dir.join(OUTBOX_DIR), sender)),
    })
}

/// The mailer of a Lambda function: Amazon SES as `SPECPRESS_MAIL_FROM` when it is set (with the configuration set
/// `SPECPRESS_SES_CONFIGURATION_SET`, when set), else none (the deployment sends no mail: template.yaml's `MailFrom`
/// is empty).
pub fn aws_mailer(
    config: &Config,
    aws: &aws_config::SdkConfig,
) -> Result<Option<Arc<dyn Mailer>>, ConfigError> {
    if config.mail.mail_from.is_none() {
        return Ok(None);
    }
    let sender = sender(config, DEFAULT_LOCAL_MAIL_FROM)?;
    let mut mailer = SesMailer::new(ses::client(aws), sender);
    if let Some(set) = &config.mail.ses_configuration_set {
        mailer = mailer.with_configuration_set(set.clone());
    }
    Ok(Some(Arc::new(mailer)))
}

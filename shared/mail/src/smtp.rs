//! The SMTP transport: lettre's async SMTP client over tokio, from a connection URL (`SPECPRESS_SMTP_URL`):
//! `smtp://host:port` (plain, for a local server), `smtp://host:587?tls=required` (STARTTLS required),
//! `smtp://host?tls=opportunistic`, `smtps://user:password@host:465` (TLS from the first byte, rustls with the
//! Web PKI roots). Credentials in the URL are used for `AUTH` and shown nowhere: [`SmtpMailer::describe`] and every
//! error name the scheme, host and port only.

use std::time::Duration;

use async_trait::async_trait;
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use specpress_domain::ports::{Mail, Mailer};
use specpress_domain::{DomainError, Result};

use crate::message::{Sender, build};

/// How long one SMTP exchange may take before the attempt fails (the caller retries).
pub const SMTP_TIMEOUT: Duration = Duration::from_secs(30);

/// Sends mail through an SMTP server.
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    sender: Sender,
    shown: String,
}

impl std::fmt::Debug for SmtpMailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpMailer")
            .field("server", &self.shown)
            .finish_non_exhaustive()
    }
}

/// The URL without its credentials, query or path: `scheme://host:port`, plus the TLS mode when one is asked.
pub fn shown_url(url: &str) -> std::result::Result<String, String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("is not a URL ({e})"))?;
    let scheme = parsed.scheme();
    if scheme != "smtp" && scheme != "smtps" {
        return Err(format!(
            "must be an smtp:// or smtps:// URL, not {scheme}://"
        ));
    }
    let host = parsed
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or("has no host")?;
    let port = parsed
        .port()
        .unwrap_or(if scheme == "smtps" { 465 } else { 25 });
    let tls = parsed
        .query_pairs()
        .find(|(k, _)| k == "tls")
        .map(|(_, v)| format!(" (tls={v})"))
        .unwrap_or_default();
    Ok(format!("{scheme}://{host}:{port}{tls}"))
}

impl SmtpMailer {
    /// A mailer sending as `sender` through the server of `url`; `Err` saying what is wrong with the URL (never
    /// repeating it: it may hold a password).
    pub fn new(url: &str, sender: Sender) -> std::result::Result<Self, String> {
        let shown = shown_url(url)?;
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| {
                format!(
                    "is not a usable SMTP URL ({})",
                    e.to_string().replace(url, "…")
                )
            })?
            .timeout(Some(SMTP_TIMEOUT))
            .build();
        Ok(Self {
            transport,
            sender,
            shown,
        })
    }
}

#[async_trait]
impl Mailer for SmtpMailer {
    async fn send(&self, mail: &Mail) -> Result<()> {
        let built = build(&self.sender, mail)?;
        self.transport.send(built.message).await.map_err(|e| {
            // lettre's errors carry the server's answer, never our credentials; the recipient is not logged.
            tracing::warn!(server = %self.shown, mail = %mail.id, error = %e, "SMTP refused or unreachable");
            DomainError::unexpected(format!("SMTP {}: {e}", self.shown))
        })?;
        Ok(())
    }

    fn describe(&self) -> String {
        self.shown.clone()
    }
}

//! The Amazon SES transport: SES v2 `SendEmail` with raw content, the very MIME bytes the other transports send
//! (so every header, `List-Unsubscribe` included, is ours), from the sender identity of the configuration
//! (`SPECPRESS_MAIL_FROM`; template.yaml's `MailFrom`). The SDK's types stay in this file.

use async_trait::async_trait;
use aws_sdk_sesv2::Client;
use aws_sdk_sesv2::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_sesv2::primitives::Blob;
use aws_sdk_sesv2::types::{Destination, EmailContent, RawMessage};
use specpress_domain::ports::{Mail, Mailer};
use specpress_domain::{DomainError, Result};

use crate::message::{Sender, build};

/// Sends mail through Amazon SES.
pub struct SesMailer {
    client: Client,
    sender: Sender,
    configuration_set: Option<String>,
}

impl std::fmt::Debug for SesMailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SesMailer").finish_non_exhaustive()
    }
}

/// The SES v2 client of an AWS configuration (Lambda's, or `AWS_ENDPOINT_URL` for moto).
pub fn client(aws: &aws_config::SdkConfig) -> Client {
    Client::new(aws)
}

impl SesMailer {
    /// A mailer sending as `sender` with `client`.
    pub fn new(client: Client, sender: Sender) -> Self {
        Self {
            client,
            sender,
            configuration_set: None,
        }
    }

    /// The same mailer sending every mail with the configuration set `name` (its event destinations: bounces and
    /// complaints to the `mail-events` topic).
    pub fn with_configuration_set(mut self, name: impl Into<String>) -> Self {
        self.configuration_set = Some(name.into());
        self
    }
}

#[async_trait]
impl Mailer for SesMailer {
    async fn send(&self, mail: &Mail) -> Result<()> {
        let built = build(&self.sender, mail)?;
        let raw = RawMessage::builder()
            .data(Blob::new(built.bytes()))
            .build()
            .map_err(DomainError::unexpected)?;
        self.client
            .send_email()
            .from_email_address(self.sender.address())
            .destination(Destination::builder().to_addresses(mail.to.trim()).build())
            .content(EmailContent::builder().raw(raw).build())
            .set_configuration_set_name(self.configuration_set.clone())
            .send()
            .await
            .map_err(|e| {
                let code = match &e {
                    SdkError::ServiceError(s) => {
                        s.err().code().unwrap_or("service error").to_owned()
                    }
                    other => other.to_string(),
                };
                tracing::warn!(mail = %mail.id, error = %code, "SES refused or unreachable");
                DomainError::unexpected(format!("SES SendEmail: {code}"))
            })?;
        Ok(())
    }

    fn describe(&self) -> String {
        format!("Amazon SES as {}", self.sender.address())
    }
}

//! The `mail-events` Lambda's job (docs/mail.md): Amazon SES publishes bounces and complaints to an SNS topic, SNS
//! invokes the function with them, and every address of a permanent bounce or a complaint is suspended
//! ([`specpress_mail::bounces`] decides which). Addresses are personal data: only counts are logged.
//!
//! A record that is not an SES notification is counted and skipped (SNS would only deliver it again); a suspension
//! that fails (the store unreachable) fails the invocation, so Lambda retries the event (suspending twice is
//! harmless).

use std::future::Future;

use specpress_mail::bounces::{Suspension, from_lambda_event};

/// What one invocation did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Addresses suspended.
    pub suspended: usize,
    /// Records that were not SES notifications.
    pub skipped: usize,
}

/// Suspends, with `suspend`, every address the SNS event `event` asks to. `Err` when the event is not an SNS event
/// or a suspension failed.
pub async fn handle<F, Fut, E>(event: &serde_json::Value, suspend: F) -> Result<Outcome, String>
where
    F: Fn(Suspension) -> Fut,
    Fut: Future<Output = Result<(), E>>,
    E: std::fmt::Display,
{
    let (found, refused) = from_lambda_event(event).map_err(|e| e.to_string())?;
    if !refused.is_empty() {
        tracing::warn!(
            records = refused.len(),
            "SNS records that are not SES notifications skipped"
        );
    }
    let mut outcome = Outcome {
        suspended: 0,
        skipped: refused.len(),
    };
    for s in found {
        let reason = s.reason;
        suspend(s).await.map_err(|e| {
            tracing::error!(reason = ?reason, error = %e, "suspending an address failed");
            format!("suspending an address failed: {e}")
        })?;
        outcome.suspended += 1;
    }
    tracing::info!(
        suspended = outcome.suspended,
        skipped = outcome.skipped,
        "SES notifications handled"
    );
    Ok(outcome)
}

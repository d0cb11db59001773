//! The mail-events Lambda (subscribed to the SES bounce and complaint topic): wiring only. Parsing the notifications
//! and suspending the addresses are `specpress_workers::lambda::run_mail_events`'s (docs/mail.md).

use specpress_alloc as _; // The global allocator (mimalloc): each binary links it itself.

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    specpress_workers::lambda::run_mail_events().await
}

//! The digests Lambda (EventBridge, every 10 minutes): mails the daily and weekly digests of the readers who follow
//! a documentation or hub by email (issue 38, docs/followers.md). Wiring only: the job is
//! `specpress_workers::lambda::send_digests_once`.

use specpress_alloc as _; // The global allocator (mimalloc): each binary links it itself.
use specpress_workers::lambda::{run_scheduled, send_digests_once};

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    run_scheduled("sent", send_digests_once).await
}

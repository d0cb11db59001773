//! The outbox sweeper Lambda (EventBridge, every minute): re-sends committed events that never reached the webhook
//! queue. Wiring only: the job is `specpress_workers::lambda::sweep_once`.

use specpress_alloc as _; // The global allocator (mimalloc): each binary links it itself.
use specpress_workers::lambda::{run_scheduled, sweep_once};

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    run_scheduled("sent", sweep_once).await
}

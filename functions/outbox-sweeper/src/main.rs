//! The outbox sweeper Lambda (EventBridge, every minute): re-sends committed events that never reached the webhook
//! queue. Wiring only: the job is `specpress_workers::lambda::sweep_once`.

// The global allocator of every Specpress binary (mimalloc), linked by each binary itself.
use specpress_alloc as _;
use specpress_workers::lambda::{run_scheduled, sweep_once};

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    run_scheduled("sent", sweep_once).await
}

//! The webhook delivery Lambda (SQS consumer, `ReportBatchItemFailures`): wiring only. The batch handling, the
//! deadline and the partial batch response are `specpress_workers::lambda`'s.

// The global allocator of every Specpress binary (mimalloc), linked by each binary itself.
use specpress_alloc as _;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    specpress_workers::lambda::run_sqs_consumer().await
}

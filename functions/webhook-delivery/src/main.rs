//! The webhook delivery Lambda (SQS consumer, `ReportBatchItemFailures`): wiring only. The batch handling, the
//! deadline and the partial batch response are `specpress_workers::lambda`'s.

use specpress_alloc as _; // The global allocator (mimalloc): each binary links it itself.

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    specpress_workers::lambda::run_sqs_consumer().await
}

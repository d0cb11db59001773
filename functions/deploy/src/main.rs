//! The deploy Lambda: wiring only (the HTTP Lambda helper). With a webhook queue configured, committed events are
//! published to it right after each deploy transaction (the outbox sweeper covers failures).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_api::lambda::run(|w| {
        let state = match specpress_queue_sqs::publisher(&w.aws, &w.config) {
            Some(publisher) => w.state.with_publisher(publisher),
            None => w.state,
        };
        Ok(deploy::router(state).fallback(specpress_api::error::not_found_route))
    })
    .await
}

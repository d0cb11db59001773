//! The Try it Lambda: wiring only (the HTTP Lambda helper: tracing, configuration, clients built once, run).

use specpress_alloc as _;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_http_lambda::run(|w| {
        // `Host`-based routing: the pages of a verified custom hostname (`specpress_api::hosts`).
        let routes = specpress_try_it::router(w.state.clone());
        Ok(specpress_api::hosts::routed(w.state, routes))
    })
    .await
}

//! The hubs Lambda: wiring only. Its routes: hubs, reader tokens, custom hostnames (TXT lookups through
//! `specpress_dns`: the resolver `SPECPRESS_DNS_RESOLVER` names, or the system's); no spec or diff engine.

use specpress_alloc as _; // The global allocator (mimalloc): each binary links it itself.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_http_lambda::run(|w| {
        let dns = std::sync::Arc::new(specpress_dns::DnsTxt::from_env()?);
        let domains = specpress_api_domains::router(w.state.clone(), dns);
        let others = specpress_api_readers::router(w.state.clone()).merge(domains);
        Ok(specpress_api_hubs::router(w.state).merge(others))
    })
    .await
}

//! The hubs Lambda: wiring only (the HTTP Lambda helper: tracing, configuration, clients built once, run). The routes
//! are `specpress_api_hubs`', `specpress_api_readers`' (reader tokens of hubs and documentations) and the custom
//! hostname routes of `specpress_api_domains` (TXT lookups through `specpress_dns`, the resolver
//! `SPECPRESS_DNS_RESOLVER` names or the system's); this function links no spec or diff engine.

use std::sync::Arc;

use specpress_alloc as _; // The global allocator (mimalloc): each binary links it itself.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    specpress_http_lambda::run(|w| {
        let dns = specpress_dns::DnsTxt::from_env()?;
        let domains = specpress_api_domains::router(w.state.clone(), Arc::new(dns));
        Ok(specpress_api_hubs::router(w.state.clone())
            .merge(specpress_api_readers::router(w.state))
            .merge(domains))
    })
    .await
}

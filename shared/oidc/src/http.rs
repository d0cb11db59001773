//! openidconnect's HTTP client abstraction over Specpress's one outbound client ([`SafeClient`]): every request
//! to a provider (discovery, keys, token exchange) passes the fetch rules (public addresses only, loopback only
//! when `SPECPRESS_ALLOW_LOOPBACK_URLS=true` and never on Lambda, timeouts, body cap) and follows no redirect, as
//! openidconnect asks of its clients (a redirect is answered as the provider's error).

use std::future::Future;
use std::pin::Pin;

use openidconnect::{AsyncHttpClient, HttpRequest, HttpResponse};
use specpress_fetch::{FetchError, Origin, Outbound, SafeClient};

/// A [`SafeClient`] as openidconnect's asynchronous HTTP client.
#[derive(Clone, Debug)]
pub(crate) struct FetchHttp(pub(crate) SafeClient);

impl<'c> AsyncHttpClient<'c> for FetchHttp {
    type Error = FetchError;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, FetchError>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let url = parts.uri.to_string();
            // The request goes where openidconnect addresses it (the issuer's discovery document, the endpoints
            // and keys it names); the client's address rules apply to each.
            let origin = url::Url::parse(&url)
                .map(|u| Origin::of(&u).into_string())
                .map_err(|e| FetchError::InvalidUrl {
                    reason: e.to_string(),
                })?;
            let headers = parts
                .headers
                .iter()
                .filter_map(|(k, v)| {
                    v.to_str()
                        .ok()
                        .map(|v| (k.as_str().to_owned(), v.to_owned()))
                })
                .collect();
            let outbound = Outbound {
                method: parts.method.as_str().to_owned(),
                url,
                headers,
                body: (!body.is_empty()).then(|| bytes::Bytes::from(body)),
            };
            let fetched = self.0.send(outbound, &[origin]).await?;
            let mut response = http::Response::builder().status(fetched.status);
            if let Some(h) = response.headers_mut() {
                *h = fetched.headers;
            }
            response
                .body(fetched.bytes.to_vec())
                .map_err(|e| FetchError::Transport {
                    detail: e.to_string(),
                })
        })
    }
}

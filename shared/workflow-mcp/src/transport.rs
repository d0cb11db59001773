//! The engine's [`Transport`] over the one hardened HTTP client (`shared/fetch`): every request of a run goes
//! through it, limited to the origins of the document's servers (checked again at every redirect), public
//! addresses only (loopback with `SPECPRESS_ALLOW_LOOPBACK_URLS=true` outside Lambda), within its timeouts and its
//! body cap. What failed is told to the engine in user-safe words; the detail (resolved addresses, library errors)
//! goes to the log, never the headers or bodies, which may carry credentials.

use specpress_fetch::{FetchError, Outbound, SafeClient};
use specpress_workflow::{Transport, TransportError, WireRequest, WireResponse};

/// One run's transport: the client and the origins the run's document may reach.
pub struct FetchTransport<'a> {
    pub client: &'a SafeClient,
    pub origins: &'a [String],
}

fn failure(e: FetchError) -> TransportError {
    tracing::warn!(detail = %e.detail(), "a workflow request failed");
    match e {
        FetchError::Timeout { .. } => TransportError::Timeout,
        FetchError::BodyTooLarge { .. } => TransportError::TooLarge,
        e if e.is_refusal() => TransportError::Refused(e.user_message()),
        e => TransportError::Failed(e.user_message()),
    }
}

impl Transport for FetchTransport<'_> {
    async fn send(&self, req: WireRequest) -> Result<WireResponse, TransportError> {
        let request = Outbound {
            method: req.method,
            url: req.url,
            headers: req.headers,
            body: req.body.map(bytes::Bytes::from),
        };
        let got = self
            .client
            .send(request, self.origins)
            .await
            .map_err(failure)?;
        let headers = got
            .headers
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned())))
            .collect();
        Ok(WireResponse {
            status: got.status.as_u16(),
            headers,
            body: got.bytes.to_vec(),
        })
    }
}

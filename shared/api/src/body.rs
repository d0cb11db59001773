//! Request bodies with a byte limit, and JSON bodies on top of it.
//!
//! Over the limit, the answer must reach the client: a client still sending a large body when the server stops
//! reading gets a broken pipe instead of the answer (bump-cli printed `write EPIPE` and exited 0). So the rest of an
//! over-limit body is read and thrown away, within [`DRAIN_MAX_BYTES`] and [`DRAIN_MAX_TIME`], before answering.
//!
//! The answer names the limit and the way around it. It is `413 {message, errors}` for every client but bump-cli,
//! whose error printer shows nothing but "Unhandled API error (status: 413)" for that status: bump-cli (its
//! `User-Agent` starts with `bump-cli/`) gets the same body as `422`, which it prints attribute by attribute.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{FromRequest, Request};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use http_body_util::BodyExt;
use serde::de::DeserializeOwned;
use specpress_domain::DomainError;

use crate::{ApiConfig, ApiError, AppState, Runtime};

/// The most bytes of an over-limit body read (and discarded) so that its sender can read the answer.
pub const DRAIN_MAX_BYTES: u64 = 256 * 1024 * 1024;
/// The longest an over-limit body is read before the answer is sent anyway.
pub const DRAIN_MAX_TIME: Duration = Duration::from_secs(60);
/// A sender silent for this long is not sending any more: answer it.
pub const DRAIN_IDLE_TIME: Duration = Duration::from_secs(2);

/// A body over its limit: what the answer says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLarge {
    /// The limit in bytes.
    pub limit: usize,
    /// How many bytes the client sent or announced, when known (at least this many).
    pub size: Option<u64>,
    /// Where the service runs (what the advice says).
    pub runtime: Runtime,
    /// The client is bump-cli (answered 422 so that it prints the message).
    pub bump_cli: bool,
    /// The variable that sets the limit.
    pub setting: &'static str,
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

impl TooLarge {
    /// The sentence bump-cli prints after the attribute name, and the `message` of the answer.
    pub fn message(&self) -> String {
        let size = match self.size {
            Some(n) => format!("The request body is {} ({n} bytes)", mib(n)),
            None => "The request body is larger than this server accepts".to_owned(),
        };
        let limit = format!(
            "the limit is {} ({} bytes, {})",
            mib(self.limit as u64),
            self.limit,
            self.setting
        );
        let advice = match self.runtime {
            Runtime::Local => format!(
                "Start `specpress serve` with a larger {} (or its command-line option) to accept it.",
                self.setting
            ),
            Runtime::Lambda => "AWS Lambda also refuses events over 6 MB, where a JSON body counts about 1.23x (escaped once \
                 more): send larger bodies gzip-compressed (`Content-Encoding: gzip`; this limit counts decompressed bytes), compare large \
                 documents by URL (`POST /diffs` with `url` and `previous_url`), or ask the operator to raise the limit."
                .to_owned(),
        };
        format!("{size}; {limit}. {advice}")
    }
}

fn is_bump_cli(req: &Request) -> bool {
    req.headers()
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ua| ua.starts_with("bump-cli/"))
}

/// Reads and discards what is left of a body, within the drain budgets; returns the bytes read.
async fn drain(body: &mut Body) -> u64 {
    let mut read = 0u64;
    let work = async {
        while read < DRAIN_MAX_BYTES {
            match tokio::time::timeout(DRAIN_IDLE_TIME, body.frame()).await {
                Ok(Some(Ok(frame))) => {
                    if let Some(data) = frame.data_ref() {
                        read += data.len() as u64;
                    }
                }
                _ => break,
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_MAX_TIME, work).await;
    read
}

/// Whether the client asked to be told before sending its body (`Expect: 100-continue`, as curl does for large
/// bodies): until the server reads, it has sent nothing.
fn waits_to_send(req: &Request) -> bool {
    req.headers()
        .get(header::EXPECT)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"))
}

/// A request body lent to the handlers: what they leave unread stays with [`linger`].
struct Lent(Arc<Mutex<Body>>);

impl HttpBody for Lent {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let mut body = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        Pin::new(&mut *body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .size_hint()
    }
}

/// Finishes reading a request body its handler answered without reading (a 401 before a deploy's body, a 404 before
/// an MCP request's, a 429), within the drain budgets, before the answer is sent.
///
/// Otherwise the server closes a connection whose client is still sending, and the client's system, told so by a
/// reset, throws away the answer it had already received: Node's `fetch` (bump-cli's runtime) failed with `EPIPE`
/// instead of reading 401 on a 5 MB deploy with a wrong token, and the Python MCP client saw "Server disconnected"
/// instead of 404 when its body left in a second packet. A body already read to its end costs nothing here; on
/// Lambda the body is in memory and the drain is a loop over it.
pub async fn linger(req: Request, next: Next) -> Response {
    if waits_to_send(&req) || req.body().is_end_stream() {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let shared = Arc::new(Mutex::new(body));
    let lent = Body::new(Lent(Arc::clone(&shared)));
    let resp = next.run(Request::from_parts(parts, lent)).await;
    let mut rest = {
        let mut body = shared.lock().unwrap_or_else(PoisonError::into_inner);
        std::mem::take(&mut *body)
    };
    if !rest.is_end_stream() {
        drain(&mut rest).await;
    }
    resp
}

/// Reads a whole request body of at most `limit` bytes (decompressed, when it came compressed).
///
/// `setting` names the variable that sets `limit`, for the answer.
pub async fn read_limited(
    req: Request,
    limit: usize,
    setting: &'static str,
    config: &ApiConfig,
) -> Result<Bytes, ApiError> {
    let bump_cli = is_bump_cli(&req);
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let too_large = |size: Option<u64>| {
        ApiError::TooLarge(TooLarge {
            limit,
            size,
            runtime: config.runtime,
            bump_cli,
            setting,
        })
    };
    // A client that asked to be told before sending has sent nothing yet: answer at once.
    let waits = waits_to_send(&req);
    let mut body = req.into_body();
    if declared.is_some_and(|n| n > limit as u64) {
        if !waits {
            drain(&mut body).await;
        }
        return Err(too_large(declared));
    }
    let mut buf: Vec<u8> = Vec::with_capacity(declared.map_or(0, |n| n as usize));
    while let Some(frame) = body.frame().await {
        let frame =
            frame.map_err(|_| ApiError::BadJson("Could not read the request body.".into()))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        if buf.len() + data.len() > limit {
            let seen = (buf.len() + data.len()) as u64;
            let rest = drain(&mut body).await;
            // A drain cut short by its budget still proves at least this much.
            return Err(too_large(Some(seen + rest)));
        }
        buf.extend_from_slice(&data);
    }
    Ok(Bytes::from(buf))
}

/// A JSON body: over the configured limit is 413 (422 for bump-cli) `{message, errors}`; invalid JSON is 400
/// `{message}`; valid JSON of the wrong shape (anything but an object, or an object whose members do not fit) is 422
/// `{message, errors: {body: [...]}}`.
#[derive(Debug, Clone)]
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned + Send> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let bytes = read_limited(
            req,
            state.config.max_body_bytes,
            "SPECPRESS_MAX_BODY_BYTES",
            &state.config,
        )
        .await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::BadJson(
                "The request body is empty; send a JSON object.".into(),
            ));
        }
        // Every body of this API is one JSON object. serde would also read a struct from an array (`[]` filled a
        // body whose fields are all optional), so anything else is refused before it gets there.
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return Err(
                match serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
                    Ok(_) => DomainError::invalid(
                        "body",
                        "Invalid request body: expected a JSON object.".to_owned(),
                    )
                    .into(),
                    Err(e) => ApiError::BadJson(format!("Malformed JSON body: {e}")),
                },
            );
        }
        match serde_json::from_slice::<T>(&bytes) {
            Ok(v) => Ok(JsonBody(v)),
            Err(e) if e.classify() == serde_json::error::Category::Data => {
                Err(DomainError::invalid("body", format!("Invalid request body: {e}")).into())
            }
            Err(e) => Err(ApiError::BadJson(format!("Malformed JSON body: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn over(runtime: Runtime, bump_cli: bool) -> TooLarge {
        TooLarge {
            limit: 6 * 1024 * 1024,
            size: Some(13_000_000),
            runtime,
            bump_cli,
            setting: "SPECPRESS_MAX_BODY_BYTES",
        }
    }

    #[test]
    fn an_over_limit_message_names_the_size_the_limit_its_setting_and_the_way_around() {
        let local = over(Runtime::Local, false).message();
        assert!(local.contains("12.4 MiB (13000000 bytes)"), "{local}");
        assert!(
            local.contains("6.0 MiB (6291456 bytes, SPECPRESS_MAX_BODY_BYTES)"),
            "{local}"
        );
        assert!(local.contains("specpress serve"), "{local}");
        let aws = over(Runtime::Lambda, false).message();
        assert!(
            aws.contains("6 MB") && aws.contains("gzip") && aws.contains("url"),
            "{aws}"
        );
    }
}

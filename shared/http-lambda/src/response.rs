//! Answers shaped for the way AWS Lambda carries them: the response layer of the HTTP Lambda helper
//! ([`crate::run`] wraps every router with [`fit_for_lambda`], outside
//! [`with_common_layers`](specpress_api::with_common_layers)); `specpress serve` does not use it.
//!
//! `lambda_http` 1.x turns the router's answer into the JSON document the function returns to API Gateway (payload
//! format 2.0). Two things go wrong on the way, and this layer fixes both before they happen:
//!
//! - **Repeated headers.** The 2.0 response has one string per header name, and `aws_lambda_events` 1.2 serializes
//!   only the first value of each (`serialize_headers`), while `lambda_http` assumes values were already joined. A
//!   compressed page with `Vary: Cookie` then `Vary: accept-encoding` reached the client as `Vary: Cookie`. Every
//!   repeated header but `Set-Cookie` is joined here into one comma-separated value (RFC 9110 §5.3, list syntax);
//!   `Set-Cookie` values cannot be joined, and `lambda_http` moves each into the response's `cookies` field, which
//!   API Gateway turns back into one `Set-Cookie` header each.
//! - **The 6 MB invocation payload limit** ([`LAMBDA_PAYLOAD_LIMIT`]). The whole returned JSON counts, body included:
//!   a text body is JSON-string-escaped, a binary one base64-encoded ([`invocation_bytes`] mirrors `lambda_http`'s
//!   choice exactly). Over the limit Lambda fails the invocation and API Gateway answers a bare 500. So an answer
//!   that would not fit is gzip-compressed when the client accepts gzip and the answer is not already encoded, and
//!   otherwise replaced by [`refusal`]: `406 Not Acceptable` `{message, errors}` naming the size, the limit and the
//!   way around it (ask for gzip: `curl --compressed`).
//!
//! Why 406: the request is valid and the resource exists, but none of its representations this deployment can
//! deliver is acceptable to the client as it asked (RFC 9110 §15.5.7): the identity coding is too large for the
//! Lambda payload, and the client did not accept gzip. 413 is about request content, 422 would say the request is
//! malformed, and a 5xx would say the fault is the server's and hide the fix behind a generic message. bump-cli,
//! whose error printer shows words only for 400, 401, 404 and 422, gets the same body as 422, as for request bodies
//! over the limit ([`specpress_api::body`]); it always accepts gzip, so it can only meet the rarer "too large even
//! compressed" answer.
//!
//! Bodies are not buffered without a bound: an answer whose size the body announces and which fits even in the
//! worst case passes untouched (still streaming); any other is read up to [`MAX_INSPECTED_BYTES`] (or
//! [`MAX_COMPRESSIBLE_BYTES`] when it may be compressed here), one frame past that at most, and refused beyond.
//! `lambda_http` then reads the (fitting) body whole anyway.

use std::io::Write as _;

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt as _;
use serde_json::json;

use specpress_cpu::CpuGate;

/// AWS Lambda's limit on a synchronous invocation's payload, request and response each: 6 MB, i.e. 6,291,456 bytes
/// ("Invocation payload (request and response): 6 MB each for request and response (synchronous)", Lambda quotas,
/// <https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html>; the `Invoke` API: "For synchronous
/// invocations, the maximum payload size is 6 MB"). It is not configurable. For a response it is the size of the
/// JSON document the function returns, envelope, headers and encoded body together. (Lambda's own error for an
/// oversized response has been reported naming 6,291,556 bytes; this keeps to the documented figure.)
pub const LAMBDA_PAYLOAD_LIMIT: usize = 6 * 1024 * 1024;

/// Bytes allowed for the fixed part of the returned JSON (its keys, braces, status code and flags: under 100 bytes
/// with `lambda_http` 1.3), with room for fields a later `lambda_http` may add. Headers and cookies are counted
/// exactly, on top.
pub const ENVELOPE_ALLOWANCE: usize = 1024;

/// The most of a body read to measure it when it may not be compressed here: no body over twice the limit can fit,
/// whatever its encoding (a text body in an unusual charset shrinks at most by half when `lambda_http` decodes it).
pub const MAX_INSPECTED_BYTES: usize = 2 * LAMBDA_PAYLOAD_LIMIT;

/// The most of a body read to compress it here (it is compressed only once whole). Every answer of these routers is
/// built in memory and well under this (documents are at most `SPECPRESS_MAX_DOCUMENT_BYTES`, 32 MiB by default).
pub const MAX_COMPRESSIBLE_BYTES: usize = 64 * 1024 * 1024;

/// The gzip level used here, the one of the public site's compression layer.
const GZIP_LEVEL: u32 = 5;

/// The `errors` attribute of a refusal (bump-cli prints it before the message).
const ERRORS_ATTRIBUTE: &str = "response";

/// Wraps a router with the Lambda response layer, for the payload limit of AWS Lambda ([`LAMBDA_PAYLOAD_LIMIT`]).
pub fn fit_for_lambda(router: Router) -> Router {
    fit_for_lambda_within(router, LAMBDA_PAYLOAD_LIMIT)
}

/// Wraps a router with the Lambda response layer, for a payload limit of `limit` bytes (tests use smaller ones).
pub fn fit_for_lambda_within(router: Router, limit: usize) -> Router {
    router.layer(axum::middleware::from_fn_with_state(
        PayloadLimit(limit),
        fit_response,
    ))
}

/// The payload limit the layer enforces, in bytes.
#[derive(Debug, Clone, Copy)]
struct PayloadLimit(usize);

/// Middleware of [`fit_for_lambda`]: joins repeated headers, then makes the answer fit the payload limit.
async fn fit_response(
    State(PayloadLimit(limit)): State<PayloadLimit>,
    req: Request,
    next: Next,
) -> Response {
    let client = Client::of(req.headers());
    let mut resp = next.run(req).await;
    join_repeated_headers(resp.headers_mut());
    fit(resp, client, limit).await
}

/// What the request said that matters here.
#[derive(Debug, Clone, Copy)]
struct Client {
    /// The client accepts gzip-coded answers.
    gzip: bool,
    /// The client is bump-cli (refusals are 422 so that it prints them).
    bump_cli: bool,
}

impl Client {
    fn of(headers: &HeaderMap) -> Self {
        Client {
            gzip: accepts_gzip(headers),
            bump_cli: headers
                .get(header::USER_AGENT)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|ua| ua.starts_with("bump-cli/")),
        }
    }
}

/// Whether `Accept-Encoding` accepts gzip (`gzip` or `x-gzip`, else `*`, with a non-zero weight; RFC 9110 §12.5.3).
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    let (mut gzip, mut any) = (None, None);
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else {
            continue;
        };
        for item in value.split(',') {
            let mut params = item.split(';');
            let coding = params.next().unwrap_or_default().trim();
            let weight = params
                .filter_map(|p| {
                    let (name, value) = p.split_once('=')?;
                    name.trim()
                        .eq_ignore_ascii_case("q")
                        .then(|| value.trim().parse::<f32>().unwrap_or(0.0))
                })
                .next()
                .unwrap_or(1.0);
            if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
                gzip = Some(weight);
            } else if coding == "*" {
                any = Some(weight);
            }
        }
    }
    gzip.or(any).is_some_and(|w| w > 0.0)
}

/// Joins the values of every repeated header but `Set-Cookie` into one, separated by `, ` (RFC 9110 list syntax),
/// so that the API Gateway 2.0 response, which keeps one value per name, keeps them all. Order is kept.
pub fn join_repeated_headers(headers: &mut HeaderMap) {
    let repeated: Vec<HeaderName> = headers
        .keys()
        .filter(|name| {
            *name != header::SET_COOKIE && headers.get_all(*name).iter().nth(1).is_some()
        })
        .cloned()
        .collect();
    for name in repeated {
        let mut joined = Vec::new();
        for value in headers.get_all(&name) {
            if !joined.is_empty() {
                joined.extend_from_slice(b", ");
            }
            joined.extend_from_slice(value.as_bytes());
        }
        // Valid header value bytes joined by ", " are a valid header value.
        if let Ok(value) = HeaderValue::from_bytes(&joined) {
            headers.insert(name, value);
        }
    }
}

/// How `lambda_http` 1.x will put a body into the returned JSON (its `ConvertBody` for `http::Response`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyEncoding {
    /// Base64 (`isBase64Encoded: true`): any `Content-Encoding`, and every type not listed as text.
    Base64,
    /// A JSON string of the UTF-8 text: no `Content-Type`, or a text type (`text/*`, `application/json`,
    /// `application/javascript`, `application/xml`, `application/yaml`, `+json`/`+xml`/`+yaml`, or
    /// `x-lambda-http-content-encoding: text`) in UTF-8.
    Utf8Text,
    /// A JSON string of a text type in another charset, which `lambda_http` decodes into UTF-8 first.
    OtherText,
}

/// The prefixes of the content types `lambda_http` sends as text (`TEXT_ENCODING_PREFIXES`, case-sensitive).
const TEXT_PREFIXES: [&str; 5] = [
    "text",
    "application/json",
    "application/javascript",
    "application/xml",
    "application/yaml",
];
/// The suffixes of the media types `lambda_http` sends as text (`TEXT_ENCODING_SUFFIXES`).
const TEXT_SUFFIXES: [&str; 3] = ["+xml", "+yaml", "+json"];

impl BodyEncoding {
    /// The encoding `lambda_http` 1.x picks for a response with these headers.
    pub fn of(headers: &HeaderMap) -> Self {
        if headers.contains_key(header::CONTENT_ENCODING) {
            return BodyEncoding::Base64;
        }
        let Some(value) = headers.get(header::CONTENT_TYPE) else {
            return BodyEncoding::Utf8Text;
        };
        let content_type = value.to_str().unwrap_or_default();
        let mime = content_type.trim().split(';').next().unwrap_or_default();
        let text = TEXT_PREFIXES.iter().any(|p| content_type.starts_with(p))
            || TEXT_SUFFIXES.iter().any(|s| mime.ends_with(s))
            || headers
                .get("x-lambda-http-content-encoding")
                .is_some_and(|v| v == "text");
        match (text, declares_utf8(content_type)) {
            (false, _) => BodyEncoding::Base64,
            (true, true) => BodyEncoding::Utf8Text,
            (true, false) => BodyEncoding::OtherText,
        }
    }

    /// The bytes the body takes in the returned JSON, quotes included: exact for base64 and UTF-8 text (invalid
    /// sequences become U+FFFD as `lambda_http` decodes them), an upper bound otherwise.
    pub fn json_bytes(self, body: &[u8]) -> usize {
        match self {
            BodyEncoding::Base64 => base64_len(body.len()) + 2,
            // A leading UTF-16 byte order mark switches `lambda_http`'s decoder to UTF-16: count the worst case.
            BodyEncoding::Utf8Text
                if !body.starts_with(&[0xFF, 0xFE]) && !body.starts_with(&[0xFE, 0xFF]) =>
            {
                2 + body
                    .utf8_chunks()
                    .map(|c| {
                        escaped_len(c.valid().as_bytes())
                            + if c.invalid().is_empty() { 0 } else { 3 }
                    })
                    .sum::<usize>()
            }
            _ => Self::worst_case(body.len()),
        }
    }

    /// The most bytes a body of `len` bytes can take in the returned JSON.
    fn max_json_bytes(self, len: usize) -> usize {
        match self {
            BodyEncoding::Base64 => base64_len(len) + 2,
            _ => Self::worst_case(len),
        }
    }

    /// Any text: at most 3 bytes of UTF-8 per byte decoded, and at most 6 bytes per control character escaped.
    fn worst_case(len: usize) -> usize {
        len.saturating_mul(6).saturating_add(2)
    }
}

/// Whether a content type's charset is UTF-8 (absent, or named so); an unknown one counts as not.
fn declares_utf8(content_type: &str) -> bool {
    let charset = content_type.split(';').skip(1).find_map(|p| {
        let (name, value) = p.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"'))
    });
    charset.is_none_or(|c| {
        ["utf-8", "utf8", "unicode-1-1-utf-8"]
            .iter()
            .any(|u| c.eq_ignore_ascii_case(u))
    })
}

/// Length of the standard, padded base64 of `n` bytes.
fn base64_len(n: usize) -> usize {
    n.div_ceil(3).saturating_mul(4)
}

/// Length of UTF-8 text inside a JSON string as serde_json writes it (`"` and `\` and the control characters
/// escaped; `\b \f \n \r \t` in two bytes, the others as `\u00XX`; nothing else).
fn escaped_len(text: &[u8]) -> usize {
    text.len()
        + text
            .iter()
            .map(|&b| match b {
                b'"' | b'\\' | 0x08 | 0x0C | b'\n' | b'\r' | b'\t' => 1,
                0x00..=0x1F => 5,
                _ => 0,
            })
            .sum::<usize>()
}

/// The bytes headers and cookies take in the returned 2.0 JSON: `"name":"value",` per header but `Set-Cookie`, and
/// `"value",` per `Set-Cookie` (which `lambda_http` moves into `cookies`).
pub fn headers_json_bytes(headers: &HeaderMap) -> usize {
    headers
        .iter()
        .map(|(name, value)| {
            let value = escaped_len(value.as_bytes());
            if name == header::SET_COOKIE {
                value + 3
            } else {
                name.as_str().len() + value + 6
            }
        })
        .sum()
}

/// The size of the JSON document `lambda_http` 1.x returns for an API Gateway 2.0 request answered with `headers`
/// (repeated ones already joined) and `body`: never less than the real size, at most [`ENVELOPE_ALLOWANCE`] more.
pub fn invocation_bytes(headers: &HeaderMap, body: &[u8]) -> usize {
    ENVELOPE_ALLOWANCE + headers_json_bytes(headers) + BodyEncoding::of(headers).json_bytes(body)
}

/// Makes `resp` (headers joined) fit `limit`: unchanged, gzip-compressed, or refused.
async fn fit(resp: Response, client: Client, limit: usize) -> Response {
    let encoding = BodyEncoding::of(resp.headers());
    let fixed = ENVELOPE_ALLOWANCE + headers_json_bytes(resp.headers());
    // The common case: a body announcing its size, which fits whatever it holds, is not read here.
    if let Some(len) = resp.body().size_hint().upper()
        && fixed.saturating_add(encoding.max_json_bytes(usize::try_from(len).unwrap_or(usize::MAX)))
            <= limit
    {
        return resp;
    }
    let compressible = client.gzip
        && !resp.headers().contains_key(header::CONTENT_ENCODING)
        && !resp.headers().contains_key(header::CONTENT_RANGE);
    let cap = if compressible {
        MAX_COMPRESSIBLE_BYTES.max(2 * limit)
    } else {
        2 * limit
    };
    let (parts, body) = resp.into_parts();
    let read = match read_capped(body, cap).await {
        Ok(read) => read,
        Err(e) => {
            tracing::error!(error = %e, "the response body failed while being read");
            return internal_error();
        }
    };
    let Read::Whole(bytes) = read else {
        return refusal(
            &parts.headers,
            client,
            Oversize::Unread { read: cap },
            limit,
        );
    };
    let size = fixed + encoding.json_bytes(&bytes);
    if size <= limit {
        return Response::from_parts(parts, Body::from(bytes));
    }
    if !compressible {
        let oversize = Oversize::Whole {
            body: bytes.len(),
            payload: size,
        };
        return refusal(&parts.headers, client, oversize, limit);
    }
    let body_len = bytes.len();
    let compressed = match CpuGate::shared().run(move || gzip(&bytes)).await {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => {
            tracing::error!(error = %e, "gzip failed");
            return internal_error();
        }
        Err(e) => {
            tracing::error!(error = %e, "gzip could not run");
            return internal_error();
        }
    };
    let mut parts = parts;
    mark_gzipped(&mut parts.headers);
    let size = invocation_bytes(&parts.headers, &compressed);
    if size > limit {
        let oversize = Oversize::Compressed {
            body: body_len,
            compressed: compressed.len(),
            payload: size,
        };
        return refusal(&parts.headers, client, oversize, limit);
    }
    tracing::info!(
        body = body_len,
        compressed = compressed.len(),
        "compressed an answer over the Lambda payload limit"
    );
    Response::from_parts(parts, Body::from(compressed))
}

/// What [`read_capped`] read.
enum Read {
    /// The whole body.
    Whole(Bytes),
    /// More than the cap, and the body had not ended.
    Partial,
}

/// Reads `body` until it ends or more than `cap` bytes were read (the frame that crosses the cap is kept: it is
/// already in memory).
async fn read_capped(mut body: Body, cap: usize) -> Result<Read, axum::Error> {
    let mut chunks: Vec<Bytes> = Vec::new();
    let mut len = 0usize;
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame?.into_data() else {
            continue;
        };
        len += data.len();
        chunks.push(data);
        if len > cap && !body.is_end_stream() {
            return Ok(Read::Partial);
        }
    }
    Ok(Read::Whole(match chunks.len() {
        0 => Bytes::new(),
        1 => chunks.swap_remove(0),
        _ => {
            let mut all = Vec::with_capacity(len);
            for c in &chunks {
                all.extend_from_slice(c);
            }
            Bytes::from(all)
        }
    }))
}

/// The gzip member of `bytes`.
fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(bytes.len() / 8),
        flate2::Compression::new(GZIP_LEVEL),
    );
    encoder.write_all(bytes)?;
    encoder.finish()
}

/// The headers of an answer this layer compressed: `Content-Encoding: gzip`, `Vary: Accept-Encoding`, no length or
/// ranges, and a strong `ETag` made weak (the bytes changed; RFC 9110 §8.8.1).
fn mark_gzipped(headers: &mut HeaderMap) {
    headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    headers.remove(header::CONTENT_LENGTH);
    headers.remove(header::ACCEPT_RANGES);
    add_vary_accept_encoding(headers);
    if let Some(tag) = headers.get(header::ETAG)
        && !tag.as_bytes().starts_with(b"W/")
    {
        let mut weak = b"W/".to_vec();
        weak.extend_from_slice(tag.as_bytes());
        if let Ok(weak) = HeaderValue::from_bytes(&weak) {
            headers.insert(header::ETAG, weak);
        }
    }
}

/// Adds `Accept-Encoding` to `Vary` unless it is there (or `Vary: *`), as one joined value.
fn add_vary_accept_encoding(headers: &mut HeaderMap) {
    let listed = headers.get_all(header::VARY).iter().any(|v| {
        v.to_str().is_ok_and(|v| {
            v.split(',')
                .any(|n| n.trim() == "*" || n.trim().eq_ignore_ascii_case("accept-encoding"))
        })
    });
    if !listed {
        headers.append(header::VARY, HeaderValue::from_static("accept-encoding"));
        join_repeated_headers(headers);
    }
}

/// Why an answer does not fit.
#[derive(Debug, Clone, Copy)]
enum Oversize {
    /// Read whole and not compressed here: `body` bytes, `payload` bytes as Lambda carries it.
    Whole { body: usize, payload: usize },
    /// Still too large gzip-compressed here: `body` bytes, `compressed` once compressed, `payload` as carried.
    Compressed {
        body: usize,
        compressed: usize,
        payload: usize,
    },
    /// Not read to its end: more than `read` bytes.
    Unread { read: usize },
}

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// The message of a refusal: the size, the limit, and the way around it when there is one (`fixable`: the client
/// did not accept gzip and the answer was not compressed).
fn refusal_message(oversize: Oversize, fixable: bool, limit: usize) -> String {
    let size = match oversize {
        Oversize::Whole { body, payload } => format!(
            "The response is {} ({body} bytes; {payload} bytes as AWS Lambda carries it)",
            mib(body)
        ),
        Oversize::Compressed {
            body,
            compressed,
            payload,
        } => format!(
            "The response is {} ({body} bytes), and {compressed} bytes gzip-compressed ({payload} bytes as AWS \
             Lambda carries it)",
            mib(body)
        ),
        Oversize::Unread { read } => {
            format!("The response is larger than {} ({read} bytes)", mib(read))
        }
    };
    let advice = match oversize {
        _ if fixable => {
            "Ask for it compressed: send `Accept-Encoding: gzip` (curl: `--compressed`)."
        }
        Oversize::Compressed { .. } => "It is too large for this deployment even compressed.",
        _ => "It is too large for this deployment to send.",
    };
    format!(
        "{size}, over the {} ({limit} bytes) response payload limit of AWS Lambda, where this deployment runs. \
         {advice}",
        mib(limit)
    )
}

/// A 500 with the generic message (details were logged).
fn internal_error() -> Response {
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        axum::Json(json!({"message": "Internal server error"})),
    )
        .into_response()
}

/// The answer that replaces one too large for the payload limit: 406 (422 for bump-cli) `{message, errors}`, with
/// the original's headers but those describing its content, `Vary: Accept-Encoding` and `Cache-Control: no-store`.
fn refusal(original: &HeaderMap, client: Client, oversize: Oversize, limit: usize) -> Response {
    tracing::warn!(
        ?oversize,
        limit,
        "refused an answer over the Lambda payload limit"
    );
    let fixable = !client.gzip && !original.contains_key(header::CONTENT_ENCODING);
    let message = refusal_message(oversize, fixable, limit);
    let status = if client.bump_cli {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::NOT_ACCEPTABLE
    };
    let body = json!({ "message": message, "errors": { ERRORS_ATTRIBUTE: [message] } });
    let mut resp = (status, axum::Json(body)).into_response();
    let content = [
        header::CONTENT_TYPE,
        header::CONTENT_LENGTH,
        header::CONTENT_ENCODING,
        header::CONTENT_RANGE,
        header::CONTENT_DISPOSITION,
        header::CONTENT_LANGUAGE,
        header::CONTENT_LOCATION,
        header::ACCEPT_RANGES,
        header::ETAG,
        header::LAST_MODIFIED,
        header::EXPIRES,
        header::CACHE_CONTROL,
    ];
    let headers = resp.headers_mut();
    for (name, value) in original {
        if !content.contains(name) {
            headers.append(name.clone(), value.clone());
        }
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    add_vary_accept_encoding(headers);
    join_repeated_headers(headers);
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (n, v) in pairs {
            h.append(HeaderName::from_static(n), HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn gzip_is_accepted_by_name_or_star_unless_weighted_zero() {
        let accepts = |v: &'static str| accepts_gzip(&headers(&[("accept-encoding", v)]));
        assert!(accepts("gzip"));
        assert!(accepts("br, GZIP;q=0.5"));
        assert!(accepts("x-gzip"));
        assert!(accepts("*"));
        assert!(accepts("gzip, deflate, br, zstd"));
        assert!(!accepts("br"));
        assert!(!accepts("gzip;q=0"));
        assert!(!accepts("gzip;q=0, *"));
        assert!(!accepts("*;q=0"));
        assert!(!accepts("identity"));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }

    #[test]
    fn repeated_headers_but_set_cookie_are_joined_in_order() {
        let mut h = headers(&[
            ("vary", "Cookie"),
            ("set-cookie", "a=1"),
            ("vary", "accept-encoding"),
            ("set-cookie", "b=2"),
            ("content-type", "application/json"),
        ]);
        join_repeated_headers(&mut h);
        assert_eq!(h["vary"], "Cookie, accept-encoding");
        assert_eq!(h.get_all("set-cookie").iter().count(), 2);
        assert_eq!(h["content-type"], "application/json");
    }

    #[test]
    fn the_body_encoding_follows_lambda_http() {
        let of = |pairs: &[(&'static str, &'static str)]| BodyEncoding::of(&headers(pairs));
        assert_eq!(of(&[]), BodyEncoding::Utf8Text);
        assert_eq!(
            of(&[("content-type", "application/json")]),
            BodyEncoding::Utf8Text
        );
        assert_eq!(
            of(&[("content-type", "text/html; charset=utf-8")]),
            BodyEncoding::Utf8Text
        );
        assert_eq!(
            of(&[("content-type", "application/problem+json")]),
            BodyEncoding::Utf8Text
        );
        assert_eq!(
            of(&[("content-type", "text/plain; charset=iso-8859-1")]),
            BodyEncoding::OtherText
        );
        assert_eq!(
            of(&[("content-type", "application/octet-stream")]),
            BodyEncoding::Base64
        );
        assert_eq!(
            of(&[("content-type", "Application/JSON")]),
            BodyEncoding::Base64
        );
        assert_eq!(
            of(&[
                ("content-type", "application/json"),
                ("content-encoding", "gzip")
            ]),
            BodyEncoding::Base64
        );
    }

    #[test]
    fn text_sizes_count_escapes_and_replacement_characters() {
        let text = BodyEncoding::Utf8Text;
        assert_eq!(text.json_bytes(b"abc"), 5);
        assert_eq!(text.json_bytes(b"a\"b\\c\n"), 11);
        assert_eq!(text.json_bytes(b"\x01"), 8);
        assert_eq!(text.json_bytes("é".as_bytes()), 4);
        // One invalid byte becomes U+FFFD (3 bytes).
        assert_eq!(text.json_bytes(b"a\xFFb"), 7);
        assert_eq!(BodyEncoding::Base64.json_bytes(b"abcd"), 10);
    }
}

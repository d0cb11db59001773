//! The Lambda response layer through `lambda_http`'s own conversion: each answer is turned into the API Gateway 2.0
//! response exactly as `lambda_http::run` does (its `Adapter` over an API Gateway 2.0 event) and serialized with
//! serde_json, as `lambda_runtime` sends it. What is checked is what API Gateway would receive.

use std::io::Read as _;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use axum::routing::get;
use base64::Engine as _;
use http_body_util::BodyExt as _;
use lambda_http::request::LambdaRequest;
use lambda_http::{Context as LambdaContext, LambdaEvent};
use serde_json::{Value, json};
use specpress_http_lambda::response::{
    ENVELOPE_ALLOWANCE, LAMBDA_PAYLOAD_LIMIT, MAX_COMPRESSIBLE_BYTES, MAX_INSPECTED_BYTES,
    fit_for_lambda, invocation_bytes, join_repeated_headers,
};
use tower::ServiceExt as _;

/// A JSON document of about `bytes` bytes that looks like an API description: descriptions with quotes, escaped
/// newlines and non-ASCII text, so that JSON-escaping it again (as Lambda carries text) grows it.
fn big_json(bytes: usize) -> Bytes {
    let mut out = String::with_capacity(bytes + 1024);
    out.push_str(r#"{"openapi":"3.0.3","info":{"title":"Big","version":"1"},"paths":{"#);
    let mut i = 0usize;
    while out.len() < bytes {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            r#""/repos/{{owner}}/{{repo}}/thing{i}":{{"get":{{"summary":"Get thing {i}","description":"Gets the \"thing\" number {i}.\n\nSee [the docs](https://example.com/docs/{i}) – café ✓","responses":{{"200":{{"description":"OK"}}}}}}}}"#
        ));
        i += 1;
    }
    out.push_str("}}");
    Bytes::from(out)
}

/// The answer of every route of the test routers: `body` as JSON, with repeated `Vary` and `Link` headers and two
/// cookies.
fn answer(body: Bytes) -> Response {
    let mut resp = Response::new(Body::from(body));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.append(header::VARY, HeaderValue::from_static("Cookie"));
    h.append(header::VARY, HeaderValue::from_static("Origin"));
    h.append(
        header::LINK,
        HeaderValue::from_static("</a.css>; rel=preload"),
    );
    h.append(
        header::LINK,
        HeaderValue::from_static("</b.js>; rel=preload"),
    );
    h.append(header::SET_COOKIE, HeaderValue::from_static("a=1; Path=/"));
    h.append(header::SET_COOKIE, HeaderValue::from_static("b=2; Path=/"));
    resp
}

/// A router answering `body` at `/doc.json`, without the Lambda layer.
fn router(body: Bytes) -> Router {
    Router::new().route(
        "/doc.json",
        get(move || {
            let body = body.clone();
            async move { answer(body) }
        }),
    )
}

/// The same router as the public site builds it: compressed by tower-http when the client asks.
fn compressing_router(body: Bytes) -> Router {
    router(body).layer(
        tower_http::compression::CompressionLayer::new()
            .quality(tower_http::CompressionLevel::Precise(5)),
    )
}

/// What the HTTP Lambda helper runs: the common layers, then the Lambda response layer.
fn on_lambda(router: Router) -> Router {
    fit_for_lambda(specpress_api::with_common_layers(router))
}

/// An API Gateway HTTP API (payload format 2.0) event for `GET path` with `headers`.
fn event(path: &str, headers: &[(&str, &str)]) -> LambdaEvent<LambdaRequest> {
    let mut h = serde_json::Map::new();
    h.insert(
        "host".into(),
        json!("abc.execute-api.eu-west-1.amazonaws.com"),
    );
    for (n, v) in headers {
        h.insert((*n).into(), json!(v));
    }
    let event = json!({
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": "",
        "headers": h,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc",
            "domainName": "abc.execute-api.eu-west-1.amazonaws.com",
            "domainPrefix": "abc",
            "http": {"method": "GET", "path": path, "protocol": "HTTP/1.1", "sourceIp": "192.0.2.1",
                     "userAgent": "test"},
            "requestId": "id",
            "routeKey": "$default",
            "stage": "$default",
            "time": "12/Mar/2026:19:03:58 +0000",
            "timeEpoch": 1_583_348_638_390u64
        },
        "isBase64Encoded": false
    });
    let request: LambdaRequest = serde_json::from_value(event).expect("an API Gateway 2.0 event");
    LambdaEvent::new(request, LambdaContext::default())
}

/// The JSON the function returns to API Gateway for `event`, as `lambda_http::run` builds and `lambda_runtime`
/// serializes it.
async fn invoke(app: Router, event: LambdaEvent<LambdaRequest>) -> Vec<u8> {
    let adapter = lambda_http::Adapter::from(app);
    let response = adapter.oneshot(event).await.expect("infallible");
    serde_json::to_vec(&response).expect("the response serializes")
}

fn parse(payload: &[u8]) -> Value {
    serde_json::from_slice(payload).expect("JSON")
}

fn header<'a>(v: &'a Value, name: &str) -> &'a str {
    v["headers"][name].as_str().unwrap_or_default()
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("a gzip body");
    out
}

fn cookies(v: &Value) -> Vec<&str> {
    v["cookies"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The body of a 2.0 response, decoded.
fn body_bytes(v: &Value) -> Vec<u8> {
    let body = v["body"].as_str().unwrap_or_default();
    if v["isBase64Encoded"] == json!(true) {
        base64::engine::general_purpose::STANDARD
            .decode(body)
            .expect("base64")
    } else {
        body.as_bytes().to_vec()
    }
}

fn assert_all_values_kept(v: &Value) {
    let vary = header(v, "vary").to_ascii_lowercase();
    assert!(
        vary.contains("cookie") && vary.contains("origin"),
        "vary: {vary}"
    );
    let link = header(v, "link");
    assert!(
        link.contains("a.css") && link.contains("b.js"),
        "link: {link}"
    );
    assert_eq!(cookies(v), ["a=1; Path=/", "b=2; Path=/"]);
    assert!(
        v["headers"].get("set-cookie").is_none(),
        "cookies travel in `cookies` only"
    );
}

#[tokio::test]
async fn a_14_mb_json_answer_to_a_gzip_client_is_compressed_under_the_payload_limit_with_every_header_value()
 {
    // GIVEN a 14 MB JSON answer, which is more than the limit as Lambda carries it
    let doc = big_json(14 * 1024 * 1024);
    assert!(doc.len() > LAMBDA_PAYLOAD_LIMIT * 2);
    // WHEN a client that accepts gzip asks for it through API Gateway 2.0
    let payload = invoke(
        on_lambda(router(doc.clone())),
        event("/doc.json", &[("accept-encoding", "gzip, deflate, br")]),
    )
    .await;
    // THEN the returned JSON fits, and carries the whole document gzip-compressed with every header value
    assert!(
        payload.len() < LAMBDA_PAYLOAD_LIMIT,
        "{} bytes",
        payload.len()
    );
    let v = parse(&payload);
    assert_eq!(v["statusCode"], json!(200));
    assert_eq!(v["isBase64Encoded"], json!(true));
    assert_eq!(header(&v, "content-encoding"), "gzip");
    assert!(
        header(&v, "vary")
            .to_ascii_lowercase()
            .contains("accept-encoding")
    );
    assert_all_values_kept(&v);
    assert!(
        gunzip(&body_bytes(&v)) == doc,
        "the gzip body is the document"
    );
}

#[tokio::test]
async fn a_14_mb_json_answer_to_a_client_without_gzip_is_a_406_naming_the_size_the_limit_and_the_way_around()
 {
    let doc = big_json(14 * 1024 * 1024);
    let payload = invoke(on_lambda(router(doc.clone())), event("/doc.json", &[])).await;
    assert!(payload.len() < LAMBDA_PAYLOAD_LIMIT);
    let v = parse(&payload);
    assert_eq!(v["statusCode"], json!(406));
    assert_eq!(v["isBase64Encoded"], json!(false));
    assert_eq!(header(&v, "content-type"), "application/json");
    assert_eq!(header(&v, "cache-control"), "no-store");
    let vary = header(&v, "vary").to_ascii_lowercase();
    assert!(
        vary.contains("accept-encoding") && vary.contains("cookie"),
        "vary: {vary}"
    );
    assert_all_values_kept(&v);
    let body: Value = serde_json::from_slice(&body_bytes(&v)).expect("a JSON body");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("({} bytes;", doc.len())),
        "{message}"
    );
    assert!(message.contains("6.0 MiB (6291456 bytes)"), "{message}");
    assert!(
        message.contains("Accept-Encoding: gzip") && message.contains("--compressed"),
        "{message}"
    );
    assert_eq!(body["errors"]["response"], json!([message]));
}

#[tokio::test]
async fn bump_cli_gets_the_refusal_as_a_422_which_it_prints() {
    let doc = big_json(7 * 1024 * 1024);
    let payload = invoke(
        on_lambda(router(doc)),
        event(
            "/doc.json",
            &[("user-agent", "bump-cli/2.11.0 linux-x64 node-v22")],
        ),
    )
    .await;
    let v = parse(&payload);
    assert_eq!(v["statusCode"], json!(422));
    let body: Value = serde_json::from_slice(&body_bytes(&v)).expect("a JSON body");
    assert!(
        body["errors"]["response"][0]
            .as_str()
            .is_some_and(|m| m.contains("6291456 bytes"))
    );
}

#[tokio::test]
async fn escaping_counts_a_body_under_6_mb_whose_escaped_form_is_over_is_compressed() {
    // 4 MiB of quotes: 8 MiB once JSON-escaped into the returned document.
    let quotes = Bytes::from(vec![b'"'; 4 * 1024 * 1024]);
    let app = || on_lambda(router(quotes.clone()));
    let refused = parse(&invoke(app(), event("/doc.json", &[])).await);
    assert_eq!(refused["statusCode"], json!(406));
    let payload = invoke(app(), event("/doc.json", &[("accept-encoding", "gzip")])).await;
    assert!(payload.len() < LAMBDA_PAYLOAD_LIMIT);
    let v = parse(&payload);
    assert_eq!(v["statusCode"], json!(200));
    assert!(gunzip(&body_bytes(&v)) == quotes);
}

#[tokio::test]
async fn a_page_the_router_compressed_keeps_both_vary_values_which_lambda_http_alone_would_cut() {
    let doc = big_json(64 * 1024);
    let gzip = [("accept-encoding", "gzip")];
    // Without the layer, the 2.0 response keeps only the first `Vary` (the bug this layer fixes).
    let bare = parse(
        &invoke(
            specpress_api::with_common_layers(compressing_router(doc.clone())),
            event("/doc.json", &gzip),
        )
        .await,
    );
    assert!(
        !header(&bare, "vary")
            .to_ascii_lowercase()
            .contains("accept-encoding")
    );
    // With it, every value is there.
    let v = parse(
        &invoke(
            on_lambda(compressing_router(doc.clone())),
            event("/doc.json", &gzip),
        )
        .await,
    );
    assert_eq!(header(&v, "content-encoding"), "gzip");
    let vary = header(&v, "vary").to_ascii_lowercase();
    assert!(vary.contains("accept-encoding"), "vary: {vary}");
    assert_all_values_kept(&v);
    assert!(gunzip(&body_bytes(&v)) == doc);
}

#[tokio::test]
async fn a_14_mb_answer_the_router_compressed_itself_fits_as_is() {
    let doc = big_json(14 * 1024 * 1024);
    let payload = invoke(
        on_lambda(compressing_router(doc.clone())),
        event("/doc.json", &[("accept-encoding", "gzip")]),
    )
    .await;
    assert!(payload.len() < LAMBDA_PAYLOAD_LIMIT);
    let v = parse(&payload);
    assert_eq!(v["statusCode"], json!(200));
    assert!(gunzip(&body_bytes(&v)) == doc);
}

#[tokio::test]
async fn a_small_answer_passes_unchanged_as_text() {
    let doc = Bytes::from_static(br#"{"a":"b \"c\""}"#);
    let v = parse(&invoke(on_lambda(router(doc.clone())), event("/doc.json", &[])).await);
    assert_eq!(v["statusCode"], json!(200));
    assert_eq!(v["isBase64Encoded"], json!(false));
    assert_eq!(v["body"], json!(r#"{"a":"b \"c\""}"#));
    assert!(v["headers"].get("content-encoding").is_none());
    assert_all_values_kept(&v);
}

/// The answer of `router` to `GET /doc.json` as the layer sees it: repeated headers joined, body read.
async fn seen_by_the_layer(router: Router) -> (HeaderMap, Bytes) {
    let req = axum::http::Request::get("/doc.json")
        .body(Body::empty())
        .expect("request");
    let resp = specpress_api::with_common_layers(router)
        .oneshot(req)
        .await
        .expect("infallible");
    let (mut parts, body) = resp.into_parts();
    join_repeated_headers(&mut parts.headers);
    (
        parts.headers,
        body.collect().await.expect("body").to_bytes(),
    )
}

#[tokio::test]
async fn the_computed_invocation_size_is_the_real_one_plus_at_most_the_envelope_allowance() {
    let bodies: Vec<(&str, Bytes)> = vec![
        ("application/json", big_json(100_000)),
        (
            "text/plain; charset=utf-8",
            Bytes::from_static(b"tabs\tand\x01controls\x1f \"q\" \\ \r\n"),
        ),
        (
            "text/plain",
            Bytes::from_static(b"invalid \xFF\xFE utf-8 \xE2\x82"),
        ),
        (
            "application/octet-stream",
            Bytes::from(vec![0u8, 1, 2, 3, 255, 254, 7]),
        ),
        ("image/png", Bytes::from(vec![7u8; 1000])),
        (
            "application/problem+json",
            Bytes::from_static(b"{\"x\":\"\xC3\xA9\"}"),
        ),
    ];
    for (content_type, body) in bodies {
        let make = || {
            let body = body.clone();
            Router::new().route(
                "/doc.json",
                get(move || {
                    let mut resp = answer(body.clone());
                    resp.headers_mut()
                        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
                    async move { resp }
                }),
            )
        };
        let (headers, seen) = seen_by_the_layer(make()).await;
        let computed = invocation_bytes(&headers, &seen);
        let real = invoke(on_lambda(make()), event("/doc.json", &[]))
            .await
            .len();
        assert!(
            computed >= real,
            "{content_type}: computed {computed} < real {real}"
        );
        // Headers and body are counted exactly: what is left is the envelope's fixed part.
        let fixed = real - (computed - ENVELOPE_ALLOWANCE);
        assert!(
            fixed > 0 && fixed <= 128,
            "{content_type}: envelope {fixed}"
        );
    }
}

/// A body that never ends, counting the bytes read from it.
struct Endless(Arc<AtomicUsize>);

const CHUNK: usize = 64 * 1024;

impl HttpBody for Endless {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        static DATA: [u8; CHUNK] = [b'a'; CHUNK];
        self.0.fetch_add(CHUNK, Ordering::Relaxed);
        Poll::Ready(Some(Ok(http_body::Frame::data(Bytes::from_static(&DATA)))))
    }
}

#[tokio::test]
async fn a_body_that_does_not_end_is_read_only_up_to_the_cap_then_refused() {
    for (accept, cap) in [
        (None, MAX_INSPECTED_BYTES),
        (Some("gzip"), MAX_COMPRESSIBLE_BYTES),
    ] {
        let read = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&read);
        let app = Router::new().route(
            "/doc.json",
            get(move || {
                let counter = Arc::clone(&counter);
                async move { Response::new(Body::new(Endless(counter))) }
            }),
        );
        let headers: Vec<(&str, &str)> =
            accept.map(|a| ("accept-encoding", a)).into_iter().collect();
        let v = parse(&invoke(on_lambda(app), event("/doc.json", &headers)).await);
        assert_eq!(v["statusCode"], json!(406), "{accept:?}");
        let read = read.load(Ordering::Relaxed);
        assert!(read > cap && read <= cap + CHUNK, "{accept:?}: read {read}");
    }
}

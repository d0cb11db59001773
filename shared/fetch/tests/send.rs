//! `SafeClient::send`, the client of workflow steps: any method with headers and a body, only to the origins the
//! caller allows, redirects followed only while they stay on them.

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::{reply, response, serve};
use specpress_fetch::{AddressClass, FetchError, FetchPolicy, Outbound, SafeClient};

fn client() -> SafeClient {
    SafeClient::new(FetchPolicy {
        allow_loopback: true,
        connect_timeout: Duration::from_millis(500),
        total_timeout: Duration::from_secs(3),
        ..FetchPolicy::default()
    })
    .expect("client")
}

fn post(url: String) -> Outbound {
    Outbound {
        method: "POST".into(),
        url,
        headers: vec![
            ("Content-Type".into(), "application/json".into()),
            ("X-Api-Key".into(), "k-123".into()),
            // The stack owns framing and the target: these never leave as given.
            ("Host".into(), "evil.example".into()),
            ("Content-Length".into(), "1".into()),
        ],
        body: Some(Bytes::from_static(b"{\"name\":\"Rex\"}")),
    }
}

#[tokio::test]
async fn a_request_to_an_allowed_origin_carries_its_method_headers_and_body() {
    let server = serve(|_, s| reply(s, response(201, &[("x-id", "7")], b"{\"id\":7}"))).await;
    let origin = format!("http://127.0.0.1:{}", server.port());
    let got = client()
        .send(post(server.url("/pets?x=1")), &[origin])
        .await
        .expect("sent");
    assert_eq!(got.status, 201);
    assert_eq!(&got.bytes[..], b"{\"id\":7}");
    assert_eq!(
        got.headers.get("x-id").map(|v| v.as_bytes()),
        Some(&b"7"[..])
    );
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].method, "POST");
    assert_eq!(seen[0].path, "/pets?x=1");
    assert_eq!(seen[0].body, b"{\"name\":\"Rex\"}");
    assert_eq!(seen[0].header("x-api-key"), Some("k-123"));
    assert_eq!(
        seen[0].header("host"),
        Some(format!("127.0.0.1:{}", server.port()).as_str())
    );
    assert_eq!(seen[0].header("content-length"), Some("14"));
}

#[tokio::test]
async fn a_url_off_the_allowed_origins_is_refused_before_any_connection() {
    let server = serve(|_, s| reply(s, response(200, &[], b"{}"))).await;
    let err = client()
        .send(post(server.url("/")), &["https://api.example.com".into()])
        .await
        .expect_err("refused");
    assert_eq!(
        err,
        FetchError::OriginNotAllowed {
            origin: format!("http://127.0.0.1:{}", server.port())
        }
    );
    assert!(err.is_refusal());
    assert!(server.seen().is_empty());
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_refused_and_the_other_server_never_called() {
    let other = serve(|_, s| reply(s, response(200, &[], b"secret"))).await;
    let target = other.url("/collect");
    let server = serve(move |_, s| {
        let target = target.clone();
        async move { reply(s, response(307, &[("location", &target)], b"")).await }
    })
    .await;
    let origin = format!("http://127.0.0.1:{}", server.port());
    let err = client()
        .send(post(server.url("/pets")), &[origin])
        .await
        .expect_err("refused");
    assert!(
        matches!(err, FetchError::OriginNotAllowed { .. }),
        "{err:?}"
    );
    assert!(other.seen().is_empty(), "the body and its key never left");
}

#[tokio::test]
async fn a_redirect_within_the_origin_is_followed_307_keeping_the_body_303_as_a_get() {
    let server = serve(|req, s| async move {
        let bytes = match req.path.as_str() {
            "/a" => response(307, &[("location", "/b")], b""),
            "/b" => response(303, &[("location", "/c")], b""),
            _ => response(200, &[], b"done"),
        };
        reply(s, bytes).await
    })
    .await;
    let origin = format!("http://127.0.0.1:{}", server.port());
    let got = client()
        .send(post(server.url("/a")), &[origin])
        .await
        .expect("followed");
    assert_eq!(&got.bytes[..], b"done");
    let seen = server.seen();
    let trail: Vec<(&str, &str, usize)> = seen
        .iter()
        .map(|r| (r.method.as_str(), r.path.as_str(), r.body.len()))
        .collect();
    assert_eq!(
        trail,
        [("POST", "/a", 14), ("POST", "/b", 14), ("GET", "/c", 0)]
    );
}

#[tokio::test]
async fn a_private_address_stays_refused_even_when_the_caller_allows_its_origin() {
    let err = client()
        .send(
            post("http://169.254.169.254/latest/meta-data/".into()),
            &["http://169.254.169.254".into()],
        )
        .await
        .expect_err("refused");
    assert!(
        matches!(
            err,
            FetchError::BlockedAddress {
                class: AddressClass::LinkLocal,
                ..
            }
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_body_over_the_cap_is_an_error_not_a_truncated_answer() {
    let server = serve(|_, s| reply(s, response(200, &[], &vec![b'x'; 64 * 1024]))).await;
    let small = SafeClient::new(FetchPolicy {
        allow_loopback: true,
        max_body_bytes: 1024,
        ..FetchPolicy::default()
    })
    .expect("client");
    let origin = format!("http://127.0.0.1:{}", server.port());
    let err = small
        .send(post(server.url("/big")), &[origin])
        .await
        .expect_err("capped");
    assert_eq!(err, FetchError::BodyTooLarge { limit: 1024 });
}

#[tokio::test]
async fn send_truncating_keeps_the_first_bytes_of_a_body_over_the_cap_and_says_so() {
    let server = serve(|_, s| reply(s, response(200, &[], &vec![b'x'; 64 * 1024]))).await;
    let small = SafeClient::new(FetchPolicy {
        allow_loopback: true,
        max_body_bytes: 1024,
        ..FetchPolicy::default()
    })
    .expect("client");
    let origin = format!("http://127.0.0.1:{}", server.port());
    let got = small
        .send_truncating(post(server.url("/big")), &[origin])
        .await
        .expect("cut, not refused");
    assert_eq!((got.status.as_u16(), got.bytes.len()), (200, 1024));
    assert!(got.truncated);
    let server = serve(|_, s| reply(s, response(200, &[], b"short"))).await;
    let origin = format!("http://127.0.0.1:{}", server.port());
    let got = small
        .send_truncating(post(server.url("/short")), &[origin])
        .await
        .expect("sent");
    assert_eq!((&got.bytes[..], got.truncated), (&b"short"[..], false));
}

#[tokio::test]
async fn a_failure_s_detail_for_the_logs_never_carries_the_url_and_its_query() {
    // A closed port: the connection is refused, and the stack's message would name the whole URL.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = closed.local_addr().expect("addr").port();
    drop(closed);
    let url = format!("http://127.0.0.1:{port}/pets?api_key=k-secret-77");
    let err = client()
        .send(
            Outbound {
                method: "GET".into(),
                url,
                headers: vec![],
                body: None,
            },
            &[format!("http://127.0.0.1:{port}")],
        )
        .await
        .expect_err("refused connection");
    assert!(matches!(err, FetchError::Connect { .. }), "{err:?}");
    assert!(!err.detail().contains("k-secret-77"), "{}", err.detail());
    assert!(!err.user_message().contains("k-secret-77"));
}

/// A request with every kind of credential a caller may send: `Authorization`, a cookie, an API key in a header
/// and one in the query, beside headers and a query parameter that carry none.
fn credentialed(url: String) -> Outbound {
    Outbound {
        method: "GET".into(),
        url,
        headers: vec![
            ("Authorization".into(), "Bearer t-secret-41".into()),
            ("Cookie".into(), "session=c-secret-42".into()),
            ("X-Api-Key".into(), "k-secret-43".into()),
            (
                "Proxy-Authorization".into(),
                "Basic cC1zZWNyZXQtNDQ=".into(),
            ),
            ("Accept".into(), "application/json".into()),
            ("Accept-Language".into(), "fr".into()),
        ],
        body: None,
    }
}

const CREDENTIALS: [&str; 5] = [
    "t-secret-41",
    "c-secret-42",
    "k-secret-43",
    "cC1zZWNyZXQtNDQ=",
    "q-secret-45",
];

/// A server that redirects every request (307) to `target` + `/landing` + the query it received + a parameter of
/// its own, as an API that moved does.
async fn redirecting_to(target: String) -> common::Server {
    serve(move |req, s| {
        let query = req
            .path
            .split_once('?')
            .map(|(_, q)| format!("?{q}"))
            .unwrap_or_default();
        let location = format!("{target}/landing{query}&via=moved");
        async move { reply(s, response(307, &[("location", &location)], b"")).await }
    })
    .await
}

#[tokio::test]
async fn a_redirect_to_another_allowed_origin_carries_no_credential_of_the_caller() {
    // GIVEN two origins the caller allows; the first redirects to the second, repeating the query in Location
    let other = serve(|_, s| reply(s, response(200, &[], b"landed"))).await;
    let server = redirecting_to(format!("http://127.0.0.1:{}", other.port())).await;
    let allowed = [
        format!("http://127.0.0.1:{}", server.port()),
        format!("http://127.0.0.1:{}", other.port()),
    ];

    // WHEN a request with credentials follows the redirect
    let got = client()
        .send(
            credentialed(server.url("/start?api_key=q-secret-45&page=2")),
            &allowed,
        )
        .await
        .expect("followed");

    // THEN the other origin answered, and received no credential: no Authorization, cookie or API-key header, and
    // nothing of the caller's query string, where the key travelled, as browsers and curl do; what carries none
    // still goes
    assert_eq!(&got.bytes[..], b"landed");
    let seen = other.seen();
    assert_eq!(seen.len(), 1);
    let landed = &seen[0];
    let everything = format!("{} {:?}", landed.path, landed.headers);
    for secret in CREDENTIALS {
        assert!(
            !everything.contains(secret),
            "{secret} crossed: {everything}"
        );
    }
    assert_eq!(landed.path, "/landing?via=moved");
    assert_eq!(landed.header("accept"), Some("application/json"));
    assert_eq!(landed.header("accept-language"), Some("fr"));
    // (the first origin did receive them: it is the one they were meant for)
    let first = &server.seen()[0];
    assert_eq!(first.header("authorization"), Some("Bearer t-secret-41"));
    assert_eq!(first.header("x-api-key"), Some("k-secret-43"));
}

#[tokio::test]
async fn a_redirect_within_one_origin_keeps_the_callers_credentials() {
    // GIVEN a server that redirects to itself, repeating the query
    let server = serve(|req, s| async move {
        let bytes = if req.path.starts_with("/landing") {
            response(200, &[], b"landed")
        } else {
            let query = req
                .path
                .split_once('?')
                .map(|(_, q)| format!("?{q}"))
                .unwrap_or_default();
            response(302, &[("location", &format!("/landing{query}"))], b"")
        };
        reply(s, bytes).await
    })
    .await;
    let allowed = [format!("http://127.0.0.1:{}", server.port())];

    // WHEN a request with credentials follows it
    let got = client()
        .send(
            credentialed(server.url("/start?api_key=q-secret-45")),
            &allowed,
        )
        .await
        .expect("followed");

    // THEN the second hop still carries them
    assert_eq!(&got.bytes[..], b"landed");
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1].path, "/landing?api_key=q-secret-45");
    assert_eq!(seen[1].header("authorization"), Some("Bearer t-secret-41"));
    assert_eq!(seen[1].header("cookie"), Some("session=c-secret-42"));
    assert_eq!(seen[1].header("x-api-key"), Some("k-secret-43"));
}

#[tokio::test]
async fn credentials_dropped_at_a_cross_origin_hop_stay_dropped_when_a_later_hop_comes_back() {
    // GIVEN origin A redirecting to B, which redirects back to A
    let a_port = std::sync::Arc::new(std::sync::atomic::AtomicU16::new(0));
    let b = {
        let a_port = a_port.clone();
        serve(move |_, s| {
            let back = format!(
                "http://127.0.0.1:{}/back",
                a_port.load(std::sync::atomic::Ordering::SeqCst)
            );
            async move { reply(s, response(302, &[("location", &back)], b"")).await }
        })
        .await
    };
    let b_base = format!("http://127.0.0.1:{}", b.port());
    let a = serve(move |req, s| {
        let to_b = format!("{b_base}/b");
        async move {
            let bytes = if req.path == "/back" {
                response(200, &[], b"back")
            } else {
                response(302, &[("location", &to_b)], b"")
            };
            reply(s, bytes).await
        }
    })
    .await;
    a_port.store(a.port(), std::sync::atomic::Ordering::SeqCst);
    let allowed = [
        format!("http://127.0.0.1:{}", a.port()),
        format!("http://127.0.0.1:{}", b.port()),
    ];

    // WHEN a credentialed request goes A -> B -> A
    let got = client()
        .send(credentialed(a.url("/start")), &allowed)
        .await
        .expect("followed");

    // THEN neither B nor the return to A carries the credentials
    assert_eq!(&got.bytes[..], b"back");
    let seen_a = a.seen();
    assert_eq!(seen_a.len(), 2);
    assert_eq!(seen_a[1].header("authorization"), None);
    assert_eq!(seen_a[1].header("x-api-key"), None);
    assert_eq!(b.seen()[0].header("cookie"), None);
}

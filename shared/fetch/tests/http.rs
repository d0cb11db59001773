//! Behaviour against a real HTTP server on 127.0.0.1: loopback gating, DNS pinning,
//! re-checked redirects, body caps after decompression, timeouts, and webhook POSTs.

mod common;

use std::io::Write as _;
use std::time::Duration;

use common::{StubResolver, reply, response, serve};
use http::{HeaderMap, HeaderValue};
use specpress_fetch::{AddressClass, FetchError, FetchPolicy, SafeClient, TimeoutPhase};
use tokio::io::AsyncWriteExt;

fn policy(allow_loopback: bool) -> FetchPolicy {
    FetchPolicy {
        allow_loopback,
        connect_timeout: Duration::from_millis(500),
        total_timeout: Duration::from_secs(3),
        ..FetchPolicy::default()
    }
}

fn client(allow_loopback: bool) -> SafeClient {
    SafeClient::new(policy(allow_loopback)).expect("client")
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).expect("compress");
    enc.finish().expect("finish")
}

#[tokio::test]
async fn local_server_is_refused_by_default_and_served_with_allow_loopback() {
    let server = serve(|_, s| {
        reply(
            s,
            response(
                200,
                &[("content-type", "application/json")],
                b"{\"ok\":true}",
            ),
        )
    })
    .await;
    let url = server.url("/openapi.json");

    let err = client(false)
        .get(&url)
        .await
        .expect_err("refused by default");
    assert!(
        matches!(
            err,
            FetchError::BlockedAddress {
                class: AddressClass::Loopback,
                literal: true,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(server.seen().is_empty(), "no request may reach the server");

    let body = client(true)
        .get(&url)
        .await
        .expect("allowed with allow_loopback");
    assert_eq!(body.status, 200);
    assert_eq!(&body.bytes[..], b"{\"ok\":true}");
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn the_address_checked_is_the_address_dialled_and_dns_is_asked_once() {
    let server = serve(|_, s| reply(s, response(200, &[], b"pinned"))).await;
    let dns = StubResolver::new(&[("docs.test", &["127.0.0.1"])]);
    let c = SafeClient::with_resolver(policy(true), dns.clone()).expect("client");
    let body = c
        .get(&format!("http://docs.test:{}/spec.yaml", server.port()))
        .await
        .expect("served through the stub answer");
    assert_eq!(&body.bytes[..], b"pinned");
    assert_eq!(
        dns.count("docs.test"),
        1,
        "one lookup per connection, no re-resolution"
    );
    let seen = server.seen();
    assert_eq!(
        seen[0].header("host"),
        Some(format!("docs.test:{}", server.port()).as_str())
    );

    // Without allow_loopback the same name is refused at resolution and never dialled.
    let strict = SafeClient::with_resolver(policy(false), dns.clone()).expect("client");
    let err = strict
        .get(&format!("http://docs.test:{}/spec.yaml", server.port()))
        .await
        .expect_err("refused");
    assert!(
        matches!(err, FetchError::BlockedAddress { literal: false, .. }),
        "{err:?}"
    );
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn redirects_to_internal_targets_are_refused_at_every_hop() {
    let dns = StubResolver::new(&[("internal.test", &["10.0.0.7"])]);
    for (location, class) in [
        (
            "http://169.254.169.254/latest/meta-data/",
            AddressClass::LinkLocal,
        ),
        ("http://2852039166/", AddressClass::LinkLocal),
        (
            "http://[::ffff:169.254.169.254]/",
            AddressClass::Ipv4Embedded,
        ),
        ("http://[fd00:ec2::254]/", AddressClass::UniqueLocal),
        ("http://internal.test/", AddressClass::Private),
    ] {
        let loc = location.to_owned();
        let server = serve(move |_, s| {
            let loc = loc.clone();
            async move { reply(s, response(302, &[("location", &loc)], b"")).await }
        })
        .await;
        let c = SafeClient::with_resolver(policy(true), dns.clone()).expect("client");
        let err = c
            .get(&server.url("/start"))
            .await
            .expect_err("redirect refused");
        match err {
            FetchError::BlockedAddress { class: got, .. } => assert_eq!(got, class, "{location}"),
            other => panic!("{location}: expected BlockedAddress, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn redirect_to_another_scheme_is_refused() {
    let server =
        serve(|_, s| reply(s, response(301, &[("location", "file:///etc/passwd")], b""))).await;
    let err = client(true)
        .get(&server.url("/"))
        .await
        .expect_err("refused");
    assert!(
        matches!(err, FetchError::UnsupportedScheme { .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn redirects_are_followed_up_to_the_limit_and_refused_beyond() {
    // /hop/N redirects (relatively) to /hop/N-1; /hop/0 serves the document.
    let server = serve(|req, s| async move {
        let n: u32 = req.path.trim_start_matches("/hop/").parse().unwrap_or(0);
        let bytes = if n == 0 {
            response(200, &[], b"final")
        } else {
            response(307, &[("location", &format!("/hop/{}", n - 1))], b"")
        };
        reply(s, bytes).await
    })
    .await;
    let c = client(true);
    let ok = c
        .get(&server.url("/hop/3"))
        .await
        .expect("3 redirects are allowed");
    assert_eq!(&ok.bytes[..], b"final");
    assert_eq!(ok.final_url.path(), "/hop/0");
    let err = c
        .get(&server.url("/hop/4"))
        .await
        .expect_err("4 redirects are too many");
    assert_eq!(err, FetchError::TooManyRedirects { max: 3 });

    let no_follow = SafeClient::new(FetchPolicy {
        max_redirects: 0,
        ..policy(true)
    })
    .expect("client");
    let raw = no_follow
        .get(&server.url("/hop/1"))
        .await
        .expect("3xx returned as is");
    assert_eq!(raw.status, 307);
    assert!(raw.error_for_status().is_err());
}

#[tokio::test]
async fn redirect_without_location_is_refused() {
    let server = serve(|_, s| reply(s, response(302, &[], b""))).await;
    let err = client(true)
        .get(&server.url("/"))
        .await
        .expect_err("refused");
    assert!(matches!(err, FetchError::BadRedirect { .. }), "{err:?}");
}

#[tokio::test]
async fn gzip_bomb_is_stopped_at_the_cap_counted_after_decompression() {
    // 64 MiB of zeros compress to about 64 KiB: far below the 1 MiB cap on the wire.
    let bomb = gzip(&vec![0u8; 64 * 1024 * 1024]);
    assert!(bomb.len() < 1024 * 1024);
    let server = serve(move |_, s| {
        let bomb = bomb.clone();
        async move { reply(s, response(200, &[("content-encoding", "gzip")], &bomb)).await }
    })
    .await;
    let c = SafeClient::new(FetchPolicy {
        max_body_bytes: 1024 * 1024,
        ..policy(true)
    })
    .expect("client");
    let err = c.get(&server.url("/bomb")).await.expect_err("bomb stopped");
    assert_eq!(err, FetchError::BodyTooLarge { limit: 1024 * 1024 });
    let accept = server.seen()[0]
        .header("accept-encoding")
        .unwrap_or_default()
        .to_owned();
    assert!(accept.contains("gzip"), "{accept}");
}

#[tokio::test]
async fn compressed_bodies_under_the_cap_are_decompressed() {
    let doc: Vec<u8> = b"openapi: 3.1.0\n".repeat(10_000);
    let gz = gzip(&doc);
    let mut deflate = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    deflate.write_all(&doc).expect("compress");
    let deflated = deflate.finish().expect("finish");
    let server = serve(move |req, s| {
        let (gz, deflated) = (gz.clone(), deflated.clone());
        async move {
            let bytes = if req.path == "/gz" {
                response(200, &[("content-encoding", "gzip")], &gz)
            } else {
                response(200, &[("content-encoding", "deflate")], &deflated)
            };
            reply(s, bytes).await
        }
    })
    .await;
    let c = SafeClient::new(FetchPolicy {
        max_body_bytes: doc.len() as u64,
        ..policy(true)
    })
    .expect("client");
    for path in ["/gz", "/deflate"] {
        let body = c.get(&server.url(path)).await.expect("decompressed");
        assert_eq!(body.bytes.len(), doc.len(), "{path}");
        assert_eq!(&body.bytes[..], &doc[..], "{path}");
    }
}

#[tokio::test]
async fn brotli_bomb_is_stopped_at_the_cap() {
    let mut bomb = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut bomb, 64 * 1024, 9, 22);
        let zeros = vec![0u8; 1024 * 1024];
        for _ in 0..32 {
            w.write_all(&zeros).expect("compress");
        }
    }
    assert!(bomb.len() < 64 * 1024, "{}", bomb.len());
    let server = serve(move |_, s| {
        let bomb = bomb.clone();
        async move { reply(s, response(200, &[("content-encoding", "br")], &bomb)).await }
    })
    .await;
    let c = SafeClient::new(FetchPolicy {
        max_body_bytes: 1024 * 1024,
        ..policy(true)
    })
    .expect("client");
    let err = c
        .get(&server.url("/bomb.br"))
        .await
        .expect_err("bomb stopped");
    assert_eq!(err, FetchError::BodyTooLarge { limit: 1024 * 1024 });
}

#[tokio::test]
async fn slow_dns_hits_the_connect_timeout() {
    struct SlowDns;
    #[async_trait::async_trait]
    impl specpress_fetch::DnsResolve for SlowDns {
        async fn lookup(&self, _host: &str) -> std::io::Result<Vec<std::net::IpAddr>> {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Ok(vec!["127.0.0.1".parse().expect("ip")])
        }
    }
    let c = SafeClient::with_resolver(
        FetchPolicy {
            connect_timeout: Duration::from_millis(200),
            ..policy(true)
        },
        std::sync::Arc::new(SlowDns),
    )
    .expect("client");
    let started = std::time::Instant::now();
    let err = c.get("http://slow.test/").await.expect_err("times out");
    assert_eq!(
        err,
        FetchError::Timeout {
            phase: TimeoutPhase::Connect,
            after: Duration::from_millis(200)
        }
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn corrupt_gzip_is_a_transport_error() {
    let server = serve(|_, s| {
        reply(
            s,
            response(200, &[("content-encoding", "gzip")], b"not gzip at all"),
        )
    })
    .await;
    let err = client(true)
        .get(&server.url("/"))
        .await
        .expect_err("corrupt");
    assert!(matches!(err, FetchError::Transport { .. }), "{err:?}");
    assert_eq!(err.user_message(), "the response could not be read");
}

#[tokio::test]
async fn oversize_bodies_are_refused_declared_or_streamed() {
    let server = serve(|req, mut s| async move {
        if req.path == "/declared" {
            // Declares 10 MiB and sends nothing: refused from the header alone.
            let _ = s
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 10485760\r\n\r\n")
                .await;
            tokio::time::sleep(Duration::from_secs(5)).await;
        } else {
            // Chunked, no length: 64 KiB chunks without end.
            let _ = s
                .write_all(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
                .await;
            let chunk = vec![b'a'; 64 * 1024];
            loop {
                let mut frame = format!("{:x}\r\n", chunk.len()).into_bytes();
                frame.extend_from_slice(&chunk);
                frame.extend_from_slice(b"\r\n");
                if s.write_all(&frame).await.is_err() {
                    break;
                }
            }
        }
    })
    .await;
    let c = SafeClient::new(FetchPolicy {
        max_body_bytes: 1024 * 1024,
        ..policy(true)
    })
    .expect("client");
    for path in ["/declared", "/chunked"] {
        let started = std::time::Instant::now();
        let err = c.get(&server.url(path)).await.expect_err("too large");
        assert_eq!(
            err,
            FetchError::BodyTooLarge { limit: 1024 * 1024 },
            "{path}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{path} must fail before the timeout"
        );
    }
}

#[tokio::test]
async fn slow_body_hits_the_total_timeout() {
    let server = serve(|_, mut s| async move {
        let _ = s
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 100000\r\n\r\n")
            .await;
        for _ in 0..1000 {
            if s.write_all(b"x").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    let c = SafeClient::new(FetchPolicy {
        total_timeout: Duration::from_millis(300),
        ..policy(true)
    })
    .expect("client");
    let started = std::time::Instant::now();
    let err = c.get(&server.url("/slow")).await.expect_err("times out");
    assert_eq!(
        err,
        FetchError::Timeout {
            phase: TimeoutPhase::Total,
            after: Duration::from_millis(300)
        }
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(err.is_timeout());
}

#[tokio::test]
async fn silent_server_hits_the_total_timeout() {
    let server = serve(|_, s| async move {
        tokio::time::sleep(Duration::from_secs(5)).await;
        drop(s);
    })
    .await;
    let c = SafeClient::new(FetchPolicy {
        total_timeout: Duration::from_millis(200),
        ..policy(true)
    })
    .expect("client");
    let err = c.get(&server.url("/")).await.expect_err("times out");
    assert!(
        matches!(
            err,
            FetchError::Timeout {
                phase: TimeoutPhase::Total,
                ..
            }
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn closed_port_is_a_connect_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let err = client(true)
        .get(&format!("http://127.0.0.1:{port}/"))
        .await
        .expect_err("refused");
    assert!(matches!(err, FetchError::Connect { .. }), "{err:?}");
    assert_eq!(err.user_message(), "could not connect to `127.0.0.1`");
}

#[tokio::test]
async fn post_json_delivers_headers_and_body_and_keeps_a_2kb_prefix() {
    let server =
        serve(|_, s| reply(s, response(500, &[("retry-after", "120")], &[b'e'; 5000]))).await;
    let c = SafeClient::new(
        FetchPolicy {
            ..FetchPolicy::webhook()
        }
        .with_loopback(),
    )
    .expect("client");
    let mut headers = HeaderMap::new();
    headers.insert("webhook-id", HeaderValue::from_static("msg_1"));
    let outcome = c
        .post_json(
            &server.url("/hook"),
            &headers,
            b"{\"event\":\"ping\"}".to_vec(),
            Duration::from_secs(2),
        )
        .await
        .expect("an HTTP answer");
    assert_eq!(outcome.status, 500);
    assert_eq!(outcome.body_prefix.len(), 2048);
    assert_eq!(
        outcome
            .headers
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("120")
    );
    assert!(outcome.latency < Duration::from_secs(2));
    let seen = server.seen();
    assert_eq!(seen[0].method, "POST");
    assert_eq!(seen[0].header("webhook-id"), Some("msg_1"));
    assert_eq!(seen[0].header("content-type"), Some("application/json"));
    assert_eq!(seen[0].body, b"{\"event\":\"ping\"}");
}

#[tokio::test]
async fn post_json_never_follows_redirects() {
    let server = serve(|_, s| reply(s, response(302, &[("location", "/elsewhere")], b""))).await;
    let c = SafeClient::new(FetchPolicy::webhook().with_loopback()).expect("client");
    let outcome = c
        .post_json(
            &server.url("/hook"),
            &HeaderMap::new(),
            Vec::new(),
            Duration::from_secs(2),
        )
        .await
        .expect("answer");
    assert_eq!(outcome.status, 302);
    assert_eq!(
        server.seen().len(),
        1,
        "the redirect target was not requested"
    );
}

#[tokio::test]
async fn post_json_times_out_and_refuses_internal_targets() {
    let server = serve(|_, s| async move {
        tokio::time::sleep(Duration::from_secs(5)).await;
        drop(s);
    })
    .await;
    let c = SafeClient::new(FetchPolicy::webhook().with_loopback()).expect("client");
    let err = c
        .post_json(
            &server.url("/hook"),
            &HeaderMap::new(),
            Vec::new(),
            Duration::from_millis(200),
        )
        .await
        .expect_err("timeout");
    assert_eq!(
        err,
        FetchError::Timeout {
            phase: TimeoutPhase::Total,
            after: Duration::from_millis(200)
        }
    );

    let strict = SafeClient::new(FetchPolicy::webhook()).expect("client");
    for url in [
        server.url("/hook"),
        "http://169.254.169.254/".to_owned(),
        "http://10.0.0.1/".to_owned(),
    ] {
        let err = strict
            .post_json(&url, &HeaderMap::new(), Vec::new(), Duration::from_secs(1))
            .await
            .expect_err("refused");
        assert!(
            matches!(err, FetchError::BlockedAddress { .. }),
            "{url}: {err:?}"
        );
    }
    assert!(server.seen().len() <= 1);
}

trait WithLoopback {
    fn with_loopback(self) -> Self;
}

impl WithLoopback for FetchPolicy {
    fn with_loopback(self) -> Self {
        FetchPolicy {
            allow_loopback: true,
            connect_timeout: Duration::from_millis(500),
            ..self
        }
    }
}

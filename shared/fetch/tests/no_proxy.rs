//! Proxies from the environment are ignored: `HTTP_PROXY` would route requests around the
//! filtering resolver. The check runs in a child process of this test binary so the proxy
//! variables are set before the process starts (no `set_var` on a running test harness).

mod common;

use std::net::TcpListener;
use std::process::Command;
use std::time::Duration;

use common::{reply, response, serve};
use specpress_fetch::{FetchPolicy, SafeClient};

const CHILD_FLAG: &str = "SPECPRESS_FETCH_NO_PROXY_CHILD";

#[test]
fn environment_proxies_are_never_used() {
    if std::env::var_os(CHILD_FLAG).is_some() {
        child();
        return;
    }
    let proxy = TcpListener::bind("127.0.0.1:0").expect("bind proxy");
    proxy.set_nonblocking(true).expect("nonblocking");
    let proxy_url = format!("http://{}", proxy.local_addr().expect("addr"));
    let exe = std::env::current_exe().expect("test binary path");
    let out = Command::new(exe)
        .args([
            "environment_proxies_are_never_used",
            "--exact",
            "--nocapture",
        ])
        .env(CHILD_FLAG, "1")
        .env("HTTP_PROXY", &proxy_url)
        .env("http_proxy", &proxy_url)
        .env("HTTPS_PROXY", &proxy_url)
        .env("https_proxy", &proxy_url)
        .env("ALL_PROXY", &proxy_url)
        .env("all_proxy", &proxy_url)
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .output()
        .expect("run child");
    assert!(
        out.status.success(),
        "child failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("fetched directly"),
        "child did not run the check"
    );
    match proxy.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the environment proxy received a connection: {other:?}"),
    }
}

fn child() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let server = serve(|_, s| reply(s, response(200, &[], b"direct"))).await;
        let client = SafeClient::new(FetchPolicy {
            allow_loopback: true,
            total_timeout: Duration::from_secs(3),
            ..FetchPolicy::default()
        })
        .expect("client");
        let body = client.get(&server.url("/doc")).await.expect("fetched");
        assert_eq!(&body.bytes[..], b"direct");
        assert_eq!(server.seen().len(), 1);
        println!("fetched directly");
    });
}

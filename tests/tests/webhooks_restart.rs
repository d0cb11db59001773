//! `specpress serve` keeps pending webhook deliveries across a crash: the retry of a failed delivery is scheduled in
//! the persistent local queue, so a server killed between two attempts makes the next attempt after it restarts on
//! the same data directory, with the same `webhook-id` and a signature that still verifies.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use specpress_e2e::{Server, temp_dir, webhook_receiver};

fn log_for(http: &reqwest::blocking::Client, base: &str, path: &str) -> Vec<Value> {
    let log: Vec<Value> = http
        .get(format!("{base}/_log"))
        .send()
        .expect("log")
        .json()
        .expect("json");
    log.into_iter().filter(|e| e["path"] == path).collect()
}

fn wait_for(
    http: &reqwest::blocking::Client,
    base: &str,
    path: &str,
    n: usize,
    within: Duration,
) -> Vec<Value> {
    let until = Instant::now() + within;
    loop {
        let got = log_for(http, base, path);
        if got.len() >= n || Instant::now() >= until {
            return got;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
fn a_delivery_retry_pending_when_the_server_crashes_is_made_after_the_restart() {
    let rx = webhook_receiver();
    let dir = temp_dir();
    // The first retry comes 2 s (±20%) after the failed attempt: time enough to crash the server before it.
    let env = [
        ("SPECPRESS_ALLOW_LOOPBACK_URLS", "true"),
        ("SPECPRESS_WEBHOOK_RETRY_SCALE", "0.4"),
    ];
    let server = Server::start(dir.path(), &env);
    let token = server.minted_token().expect("minted token");
    let auth = format!("Token {token}");
    let http = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("client");
    let api = |base: &str, path: &str| format!("{base}/api/v1{path}");

    let r = http
        .post(api(&server.base_url, "/docs"))
        .header("Authorization", &auth)
        .json(&json!({"name": "Crash", "slug": "crash"}))
        .send()
        .expect("create doc");
    assert_eq!(r.status(), 201);
    let r = http
        .post(api(&server.base_url, "/docs/crash/webhooks"))
        .header("Authorization", &auth)
        .json(&json!({"url": format!("{}/crash", rx.base)}))
        .send()
        .expect("subscribe");
    assert_eq!(r.status(), 201);
    let secret = r.json::<Value>().expect("json")["secret"]
        .as_str()
        .expect("secret")
        .to_owned();
    // The first attempt fails; the receiver answers 200 after that.
    let r = http
        .post(format!("{}/_config", rx.base))
        .json(&json!({"path": "/crash", "secrets": [secret], "script": [[500, {}]]}))
        .send()
        .expect("configure receiver");
    assert!(r.status().is_success());

    let definition = json!({"openapi": "3.0.3", "info": {"title": "Crash", "version": "1"},
        "paths": {"/a": {"get": {"responses": {"200": {"description": "ok"}}}}}})
    .to_string();
    let r = http
        .post(api(&server.base_url, "/versions"))
        .header("Authorization", &auth)
        .json(&json!({"documentation": "crash", "definition": definition}))
        .send()
        .expect("deploy");
    assert_eq!(r.status(), 201);

    let first = wait_for(&http, &rx.base, "/crash", 1, Duration::from_secs(60));
    assert_eq!(first.len(), 1, "the first attempt arrives");
    // Crash (SIGKILL, no graceful shutdown) right after the failed attempt, before its retry.
    drop(server);
    assert_eq!(
        log_for(&http, &rx.base, "/crash").len(),
        1,
        "the retry had not been made before the crash"
    );

    let server = Server::start(dir.path(), &env);
    let both = wait_for(&http, &rx.base, "/crash", 2, Duration::from_secs(60));
    assert_eq!(both.len(), 2, "the retry is made after the restart");
    assert_eq!(
        both[0]["webhook_id"], both[1]["webhook_id"],
        "one delivery, one webhook-id across attempts"
    );
    for e in &both {
        assert!(
            !e["std_ok"].as_array().expect("std_ok").is_empty(),
            "Standard Webhooks signature verifies: {e}"
        );
        assert!(
            !e["bump_ok"].as_array().expect("bump_ok").is_empty(),
            "X-Bump-Signature-256 verifies: {e}"
        );
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        log_for(&http, &rx.base, "/crash").len(),
        2,
        "nothing more after the successful retry"
    );
    server.stop();
}

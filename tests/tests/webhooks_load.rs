//! Bounded load test of webhooks on `specpress serve`: many deploys across documentations with several subscribers
//! each. Every (event, subscriber) pair must arrive at least once, duplicates must share their `webhook-id`, every
//! delivery must verify (official Standard Webhooks library + X-Bump-Signature-256, tests/webhook_receiver.py), and
//! the deploy-to-delivery latency p50/p99 is printed.
//!
//! `webhooks_load_small`: 40 deploys, 4 documentations, 3 subscribers each (a quick first signal).
//! `webhooks_load_full`: the load test, 500 deploys across 20 documentations with 3 subscribers each (1,500
//! deliveries), bounded to 600 s of waiting. Both run in the full test command; see the figures with
//! `cargo test -p specpress-e2e --test webhooks_load -- --nocapture` (`SPECPRESS_BIN` picks the server binary, e.g.
//! a release build for representative latencies).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use specpress_e2e::{Server, temp_dir, webhook_receiver};

fn now_secs() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

fn definition(doc: usize, n: usize) -> String {
    json!({"openapi": "3.0.3", "info": {"title": format!("API {doc}"), "version": "1.0.0", "description": format!("revision {n}")},
           "paths": {format!("/r{n}"): {"get": {"responses": {"200": {"description": "ok"}}}}}})
    .to_string()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn run(deploys: usize, docs: usize, subscribers: usize, budget: Duration) {
    let rx = webhook_receiver();
    let dir = temp_dir();
    let server = Server::start(dir.path(), &[("SPECPRESS_ALLOW_LOOPBACK_URLS", "true")]);
    let token = server.minted_token().expect("minted token");
    let http = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .expect("client");
    let api = |path: &str| format!("{}/api/v1{path}", server.base_url);
    let auth = format!("Token {token}");

    for d in 0..docs {
        let r = http
            .post(api("/docs"))
            .header("Authorization", &auth)
            .json(&json!({"name": format!("Load {d}"), "slug": format!("load-{d}")}))
            .send()
            .expect("create doc");
        assert_eq!(r.status(), 201, "{:?}", r.text());
        for s in 0..subscribers {
            let path = format!("/load-{d}/{s}");
            let r = http
                .post(api(&format!("/docs/load-{d}/webhooks")))
                .header("Authorization", &auth)
                .json(&json!({"url": format!("{}{path}", rx.base)}))
                .send()
                .expect("subscribe");
            assert_eq!(r.status(), 201);
            let body: Value = r.json().expect("json");
            let secret = body["secret"]
                .as_str()
                .expect("secret shown once")
                .to_owned();
            let r = http
                .post(format!("{}/_config", rx.base))
                .json(&json!({"path": path, "secrets": [secret]}))
                .send()
                .expect("configure receiver");
            assert!(r.status().is_success());
        }
    }

    // Deploys from 8 client threads; each records (version id, completion time).
    let published: Arc<Mutex<Vec<(String, usize, f64)>>> = Arc::new(Mutex::new(Vec::new()));
    let next = Arc::new(Mutex::new(0usize));
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..8 {
            let (http, published, next, auth) = (&http, published.clone(), next.clone(), &auth);
            let url = api("/versions");
            scope.spawn(move || {
                loop {
                    let n = {
                        let mut g = next.lock().expect("lock");
                        if *g >= deploys {
                            return;
                        }
                        *g += 1;
                        *g - 1
                    };
                    let d = n % docs;
                    let r = http
                        .post(&url)
                        .header("Authorization", auth)
                        .json(&json!({"documentation": format!("load-{d}"), "definition": definition(d, n)}))
                        .send()
                        .expect("deploy");
                    assert_eq!(r.status(), 201, "deploy {n}");
                    let body: Value = r.json().expect("json");
                    let id = body["id"].as_str().expect("version id").to_owned();
                    published.lock().expect("lock").push((id, d, now_secs()));
                }
            });
        }
    });
    let deploy_secs = started.elapsed().as_secs_f64();
    let published = published.lock().expect("lock").clone();
    assert_eq!(published.len(), deploys);

    let expected = deploys * subscribers;
    let until = Instant::now() + budget;
    let log = loop {
        let log: Vec<Value> = http
            .get(format!("{}/_log", rx.base))
            .send()
            .expect("log")
            .json()
            .expect("json");
        let pairs: HashSet<(String, String)> = log
            .iter()
            .map(|e| {
                (
                    e["path"].as_str().unwrap_or("").to_owned(),
                    e["webhook_id"].as_str().unwrap_or("").to_owned(),
                )
            })
            .collect();
        if pairs.len() >= expected || Instant::now() >= until {
            break log;
        }
        std::thread::sleep(Duration::from_millis(200));
    };

    // Verification and reconciliation: (version, subscriber path) -> webhook ids and first arrival.
    let mut seen: HashMap<(String, String), (HashSet<String>, f64)> = HashMap::new();
    for e in &log {
        assert!(
            !e["std_ok"].as_array().expect("std_ok").is_empty(),
            "Standard Webhooks reject: {e}"
        );
        assert!(
            !e["bump_ok"].as_array().expect("bump_ok").is_empty(),
            "X-Bump-Signature-256 reject: {e}"
        );
        let body: Value =
            serde_json::from_str(e["body"].as_str().expect("body")).expect("json body");
        let version = body["version"]["id"]
            .as_str()
            .expect("version id")
            .to_owned();
        let path = e["path"].as_str().expect("path").to_owned();
        let at = e["received_at"].as_f64().expect("time");
        let entry = seen
            .entry((version, path))
            .or_insert_with(|| (HashSet::new(), at));
        entry
            .0
            .insert(e["webhook_id"].as_str().expect("id").to_owned());
        entry.1 = entry.1.min(at);
    }
    let mut latencies = Vec::new();
    let mut missing = 0;
    for (version, d, done_at) in &published {
        for s in 0..subscribers {
            match seen.get(&(version.clone(), format!("/load-{d}/{s}"))) {
                Some((ids, first)) => {
                    assert_eq!(
                        ids.len(),
                        1,
                        "duplicates of one delivery share their webhook-id"
                    );
                    latencies.push((first - done_at).max(0.0) * 1000.0);
                }
                None => missing += 1,
            }
        }
    }
    let duplicates = log.len() - seen.len();
    latencies.sort_by(|a, b| a.total_cmp(b));
    println!(
        "webhooks load: {deploys} deploys / {docs} docs / {subscribers} subscribers: {} deliveries expected, {} received \
         ({duplicates} duplicates), deploys took {deploy_secs:.1} s; deploy-to-delivery latency p50 {:.0} ms, p99 {:.0} ms, \
         max {:.0} ms",
        expected,
        log.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies.last().copied().unwrap_or(f64::NAN),
    );
    assert_eq!(
        missing, 0,
        "every (event, subscriber) pair arrives at least once"
    );
    server.stop();
}

#[test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
fn webhooks_load_small() {
    run(40, 4, 3, Duration::from_secs(120));
}

#[test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
fn webhooks_load_full() {
    run(500, 20, 3, Duration::from_secs(600));
}

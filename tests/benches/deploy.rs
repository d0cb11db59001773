//! Benchmark: `POST /versions` on the local server (`specpress serve`'s app, embedded dynoxide persisted to a temp
//! data dir) with a ~100 KB OpenAPI document, 8 concurrent clients, bounded in time and count.
//!
//! `cargo bench -p specpress-e2e --bench deploy` (env `BENCH_SECONDS`, default 10; `BENCH_MAX`, default 20000).
//! The app is wired as `specpress serve` wires it (webhook consumers and sweeper running, events enqueued on the
//! persistent local queue). Each request carries a distinct definition (its `info.version` changes), so every one
//! is a real deploy: parse + validate + fingerprint, and one transaction writing the compressed definition, the
//! version, the branch head, the event and its queue message. Workers deploy to 8 documentations
//! (one each) and, in a second phase, all to ONE branch (optimistic-concurrency contention). Those documentations
//! have never had a webhook subscription, so their events are recorded but not queued. A third phase deploys to 8
//! documentations that each have a subscriber (a local HTTP receiver answering 204): every deploy's event is then
//! queued, fanned out into a delivery, and POSTed, signed, by the in-process consumers while the deploys go on; the
//! bench prints how many deliveries the receiver got.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use specpress_api::{ApiConfig, AppState};
use specpress_e2e::bench::pct;
use specpress_engines::Engines;
use specpress_local_server::backend::{Backend, BackendOptions};

const CONCURRENCY: usize = 8;
const ORG_TOKEN: &str = "bench-organization-token-000000000";

fn document(target_bytes: usize) -> String {
    let mut s =
        String::from("openapi: 3.0.3\ninfo:\n  title: Bench API\n  version: VERSION\npaths:\n");
    let mut i = 0;
    while s.len() < target_bytes {
        s.push_str(&format!(
            "  /resources{i}/{{id}}:\n    get:\n      operationId: getResource{i}\n      summary: Fetch resource {i}\n      parameters:\n        - name: id\n          in: path\n          required: true\n          schema:\n            type: string\n        - name: expand\n          in: query\n          schema:\n            type: boolean\n      responses:\n        '200':\n          description: The resource\n          content:\n            application/json:\n              schema:\n                $ref: '#/components/schemas/Resource'\n        '404':\n          description: Not found\n"
        ));
        i += 1;
    }
    s.push_str("components:\n  schemas:\n    Resource:\n      type: object\n      required: [id]\n      properties:\n        id:\n          type: string\n        name:\n          type: string\n        created_at:\n          type: string\n          format: date-time\n");
    s
}

async fn phase(
    name: &str,
    base: &str,
    docs: Vec<String>,
    template: Arc<String>,
    seconds: u64,
    max: usize,
) {
    let client = reqwest::Client::new();
    let cpu_before = process_cpu();
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let counter = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for w in 0..CONCURRENCY {
        let client = client.clone();
        let url = format!("{base}/api/v1/versions");
        let doc = &docs[w % docs.len()];
        // The request body, serialized once; `VERSION` occurs once in the template (info.version).
        let whole = json!({"documentation": doc, "definition": template.as_str()}).to_string();
        let Some((head, tail)) = whole.split_once("VERSION") else {
            panic!("the template holds VERSION once");
        };
        let (body_head, body_tail) = (head.to_owned(), tail.to_owned());
        let counter = counter.clone();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            let mut errors = 0usize;
            while Instant::now() < deadline {
                let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if n >= max {
                    break;
                }
                // The body as a load generator sends it: built once, only the version differs.
                let body = format!("{}1.0.{n}{}", body_head, body_tail);
                let t = Instant::now();
                let r = client
                    .post(&url)
                    .header("Authorization", format!("Token {ORG_TOKEN}"))
                    .header("Content-Type", "application/json")
                    .body(body)
                    .send()
                    .await;
                match r {
                    Ok(r) if r.status().as_u16() == 201 => lat.push(t.elapsed()),
                    _ => errors += 1,
                }
            }
            (lat, errors)
        }));
    }
    let mut all = Vec::new();
    let mut errors = 0;
    for t in tasks {
        if let Ok((l, e)) = t.await {
            all.extend(l);
            errors += e;
        }
    }
    let wall = started.elapsed();
    let cpu = process_cpu().saturating_sub(cpu_before);
    all.sort();
    println!(
        "{name}: {} deploys in {:.2} s = {:.0} deploys/s | p50 {:.2} ms | p90 {:.2} ms | p99 {:.2} ms | max {:.2} ms | errors {errors} | CPU {:.2} ms per deploy (client + server, this process)",
        all.len(),
        wall.as_secs_f64(),
        all.len() as f64 / wall.as_secs_f64(),
        pct(&all, 0.50).as_secs_f64() * 1e3,
        pct(&all, 0.90).as_secs_f64() * 1e3,
        pct(&all, 0.99).as_secs_f64() * 1e3,
        all.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
        cpu.as_secs_f64() * 1e3 / all.len().max(1) as f64,
    );
}

/// CPU time (user + system) this process has used, from `/proc/self/stat` (zero where unavailable). Unlike wall
/// time it does not depend on what else the machine runs, so it tells the cost of a deploy on a shared machine.
fn process_cpu() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the command name (which may contain spaces) start after the last ')'.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime are fields 14 and 15 of the line (1-based), 11 and 12 counted from the state field.
    let total = ticks(11) + ticks(12);
    Duration::from_secs_f64(total as f64 / 100.0)
}

/// Starts a webhook receiver on 127.0.0.1 that answers every POST with 204 and counts them.
async fn receiver() -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    let got = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = got.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move || {
            let counter = counter.clone();
            async move {
                counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind receiver");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, got)
}

/// Creates `n` documentations named `{prefix}-{i}` through the API; returns their slugs.
async fn create_docs(client: &reqwest::Client, base: &str, prefix: &str, n: usize) -> Vec<String> {
    let mut docs = Vec::new();
    for i in 0..n {
        let slug = format!("{prefix}-{i}");
        let r = client
            .post(format!("{base}/api/v1/docs"))
            .header("Authorization", format!("Token {ORG_TOKEN}"))
            .json(&json!({"name": slug, "slug": slug}))
            .send()
            .await
            .expect("create doc");
        assert_eq!(r.status().as_u16(), 201);
        docs.push(slug);
    }
    docs
}

fn main() {
    // The subscriber of the third phase listens on 127.0.0.1, which webhook URLs may name only when allowed.
    // SAFETY: set before the runtime (and any other thread) starts.
    unsafe { std::env::set_var(specpress_fetch::ALLOW_LOOPBACK_ENV, "true") };
    let seconds: u64 = std::env::var("BENCH_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let max: usize = std::env::var("BENCH_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let dir = tempfile::tempdir().expect("temp dir");
        let backend = Backend::connect(&BackendOptions {
            data_dir: dir.path().to_path_buf(),
            table: None,
            create_table: false,
        })
        .await
        .expect("embedded engine");
        specpress_domain_bootstrap(&backend).await;
        Engines::warm_up().await.expect("warm up");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        // As `specpress serve` runs it: webhook consumers and the outbox sweeper in-process, and the deploy
        // transaction enqueueing each published version's event on the persistent local queue.
        let hooks = specpress_local_server::webhooks::LocalWebhooks::start(&backend.store, &base, dir.path())
            .await
            .expect("webhooks");
        let state = AppState::new(hooks.store.clone(), ApiConfig::new(base.clone()));
        let app = specpress::app_with_webhooks(state, Arc::new(Engines::default()), hooks.service.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });

        let template = Arc::new(document(100 * 1024));
        println!("document: {} bytes, concurrency {CONCURRENCY}, bounded to {seconds} s / {max} deploys per phase", template.len());
        let client = reqwest::Client::new();
        let docs = create_docs(&client, &base, "bench", CONCURRENCY).await;
        // Warm-up (not measured).
        phase("warm-up", &base, docs.clone(), template.clone(), 1, 200).await;
        phase("8 docs, 1 branch each", &base, docs.clone(), template.clone(), seconds, max).await;
        phase("1 doc, 1 branch (contended)", &base, vec![docs[0].clone()], template.clone(), seconds, max).await;
        let (hook, received) = receiver().await;
        let hooked = create_docs(&client, &base, "hooked", CONCURRENCY).await;
        for slug in &hooked {
            let r = client
                .post(format!("{base}/api/v1/docs/{slug}/webhooks"))
                .header("Authorization", format!("Token {ORG_TOKEN}"))
                .json(&json!({"url": hook}))
                .send()
                .await
                .expect("subscribe");
            assert_eq!(r.status().as_u16(), 201, "{:?}", r.text().await);
        }
        phase("8 docs with a webhook subscriber each", &base, hooked, template.clone(), seconds, max).await;
        // Deliveries still in flight when the phase ended get a moment to land.
        tokio::time::sleep(Duration::from_secs(2)).await;
        println!(
            "  deliveries received by the subscriber: {}",
            received.load(std::sync::atomic::Ordering::Relaxed)
        );
    });
}

async fn specpress_domain_bootstrap(backend: &Backend) {
    specpress_domain::usecases::manage::bootstrap_default_org(
        backend.store.as_ref(),
        "Bench",
        Some(ORG_TOKEN),
        time::OffsetDateTime::now_utc(),
    )
    .await
    .expect("org");
}

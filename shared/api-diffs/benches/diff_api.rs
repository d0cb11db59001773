//! Benchmark: `POST /diffs` + `GET /diffs/{id}` on a local server (127.0.0.1, embedded DynamoDB engine persisted in a
//! temporary data directory) with the Stripe 2022-02-08 -> 2022-04-12 pair, next to the diff engine's own time for
//! the same pair, measured in the same run: each iteration runs the engine alone, then one POST + GET, so both see
//! the machine in the same state. Prints medians and the ratio (target: wall <= 2x engine).
//!
//! Then the two readers of the `POST /diffs` body on the corpus pairs, in the same run: two servers over the same
//! store, one reading bodies in one pass (`body.rs`), one with serde_json alone; each iteration posts the pair to
//! both, in alternating order, and times each POST to its answer. Prints, per pair, the POST medians, their ratio
//! and what the one-pass reader saves of the POST's wall time, and the two readers' own medians in process.
//!
//! Corpus: `SPECPRESS_CORPUS` (default `<repo>/../shared/corpus`). Iterations: `SPECPRESS_BENCH_ITERS` (default 7),
//! for the readers `SPECPRESS_BENCH_READER_ITERS` (default the same; 0 skips the comparison).
//! Run: `cargo bench -p specpress-api-diffs --bench diff_api`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use specpress_api::{ApiConfig, AppState};
use specpress_api_diffs::{BodyReader, DiffsConfig};
use specpress_apispec::Limits;
use specpress_domain::model::Bundle;
use specpress_domain::usecases::diffs::AnonymousLimits;
use specpress_local::embedded::{Embedded, Storage};
use specpress_store_dynamodb::DynamoStore;

fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("SPECPRESS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
        });
    if dir.join("openapi-3.0").is_dir() {
        return Some(dir);
    }
    let msg = format!(
        "the API corpus is missing at {} (set SPECPRESS_CORPUS)",
        dir.display()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{msg}");
    }
    eprintln!("SKIPPED: {msg}");
    None
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let Some(dir) = corpus() else { return };
    // The engine alone and the service are measured in one process, with the service's allocator settings.
    specpress_alloc::configure_for_service();
    let iters: usize = std::env::var("SPECPRESS_BENCH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7)
        .max(1);
    let read = |name: &str| {
        std::fs::read_to_string(dir.join("openapi-3.0").join(name)).expect("corpus file")
    };
    let previous = read("stripe-2022-02-08.json");
    let current = read("stripe-2022-04-12.json");
    println!(
        "pair: stripe-2022-02-08.json ({:.1} MB) -> stripe-2022-04-12.json ({:.1} MB), {iters} iterations",
        previous.len() as f64 / 1e6,
        current.len() as f64 / 1e6
    );

    // The engine alone, two ways: on one thread (parse, parse, diff, render text and markdown; the CLI now loads the
    // two documents on two threads), and as the service runs it (both parses in parallel, then the diff and all four
    // renderings, serialized).
    let limits = Limits::default();
    let mut one_thread = Vec::new();
    let mut service_engine = Vec::new();
    let (pb, cb) = (
        Bundle {
            definition: previous.clone(),
            references: vec![],
        },
        Bundle {
            definition: current.clone(),
            references: vec![],
        },
    );
    // One iteration of the engine alone, both ways; run just before each POST, so that the three measurements of an
    // iteration see the machine in the same state (a VM's speed drifts over minutes).
    // Each timed phase starts once the previous one's documents have been freed (the service frees them on a
    // background thread after answering): a phase never pays for another's cleanup.
    let settle = || std::thread::sleep(Duration::from_millis(60));
    let mut engine_alone = || {
        settle();
        let t = Instant::now();
        let p = specpress_apispec::parse(&previous, &[], &limits).expect("previous parses");
        let c = specpress_apispec::parse(&current, &[], &limits).expect("current parses");
        let report = specpress_diff::diff(&p, &c, &specpress_diff::DiffOptions::default());
        std::hint::black_box((report.text(), report.markdown()));
        one_thread.push(t.elapsed());
        // The documents' final free is not timed (a CLI exits without freeing).
        drop((report, p, c));

        settle();
        let t = Instant::now();
        let cmp = specpress_api_diffs::engine::compare_blocking(&pb, &cb, false, &limits, || ())
            .expect("compares");
        std::hint::black_box(cmp);
        service_engine.push(t.elapsed());
    };

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let walls = rt.block_on(async {
        let data = tempfile::tempdir().expect("tempdir");
        let db = Embedded::start(Storage::File(&data.path().join("bench.sqlite")))
            .await
            .expect("embedded engine");
        let store = db.store("specpress").await.expect("table");
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let state = AppState::new(Arc::new(store), ApiConfig::new(base.clone()));
        let config = DiffsConfig {
            max_body_bytes: Some(32 * 1024 * 1024),
            rate_per_minute: 0,
            ..DiffsConfig::default()
        };
        let app =
            specpress_api::with_common_layers(specpress_api_diffs::router_with(state, config));
        tokio::spawn(async move {
            let _ = axum::serve(
                listener,
                app.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .await;
        });
        let http = reqwest::Client::new();
        let body = json!({"previous_definition": previous, "definition": current}).to_string();
        let mut walls = Vec::new();
        let mut posts = Vec::new();
        let mut gets = Vec::new();
        for _ in 0..iters {
            engine_alone();
            tokio::time::sleep(Duration::from_millis(60)).await;
            let t = Instant::now();
            let r = http
                .post(format!("{base}/api/v1/diffs"))
                .header("content-type", "application/json")
                .body(body.clone())
                .send()
                .await
                .expect("POST");
            assert_eq!(r.status().as_u16(), 201);
            let created: serde_json::Value =
                serde_json::from_str(&r.text().await.expect("body")).expect("json");
            let posted = t.elapsed();
            let id = created["id"].as_str().expect("id");
            let r = http
                .get(format!("{base}/api/v1/diffs/{id}"))
                .send()
                .await
                .expect("GET");
            assert_eq!(r.status().as_u16(), 200);
            let text = r.text().await.expect("body");
            std::hint::black_box(text);
            let total = t.elapsed();
            posts.push(posted);
            gets.push(total - posted);
            walls.push(total);
        }
        db.stop().await;
        (walls, posts, gets)
    });
    let (walls, posts, gets) = walls;
    let (single, eng, wall) = (median(one_thread), median(service_engine), median(walls));
    println!(
        "engine on one thread (parse, parse, diff, text + markdown): median {}",
        ms(single)
    );
    println!(
        "engine, as the service runs it (parallel parse + diff + 4 renderings): median {}",
        ms(eng)
    );
    println!(
        "POST /diffs + GET /diffs/{{id}} wall time per diff: median {} (POST {}, GET {})",
        ms(wall),
        ms(median(posts)),
        ms(median(gets))
    );
    println!(
        "ratio wall / engine: {:.2}x (vs the engine on one thread), {:.2}x (vs the service's engine call); target <= 2x",
        wall.as_secs_f64() / single.as_secs_f64(),
        wall.as_secs_f64() / eng.as_secs_f64()
    );
    let reader_iters: usize = std::env::var("SPECPRESS_BENCH_READER_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(iters);
    if reader_iters > 0 {
        rt.block_on(compare_readers(&dir, reader_iters));
    }
}

/// The corpus pairs of the reader comparison (those of the diff engine's corpus benchmark, plus the OpenAI YAML).
const PAIRS: [(&str, &str); 7] = [
    (
        "openapi-3.0/stripe-2022-02-08.json",
        "openapi-3.0/stripe-2022-04-12.json",
    ),
    (
        "openapi-3.0/github-api-22.0.0.json",
        "openapi-3.0/github-api-23.0.2.json",
    ),
    (
        "openapi-3.0/stripe-2023-09-11.yaml",
        "openapi-3.0/stripe-2023-09-12.yaml",
    ),
    (
        "openapi-3.1/openai-2026-08-12.json",
        "openapi-3.1/openai-2026-08-21.json",
    ),
    (
        "openapi-3.1/openai-2026-08-12.yaml",
        "openapi-3.1/openai-2026-08-21.yaml",
    ),
    (
        "swagger-2.0/kubernetes-1.35.json",
        "swagger-2.0/kubernetes-1.36.json",
    ),
    (
        "asyncapi/streetlights-kafka-2.3.0.yml",
        "asyncapi/streetlights-kafka-2.5.0.yml",
    ),
];

/// The diff routes over `store` reading bodies with `reader`, no rate limit, room for the GitHub pair and for every
/// diff of the run; answers the base URL.
async fn serve(store: DynamoStore, reader: BodyReader) -> String {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let state = AppState::new(Arc::new(store), ApiConfig::new(base.clone()));
    let config = DiffsConfig {
        max_body_bytes: Some(64 * 1024 * 1024),
        rate_per_minute: 0,
        anonymous: AnonymousLimits {
            quota_bytes: u64::MAX,
            ..AnonymousLimits::default()
        },
        body_reader: reader,
        ..DiffsConfig::default()
    };
    let app = specpress_api::with_common_layers(specpress_api_diffs::router_with(state, config));
    tokio::spawn(async move {
        let _ = axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await;
    });
    base
}

/// One `POST /diffs` of `body` to `base`, timed to its answer.
async fn post(http: &reqwest::Client, base: &str, body: &str) -> Duration {
    tokio::time::sleep(Duration::from_millis(60)).await;
    let t = Instant::now();
    let r = http
        .post(format!("{base}/api/v1/diffs"))
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .expect("POST");
    let status = r.status().as_u16();
    let text = r.text().await.expect("body");
    let took = t.elapsed();
    assert_eq!(status, 201, "{text}");
    took
}

/// The two body readers compared on every corpus pair, `iters` POSTs each, in the same run.
async fn compare_readers(dir: &std::path::Path, iters: usize) {
    let data = tempfile::tempdir().expect("tempdir");
    let db = Embedded::start(Storage::File(&data.path().join("readers.sqlite")))
        .await
        .expect("embedded engine");
    let store = db.store("specpress").await.expect("table");
    let one_pass = serve(store.clone(), BodyReader::OnePass).await;
    let serde = serve(store, BodyReader::Serde).await;
    let http = reqwest::Client::new();
    println!(
        "\nPOST /diffs by body reader, {iters} iterations per pair, alternating order (medians; saving = what the \
         one-pass reader saves of the serde_json POST)"
    );
    println!(
        "| pair | body | POST, one pass | POST, serde_json | serde / one pass | saving | read, one pass | read, serde_json |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (previous, current) in PAIRS {
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).expect("corpus file");
        let body =
            json!({"previous_definition": read(previous), "definition": read(current)}).to_string();
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        for i in 0..iters {
            if i % 2 == 0 {
                fast.push(post(&http, &one_pass, &body).await);
                slow.push(post(&http, &serde, &body).await);
            } else {
                slow.push(post(&http, &serde, &body).await);
                fast.push(post(&http, &one_pass, &body).await);
            }
        }
        // The readers alone, in process, on the same bytes.
        let (mut read_fast, mut read_slow) = (Vec::new(), Vec::new());
        for _ in 0..iters {
            for (reader, times) in [
                (BodyReader::OnePass, &mut read_fast),
                (BodyReader::Serde, &mut read_slow),
            ] {
                let t = Instant::now();
                let input = specpress_api_diffs::read_diff_body(reader, body.as_bytes());
                times.push(t.elapsed());
                assert!(input.is_ok(), "{previous}: the body reads");
                drop(input);
            }
        }
        let (f, s) = (median(fast), median(slow));
        let name = previous.rsplit('/').next().unwrap_or(previous);
        println!(
            "| {name} -> {} | {:.1} MB | {} | {} | {:.3}x | {:.1}% | {} | {} |",
            current.rsplit('/').next().unwrap_or(current),
            body.len() as f64 / 1e6,
            ms(f),
            ms(s),
            s.as_secs_f64() / f.as_secs_f64(),
            (s.as_secs_f64() - f.as_secs_f64()) / s.as_secs_f64() * 100.0,
            ms(median(read_fast)),
            ms(median(read_slow)),
        );
    }
    db.stop().await;
}

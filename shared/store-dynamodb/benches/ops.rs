//! Benchmark: round-trip cost of single DynamoDB operations against the embedded engine (dynoxide persisted to a
//! temp file), through the same `aws-sdk-dynamodb` client the store uses. Sequential, so each figure is one
//! operation's latency with nothing else running.
//!
//! `cargo bench -p specpress-store-dynamodb --bench ops` (env `BENCH_OPS`, default 2000 per kind).

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::AttributeValue;
use specpress_local::embedded::{Embedded, Storage};

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)].as_secs_f64() * 1e6
}

fn report(name: &str, mut lat: Vec<Duration>) {
    lat.sort();
    println!(
        "{name:<28} n={:<5} p50 {:>7.0} us  p90 {:>7.0} us  p99 {:>7.0} us",
        lat.len(),
        pct(&lat, 0.5),
        pct(&lat, 0.9),
        pct(&lat, 0.99)
    );
}

/// Runs `op(0..n)` one after another, returning each call's latency.
async fn timed(n: usize, mut op: impl AsyncFnMut(usize)) -> Vec<Duration> {
    let mut lat = Vec::with_capacity(n);
    for i in 0..n {
        let t = Instant::now();
        op(i).await;
        lat.push(t.elapsed());
    }
    lat
}

fn main() {
    let n: usize = std::env::var("BENCH_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("bench.db");
        let engine = Embedded::start(Storage::File(&file)).await.expect("engine");
        let store = engine.store("bench").await.expect("table");
        let client = store.client().clone();
        let s = |v: &str| AttributeValue::S(v.to_owned());
        let payload = AttributeValue::B(vec![7u8; 16 * 1024].into());

        let put = |pk: String, attr: &'static str, value: AttributeValue| {
            client
                .put_item()
                .table_name("bench")
                .item("pk", s(&pk))
                .item("sk", s("META"))
                .item(attr, value)
                .send()
        };
        report(
            "PutItem (small)",
            timed(n, async |i| {
                put(format!("K#{i}"), "v", s("x")).await.expect("put");
            })
            .await,
        );
        report(
            "PutItem (16 KiB binary)",
            timed(n, async |i| {
                put(format!("B#{i}"), "data", payload.clone())
                    .await
                    .expect("put");
            })
            .await,
        );
        report(
            "GetItem",
            timed(n, async |i| {
                client
                    .get_item()
                    .table_name("bench")
                    .key("pk", s(&format!("K#{i}")))
                    .key("sk", s("META"))
                    .consistent_read(true)
                    .send()
                    .await
                    .expect("get");
            })
            .await,
        );
        engine.stop().await;
    });
}

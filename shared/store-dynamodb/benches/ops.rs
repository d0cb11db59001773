//! Benchmark: round-trip cost of single DynamoDB operations against the embedded engine (dynoxide persisted to a
//! temp file), through the same `aws-sdk-dynamodb` client the store uses. Sequential, so each figure is one
//! operation's latency with nothing else running.
//!
//! `cargo bench -p specpress-store-dynamodb --bench ops` (env `BENCH_OPS`, default 2000 per kind).

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::AttributeValue;
use specpress_store_dynamodb::embedded::{Embedded, Storage};

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

        let mut lat = Vec::new();
        for i in 0..n {
            let t = Instant::now();
            client
                .put_item()
                .table_name("bench")
                .item("pk", s(&format!("K#{i}")))
                .item("sk", s("META"))
                .item("v", s("x"))
                .send()
                .await
                .expect("put");
            lat.push(t.elapsed());
        }
        report("PutItem (small)", lat);

        let mut lat = Vec::new();
        for i in 0..n {
            let t = Instant::now();
            client
                .put_item()
                .table_name("bench")
                .item("pk", s(&format!("B#{i}")))
                .item("sk", s("CHUNK"))
                .item("data", payload.clone())
                .send()
                .await
                .expect("put");
            lat.push(t.elapsed());
        }
        report("PutItem (16 KiB binary)", lat);

        let mut lat = Vec::new();
        for i in 0..n {
            let t = Instant::now();
            client
                .get_item()
                .table_name("bench")
                .key("pk", s(&format!("K#{i}")))
                .key("sk", s("META"))
                .consistent_read(true)
                .send()
                .await
                .expect("get");
            lat.push(t.elapsed());
        }
        report("GetItem", lat);
        engine.stop().await;
    });
}

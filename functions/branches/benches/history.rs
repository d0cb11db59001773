//! Benchmark: `GET /docs/{doc}/versions` on branches of 100, 10,000 and 100,000 versions, against the same requests
//! on a short branch (10 versions) measured in the same run, on a local server (127.0.0.1, the branches router over
//! the embedded engine persisted in a temporary data directory, as `specpress serve` runs).
//!
//! Each branch gets its first two versions from real deploys (the deploy use case and the real engine); the rest are
//! copies of the second version's stored item (new id, position, history sort key, previous version, time), written
//! with BatchWriteItem, and the branch item is moved to the last one as a commit moves it: the same item shapes a
//! deploy writes, without 100,000 deploys.
//!
//! Per branch: the median latency of page 1, of the last page by number (`page=N/10`), of a cursor page from the
//! middle of the history (all `limit=10`), and the full walk following `next` cursors with `limit=100`. The peer
//! column is a read of the whole history from the store, which is what every page cost before histories were paged
//! in the store.
//!
//! Iterations: `SPECPRESS_BENCH_ITERS` (default 21). Sizes: `SPECPRESS_BENCH_SIZES` (default `100,10000,100000`).
//! Run: `cargo bench -p branches --bench history`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::{AttributeValue, PutRequest, WriteRequest};
use serde_json::Value;
use specpress_api::{ApiConfig, AppState};
use specpress_domain::model::{Bundle, DocId, Slug};
use specpress_domain::ports::{BranchStore, Store, VersionStore};
use specpress_domain::token::Principal;
use specpress_domain::usecases::auth::authenticate;
use specpress_domain::usecases::deploy::{DeployInput, DeployOutcome, deploy};
use specpress_domain::usecases::manage;
use specpress_store_dynamodb::DynamoStore;
use specpress_store_dynamodb::embedded::{Embedded, Storage};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

const SHORT: u64 = 10;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn spec(i: u64) -> String {
    format!(
        r#"{{"openapi":"3.0.3","info":{{"title":"History","version":"{i}"}},"paths":{{"/v{i}":{{"get":{{"responses":{{"200":{{"description":"ok"}}}}}}}}}}}}"#
    )
}

struct Bench {
    base: String,
    http: reqwest::Client,
    token: String,
    store: DynamoStore,
    org: Principal,
    iters: usize,
}

/// What one branch measured.
struct Figures {
    size: u64,
    first: Duration,
    deep: Duration,
    cursor: Duration,
    walk: Duration,
    walk_pages: usize,
    whole_read: Duration,
}

impl Bench {
    async fn get(&self, path: &str) -> (Value, reqwest::header::HeaderMap) {
        let resp = self
            .http
            .get(format!("{}{path}", self.base))
            .header("authorization", format!("Token {}", self.token))
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status().as_u16(), 200, "{path}");
        let headers = resp.headers().clone();
        (resp.json().await.expect("json"), headers)
    }

    async fn timed(&self, path: &str) -> Duration {
        // Warm-up: connections, caches and the engine's statements, untimed.
        for _ in 0..3 {
            self.get(path).await;
        }
        let mut lat = Vec::with_capacity(self.iters);
        for _ in 0..self.iters {
            let t = Instant::now();
            let (body, _) = self.get(path).await;
            lat.push(t.elapsed());
            assert!(!body.as_array().expect("array").is_empty(), "{path}");
        }
        median(lat)
    }

    /// A documentation whose `main` branch holds `size` published versions.
    async fn build(&self, size: u64) -> DocId {
        let slug = format!("history-{size}");
        let engine = specpress_api::engine::Engines::default();
        let mut doc_id = None;
        for i in 1..=2 {
            let input = DeployInput {
                documentation: slug.clone(),
                auto_create: true,
                bundle: Bundle {
                    definition: spec(i),
                    references: vec![],
                },
                ..DeployInput::default()
            };
            match deploy(
                &self.store,
                &engine,
                &self.org,
                input,
                OffsetDateTime::now_utc(),
            )
            .await
            .expect("deploy")
            {
                DeployOutcome::Created { doc, .. } => doc_id = Some(doc.id),
                DeployOutcome::Unchanged { .. } => panic!("each definition differs"),
            }
        }
        let doc = doc_id.expect("deployed");
        let main = Slug::parse("main").expect("slug");
        let branch = self
            .store
            .get_branch(doc, &main)
            .await
            .expect("read")
            .expect("branch");
        let head = branch.head.expect("head").version_id;
        let client = self.store.client();
        let table = self.store.table();
        let template = client
            .get_item()
            .table_name(table)
            .key("pk", AttributeValue::S(format!("VERSION#{head}")))
            .key("sk", AttributeValue::S("VERSION".into()))
            .send()
            .await
            .expect("get")
            .item
            .expect("the deployed version");
        let s = |v: String| AttributeValue::S(v);
        let start = OffsetDateTime::now_utc();
        let mut previous = head.to_string();
        let mut batch: Vec<WriteRequest> = Vec::with_capacity(25);
        for seq in 3..=size {
            let id = uuid::Uuid::new_v4().to_string();
            let mut item: HashMap<String, AttributeValue> = template.clone();
            item.insert("pk".into(), s(format!("VERSION#{id}")));
            item.insert("id".into(), s(id.clone()));
            item.insert("seq".into(), AttributeValue::N(seq.to_string()));
            item.insert("gsi1sk".into(), s(format!("V#{seq:012}")));
            item.insert("previous_version_id".into(), s(previous.clone()));
            let at = start + time::Duration::milliseconds(seq as i64);
            item.insert("created_at".into(), s(at.format(&Rfc3339).expect("time")));
            previous = id;
            let put = PutRequest::builder()
                .set_item(Some(item))
                .build()
                .expect("put");
            batch.push(WriteRequest::builder().put_request(put).build());
            if batch.len() == 25 || seq == size {
                let mut pending = std::mem::take(&mut batch);
                while !pending.is_empty() {
                    let out = client
                        .batch_write_item()
                        .request_items(table, pending)
                        .send()
                        .await
                        .expect("batch write");
                    pending = out
                        .unprocessed_items
                        .and_then(|mut m| m.remove(table))
                        .unwrap_or_default();
                }
            }
        }
        if size > 2 {
            // Move the branch as a commit does.
            client
                .update_item()
                .table_name(table)
                .key("pk", s(format!("DOC#{doc}")))
                .key("sk", s("BRANCH#main".into()))
                .update_expression("SET seq = :n, head_version_id = :v, modified_at = :t")
                .condition_expression("seq = :two")
                .expression_attribute_values(":n", AttributeValue::N(size.to_string()))
                .expression_attribute_values(":two", AttributeValue::N("2".into()))
                .expression_attribute_values(":v", s(previous))
                .expression_attribute_values(":t", s(start.format(&Rfc3339).expect("time")))
                .send()
                .await
                .expect("move the branch");
        }
        doc
    }

    async fn measure(&self, size: u64) -> Figures {
        let t = Instant::now();
        let doc = self.build(size).await;
        eprintln!(
            "built a branch of {size} versions in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        let list = format!("/api/v1/docs/{doc}/versions");
        let first = self.timed(&format!("{list}?limit=10")).await;
        let last_page = size.div_ceil(10);
        let deep = self
            .timed(&format!("{list}?limit=10&page={last_page}"))
            .await;
        let (middle, _) = self
            .get(&format!(
                "{list}?limit=10&envelope=true&page={}",
                (last_page / 2).max(1)
            ))
            .await;
        let cursor = match middle["meta"]["next_cursor"].as_str() {
            Some(c) => self.timed(&format!("{list}?limit=10&cursor={c}")).await,
            None => first,
        };

        let t = Instant::now();
        let mut walked = 0u64;
        let mut pages = 0usize;
        let mut next = Some(format!("{list}?limit=100&envelope=true"));
        while let Some(path) = next.take() {
            let (body, _) = self.get(&path).await;
            walked += body["data"].as_array().expect("data").len() as u64;
            pages += 1;
            next = body["links"]["next"].as_str().map(str::to_owned);
        }
        let walk = t.elapsed();
        assert_eq!(walked, size, "the walk lists every version once");

        let branch = self
            .store
            .get_branch(doc, &Slug::parse("main").expect("slug"))
            .await
            .expect("read")
            .expect("branch");
        let mut whole = Vec::new();
        for _ in 0..self.iters.min(5) {
            let t = Instant::now();
            let all = self
                .store
                .list_versions(&branch, 1..=size)
                .await
                .expect("whole history");
            whole.push(t.elapsed());
            assert_eq!(all.len() as u64, size);
        }
        Figures {
            size,
            first,
            deep,
            cursor,
            walk,
            walk_pages: pages,
            whole_read: median(whole),
        }
    }
}

fn main() {
    let iters: usize = std::env::var("SPECPRESS_BENCH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(21)
        .max(1);
    let sizes: Vec<u64> = std::env::var("SPECPRESS_BENCH_SIZES")
        .unwrap_or_else(|_| "100,10000,100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .filter(|s| *s >= 2)
        .collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("specpress.db");
        let db = Embedded::start(Storage::File(&file)).await.expect("engine");
        let store = db.store("specpress").await.expect("table");
        let shared: Arc<dyn Store> = Arc::new(store.clone());
        let engine = Arc::new(specpress_api::engine::Engines::default());
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("bind 127.0.0.1");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let state = AppState::new(shared.clone(), engine, ApiConfig::new(base.clone()));
        let app = specpress_api::with_common_layers(branches::router(state));
        tokio::spawn(async move {
            let _ = axum::serve(
                listener,
                app.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .await;
        });
        let (_, token) = manage::create_org(&*shared, "Bench", OffsetDateTime::now_utc())
            .await
            .expect("org");
        let org = authenticate(&*shared, &token.secret).await.expect("principal");
        let bench = Bench {
            base,
            http: reqwest::Client::new(),
            token: token.secret,
            store,
            org,
            iters,
        };
        let short = bench.measure(SHORT).await;
        let mut rows = vec![];
        for size in sizes {
            rows.push(bench.measure(size).await);
        }
        println!(
            "GET /docs/{{doc}}/versions, median of {iters} (limit=10; walk: limit=100, following next cursors)"
        );
        println!(
            "{:>8} | {:>9} | {:>9} | {:>9} | {:>22} | {:>18}",
            "versions", "page 1", "last page", "cursor", "full walk (per page)", "whole-history read"
        );
        let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
        for f in std::iter::once(&short).chain(rows.iter()) {
            println!(
                "{:>8} | {:>9} | {:>9} | {:>9} | {:>10} ({:>4} x {}) | {:>18}",
                f.size,
                ms(f.first),
                ms(f.deep),
                ms(f.cursor),
                ms(f.walk),
                f.walk_pages,
                ms(f.walk / f.walk_pages as u32),
                ms(f.whole_read),
            );
        }
        for f in &rows {
            println!(
                "{:>8} versions against {SHORT}: page 1 x{:.2}, last page x{:.2}, cursor page x{:.2}, walk per page x{:.2}",
                f.size,
                ratio(f.first, short.first),
                ratio(f.deep, short.deep),
                ratio(f.cursor, short.cursor),
                ratio(f.walk / f.walk_pages as u32, short.walk / short.walk_pages as u32),
            );
        }
        db.stop().await;
    });
}

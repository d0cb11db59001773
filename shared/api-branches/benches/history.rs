//! Benchmark: `GET /docs/{doc}/versions` on branches of 100, 10,000 and 100,000 versions, against the same requests
//! on a short peer branch (100 versions) measured in the same run, request by request, on a local server (127.0.0.1,
//! the branches router over the embedded engine persisted in a temporary data directory, as `specpress serve` runs).
//! The 100-version row against the 100-version peer shows the noise floor.
//!
//! Each branch gets its first two versions from real deploys (the deploy use case and the real engine); the rest are
//! copies of the second version's stored item (new id, position, history sort key, previous version, time), written
//! with BatchWriteItem, and the branch item is moved to the last one as a commit moves it: the same item shapes a
//! deploy writes, without 100,000 deploys.
//!
//! Per branch: the medians of page 1, of the last page by number (`page=N/10`), of a cursor page from the middle of
//! the history (all `limit=10`) and of a page of 100; the full walk following `next` cursors with `limit=100` (timed
//! once, compared per page with the peer's page of 100); and, as the reference for what changed, a read of the whole
//! history from the store, which is what every page cost before histories were paged in the store.
//!
//! Iterations: `SPECPRESS_BENCH_ITERS` (default 21). Sizes: `SPECPRESS_BENCH_SIZES` (default `100,10000,100000`).
//! Run: `cargo bench -p specpress-api-branches --bench history`.

// The allocator the binaries ship with.
use specpress_alloc as _;
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
use specpress_local::embedded::{Embedded, Storage};
use specpress_store_dynamodb::DynamoStore;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// The peer: a short branch (a full page of 100, so walk pages compare like for like).
const SHORT: u64 = 100;

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

    /// A documentation whose `main` branch holds `size` published versions.
    async fn build(&self, size: u64) -> DocId {
        let slug = format!("history-{size}-{}", uuid::Uuid::new_v4().simple());
        let engine = specpress_engines::Engines::default();
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
                &specpress_domain::ports::NoPublisher,
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
        // A few batches in flight: the engine applies them one at a time, the SDK work around them overlaps.
        let mut in_flight = tokio::task::JoinSet::new();
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
                if in_flight.len() >= 4 {
                    in_flight
                        .join_next()
                        .await
                        .expect("a batch")
                        .expect("batch task");
                }
                let (client, table) = (client.clone(), table.to_owned());
                let mut pending = std::mem::take(&mut batch);
                in_flight.spawn(async move {
                    while !pending.is_empty() {
                        let out = client
                            .batch_write_item()
                            .request_items(&table, pending)
                            .send()
                            .await
                            .expect("batch write");
                        pending = out
                            .unprocessed_items
                            .and_then(|mut m| m.remove(&table))
                            .unwrap_or_default();
                    }
                });
            }
        }
        while let Some(done) = in_flight.join_next().await {
            done.expect("batch task");
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

    /// Builds a branch of `size` versions and the requests measured on it.
    async fn prepare(&self, size: u64) -> Target {
        let t = Instant::now();
        let doc = self.build(size).await;
        eprintln!(
            "built a branch of {size} versions in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        let list = format!("/api/v1/docs/{doc}/versions");
        let last_page = size.div_ceil(10);
        let (middle, _) = self
            .get(&format!(
                "{list}?limit=10&envelope=true&page={}",
                (last_page / 2).max(1)
            ))
            .await;
        let cursor = middle["meta"]["next_cursor"]
            .as_str()
            .expect("a cursor from the middle")
            .to_owned();
        Target {
            size,
            doc,
            first: format!("{list}?limit=10"),
            deep: format!("{list}?limit=10&page={last_page}"),
            cursor: format!("{list}?limit=10&cursor={cursor}"),
            full_page: format!("{list}?limit=100"),
            walk: format!("{list}?limit=100&envelope=true"),
        }
    }

    /// One request, timed.
    async fn once(&self, path: &str) -> Duration {
        let t = Instant::now();
        let (body, _) = self.get(path).await;
        let took = t.elapsed();
        assert!(!body.as_array().expect("array").is_empty(), "{path}");
        took
    }

    /// Medians of `long`'s requests and of the same requests on `short`, interleaved request by request so both see
    /// the machine in the same state: `[page 1, last page, cursor page, page of 100]` for each.
    async fn interleaved(&self, short: &Target, long: &Target) -> ([Duration; 4], [Duration; 4]) {
        let kinds = |t: &Target| {
            [
                t.first.clone(),
                t.deep.clone(),
                t.cursor.clone(),
                t.full_page.clone(),
            ]
        };
        let (s, l) = (kinds(short), kinds(long));
        let mut lat: [[Vec<Duration>; 4]; 2] = Default::default();
        // Three rounds of warm-up (connections, caches, the engine's statements), untimed.
        for round in 0..self.iters + 3 {
            for k in 0..4 {
                let a = self.once(&s[k]).await;
                let b = self.once(&l[k]).await;
                if round >= 3 {
                    lat[0][k].push(a);
                    lat[1][k].push(b);
                }
            }
        }
        let [ls, ll] = lat;
        (ls.map(median), ll.map(median))
    }

    /// Follows `next` cursors from the first page (`limit=100`) to the end: total time and pages.
    async fn walk(&self, target: &Target) -> (Duration, usize) {
        let t = Instant::now();
        let mut walked = 0u64;
        let mut pages = 0usize;
        let mut next = Some(target.walk.clone());
        while let Some(path) = next.take() {
            let (body, _) = self.get(&path).await;
            walked += body["data"].as_array().expect("data").len() as u64;
            pages += 1;
            next = body["links"]["next"].as_str().map(str::to_owned);
        }
        assert_eq!(walked, target.size, "the walk lists every version once");
        (t.elapsed(), pages)
    }

    /// Reading the whole history from the store (what every page cost before paging in the store).
    async fn whole_read(&self, target: &Target) -> Duration {
        let branch = self
            .store
            .get_branch(target.doc, &Slug::parse("main").expect("slug"))
            .await
            .expect("read")
            .expect("branch");
        let mut lat = Vec::new();
        for _ in 0..3 {
            let t = Instant::now();
            let all = self
                .store
                .list_versions(&branch, 1..=target.size)
                .await
                .expect("whole history");
            lat.push(t.elapsed());
            assert_eq!(all.len() as u64, target.size);
        }
        median(lat)
    }
}

/// A branch and the requests measured on it.
struct Target {
    size: u64,
    doc: DocId,
    first: String,
    deep: String,
    cursor: String,
    full_page: String,
    walk: String,
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
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("bind 127.0.0.1");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let state = AppState::new(shared.clone(), ApiConfig::new(base.clone()));
        let app = specpress_api::with_common_layers(specpress_api_branches::router(state));
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
        let short = bench.prepare(SHORT).await;
        let (short_walk, _) = bench.walk(&short).await;
        let short_read = bench.whole_read(&short).await;
        println!(
            "GET /docs/{{doc}}/versions: medians of {iters}, each request of a long branch interleaved with the same \
             request on the {SHORT}-version peer (limit=10 unless said; the walk follows next cursors with limit=100)"
        );
        println!(
            "{:>8} | {:>9} | {:>9} | {:>9} | {:>11} | {:>26} | {:>12}",
            "versions",
            "page 1",
            "last page",
            "cursor",
            "page of 100",
            "full walk (pages x each)",
            "whole read"
        );
        let row = |size: u64, p: &[Duration; 4], walk: Duration, pages: usize, read: Duration| {
            println!(
                "{:>8} | {:>9} | {:>9} | {:>9} | {:>11} | {:>11} ({:>4} x {}) | {:>12}",
                size,
                ms(p[0]),
                ms(p[1]),
                ms(p[2]),
                ms(p[3]),
                ms(walk),
                pages,
                ms(walk / pages as u32),
                ms(read),
            );
        };
        println!(
            "{:>8} | {:>9} | {:>9} | {:>9} | {:>11} | {:>11} ({:>4} x {}) | {:>12}  (the peer; its pages below each row)",
            SHORT,
            "-",
            "-",
            "-",
            "-",
            ms(short_walk),
            1,
            ms(short_walk),
            ms(short_read),
        );
        let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
        let mut ratios = Vec::new();
        for size in sizes {
            let long = bench.prepare(size).await;
            let (peer, mine) = bench.interleaved(&short, &long).await;
            let (walk, pages) = bench.walk(&long).await;
            let read = bench.whole_read(&long).await;
            row(size, &mine, walk, pages, read);
            println!(
                "{:>8} | {:>9} | {:>9} | {:>9} | {:>11} |  (the {SHORT}-version peer, interleaved)",
                "",
                ms(peer[0]),
                ms(peer[1]),
                ms(peer[2]),
                ms(peer[3]),
            );
            ratios.push(format!(
                "{size:>8} versions against {SHORT}: page 1 x{:.2}, last page x{:.2}, cursor page x{:.2}, page of 100 x{:.2}, walk per page x{:.2} (against the peer's page of 100)",
                ratio(mine[0], peer[0]),
                ratio(mine[1], peer[1]),
                ratio(mine[2], peer[2]),
                ratio(mine[3], peer[3]),
                ratio(walk / pages as u32, peer[3]),
            ));
        }
        for r in ratios {
            println!("{r}");
        }
        db.stop().await;
    });
}

//! Search over HTTP (issue 20) on the real `specpress serve`, release build, with its defaults.
//!
//! `cargo bench -p specpress-e2e --bench search` (env: `SPECPRESS_CORPUS`, default `../shared/corpus`;
//! `SPECPRESS_BIN`, default `target/release/specpress`, built if missing; `BENCH_ROUNDS`, rounds over the queries,
//! default 20).
//!
//! GitHub's REST description (13 MB), Stripe's and Kubernetes' are deployed into one hub. For each documentation:
//! the first search (which builds the version's index: what a reader pays once per version and process), then
//! `BENCH_ROUNDS` rounds over 24 queries (single words, prefixes, typos, several words, names of properties, a query
//! that finds nothing), each answered as the results page, one client on a kept-alive connection, timed from
//! request to the last byte: p50, p95 and max. The hub search (every documentation of the hub, results merged)
//! is measured the same way. As the peer in the same run, a warm reference page of the same documentation (its
//! home) is fetched as many times: search answers are put beside what a page costs.

use std::time::{Duration, Instant};

use serde_json::json;
use specpress_e2e::Server;
use specpress_e2e::bench::{client, corpus_dir, env_num, ms, pct, release_binary};

const ORG_TOKEN: &str = "search-bench-organization-token-00000";

/// The documents benchmarked: (slug, path under the corpus).
const DOCS: [(&str, &str); 3] = [
    ("github", "openapi-3.0/github-api-23.0.2.json"),
    ("stripe", "openapi-3.0/stripe-2023-09-12.yaml"),
    ("kubernetes", "swagger-2.0/kubernetes-1.36.json"),
];

/// What readers type: words, prefixes, typos, several words, property names, nothing to find.
const QUERIES: [&str; 24] = [
    "repos",
    "pull request",
    "issue comment",
    "webhook",
    "create",
    "list",
    "delete deployment",
    "reposiotry",
    "vacinations",
    "workflow run",
    "gist",
    "org",
    "customer",
    "payment intent",
    "subscription item",
    "invoice",
    "pod",
    "namespace",
    "deployment scale",
    "configmap",
    "created_at",
    "per_page",
    "zzzqqq",
    "a b c d e f",
];

fn get(http: &reqwest::blocking::Client, url: &str) -> (u16, Duration) {
    let t = Instant::now();
    let r = http.get(url).send().expect("GET answers");
    let status = r.status().as_u16();
    let _ = r.bytes();
    (status, t.elapsed())
}

fn encode(q: &str) -> String {
    q.replace(' ', "+")
}

fn report(label: &str, mut times: Vec<Duration>) -> (Duration, Duration) {
    times.sort();
    let (p50, p95) = (pct(&times, 0.5), pct(&times, 0.95));
    println!(
        "  {label:<28} n={:<5} p50 {:>7.2} ms  p95 {:>7.2} ms  max {:>7.2} ms",
        times.len(),
        ms(p50),
        ms(p95),
        ms(*times.last().unwrap_or(&Duration::ZERO))
    );
    (p50, p95)
}

fn main() {
    let Some(corpus) = corpus_dir() else {
        eprintln!(
            "the API corpus is missing (set SPECPRESS_CORPUS, default ../shared/corpus): nothing to benchmark"
        );
        return;
    };
    let rounds: usize = env_num("BENCH_ROUNDS", 20);
    let bin = release_binary();
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Server::start_binary(&bin, dir.path(), &[("SPECPRESS_ORG_TOKEN", ORG_TOKEN)]);
    let base = server.base_url.clone();
    let http = client();
    let auth = format!("Token {ORG_TOKEN}");
    let r = http
        .post(format!("{base}/api/v1/hubs"))
        .header("Authorization", &auth)
        .json(&json!({"name": "Bench hub", "slug": "bench"}))
        .send()
        .expect("hub");
    assert_eq!(r.status().as_u16(), 201, "hub created");
    for (slug, file) in DOCS {
        let text = std::fs::read_to_string(corpus.join(file)).expect("corpus document");
        let r = http
            .post(format!("{base}/api/v1/versions"))
            .header("Authorization", &auth)
            .json(&json!({"documentation": slug, "hub": "bench", "auto_create_documentation": true, "definition": text}))
            .send()
            .expect("deploy");
        assert_eq!(r.status().as_u16(), 201, "{slug} deployed");
    }
    println!(
        "search over HTTP, release build, {rounds} rounds x {} queries",
        QUERIES.len()
    );
    let mut all = Vec::new();
    for (slug, _) in DOCS {
        let first = format!("{base}/doc/{slug}/search?q=create");
        let (status, cold) = get(&http, &first);
        assert_eq!(status, 200, "{first}");
        println!("{slug}: first search (builds the index) {:.1} ms", ms(cold));
        let mut times = Vec::new();
        let mut found = 0;
        for _ in 0..rounds {
            for q in QUERIES {
                let url = format!("{base}/doc/{slug}/search?q={}", encode(q));
                let (status, t) = get(&http, &url);
                assert!(status == 200 || status == 400, "{url}: {status}");
                found += usize::from(status == 200);
                times.push(t);
            }
        }
        assert!(found > 0);
        all.extend(times.iter().copied());
        let (search_p50, _) = report("search + results page", times);
        let home = format!("{base}/doc/{slug}");
        let _ = get(&http, &home);
        let pages: Vec<Duration> = (0..rounds * QUERIES.len())
            .map(|_| get(&http, &home).1)
            .collect();
        let (page_p50, _) = report("peer: home page (warm)", pages);
        println!(
            "  search p50 / page p50 = {:.2}",
            ms(search_p50) / ms(page_p50).max(1e-6)
        );
    }
    let mut hub = Vec::new();
    for _ in 0..rounds {
        for q in QUERIES {
            let url = format!("{base}/hub/bench/search?q={}", encode(q));
            let (status, t) = get(&http, &url);
            assert!(status == 200 || status == 400, "{url}: {status}");
            hub.push(t);
        }
    }
    println!("hub (3 documentations):");
    report("hub search + results page", hub);
    println!("all documentations:");
    let (_, p95) = report("search + results page", all);
    println!(
        "target p95 <= 50 ms on the server: {}",
        if p95 <= Duration::from_millis(50) {
            "met"
        } else {
            "NOT met"
        }
    );
}

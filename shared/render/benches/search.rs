//! `cargo bench -p specpress-render --bench search`: for the GitHub description (and one document of each other
//! corpus family), prints the time to build the search index from a parsed document and its `Site` (median of 5),
//! the index's size, entries and terms, and the time of a query mix (exact words, prefixes, typos, several words,
//! a path, misses) answered as a rendered results page: search + page, each query repeated, median / p95 / max.
//! `SPECPRESS_SEARCH_BENCH=path1,path2` picks other documents.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use specpress_alloc as _;
use specpress_render::search::MAX_RESULTS;
use specpress_render::{PageContext, SearchIndex, SearchPage, SearchResult, Site, asset_urls};

fn corpus() -> Option<PathBuf> {
    let dir = match std::env::var_os("SPECPRESS_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    dir.is_dir().then_some(dir)
}

fn pct(v: &mut [Duration], p: f64) -> Duration {
    v.sort_unstable();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// Queries a reader types: words, prefixes (as-you-type), typos, several words, paths, and misses.
const QUERIES: &[&str] = &[
    "repository",
    "repositories",
    "list pull requests",
    "pull",
    "repo",
    "issue comment",
    "reposListForOrg",
    "/repos/{owner}/{repo}/issues",
    "webhook",
    "repositroy",
    "colaborators",
    "vacinations",
    "secret scanning alert",
    "created_at",
    "per_page",
    "login",
    "id",
    "customer",
    "payment intent",
    "subscriptoin",
    "zzzzzzzz",
    "a b",
    "the quick brown fox jumps over",
    "GET",
];

fn main() {
    specpress_alloc::configure_for_service();
    let files: Vec<PathBuf> = match std::env::var("SPECPRESS_SEARCH_BENCH") {
        Ok(list) => list.split(',').map(PathBuf::from).collect(),
        Err(_) => {
            let Some(dir) = corpus() else {
                eprintln!("corpus folder missing (set SPECPRESS_CORPUS): nothing to measure");
                return;
            };
            [
                "openapi-3.0/github-api-23.0.2.json",
                "openapi-3.0/stripe-2023-09-12.yaml",
                "openapi-3.1/openai-2026-08-21.json",
                "swagger-2.0/kubernetes-1.36.json",
                "asyncapi/slack-rtm-3.0.0.yml",
            ]
            .iter()
            .map(|f| dir.join(f))
            .collect()
        }
    };
    println!(
        "| document | Site::build | index build median | index size | entries | terms | query + results page median / p95 / max | search alone median / p95 |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let assets = asset_urls("/static");
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            eprintln!("cannot read {}", f.display());
            continue;
        };
        let limits = specpress_apispec::Limits {
            max_bytes: 64 << 20,
            ..Default::default()
        };
        let doc = match specpress_apispec::parse_owned(text, Vec::new(), &limits) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{}: {e}", f.display());
                continue;
            }
        };
        let t = Instant::now();
        let site = Site::build(&doc);
        let site_build = t.elapsed();
        let mut builds = Vec::new();
        let mut index = SearchIndex::build(&doc, &site);
        for _ in 0..5 {
            let t = Instant::now();
            index = SearchIndex::build(&doc, &site);
            builds.push(t.elapsed());
        }
        let ctx = PageContext {
            base: "/doc/bench",
            doc_name: "Bench",
            branches: &[],
            version: None,
            assets: &assets,
            links: &[],
            search_action: Some("/doc/bench/search"),
            alternates: &[],
            noindex: false,
            session_href: None,
            mcp: None,
            try_it: Default::default(),
            release: None,
            since: None,
            follow: None,
        };
        let mut answers = Vec::new();
        let mut searches = Vec::new();
        for _ in 0..20 {
            for q in QUERIES {
                let t = Instant::now();
                let found = index.search(&site, q, MAX_RESULTS).unwrap_or_default();
                searches.push(t.elapsed());
                let results: Vec<SearchResult<'_>> = found
                    .hits
                    .iter()
                    .map(|h| SearchResult::of(h, "/doc/bench", None))
                    .collect();
                let html = specpress_render::search_page(
                    &ctx,
                    &SearchPage {
                        query: q,
                        action: "/doc/bench/search",
                        scope: "this documentation",
                        results: &results,
                        total: found.total,
                        partial: found.partial,
                        error: None,
                    },
                );
                std::hint::black_box(html);
                answers.push(t.elapsed());
            }
        }
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let max = *answers.iter().max().unwrap_or(&Duration::ZERO);
        println!(
            "| {name} | {} | {} | {:.1} MB | {} | {} | {} / {} / {} | {} / {} |",
            ms(site_build),
            ms(pct(&mut builds, 0.5)),
            index.size_bytes() as f64 / 1e6,
            index.len(),
            index.term_count(),
            ms(pct(&mut answers, 0.5)),
            ms(pct(&mut answers, 0.95)),
            ms(max),
            ms(pct(&mut searches, 0.5)),
            ms(pct(&mut searches, 0.95)),
        );
        if std::env::var_os("SPECPRESS_SEARCH_BENCH_SHOW").is_some() {
            for q in [
                "vacinations",
                "repositroy",
                "list pull requests",
                "per_page",
            ] {
                let found = index.search(&site, q, 5).unwrap_or_default();
                println!("  {q:?}: {} results", found.total);
                for h in &found.hits {
                    println!(
                        "    {:>6.1} {:?} {} — {} ({})",
                        h.score, h.kind, h.title, h.context, h.path
                    );
                }
            }
        }
    }
}

//! Benchmark of the published pages (issue 19) on the real `specpress serve`, release build, with its defaults.
//!
//! `cargo bench -p specpress-e2e --bench pages` (env: `SPECPRESS_CORPUS`, default `../shared/corpus`;
//! `SPECPRESS_BIN`, default `target/release/specpress`, built if missing; `SPECPRESS_REDOCLY`, the `redocly`
//! executable of `@redocly/cli` to compare with, skipped with a note when unset; `BENCH_ROUNDS`, warm rounds over
//! the sampled pages, default 3; `BENCH_PAGES`, pages sampled per documentation, default 150).
//!
//! For each corpus document (GitHub 13 MB, Stripe, Kubernetes, OpenAI, the AsyncAPI examples), in three processes:
//! 1. Definitions only (what `/doc/{doc}` served before the pages existed): deploy each document through the API,
//!    read its definition back at `/doc/{slug}.yaml`; the resident memory (VmRSS) then is the baseline.
//! 2. Pages: deploy + first GET of the home page, timed together and apart (the site is parsed and built on the
//!    first page; nothing is rendered at deploy time); every page of the GitHub document fetched once gzipped (the
//!    largest is reported against the 100 KB budget); then warm rounds over a sample of each documentation's pages
//!    (home, operations, tags, schemas), one client with a kept-alive connection, p50/p95 per document and overall;
//!    the resident memory after, against the baseline.
//! 3. Cold: a new process on the same data directory, its first GET of the GitHub home page (a fresh Lambda).
//!
//! `redocly build-docs` is timed on the same files in the same run, and the ratio printed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use specpress_e2e::Server;
use specpress_e2e::bench::{
    client, corpus_dir as corpus, env_num, ms, pct, release_binary, rss_mb,
};

const ORG_TOKEN: &str = "pages-bench-organization-token-000000";

/// The documents benchmarked: (slug, path under the corpus).
const DOCS: [(&str, &str); 7] = [
    ("github", "openapi-3.0/github-api-23.0.2.json"),
    ("stripe", "openapi-3.0/stripe-2023-09-12.yaml"),
    ("kubernetes", "swagger-2.0/kubernetes-1.36.json"),
    ("openai", "openapi-3.1/openai-2026-08-21.yaml"),
    ("slack-rtm", "asyncapi/slack-rtm-3.1.0.yml"),
    ("streetlights-3", "asyncapi/streetlights-kafka-3.1.0.yml"),
    ("streetlights-2", "asyncapi/streetlights-kafka-2.5.0.yml"),
];

fn start(bin: &Path, dir: &Path) -> Server {
    Server::start_binary(bin, dir, &[("SPECPRESS_ORG_TOKEN", ORG_TOKEN)])
}

/// Deploys `text` as the documentation `slug` (created on the way), answering the time it took.
fn deploy(http: &reqwest::blocking::Client, base: &str, slug: &str, text: &str) -> Duration {
    let body =
        json!({"documentation": slug, "auto_create_documentation": true, "definition": text});
    let t = Instant::now();
    let r = http
        .post(format!("{base}/api/v1/versions"))
        .header("Authorization", format!("Token {ORG_TOKEN}"))
        .json(&body)
        .send()
        .expect("deploy answers");
    let took = t.elapsed();
    let status = r.status().as_u16();
    assert!(
        status == 201 || status == 204,
        "deploy of {slug}: {status} {}",
        r.text().unwrap_or_default()
    );
    took
}

/// GET `path`, asking for gzip: (status, body bytes as sent, time).
fn get(http: &reqwest::blocking::Client, base: &str, path: &str) -> (u16, Vec<u8>, Duration) {
    let t = Instant::now();
    let r = http
        .get(format!("{base}{path}"))
        .header("Accept-Encoding", "gzip")
        .send()
        .expect("GET answers");
    let status = r.status().as_u16();
    let body = r.bytes().map(|b| b.to_vec()).unwrap_or_default();
    (status, body, t.elapsed())
}

fn gunzip(bytes: &[u8]) -> String {
    use std::io::Read;
    let mut s = String::new();
    if flate2::read::GzDecoder::new(bytes)
        .read_to_string(&mut s)
        .is_err()
    {
        s = String::from_utf8_lossy(bytes).into_owned();
    }
    s
}

/// The `/doc/{slug}/...` page links of a page, without fragments, in order, deduplicated.
fn page_links(html: &str, slug: &str) -> Vec<String> {
    let prefix = format!("/doc/{slug}/");
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for part in html.split("href=\"").skip(1) {
        let Some(end) = part.find('"') else { continue };
        let href = part[..end].replace("&#x2F;", "/").replace("&amp;", "&");
        let href = href.split('#').next().unwrap_or_default().to_owned();
        // The MCP server's endpoint (`/doc/{slug}/mcp`, linked from every footer) answers POST only: not a page.
        let endpoint = href == format!("{prefix}mcp");
        if href.starts_with(&prefix)
            && !href.contains("/branches/")
            && !endpoint
            && seen.insert(href.clone())
        {
            out.push(href);
        }
    }
    out
}

/// Every page of a documentation reachable from its home and schema index.
fn all_pages(http: &reqwest::blocking::Client, base: &str, slug: &str) -> Vec<String> {
    let home = format!("/doc/{slug}");
    let (_, body, _) = get(http, base, &home);
    let mut pages = vec![home];
    let mut links = page_links(&gunzip(&body), slug);
    let schemas = format!("/doc/{slug}/schemas");
    let (s, body, _) = get(http, base, &schemas);
    if s == 200 {
        for l in page_links(&gunzip(&body), slug) {
            if !links.contains(&l) {
                links.push(l);
            }
        }
    }
    pages.extend(links);
    pages
}

/// An evenly spread sample of at most `n` pages, the home page first.
fn sample(pages: &[String], n: usize) -> Vec<String> {
    if pages.len() <= n {
        return pages.to_vec();
    }
    let step = pages.len() as f64 / n as f64;
    (0..n)
        .map(|i| pages[(i as f64 * step) as usize].clone())
        .collect()
}

fn redocly(exe: &Path, file: &Path) -> Option<Duration> {
    let out =
        std::env::temp_dir().join(format!("specpress-bench-redoc-{}.html", std::process::id()));
    let t = Instant::now();
    let status = Command::new(exe)
        .args(["build-docs"])
        .arg(file)
        .arg("-o")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    let took = t.elapsed();
    let _ = std::fs::remove_file(&out);
    status.success().then_some(took)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let Some(corpus) = corpus() else {
        println!(
            "pages bench: the API corpus is missing (set SPECPRESS_CORPUS to the folder holding openapi-3.0/ etc.); nothing measured"
        );
        return;
    };
    let rounds: usize = env_num("BENCH_ROUNDS", 3);
    let per_doc: usize = env_num("BENCH_PAGES", 150);
    let bin = release_binary();
    let http = client();
    let texts: Vec<(&str, PathBuf, String)> = DOCS
        .iter()
        .map(|(slug, rel)| {
            let path = corpus.join(rel);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            (*slug, path, text)
        })
        .collect();

    // 1. Definitions only.
    let dir = tempfile::tempdir().expect("temp dir");
    let server = start(&bin, dir.path());
    let base = server.base_url.clone();
    let idle = rss_mb(server.pid());
    for (slug, _, text) in &texts {
        deploy(&http, &base, slug, text);
        let (s, _, _) = get(&http, &base, &format!("/doc/{slug}.yaml"));
        assert_eq!(s, 200, "{slug}.yaml");
    }
    let baseline = rss_mb(server.pid());
    server.stop();
    println!(
        "process 1 (definitions only): RSS idle {idle:.0} MB, after deploying and reading every definition {baseline:.0} MB"
    );

    // 2. Pages.
    let dir = tempfile::tempdir().expect("temp dir");
    let server = start(&bin, dir.path());
    let base = server.base_url.clone();
    println!("\nprocess 2: deploy + first page (the home page, gzip), per document");
    println!(
        "{:<16} {:>9} {:>9} {:>9} {:>10} {:>9}",
        "document", "MB", "deploy", "1st GET", "together", "home gz"
    );
    let mut firsts = Vec::new();
    for (slug, _, text) in &texts {
        let d = deploy(&http, &base, slug, text);
        let (s, body, g) = get(&http, &base, &format!("/doc/{slug}"));
        assert_eq!(s, 200, "{slug} home");
        println!(
            "{:<16} {:>9.1} {:>7.0}ms {:>7.0}ms {:>8.0}ms {:>7.1}KB",
            slug,
            text.len() as f64 / 1e6,
            ms(d),
            ms(g),
            ms(d + g),
            body.len() as f64 / 1024.0
        );
        firsts.push(d + g);
    }

    // Every GitHub page once, gzipped: the largest against the 100 KB budget.
    let github_pages = all_pages(&http, &base, "github");
    let t = Instant::now();
    let mut largest = (0usize, String::new());
    let mut failed = 0;
    for p in &github_pages {
        let (s, body, _) = get(&http, &base, p);
        if s != 200 {
            failed += 1;
        }
        if body.len() > largest.0 {
            largest = (body.len(), p.clone());
        }
    }
    println!(
        "\nGitHub: {} pages fetched gzipped in {:.1} s ({} not 200); largest {:.1} KB gzipped ({}); budget 100 KB",
        github_pages.len(),
        t.elapsed().as_secs_f64(),
        failed,
        largest.0 as f64 / 1024.0,
        largest.1
    );

    // Warm rounds.
    let samples: Vec<(&str, Vec<String>)> = texts
        .iter()
        .map(|(slug, _, _)| {
            let pages = if *slug == "github" {
                github_pages.clone()
            } else {
                all_pages(&http, &base, slug)
            };
            (*slug, sample(&pages, per_doc))
        })
        .collect();
    let mut all = Vec::new();
    println!("\nwarm page latency over HTTP, {rounds} rounds, one kept-alive client");
    println!(
        "{:<16} {:>6} {:>9} {:>9} {:>9}",
        "document", "pages", "p50", "p95", "max"
    );
    for (slug, pages) in &samples {
        let mut times = Vec::new();
        for _ in 0..rounds {
            for p in pages {
                let (s, _, d) = get(&http, &base, p);
                assert_eq!(s, 200, "{p}");
                times.push(d);
            }
        }
        times.sort_unstable();
        println!(
            "{:<16} {:>6} {:>7.2}ms {:>7.2}ms {:>7.2}ms",
            slug,
            pages.len(),
            ms(pct(&times, 0.5)),
            ms(pct(&times, 0.95)),
            ms(*times.last().unwrap_or(&Duration::ZERO))
        );
        all.extend(times);
    }
    all.sort_unstable();
    println!(
        "{:<16} {:>6} {:>7.2}ms {:>7.2}ms {:>7.2}ms  (budget p50 10 ms, p95 50 ms)",
        "all",
        all.len(),
        ms(pct(&all, 0.5)),
        ms(pct(&all, 0.95)),
        ms(*all.last().unwrap_or(&Duration::ZERO))
    );
    let after = rss_mb(server.pid());
    println!(
        "\nmemory: RSS {after:.0} MB serving every documentation's pages vs {baseline:.0} MB definitions only: {:.2}x (budget 2x)",
        after / baseline.max(1.0)
    );
    server.stop();

    // 3. Cold.
    let t = Instant::now();
    let server = start(&bin, dir.path());
    let ready = t.elapsed();
    let (s, _, first) = get(&http, &server.base_url, "/doc/github");
    assert_eq!(s, 200);
    let next = github_pages
        .get(github_pages.len() / 2)
        .cloned()
        .unwrap_or_default();
    let (_, _, second) = get(&http, &server.base_url, &next);
    println!(
        "\ncold process: ready in {:.0} ms; first GitHub page {:.0} ms (budget 500 ms); next page {:.1} ms",
        ms(ready),
        ms(first),
        ms(second)
    );
    server.stop();

    // The peer, in the same run.
    match std::env::var_os("SPECPRESS_REDOCLY").map(PathBuf::from) {
        None => println!(
            "\nredocly: not measured (set SPECPRESS_REDOCLY to the redocly executable of @redocly/cli: npm install --prefix DIR @redocly/cli@2)"
        ),
        Some(exe) => {
            println!("\nredocly build-docs vs Specpress deploy + first page, same files, same run");
            println!(
                "{:<16} {:>10} {:>10} {:>7}",
                "document", "redocly", "specpress", "ratio"
            );
            for ((slug, path, _), first) in texts.iter().zip(&firsts) {
                if path.components().any(|c| c.as_os_str() == "asyncapi") {
                    println!("{slug:<16} (AsyncAPI: redocly renders OpenAPI only)");
                    continue;
                }
                match redocly(&exe, path) {
                    Some(r) => println!(
                        "{:<16} {:>8.0}ms {:>8.0}ms {:>6.1}x",
                        slug,
                        ms(r),
                        ms(*first),
                        r.as_secs_f64() / first.as_secs_f64()
                    ),
                    None => println!("{slug:<16} redocly failed on this document"),
                }
            }
        }
    }
}

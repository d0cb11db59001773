//! `cargo bench -p specpress-render`: for one document of each corpus family, prints the parse time,
//! the median of `Site::build`, and over every page of the document the render time (median, p90,
//! max; each page's best of three) and the gzipped size (median, max), plus the home page's; then, over every
//! document, the render time of each page kind (median, p90).
//! `SPECPRESS_RENDER_BENCH=path1,path2` picks other documents.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use specpress_alloc as _;
use specpress_render::{PageContext, PageKind, Site, asset_urls};

fn corpus() -> Option<PathBuf> {
    let dir = match std::env::var_os("SPECPRESS_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    dir.is_dir().then_some(dir)
}

fn gz(s: &str) -> usize {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    let _ = e.write_all(s.as_bytes());
    e.finish().map(|v| v.len()).unwrap_or(0)
}

fn pct<T: Copy + Ord>(v: &mut [T], p: f64) -> T {
    v.sort_unstable();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    specpress_alloc::configure_for_service();
    let files: Vec<PathBuf> = match std::env::var("SPECPRESS_RENDER_BENCH") {
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
                "asyncapi/streetlights-kafka-2.5.0.yml",
            ]
            .iter()
            .map(|f| dir.join(f))
            .collect()
        }
    };
    println!(
        "| document | pages | parse | Site::build median | render median / p90 / max | gzipped median / max | home: render, gzipped |"
    );
    println!("|---|---|---|---|---|---|---|");
    let assets = asset_urls("/static");
    let mut by_kind: std::collections::BTreeMap<String, Vec<Duration>> = Default::default();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            eprintln!("cannot read {}", f.display());
            continue;
        };
        let limits = specpress_apispec::Limits {
            max_bytes: 64 << 20,
            ..Default::default()
        };
        let t = Instant::now();
        let doc = match specpress_apispec::parse_owned(text, Vec::new(), &limits) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{}: {e}", f.display());
                continue;
            }
        };
        let parse = t.elapsed();
        let mut builds = Vec::new();
        let mut site = Site::build(&doc);
        for _ in 0..11 {
            let t = Instant::now();
            site = Site::build(&doc);
            builds.push(t.elapsed());
        }
        let ctx = PageContext {
            base: "/doc/bench",
            doc_name: "Bench",
            branches: &[],
            version: None,
            assets: &assets,
            links: &[],
            search_action: None,
            alternates: &[],
            noindex: false,
            session_href: None,
            mcp: None,
            try_it: Default::default(),
            release: None,
            since: None,
            follow: None,
        };
        let pages: Vec<_> = site.pages().collect();
        let mut times = Vec::with_capacity(pages.len());
        let mut sizes = Vec::with_capacity(pages.len());
        let mut home = (Duration::ZERO, 0);
        for p in &pages {
            let mut best = Duration::MAX;
            let mut html = String::new();
            for _ in 0..3 {
                let t = Instant::now();
                let page = site.render(&doc, &p.page, &ctx);
                best = best.min(t.elapsed());
                html = page.html;
            }
            let size = gz(&html);
            if p.kind == PageKind::Home {
                home = (best, size);
            }
            times.push(best);
            sizes.push(size);
            by_kind
                .entry(format!("{:?}", p.kind))
                .or_default()
                .push(best);
        }
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        println!(
            "| {name} | {} | {} | {} | {} / {} / {} | {:.1} KB / {:.1} KB | {}, {:.1} KB |",
            pages.len(),
            ms(parse),
            ms(pct(&mut builds, 0.5)),
            ms(pct(&mut times, 0.5)),
            ms(pct(&mut times, 0.9)),
            ms(pct(&mut times, 1.0)),
            pct(&mut sizes, 0.5) as f64 / 1024.0,
            pct(&mut sizes, 1.0) as f64 / 1024.0,
            ms(home.0),
            home.1 as f64 / 1024.0,
        );
    }
    println!();
    println!("| page kind | pages | render median / p90 (µs) |");
    println!("|---|---|---|");
    for (kind, mut times) in by_kind {
        println!(
            "| {kind} | {} | {:.1} / {:.1} |",
            times.len(),
            pct(&mut times, 0.5).as_secs_f64() * 1e6,
            pct(&mut times, 0.9).as_secs_f64() * 1e6,
        );
    }
}

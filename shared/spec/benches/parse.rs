//! Benchmark: parse + resolve + validate (`specpress_spec::check`) of the large corpus
//! documents, with peak memory.
//!
//! `cargo bench -p specpress-spec` runs each document in its own child process (this same
//! binary with `--child`), so the peak RSS (`VmHWM` from `/proc/self/status`) of one document
//! is not polluted by another. In the child: the file is read, schemas are compiled once
//! (warm-up, like a warm Lambda), then `check` runs `SPECPRESS_BENCH_ITERS` times (default 15)
//! and the median is printed, next to the floor of the same run: serde_json reading the same
//! text into a `Value` (JSON) or saphyr-parser producing its events (YAML).
//!
//! The corpus folder comes from `SPECPRESS_CORPUS` (default `<repo>/../shared/corpus`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const DOCS: [&str; 5] = [
    "openapi-3.0/github-api-23.0.2.json",
    "openapi-3.0/stripe-2023-09-12.yaml",
    "openapi-3.1/openai-2026-08-21.yaml",
    "openapi-3.1/openai-2026-08-21.json",
    "swagger-2.0/kubernetes-1.36.json",
];

fn corpus_dir() -> PathBuf {
    match std::env::var_os("SPECPRESS_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn vm_hwm_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn floor_once(text: &str, yaml: bool) {
    if yaml {
        let mut p = saphyr_parser::Parser::new_from_str(text);
        let mut n = 0usize;
        while let Some(Ok(_)) = p.next_event() {
            n += 1;
        }
        std::hint::black_box(n);
    } else {
        let v: serde_json::Value = serde_json::from_str(text).expect("corpus JSON");
        std::hint::black_box(&v);
    }
}

fn child(path: &Path) {
    let text = std::fs::read_to_string(path).expect("read corpus document");
    let iters: usize = std::env::var("SPECPRESS_BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    let limits = specpress_spec::Limits {
        max_bytes: 64 * 1024 * 1024,
        ..Default::default()
    };
    specpress_spec::warm_up().expect("bundled schemas compile");
    let yaml = path.extension().is_some_and(|e| e == "yaml" || e == "yml");
    let mut times = Vec::with_capacity(iters);
    let mut ops = 0;
    for _ in 0..iters {
        let t = Instant::now();
        let doc = specpress_spec::check(&text, &[], &limits).expect("corpus document is valid");
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        ops = doc.model().operations.len();
        drop(doc);
    }
    let hwm = vm_hwm_kib().unwrap_or(0);
    let mut floor = Vec::with_capacity(iters);
    for _ in 0..iters {
        let t = Instant::now();
        floor_once(&text, yaml);
        floor.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "{} {} {} {} {}",
        median(times),
        hwm,
        text.len(),
        median(floor),
        ops
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        let Some(p) = args.get(i + 1) else {
            eprintln!("--child needs a path");
            std::process::exit(2);
        };
        child(Path::new(p));
        return;
    }
    let dir = corpus_dir();
    if !dir.is_dir() {
        eprintln!(
            "!!!!!!!! corpus folder {} is missing (set SPECPRESS_CORPUS); nothing to benchmark",
            dir.display()
        );
        if std::env::var("CI").as_deref() == Ok("true") {
            std::process::exit(1);
        }
        return;
    }
    let exe = std::env::current_exe().expect("own path");
    println!(
        "parse + resolve + validate (specpress_spec::check), one core, median of runs; peak RSS of a child process per document"
    );
    println!(
        "{:<40} {:>9} {:>11} {:>9} {:>10} {:>9} {:>14} {:>6}",
        "document",
        "input MB",
        "median ms",
        "RSS MB",
        "RSS/input",
        "floor ms",
        "check/floor",
        "ops"
    );
    for rel in DOCS {
        let path = dir.join(rel);
        let floor_name = if rel.ends_with(".json") {
            "serde_json::Value"
        } else {
            "saphyr events"
        };
        let out = Command::new(&exe)
            .arg("--child")
            .arg(&path)
            .output()
            .expect("spawn child");
        if !out.status.success() {
            println!(
                "{rel:<40} FAILED: {}",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            );
            continue;
        }
        let line = String::from_utf8_lossy(&out.stdout);
        let f: Vec<f64> = line
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        let [ms, hwm_kib, bytes, floor_ms, ops] = f[..] else {
            println!("{rel:<40} unexpected child output: {line}");
            continue;
        };
        let input_mb = bytes / 1_048_576.0;
        let rss_mb = hwm_kib / 1024.0;
        println!(
            "{rel:<40} {input_mb:>9.1} {ms:>11.1} {rss_mb:>9.1} {:>9.1}x {floor_ms:>9.1} {:>13.1}x {ops:>6}  (floor: {floor_name})",
            rss_mb / input_mb,
            ms / floor_ms,
        );
    }
}

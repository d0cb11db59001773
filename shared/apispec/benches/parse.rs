//! Benchmark: parse + resolve + validate (`specpress_apispec::check`) of the large corpus
//! documents, with peak memory.
//!
//! `cargo bench -p specpress-apispec` runs each document in its own child process (this same
//! binary with `--check`, and again with `--floor`), so the peak RSS (`VmHWM` from `/proc/self/status`) of one document
//! is not polluted by another. The child runs under the service's memory policy
//! (`specpress_alloc::configure_for_service`: freed memory kept, small pages), as `check` runs in the deploy and
//! validation functions; `SPECPRESS_BENCH_THP=1` keeps transparent huge pages instead, as a one-shot CLI process has
//! them. In the child: the bundled schemas are compiled (`warm_up`, as the service does at start) and the RSS of
//! this ready process is noted; then the file is read and `check` runs `SPECPRESS_BENCH_ITERS` times
//! (default 15). Printed: the median, the peak RSS after the first run, and what the document added to the ready
//! process (peak minus ready: the input text and everything the check built from it). Next to them, the floor of
//! the same run: serde_json reading the same text into a `Value` (JSON) or saphyr-parser producing its events (YAML).
//!
//! The corpus folder comes from `SPECPRESS_CORPUS` (default `<repo>/../shared/corpus`).

// Like every Specpress binary, the bench runs on mimalloc.
use specpress_alloc as _;
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

/// The floor alone, in its own process, so that its peak RSS is its own.
fn floor_child(path: &Path, iters: usize) {
    memory_policy();
    let text = std::fs::read_to_string(path).expect("read corpus document");
    let yaml = path.extension().is_some_and(|e| e == "yaml" || e == "yml");
    let mut floor = Vec::with_capacity(iters);
    let mut peak = 0;
    for i in 0..iters {
        let t = Instant::now();
        floor_once(&text, yaml);
        floor.push(t.elapsed().as_secs_f64() * 1000.0);
        if i == 0 {
            peak = vm_hwm_kib().unwrap_or(0);
        }
    }
    println!("{} {}", median(floor), peak);
}

/// The service's memory policy, unless `SPECPRESS_BENCH_THP=1` asks for a one-shot process's.
fn memory_policy() {
    if std::env::var("SPECPRESS_BENCH_THP").as_deref() == Ok("1") {
        specpress_alloc::retain_freed_memory();
    } else {
        specpress_alloc::configure_for_service();
    }
}

fn check_child(path: &Path, iters: usize) {
    memory_policy();
    specpress_apispec::warm_up().expect("bundled schemas compile");
    let ready = vm_hwm_kib().unwrap_or(0);
    let text = std::fs::read_to_string(path).expect("read corpus document");
    let limits = specpress_apispec::Limits {
        max_bytes: 64 * 1024 * 1024,
        ..Default::default()
    };
    let mut times = Vec::with_capacity(iters);
    let mut ops = 0;
    // Peak RSS of the first run: one document in a fresh process (later runs only add
    // allocator fragmentation, which says nothing about one request).
    let mut peak = 0;
    for i in 0..iters {
        let t = Instant::now();
        let doc = specpress_apispec::check(&text, &[], &limits).expect("corpus document is valid");
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        ops = doc.model().operations.len();
        drop(doc);
        if i == 0 {
            peak = vm_hwm_kib().unwrap_or(0);
        }
    }
    println!(
        "{} {} {} {} {}",
        median(times),
        peak,
        text.len(),
        ops,
        ready
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let iters: usize = std::env::var("SPECPRESS_BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(15)
        .max(1);
    for (flag, run) in [
        ("--check", check_child as fn(&Path, usize)),
        ("--floor", floor_child),
    ] {
        if let Some(i) = args.iter().position(|a| a == flag) {
            let Some(p) = args.get(i + 1) else {
                eprintln!("{flag} needs a path");
                std::process::exit(2);
            };
            run(Path::new(p), iters);
            return;
        }
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
    let policy = if std::env::var("SPECPRESS_BENCH_THP").as_deref() == Ok("1") {
        "transparent huge pages on (a one-shot CLI process)"
    } else {
        "the service's: small pages, freed memory kept"
    };
    println!(
        "specpress_apispec::check = parse + resolve + validate; median of {iters} runs in one process per document; \
         memory policy: {policy}; ready = VmHWM of that process once every bundled schema is compiled (as the \
         service starts); peak = VmHWM after the first check; added = peak - ready (the input text included)"
    );
    println!(
        "{:<38} {:>8} {:>9} {:>8} {:>7} {:>8} {:>11} {:>8} {:>9} {:>7} {:>6}",
        "document",
        "input MB",
        "median ms",
        "ready MB",
        "peak MB",
        "added MB",
        "added/input",
        "floor ms",
        "floor RSS",
        "ms ratio",
        "ops"
    );
    for rel in DOCS {
        let path = dir.join(rel);
        let floor_name = if rel.ends_with(".json") {
            "serde_json::from_str::<Value>"
        } else {
            "saphyr-parser events, no tree"
        };
        let run = |mode: &str| -> Option<Vec<f64>> {
            let out = Command::new(&exe).arg(mode).arg(&path).output().ok()?;
            if !out.status.success() {
                let err = String::from_utf8_lossy(&out.stderr);
                println!(
                    "{rel:<38} {mode} FAILED: {}",
                    err.lines().last().unwrap_or("")
                );
                return None;
            }
            let text = String::from_utf8_lossy(&out.stdout);
            Some(
                text.split_whitespace()
                    .filter_map(|x| x.parse().ok())
                    .collect(),
            )
        };
        let (Some(c), Some(f)) = (run("--check"), run("--floor")) else {
            continue;
        };
        let ([ms, hwm_kib, bytes, ops, ready_kib], [floor_ms, floor_kib]) = (&c[..], &f[..]) else {
            println!("{rel:<38} unexpected child output");
            continue;
        };
        let input_mb = bytes / 1_048_576.0;
        let (peak_mb, ready_mb) = (hwm_kib / 1024.0, ready_kib / 1024.0);
        let added_mb = peak_mb - ready_mb;
        println!(
            "{rel:<38} {input_mb:>8.1} {ms:>9.1} {ready_mb:>8.1} {peak_mb:>7.1} {added_mb:>8.1} {:>10.1}x {floor_ms:>8.1} {:>8.1}M {:>7.2}x {ops:>6}  (floor: {floor_name})",
            added_mb / input_mb,
            floor_kib / 1024.0,
            ms / floor_ms,
        );
    }
}

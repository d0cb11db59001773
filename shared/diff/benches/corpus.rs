//! Corpus benchmark: for each pair of the shared corpus, Specpress's wall time (read + parse +
//! model of both documents, loaded in parallel by `specpress_diff::cli::load_pair` as the
//! `specpress diff` command loads them, then diff; the diff alone as the median of several
//! runs) and peak RSS, each pair in its own process; and, in the same run, api-smart-diff (npm)
//! on the same files, with the ratio. `cargo bench -p specpress-diff`.
//!
//! The peer is run `SPECPRESS_BENCH_PEER_RUNS` times per pair (default 2), and each of its
//! columns (total, compare, RSS) is the minimum over the runs that succeeded: its fastest
//! showing, so run-to-run noise on a loaded machine can only lower our ratios, never inflate
//! them. The items column is taken from the fastest run (it is the same in every run).
//!
//! Our side runs in `SPECPRESS_BENCH_PROCS` processes per pair (default 3, from 1 to 9), and each of its columns
//! is the median over them. Each pair's files are read once before either tool runs, so both start from a warm page
//! cache (a first read from disk measured the disk: 726 ms instead of 170-340 ms on the GitHub pair). Like every
//! Specpress binary, the bench runs on mimalloc (`specpress-alloc`).
//!
//! Environment: `SPECPRESS_CORPUS` (default `<repo>/../shared/corpus`), `API_SMART_DIFF` (the
//! `api-smart-diff` package directory, default `<repo>/.tools/npm/node_modules/api-smart-diff`),
//! `SPECPRESS_BENCH_RUNS` (diff repetitions, default 31), `SPECPRESS_BENCH_PEER_RUNS` (peer runs
//! per pair, default 2, from 1 to 5), `SPECPRESS_BENCH_PEER_TIMEOUT` (seconds, default 120).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use specpress_diff::cli::load_pair;
use specpress_diff::{DiffOptions, diff};

const PAIRS: &[(&str, &str, &str)] = &[
    (
        "GitHub 22.0.0 -> 23.0.2",
        "openapi-3.0/github-api-22.0.0.json",
        "openapi-3.0/github-api-23.0.2.json",
    ),
    (
        "Stripe 2022-02-08 -> 04-12",
        "openapi-3.0/stripe-2022-02-08.json",
        "openapi-3.0/stripe-2022-04-12.json",
    ),
    (
        "Stripe 2023-09-11 -> 12 (YAML)",
        "openapi-3.0/stripe-2023-09-11.yaml",
        "openapi-3.0/stripe-2023-09-12.yaml",
    ),
    (
        "OpenAI 2026-08-12 -> 21",
        "openapi-3.1/openai-2026-08-12.json",
        "openapi-3.1/openai-2026-08-21.json",
    ),
    (
        "Kubernetes 1.35 -> 1.36",
        "swagger-2.0/kubernetes-1.35.json",
        "swagger-2.0/kubernetes-1.36.json",
    ),
    (
        "Streetlights AsyncAPI 2.3 -> 2.5",
        "asyncapi/streetlights-kafka-2.3.0.yml",
        "asyncapi/streetlights-kafka-2.5.0.yml",
    ),
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// CPU time (user + system) of this thread so far, in ms (clock ticks of 10 ms; used over many
/// runs, so it stays meaningful when other processes load the machine).
fn thread_cpu_ms() -> f64 {
    std::fs::read_to_string("/proc/thread-self/stat")
        .ok()
        .and_then(|s| {
            let rest = s.rsplit_once(')')?.1;
            let f: Vec<&str> = rest.split_whitespace().collect();
            let utime: f64 = f.get(11)?.parse().ok()?;
            let stime: f64 = f.get(12)?.parse().ok()?;
            Some((utime + stime) * 10.0)
        })
        .unwrap_or(f64::NAN)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Runs in a child process: one pair, prints one JSON line.
fn child(previous: &Path, current: &Path, runs: usize) -> Result<(), String> {
    // As in the service: the binaries' allocator, keeping freed memory for the next diff.
    specpress_alloc::retain_freed_memory();
    let t0 = Instant::now();
    let (p, c) = load_pair(previous, current).map_err(|e| e.to_string())?;
    let _ = (p.model(), c.model());
    let parse = t0.elapsed();
    let options = DiffOptions::default();
    let t1 = Instant::now();
    let report = diff(&p, &c, &options);
    let first = t1.elapsed();
    let mut times = vec![ms(first)];
    let cpu0 = thread_cpu_ms();
    for _ in 1..runs {
        let t = Instant::now();
        let r = diff(&p, &c, &options);
        times.push(ms(t.elapsed()));
        std::hint::black_box(r);
    }
    let cpu_mean = if runs > 1 {
        (thread_cpu_ms() - cpu0) / (runs - 1) as f64
    } else {
        f64::NAN
    };
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    println!(
        "{}",
        serde_json::json!({
            "parse_ms": ms(parse),
            "first_diff_ms": ms(first),
            "diff_median_ms": median,
            "diff_min_ms": times[0],
            "diff_cpu_mean_ms": cpu_mean,
            "wall_ms": ms(parse) + ms(first),
            "changes": report.changes().len(),
            "items": report.items().len(),
            "peak_rss_mb": peak_rss_mb(),
        })
    );
    Ok(())
}

fn run_with_timeout(mut cmd: Command, timeout: Duration) -> Result<String, String> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start: {e}"))?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {} s", timeout.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(e.to_string()),
        }
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn field(v: &serde_json::Value, k: &str) -> f64 {
    v.get(k)
        .and_then(serde_json::Value::as_f64)
        .unwrap_or(f64::NAN)
}

fn main() {
    if let (Ok(p), Ok(c)) = (
        std::env::var("SPECPRESS_BENCH_PREV"),
        std::env::var("SPECPRESS_BENCH_CUR"),
    ) {
        let runs = std::env::var("SPECPRESS_BENCH_RUNS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(31usize)
            .max(1);
        if let Err(e) = child(Path::new(&p), Path::new(&c), runs) {
            eprintln!("{e}");
            std::process::exit(2);
        }
        return;
    }
    let corpus = std::env::var_os("SPECPRESS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("../shared/corpus"));
    if !corpus.join("README.md").is_file() {
        eprintln!(
            "corpus benchmark: corpus folder {} not found; set SPECPRESS_CORPUS. Nothing measured.",
            corpus.display()
        );
        if std::env::var("CI").as_deref() == Ok("true") {
            std::process::exit(1);
        }
        return;
    }
    let peer_dir = std::env::var_os("API_SMART_DIFF")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join(".tools/npm/node_modules/api-smart-diff"));
    let peer_script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/api-smart-diff.js");
    let peer_ok = peer_dir.join("package.json").is_file();
    if !peer_ok {
        println!(
            "api-smart-diff NOT FOUND at {} (set API_SMART_DIFF to the package directory, e.g. after \
             `npm install --prefix .tools/npm api-smart-diff@1.0.6`): peer columns are empty.",
            peer_dir.display()
        );
    }
    let peer_runs = std::env::var("SPECPRESS_BENCH_PEER_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(2usize)
        .clamp(1, 5);
    let peer_timeout = Duration::from_secs(
        std::env::var("SPECPRESS_BENCH_PEER_TIMEOUT")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(120),
    );
    let procs = std::env::var("SPECPRESS_BENCH_PROCS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3usize)
        .clamp(1, 9);
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("cannot find the benchmark executable: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "\nSpecpress: {procs} process(es) per pair, each of its columns the median over them; \
         api-smart-diff: {peer_runs} run(s) per pair, each peer column the minimum over them. \
         Both read the files from a warm page cache."
    );
    println!(
        "\n| pair | parse+model ms | diff median ms | diff min ms | diff CPU ms (mean) | wall ms (parse+diff) | peak RSS MB | changes | api-smart-diff ms (parse+compare) | its compare ms | its RSS MB | its items | ratio wall | ratio diff |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, previous, current) in PAIRS {
        let (p, c) = (corpus.join(previous), corpus.join(current));
        // Both tools read the files from a warm page cache: a first read from disk measures the disk.
        for f in [&p, &c] {
            let _ = std::fs::read(f);
        }
        let mut ours_runs = Vec::new();
        let mut ours_err = String::new();
        for _ in 0..procs {
            let mut cmd = Command::new(&exe);
            cmd.env("SPECPRESS_BENCH_PREV", &p)
                .env("SPECPRESS_BENCH_CUR", &c);
            match run_with_timeout(cmd, Duration::from_secs(300)).and_then(|s| {
                serde_json::from_str::<serde_json::Value>(&s).map_err(|e| e.to_string())
            }) {
                Ok(v) => ours_runs.push(v),
                Err(e) => ours_err = e,
            }
        }
        if ours_runs.len() < procs {
            println!("| {name} | error: {ours_err} |||||||||||||");
            continue;
        }
        // Each of our columns is its median over the processes.
        let mut ours = ours_runs[0].clone();
        for k in [
            "parse_ms",
            "first_diff_ms",
            "diff_median_ms",
            "diff_min_ms",
            "diff_cpu_mean_ms",
            "wall_ms",
            "peak_rss_mb",
        ] {
            let mut v: Vec<f64> = ours_runs.iter().map(|r| field(r, k)).collect();
            v.sort_by(f64::total_cmp);
            ours[k] = serde_json::json!(v[v.len() / 2]);
        }
        let mut peer: Option<serde_json::Value> = None;
        let mut peer_err = String::new();
        if peer_ok {
            // Every successful run; each column below is its minimum over them.
            let mut runs: Vec<serde_json::Value> = Vec::new();
            for _ in 0..peer_runs {
                let mut cmd = Command::new("node");
                cmd.arg("--max-old-space-size=8192")
                    .arg(&peer_script)
                    .arg(&peer_dir)
                    .arg(&p)
                    .arg(&c);
                match run_with_timeout(cmd, peer_timeout).and_then(|s| {
                    serde_json::from_str::<serde_json::Value>(&s).map_err(|e| e.to_string())
                }) {
                    Ok(v) => runs.push(v),
                    Err(e) => peer_err = e,
                }
            }
            let best = runs
                .iter()
                .min_by(|a, b| field(a, "total_ms").total_cmp(&field(b, "total_ms")))
                .cloned()
                .map(|mut v| {
                    for k in ["total_ms", "parse_ms", "compare_ms", "max_rss_mb"] {
                        let min = runs.iter().map(|r| field(r, k)).fold(f64::NAN, f64::min);
                        v[k] = serde_json::json!(min);
                    }
                    v
                });
            peer = best;
        }
        let wall = field(&ours, "wall_ms");
        let dm = field(&ours, "diff_median_ms");
        match peer {
            Some(v) => println!(
                "| {name} | {:.0} | {:.1} | {:.1} | {:.1} | {:.0} | {:.0} | {} | {:.0} | {:.0} | {:.0} | {} | {:.0}x | {:.0}x |",
                field(&ours, "parse_ms"),
                dm,
                field(&ours, "diff_min_ms"),
                field(&ours, "diff_cpu_mean_ms"),
                wall,
                field(&ours, "peak_rss_mb"),
                ours["changes"],
                field(&v, "total_ms"),
                field(&v, "compare_ms"),
                field(&v, "max_rss_mb"),
                v["items"],
                field(&v, "total_ms") / wall,
                field(&v, "compare_ms") / dm,
            ),
            None => println!(
                "| {name} | {:.0} | {:.1} | {:.1} | {:.1} | {:.0} | {:.0} | {} | {} | | | | | |",
                field(&ours, "parse_ms"),
                dm,
                field(&ours, "diff_min_ms"),
                field(&ours, "diff_cpu_mean_ms"),
                wall,
                field(&ours, "peak_rss_mb"),
                ours["changes"],
                if peer_ok {
                    peer_err.as_str()
                } else {
                    "not installed"
                },
            ),
        }
    }
}

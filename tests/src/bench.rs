//! What the end-to-end benchmarks share: where the corpus and the release binary are, resident memory, percentiles.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use crate::repo_root;

/// A number from the environment, or `default`.
pub fn env_num<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The API corpus (`specpress_testkit::Tool::Corpus`: `SPECPRESS_CORPUS`, default `../shared/corpus`), if it is
/// there (a benchmark without it says so and measures nothing).
pub fn corpus_dir() -> Option<PathBuf> {
    let corpus = specpress_testkit::Tool::Corpus;
    corpus.missing().is_none().then(|| corpus.location())
}

/// The release `specpress` binary: `SPECPRESS_BIN`, else `target/release/specpress`, built now (cargo does nothing
/// when it is up to date).
pub fn release_binary() -> PathBuf {
    if let Some(b) = std::env::var_os("SPECPRESS_BIN") {
        return PathBuf::from(b);
    }
    let bin = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"))
        .join("release/specpress");
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--release",
            "-p",
            "specpress",
            "--bin",
            "specpress",
        ])
        .current_dir(repo_root())
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building the release binary failed");
    bin
}

/// A process's resident memory (VmRSS), in MB.
pub fn rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The `p` quantile (0 to 1) of sorted durations, nearest rank; zero for none.
pub fn pct(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let idx = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

/// A blocking HTTP client that neither decompresses nor follows redirects (what was sent is what is measured).
pub fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .no_gzip()
        .no_brotli()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(300))
        .build()
        .expect("client")
}

//! Helpers shared by the spec engine's integration tests. Each test file uses some of them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The shared corpus (`specpress_testkit::corpus()`: `SPECPRESS_CORPUS`, default `<repo>/../shared/corpus`). A test
/// that reads it is marked `#[cfg_attr(missing_corpus, ignore = ...)]`; when it is missing anyway it panics.
pub fn corpus_dir() -> PathBuf {
    specpress_testkit::corpus()
}

/// Every file under `dir` whose extension is one of `extensions`, sorted.
pub fn files_under(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| extensions.contains(&x))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A small deterministic generator (xorshift), so a failing mutation test reproduces.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

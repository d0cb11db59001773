//! Issue 36: every function crate is wiring (configuration, clients built once, its router or handler, run), and a
//! function links what it uses. Checked here from outside, on the workspace as it is:
//!
//! - the line budget of each function crate's `src/` (tests and benches of its own aside): 300 lines, the `specpress`
//!   CLI and local server 800;
//! - every binary declares the global allocator itself (`specpress-alloc`, mimalloc): a dependency and a
//!   `use specpress_alloc as _;` in its `main.rs` (a crate only named in `Cargo.toml` is not linked);
//! - `cargo tree -e normal -p hubs`, run here, lists neither engine nor `jsonschema`: the hubs routes link no spec or
//!   diff engine.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace")
        .to_path_buf()
}

/// Every function crate: its name (the folder under `functions/`) and its folder.
fn functions() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(root().join("functions"))
        .expect("functions/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, p)
        })
        .collect();
    out.sort();
    assert!(out.len() >= 10, "function crates found: {out:?}");
    out
}

/// Lines of every `.rs` file under `dir`.
fn lines_under(dir: &Path) -> usize {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)
            .expect("readable")
            .filter_map(Result::ok)
        {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                total += std::fs::read_to_string(&path)
                    .expect("source")
                    .lines()
                    .count();
            }
        }
    }
    total
}

/// The line budget of a function crate's `src/`.
fn budget(name: &str) -> usize {
    if name == "specpress" { 800 } else { 300 }
}

#[test]
fn every_function_crate_is_within_its_line_budget() {
    let mut over = Vec::new();
    for (name, dir) in functions() {
        let lines = lines_under(&dir.join("src"));
        if lines > budget(&name) {
            over.push(format!(
                "functions/{name}/src: {lines} lines, budget {}",
                budget(&name)
            ));
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
}

#[test]
fn every_binary_links_the_allocator_itself() {
    let mut missing = Vec::new();
    for (name, dir) in functions() {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
        let dependencies = manifest
            .split("\n[")
            .find(|section| section.starts_with("dependencies]"))
            .unwrap_or_default();
        if !dependencies.contains("\nspecpress-alloc") {
            missing.push(format!(
                "functions/{name}/Cargo.toml: no specpress-alloc dependency"
            ));
        }
        let main = std::fs::read_to_string(dir.join("src/main.rs")).expect("main.rs");
        if !main.contains("use specpress_alloc as _;") {
            missing.push(format!(
                "functions/{name}/src/main.rs: no `use specpress_alloc as _;`"
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// The packages `cargo tree -e normal -p <package>` lists, one name each.
fn linked(package: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args([
            "tree",
            "-e",
            "normal",
            "-p",
            package,
            "--prefix",
            "none",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_hubs_function_links_no_spec_or_diff_engine() {
    let names = linked("hubs");
    // What it must link, so that an empty or failed listing cannot pass.
    for needed in [
        "specpress-api-hubs",
        "specpress-http-lambda",
        "specpress-alloc",
        "aws-sdk-dynamodb",
    ] {
        assert!(
            names.iter().any(|n| n == needed),
            "{needed} not in {names:?}"
        );
    }
    for engine in ["specpress-apispec", "specpress-diff", "jsonschema"] {
        assert!(
            !names.iter().any(|n| n == engine),
            "cargo tree -e normal -p hubs lists {engine}"
        );
    }
}

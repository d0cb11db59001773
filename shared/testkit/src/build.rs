//! For `build.rs` of a crate with tool-bound tests: [`probe`] sets a `missing_<tool>` cfg for every tool that is
//! missing, unless this is a CI run (there a missing tool fails the test that needs it).

use std::path::PathBuf;

use crate::{Tool, in_ci, repo_root};

/// The file `scripts/install-tools.sh` touches when it has installed something; build scripts that probe watch it,
/// so a build after an install probes again. Created (empty) when missing: a watched file that does not exist
/// would make every build run the probe and rebuild the tests.
pub const STAMP: &str = ".tools/.probe-stamp";

/// Probes `tools` and prints the cargo instructions of a build script: the `missing_*` cfgs (every tool's cfg
/// declared, so `cfg_attr(missing_x, ...)` is checked), and when to probe again (the tools' variables, `CI`, and
/// for the tools that need them `PATH` and [`STAMP`]).
pub fn probe(tools: &[Tool]) {
    for t in Tool::ALL {
        println!("cargo::rustc-check-cfg=cfg(missing_{})", t.name());
    }
    println!("cargo::rerun-if-env-changed=CI");
    if in_ci() {
        // Every test runs under CI whatever is installed: nothing to probe again when tools arrive (and a probe run
        // again would rebuild every test of the crate).
        return;
    }
    // Only what the probed tools depend on is watched: a build script that runs again rebuilds its crate and every
    // crate depending on it, so a crate whose tests need only the corpus must not rebuild when `PATH` changes.
    if tools.iter().any(|t| t.on_path()) {
        println!("cargo::rerun-if-env-changed=PATH");
    }
    if tools.iter().any(|t| t.installed()) {
        let stamp: PathBuf = repo_root().join(STAMP);
        if !stamp.exists() {
            if let Some(dir) = stamp.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = std::fs::write(&stamp, b"");
        }
        if stamp.exists() {
            println!("cargo::rerun-if-changed={}", stamp.display());
        }
    }
    for &t in tools {
        if let Some(v) = t.variable() {
            println!("cargo::rerun-if-env-changed={v}");
        }
        if let Some(why) = t.missing() {
            println!("cargo::rustc-cfg=missing_{}", t.name());
            println!(
                "cargo::warning=tests needing {} are ignored: {why} ({})",
                t.name(),
                t.remedy()
            );
        }
    }
}

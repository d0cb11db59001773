//! The test kit: where the tools of the tests and the API corpus are, and the one switch that decides what a
//! missing one means.
//!
//! Some tests need a tool outside Rust: the real bump-cli, the tools' Python (the official MCP client, the Standard
//! Webhooks library, feedparser, arazzo-runner, slack_sdk...), Node modules (playwright-core, axe-core), Debian's
//! Chromium, a moto server, the compilers that check request samples, the API corpus. `CI` is the one switch:
//!
//! - under `CI=true` every test runs, and a missing tool fails it, saying what to install;
//! - elsewhere a test bound to a missing tool is reported as ignored (never as passed), naming the tool.
//!
//! A crate with such tests calls [`build::probe`] from its `build.rs`, which sets `missing_<tool>` cfgs, and marks
//! each test with the tools it needs:
//!
//! ```ignore
//! #[test]
//! #[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
//! fn deploys_with_the_real_cli() {
//!     let cli = specpress_testkit::tool(specpress_testkit::Tool::BumpCli);
//!     // ...
//! }
//! ```
//!
//! Inside a test, [`tool`] returns the tool's path or panics with instructions (a test that runs needs its tools).
//! `scripts/install-tools.sh` installs every tool into `<repo>/.tools` (and Debian's packages) and touches
//! [`build::STAMP`], so the next build sees what was installed.

use std::path::{Path, PathBuf};

pub mod build;
pub mod oidc;
pub mod smtp;

/// A tool some tests need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// The official bump-cli (`SPECPRESS_BUMP_CLI`, default `<repo>/.tools/npm/node_modules/.bin/bump`).
    BumpCli,
    /// The tools' Python with its packages (`SPECPRESS_TOOLS_PYTHON`, default `<repo>/.tools/venv/bin/python`).
    Python,
    /// The tools' Node modules: playwright-core, axe-core... (`SPECPRESS_NODE_MODULES`, default
    /// `<repo>/.tools/npm/node_modules`), and `node` on `PATH` to run them.
    NodeModules,
    /// Debian's Chromium (`SPECPRESS_CHROMIUM`, default `/usr/bin/chromium`).
    Chromium,
    /// A moto server for the SQS and second-DynamoDB runs (`SPECPRESS_TEST_MOTO_ENDPOINT`, started by
    /// scripts/test.sh).
    Moto,
    /// The API corpus (`SPECPRESS_CORPUS`, default `<repo>/../shared/corpus`).
    Corpus,
    /// The compilers and parsers that check generated request samples: gofmt, ruby, php, mcs, javac.
    Compilers,
}

impl Tool {
    /// Every tool.
    pub const ALL: [Tool; 7] = [
        Tool::BumpCli,
        Tool::Python,
        Tool::NodeModules,
        Tool::Chromium,
        Tool::Moto,
        Tool::Corpus,
        Tool::Compilers,
    ];

    /// Its name in cfgs (`missing_<name>`) and messages.
    pub fn name(self) -> &'static str {
        match self {
            Tool::BumpCli => "bump_cli",
            Tool::Python => "python_tools",
            Tool::NodeModules => "node_modules",
            Tool::Chromium => "chromium",
            Tool::Moto => "moto",
            Tool::Corpus => "corpus",
            Tool::Compilers => "compilers",
        }
    }

    /// The environment variable that names it, if one does.
    pub fn variable(self) -> Option<&'static str> {
        match self {
            Tool::BumpCli => Some("SPECPRESS_BUMP_CLI"),
            Tool::Python => Some("SPECPRESS_TOOLS_PYTHON"),
            Tool::NodeModules => Some("SPECPRESS_NODE_MODULES"),
            Tool::Chromium => Some("SPECPRESS_CHROMIUM"),
            Tool::Moto => Some("SPECPRESS_TEST_MOTO_ENDPOINT"),
            Tool::Corpus => Some("SPECPRESS_CORPUS"),
            Tool::Compilers => None,
        }
    }

    /// How to get it.
    pub fn remedy(self) -> &'static str {
        match self {
            Tool::Moto => {
                "run the suite with scripts/test.sh, which starts moto and sets SPECPRESS_TEST_MOTO_ENDPOINT"
            }
            Tool::Corpus => {
                "put the API corpus beside the repository (../shared/corpus) or set SPECPRESS_CORPUS"
            }
            _ => "run scripts/install-tools.sh",
        }
    }

    /// Whether finding it depends on `PATH` (the compilers; `node`, which runs the Node modules).
    pub fn on_path(self) -> bool {
        matches!(self, Tool::Compilers | Tool::NodeModules)
    }

    /// Whether `scripts/install-tools.sh` installs it (so a build after an install probes it again).
    pub fn installed(self) -> bool {
        !matches!(self, Tool::Moto | Tool::Corpus)
    }

    /// Where it is expected (a path, or for moto the endpoint).
    pub fn location(self) -> PathBuf {
        let from_env = self
            .variable()
            .and_then(std::env::var_os)
            .map(PathBuf::from);
        let root = repo_root();
        match self {
            Tool::BumpCli => {
                from_env.unwrap_or_else(|| root.join(".tools/npm/node_modules/.bin/bump"))
            }
            Tool::Python => from_env.unwrap_or_else(|| root.join(".tools/venv/bin/python")),
            Tool::NodeModules => from_env.unwrap_or_else(|| root.join(".tools/npm/node_modules")),
            Tool::Chromium => from_env.unwrap_or_else(|| PathBuf::from("/usr/bin/chromium")),
            Tool::Moto => from_env.unwrap_or_default(),
            Tool::Corpus => from_env
                .map(|p| if p.is_absolute() { p } else { root.join(p) })
                .unwrap_or_else(|| root.join("../shared/corpus")),
            Tool::Compilers => PathBuf::new(),
        }
    }

    /// Why it is not usable here, or `None` when it is.
    pub fn missing(self) -> Option<String> {
        let at = self.location();
        let absent = |what: &str| Some(format!("{what} is missing at {}", at.display()));
        match self {
            Tool::BumpCli | Tool::Python | Tool::Chromium if !at.is_file() => absent(self.name()),
            Tool::NodeModules => ["playwright-core", "axe-core"]
                .iter()
                .find(|m| !at.join(m).is_dir())
                .and_then(|m| absent(m))
                .or_else(|| {
                    on_path("node")
                        .is_none()
                        .then(|| "node is not on PATH".to_string())
                }),
            Tool::Corpus if !at.is_dir() => absent("the API corpus"),
            Tool::Moto if at.as_os_str().is_empty() => {
                Some("no moto server (SPECPRESS_TEST_MOTO_ENDPOINT is not set)".to_string())
            }
            Tool::Compilers => ["gofmt", "ruby", "php", "mcs", "javac", "node", "python3"]
                .iter()
                .find(|c| on_path(c).is_none())
                .map(|c| format!("{c} is not on PATH")),
            _ => None,
        }
    }
}

/// Whether this is a CI run (`CI=true` or `CI=1`): the one switch of the test suite.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The repository root (the folder of the workspace's `Cargo.lock`).
pub fn repo_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .unwrap_or(here)
        .to_path_buf()
}

/// A tool a running test needs: its path (for moto, the endpoint URL; for the compilers, an empty path), or a
/// panic that says what is missing and how to get it.
pub fn tool(t: Tool) -> PathBuf {
    if let Some(why) = t.missing() {
        panic!(
            "{why}: this test needs it ({}){}",
            t.remedy(),
            if in_ci() {
                ""
            } else {
                "; outside CI a build that cannot find it marks such tests ignored"
            }
        );
    }
    t.location()
}

/// The tools' Python ([`Tool::Python`]) once it has imported `modules` (a comma-separated Python import list), or
/// a panic naming what it lacks.
pub fn python_with(modules: &str) -> PathBuf {
    let python = tool(Tool::Python);
    let probe = std::process::Command::new(&python)
        .args(["-c", &format!("import {modules}")])
        .output();
    match probe {
        Ok(o) if o.status.success() => python,
        Ok(o) => panic!(
            "{} cannot import {modules}: this test needs it ({}): {}",
            python.display(),
            Tool::Python.remedy(),
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(e) => panic!(
            "{} does not run: {e} ({})",
            python.display(),
            Tool::Python.remedy()
        ),
    }
}

/// The moto server's endpoint URL (see [`Tool::Moto`]).
pub fn moto_endpoint() -> String {
    tool(Tool::Moto).to_string_lossy().into_owned()
}

/// The API corpus folder (see [`Tool::Corpus`]).
pub fn corpus() -> PathBuf {
    tool(Tool::Corpus)
}

/// The first executable named `name` on `PATH`.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

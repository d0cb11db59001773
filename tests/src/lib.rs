//! Harness for the end-to-end suite: builds and starts the real `specpress serve` binary on a free port with a
//! temporary data directory, and locates the real bump-cli.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

pub mod aws_local;
pub mod bench;
pub mod browser;
pub mod site;

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The fixtures folder.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The real bump-cli (`specpress_testkit::Tool::BumpCli`): a test that calls this is marked
/// `#[cfg_attr(missing_bump_cli, ignore = ...)]`, and panics here when it runs without it.
pub fn bump_cli() -> PathBuf {
    specpress_testkit::tool(specpress_testkit::Tool::BumpCli)
}

/// Builds the `specpress` binary once per test process and returns its path (`SPECPRESS_BIN` overrides).
pub fn specpress_binary() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(bin) = std::env::var_os("SPECPRESS_BIN") {
            return PathBuf::from(bin);
        }
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--quiet", "-p", "specpress", "--bin", "specpress"])
            .current_dir(repo_root())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the specpress binary failed");
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| repo_root().join("target"));
        let target = if target.is_absolute() {
            target
        } else {
            repo_root().join(target)
        };
        // With an explicit target triple (scripts/test.sh builds for the host's, as cargo lambda does), cargo puts
        // the binaries under `<target>/<triple>/debug`.
        let profile_dir = match std::env::var("CARGO_BUILD_TARGET") {
            Ok(triple) if !triple.is_empty() => target.join(triple).join("debug"),
            _ => target.join("debug"),
        };
        let bin = profile_dir.join("specpress");
        assert!(
            bin.exists(),
            "specpress binary missing at {}",
            bin.display()
        );
        bin
    })
    .clone()
}

/// A running `specpress serve` child process. Killed on drop.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    /// What the server printed before it was ready (the banner).
    pub banner: Vec<String>,
    child: Child,
    rest: Mutex<mpsc::Receiver<String>>,
}

impl Server {
    /// Starts `specpress serve --port 0 --data-dir DIR` with extra environment, waiting until it listens.
    pub fn start(data_dir: &Path, env: &[(&str, &str)]) -> Server {
        Server::start_binary(&specpress_binary(), data_dir, env)
    }

    /// [`Server::start`] with a given `specpress` binary (the benchmarks run the release build).
    pub fn start_binary(binary: &Path, data_dir: &Path, env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(binary);
        cmd.args(["serve", "--port", "0", "--data-dir"])
            .arg(data_dir)
            .env_remove("SPECPRESS_TABLE")
            .env_remove("SPECPRESS_ORG_TOKEN")
            .env("SPECPRESS_LOG", "warn")
            // The tests describe an organization that holds only what they create: no `specpress-api` reference
            // (tests/tests/own_api.rs tests publishing it). A test may pass SPECPRESS_SELF_DOC=true.
            .env("SPECPRESS_SELF_DOC", "false")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (k, v) in env {
            cmd.env(k, v);
        }
        // The child is waited for on every path: in the timeout branch below, or by `Server`'s `Drop`/`stop`.
        #[allow(clippy::zombie_processes)]
        let mut child = cmd.spawn().expect("specpress serve starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut banner = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    if let Some(url) = line.strip_prefix("Listening on ") {
                        let base_url = url.trim().to_owned();
                        banner.push(line);
                        return Server {
                            base_url,
                            banner,
                            child,
                            rest: Mutex::new(rx),
                        };
                    }
                    banner.push(line);
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("specpress serve did not become ready; output so far: {banner:#?}");
                }
            }
        }
    }

    /// The process id of the server.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The organization token printed in the banner on first start, if any.
    pub fn minted_token(&self) -> Option<String> {
        let i = self
            .banner
            .iter()
            .position(|l| l.starts_with("Organization token (shown ONCE"))?;
        self.banner.get(i + 1).map(|l| l.trim().to_owned())
    }

    /// Lines printed after start-up so far.
    pub fn drain_output(&self) -> Vec<String> {
        self.rest
            .lock()
            .map(|rx| rx.try_iter().collect())
            .unwrap_or_default()
    }

    /// Stops the server with SIGTERM (graceful) and waits for it.
    pub fn stop(mut self) {
        #[cfg(unix)]
        {
            let _ = Command::new("kill")
                .arg("-TERM")
                .arg(self.child.id().to_string())
                .status();
            let deadline = Instant::now() + Duration::from_secs(20);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Output of a bump-cli run.
#[derive(Debug)]
pub struct CliRun {
    /// Exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl CliRun {
    /// Stdout and stderr together.
    pub fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

/// Runs bump-cli against a server, in the fixtures folder.
pub fn bump(cli: &Path, base_url: &str, args: &[&str]) -> CliRun {
    let out = Command::new(cli)
        .args(args)
        .current_dir(fixtures())
        .env("BUMP_HOST", base_url)
        .env_remove("BUMP_TOKEN")
        .env_remove("CI")
        .env("NO_COLOR", "1")
        .output()
        .expect("bump-cli runs");
    CliRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The API corpus (`specpress_testkit::corpus()`): a test that reads it is marked
/// `#[cfg_attr(missing_corpus, ignore = ...)]`, and panics here when it runs without it.
pub fn corpus() -> PathBuf {
    specpress_testkit::corpus()
}

/// A fresh temporary directory (removed on drop).
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("specpress-e2e-")
        .tempdir()
        .expect("temp dir")
}

/// The webhook subscriber of the tests (`tests/webhook_receiver.py`, on 127.0.0.1): verifies every delivery with the
/// official Standard Webhooks library and checks `X-Bump-Signature-256`. Control API: `POST {base}/_config`,
/// `GET {base}/_log` (see the script).
pub struct WebhookReceiver {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl Drop for WebhookReceiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the receiver with the tools' Python (`specpress_testkit::Tool::Python`, with `standardwebhooks`): a test
/// that calls this is marked `#[cfg_attr(missing_python_tools, ignore = ...)]`, and panics here when it runs without
/// it.
pub fn webhook_receiver() -> WebhookReceiver {
    let python = specpress_testkit::python_with("standardwebhooks");
    let mut child = Command::new(&python)
        .arg(repo_root().join("tests/webhook_receiver.py"))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("receiver starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("port line");
    let port = line
        .trim()
        .strip_prefix("PORT ")
        .expect("PORT <n>")
        .to_owned();
    WebhookReceiver {
        child,
        base: format!("http://127.0.0.1:{port}"),
    }
}

//! `scripts/aws-local.sh` (docs/aws-local.md) for the as-deployed tests and the cold-start benchmark.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::{repo_root, specpress_binary, temp_dir};

/// `scripts/aws-local.sh`, started as a user starts it (its own process group), with its `base:` and `token:`.
pub struct AwsLocal {
    child: Child,
    /// `http://127.0.0.1:PORT`: the API Gateway front.
    pub base: String,
    /// The organization token it minted.
    pub token: String,
    state: tempfile::TempDir,
}

impl AwsLocal {
    /// Starts the script with the binaries the test command built and `env` added; returns once it printed its
    /// two lines (panics on any other line on stdout, or after 10 minutes).
    pub fn start(env: &[(&str, &str)]) -> AwsLocal {
        let state = temp_dir();
        let port = free_port();
        // The binaries the test command built (scripts/test.sh builds them with the specpress binary).
        let target = specpress_binary()
            .parent()
            .and_then(Path::parent)
            .expect("target dir")
            .to_path_buf();
        let mut cmd = Command::new("bash");
        cmd.arg(repo_root().join("scripts/aws-local.sh"))
            .env("AWS_LOCAL_SKIP_BUILD", "1")
            .env("AWS_LOCAL_PORT", port.to_string())
            .env("AWS_LOCAL_STATE", state.path())
            .env("CARGO_TARGET_DIR", &target)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("aws-local.sh starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let (mut base, mut token) = (None, None);
        let until = Instant::now() + Duration::from_secs(600);
        while base.is_none() || token.is_none() {
            let left = until.saturating_duration_since(Instant::now());
            let line = rx.recv_timeout(left).unwrap_or_else(|_| {
                panic!(
                    "aws-local.sh printed no base and token (logs in {})",
                    state.path().display()
                )
            });
            if let Some(b) = line.strip_prefix("base: ") {
                base = Some(b.trim().to_owned());
            } else if let Some(t) = line.strip_prefix("token: ") {
                token = Some(t.trim().to_owned());
            } else {
                panic!(
                    "aws-local.sh prints two lines, `base:` and `token:`, on stdout; also: {line}"
                );
            }
        }
        AwsLocal {
            child,
            base: base.expect("base"),
            token: token.expect("token"),
            state,
        }
    }

    /// Its state directory: logs, `functions.env`, `functions.txt`, `emulator.url`.
    pub fn state(&self) -> &Path {
        self.state.path()
    }

    /// The functions' environment (the env file the script wrote from the template), in order.
    pub fn functions_env(&self) -> Vec<(String, String)> {
        std::fs::read_to_string(self.state.path().join("functions.env"))
            .expect("env file")
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.trim_matches('"').to_owned()))
            .collect()
    }

    /// A variable of the functions' environment (the env file the script wrote from the template).
    pub fn function_env(&self, name: &str) -> String {
        self.functions_env()
            .into_iter()
            .find_map(|(k, v)| (k == name).then_some(v))
            .unwrap_or_else(|| panic!("{name} in the functions' environment"))
    }

    /// Interrupts the script (Ctrl-C) and waits for it; answers whether it exited within the time.
    pub fn interrupt(&mut self) -> bool {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let until = Instant::now() + Duration::from_secs(30);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }
}

impl Drop for AwsLocal {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = Command::new("kill")
                .args(["-TERM", "--", &format!("-{}", self.child.id())])
                .status();
            let _ = self.child.wait();
        }
    }
}

/// A free port on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

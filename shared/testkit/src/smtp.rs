//! A real SMTP server for tests and a real MIME parser: Python's `aiosmtpd` and `email` package, run by
//! `tests/mail/mail_tool.py` on the tools' Python ([`crate::Tool::Python`]). Every message received is kept as a
//! `.eml` file (its envelope recipients beside it); [`inspect`] parses files as a mail client would.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `tests/mail/mail_tool.py`.
fn tool_script() -> PathBuf {
    crate::repo_root().join("tests/mail/mail_tool.py")
}

/// A running aiosmtpd server on 127.0.0.1 keeping what it receives in a folder; stopped (and the folder removed)
/// when dropped.
pub struct Receiver {
    child: Child,
    /// Its port.
    pub port: u16,
    /// Where the messages are kept.
    pub dir: PathBuf,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Receiver {
    /// Starts the server; panics saying what is missing when the tools' Python or `aiosmtpd` is.
    pub fn start() -> Self {
        let python = crate::python_with("aiosmtpd");
        let dir = std::env::temp_dir().join(format!(
            "specpress-smtp-{}-{}",
            std::process::id(),
            next_number()
        ));
        std::fs::create_dir_all(&dir).expect("the SMTP server's folder");
        let mut child = Command::new(python)
            .arg(tool_script())
            .arg("serve")
            .arg(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the SMTP server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("its port");
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("the SMTP server did not start: {line:?}"));
        Self { child, port, dir }
    }

    /// `smtp://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// The `.eml` files received so far, in order.
    pub fn received(&self) -> Vec<PathBuf> {
        eml_files(&self.dir)
    }

    /// Waits (up to 10 s) until `n` messages have arrived; the files.
    pub fn wait_for(&self, n: usize) -> Vec<PathBuf> {
        self.wait_for_within(n, Duration::from_secs(10))
    }

    /// Waits up to `limit` until `n` messages have arrived; the files.
    pub fn wait_for_within(&self, n: usize, limit: Duration) -> Vec<PathBuf> {
        let start = Instant::now();
        loop {
            let got = self.received();
            if got.len() >= n || start.elapsed() > limit {
                return got;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The envelope recipients of the message in `file`.
    pub fn recipients(&self, file: &Path) -> String {
        std::fs::read_to_string(file.with_extension("rcpt")).expect("recipients")
    }
}

/// Distinct folder names for the servers of one process.
fn next_number() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The `.eml` files of a folder, sorted by name.
pub fn eml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "eml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Each file parsed by Python's `email` package, as the JSON text of a list (see `tests/mail/mail_tool.py
/// inspect`): headers, MIME structure, each part's text, the HTML part's tags, links and visible text.
pub fn inspect_json(files: &[PathBuf]) -> String {
    let python = crate::python_with("email");
    let out = Command::new(python)
        .arg(tool_script())
        .arg("inspect")
        .args(files)
        .output()
        .expect("the parser runs");
    assert!(
        out.status.success(),
        "the parser failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 JSON from the parser")
}

//! A real OpenID provider for tests: npm `oidc-provider` (a certified implementation) run by
//! `tests/oidc/provider.mjs` on 127.0.0.1, with the clients and accounts a test gives. Node resolves the package from
//! the tools' Node modules ([`crate::Tool::NodeModules`]).

use std::io::{BufRead, BufReader, Write as _};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running provider; stopped (and its configuration file removed) when dropped.
pub struct OidcProvider {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    config: PathBuf,
    /// Its issuer identifier, `http://127.0.0.1:<port>`.
    pub issuer: String,
}

impl Drop for OidcProvider {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.config);
    }
}

impl OidcProvider {
    /// Starts the provider with `config_json` (`{"clients": [...], "accounts": {...}}`, see provider.mjs). Panics when
    /// the tools' Node modules lack `oidc-provider`, or the provider does not start within 30 s.
    pub fn start(config_json: &str) -> OidcProvider {
        let modules = crate::tool(crate::Tool::NodeModules);
        assert!(
            modules.join("oidc-provider/package.json").exists(),
            "npm `oidc-provider` is required in {} (scripts/install-tools.sh)",
            modules.display()
        );
        static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let config = std::env::temp_dir().join(format!(
            "specpress-oidc-{}-{}.json",
            std::process::id(),
            SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::write(&config, config_json).expect("the provider's configuration is written");
        let mut child = Command::new("node")
            .arg(crate::repo_root().join("tests/oidc/provider.mjs"))
            .arg(&config)
            .env("NODE_PATH", &modules)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node starts");
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut p = OidcProvider {
            stdin: child.stdin.take(),
            child,
            lines,
            config,
            issuer: String::new(),
        };
        p.issuer = p
            .expect_line("ISSUER ")
            .expect("the provider printed its issuer");
        p
    }

    /// The rest of the provider's next output line starting with `prefix` (waiting up to 30 s for it).
    pub fn expect_line(&self, prefix: &str) -> Option<String> {
        loop {
            let line = self.lines.recv_timeout(Duration::from_secs(30)).ok()?;
            if let Some(rest) = line.strip_prefix(prefix) {
                return Some(rest.trim().to_owned());
            }
        }
    }

    /// Signs with a new key from now on (the old one leaves its key set); the new key's `kid`.
    pub fn rotate(&mut self) -> String {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "rotate").expect("the provider reads");
        stdin.flush().expect("the provider reads");
        self.expect_line("ROTATED ").expect("rotated")
    }
}

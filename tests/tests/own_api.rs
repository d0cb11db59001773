//! Specpress's own API reference and the real `specpress serve` (issue 21): published on first start as the
//! documentation `specpress-api`, unchanged on a restart, off with `--no-self-doc`, and the document served without a
//! token names the server.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::blocking::Client;
use serde_json::Value;
use specpress_e2e::specpress_binary;

const ORG: &str = "own-api-organization-token-0123456789";

/// A `specpress serve` child on a chosen port, with what it printed until it listened.
struct Serve {
    child: Child,
    base: String,
    banner: Vec<String>,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn command(data_dir: &Path, port: u16, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(specpress_binary());
    cmd.args(["serve", "--port", &port.to_string(), "--data-dir"])
        .arg(data_dir)
        .args(args)
        .env_remove("SPECPRESS_TABLE")
        .env_remove("SPECPRESS_SELF_DOC")
        .env_remove("SPECPRESS_PUBLIC_URL")
        .env("SPECPRESS_ORG_TOKEN", ORG)
        .env("SPECPRESS_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

impl Serve {
    fn start(data_dir: &Path, port: u16, args: &[&str], env: &[(&str, &str)]) -> Serve {
        // Waited for in `stop`/`Drop`.
        #[allow(clippy::zombie_processes)]
        let mut child = command(data_dir, port, args, env)
            .spawn()
            .expect("specpress serve starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
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
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => {
                    let done = line.starts_with("Listening on ");
                    banner.push(line);
                    if done {
                        break;
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("specpress serve did not start: {banner:#?}");
                }
            }
        }
        Serve {
            child,
            base: format!("http://127.0.0.1:{port}"),
            banner,
        }
    }

    fn reference_line(&self) -> Option<&str> {
        self.banner
            .iter()
            .map(String::as_str)
            .find(|l| l.starts_with("Specpress's own API reference"))
    }

    fn stop(mut self) {
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
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn get(url: &str, token: Option<&str>) -> (u16, Value) {
    let mut req = Client::new().get(url);
    if let Some(t) = token {
        req = req.header("Authorization", format!("Token {t}"));
    }
    let resp = req.send().expect("request");
    let status = resp.status().as_u16();
    let text = resp.text().unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

#[test]
fn specpress_serve_publishes_its_own_reference_once_and_serves_it_without_a_token() {
    let dir = tempfile::tempdir().expect("temp dir");
    let port = free_port();
    let s = Serve::start(dir.path(), port, &[], &[]);
    let line = s.reference_line().expect("the banner names the reference");
    assert_eq!(
        line,
        format!(
            "Specpress's own API reference: {}/doc/specpress-api (this version published)",
            s.base
        )
    );
    let api = format!("{}/api/v1", s.base);

    // Served without a token, naming this server.
    let (status, served) = get(&format!("{api}/openapi.json"), None);
    assert_eq!(status, 200, "{served}");
    assert_eq!(served["servers"][0]["url"], api.as_str());
    assert_eq!(served["info"]["title"], "Specpress API");

    // Published: its public URL gives the same document; the organization lists it with one version.
    let (status, published) = get(&format!("{}/doc/specpress-api.json", s.base), None);
    assert_eq!(status, 200, "{published}");
    assert_eq!(published, served);

    // What a new user sees first: the reference rendered by Specpress, an operation page linked from its home.
    let (status, home) = get(&format!("{}/doc/specpress-api", s.base), None);
    assert_eq!(status, 200);
    let home = home.as_str().expect("an HTML page");
    assert!(home.contains("<h1>Specpress API</h1>"), "{home}");
    let diff_page = "/doc/specpress-api/operation/operation-post-diffs";
    assert!(home.contains(&format!("href=\"{diff_page}\"")), "{home}");
    let (status, page) = get(&format!("{}{diff_page}", s.base), None);
    assert_eq!(status, 200);
    assert!(
        page.as_str()
            .is_some_and(|p| p.contains("<h1>Compare two definitions</h1>")),
        "{page}"
    );
    let (_, docs) = get(&format!("{api}/docs"), Some(ORG));
    let slugs: Vec<_> = docs
        .as_array()
        .expect("docs")
        .iter()
        .map(|d| d["slug"].clone())
        .collect();
    assert_eq!(slugs, ["specpress-api"]);
    let (_, versions) = get(&format!("{api}/docs/specpress-api/versions"), Some(ORG));
    assert_eq!(versions.as_array().map(Vec::len), Some(1), "{versions}");
    s.stop();

    // A restart with the same Specpress on the same address publishes nothing new.
    let s = Serve::start(dir.path(), port, &[], &[]);
    assert_eq!(
        s.reference_line(),
        Some(
            format!(
                "Specpress's own API reference: {}/doc/specpress-api",
                s.base
            )
            .as_str()
        )
    );
    let (_, versions) = get(&format!("{api}/docs/specpress-api/versions"), Some(ORG));
    assert_eq!(versions.as_array().map(Vec::len), Some(1), "{versions}");
    s.stop();
}

#[test]
fn publishing_can_be_turned_off_and_a_malformed_setting_stops_the_server() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (args, env) in [
        (&["--no-self-doc"][..], &[][..]),
        (&[][..], &[("SPECPRESS_SELF_DOC", "false")][..]),
    ] {
        let s = Serve::start(dir.path(), free_port(), args, env);
        assert_eq!(s.reference_line(), None, "{:#?}", s.banner);
        let (status, _) = get(&format!("{}/doc/specpress-api", s.base), None);
        assert_eq!(status, 404);
        let (status, _) = get(&format!("{}/api/v1/openapi.yaml", s.base), None);
        assert_eq!(status, 200, "still served");
        s.stop();
    }
    let out = command(
        dir.path(),
        free_port(),
        &[],
        &[("SPECPRESS_SELF_DOC", "maybe")],
    )
    .output()
    .expect("specpress serve runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("SPECPRESS_SELF_DOC")
            && stderr.contains("'maybe'")
            && stderr.contains("must be `true` or `false`"),
        "{stderr}"
    );
}

//! MCP servers end to end: the real bump-cli (2.11) deploys an Arazzo document and its OpenAPI source to the real
//! `specpress serve` (`bump deploy FILE --mcp-server <slug>`), and the management routes answer their documented
//! statuses. The server's log (stderr, at debug level) is captured: no secret value ever reaches it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use reqwest::blocking::Client;
use serde_json::{Value, json};
use specpress_e2e::{CliRun, bump_cli, fixtures, specpress_binary, temp_dir};

const ORG: &str = "mcp-e2e-organization-token-0123456789";
const SECRET_VALUE: &str = "very-secret-value-4b1d9c";

/// `specpress serve` with its stderr in a file.
struct Serve {
    child: Child,
    base: String,
    log: PathBuf,
    _stdout: mpsc::Receiver<String>,
    _dir: tempfile::TempDir,
}

impl Serve {
    fn start() -> Serve {
        let dir = temp_dir();
        let log = dir.path().join("server.log");
        let stderr = std::fs::File::create(&log).expect("log file");
        let mut child = Command::new(specpress_binary())
            .args(["serve", "--port", "0", "--data-dir"])
            .arg(dir.path().join("data"))
            .env_remove("SPECPRESS_TABLE")
            .env("SPECPRESS_ORG_TOKEN", ORG)
            .env("SPECPRESS_LOG", "debug")
            .env("SPECPRESS_SELF_DOC", "false")
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr))
            .spawn()
            .expect("specpress serve starts");
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
        loop {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => {
                    if let Some(url) = line.strip_prefix("Listening on ") {
                        return Serve {
                            child,
                            base: url.trim().to_owned(),
                            log,
                            _stdout: rx,
                            _dir: dir,
                        };
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "specpress serve did not start: {}",
                        std::fs::read_to_string(&log).unwrap_or_default()
                    );
                }
            }
        }
    }

    fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut r = Client::new().request(method, format!("{}{path}", self.base));
        if let Some(t) = token {
            r = r.header("Authorization", format!("Token {t}"));
        }
        if let Some(b) = body {
            r = r.json(&b);
        }
        let resp = r.send().expect("request");
        let status = resp.status().as_u16();
        let text = resp.text().unwrap_or_default();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn workflows() -> PathBuf {
    fixtures().join("workflows")
}

/// `bump deploy FILE --mcp-server SERVER --token TOKEN`, run in the fixtures' folder as a user would.
fn bump_deploy(cli: &Path, base: &str, file: &str, server: &str, token: &str) -> CliRun {
    let out = Command::new(cli)
        .args(["deploy", file, "--mcp-server", server, "--token", token])
        .current_dir(workflows())
        .env("BUMP_HOST", base)
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

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn bump_cli_deploys_a_workflow_document_creating_the_server_then_reports_unchanged_and_invalid_ones()
 {
    let cli = bump_cli();
    let s = Serve::start();

    // GIVEN no server: the organization token creates it on the first deploy, named after the title
    let first = bump_deploy(
        &cli,
        &s.base,
        "petstore-arazzo.yaml",
        "petstore-workflows",
        ORG,
    );
    assert_eq!(first.code, 0, "{first:?}");
    assert!(first.all().contains("Petstore workflows"), "{first:?}");
    let (status, server) = s.call(
        "GET",
        "/api/v1/mcp-servers/petstore-workflows",
        Some(ORG),
        None,
    );
    assert_eq!(status, 200, "{server}");
    assert_eq!(server["name"], "Petstore workflows");
    assert!(server["current_version_id"].is_string(), "{server}");
    assert!(
        server.get("token").is_none(),
        "the token is shown on creation only"
    );

    let (status, versions) = s.call(
        "GET",
        "/api/v1/mcp-servers/petstore-workflows/versions",
        Some(ORG),
        None,
    );
    assert_eq!(status, 200, "{versions}");
    assert_eq!(versions.as_array().map(Vec::len), Some(1), "{versions}");
    assert_eq!(versions[0]["format"], "arazzo");
    assert_eq!(versions[0]["workflows"][0]["id"], "findPet");
    let (status, one) = s.call(
        "GET",
        &format!(
            "/api/v1/mcp-servers/petstore-workflows/versions/{}",
            versions[0]["id"].as_str().unwrap_or_default()
        ),
        Some(ORG),
        None,
    );
    assert_eq!(status, 200, "{one}");
    assert_eq!(
        one["definition"].as_str(),
        std::fs::read_to_string(workflows().join("petstore-arazzo.yaml"))
            .ok()
            .as_deref()
    );

    // WHEN the same document is deployed again THEN nothing changes (204)
    let again = bump_deploy(
        &cli,
        &s.base,
        "petstore-arazzo.yaml",
        "petstore-workflows",
        ORG,
    );
    assert_eq!(again.code, 0, "{again:?}");
    assert!(again.all().contains("has not changed"), "{again:?}");

    // AND an invalid document exits 122 with its located problem
    let bad = bump_deploy(
        &cli,
        &s.base,
        "petstore-arazzo-invalid.yaml",
        "petstore-workflows",
        ORG,
    );
    assert_eq!(bad.code, 122, "{bad:?}");
    assert!(
        bad.all().contains("#/workflows/0/steps/0"),
        "the problem is located: {bad:?}"
    );
    let (_, versions) = s.call(
        "GET",
        "/api/v1/mcp-servers/petstore-workflows/versions",
        Some(ORG),
        None,
    );
    assert_eq!(
        versions.as_array().map(Vec::len),
        Some(1),
        "nothing deployed"
    );

    // AND a wrong token is refused
    let refused = bump_deploy(
        &cli,
        &s.base,
        "petstore-arazzo.yaml",
        "petstore-workflows",
        "not-a-valid-token-0123456789",
    );
    assert_ne!(refused.code, 0, "{refused:?}");
}

#[test]
fn management_answers_its_statuses_and_secrets_are_write_only() {
    let s = Serve::start();
    let create = json!({"name": "Pet tools", "slug": "pet-tools", "description": "Tools"});

    // Authentication and validation.
    assert_eq!(
        s.call("POST", "/api/v1/mcp-servers", None, Some(create.clone()))
            .0,
        401
    );
    assert_eq!(
        s.call(
            "POST",
            "/api/v1/mcp-servers",
            Some("sp_org_wrong-token-000000000000000"),
            Some(create.clone())
        )
        .0,
        401
    );
    assert_eq!(s.call("GET", "/api/v1/mcp-servers", None, None).0, 401);
    assert_eq!(
        s.call(
            "POST",
            "/api/v1/mcp-servers",
            Some(ORG),
            Some(json!({"name": ""}))
        )
        .0,
        422
    );
    assert_eq!(
        s.call(
            "POST",
            "/api/v1/mcp-servers",
            Some(ORG),
            Some(json!({"name": "X", "slug": "Not A Slug"}))
        )
        .0,
        422
    );

    let (status, created) = s.call(
        "POST",
        "/api/v1/mcp-servers",
        Some(ORG),
        Some(create.clone()),
    );
    assert_eq!(status, 201, "{created}");
    let token = created["token"].as_str().unwrap_or_default().to_owned();
    assert!(token.starts_with("sp_mcp_"), "{created}");
    assert_eq!(
        s.call("POST", "/api/v1/mcp-servers", Some(ORG), Some(create))
            .0,
        422,
        "slug taken"
    );
    assert_eq!(
        s.call("GET", "/api/v1/mcp-servers/unknown-server", Some(ORG), None)
            .0,
        404
    );
    assert_eq!(
        s.call("GET", "/api/v1/mcp-servers/pet-tools", Some(&token), None)
            .0,
        401,
        "a server's token is no API token"
    );
    let (status, list) = s.call("GET", "/api/v1/mcp-servers", Some(ORG), None);
    assert_eq!(status, 200);
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
    let (status, patched) = s.call(
        "PATCH",
        "/api/v1/mcp-servers/pet-tools",
        Some(ORG),
        Some(json!({"name": "Pet tools v2", "description": null})),
    );
    assert_eq!(status, 200, "{patched}");
    assert_eq!(patched["name"], "Pet tools v2");
    assert!(patched["description"].is_null());
    assert_eq!(
        s.call(
            "PATCH",
            "/api/v1/mcp-servers/pet-tools",
            Some(ORG),
            Some(json!({"slug": "x"}))
        )
        .0,
        422,
        "unknown field"
    );

    // Secrets: validated, stored, never answered.
    let secret = |name: &str, value: Value| {
        s.call(
            "PUT",
            &format!("/api/v1/mcp-servers/pet-tools/secrets/{name}"),
            Some(ORG),
            Some(json!({ "value": value })),
        )
        .0
    };
    assert_eq!(secret("bad%20name", json!("x")), 422);
    assert_eq!(secret(&"n".repeat(129), json!("x")), 422);
    assert_eq!(secret("api_key", json!("")), 422);
    assert_eq!(secret("api_key", json!("v".repeat(8193))), 422);
    assert_eq!(secret("api_key", json!(SECRET_VALUE)), 204);
    assert_eq!(secret("api_key", json!(SECRET_VALUE)), 204, "replaced");
    let (status, listing) = s.call(
        "GET",
        "/api/v1/mcp-servers/pet-tools/secrets",
        Some(ORG),
        None,
    );
    assert_eq!(status, 200);
    assert_eq!(listing["secrets"][0]["name"], "api_key");
    assert_eq!(listing["secrets"][0]["used_by_current_version"], false);
    for path in [
        "/api/v1/mcp-servers",
        "/api/v1/mcp-servers/pet-tools",
        "/api/v1/mcp-servers/pet-tools/secrets",
        "/api/v1/mcp-servers/pet-tools/versions",
    ] {
        let (_, body) = s.call("GET", path, Some(ORG), None);
        assert!(!body.to_string().contains(SECRET_VALUE), "{path}: {body}");
    }

    // Token rotation answers a new token.
    let (status, rotated) = s.call(
        "POST",
        "/api/v1/mcp-servers/pet-tools/rotate_token",
        Some(ORG),
        None,
    );
    assert_eq!(status, 200, "{rotated}");
    assert!(
        rotated["token"]
            .as_str()
            .is_some_and(|t| t.starts_with("sp_mcp_") && t != token)
    );
    assert_eq!(
        s.call(
            "POST",
            "/api/v1/mcp-servers/nope/rotate_token",
            Some(ORG),
            None
        )
        .0,
        404
    );

    // Deleting: the secret, then the server.
    assert_eq!(
        s.call(
            "DELETE",
            "/api/v1/mcp-servers/pet-tools/secrets/api_key",
            Some(ORG),
            None
        )
        .0,
        204
    );
    assert_eq!(
        s.call(
            "DELETE",
            "/api/v1/mcp-servers/pet-tools/secrets/api_key",
            Some(ORG),
            None
        )
        .0,
        404
    );
    assert_eq!(secret("api_key", json!(SECRET_VALUE)), 204);
    assert_eq!(
        s.call("DELETE", "/api/v1/mcp-servers/pet-tools", Some(ORG), None)
            .0,
        204
    );
    assert_eq!(
        s.call("GET", "/api/v1/mcp-servers/pet-tools", Some(ORG), None)
            .0,
        404
    );
    assert_eq!(
        s.call("DELETE", "/api/v1/mcp-servers/pet-tools", Some(ORG), None)
            .0,
        404
    );
    assert_eq!(secret("api_key", json!(SECRET_VALUE)), 404);

    let log = s.log();
    assert!(
        !log.contains(SECRET_VALUE),
        "a secret value reached the log"
    );
}

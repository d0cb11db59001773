//! Cross-check against the official Standard Webhooks library (PyPI `standardwebhooks`):
//! signatures generated here must verify there, and tampered ones must not.
//!
//! Python is found through `SPECPRESS_TOOLS_PYTHON` or `<repo>/.tools/venv/bin/python`
//! (created by `scripts/install-tools.sh`). When it or the library is missing the test fails
//! with a clear message under `CI=true`, and is skipped loudly otherwise.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use specpress_webhook::{WebhookSecret, sign_headers};

fn repo_root() -> PathBuf {
    let lexical = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    // Canonical, so the venv's `python` sees its real location (a `..` path through a symlink
    // would make Python miss its `pyvenv.cfg` and silently run without the venv's packages).
    std::fs::canonicalize(&lexical).unwrap_or(lexical)
}

/// The python interpreter with `standardwebhooks`, or the reason it is unavailable.
fn tools_python() -> Result<PathBuf, String> {
    let python = std::env::var_os("SPECPRESS_TOOLS_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".tools/venv/bin/python"));
    if !python.exists() {
        return Err(format!(
            "python not found at {} (set SPECPRESS_TOOLS_PYTHON or run scripts/install-tools.sh)",
            python.display()
        ));
    }
    let probe = Command::new(&python)
        .args(["-c", "import standardwebhooks"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !probe.status.success() {
        return Err(format!(
            "{} cannot import standardwebhooks (run scripts/install-tools.sh): {}",
            python.display(),
            String::from_utf8_lossy(&probe.stderr)
        ));
    }
    Ok(python)
}

fn header_json(headers: &http::HeaderMap) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for (name, value) in headers {
        let value = value.to_str().expect("our headers are ASCII");
        map.insert(name.as_str().to_owned(), value.into());
    }
    serde_json::Value::Object(map)
}

#[test]
fn official_standardwebhooks_library_verifies_our_signatures_and_rejects_tampering() {
    let python = match tools_python() {
        Ok(p) => p,
        Err(reason) => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("standardwebhooks cross-check cannot run in CI: {reason}");
            }
            eprintln!("\n!!! SKIPPING standardwebhooks cross-check: {reason} !!!\n");
            return;
        }
    };
    let now = i64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("clock after 1970")
            .as_secs(),
    )
    .expect("timestamp fits i64");

    let current = WebhookSecret::generate();
    let previous = WebhookSecret::generate();
    let stranger = WebhookSecret::generate();
    let body = r#"{"event":"documentation.published","id":"evt_01","api":{"name":"Pet store ✓"},"diff":{"breaking":false}}"#;
    let msg_id = "msg_01JD2Y3ZK8Q5W7X9A0B1C2D3E4";

    let single =
        sign_headers(std::slice::from_ref(&current), msg_id, now, body.as_bytes()).expect("signs");
    let rotated = sign_headers(
        &[current.clone(), previous.clone()],
        msg_id,
        now,
        body.as_bytes(),
    )
    .expect("signs");
    let stale = sign_headers(
        std::slice::from_ref(&current),
        msg_id,
        now - 600,
        body.as_bytes(),
    )
    .expect("signs");

    let cases = serde_json::json!([
        {"name": "single secret", "secret": current.expose_text(), "body": body,
         "headers": header_json(&single), "expect": "valid"},
        {"name": "rotation: new secret verifies", "secret": current.expose_text(), "body": body,
         "headers": header_json(&rotated), "expect": "valid"},
        // The Bump header carries only the newest secret's signature, so check only Standard here.
        {"name": "rotation: old secret verifies", "secret": previous.expose_text(), "body": body,
         "headers": header_json(&rotated), "expect": "valid", "check_bump": false},
        {"name": "tampered body", "secret": current.expose_text(), "body": format!("{body} "),
         "headers": header_json(&single), "expect": "invalid"},
        {"name": "unknown secret", "secret": stranger.expose_text(), "body": body,
         "headers": header_json(&single), "expect": "invalid"},
        {"name": "timestamp 10 minutes old", "secret": current.expose_text(), "body": body,
         "headers": header_json(&stale), "expect": "invalid", "check_bump": false},
    ]);

    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/verify_with_standardwebhooks.py");
    let mut child = Command::new(&python)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn python");
    child
        .stdin
        .take()
        .expect("stdin piped")
        .write_all(cases.to_string().as_bytes())
        .expect("write cases");
    let out = child.wait_with_output().expect("python finishes");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "standardwebhooks disagreed:\n{stdout}\n{stderr}"
    );
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("ok")).count(),
        6,
        "{stdout}"
    );
}

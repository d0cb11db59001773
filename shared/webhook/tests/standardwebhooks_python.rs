//! Cross-check against the official Standard Webhooks library (PyPI `standardwebhooks`):
//! signatures generated here must verify there, and tampered ones must not.
//!
//! Python is the tools' (`specpress_testkit::Tool::Python`, installed by `scripts/install-tools.sh`): when it is
//! missing the test fails under `CI=true` and is reported as ignored otherwise.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use specpress_webhook::{WebhookSecret, sign_headers};

fn header_json(headers: &http::HeaderMap) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for (name, value) in headers {
        let value = value.to_str().expect("our headers are ASCII");
        map.insert(name.as_str().to_owned(), value.into());
    }
    serde_json::Value::Object(map)
}

#[test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python with standardwebhooks (scripts/install-tools.sh)"
)]
fn official_standardwebhooks_library_verifies_our_signatures_and_rejects_tampering() {
    let python = specpress_testkit::python_with("standardwebhooks");
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

//! Accepted changes from outside (docs/accepted-changes.md): the real bump-cli's `bump diff --fail-on-breaking`
//! fails on breaking changes, passes once their ids (taken from its own JSON output) are accepted, fails again when an
//! acceptance expires; the changelog, the change page and its `.json` still say breaking, with the reason escaped;
//! bad bodies get 422 naming the field, a missing or invalid token 401, a token that does not reach the documentation
//! 404; and the official MCP client's `get_change` lists each breaking change with its migration note and
//! acceptance, `operation_history` of a removed operation the release it was present since.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use specpress_e2e::site::Site;
use specpress_e2e::{CliRun, bump, bump_cli, fixtures, repo_root};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

const ORG: &str = "accepted-tests-organization-token-0042";
const REASON: &str = "Announced in March <script>alert(1)</script> & agreed";

/// `bump diff petstore-v2.yaml --doc pets --fail-on-breaking --format json` against the documentation's head.
fn diff(cli: &Path, site: &Site, token: &str) -> CliRun {
    bump(
        cli,
        &site.server.base_url,
        &[
            "diff",
            "petstore-v2.yaml",
            "--doc",
            "pets",
            "--token",
            token,
            "--fail-on-breaking",
            "--format",
            "json",
        ],
    )
}

/// The ids of the breaking changes of a `DiffItem[]` tree, in order.
fn breaking_ids(items: &Value, out: &mut Vec<String>) {
    for item in items.as_array().into_iter().flatten() {
        for c in item["changes"].as_array().into_iter().flatten() {
            if c["level"] == "breaking" {
                out.push(c["id"].as_str().expect("change id").to_owned());
            }
        }
        breaking_ids(&item["children"], out);
    }
}

/// Every change entry of a tree.
fn entries(items: &Value, out: &mut Vec<Value>) {
    for item in items.as_array().into_iter().flatten() {
        out.extend(item["changes"].as_array().into_iter().flatten().cloned());
        entries(&item["children"], out);
    }
}

fn put(site: &Site, token: Option<&str>, body: Value) -> (u16, Value) {
    let mut rb = site
        .http
        .put(site.url("/api/v1/docs/pets/accepted_changes"))
        .json(&body);
    if let Some(t) = token {
        rb = rb.header("Authorization", format!("Token {t}"));
    }
    let r = rb.send().expect("API answers");
    let s = r.status().as_u16();
    (s, r.json().unwrap_or(Value::Null))
}

fn accept_all(ids: &[String], expires_at: Option<&str>) -> Value {
    let changes: Vec<Value> = ids
        .iter()
        .map(|id| match expires_at {
            Some(e) => json!({"id": id, "reason": REASON, "expires_at": e}),
            None => json!({"id": id, "reason": REASON}),
        })
        .collect();
    json!({ "changes": changes })
}

fn new_doc(site: &Site, slug: &str) -> String {
    let (s, b) = site.api(
        Method::POST,
        "/api/v1/docs",
        Some(json!({"name": slug, "slug": slug})),
    );
    assert_eq!(s, 201, "{b}");
    b["token"].as_str().expect("token").to_owned()
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn bump_diff_fails_then_passes_once_its_breaking_changes_are_accepted_and_fails_again_when_they_expire()
 {
    let cli = bump_cli();
    let site = Site::start(ORG);
    site.create_hub("team", "Team");
    let (s, b) = site.api(
        Method::POST,
        "/api/v1/docs",
        Some(json!({"name": "pets", "slug": "pets", "hub": "team"})),
    );
    assert_eq!(s, 201, "{b}");
    let token = b["token"].as_str().expect("token").to_owned();
    let v1 = std::fs::read_to_string(fixtures().join("petstore.yaml")).expect("fixture");
    site.deploy("pets", None, &v1);

    // GIVEN a diff with breaking changes: bump-cli fails, and its JSON names the changes by id
    let failing = diff(&cli, &site, &token);
    assert_eq!(failing.code, 1, "{failing:?}");
    let details: Value =
        serde_json::from_str(&failing.stdout).expect("bump diff prints the details as JSON");
    let mut ids = Vec::new();
    breaking_ids(&details, &mut ids);
    assert!(
        ids.len() >= 2,
        "petstore v1 -> v2 has several breaking changes: {details}"
    );

    // WHEN all but one are accepted, it still fails
    let (s, b) = put(&site, Some(&token), accept_all(&ids[1..], None));
    assert_eq!(s, 200, "{b}");
    let still = diff(&cli, &site, &token);
    assert_eq!(
        still.code, 1,
        "one breaking change is not accepted: {still:?}"
    );

    // WHEN every one is accepted, it passes, and each accepted change says so, still breaking
    let (s, b) = put(&site, Some(&token), accept_all(&ids, None));
    assert_eq!(s, 200, "{b}");
    assert_eq!(
        b["changes"].as_array().map(Vec::len),
        Some(ids.len()),
        "{b}"
    );
    assert_eq!(b["changes"][0]["reason"], REASON);
    assert_eq!(b["changes"][0]["expired"], false);
    let passing = diff(&cli, &site, &token);
    assert_eq!(passing.code, 0, "{passing:?}");
    let details: Value = serde_json::from_str(&passing.stdout).expect("JSON");
    let mut all = Vec::new();
    entries(&details, &mut all);
    for e in all.iter().filter(|e| e["level"] == "breaking") {
        assert_eq!(e["accepted"]["reason"], REASON, "{e}");
        assert!(e["accepted"]["expires_at"].is_null(), "{e}");
    }

    // WHEN the acceptances expire, it fails again, and GET says they expired
    let soon = (OffsetDateTime::now_utc() + time::Duration::seconds(3))
        .format(&Rfc3339)
        .expect("date");
    let (s, b) = put(&site, Some(&token), accept_all(&ids, Some(&soon)));
    assert_eq!(s, 200, "{b}");
    assert_eq!(diff(&cli, &site, &token).code, 0, "not expired yet");
    std::thread::sleep(Duration::from_secs(4));
    let expired = diff(&cli, &site, &token);
    assert_eq!(
        expired.code, 1,
        "an expired acceptance counts no more: {expired:?}"
    );
    let (s, b) = site.api(Method::GET, "/api/v1/docs/pets/accepted_changes", None);
    assert_eq!(s, 200, "{b}");
    assert!(
        b["changes"]
            .as_array()
            .expect("list")
            .iter()
            .all(|c| c["expired"] == true),
        "{b}"
    );

    // Readers still see the changes as breaking, with the reason, escaped
    let (s, b) = put(&site, Some(&token), accept_all(&ids, None));
    assert_eq!(s, 200, "{b}");
    let v2 = std::fs::read_to_string(fixtures().join("petstore-v2.yaml")).expect("fixture");
    let release = site.deploy("pets", None, &v2)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let escaped = "accepted: Announced in March &lt;script&gt;alert(1)";
    for page in [
        "/doc/pets/changes".to_owned(),
        format!("/doc/pets/changes/{release}"),
    ] {
        let (s, _, html) = site.get(&page);
        assert_eq!(s, 200, "{page}");
        assert!(html.contains("Breaking"), "{page} says breaking");
        assert!(
            html.contains(escaped),
            "{page} gives the reason, escaped: {html}"
        );
        assert!(
            !html.contains("<script>alert(1)"),
            "{page} never carries the reason raw"
        );
    }
    let (s, _, json) = site.get(&format!("/doc/pets/changes/{release}.json"));
    assert_eq!(s, 200);
    let details: Value = serde_json::from_str(&json).expect("JSON");
    let mut all = Vec::new();
    entries(&details, &mut all);
    let accepted: Vec<&Value> = all.iter().filter(|e| e["level"] == "breaking").collect();
    assert_eq!(accepted.len(), ids.len(), "{details}");
    assert!(accepted.iter().all(|e| e["accepted"]["reason"] == REASON));
    let (s, _, feed) = site.get("/doc/pets/changes.atom");
    assert_eq!(s, 200);
    assert!(feed.contains("Breaking: "), "{feed}");
    assert!(feed.contains("accepted: Announced in March"), "{feed}");
    assert!(!feed.contains("<script>alert"), "{feed}");
    // AND the hub's combined feed says the same of its documentation's release
    let (s, _, feed) = site.get("/hub/team/changes.atom");
    assert_eq!(s, 200);
    assert!(feed.contains("Breaking: "), "{feed}");
    assert!(feed.contains("accepted: Announced in March"), "{feed}");
    assert!(!feed.contains("<script>alert"), "{feed}");
}

#[test]
fn bad_bodies_get_422_naming_the_field_and_tokens_are_checked_as_on_other_management_routes() {
    let site = Site::start(ORG);
    let token = new_doc(&site, "pets");
    let other = new_doc(&site, "other");
    let id = "0123456789abcdef";
    let past = "2001-01-01T00:00:00Z";
    let cases = [
        (json!({}), "changes"),
        (json!({"changes": [{"reason": "r"}]}), "changes[0].id"),
        (
            json!({"changes": [{"id": "not-an-id", "reason": "r"}]}),
            "changes[0].id",
        ),
        (
            json!({"changes": [{"id": "0123456789ABCDEF", "reason": "r"}]}),
            "changes[0].id",
        ),
        (
            json!({"changes": [{"id": id, "reason": "r"}, {"id": id, "reason": "s"}]}),
            "changes[1].id",
        ),
        (json!({"changes": [{"id": id}]}), "changes[0].reason"),
        (
            json!({"changes": [{"id": id, "reason": "  "}]}),
            "changes[0].reason",
        ),
        (
            json!({"changes": [{"id": id, "reason": "x".repeat(301)}]}),
            "changes[0].reason",
        ),
        (
            json!({"changes": [{"id": id, "reason": "r", "expires_at": "next week"}]}),
            "changes[0].expires_at",
        ),
        (
            json!({"changes": [{"id": id, "reason": "r", "expires_at": past}]}),
            "changes[0].expires_at",
        ),
        (json!({"changes": "all"}), "body"),
    ];
    for (body, field) in cases {
        let (s, b) = put(&site, Some(&token), body.clone());
        assert_eq!(s, 422, "{body} -> {b}");
        assert!(b["message"].is_string(), "{b}");
        assert!(
            b["errors"][field].is_array(),
            "{body}: the error names {field}: {b}"
        );
    }
    let many: Vec<Value> = (0..201)
        .map(|i| json!({"id": format!("{i:016x}"), "reason": "r"}))
        .collect();
    let (s, b) = put(&site, Some(&token), json!({ "changes": many }));
    assert_eq!(s, 422, "{b}");
    assert!(b["errors"]["changes"].is_array(), "{b}");

    // Nothing was stored by a refused body
    let (s, b) = site.api(Method::GET, "/api/v1/docs/pets/accepted_changes", None);
    assert_eq!((s, b), (200, json!({"changes": []})));

    // No token or an invalid one: 401; another documentation's token: 404 (as an unknown one)
    let ok = json!({"changes": [{"id": id, "reason": "r"}]});
    assert_eq!(put(&site, None, ok.clone()).0, 401);
    assert_eq!(
        put(&site, Some("not-a-token-of-this-installation"), ok.clone()).0,
        401
    );
    let (s, b) = put(&site, Some(&other), ok.clone());
    assert_eq!(s, 404, "{b}");
    let r = site
        .http
        .get(site.url("/api/v1/docs/pets/accepted_changes"))
        .header("Authorization", format!("Token {other}"))
        .send()
        .expect("answer");
    assert_eq!(r.status().as_u16(), 404);
    let r = site
        .http
        .get(site.url("/api/v1/docs/pets/accepted_changes"))
        .send()
        .expect("answer");
    assert_eq!(r.status().as_u16(), 401);
    assert_eq!(
        put(&site, Some(&token), ok.clone()).0,
        200,
        "the documentation's own token"
    );
    let (s, b) = site.api(Method::GET, "/api/v1/docs/unknown/accepted_changes", None);
    assert_eq!(s, 404, "{b}");
}

/// The tools' Python with the MCP SDK.
fn mcp_python() -> PathBuf {
    specpress_testkit::python_with("mcp.client.streamable_http")
}

/// Connects to `url` with the official client (tests/mcp_client.py) and makes `calls`.
fn mcp_session(url: &str, calls: Value) -> Value {
    let mut child = Command::new(mcp_python())
        .arg(repo_root().join("tests/mcp_client.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the MCP client starts");
    let plan = json!({"url": url, "headers": {}, "calls": calls});
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(plan.to_string().as_bytes())
            .expect("plan written");
    }
    let out = child.wait_with_output().expect("the MCP client ends");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(v.get("failure").is_none(), "client failure: {v}");
    v
}

#[test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
fn mcp_get_change_gives_migration_notes_and_acceptances_and_a_removed_operation_its_first_release()
{
    let site = Site::start(ORG);
    new_doc(&site, "pets");
    let read = |f: &str| std::fs::read_to_string(fixtures().join(f)).expect("fixture");
    let id = |v: Value| v["id"].as_str().expect("version id").to_owned();
    let v1 = id(site.deploy("pets", None, read("petstore.yaml")));
    let v2 = id(site.deploy("pets", None, read("petstore-v2.yaml")));
    let (s, details) = site.api(Method::GET, &format!("/doc/pets/changes/{v2}.json"), None);
    assert_eq!(s, 200);
    let mut ids = Vec::new();
    breaking_ids(&details, &mut ids);
    assert!(!ids.is_empty(), "{details}");
    let (s, b) = site.api(
        Method::PUT,
        "/api/v1/docs/pets/accepted_changes",
        Some(json!({"changes": [{"id": ids[0], "reason": REASON}]})),
    );
    assert_eq!(s, 200, "{b}");

    let s = mcp_session(
        &site.url("/doc/pets/mcp"),
        json!([
            ["get_change", {"id": v2}],
            ["operation_history", {"operation": "GET /pets/{id}"}],
        ]),
    );
    let change = &s["calls"][0]["structured"];
    assert_eq!(
        change["breaking"], true,
        "an accepted change stays breaking for readers: {change}"
    );
    let list = change["breaking_changes"]
        .as_array()
        .expect("breaking_changes");
    assert_eq!(list.len(), ids.len(), "{change}");
    assert!(
        list.iter()
            .all(|c| c["migration"].as_str().is_some_and(|m| !m.is_empty())),
        "every breaking change carries its migration note: {change}"
    );
    let first = list
        .iter()
        .find(|c| c["id"] == ids[0].as_str())
        .expect("the accepted one");
    assert_eq!(first["accepted"]["reason"], REASON);
    assert!(
        list.iter()
            .filter(|c| c["id"] != ids[0].as_str())
            .all(|c| c.get("accepted").is_none())
    );

    let history = &s["calls"][1]["structured"];
    assert_eq!(history["entries"][0]["status"], "removed", "{history}");
    assert_eq!(
        history["entries"][0]["release"]["id"],
        v2.as_str(),
        "{history}"
    );
    assert_eq!(
        history["present_since"]["id"],
        v1.as_str(),
        "a removed operation names the release it was present since: {history}"
    );
}

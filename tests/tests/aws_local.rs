//! Specpress as deployed (issue 31): every Lambda function of template.yaml under `cargo lambda watch`'s runtime
//! API, behind scripts/aws_local.py's API Gateway front, over moto's DynamoDB and SQS created from the template,
//! started by `scripts/aws-local.sh` exactly as a user starts it, then driven with the real bump-cli, a browser-like
//! sign-in, and a webhook delivered through SQS and the delivery function to a receiver that verifies it with the
//! Standard Webhooks library; a failing receiver is retried and its message dead-lettered. Also: the route table
//! `cargo lambda watch` uses cannot drift from template.yaml.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use specpress_e2e::aws_local::AwsLocal;
use specpress_e2e::{CliRun, bump, bump_cli, repo_root, temp_dir, webhook_receiver};

/// The tools' Python (`specpress_testkit`: the tests that use it are ignored outside CI without it).
fn python() -> PathBuf {
    specpress_testkit::tool(specpress_testkit::Tool::Python)
}

/// `scripts/aws_local.py routes` against a template and a Cargo.toml: (exit code, report).
fn check_routes(template: &Path, cargo_toml: &Path) -> (i32, String) {
    let out = Command::new(python())
        .arg(repo_root().join("scripts/aws_local.py"))
        .args(["routes", "--template"])
        .arg(template)
        .arg("--cargo-toml")
        .arg(cargo_toml)
        .output()
        .expect("python runs");
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
fn cargo_lambda_watch_routes_every_request_to_the_function_api_gateway_would() {
    let root = repo_root();
    let (code, report) = check_routes(&root.join("template.yaml"), &root.join("Cargo.toml"));
    assert_eq!(
        code, 0,
        "the route table drifted from template.yaml:\n{report}"
    );
    assert!(report.contains("0 differences"), "{report}");

    // The check can fail: a route sent to another function, and a template route without its twin in Cargo.toml.
    let dir = temp_dir();
    let cargo = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let moved = cargo.replace(
        r#""/diff/{id}/{*proxy}" = [{ method = "GET", function = "diffs" }"#,
        r#""/diff/{id}/{*proxy}" = [{ method = "GET", function = "docs" }"#,
    );
    assert_ne!(moved, cargo, "the route to move is in Cargo.toml");
    std::fs::write(dir.path().join("Cargo.toml"), moved).expect("write");
    let (code, report) = check_routes(&root.join("template.yaml"), &dir.path().join("Cargo.toml"));
    assert_eq!(code, 1, "{report}");
    assert!(
        report
            .contains("GET /diff/x/current.json: API Gateway -> diffs, cargo lambda watch -> docs")
            || report.contains("API Gateway -> diffs, cargo lambda watch -> docs"),
        "{report}"
    );
    let template = std::fs::read_to_string(root.join("template.yaml")).expect("template");
    let without_head: String = template
        .lines()
        .filter(|l| !l.contains("PingHead:"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.path().join("template.yaml"), without_head).expect("write");
    let (code, report) = check_routes(&dir.path().join("template.yaml"), &root.join("Cargo.toml"));
    assert_eq!(code, 1, "{report}");
    assert!(
        report.contains("HEAD /api/v1/ping: API Gateway -> None, cargo lambda watch -> deploy"),
        "{report}"
    );
}

/// The text of one resource of template.yaml: its `  Name:` line and the lines below it, up to the next resource
/// (the next line indented by exactly two spaces that is not a comment).
fn resource_block(template: &str, name: &str) -> String {
    let head = format!("  {name}:");
    let mut lines = template.lines().skip_while(|l| *l != head);
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("{name} is in template.yaml"));
    let next_resource =
        |l: &&str| l.starts_with("  ") && !l.starts_with("   ") && !l.trim_start().starts_with('#');
    let mut out = format!("{first}\n");
    for l in lines.take_while(|l| !next_resource(l)) {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// The DynamoDB actions a resource's policies allow.
fn table_actions(block: &str) -> Vec<String> {
    block
        .split("dynamodb:")
        .skip(1)
        .filter_map(|s| {
            let name: String = s.chars().take_while(char::is_ascii_alphanumeric).collect();
            (!name.is_empty() && name != "LeadingKeys").then_some(name)
        })
        .collect()
}

#[test]
fn the_try_it_proxy_only_reads_the_table_and_the_mcp_servers_and_the_proxy_are_functions_of_their_own()
 {
    let template = std::fs::read_to_string(repo_root().join("template.yaml")).expect("template");
    let try_it = resource_block(&template, "TryItFunction");
    let actions = table_actions(&try_it);
    assert!(!actions.is_empty(), "{try_it}");
    for a in &actions {
        assert!(
            ["GetItem", "BatchGetItem", "Query"].contains(&a.as_str()),
            "the proxy may only read the table, it may {a}"
        );
    }
    assert!(try_it.contains("ReservedConcurrentExecutions: !If [ReservesTryItConcurrency"));
    assert!(try_it.contains("Binary: try-it") && try_it.contains("'/doc/{doc}/try'"));
    let mcp = resource_block(&template, "DocsMcpFunction");
    assert!(mcp.contains("Binary: docs-mcp") && mcp.contains("'/hub/{hub}/mcp'"));
    assert!(mcp.contains("MemorySize: !Ref DocsMcpMemorySize"));
    assert!(mcp.contains("ReservedConcurrentExecutions: !If [ReservesDocsMcpConcurrency"));
    assert!(
        table_actions(&mcp).contains(&"PutItem".to_owned()),
        "digests"
    );
    let docs = resource_block(&template, "DocsFunction");
    assert!(docs.contains("Binary: docs") && docs.contains("'/doc/{doc}'"));
    assert!(!docs.contains("/mcp'") && !docs.contains("/try'"), "{docs}");
    // The check reads what it should: the deploy function writes.
    assert!(
        table_actions(&resource_block(&template, "DeployFunction")).contains(&"PutItem".to_owned())
    );
}

/// Every `Vary` value of an answer, lower-cased and comma-joined.
fn vary_values(headers: &reqwest::header::HeaderMap) -> String {
    headers
        .get_all("vary")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",")
        .to_ascii_lowercase()
}

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

fn cli_ok(run: &CliRun, what: &str) {
    assert_eq!(run.code, 0, "{what}: {}", run.all());
}

/// The receiver's log entries for a path, waiting until there are at least `n` (or the time is up).
fn deliveries(rx_base: &str, path: &str, n: usize, within: Duration) -> Vec<Value> {
    let http = client();
    let until = Instant::now() + within;
    loop {
        let log: Vec<Value> = http
            .get(format!("{rx_base}/_log"))
            .send()
            .and_then(|r| r.json())
            .unwrap_or_default();
        let got: Vec<Value> = log.into_iter().filter(|e| e["path"] == path).collect();
        if got.len() >= n || Instant::now() >= until {
            return got;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// Messages in the dead-letter queue (moto, through boto3 like any AWS client).
fn dead_lettered(endpoint: &str, queue_url: &str) -> usize {
    let out = Command::new(python())
        .args([
            "-c",
            "import sys,boto3; q=boto3.client('sqs',endpoint_url=sys.argv[1],region_name='us-east-1',\
             aws_access_key_id='local',aws_secret_access_key='local'); \
             print(q.get_queue_attributes(QueueUrl=sys.argv[2],AttributeNames=['ApproximateNumberOfMessages'])\
             ['Attributes']['ApproximateNumberOfMessages'])",
            endpoint,
            queue_url,
        ])
        .output()
        .expect("python runs");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("queue depth: {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
#[cfg_attr(
    any(missing_bump_cli, missing_python_tools),
    ignore = "needs bump-cli and the tools' Python (scripts/install-tools.sh)"
)]
fn the_functions_as_deployed_serve_bump_cli_readers_private_docs_and_webhooks_through_sqs() {
    let cli = bump_cli();
    let rx = webhook_receiver();
    // Retries 1000x sooner than on AWS (5 s -> 5 ms ...), so a failing receiver is exhausted within seconds.
    let mut aws = AwsLocal::start(&[("SPECPRESS_WEBHOOK_RETRY_SCALE", "0.0002")]);
    let base = aws.base.clone();
    let auth = format!("Token {}", aws.token);
    let http = client();
    let api = |p: &str| format!("{base}/api/v1{p}");

    // bump-cli: a hub, a deploy that creates the documentation, the same again, a branch, a dry run of an invalid
    // document (exit 122), a diff and a preview.
    let r = http
        .post(api("/hubs"))
        .header("Authorization", &auth)
        .json(&json!({"name": "Payments", "slug": "payments"}))
        .send()
        .expect("create hub");
    assert_eq!(r.status(), 201);
    let token = aws.token.clone();
    // `bump deploy FILE --doc pets --hub payments --token T` and more arguments.
    let deploy_pets = |file: &str, more: &[&str]| {
        let mut args = vec![
            "deploy", file, "--doc", "pets", "--hub", "payments", "--token", &token,
        ];
        args.extend_from_slice(more);
        bump(&cli, &base, &args)
    };
    let first = deploy_pets("petstore.yaml", &["--auto-create"]);
    cli_ok(&first, "deploy");
    assert!(
        first.all().contains(&format!("{base}/doc/pets")),
        "{}",
        first.all()
    );
    let again = deploy_pets("petstore.yaml", &[]);
    cli_ok(&again, "unchanged deploy");
    assert!(again.all().contains("has not changed"), "{}", again.all());
    let branch = deploy_pets("petstore-v2.yaml", &["--branch", "next"]);
    cli_ok(&branch, "branch deploy");
    let invalid = deploy_pets("invalid.yaml", &["--dry-run"]);
    assert_eq!(invalid.code, 122, "{}", invalid.all());
    let diff = bump(&cli, &base, &["diff", "petstore.yaml", "petstore-v2.yaml"]);
    cli_ok(&diff, "diff");
    let preview = bump(&cli, &base, &["preview", "petstore.yaml"]);
    cli_ok(&preview, "preview");
    let preview_url = preview
        .all()
        .split_whitespace()
        .find(|w| w.starts_with(&format!("{base}/preview/")))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("a preview URL: {}", preview.all()));
    assert_eq!(
        http.get(&preview_url).send().expect("preview").status(),
        200
    );

    // Readers: the pages, HEAD on them (routed like GET), the branches.
    let page = http.get(format!("{base}/doc/pets")).send().expect("page");
    assert_eq!(page.status(), 200);
    assert!(page.text().expect("html").contains("<html"), "an HTML page");
    let head = http.head(format!("{base}/doc/pets")).send().expect("HEAD");
    assert_eq!(head.status(), 200, "HEAD of a page is routed");
    assert!(head.bytes().expect("body").is_empty(), "HEAD has no body");
    // The documentation's MCP server and "Try it" are functions of their own (the docs function has neither route:
    // it would answer a 404 page): a tools/list through the front, and the proxy's JSON 404 of a documentation
    // that does not turn it on.
    let tools: Value = http
        .post(format!("{base}/doc/pets/mcp"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
        .send()
        .and_then(|r| r.json())
        .expect("an MCP answer");
    assert_eq!(
        tools["result"]["serverInfo"]["name"], "specpress-docs",
        "{tools}"
    );
    let proxy = http
        .post(format!("{base}/doc/pets/try"))
        .header("Origin", &base)
        .json(&json!({"method": "GET", "url": "https://api.example.com/"}))
        .send()
        .expect("the proxy answers");
    assert_eq!(proxy.status(), 404);
    assert!(proxy.json::<Value>().expect("JSON")["message"].is_string());
    let branches: Value = http
        .get(api("/docs/pets/branches"))
        .header("Authorization", &auth)
        .send()
        .and_then(|r| r.json())
        .expect("branches");
    let names: Vec<&str> = branches
        .as_array()
        .or_else(|| branches["branches"].as_array())
        .expect("a list")
        .iter()
        .filter_map(|b| b["name"].as_str())
        .collect();
    assert!(
        names.contains(&"main") && names.contains(&"next"),
        "{branches}"
    );

    // A private documentation: hidden from anonymous readers, shown after signing in (the cookie travels in the
    // payload's `cookies` field both ways).
    let r = http
        .patch(api("/docs/pets"))
        .header("Authorization", &auth)
        .json(&json!({"visibility": "private"}))
        .send()
        .expect("make private");
    assert_eq!(r.status(), 200);
    assert_ne!(
        http.get(format!("{base}/doc/pets"))
            .send()
            .expect("page")
            .status(),
        200
    );
    let doc_token = http
        .post(api("/docs/pets/rotate_token"))
        .header("Authorization", &auth)
        .send()
        .and_then(|r| r.json::<Value>())
        .expect("doc token")["token"]
        .as_str()
        .expect("token")
        .to_owned();
    let signed = http
        .post(format!("{base}/sign-in"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Origin", &base)
        .body(format!("token={doc_token}&next=%2Fdoc%2Fpets"))
        .send()
        .expect("sign in");
    assert_eq!(signed.status(), 303, "signed in");
    let cookie = signed
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|c| c.split(';').next())
        .expect("a session cookie")
        .to_owned();
    let page = http
        .get(format!("{base}/doc/pets"))
        .header("Cookie", &cookie)
        .send()
        .expect("page");
    assert_eq!(page.status(), 200, "the session shows the private page");

    // A webhook through SQS and the delivery function, verified with the Standard Webhooks library.
    let r = http
        .post(api("/docs/pets/webhooks"))
        .header("Authorization", &auth)
        .json(&json!({"url": format!("{}/ok", rx.base)}))
        .send()
        .expect("subscribe");
    assert_eq!(
        r.status(),
        201,
        "the loopback receiver is allowed under the emulator"
    );
    let secret = r.json::<Value>().expect("json")["secret"]
        .as_str()
        .expect("secret")
        .to_owned();
    http.post(format!("{}/_config", rx.base))
        .json(&json!({"path": "/ok", "secrets": [secret]}))
        .send()
        .expect("configure receiver");
    let v2 = deploy_pets("petstore-v2.yaml", &[]);
    cli_ok(&v2, "deploy v2");
    let got = deliveries(&rx.base, "/ok", 1, Duration::from_secs(90));
    assert_eq!(
        got.len(),
        1,
        "one delivery through SQS and webhook-delivery"
    );
    assert!(
        !got[0]["std_ok"].as_array().expect("std_ok").is_empty(),
        "verified: {}",
        got[0]
    );

    // A receiver that always fails: retried, then the message goes to the dead-letter queue.
    let r = http
        .post(api("/docs"))
        .header("Authorization", &auth)
        .json(&json!({"name": "Failing", "slug": "failing"}))
        .send()
        .expect("create doc");
    assert_eq!(r.status(), 201);
    let r = http
        .post(api("/docs/failing/webhooks"))
        .header("Authorization", &auth)
        .json(&json!({"url": format!("{}/fail", rx.base)}))
        .send()
        .expect("subscribe");
    assert_eq!(r.status(), 201);
    let secret = r.json::<Value>().expect("json")["secret"]
        .as_str()
        .expect("secret")
        .to_owned();
    let failures: Vec<Value> = (0..20).map(|_| json!([500, {}])).collect();
    http.post(format!("{}/_config", rx.base))
        .json(&json!({"path": "/fail", "secrets": [secret], "script": failures}))
        .send()
        .expect("configure receiver");
    let dlq = aws.function_env("SPECPRESS_DEAD_LETTER_QUEUE_URL");
    let endpoint = aws.function_env("AWS_ENDPOINT_URL");
    assert_eq!(dead_lettered(&endpoint, &dlq), 0);
    let definition =
        std::fs::read_to_string(specpress_e2e::fixtures().join("petstore.yaml")).expect("fixture");
    let r = http
        .post(api("/versions"))
        .header("Authorization", &auth)
        .json(&json!({"documentation": "failing", "definition": definition}))
        .send()
        .expect("deploy");
    assert_eq!(r.status(), 201);
    let attempts = deliveries(&rx.base, "/fail", 8, Duration::from_secs(120));
    assert_eq!(attempts.len(), 8, "every attempt of the schedule is made");
    let until = Instant::now() + Duration::from_secs(60);
    while dead_lettered(&endpoint, &dlq) == 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(500));
    }
    assert_eq!(
        dead_lettered(&endpoint, &dlq),
        1,
        "the exhausted message is dead-lettered"
    );
    assert!(
        attempts
            .iter()
            .all(|a| a["webhook_id"] == attempts[0]["webhook_id"]),
        "one delivery retried, one webhook-id"
    );

    // Ctrl-C stops everything the script started.
    assert!(aws.interrupt(), "aws-local.sh exits on Ctrl-C");
    assert!(
        http.get(format!("{base}/api/v1/ping")).send().is_err(),
        "the front is stopped"
    );
    assert!(
        http.get(format!("{endpoint}/moto-api/")).send().is_err(),
        "moto is stopped"
    );
}

#[test]
#[cfg_attr(
    any(missing_bump_cli, missing_corpus),
    ignore = "needs bump-cli (scripts/install-tools.sh) and the API corpus (SPECPRESS_CORPUS)"
)]
fn on_lambda_large_answers_are_compressed_or_refused_in_words_and_repeated_headers_survive() {
    let cli = bump_cli();
    let corpus = specpress_e2e::corpus();
    let aws = AwsLocal::start(&[]);
    let base = aws.base.clone();
    let auth = format!("Token {}", aws.token);
    let http = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .no_gzip()
        .no_brotli()
        .build()
        .expect("client");
    let github = corpus.join("openapi-3.0/github-api-23.0.2.json");

    // bump-cli sends GitHub's 13 MB description uncompressed: over API Gateway's 10 MB, refused before any function.
    let token = aws.token.clone();
    let refused = bump(
        &cli,
        &base,
        &[
            "deploy",
            github.to_str().expect("path"),
            "--doc",
            "gh",
            "--token",
            &token,
        ],
    );
    assert_ne!(refused.code, 0, "{}", refused.all());
    assert!(refused.all().contains("413"), "{}", refused.all());

    // The way around: the same body gzip-compressed (what docs/limits.md shows with curl).
    let r = http
        .post(format!("{base}/api/v1/docs"))
        .header("Authorization", &auth)
        .json(&json!({"name": "GitHub", "slug": "gh"}))
        .send()
        .expect("create doc");
    assert_eq!(r.status(), 201);
    let definition = std::fs::read_to_string(&github).expect("GitHub");
    let body = serde_json::to_vec(&json!({"documentation": "gh", "definition": definition}))
        .expect("json");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, &body).expect("gzip");
    let gz = gz.finish().expect("gzip");
    let r = http
        .post(format!("{base}/api/v1/versions"))
        .header("Authorization", &auth)
        .header("Content-Type", "application/octet-stream")
        .header("Content-Encoding", "gzip")
        .body(gz)
        .send()
        .expect("deploy");
    assert_eq!(r.status(), 201, "a gzip body fits: {:?}", r.text());

    // The 13 MB definition without Accept-Encoding: over Lambda's 6 MB, answered 406 in words (not a 500).
    let r = http
        .get(format!("{base}/doc/gh.json"))
        .send()
        .expect("download");
    assert_eq!(r.status(), 406);
    let message: Value = r.json().expect("JSON error");
    let text = message["message"].as_str().expect("message");
    assert!(text.contains("Accept-Encoding: gzip"), "{text}");
    // With gzip: the whole document, compressed under the limit.
    let r = http
        .get(format!("{base}/doc/gh.json"))
        .header("Accept-Encoding", "gzip")
        .send()
        .expect("download");
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()
            .get("content-encoding")
            .and_then(|v| v.to_str().ok()),
        Some("gzip")
    );
    let vary = vary_values(r.headers());
    assert!(
        vary.contains("accept-encoding"),
        "Vary keeps every value behind API Gateway: {vary}"
    );
    let compressed = r.bytes().expect("body");
    let mut plain = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(&compressed[..]),
        &mut plain,
    )
    .expect("gunzip");
    let doc: Value = serde_json::from_str(&plain).expect("the definition");
    assert!(
        doc["paths"].as_object().is_some_and(|p| p.len() > 500),
        "GitHub's paths"
    );

    // A page: compressed, with `Vary: Accept-Encoding` beside the page's own values.
    let r = http
        .get(format!("{base}/doc/gh"))
        .header("Accept-Encoding", "gzip")
        .send()
        .expect("page");
    assert_eq!(r.status(), 200);
    let vary = vary_values(r.headers());
    assert!(
        vary.contains("accept-encoding") && vary.contains("cookie"),
        "both Vary values survive: {vary}"
    );
}

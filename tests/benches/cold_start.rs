//! Cold and warm starts of every Lambda function under the Lambda runtime emulation (issue 31): scripts/aws-local.sh
//! provides moto, the table and queues from template.yaml, cargo lambda's runtime API and the API Gateway front, and
//! this benchmark starts each function's process itself, as Lambda starts a new execution environment, then times
//! (through cargo lambda's Invoke API, an HTTP function with the payload-2.0 event API Gateway sends) the first
//! request after the process starts (cold: process start, configuration, clients, the first storage
//! call) and `SPECPRESS_BENCH_WARM` (default 30) requests after it (warm), and reads the process's memory peak
//! (VmHWM). Last, the docs function is restarted and its first page of GitHub's description timed (the definition is
//! read from the table and parsed on that first request).
//!
//! Run: `cargo bench -p specpress-e2e --bench cold_start`, with `SPECPRESS_LAMBDA_BINARIES` naming the binaries to
//! run (default `target/lambda`, the output of `cargo lambda build --release`; plain `target/release` works too).

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::json;
use specpress_e2e::aws_local::AwsLocal;
use specpress_e2e::bench::{corpus_dir, env_num, ms, pct};
use specpress_e2e::repo_root;

/// One function's process, started as Lambda starts it.
struct Function {
    child: Child,
}

impl Drop for Function {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn peak_mb(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

struct Env {
    vars: Vec<(String, String)>,
    functions: Vec<(String, String, String)>,
    emulator: String,
    binaries: PathBuf,
    state: PathBuf,
}

impl Env {
    fn start(&self, name: &str) -> Function {
        let (_, memory, timeout) = self
            .functions
            .iter()
            .find(|(n, _, _)| n == name)
            .expect("a function of the template");
        let mut bin = self.binaries.join(name).join("bootstrap");
        if !bin.is_file() {
            bin = self.binaries.join(name);
        }
        let log = std::fs::File::create(self.state.join(format!("{name}.log"))).expect("log");
        let child = Command::new(&bin)
            .envs(self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("AWS_LAMBDA_FUNCTION_NAME", name)
            .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", memory)
            .env("SPECPRESS_LOCAL_FUNCTION_TIMEOUT", timeout)
            .env(
                "AWS_LAMBDA_RUNTIME_API",
                format!("{}/.rt/{name}", self.emulator),
            )
            .env("RUST_LOG", "warn")
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("{} starts: {e}", bin.display()));
        Function { child }
    }
}

/// One request of a function: an HTTP request through the front, or an invocation.
enum Probe {
    /// A GET of a path, with the organization token or without.
    Http(&'static str, bool),
    /// A POST of a path with a JSON body, from this site's own origin.
    Post(&'static str, serde_json::Value),
    Invoke(serde_json::Value),
}

fn main() {
    let Some(corpus) = corpus_dir() else {
        eprintln!(
            "the API corpus is missing (set SPECPRESS_CORPUS): no GitHub description to measure"
        );
        std::process::exit(1);
    };
    let binaries = std::env::var_os("SPECPRESS_LAMBDA_BINARIES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| repo_root().join("target"))
                .join("lambda")
        });
    assert!(
        binaries.is_dir(),
        "no binaries at {} (run `cargo lambda build --release` or set SPECPRESS_LAMBDA_BINARIES)",
        binaries.display()
    );
    let warm_n: usize = env_num("SPECPRESS_BENCH_WARM", 30);
    // The script without functions: this benchmark starts them.
    let mut aws = AwsLocal::start(&[("AWS_LOCAL_EXTERNAL_FUNCTIONS", "1")]);
    let base = aws.base.clone();
    let token = aws.token.clone();
    let vars = aws.functions_env();
    let functions = std::fs::read_to_string(aws.state().join("functions.txt"))
        .expect("functions")
        .lines()
        .filter_map(|l| {
            let mut p = l.split_whitespace();
            Some((
                p.next()?.to_owned(),
                p.next()?.to_owned(),
                p.next()?.to_owned(),
            ))
        })
        .collect();
    let env = Env {
        vars,
        functions,
        emulator: std::fs::read_to_string(aws.state().join("emulator.url"))
            .expect("emulator.url")
            .trim()
            .to_owned(),
        binaries,
        state: aws.state().to_path_buf(),
    };
    let http = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .no_gzip()
        .build()
        .expect("client");
    let auth = format!("Token {token}");

    // Deploy GitHub's description first (gzip: bump-cli's uncompressed 14 MB body is over API Gateway's 10 MB).
    let deploy = env.start("deploy");
    let github =
        std::fs::read_to_string(corpus.join("openapi-3.0/github-api-23.0.2.json")).expect("GitHub");
    let body =
        serde_json::to_vec(&json!({"documentation": "gh", "definition": github})).expect("json");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&body).expect("gzip");
    let gz = gz.finish().expect("gzip");
    let r = http
        .post(format!("{base}/api/v1/docs"))
        .header("Authorization", &auth)
        .json(&json!({"name": "GitHub", "slug": "gh"}))
        .send()
        .expect("create doc");
    assert_eq!(r.status(), 201, "documentation created");
    let t = Instant::now();
    let r = http
        .post(format!("{base}/api/v1/versions"))
        .header("Authorization", &auth)
        .header("Content-Type", "application/json")
        .header("Content-Encoding", "gzip")
        .body(gz.clone())
        .send()
        .expect("deploy");
    assert_eq!(r.status(), 201, "GitHub deployed: {:?}", r.text());
    println!(
        "GitHub's description deployed through the front: {} bytes gzipped, {:.0} ms",
        gz.len(),
        ms(t.elapsed())
    );
    drop(deploy);

    let probes: Vec<(&str, Probe)> = vec![
        ("deploy", Probe::Http("/api/v1/ping", false)),
        ("branches", Probe::Http("/api/v1/docs/gh/branches", true)),
        ("hubs", Probe::Http("/api/v1/hubs", true)),
        ("docs", Probe::Http("/doc/gh/llms.txt", false)),
        (
            "docs-mcp",
            Probe::Post(
                "/doc/gh/mcp",
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
                    "io.modelcontextprotocol/clientCapabilities": {}}}}),
            ),
        ),
        // GitHub's documentation does not turn the proxy on: its 404, after the documentation is read.
        (
            "try-it",
            Probe::Post(
                "/doc/gh/try",
                json!({"method": "GET", "url": "https://api.github.com/", "headers": []}),
            ),
        ),
        (
            "diffs",
            Probe::Http("/api/v1/diffs/00000000-0000-0000-0000-000000000000", false),
        ),
        ("webhooks", Probe::Http("/api/v1/docs/gh/webhooks", true)),
        ("mcp-servers", Probe::Http("/api/v1/mcp-servers", true)),
        ("workflow-mcp", Probe::Http("/mcp/none", false)),
        ("webhook-delivery", Probe::Invoke(json!({"Records": []}))),
        (
            "outbox-sweeper",
            Probe::Invoke(
                json!({"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}}),
            ),
        ),
    ];
    // Each request goes to the function through the emulator's Invoke API, an HTTP one as the payload-2.0 event API
    // Gateway sends: what is timed is the Lambda runtime path and the function, not a front.
    let request = |name: &str, probe: &Probe| -> (u16, Duration) {
        let http_event = |method: &str,
                          path: &str,
                          headers: serde_json::Value,
                          body: Option<String>| {
            json!({
                "version": "2.0", "routeKey": "$default", "rawPath": path, "rawQueryString": "",
                "headers": headers, "isBase64Encoded": false, "body": body,
                "requestContext": {"accountId": "123456789012", "apiId": "local", "domainName": "127.0.0.1",
                    "domainPrefix": "127", "requestId": "bench", "routeKey": "$default", "stage": "$default",
                    "time": "28/Nov/2026:00:00:00 +0000", "timeEpoch": 0,
                    "http": {"method": method, "path": path, "protocol": "HTTP/1.1",
                        "sourceIp": "127.0.0.1", "userAgent": "bench"}}
            })
        };
        let event = match probe {
            Probe::Http(path, with_token) => {
                let mut headers =
                    json!({"host": "127.0.0.1", "accept": "*/*", "x-forwarded-proto": "http"});
                if *with_token {
                    headers["authorization"] = json!(auth);
                }
                http_event("GET", path, headers, None)
            }
            Probe::Post(path, body) => {
                let headers = json!({"host": "127.0.0.1", "accept": "application/json, text/event-stream",
                    "content-type": "application/json", "origin": "http://127.0.0.1",
                    "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list",
                    "x-forwarded-proto": "http"});
                http_event("POST", path, headers, Some(body.to_string()))
            }
            Probe::Invoke(event) => event.clone(),
        };
        let t = Instant::now();
        let answer: serde_json::Value = http
            .post(format!(
                "{}/2015-03-31/functions/{name}/invocations",
                env.emulator
            ))
            .json(&event)
            .send()
            .and_then(|r| r.json())
            .unwrap_or_default();
        let elapsed = t.elapsed();
        let status = match probe {
            Probe::Http(..) | Probe::Post(..) => answer["statusCode"].as_u64().unwrap_or(0) as u16,
            Probe::Invoke(_) => 200,
        };
        (status, elapsed)
    };

    println!(
        "\n{:<18} {:>7} {:>10} {:>10} {:>10} {:>9}",
        "function", "status", "cold ms", "warm p50", "warm p95", "peak MB"
    );
    for (name, probe) in &probes {
        let f = env.start(name);
        let (status, cold) = request(name, probe);
        let mut warm: Vec<Duration> = (0..warm_n).map(|_| request(name, probe).1).collect();
        warm.sort();
        println!(
            "{:<18} {:>7} {:>10.1} {:>10.2} {:>10.2} {:>9.1}",
            name,
            status,
            ms(cold),
            ms(pct(&warm, 0.5)),
            ms(pct(&warm, 0.95)),
            peak_mb(f.child.id())
        );
    }

    // The docs function's first GitHub page in a new process: the definition is read and parsed on that request.
    let page = "/doc/gh/operation/operation-post-repos-owner-repo-pulls";
    let mut firsts = Vec::new();
    let mut peaks = Vec::new();
    let mut warm = Vec::new();
    let rounds: usize = env_num("SPECPRESS_BENCH_ROUNDS", 3);
    for _ in 0..rounds {
        let f = env.start("docs");
        let (status, first) = request("docs", &Probe::Http(page, false));
        assert_eq!(status, 200, "GitHub's page renders");
        firsts.push(first);
        for _ in 0..warm_n {
            warm.push(request("docs", &Probe::Http(page, false)).1);
        }
        peaks.push(peak_mb(f.child.id()));
    }
    firsts.sort();
    warm.sort();
    println!(
        "\ndocs, GitHub `POST /repos/{{owner}}/{{repo}}/pulls` in a new process ({rounds} processes): first request \
         median {:.0} ms (min {:.0}, max {:.0}); warm p50 {:.2} ms, p95 {:.2} ms; peak {:.0} MB",
        ms(pct(&firsts, 0.5)),
        ms(firsts[0]),
        ms(firsts[firsts.len() - 1]),
        ms(pct(&warm, 0.5)),
        ms(pct(&warm, 0.95)),
        peaks.iter().cloned().fold(0.0, f64::max)
    );
    aws.interrupt();
}

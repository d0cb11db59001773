//! Warm tool-call latency of a documentation's MCP server (issue 28) on the real `specpress serve`, release build.
//!
//! `cargo bench -p specpress-e2e --bench mcp` (env: `SPECPRESS_CORPUS`, default `../shared/corpus`; `SPECPRESS_BIN`,
//! default `target/release/specpress`, built if missing; `BENCH_ROUNDS`, default 30; `BENCH_SECONDS`, a bound on the
//! warm rounds, default 180; `BENCH_IDENTITY=1` asks for uncompressed answers instead of gzip).
//!
//! GitHub's REST description (13 MB) is deployed twice as the documentation `github`, 22.0.0 then 23.0.2, so that it
//! has two releases with a real diff between them. The MCP rate limit is turned off for the run
//! (`SPECPRESS_MCP_RATE_PER_MINUTE=0`): the bench measures the tools, not the limiter. Every tool is called once to
//! warm it (the first calls parse the document, build its search index and diff the two releases), its answer
//! checked (a JSON-RPC result with `structuredContent`, no `isError`); then `BENCH_ROUNDS` interleaved rounds, each
//! making one realistic call per tool plus a GET of the warm HTML page of the operation the calls are about
//! (`POST /repos/{owner}/{repo}/pulls`), one client on a kept-alive connection, each request timed from sending to
//! the last byte of its body. Requests are hand-written JSON-RPC in the protocol revision 2026-07-28 (stateless: no
//! `initialize`; the client's revision, name and capabilities travel in each request's `_meta`, and the method and
//! tool name in the `Mcp-Method` and `Mcp-Name` headers, which rmcp requires of that revision). Both the tool calls
//! and the page ask for gzip, as the official clients and browsers do. Printed: p50, p95 and max per tool and for
//! the page, the answers' sizes, and for `search` and `get_pages` p95 against the page's p95 and the 20 ms goal.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use specpress_e2e::Server;
use specpress_e2e::bench::{client, corpus_dir, env_num, ms, pct, release_binary};

const ORG_TOKEN: &str = "mcp-bench-organization-token-0000000";
const SLUG: &str = "github";
/// The two releases, oldest first.
const RELEASES: [&str; 2] = [
    "openapi-3.0/github-api-22.0.0.json",
    "openapi-3.0/github-api-23.0.2.json",
];
const PROTOCOL: &str = "2026-07-28";
/// The operation the calls are about.
const OPERATION: &str = "POST /repos/{owner}/{repo}/pulls";
/// Its definition: `/` is `~1` in a JSON pointer token, `{` and `}` stay as they are.
const OPERATION_POINTER: &str = "/paths/~1repos~1{owner}~1{repo}~1pulls/post";
/// What the search calls look for, one per round in turn.
const QUERIES: [&str; 3] = ["pull request", "create a repository", "list issues"];
/// The goal of issue 28 for `search` and `get_pages`.
const GOAL_P95_MS: f64 = 20.0;

/// Deploys `text` as the documentation [`SLUG`] (created on the first), answering the time it took.
fn deploy(http: &reqwest::blocking::Client, base: &str, text: &str) -> Duration {
    let body =
        json!({"documentation": SLUG, "auto_create_documentation": true, "definition": text});
    let t = Instant::now();
    let r = http
        .post(format!("{base}/api/v1/versions"))
        .header("Authorization", format!("Token {ORG_TOKEN}"))
        .json(&body)
        .send()
        .expect("deploy answers");
    let took = t.elapsed();
    let status = r.status().as_u16();
    assert!(
        status == 201 || status == 204,
        "deploy: {status} {}",
        r.text().unwrap_or_default()
    );
    took
}

/// One answer: its status, bytes as sent, the same decompressed, and the time from sending to the last byte.
struct Answer {
    status: u16,
    wire: usize,
    body: String,
    took: Duration,
}

/// Reads an answer to the end, then (untimed) decompresses it.
fn finish(r: reqwest::blocking::Response, t: Instant) -> Answer {
    let status = r.status().as_u16();
    let gzip = r
        .headers()
        .get("content-encoding")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"gzip"));
    let bytes = r.bytes().map(|b| b.to_vec()).unwrap_or_default();
    let took = t.elapsed();
    let body = if gzip {
        use std::io::Read;
        let mut s = String::new();
        flate2::read::GzDecoder::new(bytes.as_slice())
            .read_to_string(&mut s)
            .expect("a gzip answer decompresses");
        s
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Answer {
        status,
        wire: bytes.len(),
        body,
        took,
    }
}

/// A hand-written MCP client: stateless JSON-RPC over one kept-alive HTTP client.
struct Mcp {
    http: reqwest::blocking::Client,
    url: String,
    encoding: &'static str,
    next_id: u64,
}

impl Mcp {
    /// `tools/call` of `tool`: the answer as received (timed), unchecked.
    fn call_raw(&mut self, tool: &str, arguments: &Value) -> Answer {
        self.next_id += 1;
        let body = json!({
            "jsonrpc": "2.0",
            "id": self.next_id,
            "method": "tools/call",
            "params": {
                "name": tool,
                "arguments": arguments,
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": PROTOCOL,
                    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        })
        .to_string();
        let t = Instant::now();
        let r = self
            .http
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Accept-Encoding", self.encoding)
            .header("MCP-Protocol-Version", PROTOCOL)
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", tool)
            .body(body)
            .send()
            .expect("MCP request answers");
        finish(r, t)
    }

    /// `tools/call` of `tool`, checked: a JSON-RPC result with `structuredContent` and no `isError`, or a panic
    /// that prints the answer. Answers the structured content and the answer.
    fn call(&mut self, tool: &str, arguments: &Value) -> (Value, Answer) {
        let a = self.call_raw(tool, arguments);
        let parsed: Option<Value> = serde_json::from_str(&a.body).ok();
        let result = parsed
            .as_ref()
            .filter(|v| v["jsonrpc"] == "2.0" && v["id"] == self.next_id)
            .and_then(|v| v.get("result"));
        let ok = a.status == 200
            && result.is_some_and(|r| {
                r.get("structuredContent").is_some_and(Value::is_object)
                    && r.get("isError").and_then(Value::as_bool) != Some(true)
            });
        if !ok {
            let shown: String = a.body.chars().take(4000).collect();
            panic!(
                "{tool} {arguments}: not a successful tool result (HTTP {}):\n{shown}",
                a.status
            );
        }
        let structured = result.map(|r| r["structuredContent"].clone());
        (structured.unwrap_or_default(), a)
    }
}

/// GET `path` of the server: the answer, timed.
fn get(http: &reqwest::blocking::Client, base: &str, path: &str, encoding: &str) -> Answer {
    let t = Instant::now();
    let r = http
        .get(format!("{base}{path}"))
        .header("Accept-Encoding", encoding)
        .send()
        .expect("GET answers");
    finish(r, t)
}

/// The path of an absolute URL of the server (from `/doc/`).
fn path_of(url: &str) -> String {
    url.find("/doc/")
        .map_or_else(|| url.to_owned(), |i| url[i..].to_owned())
}

/// The search results of `structured` of kind operation: (title, context, url).
fn operations(structured: &Value) -> Vec<(String, String, String)> {
    structured["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["kind"] == "operation")
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
            (s("title"), s("context"), s("url"))
        })
        .collect()
}

/// One measured request of a round.
#[derive(Clone, Copy, PartialEq)]
enum Call {
    Search,
    GetPages,
    ListPages,
    ListChanges,
    GetChange,
    History,
    Compare,
    Definition,
    Page,
}

impl Call {
    const ALL: [Call; 9] = [
        Call::Search,
        Call::GetPages,
        Call::ListPages,
        Call::ListChanges,
        Call::GetChange,
        Call::History,
        Call::Compare,
        Call::Definition,
        Call::Page,
    ];

    fn name(self) -> &'static str {
        match self {
            Call::Search => "search",
            Call::GetPages => "get_pages",
            Call::ListPages => "list_pages",
            Call::ListChanges => "list_changes",
            Call::GetChange => "get_change",
            Call::History => "operation_history",
            Call::Compare => "compare",
            Call::Definition => "get_definition",
            Call::Page => "HTML page (GET)",
        }
    }
}

/// What the calls ask for, found by a first search and listing.
struct Plan {
    page_urls: Vec<String>,
    page_path: String,
    newest: String,
    previous: String,
}

impl Plan {
    /// The tool and arguments of `call` in round `round` (`None` for the HTML page).
    fn arguments(&self, call: Call, round: usize) -> Option<(&'static str, Value)> {
        let args = match call {
            Call::Search => json!({"query": QUERIES[round % QUERIES.len()]}),
            Call::GetPages => json!({"urls": self.page_urls}),
            Call::ListPages | Call::ListChanges => json!({}),
            Call::GetChange => json!({"id": self.newest}),
            Call::History => json!({"operation": OPERATION}),
            Call::Compare => json!({"from": self.previous, "to": self.newest}),
            Call::Definition => json!({"pointer": OPERATION_POINTER}),
            Call::Page => return None,
        };
        Some((call.name(), args))
    }
}

/// The machine's load averages (1, 5, 15 minutes), as `/proc/loadavg` gives them: other work on the machine shows.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn median_usize(mut v: Vec<usize>) -> usize {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

fn kb(bytes: usize) -> String {
    format!("{:.1}", bytes as f64 / 1024.0)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let Some(corpus) = corpus_dir() else {
        println!(
            "mcp bench: the API corpus is missing (set SPECPRESS_CORPUS to the folder holding openapi-3.0/ etc.); nothing measured"
        );
        return;
    };
    let started = Instant::now();
    let rounds: usize = env_num("BENCH_ROUNDS", 30);
    let bound = Duration::from_secs(env_num("BENCH_SECONDS", 180));
    let encoding = if env_num("BENCH_IDENTITY", 0) == 1 {
        "identity"
    } else {
        "gzip"
    };
    let texts: Vec<String> = RELEASES
        .iter()
        .map(|rel| {
            let path = corpus.join(rel);
            std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
        })
        .collect();
    let bin = release_binary();
    println!("load average before: {}", load());
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Server::start_binary(
        &bin,
        dir.path(),
        &[
            ("SPECPRESS_ORG_TOKEN", ORG_TOKEN),
            ("SPECPRESS_MCP_RATE_PER_MINUTE", "0"),
        ],
    );
    let base = server.base_url.clone();
    let http = client();
    for (rel, text) in RELEASES.iter().zip(&texts) {
        let d = deploy(&http, &base, text);
        println!(
            "deployed {rel} ({:.1} MB) as `{SLUG}` in {:.0} ms",
            text.len() as f64 / 1e6,
            ms(d)
        );
    }
    let mut mcp = Mcp {
        http: http.clone(),
        url: format!("{base}/doc/{SLUG}/mcp"),
        encoding,
        next_id: 0,
    };

    // Warm-up: every tool once (first calls parse, index, diff), answers checked; what the rounds ask for.
    println!("\nfirst calls (cold caches), each answer checked:");
    let first = |name: &str, a: &Answer| {
        println!(
            "  {name:<18} {:>8.0} ms  {:>7} KB body",
            ms(a.took),
            kb(a.body.len())
        );
    };
    let (listed, a) = mcp.call("list_pages", &json!({}));
    first("list_pages", &a);
    assert!(
        listed["pages"].as_array().is_some_and(|p| !p.is_empty()),
        "list_pages lists no page: {listed}"
    );
    let (found, a) = mcp.call(
        "search",
        &json!({"query": "pull request", "kind": "operation"}),
    );
    first("search", &a);
    let page_urls: Vec<String> = operations(&found)
        .into_iter()
        .take(3)
        .map(|(_, _, url)| url)
        .collect();
    assert_eq!(
        page_urls.len(),
        3,
        "3 operations for `pull request`: {found}"
    );
    let (create, _) = mcp.call(
        "search",
        &json!({"query": "create a pull request", "kind": "operation"}),
    );
    let page_path = operations(&create)
        .into_iter()
        .find(|(_, context, _)| context.eq_ignore_ascii_case(OPERATION))
        .map(|(_, _, url)| path_of(&url))
        .unwrap_or_else(|| panic!("no search result is {OPERATION}: {create}"));
    let (changes, a) = mcp.call("list_changes", &json!({}));
    first("list_changes", &a);
    let ids: Vec<String> = changes["releases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["id"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(ids.len(), 2, "two releases: {changes}");
    let plan = Plan {
        page_urls,
        page_path,
        newest: ids[0].clone(),
        previous: ids[1].clone(),
    };
    let (pages, a) = mcp.call("get_pages", &json!({"urls": plan.page_urls}));
    first("get_pages", &a);
    let markdown = pages["pages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["markdown"].is_string())
        .count();
    assert_eq!(markdown, 3, "get_pages gives 3 pages of Markdown: {pages}");
    let (change, a) = mcp.call("get_change", &json!({"id": plan.newest}));
    first("get_change", &a);
    let (history, a) = mcp.call("operation_history", &json!({"operation": OPERATION}));
    first("operation_history", &a);
    let (compared, a) = mcp.call(
        "compare",
        &json!({"from": plan.previous, "to": plan.newest}),
    );
    first("compare", &a);
    let (definition, a) = mcp.call("get_definition", &json!({"pointer": OPERATION_POINTER}));
    first("get_definition", &a);
    assert!(
        definition["value"]["operationId"] == "pulls/create",
        "the pointer {OPERATION_POINTER} names the operation pulls/create: {definition}"
    );
    let page = get(&http, &base, &plan.page_path, encoding);
    assert_eq!(page.status, 200, "{}", plan.page_path);
    first("HTML page", &page);
    println!(
        "  newest release {} ({} against {}: {} changed elements, {} omitted; compare: {} + {} omitted); history of \
         {OPERATION}: {} entries; page {}",
        plan.newest,
        change["kind"],
        plan.previous,
        change["changes"].as_array().map_or(0, Vec::len),
        change["omitted"],
        compared["changes"].as_array().map_or(0, Vec::len),
        compared["omitted"],
        history["entries"].as_array().map_or(0, Vec::len),
        plan.page_path
    );
    // A second time each: a cache filled on a tool's first call (a diff, a digest) is filled now.
    for call in Call::ALL {
        if let Some((tool, args)) = plan.arguments(call, 0) {
            mcp.call(tool, &args);
        }
    }
    let warmed = started.elapsed();

    // The rounds: every call once per round, the order rotated from round to round.
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); Call::ALL.len()];
    let mut wire: Vec<Vec<usize>> = vec![Vec::new(); Call::ALL.len()];
    let mut json_bytes: Vec<Vec<usize>> = vec![Vec::new(); Call::ALL.len()];
    let t = Instant::now();
    let mut done = 0;
    for round in 0..rounds {
        if t.elapsed() > bound {
            break;
        }
        for k in 0..Call::ALL.len() {
            let i = (k + round) % Call::ALL.len();
            let call = Call::ALL[i];
            let a = match plan.arguments(call, round) {
                Some((tool, args)) => mcp.call(tool, &args).1,
                None => {
                    let a = get(&http, &base, &plan.page_path, encoding);
                    assert_eq!(a.status, 200, "{}", plan.page_path);
                    a
                }
            };
            times[i].push(a.took);
            wire[i].push(a.wire);
            json_bytes[i].push(a.body.len());
        }
        done += 1;
    }
    let measured = t.elapsed();

    println!(
        "\nwarm latency over HTTP, {done} interleaved rounds (of {rounds} asked), one kept-alive client, Accept-Encoding: {encoding}"
    );
    println!(
        "{:<18} {:>9} {:>9} {:>9} {:>10} {:>10}",
        "call", "p50", "p95", "max", "sent KB", "body KB"
    );
    for s in &mut times {
        s.sort_unstable();
    }
    for (i, call) in Call::ALL.iter().enumerate() {
        let s = &times[i];
        println!(
            "{:<18} {:>7.2}ms {:>7.2}ms {:>7.2}ms {:>10} {:>10}",
            call.name(),
            ms(pct(s, 0.5)),
            ms(pct(s, 0.95)),
            ms(*s.last().unwrap_or(&Duration::ZERO)),
            kb(median_usize(wire[i].clone())),
            kb(median_usize(json_bytes[i].clone()))
        );
    }
    let page_i = Call::ALL.len() - 1;
    let page_p95 = pct(&times[page_i], 0.95);
    println!(
        "\nagainst the warm HTML page of {OPERATION} ({}; p50 {:.2} ms, p95 {:.2} ms), goal p95 <= {GOAL_P95_MS} ms:",
        plan.page_path,
        ms(pct(&times[page_i], 0.5)),
        ms(page_p95)
    );
    for call in [Call::Search, Call::GetPages] {
        let i = Call::ALL.iter().position(|c| *c == call).unwrap_or(0);
        let p95 = pct(&times[i], 0.95);
        println!(
            "  {:<10} p95 {:>6.2} ms = {:.2}x the page's p95; goal {}",
            call.name(),
            ms(p95),
            p95.as_secs_f64() / page_p95.as_secs_f64().max(1e-9),
            if ms(p95) <= GOAL_P95_MS {
                "met"
            } else {
                "NOT met"
            }
        );
    }
    server.stop();
    println!(
        "\ntotal {:.1} s (deploys and warm-up {:.1} s, rounds {:.1} s); load average after: {}",
        started.elapsed().as_secs_f64(),
        warmed.as_secs_f64(),
        measured.as_secs_f64(),
        load()
    );
}

//! A dump of what the public site, the documentation MCP servers and "Try it" answer for the whole corpus, to show
//! that a refactoring of them changes nothing: run it on the code before and after, then `diff -r BEFORE AFTER`.
//!
//! `cargo run --release -p specpress-e2e --example site_dump -- OUT_DIR` (env: `SPECPRESS_BIN`, the `specpress`
//! binary to run, default the release build of this tree; `SPECPRESS_CORPUS`, default `../shared/corpus`).
//!
//! It starts `specpress serve` on a fresh data directory, deploys every corpus document (each family's earlier
//! version then its later one, so every documentation has a release with a real diff; the families in two hubs),
//! a documentation with a branch, a private one, one whose "Try it" goes through the proxy to a local API, a
//! preview and a public diff; then fetches, in a fixed order: every changelog, feed, change page (HTML and JSON)
//! and compare page first (so that every release digest is stored before a page reads a history), then every page
//! of every documentation (from its sitemap, or the branch server's `list_pages`) as HTML and Markdown, the history
//! page of every operation, webhook, schema and channel, the definitions, `llms.txt` and sitemaps, searches, hubs,
//! redirects, errors, sign-in, validators and compression; every tool of the MCP servers of a documentation, a
//! branch and a hub (and their errors); the proxy's answers and refusals; last, the failed-credential limit.
//!
//! Each answer is written as `OUT_DIR/bodies/NNNNN` (its body) and one line of `OUT_DIR/index.tsv` (method, path,
//! status, the headers that carry meaning). What differs from run to run is replaced by a placeholder before
//! anything is written: the server's and the local API's ports, the ids and tokens the API handed out, any other
//! UUID, the first 8 characters of a version id, timestamps (RFC 3339, the pages' `YYYY-MM-DD HH:MM UTC`, RFC 2822),
//! `time_ms`, cookies. `ETag`s are left out (they hold the build's identity).
//!
//! `site_dump --normalize DIR` applies the placeholders' patterns again to a dump already written (after they were
//! extended), so that two dumps taken apart compare.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use axum::Router;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use regex::Regex;
use reqwest::Method;
use reqwest::blocking::Client;
use serde_json::{Value, json};
use specpress_e2e::bench::release_binary;
use specpress_e2e::{Server, corpus, fixtures, temp_dir};

const ORG: &str = "site-dump-organization-token-0000000042";
const PROTOCOL: &str = "2026-07-28";

/// The corpus's families: (documentation, hub, [earlier, later]).
const FAMILIES: [(&str, &str, [&str; 2]); 9] = [
    (
        "github",
        "corpus",
        [
            "openapi-3.0/github-api-22.0.0.json",
            "openapi-3.0/github-api-23.0.2.json",
        ],
    ),
    (
        "stripe",
        "corpus",
        [
            "openapi-3.0/stripe-2022-02-08.json",
            "openapi-3.0/stripe-2022-04-12.json",
        ],
    ),
    (
        "stripe-yaml",
        "corpus",
        [
            "openapi-3.0/stripe-2023-09-11.yaml",
            "openapi-3.0/stripe-2023-09-12.yaml",
        ],
    ),
    (
        "openai",
        "corpus",
        [
            "openapi-3.1/openai-2026-08-12.json",
            "openapi-3.1/openai-2026-08-21.json",
        ],
    ),
    (
        "openai-yaml",
        "corpus",
        [
            "openapi-3.1/openai-2026-08-12.yaml",
            "openapi-3.1/openai-2026-08-21.yaml",
        ],
    ),
    (
        "kubernetes",
        "corpus",
        [
            "swagger-2.0/kubernetes-1.35.json",
            "swagger-2.0/kubernetes-1.36.json",
        ],
    ),
    (
        "streetlights-2",
        "events",
        [
            "asyncapi/streetlights-kafka-2.3.0.yml",
            "asyncapi/streetlights-kafka-2.5.0.yml",
        ],
    ),
    (
        "streetlights-3",
        "events",
        [
            "asyncapi/streetlights-kafka-3.0.0.yml",
            "asyncapi/streetlights-kafka-3.1.0.yml",
        ],
    ),
    (
        "slack",
        "events",
        [
            "asyncapi/slack-rtm-3.0.0.yml",
            "asyncapi/slack-rtm-3.1.0.yml",
        ],
    ),
];

/// Replaces what differs from run to run.
struct Normalizer {
    /// Exact strings and their placeholders, longest first.
    exact: Vec<(String, String)>,
    /// First 8 characters of every version id.
    shorts: Vec<String>,
    patterns: Vec<(Regex, &'static str)>,
}

impl Normalizer {
    fn new() -> Self {
        let r = |p: &str| Regex::new(p).expect("pattern");
        Normalizer {
            exact: Vec::new(),
            shorts: Vec::new(),
            patterns: vec![
                (
                    r("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
                    "<uuid>",
                ),
                (
                    r(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)"),
                    "<time>",
                ),
                (r(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC"), "<human-time>"),
                (
                    r(
                        r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d ([+-]\d{4}|GMT)",
                    ),
                    "<rfc2822-time>",
                ),
                // The same time as Markdown escapes it (`2026\-12\-07T08\:53\:29Z`), also inside JSON strings.
                (
                    r(r"\d{4}\\+-\d\d\\+-\d\dT\d\d\\+:\d\d\\+:\d\d(\\+\.\d+)?Z"),
                    "<time>",
                ),
                // Tokens the API hands out before the dump can learn them (the answer that creates one).
                (
                    r(r"sp_(org|hub|doc|mcp)_[A-Za-z0-9]{20,}"),
                    "sp_${1}_<token>",
                ),
                (r(r#""time_ms":\d+"#), r#""time_ms":0"#),
                (r(r"(sp_session|specpress_session)=[^;\s]+"), "$1=<cookie>"),
                // A validator sent back (it holds the build's identity).
                (r(r#"If-None-Match: "[0-9a-f]+""#), "If-None-Match: <etag>"),
            ],
        }
    }

    /// `value` is written as `name` from now on.
    fn name(&mut self, value: &str, name: &str) {
        if value.is_empty() {
            return;
        }
        self.exact.push((value.to_owned(), name.to_owned()));
        self.exact.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
    }

    /// A version id: its placeholder, and its first 8 characters as `<short>`.
    fn version(&mut self, id: &str, name: &str) {
        self.name(id, name);
        if let Some(s) = id.get(..8) {
            self.shorts.push(s.to_owned());
        }
    }

    fn apply(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (v, n) in &self.exact {
            if out.contains(v.as_str()) {
                out = out.replace(v.as_str(), n);
            }
        }
        for (re, with) in &self.patterns {
            if re.is_match(&out) {
                out = re.replace_all(&out, *with).into_owned();
            }
        }
        for s in &self.shorts {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), "<short>");
            }
        }
        out
    }
}

/// The headers written to the index.
const HEADERS: [&str; 12] = [
    "content-type",
    "content-encoding",
    "cache-control",
    "location",
    "vary",
    "x-robots-tag",
    "content-security-policy",
    "www-authenticate",
    "retry-after",
    "set-cookie",
    "allow",
    "x-content-type-options",
];

struct Dump {
    http: Client,
    base: String,
    out: PathBuf,
    n: usize,
    index: std::io::BufWriter<std::fs::File>,
    norm: Normalizer,
}

/// One answer as read.
struct Got {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
}

impl Got {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

impl Dump {
    fn url(&self, p: &str) -> String {
        if p.starts_with("http") {
            p.to_owned()
        } else {
            format!("{}{p}", self.base)
        }
    }

    /// Sends a request and records its answer.
    fn send(
        &mut self,
        method: Method,
        p: &str,
        headers: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> Got {
        let mut rb = self.http.request(method.clone(), self.url(p));
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        if let Some(b) = body {
            rb = rb.body(b);
        }
        let r = rb.send().expect("the server answers");
        let got = Got {
            status: r.status().as_u16(),
            headers: r.headers().clone(),
            body: r.bytes().map(|b| b.to_vec()).unwrap_or_default(),
        };
        self.record(&method, p, headers, &got);
        got
    }

    fn record(&mut self, method: &Method, p: &str, sent: &[(&str, &str)], got: &Got) {
        self.n += 1;
        let mut line = format!(
            "{:05}\t{method}\t{}",
            self.n,
            self.norm.apply(&p.replace(&self.base, ""))
        );
        for (k, v) in sent {
            if !k.eq_ignore_ascii_case("content-type") && !k.eq_ignore_ascii_case("accept") {
                let _ = write!(line, " [{k}: {}]", self.norm.apply(v));
            }
        }
        let _ = write!(line, "\t{}", got.status);
        for h in HEADERS {
            for v in got.headers.get_all(h) {
                let v = String::from_utf8_lossy(v.as_bytes());
                let _ = write!(line, "\t{h}: {}", self.norm.apply(&v));
            }
        }
        let body = match std::str::from_utf8(&got.body) {
            Ok(text) => self.norm.apply(text).into_bytes(),
            Err(_) => got.body.clone(),
        };
        let _ = write!(line, "\tbytes: {}", body.len());
        writeln!(self.index, "{line}").expect("index written");
        std::fs::write(self.out.join("bodies").join(format!("{:05}", self.n)), body)
            .expect("body written");
    }

    fn get(&mut self, p: &str) -> Got {
        self.send(Method::GET, p, &[], None)
    }

    fn get_with(&mut self, p: &str, headers: &[(&str, &str)]) -> Got {
        self.send(Method::GET, p, headers, None)
    }

    /// An API call with the organization token (recorded too: the API's answers are part of what is compared).
    fn api(&mut self, method: Method, p: &str, body: Option<Value>) -> Value {
        let token = format!("Token {ORG}");
        let mut headers = vec![("Authorization", token.as_str())];
        if body.is_some() {
            headers.push(("Content-Type", "application/json"));
        }
        let body = body.map(|b| b.to_string().into_bytes());
        let got = self.send(method, p, &headers, body);
        got.json()
    }

    /// Deploys without recording (the answers hold the ids the normalizer learns from).
    fn deploy(&mut self, doc: &str, branch: Option<&str>, definition: &str) -> String {
        let mut body = json!({"documentation": doc, "definition": definition});
        if let Some(b) = branch {
            body["branch_name"] = json!(b);
        }
        let r = self
            .http
            .post(self.url("/api/v1/versions"))
            .header("Authorization", format!("Token {ORG}"))
            .json(&body)
            .send()
            .expect("deploy answers");
        let status = r.status().as_u16();
        let v: Value = r.json().unwrap_or(Value::Null);
        assert_eq!(status, 201, "deploy {doc}: {v}");
        v["id"].as_str().expect("a version id").to_owned()
    }

    /// An MCP `tools/list` or `tools/call` (stateless, as the protocol revision [`PROTOCOL`] sends it).
    fn mcp(&mut self, p: &str, auth: Option<&str>, method: &str, params: Value) -> Value {
        let mut params = params;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": PROTOCOL,
            "io.modelcontextprotocol/clientInfo": {"name": "site-dump", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        let name = params["name"].as_str().unwrap_or_default().to_owned();
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", PROTOCOL),
            ("Mcp-Method", method),
        ];
        if !name.is_empty() {
            headers.push(("Mcp-Name", name.as_str()));
        }
        let bearer = auth.map(|t| format!("Bearer {t}"));
        if let Some(b) = &bearer {
            headers.push(("Authorization", b.as_str()));
        }
        let got = self.send(
            Method::POST,
            p,
            &headers,
            Some(body.to_string().into_bytes()),
        );
        got.json()
    }

    fn tool(&mut self, p: &str, auth: Option<&str>, tool: &str, arguments: Value) -> Value {
        let v = self.mcp(
            p,
            auth,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        );
        v["result"]["structuredContent"].clone()
    }
}

/// `<loc>` values of a sitemap.
fn locations(xml: &str) -> Vec<String> {
    xml.split("<loc>")
        .skip(1)
        .filter_map(|s| s.split("</loc>").next())
        .map(|s| s.replace("&amp;", "&"))
        .collect()
}

fn path_of(base: &str, url: &str) -> String {
    url.strip_prefix(base).unwrap_or(url).to_owned()
}

/// Whether a page path has a history page.
fn has_history(page: &str) -> bool {
    ["operation/", "webhook/", "schema/", "channel/"]
        .iter()
        .any(|p| page.starts_with(p))
}

/// `GET|POST /v1/pets/{id}` of the local API behind "Try it".
async fn pet(method: axum::http::Method, uri: axum::http::Uri, body: String) -> Response {
    (
        StatusCode::OK,
        [
            ("x-served-by", "local-api"),
            ("set-cookie", "api=1; Path=/"),
        ],
        axum::Json(json!({"method": method.as_str(), "query": uri.query(), "body": body})),
    )
        .into_response()
}

/// Serves the local API on 127.0.0.1 from a thread of its own; its base URL.
fn local_api() -> String {
    let router = Router::new().route("/v1/pets/{id}", get(pet).post(pet));
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async move {
            let Ok(listener) = tokio::net::TcpListener::bind("127.0.0.1:0").await else {
                return;
            };
            let Ok(addr) = listener.local_addr() else {
                return;
            };
            let _ = tx.send(format!("http://{addr}"));
            let _ = axum::serve(listener, router).await;
        });
    });
    rx.recv().expect("the local API listens")
}

fn try_definition(servers: &[&str]) -> String {
    let servers: Vec<Value> = servers.iter().map(|u| json!({"url": u})).collect();
    json!({
        "openapi": "3.1.0",
        "info": {"title": "Try pets", "version": "1.0.0"},
        "servers": servers,
        "paths": {"/pets/{id}": {
            "get": {"operationId": "getPet",
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "A pet"}}},
            "post": {"operationId": "updatePet",
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}},
                "responses": {"200": {"description": "Updated"}}}
        }}
    })
    .to_string()
}

/// Applies the normalizer's patterns again to every body and to the index of a dump (each line's `bytes` then
/// counts its body as written).
fn renormalize(dir: &Path) {
    let norm = Normalizer::new();
    for entry in std::fs::read_dir(dir.join("bodies")).expect("bodies") {
        let path = entry.expect("entry").path();
        let bytes = std::fs::read(&path).expect("body");
        if let Ok(text) = std::str::from_utf8(&bytes) {
            let normalized = norm.apply(text);
            if normalized != text {
                std::fs::write(&path, normalized).expect("body written");
            }
        }
    }
    let index = dir.join("index.tsv");
    let text = std::fs::read_to_string(&index).expect("index");
    let mut out = String::with_capacity(text.len());
    for line in norm.apply(&text).lines() {
        let n = line.split('\t').next().unwrap_or_default();
        let size = std::fs::metadata(dir.join("bodies").join(n)).map_or(0, |m| m.len());
        match line.rsplit_once("\tbytes: ") {
            Some((head, _)) => out.push_str(&format!("{head}\tbytes: {size}\n")),
            None => out.push_str(&format!("{line}\n")),
        }
    }
    std::fs::write(&index, out).expect("index written");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, dir] = args.as_slice()
        && flag == "--normalize"
    {
        renormalize(Path::new(dir));
        return;
    }
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .expect("usage: site_dump OUT_DIR (an empty or new folder)"),
    );
    std::fs::create_dir_all(out.join("bodies")).expect("out dir");
    let corpus = corpus();
    let bin = release_binary();
    let data = temp_dir();
    let api = local_api();
    let server = Server::start_binary(
        &bin,
        data.path(),
        &[
            ("SPECPRESS_ORG_TOKEN", ORG),
            ("SPECPRESS_ALLOW_LOOPBACK_URLS", "true"),
            ("SPECPRESS_MCP_RATE_PER_MINUTE", "0"),
            ("SPECPRESS_TRY_RATE_PER_MINUTE", "0"),
        ],
    );
    let mut norm = Normalizer::new();
    norm.name(&server.base_url, "http://SERVER");
    norm.name(server.base_url.trim_start_matches("http://"), "SERVER");
    norm.name(&api, "http://LOCALAPI");
    norm.name(ORG, "<org-token>");
    let mut d = Dump {
        http: Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(std::time::Duration::from_secs(600))
            .build()
            .expect("client"),
        base: server.base_url.clone(),
        index: std::io::BufWriter::new(
            std::fs::File::create(out.join("index.tsv")).expect("index"),
        ),
        out: out.clone(),
        n: 0,
        norm,
    };
    let started = std::time::Instant::now();
    let state = setup(&mut d, &corpus, &api);
    eprintln!("site_dump: deployed in {:.1?}", started.elapsed());
    changes(&mut d, &state);
    eprintln!("site_dump: changes done at {:.1?}", started.elapsed());
    pages(&mut d, &state);
    eprintln!("site_dump: pages done at {:.1?}", started.elapsed());
    site_rest(&mut d, &state);
    mcp(&mut d, &state);
    eprintln!("site_dump: MCP done at {:.1?}", started.elapsed());
    try_it(&mut d, &api);
    credential_limit(&mut d);
    d.index.flush().expect("index flushed");
    eprintln!(
        "site_dump: {} answers in {} at {:.1?}",
        d.n,
        out.display(),
        started.elapsed()
    );
    server.stop();
}

/// What the set-up created.
struct State {
    /// Every documentation with its releases' ids, oldest first, per branch: (slug, branch or None, ids).
    releases: Vec<(String, Option<String>, Vec<String>)>,
    vault_token: String,
    preview: String,
    diff: String,
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn setup(d: &mut Dump, corpus: &Path, api: &str) -> State {
    let mut releases = Vec::new();
    for (hub, name) in [("corpus", "Corpus APIs"), ("events", "Event APIs")] {
        d.api(
            Method::POST,
            "/api/v1/hubs",
            Some(json!({"name": name, "slug": hub})),
        );
    }
    let mut n = 0;
    let learn = |d: &mut Dump, slug: &str, created: &Value| {
        if let Some(id) = created["id"].as_str() {
            d.norm.name(id, &format!("<doc-id:{slug}>"));
        }
        if let Some(t) = created["token"].as_str() {
            d.norm.name(t, &format!("<doc-token:{slug}>"));
        }
    };
    for (slug, hub, files) in FAMILIES {
        let created = d.api(
            Method::POST,
            "/api/v1/docs",
            Some(json!({"name": format!("{slug} API"), "slug": slug, "hub": hub})),
        );
        learn(d, slug, &created);
        let mut ids = Vec::new();
        for f in files {
            let id = d.deploy(slug, None, &read(&corpus.join(f)));
            n += 1;
            d.norm.version(&id, &format!("<version-{n}>"));
            ids.push(id);
        }
        releases.push((slug.to_owned(), None, ids));
    }
    let fixture = |f: &str| read(&fixtures().join(f));
    // A documentation with a branch of two releases.
    let created = d.api(
        Method::POST,
        "/api/v1/docs",
        Some(json!({"name": "Pets", "slug": "pets", "hub": "events"})),
    );
    learn(d, "pets", &created);
    let mut main_ids = Vec::new();
    let mut next_ids = Vec::new();
    for (branch, file) in [
        (None, "petstore.yaml"),
        (Some("next"), "petstore.yaml"),
        (Some("next"), "petstore-v2.yaml"),
    ] {
        let id = d.deploy("pets", branch, &fixture(file));
        n += 1;
        d.norm.version(&id, &format!("<version-{n}>"));
        match branch {
            None => main_ids.push(id),
            Some(_) => next_ids.push(id),
        }
    }
    releases.push(("pets".into(), None, main_ids));
    releases.push(("pets".into(), Some("next".into()), next_ids));
    // A private documentation.
    let created = d.api(
        Method::POST,
        "/api/v1/docs",
        Some(json!({"name": "Vault", "slug": "vault"})),
    );
    learn(d, "vault", &created);
    let vault_token = created["token"].as_str().unwrap_or_default().to_owned();
    let id = d.deploy("vault", None, &fixture("petstore.yaml"));
    n += 1;
    d.norm.version(&id, &format!("<version-{n}>"));
    d.api(
        Method::PATCH,
        "/api/v1/docs/vault",
        Some(json!({"visibility": "private"})),
    );
    // "Try it" through the proxy, and directly.
    for (slug, mode) in [("tryit", "proxy"), ("direct", "direct")] {
        let created = d.api(
            Method::POST,
            "/api/v1/docs",
            Some(json!({"name": slug, "slug": slug})),
        );
        learn(d, slug, &created);
        let closed = "http://127.0.0.1:9/v1";
        let id = d.deploy(slug, None, &try_definition(&[&format!("{api}/v1"), closed]));
        n += 1;
        d.norm.version(&id, &format!("<version-{n}>"));
        d.api(
            Method::PATCH,
            &format!("/api/v1/docs/{slug}"),
            Some(json!({"try_it": mode})),
        );
    }
    let preview = d.api(
        Method::POST,
        "/api/v1/previews",
        Some(json!({"definition": fixture("petstore.yaml")})),
    );
    let preview = preview["id"].as_str().unwrap_or_default().to_owned();
    d.norm.name(&preview, "<preview-id>");
    let diff = d.api(
        Method::POST,
        "/api/v1/diffs",
        Some(json!({"previous_definition": fixture("petstore.yaml"), "definition": fixture("petstore-v2.yaml")})),
    );
    let diff = diff["id"].as_str().unwrap_or_default().to_owned();
    d.norm.name(&diff, "<diff-id>");
    State {
        releases,
        vault_token,
        preview,
        diff,
    }
}

/// Changelogs, feeds, change pages and compare pages: every release's digest is stored here, before any history.
fn changes(d: &mut Dump, st: &State) {
    for (slug, branch, ids) in &st.releases {
        let base = match branch {
            Some(b) => format!("/doc/{slug}/branches/{b}"),
            None => format!("/doc/{slug}"),
        };
        for suffix in ["", ".atom", ".rss", "?page=2", "?page=x"] {
            d.get(&format!("{base}/changes{suffix}"));
        }
        for id in ids {
            d.get(&format!("/doc/{slug}/changes/{id}"));
            d.get(&format!("/doc/{slug}/changes/{id}.json"));
            d.get(&format!("/doc/{slug}/change/{id}"));
            d.get(&format!("/doc/{slug}/versions/{id}/source"));
        }
        if let [a, b] = ids.as_slice() {
            d.get(&format!("/doc/{slug}/compare?from={a}&to={b}"));
            d.get(&format!("/doc/{slug}/compare?from={b}&to={a}"));
            d.get(&format!("/doc/{slug}/compare?from={a}&to={a}"));
        }
        d.get(&format!("/doc/{slug}/compare"));
        d.get(&format!("/doc/{slug}/compare?from=nope&to=nope"));
    }
    d.get("/doc/pets/branches/main/changes");
    d.get("/doc/nope/changes");
    d.get("/doc/pets/changes/00000000-0000-0000-0000-000000000000");
    d.get(&format!("/diff/{}", st.diff));
    d.get("/diff/00000000-0000-0000-0000-000000000000");
}

/// Every page of every documentation, HTML and Markdown, and the history pages.
fn pages(d: &mut Dump, st: &State) {
    let mut seen = std::collections::BTreeSet::new();
    for (slug, branch, _) in &st.releases {
        let urls: Vec<String> = match branch {
            None => {
                if !seen.insert(slug.clone()) {
                    continue;
                }
                let xml = d.get(&format!("/doc/{slug}/sitemap.xml")).text();
                locations(&xml)
            }
            Some(b) => {
                let server = format!("/doc/{slug}/branches/{b}/mcp");
                let listed = d.tool(&server, None, "list_pages", json!({}));
                listed["pages"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|p| p["url"].as_str().map(str::to_owned))
                    .collect()
            }
        };
        let root = match branch {
            Some(b) => format!("/doc/{slug}/branches/{b}"),
            None => format!("/doc/{slug}"),
        };
        for url in urls {
            let p = path_of(&d.base, &url);
            d.get(&p);
            d.get(&format!("{p}.md"));
            if let Some(page) = p.strip_prefix(&format!("{root}/"))
                && has_history(page)
            {
                d.get(&format!("{root}/history/{page}"));
            }
        }
    }
}

/// Definitions, machine files, search, hubs, redirects, errors, previews, sign-in, validators, compression, static
/// assets, private documentation.
fn site_rest(d: &mut Dump, st: &State) {
    for (slug, _, _) in FAMILIES {
        for p in [
            format!("/doc/{slug}.json"),
            format!("/doc/{slug}.yaml"),
            format!("/doc/{slug}/llms.txt"),
            format!("/doc/{slug}/"),
        ] {
            d.get(&p);
        }
        for q in [
            "pull request",
            "create",
            "customer",
            "vacinations",
            "",
            "a b",
        ] {
            let q: String = form_urlencoded(q);
            d.get(&format!("/doc/{slug}/search?q={q}"));
            d.get(&format!("/doc/{slug}/search.json?q={q}"));
        }
        d.get(&format!("/doc/{slug}/search?q={}", "x".repeat(150)));
        d.get(&format!("/doc/{slug}/history/operation/nope"));
        d.get(&format!("/doc/{slug}/nope-page"));
        d.get(&format!("/doc/{slug}/nope-page.md"));
    }
    for hub in ["corpus", "events", "nope"] {
        for p in [
            format!("/hub/{hub}"),
            format!("/hub/{hub}/changes.atom"),
            format!("/hub/{hub}/changes.rss"),
            format!("/hub/{hub}/llms.txt"),
            format!("/hub/{hub}/sitemap.xml"),
            format!("/hub/{hub}/search?q=pets"),
            format!("/hub/{hub}/search.json?q=create"),
            format!("/hub/{hub}/search.json?q=light"),
            format!("/hub/{hub}/search?q="),
        ] {
            d.get(&p);
        }
    }
    // Branches, ids, redirects.
    for p in [
        "/doc/pets/branches/next",
        "/doc/pets/branches/next.md",
        "/doc/pets/branches/main",
        "/doc/pets/branches/main/operation/nope",
        "/doc/pets/branches/nope",
        "/doc/pets/branches/next/search?q=pet",
        "/doc/pets/branches/next/search.json?q=pet",
        "/doc/pets/branches/main/search?q=pet",
        "/doc/pets/branches/next/llms.txt",
        "/doc/pets/mcp",
        "/hub/events/mcp",
        "/doc/pets/try",
        "/doc/nope",
        "/doc/nope.json",
        "/doc/nope/operation/x",
        "/doc/nope/search?q=x",
        "/doc/nope/llms.txt",
        "/doc/nope/history/operation/x",
    ] {
        d.get(p);
    }
    let doc_id = d
        .http
        .get(d.url("/api/v1/docs/pets"))
        .header("Authorization", format!("Token {ORG}"))
        .send()
        .ok()
        .and_then(|r| r.json::<Value>().ok())
        .and_then(|v| v["id"].as_str().map(str::to_owned))
        .unwrap_or_default();
    for suffix in ["", "/changes", "/search?q=pets", "/llms.txt", ".json"] {
        d.get(&format!("/doc/{doc_id}{suffix}"));
    }
    // Previews.
    for p in ["", ".json", ".yaml", "/operation/nope"] {
        d.get(&format!("/preview/{}{p}", st.preview));
    }
    let xml = d.get("/doc/pets/sitemap.xml").text();
    if let Some(first) = locations(&xml).get(1) {
        let page = path_of(&d.base, first);
        let page = page.trim_start_matches("/doc/pets/");
        d.get(&format!("/preview/{}/{page}", st.preview));
    }
    d.get("/preview/00000000-0000-0000-0000-000000000000");
    // Validators, HEAD, compression.
    for p in [
        "/doc/pets",
        "/doc/pets/changes",
        "/hub/events",
        "/doc/pets.json",
    ] {
        let got = d.get(p);
        let etag = got
            .headers
            .get("etag")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        d.get_with(p, &[("If-None-Match", etag.as_str())]);
        d.send(Method::HEAD, p, &[], None);
        d.get_with(p, &[("Accept-Encoding", "gzip")]);
        d.get_with(p, &[("Accept-Encoding", "br")]);
    }
    // The static assets the home page names.
    let home = d.get("/doc/pets").text();
    let assets: Vec<String> = home
        .split("\"/static/")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .map(|s| format!("/static/{s}"))
        .collect();
    for a in assets {
        d.get(&a);
    }
    d.get("/static/nope.css");
    // The private documentation: anonymous, with a token, with a wrong one.
    let member = format!("Token {}", st.vault_token);
    for p in [
        "/doc/vault",
        "/doc/vault.md",
        "/doc/vault/changes",
        "/doc/vault/llms.txt",
        "/doc/vault/search.json?q=pet",
    ] {
        d.get(p);
        d.get_with(p, &[("Authorization", member.as_str())]);
    }
    d.get_with("/doc/vault", &[("Authorization", "Token sp_doc_wrong")]);
    // Sign-in.
    let origin = d.base.clone();
    d.get("/sign-in");
    d.get("/sign-in?next=/doc/vault");
    let form = |token: &str| format!("token={token}&next=%2Fdoc%2Fvault").into_bytes();
    d.send(
        Method::POST,
        "/sign-in",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        Some(form("nope")),
    );
    d.send(
        Method::POST,
        "/sign-in",
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Origin", "https://evil.example"),
        ],
        Some(form("nope")),
    );
    let signed = d.send(
        Method::POST,
        "/sign-in",
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Origin", origin.as_str()),
        ],
        Some(form(&st.vault_token)),
    );
    let cookie = signed
        .headers
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|c| c.split(';').next())
        .unwrap_or("")
        .to_owned();
    d.get_with("/sign-in", &[("Cookie", cookie.as_str())]);
    d.get_with("/doc/vault", &[("Cookie", cookie.as_str())]);
    d.send(
        Method::POST,
        "/sign-out",
        &[("Cookie", cookie.as_str()), ("Origin", origin.as_str())],
        None,
    );
    d.get_with("/doc/vault", &[("Cookie", cookie.as_str())]);
    // Try it's pages: the CSP of a direct documentation's operation pages.
    for slug in ["tryit", "direct"] {
        let xml = d.get(&format!("/doc/{slug}/sitemap.xml")).text();
        for url in locations(&xml) {
            let p = path_of(&d.base, &url);
            d.get(&p);
        }
    }
}

fn form_urlencoded(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b' ' => "+".to_owned(),
            b if b.is_ascii_alphanumeric() => (b as char).to_string(),
            b => format!("%{b:02X}"),
        })
        .collect()
}

/// Every tool of the MCP servers of a documentation, a branch and a hub, and their errors.
fn mcp(d: &mut Dump, st: &State) {
    let servers: Vec<(String, Option<String>)> = vec![
        ("/doc/github/mcp".into(), None),
        ("/doc/stripe/mcp".into(), None),
        ("/doc/kubernetes/mcp".into(), None),
        ("/doc/openai-yaml/mcp".into(), None),
        ("/doc/streetlights-3/mcp".into(), None),
        ("/doc/slack/mcp".into(), None),
        ("/doc/pets/branches/next/mcp".into(), None),
        ("/doc/pets/branches/main/mcp".into(), None),
        ("/hub/events/mcp".into(), None),
        ("/hub/corpus/mcp".into(), None),
        ("/doc/vault/mcp".into(), Some(st.vault_token.clone())),
    ];
    for (server, auth) in &servers {
        let auth = auth.as_deref();
        d.mcp(server, auth, "tools/list", json!({}));
        // Every page, through the cursors.
        let mut cursor: Option<String> = None;
        let mut urls = Vec::new();
        loop {
            let args = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let listed = d.tool(server, auth, "list_pages", args);
            for p in listed["pages"].as_array().into_iter().flatten() {
                if let Some(u) = p["url"].as_str() {
                    urls.push(u.to_owned());
                }
            }
            match listed["next_cursor"].as_str() {
                Some(c) => cursor = Some(c.to_owned()),
                None => break,
            }
        }
        for chunk in urls.chunks(10).take(6) {
            d.tool(server, auth, "get_pages", json!({"urls": chunk}));
        }
        for q in ["create", "pull request", "light", "vacinations", "user id"] {
            d.tool(server, auth, "search", json!({"query": q}));
            d.tool(
                server,
                auth,
                "search",
                json!({"query": q, "kind": "schema"}),
            );
        }
        let changes = d.tool(server, auth, "list_changes", json!({}));
        let ids: Vec<String> = changes["releases"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["id"].as_str().map(str::to_owned))
            .collect();
        for id in &ids {
            d.tool(server, auth, "get_change", json!({"id": id}));
        }
        if let [b, a, ..] = ids.as_slice() {
            d.tool(server, auth, "compare", json!({"from": a, "to": b}));
        }
        // Histories of the first operations and schemas the pages list.
        let subjects: Vec<String> = urls
            .iter()
            .filter(|u| u.contains("/operation/") || u.contains("/schema/"))
            .take(8)
            .filter_map(|u| u.rsplit('/').next().map(str::to_owned))
            .collect();
        for s in subjects {
            d.tool(server, auth, "operation_history", json!({"operation": s}));
        }
        for op in [
            "POST /repos/{owner}/{repo}/pulls",
            "GET /pets",
            "Pet",
            "customer",
        ] {
            d.tool(server, auth, "operation_history", json!({"operation": op}));
        }
        for pointer in [
            "",
            "/info",
            "/paths",
            "/components/schemas",
            "/nope",
            "info",
        ] {
            d.tool(server, auth, "get_definition", json!({"pointer": pointer}));
        }
        // Errors.
        d.tool(server, auth, "list_pages", json!({"cursor": "nope"}));
        d.tool(server, auth, "search", json!({"query": ""}));
        d.tool(server, auth, "get_pages", json!({"urls": []}));
        d.tool(
            server,
            auth,
            "get_pages",
            json!({"urls": ["https://evil.example/x", "/doc/nope", "not a url"]}),
        );
        d.tool(server, auth, "get_change", json!({"id": "nope"}));
        d.tool(server, auth, "nope", json!({}));
        d.tool(server, auth, "search", json!({"nope": 1}));
        d.tool(
            server,
            auth,
            "list_changes",
            json!({"documentation": "github"}),
        );
    }
    d.mcp("/doc/vault/mcp", None, "tools/list", json!({}));
    d.mcp("/doc/nope/mcp", None, "tools/list", json!({}));
    d.mcp("/hub/nope/mcp", None, "tools/list", json!({}));
    d.mcp("/doc/pets/branches/nope/mcp", None, "tools/list", json!({}));
    d.send(
        Method::POST,
        "/doc/pets/mcp",
        &[("Content-Type", "application/json")],
        Some(b"{not json".to_vec()),
    );
}

/// The proxy's answers and refusals.
fn try_it(d: &mut Dump, api: &str) {
    let origin = d.base.clone();
    let call = |method: &str, url: String| {
        json!({"method": method, "url": url, "headers": [["Accept", "application/json"], ["Cookie", "x=1"]], "body": "hello"})
            .to_string()
            .into_bytes()
    };
    let json_from = [
        ("Content-Type", "application/json"),
        ("Origin", origin.as_str()),
    ];
    for (p, body) in [
        (
            "/doc/tryit/try",
            call("GET", format!("{api}/v1/pets/1?x=1")),
        ),
        ("/doc/tryit/try", call("POST", format!("{api}/v1/pets/2"))),
        ("/doc/tryit/try", call("TRACE", format!("{api}/v1/pets/1"))),
        (
            "/doc/tryit/try",
            call("GET", "https://evil.example/".into()),
        ),
        (
            "/doc/tryit/try",
            call("GET", "http://127.0.0.1:9/v1/pets/1".into()),
        ),
        ("/doc/tryit/try", b"{\"method\": 1}".to_vec()),
        ("/doc/tryit/try", vec![b'x'; 300 * 1024]),
        ("/doc/direct/try", call("GET", format!("{api}/v1/pets/1"))),
        ("/doc/pets/try", call("GET", format!("{api}/v1/pets/1"))),
        ("/doc/nope/try", call("GET", format!("{api}/v1/pets/1"))),
        (
            "/doc/tryit/branches/nope/try",
            call("GET", format!("{api}/v1/pets/1")),
        ),
        (
            "/doc/tryit/branches/main/try",
            call("GET", format!("{api}/v1/pets/1")),
        ),
    ] {
        d.send(Method::POST, p, &json_from, Some(body));
    }
    d.send(
        Method::POST,
        "/doc/tryit/try",
        &[
            ("Content-Type", "application/json"),
            ("Origin", "https://evil.example"),
        ],
        Some(call("GET", format!("{api}/v1/pets/1"))),
    );
    d.send(
        Method::POST,
        "/doc/tryit/try",
        &[("Content-Type", "application/json")],
        Some(call("GET", format!("{api}/v1/pets/1"))),
    );
    d.get("/doc/tryit/try");
}

/// Last: wrong tokens until the client's budget of failed credential checks is spent, then what each kind of route
/// answers (a page, an MCP server, the proxy).
fn credential_limit(d: &mut Dump) {
    for _ in 0..12 {
        d.get_with("/doc/pets", &[("Authorization", "Token sp_doc_wrong")]);
    }
    d.mcp(
        "/doc/pets/mcp",
        Some("sp_doc_wrong"),
        "tools/list",
        json!({}),
    );
    let origin = d.base.clone();
    d.send(
        Method::POST,
        "/doc/tryit/try",
        &[
            ("Content-Type", "application/json"),
            ("Origin", origin.as_str()),
            ("Authorization", "Token sp_doc_wrong"),
        ],
        Some(b"{}".to_vec()),
    );
    d.get("/doc/pets");
}

//! Custom hostnames end to end (issue 40), against the real `specpress serve` and a real DNS server on 127.0.0.1
//! (tests/dns/zone.py, Python's dnslib, named by `SPECPRESS_DNS_RESOLVER`): requests reach a hostname through their
//! `Host` header, as they would through a custom domain mapped to the API.
//!
//! The flow: a hub's hostname is pending (it serves nothing) -> verification fails, saying what DNS holds -> the
//! owner adds the TXT record -> verified -> the hub at `/` and its documentation at `/pets/...`, with every link,
//! feed, sitemap, `llms.txt`, `.md`, search and MCP URL on the hostname, and `doc_public_url` naming it; the default
//! URLs redirect there (308); a documentation outside the hub is not reachable through it; an unknown hostname
//! gets 404; a documentation's own hostname serves it at `/`; deleting a hostname ends it.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use reqwest::blocking::{Client, Response};
use serde_json::{Value, json};
use specpress_e2e::{Server, fixtures, repo_root, temp_dir};

const ORG: &str = "hostnames-tests-organization-token-42";
const HUB_HOST: &str = "docs.example.com";
const DOC_HOST: &str = "api.other.example";

/// The DNS server, answering from a zone file the test rewrites; killed when dropped. It serves until its stdin
/// closes, so the test holds the pipe open for as long as the server is needed.
struct Zone {
    child: Child,
    file: PathBuf,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for Zone {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Zone {
    fn start() -> Zone {
        let python = specpress_testkit::python_with("dnslib");
        let dir = temp_dir();
        let file = dir.path().join("zone.json");
        std::fs::write(&file, "{}").expect("zone file");
        let mut child = Command::new(python)
            .arg(repo_root().join("tests/dns/zone.py"))
            .arg(&file)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the DNS server starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the DNS server prints its port");
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
        Zone {
            child,
            file,
            port,
            _dir: dir,
        }
    }

    /// Replaces the zone (the server reads it on every query).
    fn set(&self, zone: Value) {
        let tmp = self.file.with_extension("tmp");
        std::fs::write(&tmp, zone.to_string()).expect("zone written");
        std::fs::rename(&tmp, &self.file).expect("zone replaced");
    }
}

struct Site {
    server: Server,
    http: Client,
    _dir: tempfile::TempDir,
}

impl Site {
    fn start(zone: &Zone) -> Site {
        let dir = temp_dir();
        let resolver = format!("127.0.0.1:{}", zone.port);
        let server = Server::start(
            dir.path(),
            &[
                ("SPECPRESS_ORG_TOKEN", ORG),
                ("SPECPRESS_DNS_RESOLVER", resolver.as_str()),
            ],
        );
        let http = Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("HTTP client");
        Site {
            server,
            http,
            _dir: dir,
        }
    }

    fn api(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut rb = self
            .http
            .request(method, format!("{}{path}", self.server.base_url))
            .header("Authorization", format!("Token {ORG}"));
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let r = rb.send().expect("answers");
        let s = r.status().as_u16();
        (s, r.json().unwrap_or(Value::Null))
    }

    /// `GET path` with `Host: host` (`None`: the server's own address).
    fn get(&self, host: Option<&str>, path: &str) -> Response {
        let mut rb = self.http.get(format!("{}{path}", self.server.base_url));
        if let Some(h) = host {
            rb = rb.header("Host", h);
        }
        rb.send().expect("answers")
    }

    /// The body of a page that must answer 200 on `host`.
    fn text(&self, host: &str, path: &str) -> String {
        let r = self.get(Some(host), path);
        assert_eq!(r.status().as_u16(), 200, "{host}{path}");
        r.text().expect("text")
    }

    fn deploy(&self, doc: &str) -> Value {
        let definition =
            std::fs::read_to_string(fixtures().join("petstore.yaml")).expect("fixture");
        let definition =
            definition.replace("version: 1.0.0", &format!("version: 1.0.{}", rand_suffix()));
        let (s, b) = self.api(
            reqwest::Method::POST,
            "/api/v1/versions",
            Some(json!({"documentation": doc, "definition": definition})),
        );
        assert!(s == 201 || s == 204, "{s} {b}");
        b
    }
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() % 100_000)
        .unwrap_or(0)
}

/// Every absolute URL (`http://` or `https://`) of a text, up to the next quote, angle bracket or space.
fn absolute_urls(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for scheme in ["http://", "https://"] {
        for (i, _) in text.match_indices(scheme) {
            let rest = &text[i..];
            let end = rest
                .find(['"', '<', '>', ' ', '\'', '\n', ')'])
                .unwrap_or(rest.len());
            out.push(rest[..end].to_owned());
        }
    }
    out
}

/// The root-relative `href`s of a page.
fn hrefs(html: &str) -> Vec<String> {
    html.match_indices("href=\"/")
        .map(|(i, _)| {
            let rest = &html[i + 6..];
            rest[..rest.find('"').unwrap_or(rest.len())].to_owned()
        })
        .collect()
}

/// Asserts that every absolute URL of `text` that points at this service is on `https://{host}`: none names the
/// server's own address or a default path.
fn all_on(host: &str, server: &str, text: &str, what: &str) {
    let urls = absolute_urls(text);
    assert!(
        urls.iter()
            .any(|u| u.starts_with(&format!("https://{host}/"))),
        "{what}: no URL on the hostname: {urls:?}"
    );
    for u in &urls {
        assert!(
            !u.starts_with(server),
            "{what}: {u} is on the default address"
        );
        if u.starts_with(&format!("https://{host}")) {
            assert!(!u.contains("/doc/") && !u.contains("/hub/"), "{what}: {u}");
        }
    }
}

#[test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python with dnslib (scripts/install-tools.sh)"
)]
fn a_hub_answers_at_its_verified_hostname_with_every_url_on_it_and_its_default_urls_redirect_there()
{
    let zone = Zone::start();
    let site = Site::start(&zone);
    let base = site.server.base_url.clone();
    // GIVEN a hub with a documentation in it, and a documentation outside it
    let (s, b) = site.api(
        reqwest::Method::POST,
        "/api/v1/hubs",
        Some(json!({"name": "Payments", "slug": "payments"})),
    );
    assert_eq!(s, 201, "{b}");
    for (name, slug, hub) in [("Pets", "pets", Some("payments")), ("Other", "other", None)] {
        let mut body = json!({"name": name, "slug": slug});
        if let Some(h) = hub {
            body["hub"] = json!(h);
        }
        let (s, b) = site.api(reqwest::Method::POST, "/api/v1/docs", Some(body));
        assert_eq!(s, 201, "{b}");
        site.deploy(slug);
    }

    // WHEN the owner sets the hub's hostname
    let (s, set) = site.api(
        reqwest::Method::PUT,
        "/api/v1/hubs/payments/domain",
        Some(json!({"hostname": "Docs.Example.com"})),
    );
    // THEN it is pending, with the TXT record to add
    assert_eq!(s, 200, "{set}");
    assert_eq!(set["hostname"], HUB_HOST);
    assert_eq!(set["status"], "pending");
    assert_eq!(set["verification"]["type"], "TXT");
    assert_eq!(set["verification"]["name"], "_specpress.docs.example.com");
    let value = set["verification"]["value"]
        .as_str()
        .expect("value")
        .to_owned();
    assert!(value.starts_with("specpress-verification="), "{value}");
    let (s, shown) = site.api(reqwest::Method::GET, "/api/v1/hubs/payments/domain", None);
    assert_eq!((s, &shown["status"]), (200, &json!("pending")), "{shown}");
    // AND a pending hostname serves nothing, nor do the default URLs move
    assert_eq!(site.get(Some(HUB_HOST), "/").status().as_u16(), 404);
    assert_eq!(site.get(None, "/hub/payments").status().as_u16(), 200);
    // AND a bad hostname is refused
    let (s, bad) = site.api(
        reqwest::Method::PUT,
        "/api/v1/hubs/payments/domain",
        Some(json!({"hostname": "https://docs.example.com/x"})),
    );
    assert_eq!(s, 422, "{bad}");

    // WHEN it is verified before any record exists, THEN 422 says none was found
    let (s, failed) = site.api(
        reqwest::Method::POST,
        "/api/v1/hubs/payments/domain/verify",
        None,
    );
    assert_eq!(s, 422, "{failed}");
    let message = failed.to_string();
    assert!(
        message.contains("No TXT record was found at _specpress.docs.example.com"),
        "{message}"
    );
    // WHEN the record holds something else, THEN 422 says what it found
    zone.set(json!({"_specpress.docs.example.com.": {"TXT": [["specpress-verification=wrong"]]}}));
    let (s, failed) = site.api(
        reqwest::Method::POST,
        "/api/v1/hubs/payments/domain/verify",
        None,
    );
    assert_eq!(s, 422, "{failed}");
    assert!(
        failed.to_string().contains("specpress-verification=wrong"),
        "{failed}"
    );
    assert_eq!(site.get(Some(HUB_HOST), "/").status().as_u16(), 404);

    // WHEN the owner adds the record, THEN the hostname is verified
    zone.set(json!({"_specpress.docs.example.com.": {"TXT": [["v=spf1 -all"], [value.as_str()]]}}));
    let (s, verified) = site.api(
        reqwest::Method::POST,
        "/api/v1/hubs/payments/domain/verify",
        None,
    );
    assert_eq!(s, 200, "{verified}");
    assert_eq!(verified["status"], "verified");
    assert!(verified["verified_at"].is_string(), "{verified}");

    // THEN the hub answers at `/` of its hostname, its documentation at `/pets`, every link on the hostname
    let hub = site.text(HUB_HOST, "/");
    assert!(hub.contains("Payments"));
    let links = hrefs(&hub);
    assert!(links.iter().any(|h| h == "/pets"), "{links:?}");
    for h in &links {
        assert!(
            !h.starts_with("/doc/") && !h.starts_with("/hub/"),
            "hub page link {h}"
        );
    }
    let doc = site.text(HUB_HOST, "/pets");
    let links = hrefs(&doc);
    assert!(links.iter().any(|h| h.starts_with("/pets/")), "{links:?}");
    for h in &links {
        assert!(
            !h.starts_with("/doc/") && !h.starts_with("/hub/"),
            "documentation page link {h}"
        );
    }
    let operation = links
        .iter()
        .find(|h| h.starts_with("/pets/operation/") || h.starts_with("/pets/op"))
        .cloned()
        .unwrap_or_else(|| panic!("an operation link among {links:?}"));
    site.text(HUB_HOST, &operation);
    // AND the Markdown forms, feeds, sitemaps, llms.txt, search and the MCP URLs are on it
    let md = site.text(HUB_HOST, "/pets.md");
    assert!(
        md.contains("Swagger Petstore") || md.contains("Pets"),
        "{md}"
    );
    site.text(HUB_HOST, &format!("{operation}.md"));
    for path in [
        "/pets/changes.atom",
        "/pets/changes.rss",
        "/changes.atom",
        "/pets/sitemap.xml",
        "/sitemap.xml",
        "/pets/llms.txt",
        "/llms.txt",
    ] {
        let body = site.text(HUB_HOST, path);
        all_on(HUB_HOST, &base, &body, path);
    }
    let llms = site.text(HUB_HOST, "/pets/llms.txt");
    assert!(llms.contains("https://docs.example.com/pets/mcp"), "{llms}");
    assert!(
        site.text(HUB_HOST, "/llms.txt")
            .contains("https://docs.example.com/mcp")
    );
    let results = site.text(HUB_HOST, "/pets/search?q=pet");
    for h in hrefs(&results) {
        assert!(!h.starts_with("/doc/"), "search result link {h}");
    }
    let hub_results = site.text(HUB_HOST, "/search.json?q=pet");
    assert!(hub_results.contains("/pets/"), "{hub_results}");
    let mcp = site
        .http
        .post(format!("{base}/pets/mcp"))
        .header("Host", HUB_HOST)
        .header("Accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "list_pages", "arguments": {}}}))
        .send()
        .expect("MCP answers");
    assert_eq!(mcp.status().as_u16(), 200);
    let mcp = mcp.text().expect("text");
    assert!(mcp.contains("https://docs.example.com/pets/"), "{mcp}");
    assert!(!mcp.contains(&base), "{mcp}");

    // AND the default URLs redirect there (308), the rest of the path and the query kept
    for (path, to) in [
        ("/hub/payments", "https://docs.example.com/"),
        ("/doc/pets", "https://docs.example.com/pets"),
        (
            "/doc/pets/changes?page=1",
            "https://docs.example.com/pets/changes?page=1",
        ),
        ("/doc/pets.md", "https://docs.example.com/pets.md"),
    ] {
        let r = site.get(None, path);
        assert_eq!(r.status().as_u16(), 308, "{path}");
        assert_eq!(r.headers()["location"], to, "{path}");
    }
    // AND a deploy answers the documentation's URL on the hostname
    let deployed = site.deploy("pets");
    assert_eq!(
        deployed["doc_public_url"], "https://docs.example.com/pets",
        "{deployed}"
    );

    // AND a documentation outside the hub is not reachable through its hostname, and keeps its own URL
    assert_eq!(site.get(Some(HUB_HOST), "/other").status().as_u16(), 404);
    assert_eq!(
        site.get(Some(HUB_HOST), "/other/llms.txt")
            .status()
            .as_u16(),
        404
    );
    // AND the installation's own paths are not served on the hostname
    assert_eq!(site.get(Some(HUB_HOST), "/doc/pets").status().as_u16(), 404);
    assert_eq!(site.get(None, "/doc/other").status().as_u16(), 200);
    // AND an unknown hostname serves nothing
    assert_eq!(
        site.get(Some("unknown.example.com"), "/").status().as_u16(),
        404
    );
    assert_eq!(
        site.get(Some("unknown.example.com"), "/doc/pets")
            .status()
            .as_u16(),
        404
    );

    // WHEN the documentation outside the hub gets its own verified hostname
    let (s, set) = site.api(
        reqwest::Method::PUT,
        "/api/v1/docs/other/domain",
        Some(json!({"hostname": DOC_HOST})),
    );
    assert_eq!(s, 200, "{set}");
    let value = set["verification"]["value"]
        .as_str()
        .expect("value")
        .to_owned();
    zone.set(json!({
        "_specpress.docs.example.com.": {"TXT": [[verified["verification"]["value"].as_str().unwrap()]]},
        "_specpress.api.other.example.": {"TXT": [[value.as_str()]]},
    }));
    let (s, v) = site.api(
        reqwest::Method::POST,
        "/api/v1/docs/other/domain/verify",
        None,
    );
    assert_eq!((s, &v["status"]), (200, &json!("verified")), "{v}");
    // THEN it is served at `/` there, with its links at the root
    let home = site.text(DOC_HOST, "/");
    for h in hrefs(&home) {
        assert!(!h.starts_with("/doc/"), "documentation hostname link {h}");
    }
    all_on(
        DOC_HOST,
        &base,
        &site.text(DOC_HOST, "/changes.atom"),
        "doc feed",
    );
    assert!(site.text(DOC_HOST, "/.md").contains('#'));
    let r = site.get(None, "/doc/other/changes");
    assert_eq!(r.status().as_u16(), 308);
    assert_eq!(r.headers()["location"], "https://api.other.example/changes");
    // AND the hub's hostname still does not reach it, nor does its hostname reach the hub's documentation
    assert_eq!(site.get(Some(HUB_HOST), "/other").status().as_u16(), 404);
    assert_eq!(site.get(Some(DOC_HOST), "/doc/pets").status().as_u16(), 404);

    // WHEN the hub's hostname is deleted, THEN it serves nothing and the default URLs serve again
    let (s, _) = site.api(
        reqwest::Method::DELETE,
        "/api/v1/hubs/payments/domain",
        None,
    );
    assert_eq!(s, 204);
    assert_eq!(site.get(Some(HUB_HOST), "/").status().as_u16(), 404);
    assert_eq!(site.get(None, "/doc/pets").status().as_u16(), 200);
    let (s, _) = site.api(reqwest::Method::GET, "/api/v1/hubs/payments/domain", None);
    assert_eq!(s, 404);
}

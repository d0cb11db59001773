//! The reader's core against the real `specpress serve`, as an attacker and as a careful reader would probe it:
//! a hostile document's markup and control characters never reach a reader (pages, Markdown, llms.txt, feeds read by
//! a real feed parser, search JSON), redirects percent-encode what they echo and never fail, a private documentation
//! answers exactly as an unknown one, and every definition answer carries a validator.

use std::path::PathBuf;
use std::process::Command;

use reqwest::Method;
use serde_json::json;
use specpress_e2e::site::{Site, header};

const ORG: &str = "reader-tests-organization-token-7";

/// A document whose every text is hostile: markup, a right-to-left override that reverses what a path reads as,
/// isolates, and C0/C1 control characters.
fn hostile_document(version: &str) -> String {
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "Evil <img src=x onerror=alert(1)> API \u{202E}gnp.exe\u{1b}[31m",
            "version": version,
            "description": "Read <a href=\"https://evil.example/\">this</a>\u{2066}hidden\u{2069} \u{85}now."
        },
        "paths": {
            "/pets\u{202E}/owned": {
                "get": {
                    "operationId": "listPets",
                    "summary": "List <b>pets</b> \u{202E}txt.exe",
                    "responses": {"200": {"description": "OK \u{7}"}}
                }
            },
            // A path with markup: the changelog's summary names it ("Added: POST /v200/<img ...>").
            format!("/v{}/<img/src=z>", version.replace('.', "")): {
                "post": {
                    "operationId": format!("add{}", version.replace('.', "")),
                    "summary": "<script>alert(2)</script>",
                    "responses": {"201": {"description": "Created"}}
                }
            }
        }
    })
    .to_string()
}

/// The characters that must never reach a reader as they are.
fn has_raw_controls(s: &str) -> Option<char> {
    s.chars().find(|&c| {
        (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    })
}

fn hostile_site() -> Site {
    let site = Site::start(ORG);
    site.create_hub("evil-hub", "Evil hub");
    // The API refuses text-direction characters in names; the document's own texts carry them.
    site.create_doc("evil", "Evil <b>API</b>", Some("evil-hub"));
    site.deploy("evil", None, hostile_document("1.0.0"));
    site.deploy("evil", None, hostile_document("2.0.0"));
    site
}

#[test]
fn a_hostile_documents_control_and_bidi_characters_reach_no_reader_output() {
    let site = hostile_site();
    for path in [
        "/doc/evil",
        "/doc/evil.md",
        "/doc/evil/llms.txt",
        "/doc/evil/changes",
        "/doc/evil/changes.atom",
        "/doc/evil/changes.rss",
        "/doc/evil/search?q=pets",
        "/doc/evil/search.json?q=pets",
        "/doc/evil/sitemap.xml",
        "/hub/evil-hub",
        "/hub/evil-hub/llms.txt",
        "/hub/evil-hub/changes.rss",
        "/hub/evil-hub/search.json?q=pets",
    ] {
        let (status, _, body) = site.get(path);
        assert_eq!(status, 200, "{path}: {body}");
        if let Some(c) = has_raw_controls(&body) {
            panic!("{path} shows the raw character U+{:04X}", c as u32);
        }
    }
    // The definition itself is data: served as deployed.
    let (status, _, body) = site.get("/doc/evil.json");
    assert_eq!(status, 200);
    assert!(
        body.contains('\u{202E}'),
        "the definition is served as deployed"
    );
}

/// The tools' Python with `feedparser`, the feed parser most readers are built on (`specpress_testkit`: the test
/// that uses it is ignored outside CI without it).
fn feedparser_python() -> PathBuf {
    specpress_testkit::python_with("feedparser")
}

/// Parses a feed with feedparser and answers, for the feed's title and every entry's title and summary, the HTML
/// elements a reader would render from it (feedparser's value parsed as HTML when feedparser says it is HTML; plain
/// text is shown as text), as JSON.
const ELEMENTS_OF: &str = r#"
import sys, json, feedparser
from html.parser import HTMLParser
class Tags(HTMLParser):
    def __init__(self):
        super().__init__(); self.tags = []
    def handle_starttag(self, tag, attrs): self.tags.append(tag)
def tags(detail):
    # Plain text is shown as text whatever it holds; HTML is what a reader renders.
    if detail.type != "text/html":
        return {"type": detail.type, "tags": [], "value": detail.value}
    p = Tags(); p.feed(detail.value); return {"type": detail.type, "tags": p.tags, "value": detail.value}
d = feedparser.parse(sys.stdin.buffer.read())
assert not d.bozo, d.bozo_exception
out = [tags(d.feed.title_detail)]
for e in d.entries:
    out.append(tags(e.title_detail)); out.append(tags(e.summary_detail))
print(json.dumps(out))
"#;

#[test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
fn rss_and_atom_feeds_parsed_by_feedparser_yield_text_never_markup() {
    let python = feedparser_python();
    let site = hostile_site();
    for path in [
        "/doc/evil/changes.rss",
        "/doc/evil/changes.atom",
        "/hub/evil-hub/changes.rss",
        "/hub/evil-hub/changes.atom",
    ] {
        let (status, _, xml) = site.get(path);
        assert_eq!(status, 200, "{path}");
        let mut child = Command::new(&python)
            .args(["-c", ELEMENTS_OF])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python runs");
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(xml.as_bytes())
            .expect("feed written");
        let out = child.wait_with_output().expect("feedparser answers");
        assert!(out.status.success(), "{path}: feedparser failed");
        let parsed: Vec<serde_json::Value> =
            serde_json::from_slice(&out.stdout).expect("JSON from the script");
        assert!(parsed.len() >= 3, "{path}: title and entries: {parsed:?}");
        for field in &parsed {
            assert_eq!(
                field["tags"],
                json!([]),
                "{path}: a reader would render markup from {field}"
            );
        }
        let all = serde_json::to_string(&parsed).unwrap_or_default();
        assert!(
            all.contains("src=z"),
            "{path}: the document's text is still there, as text: {all}"
        );
        if path.ends_with(".rss") {
            assert!(
                parsed.iter().any(|f| f["type"] == "text/html"),
                "{path}: feedparser reads RSS fields as HTML: {all}"
            );
        }
    }
}

#[test]
fn redirects_percent_encode_what_they_echo_and_never_fail() {
    let site = hostile_site();
    let (_, body) = site.api(Method::GET, "/api/v1/docs/evil", None);
    let id = body["id"].as_str().expect("doc id").to_owned();
    for (path, want) in [
        (
            "/doc/evil/branches/main/%0d%0aX:1".to_owned(),
            "/doc/evil/%0D%0AX:1",
        ),
        (format!("/doc/{id}/%00"), "/doc/evil/%00"),
        (format!("/doc/{id}/a%20b%3F%23"), "/doc/evil/a%20b%3F%23"),
        (
            "/doc/evil/branches/main/%E2%80%AEx".to_owned(),
            "/doc/evil/%E2%80%AEx",
        ),
        ("/doc/evil/".to_owned(), "/doc/evil"),
    ] {
        let (status, headers, body) = site.get(&path);
        assert!(status == 307 || status == 308, "{path}: {status} {body}");
        assert_eq!(header(&headers, "location"), want, "{path}");
        assert!(headers.get("x").is_none(), "{path}: a header was injected");
    }
    // What the redirect leads to is a plain 404 page, not a failure.
    let (status, _, _) = site.get("/doc/evil/%0D%0AX:1");
    assert_eq!(status, 404);
}

#[test]
fn a_private_documentation_answers_an_anonymous_reader_exactly_as_an_unknown_one() {
    let site = Site::start(ORG);
    site.create_hub("open-hub", "Open hub");
    site.create_hub("closed-hub", "Closed hub");
    let (s, b) = site.api(
        Method::PATCH,
        "/api/v1/hubs/closed-hub",
        Some(json!({"visibility": "private"})),
    );
    assert_eq!(s, 200, "{b}");
    let petstore =
        std::fs::read_to_string(specpress_e2e::fixtures().join("petstore.yaml")).expect("fixture");
    // Private on its own, private in a public hub, public in a private hub.
    for (slug, hub) in [
        ("alone", None),
        ("inopen", Some("open-hub")),
        ("inclosed", Some("closed-hub")),
    ] {
        site.create_doc(slug, slug, hub);
        site.deploy(slug, None, &petstore);
    }
    for slug in ["alone", "inopen"] {
        let (s, b) = site.api(
            Method::PATCH,
            &format!("/api/v1/docs/{slug}"),
            Some(json!({"visibility": "private"})),
        );
        assert_eq!(s, 200, "{b}");
    }
    // The API says what readers meet, beside the documentation's own setting.
    let (_, b) = site.api(Method::GET, "/api/v1/docs/inclosed", None);
    assert_eq!(
        (b["visibility"].as_str(), b["effective_visibility"].as_str()),
        (Some("public"), Some("private"))
    );
    let (_, b) = site.api(Method::GET, "/api/v1/docs/alone", None);
    assert_eq!(b["effective_visibility"], "private");
    let (_, list) = site.api(Method::GET, "/api/v1/docs", None);
    let listed = list.as_array().cloned().unwrap_or_default();
    let inclosed = listed
        .iter()
        .find(|d| d["slug"] == "inclosed")
        .expect("listed");
    assert_eq!(inclosed["effective_visibility"], "private", "{list}");
    for suffix in [
        "",
        "/changes",
        "/changes.rss",
        ".json",
        "/llms.txt",
        "/search?q=pet",
        "/operation/x.md",
    ] {
        let unknown = site.get(&format!("/doc/nosuchdoc{suffix}"));
        for slug in ["alone", "inopen", "inclosed"] {
            let private = site.get(&format!("/doc/{slug}{suffix}"));
            assert_eq!(private.0, unknown.0, "{slug}{suffix}: status");
            assert_eq!(
                private.2.replace(slug, "nosuchdoc"),
                unknown.2,
                "{slug}{suffix}: body"
            );
            let names = |h: &reqwest::header::HeaderMap| {
                let mut v: Vec<(String, String)> = h
                    .iter()
                    .filter(|(n, _)| {
                        !matches!(n.as_str(), "date" | "content-length" | "x-request-id")
                    })
                    .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_owned()))
                    .collect();
                v.sort();
                v
            };
            assert_eq!(
                names(&private.1),
                names(&unknown.1),
                "{slug}{suffix}: headers"
            );
        }
    }
}

#[test]
fn a_definition_and_a_versions_source_carry_a_validator_and_revalidate() {
    let site = Site::start(ORG);
    site.create_doc("evil", "Evil", None);
    let deployed = site.deploy("evil", None, hostile_document("1.0.0"));
    let id = deployed["id"].as_str().expect("version id");
    for path in [
        "/doc/evil.json".to_owned(),
        "/doc/evil.yaml".to_owned(),
        format!("/doc/evil/versions/{id}/source"),
    ] {
        let (status, headers, _) = site.get(&path);
        assert_eq!(status, 200, "{path}");
        assert_eq!(
            header(&headers, "cache-control"),
            "public, no-cache",
            "{path}"
        );
        let etag = header(&headers, "etag").to_owned();
        assert!(etag.starts_with('"'), "{path}: {etag:?}");
        let again = site
            .http
            .get(site.url(&path))
            .header("If-None-Match", &etag)
            .send()
            .expect("GET answers");
        assert_eq!(again.status().as_u16(), 304, "{path}");
    }
}

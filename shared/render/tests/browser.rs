//! Drives the headless-Chromium harness (`tests/browser/check.js`): renders the home page, an
//! operation page and a schema page of each corpus family (a channel and an operation page of the
//! AsyncAPI ones) into a temporary folder, serves them on 127.0.0.1 with the production
//! Content-Security-Policy, and requires no axe-core (WCAG 2.1 AA) violation, no CSP report and no
//! page error, with JavaScript disabled and enabled, light and dark, desktop and phone.
//!
//! Needs node, Chromium and playwright-core + axe-core (`specpress_testkit`'s `Tool::Chromium` and
//! `Tool::NodeModules`): when one is missing the tests fail under `CI=true` and are reported as
//! ignored otherwise. Screenshots go to SPECPRESS_SCREENSHOTS (default: a temporary folder, removed).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{BRANCHES, LINKS, corpus_dir, load};
use specpress_render::{
    McpScope, McpServer, PageContext, PageKind, Site, VersionInfo, asset_urls, assets,
};
use specpress_testkit::Tool;

/// The policy the lead's HTTP layer sets on every documentation page.
const CSP: &str = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' https: data:; font-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Chromium and the harness's Node modules (`specpress_testkit`: the test that calls this is marked ignored outside
/// CI when one is missing, and panics here when it runs without them).
fn tools() -> (PathBuf, PathBuf) {
    (
        specpress_testkit::tool(Tool::Chromium),
        specpress_testkit::tool(Tool::NodeModules),
    )
}

/// Serves `root` on 127.0.0.1 (one thread per connection, `Connection: close`), with the CSP.
fn serve(root: PathBuf) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            std::thread::spawn(move || answer(stream, &root));
        }
    });
    port
}

fn answer(mut stream: TcpStream, root: &Path) {
    let mut line = String::new();
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    if reader.read_line(&mut line).is_err() {
        return;
    }
    loop {
        let mut h = String::new();
        match reader.read_line(&mut h) {
            Ok(0) | Err(_) => break,
            Ok(_) if h == "\r\n" || h == "\n" => break,
            Ok(_) => {}
        }
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/");
    let path = path.split('?').next().unwrap_or("/");
    let rel = path.trim_start_matches('/');
    let safe = !rel.split('/').any(|s| s == "..");
    let mut file = root.join(rel);
    if file.is_dir() {
        file = file.join("index.html");
    }
    let (status, body, ctype) = match std::fs::read(&file) {
        Ok(b) if safe => {
            let ctype = match file.extension().and_then(|e| e.to_str()) {
                Some("css") => "text/css; charset=utf-8",
                Some("js") => "text/javascript; charset=utf-8",
                _ => "text/html; charset=utf-8",
            };
            ("200 OK", b, ctype)
        }
        _ => ("404 Not Found", b"not found".to_vec(), "text/plain"),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nContent-Security-Policy: {CSP}\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
}

/// Writes the chosen pages of one document under `out/<slug>/...` (with `only`, that operation's
/// page alone); returns their URL paths.
fn render_pages(
    doc_path: &Path,
    slug: &str,
    out: &Path,
    only: Option<(&str, &str)>,
) -> Vec<String> {
    let doc = load(doc_path);
    let site = Site::build(&doc);
    let base = format!("/{slug}");
    let urls = asset_urls("/static");
    let version = VersionInfo {
        id: "0190c6a2-7b1e-7c1a-9d2e-3f4a5b6c7d8e",
        published_at: "2026-11-25T10:00:00Z",
        api_version: doc.api_version(),
    };
    let mcp_href = format!("{base}/mcp");
    let mcp_url = format!("https://docs.example.com{mcp_href}");
    let ctx = PageContext {
        base: &base,
        doc_name: doc.title(),
        branches: BRANCHES,
        version: Some(version),
        assets: &urls,
        links: LINKS,
        search_action: None,
        alternates: &[],
        noindex: false,
        session_href: None,
        // The footer link on every page; the client configuration (with its token placeholder) on the home page.
        mcp: Some(McpServer {
            href: &mcp_href,
            url: Some(&mcp_url),
            name: slug,
            scope: McpScope::Documentation,
            token: true,
        }),
        try_it: Default::default(),
        release: None,
        since: None,
        follow: None,
    };
    let pages: Vec<_> = site.pages().collect();
    let mut wanted = Vec::new();
    let first = |k: PageKind| pages.iter().find(|p| p.kind == k);
    // The richest operation page among the first ones: most parameters and responses.
    let op = pages
        .iter()
        .filter(|p| p.kind == PageKind::Operation)
        .take(60)
        .max_by_key(|p| site.render(&doc, &p.page, &ctx).html.len().min(400_000));
    if let Some((method, path)) = only {
        let page = site
            .operation_page(&doc, method, path)
            .expect("the operation's page");
        wanted.extend(pages.iter().find(|p| p.page == page));
    }
    for p in [
        first(PageKind::Home),
        op,
        first(PageKind::Schema),
        first(PageKind::Channel),
        first(PageKind::MessageOperation),
        first(PageKind::Topic),
    ]
    .into_iter()
    .flatten()
    .filter(|_| only.is_none())
    {
        wanted.push(*p);
    }
    let mut paths = Vec::new();
    for p in wanted {
        let page = site.render(&doc, &p.page, &ctx);
        let dir = out.join(slug).join(p.path);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("index.html"), page.html).expect("write page");
        paths.push(if p.path.is_empty() {
            format!("{base}/")
        } else {
            format!("{base}/{}", p.path)
        });
    }
    paths
}

#[test]
#[cfg_attr(
    any(missing_chromium, missing_node_modules, missing_corpus),
    ignore = "needs Chromium and node with playwright-core and axe-core (scripts/install-tools.sh) and the API corpus (SPECPRESS_CORPUS)"
)]
fn corpus_pages_pass_axe_with_no_csp_report_in_headless_chromium() {
    let (chromium, modules) = tools();
    let corpus = corpus_dir();
    let site_dir = tempfile::tempdir().expect("tempdir");
    let root = site_dir.path().to_path_buf();
    std::fs::create_dir_all(root.join("static")).expect("mkdir");
    for a in assets() {
        std::fs::write(root.join("static").join(&a.name), a.bytes).expect("asset");
    }
    let mut paths = Vec::new();
    for (file, slug) in [
        ("openapi-3.0/github-api-23.0.2.json", "github"),
        ("openapi-3.0/stripe-2023-09-12.yaml", "stripe"),
        ("openapi-3.1/openai-2026-08-21.json", "openai"),
        ("swagger-2.0/kubernetes-1.36.json", "kubernetes"),
        ("asyncapi/streetlights-kafka-2.5.0.yml", "streetlights-2"),
        ("asyncapi/slack-rtm-3.0.0.yml", "slack-3"),
    ] {
        paths.extend(render_pages(&corpus.join(file), slug, &root, None));
    }
    let port = serve(root);
    let shots_keep = std::env::var_os("SPECPRESS_SCREENSHOTS").map(PathBuf::from);
    let shots_tmp = tempfile::tempdir().expect("tempdir");
    let shots = shots_keep
        .clone()
        .unwrap_or_else(|| shots_tmp.path().to_path_buf());
    let script = repo_root().join("tests/browser/check.js");
    let mut cmd = Command::new("node");
    cmd.arg(&script).arg("--out").arg(&shots);
    for p in &paths {
        cmd.arg(format!("http://127.0.0.1:{port}{p}"));
    }
    let out = cmd
        .env("SPECPRESS_CHROMIUM", &chromium)
        .env("SPECPRESS_NODE_MODULES", &modules)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "browser check failed:\n{stdout}\n{stderr}"
    );
    let pngs = std::fs::read_dir(&shots)
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "png"))
                .count()
        })
        .unwrap_or(0);
    assert_eq!(pngs, paths.len() * 5, "screenshots taken");
}

/// Runs `tests/browser/check.js` on `paths` served from `root`; panics on a problem. Keeps the
/// screenshots in SPECPRESS_SCREENSHOTS when set, and then also takes the two-pane screenshots
/// of `named` pages (`tests/browser/shots.js`).
fn check_pages(
    chromium: &Path,
    modules: &Path,
    root: PathBuf,
    paths: &[String],
    named: &[(&str, &str)],
) {
    let port = serve(root);
    let shots_keep = std::env::var_os("SPECPRESS_SCREENSHOTS").map(PathBuf::from);
    let shots_tmp = tempfile::tempdir().expect("tempdir");
    let shots = shots_keep
        .clone()
        .unwrap_or_else(|| shots_tmp.path().to_path_buf());
    let mut cmd = Command::new("node");
    cmd.arg(repo_root().join("tests/browser/check.js"))
        .arg("--out")
        .arg(&shots);
    for p in paths {
        cmd.arg(format!("http://127.0.0.1:{port}{p}"));
    }
    let out = cmd
        .env("SPECPRESS_CHROMIUM", chromium)
        .env("SPECPRESS_NODE_MODULES", modules)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "browser check failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    if shots_keep.is_some() {
        let mut cmd = Command::new("node");
        cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/shots.js"))
            .arg("--out")
            .arg(&shots);
        for (name, p) in named {
            cmd.arg(format!("{name}=http://127.0.0.1:{port}{p}"));
        }
        let out = cmd
            .env("SPECPRESS_CHROMIUM", chromium)
            .env("SPECPRESS_NODE_MODULES", modules)
            .output()
            .expect("run node");
        assert!(
            out.status.success(),
            "screenshots: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The two-pane operation pages (GitHub's "Create a pull request", with its long examples, and
/// the rail-bookings fixture, with its own `x-codeSamples`) pass axe with JavaScript on, light
/// and dark, desktop and phone, with no CSP report, and show without JavaScript.
#[test]
#[cfg_attr(
    any(missing_chromium, missing_node_modules, missing_corpus),
    ignore = "needs Chromium and node with playwright-core and axe-core (scripts/install-tools.sh) and the API corpus (SPECPRESS_CORPUS)"
)]
fn two_pane_operation_pages_pass_axe_with_no_csp_report_in_headless_chromium() {
    let (chromium, modules) = tools();
    let site_dir = tempfile::tempdir().expect("tempdir");
    let root = site_dir.path().to_path_buf();
    std::fs::create_dir_all(root.join("static")).expect("mkdir");
    for a in assets() {
        std::fs::write(root.join("static").join(&a.name), a.bytes).expect("asset");
    }
    let rail = repo_root().join("tests/fixtures/rail-bookings.yaml");
    let mut paths = render_pages(&rail, "rail", &root, Some(("POST", "/bookings")));
    let mut named = vec![("operation-rail-bookings", paths[0].clone())];
    {
        let corpus = corpus_dir();
        let github = corpus.join("openapi-3.0/github-api-23.0.2.json");
        let gh = render_pages(
            &github,
            "github",
            &root,
            Some(("POST", "/repos/{owner}/{repo}/pulls")),
        );
        named.push(("operation-github-pulls", gh[0].clone()));
        paths.extend(gh);
    }
    let named: Vec<(&str, &str)> = named.iter().map(|(n, p)| (*n, p.as_str())).collect();
    check_pages(&chromium, &modules, root, &paths, &named);
}

/// Two versions of a small API with breaking changes of several kinds (authentication added, a limit lowered, an
/// enum value removed, a response property removed, an operation removed), each with a migration note.
const MIGRATE_V1: &str = r#"{"openapi":"3.0.3","info":{"title":"Pets","version":"1"},
"components":{"securitySchemes":{"key":{"type":"apiKey","in":"header","name":"X-API-Key"}}},
"paths":{"/pets":{"post":{"operationId":"createPet","requestBody":{"required":true,"content":{"application/json":{"schema":{"type":"object","properties":{"name":{"type":"string","maxLength":100},"status":{"type":"string","enum":["available","sold"]}}}}}},
"responses":{"201":{"description":"created","content":{"application/json":{"schema":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}}}}}}}}},
"/pets/{id}":{"get":{"summary":"Get a pet","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],"responses":{"200":{"description":"ok"}}},
"delete":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],"responses":{"204":{"description":"gone"}}}}}}"#;

/// A change page ("How to migrate" and its notes: samples in eight languages, response examples, a removed
/// operation's alternatives) passes axe with no CSP report, with and without JavaScript, light and dark.
#[test]
#[cfg_attr(
    any(missing_chromium, missing_node_modules),
    ignore = "needs Chromium and node with playwright-core and axe-core (scripts/install-tools.sh)"
)]
fn a_change_page_with_migration_notes_passes_axe_with_no_csp_report_in_headless_chromium() {
    use specpress_render::changes::{ChangePage, Changes, ReleaseChanges, VersionRef, change_page};
    let (chromium, modules) = tools();
    let limits = specpress_apispec::Limits::default();
    let v2 = MIGRATE_V1
        .replace("\"maxLength\":100", "\"maxLength\":50")
        .replace("[\"available\",\"sold\"]", "[\"available\"]")
        .replace(",\"name\":{\"type\":\"string\"}}}}}}}", "}}}}}}")
        .replace("\"operationId\":\"createPet\",", "\"operationId\":\"createPet\",\"security\":[{\"key\":[]}],")
        .replace(
            "\"get\":{\"summary\":\"Get a pet\",\"parameters\":[{\"name\":\"id\",\"in\":\"path\",\"required\":true,\"schema\":{\"type\":\"integer\"}}],\"responses\":{\"200\":{\"description\":\"ok\"}}},\n",
            "",
        );
    let previous = specpress_apispec::parse(MIGRATE_V1, &[], &limits).expect("v1");
    let current = specpress_apispec::parse(&v2, &[], &limits).expect("v2");
    let report = specpress_diff::diff(&previous, &current, &specpress_diff::DiffOptions::default());
    let notes = report
        .changes()
        .iter()
        .filter(|c| c.migration().is_some())
        .count();
    assert!(notes >= 5, "{notes} notes: {:?}", report.changes());
    let changes = Changes::from_value(report.details()).expect("details");
    let site_dir = tempfile::tempdir().expect("tempdir");
    let root = site_dir.path().to_path_buf();
    std::fs::create_dir_all(root.join("static")).expect("mkdir");
    for a in assets() {
        std::fs::write(root.join("static").join(&a.name), a.bytes).expect("asset");
    }
    let urls = asset_urls("/static");
    let ctx = PageContext {
        base: "/pets",
        doc_name: "Pets",
        branches: BRANCHES,
        version: None,
        assets: &urls,
        links: LINKS,
        search_action: None,
        alternates: &[],
        noindex: false,
        session_href: None,
        mcp: None,
        try_it: Default::default(),
        release: None,
        since: None,
        follow: None,
    };
    let version = |id| VersionRef {
        id,
        api_version: "2",
        branch: "main",
        published_at: "2026-11-25T10:00:00Z",
        href: None,
    };
    let page = ChangePage {
        version: version("0190c6a2-7b1e-7c1a-9d2e-3f4a5b6c7d8e"),
        title: "Pets",
        previous: Some(version("0190c6a2-7b1e-7c1a-9d2e-3f4a5b6c7d8d")),
        changes: ReleaseChanges::Changes(&changes),
        changelog_href: "/pets/changes",
        json_href: "/pets/changes/v2.json",
        source_href: "/pets.json",
        compare_href: None,
        temporary: false,
    };
    let link = |_: &str, _: &str, _: &str| None;
    let html = change_page(&ctx, &page, &link);
    assert!(html.contains(">How to migrate</h2>"), "the section");
    assert!(html.contains("href=\"#m0\""), "a change links to its note");
    let dir = root.join("pets/changes/v2");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("index.html"), html).expect("write page");
    check_pages(
        &chromium,
        &modules,
        root,
        &["/pets/changes/v2".to_string()],
        &[("change-migrate", "/pets/changes/v2")],
    );
}

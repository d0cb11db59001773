//! The public page of a workflow MCP server (`specpress_render::workflow_server_page`): what it shows of a set of
//! workflows, that everything from the document and the server's owner stays text (escaped, neutralized,
//! sanitized), that a hostile document gives a bounded page, and (when the tools are installed) that the pages
//! pass axe-core in headless Chromium under the production Content-Security-Policy.
//!
//! The pages are built in `workflow_pages/mod.rs`; `cargo run -p specpress-render --example workflow_pages -- DIR`
//! writes them for review. `SPECPRESS_SCREENSHOTS=DIR` keeps the browser check's screenshots there
//! (`DIR/workflow-page-*.png`).

mod workflow_pages;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;

use scraper::{ElementRef, Html, Selector};
use serde_json::{Value, json};
use specpress_render::assets;
use specpress_testkit::Tool;
use specpress_workflow::{Step, Workflow};
use workflow_pages::*;

/// The largest page a hostile set may give (the renderer's budgets keep it well under).
const PAGE_CAP: usize = 3 * 1024 * 1024;

fn sel(s: &str) -> Selector {
    Selector::parse(s).expect("selector")
}

fn texts(doc: &Html, s: &str) -> Vec<String> {
    doc.select(&sel(s))
        .map(|e| e.text().collect::<String>())
        .collect()
}

#[test]
fn a_set_of_two_workflows_shows_each_tool_with_its_inputs_outputs_and_steps() {
    let html = normal_page();
    let doc = Html::parse_document(&html);
    assert_eq!(texts(&doc, "h1"), ["Pet flows"]);
    assert!(
        html.contains("<strong>pet store</strong>"),
        "description as Markdown"
    );
    // Contents: in-page links to one section per tool, whose heading is the tool name in code.
    let toc: Vec<(String, String)> = doc
        .select(&sel("nav[aria-label=Tools] a"))
        .map(|a| {
            (
                a.value().attr("href").unwrap_or_default().to_owned(),
                a.text().collect(),
            )
        })
        .collect();
    assert_eq!(
        toc,
        [
            ("#tool-adopt-pet".to_owned(), "adopt-pet".to_owned()),
            ("#tool-notify-owner".to_owned(), "notify-owner".to_owned())
        ]
    );
    assert_eq!(
        texts(&doc, "section h3[id^=tool-] > code"),
        ["adopt-pet", "notify-owner"]
    );
    for (href, _) in &toc {
        let id = href.trim_start_matches('#');
        assert_eq!(
            doc.select(&sel(&format!("[id=\"{id}\"]"))).count(),
            1,
            "{id}"
        );
    }
    assert!(html.contains("<p class=\"lead\">Adopt a pet</p>"), "{html}");
    assert!(html.contains("<em>adopts</em>"));
    // Inputs: names, types, required, enum, default, nested properties inside their parent's row.
    let names = texts(&doc, ".schema code.pn");
    for n in [
        "pet",
        "species",
        "max_age",
        "traits",
        "owner_email",
        "dry_run",
    ] {
        assert!(names.iter().any(|x| x == n), "{n}: {names:?}");
    }
    let nested = texts(&doc, ".schema li.p details li.p code.pn");
    assert!(nested.contains(&"species".to_owned()), "{nested:?}");
    assert!(!nested.contains(&"owner_email".to_owned()), "{nested:?}");
    assert!(html.contains("one of <code>&quot;dog&quot;</code>, <code>&quot;cat&quot;</code>, <code>&quot;parrot&quot;</code>"), "{html}");
    assert!(html.contains("default <code>3</code>"));
    assert!(html.contains("≥ <code>0</code>"));
    assert!(html.contains("string <span class=\"tf\">(email)</span>"));
    assert!(html.contains("array of string"));
    assert!(html.contains("<span class=\"b\">nullable</span>"));
    assert!(html.contains("<div class=\"md\"><p>Which kind.</p></div>"));
    // `pet` and `species` are required, `owner_email` is not.
    let required_rows: Vec<String> = doc
        .select(&sel("summary > .rq, .ph > .rq"))
        .filter_map(|b| b.parent().and_then(ElementRef::wrap))
        .filter_map(|row| row.select(&sel("code.pn")).next())
        .map(|c| c.text().collect())
        .collect();
    assert_eq!(required_rows, ["pet", "species", "email"]);
    // Outputs: name -> expression, in code.
    assert_eq!(
        texts(&doc, "h4 + ul.ps code.pn"),
        ["adoption_id", "pet_name", "sent"]
    );
    assert_eq!(
        texts(&doc, "h4 + ul.ps .ph > code:not(.pn)"),
        [
            "$steps.adopt.outputs.id",
            "$steps.search.outputs.name",
            "$steps.send.outputs.sent"
        ]
    );
    // Steps: id, method and path (or URL), where the operation comes from; a step running a tool links to it.
    assert!(
        html.contains(
            "<code class=\"pn\">search</code> <span class=\"m get\">GET</span> <code>/pets</code>"
        ),
        "{html}"
    );
    assert!(html.contains("<span class=\"m post\">POST</span> <code>/adoptions</code>"));
    assert!(html.contains("<span class=\"c\">operation <code>findPets</code></span>"));
    assert!(
        html.contains(
            "<span class=\"c\">server <code>https://petstore.example.com/v1</code></span>"
        )
    );
    assert!(html.contains("<code>https://mail.example.com/send?to={$inputs.email}</code>"));
    assert!(html.contains("<p>Finds an available pet of the <strong>species</strong> asked.</p>"));
    let links: Vec<_> = doc
        .select(&sel("ol.ps a[href]"))
        .map(|a| a.value().attr("href").unwrap_or_default().to_owned())
        .collect();
    assert_eq!(links, ["#tool-notify-owner"]);
    // The deployed version and the document.
    assert!(html.contains("Version <code>0190c6a2-7b1e-7c1a-9d2e-3f4a5b6c7d8e</code>"));
    assert!(html.contains("<time datetime=\"2026-11-27T09:30:12Z\">2026-11-27 09:30 UTC</time>"));
    assert!(html.contains("<li>Arazzo 1.0.1</li>"));
    assert!(html.contains("<li>2 tools</li>"));
    assert!(html.contains("<code>https://petstore.example.com</code>"));
    assert!(!html.contains("Nothing deployed yet"));
}

#[test]
fn the_client_configuration_names_the_endpoint_and_a_token_placeholder() {
    let html = normal_page();
    let doc = Html::parse_document(&html);
    assert_eq!(texts(&doc, "p.endpoint code"), [ENDPOINT]);
    let config = texts(&doc, "pre.code[data-lang=json] code");
    assert_eq!(config.len(), 1);
    let v: Value = serde_json::from_str(&config[0]).expect("the configuration is JSON");
    assert_eq!(v["mcpServers"]["pet-flows"]["url"], ENDPOINT);
    assert_eq!(
        v["mcpServers"]["pet-flows"]["headers"]["Authorization"],
        "Bearer <your token>"
    );
    // The same text as the builder of the documentation pages.
    assert_eq!(
        config[0],
        specpress_render::mcp::client_config(ENDPOINT, "pet-flows", true)
    );
    assert!(
        html.contains("Replace <code>&lt;your token&gt;</code>"),
        "{html}"
    );
}

#[test]
fn a_server_with_nothing_deployed_says_how_to_deploy_and_still_how_to_connect() {
    let html = page(None, "Pet flows", None, "pet-flows");
    let doc = Html::parse_document(&html);
    assert_eq!(
        texts(&doc, "p.notice code"),
        ["bump deploy workflow.yaml --mcp-server pet-flows"]
    );
    assert!(html.contains("Nothing deployed yet"), "{html}");
    assert_eq!(texts(&doc, "p.endpoint code"), [ENDPOINT]);
    assert_eq!(doc.select(&sel("section")).count(), 0);
    assert_eq!(doc.select(&sel("nav[aria-label=Tools]")).count(), 0);
}

/// No `<script` but the shell's one script element, no event handler, no link or source but http(s), `mailto:`
/// or in-page, no bidi control.
fn assert_inert(html: &str) {
    assert_eq!(
        html.matches("<script").count(),
        1,
        "only the shell's script"
    );
    assert!(html.contains("<script src=\"/static/site."));
    assert!(!html.contains('\u{202E}'), "bidi control neutralized");
    let doc = Html::parse_document(html);
    let everything = sel("*");
    for e in doc.select(&everything) {
        let tag = e.value().name();
        assert!(
            !matches!(tag, "iframe" | "object" | "embed" | "form" | "img" | "svg"),
            "{tag} element"
        );
        for (k, v) in e.value().attrs() {
            assert!(!k.starts_with("on"), "{k}={v} on {tag}");
            if matches!(k, "href" | "src") {
                assert!(
                    v.starts_with("https://")
                        || v.starts_with('#')
                        || v.starts_with("/static/")
                        || v.starts_with("/mcp/"),
                    "{k}={v} on {tag}"
                );
            }
        }
    }
}

#[test]
fn a_hostile_set_renders_escaped_neutralized_and_bounded() {
    let html = hostile_page();
    assert_inert(&html);
    assert!(html.len() < PAGE_CAP, "{} bytes", html.len());
    let doc = Html::parse_document(&html);
    // Names are text: the hostile tool name reads as written, bidi control made visible.
    let expected = "x\"'><script>alert(1)</script>\u{FFFD}gpj.exe";
    let headings = texts(&doc, "section h3 > code");
    assert_eq!(headings[0], expected);
    assert!(html.contains("x&quot;&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\u{FFFD}gpj.exe"));
    // Anchors are unique, URL-safe, and the contents link to them.
    let ids: Vec<String> = doc
        .select(&sel("section h3"))
        .map(|h| h.value().attr("id").unwrap_or_default().to_owned())
        .collect();
    assert_eq!(ids.len(), 5);
    let unique: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), 5, "{ids:?}");
    for id in &ids {
        assert!(
            id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'),
            "{id}"
        );
        assert!(html.contains(&format!("href=\"#{id}\"")), "{id}");
    }
    // Property names, enum values and defaults are text.
    let names = texts(&doc, "code.pn");
    assert!(names.contains(&"\"><script>alert(4)</script>".to_owned()));
    assert!(names.contains(&"'".to_owned()) && names.contains(&"<".to_owned()));
    assert!(html.contains("&lt;/code&gt;&lt;script&gt;"));
    // A step running an unknown tool names it without a link; one running a known tool links to it.
    assert!(html.contains("runs the tool <code>&lt;script&gt;unknown</code>"));
    assert!(html.contains(&format!("runs the tool <a href=\"#{}\">", ids[0])));
    // Markdown links to javascript: are dropped, their text kept.
    assert!(html.contains("click"));
    assert!(!html.to_ascii_lowercase().contains("javascript:alert(1)\""));
    // The client configuration keeps the hostile slug inside its JSON string.
    let config = texts(&doc, "pre.code[data-lang=json] code");
    let v: Value = serde_json::from_str(&config[0]).expect("JSON");
    assert_eq!(v["mcpServers"]["pet\"<flows>"]["url"], ENDPOINT);
    assert_eq!(
        texts(&doc, "h1"),
        ["<script>alert('name')</script>\u{FFFD}"]
    );
}

#[test]
fn a_schema_of_ten_thousand_properties_or_fifty_levels_is_cut_with_a_note() {
    let html = hostile_page();
    let doc = Html::parse_document(&html);
    let wide = doc
        .select(&sel("section"))
        .find(|s| s.select(&sel("h3#tool-wide")).next().is_some())
        .expect("the wide tool's section");
    let rows = wide.select(&sel("li.p")).count();
    assert_eq!(rows, 400, "rows of one tool's inputs");
    assert!(
        wide.html()
            .contains("More inputs are not shown here (page size limit).")
    );
    let deep = doc
        .select(&sel("section"))
        .find(|s| s.select(&sel("h3#tool-deep")).next().is_some())
        .expect("the deep tool's section");
    let names: Vec<String> = deep
        .select(&sel("code.pn"))
        .map(|c| c.text().collect())
        .collect();
    assert_eq!(names.len(), 8, "{names:?}");
    assert_eq!(names.last().map(String::as_str), Some("level7"));
    assert!(deep.html().contains("Nested deeper than this page shows."));
    // Same slug, other tool: its own anchor.
    assert_eq!(doc.select(&sel("h3[id^=tool-wide-]")).count(), 1);
}

#[test]
fn a_huge_set_is_cut_to_the_page_budget_with_notes() {
    let big_md = "Lorem *ipsum* <dolor> \"sit\" & amet. ".repeat(600);
    let mut props = serde_json::Map::new();
    for i in 0..500 {
        props.insert(
            format!("{}{i}", "\"".repeat(100)),
            json!({"type": "string", "description": big_md, "enum": vec!["<&>".repeat(60); 100]}),
        );
    }
    let inputs = Value::Object(
        [
            ("type".to_owned(), json!("object")),
            ("properties".to_owned(), Value::Object(props)),
        ]
        .into_iter()
        .collect(),
    );
    let steps: Vec<Step> = (0..300)
        .map(|i| {
            step(
                &format!("s{i}{}", "'".repeat(200)),
                Some(&big_md[..4000]),
                http("GET", &"<".repeat(2000), Some("x"), None),
            )
        })
        .collect();
    let outputs: Vec<(String, String)> = (0..300)
        .map(|i| (format!("o{i}{}", "&".repeat(200)), "\"".repeat(2000)))
        .collect();
    let outputs: Vec<(&str, &str)> = outputs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let small = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    // The first tools are huge (they spend the budget); a thousand more are small but many.
    let workflows: Vec<Workflow> = (0..1_000)
        .map(|i| {
            let name = format!("t{i}{}", "\"".repeat(300));
            let mut w = match i {
                0..3 => workflow(&name, inputs.clone(), &outputs, steps.clone()),
                3..30 => workflow(&name, small.clone(), &outputs, steps.clone()),
                _ => workflow(&name, small.clone(), &outputs[..1], steps[..1].to_vec()),
            };
            w.summary = Some("<".repeat(1000));
            w.description = Some(big_md.clone());
            w.depends_on = (0..50).map(|d| format!("t{d}")).collect();
            w
        })
        .collect();
    let set = set(workflows);
    let started = std::time::Instant::now();
    let html = page(Some(&set), "Huge", None, "huge");
    let took = started.elapsed();
    assert!(html.len() < PAGE_CAP, "{} bytes", html.len());
    assert_inert(&html);
    assert!(
        html.contains("800 more tools are not shown on this page (page size limit)."),
        "tools past 200"
    );
    assert!(
        html.contains(
            "The inputs, outputs and steps of this tool are not shown (page size limit)."
        )
    );
    let doc = Html::parse_document(&html);
    assert_eq!(doc.select(&sel("section")).count(), 200);
    assert_eq!(doc.select(&sel("nav[aria-label=Tools] li")).count(), 200);
    eprintln!("huge set: {} bytes in {took:?}", html.len());
}

// ---------------------------------------------------------------------------------------------------------------
// The browser check: the harness of tests/browser.rs (tests/browser/check.js at the repository's root), on these
// pages.

/// The policy the lead's HTTP layer sets on every page.
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

/// Serves `root` on 127.0.0.1 with the CSP (one thread per connection, `Connection: close`).
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
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut line = String::new();
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
    let rel = path
        .split('?')
        .next()
        .unwrap_or("/")
        .trim_start_matches('/');
    let mut file = root.join(rel);
    if file.is_dir() {
        file = file.join("index.html");
    }
    let (status, body, ctype) = match std::fs::read(&file) {
        Ok(b) if !rel.split('/').any(|s| s == "..") => {
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

#[test]
#[cfg_attr(
    any(missing_chromium, missing_node_modules),
    ignore = "needs Chromium and node with playwright-core and axe-core (scripts/install-tools.sh)"
)]
fn the_pages_pass_axe_with_no_csp_report_in_headless_chromium() {
    let (chromium, modules) = tools();
    let site = tempfile::tempdir().expect("tempdir");
    let root = site.path().to_path_buf();
    std::fs::create_dir_all(root.join("static")).expect("mkdir");
    for a in assets() {
        std::fs::write(root.join("static").join(&a.name), a.bytes).expect("asset");
    }
    let mut paths = Vec::new();
    for (name, html) in pages() {
        std::fs::create_dir_all(root.join(name)).expect("mkdir");
        std::fs::write(root.join(name).join("index.html"), html).expect("write page");
        paths.push(format!("/{name}/"));
    }
    let port = serve(root);
    let keep = std::env::var_os("SPECPRESS_SCREENSHOTS").map(PathBuf::from);
    let shots_tmp = tempfile::tempdir().expect("tempdir");
    let shots = keep.unwrap_or_else(|| shots_tmp.path().to_path_buf());
    let mut cmd = Command::new("node");
    cmd.arg(repo_root().join("tests/browser/check.js"))
        .arg("--out")
        .arg(&shots);
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
                .filter(|e| {
                    let n = e.file_name();
                    let n = n.to_string_lossy();
                    n.starts_with("workflow-page") && n.ends_with(".png")
                })
                .count()
        })
        .unwrap_or(0);
    assert_eq!(pngs, paths.len() * 5, "screenshots taken");
}

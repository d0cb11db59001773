//! Embed mode end to end (issue 40): every router `specpress serve` merges, served on 127.0.0.1 over the embedded
//! engine, with a documentation's `embed_origins` set through the store (the owner's `PATCH` sets them the same
//! way). A page asked with `?embed=1` comes without the site's header and sidebar, its links keep `embed=1`, and its
//! `frame-ancestors` lists exactly the documentation's origins (`'none'` and `X-Frame-Options: DENY` otherwise);
//! in headless Chromium, the page shows in a frame of the allowed origin and is refused in a frame of another.
//!
//! The two embedding sites are two local origins (`http://127.0.0.1:<port>`, served by the test): the owner's
//! `PATCH` accepts https origins only, the header is the same for any stored origin.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;

use reqwest::blocking::Client;
use serde_json::json;
use specpress_domain::embed::EmbedOrigins;
use specpress_domain::model::{DocOrHub, Slug};
use specpress_domain::ports::Store;
use specpress_e2e::{fixtures, temp_dir};

const ORG: &str = "embed-tests-organization-token-42";

/// The merged routers on 127.0.0.1 (a thread of their own), with their store and runtime for the test.
struct InProcess {
    base: String,
    store: Arc<dyn Store>,
    runtime: tokio::runtime::Handle,
    _dir: tempfile::TempDir,
}

fn serve() -> InProcess {
    use specpress_local_server::backend::{Backend, BackendOptions};
    let dir = temp_dir();
    let data_dir = dir.path().to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let handle = runtime.handle().clone();
        runtime.block_on(async move {
            let backend = Backend::connect(&BackendOptions {
                data_dir,
                table: None,
                create_table: false,
            })
            .await
            .expect("embedded engine");
            specpress_domain::usecases::manage::bootstrap_default_org(
                backend.store.as_ref(),
                "Org",
                Some(ORG),
                time::OffsetDateTime::now_utc(),
            )
            .await
            .expect("organization");
            let config = specpress_api::Config {
                public_url: String::new(),
                ..specpress_api::Config::default()
            };
            let state = specpress_api::AppState::from_config(&config, backend.store.clone());
            let app = specpress::app(state, Arc::new(specpress_engines::Engines::default()));
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("listens");
            let addr = listener.local_addr().expect("address");
            tx.send((addr, backend.store.clone(), handle))
                .expect("test waits");
            let _ = axum::serve(
                listener,
                app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
            )
            .await;
        });
    });
    let (addr, store, runtime) = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the routers listen");
    InProcess {
        base: format!("http://{addr}"),
        store,
        runtime,
        _dir: dir,
    }
}

/// A site of its own on 127.0.0.1 whose every page frames `framed`: its origin.
fn embedder(framed: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listens");
    let origin = format!("http://{}", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let page = format!(
                "<!DOCTYPE html><html lang=\"en\"><head><title>Owner</title></head><body><h1>Our API</h1>\
                 <iframe title=\"API reference\" src=\"{framed}\" width=\"1000\" height=\"700\"></iframe></body></html>"
            );
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
        }
    });
    origin
}

fn create_and_deploy(http: &Client, base: &str, slug: &str) {
    let r = http
        .post(format!("{base}/api/v1/docs"))
        .header("Authorization", format!("Token {ORG}"))
        .json(&json!({"name": slug, "slug": slug}))
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 201);
    let definition = std::fs::read_to_string(fixtures().join("petstore.yaml")).expect("fixture");
    let r = http
        .post(format!("{base}/api/v1/versions"))
        .header("Authorization", format!("Token {ORG}"))
        .json(&json!({"documentation": slug, "definition": definition}))
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 201);
}

fn set_origins(site: &InProcess, slug: &str, origins: Vec<String>) {
    let store = site.store.clone();
    let slug = Slug::parse(slug).expect("slug");
    site.runtime.block_on(async move {
        let doc = store
            .doc_by_public_slug(&slug)
            .await
            .expect("read")
            .expect("documentation");
        store
            .update_reader_settings(
                doc.org_id,
                DocOrHub::Doc(doc.id),
                None,
                Some(&EmbedOrigins::from_stored(origins)),
                time::OffsetDateTime::now_utc(),
            )
            .await
            .expect("settings");
    });
}

/// The `frame-ancestors` directive and `X-Frame-Options` of a page, and its body.
fn framing(http: &Client, url: &str) -> (String, Option<String>, String) {
    let r = http.get(url).send().expect("answers");
    assert_eq!(r.status().as_u16(), 200, "{url}");
    let csp = r.headers()["content-security-policy"]
        .to_str()
        .expect("text")
        .to_owned();
    let ancestors = csp
        .split(';')
        .map(str::trim)
        .find(|d| d.starts_with("frame-ancestors"))
        .unwrap_or_else(|| panic!("no frame-ancestors in {csp}"))
        .to_owned();
    let xfo = r
        .headers()
        .get("x-frame-options")
        .map(|v| v.to_str().expect("text").to_owned());
    (ancestors, xfo, r.text().expect("text"))
}

#[test]
fn embed_pages_lose_the_shell_keep_embed_mode_and_name_exactly_the_owner_s_origins() {
    let site = serve();
    let http = Client::new();
    create_and_deploy(&http, &site.base, "pets");
    create_and_deploy(&http, &site.base, "plain");
    let allowed = "https://www.example.com".to_owned();
    let other = "https://app.example.com:8443".to_owned();
    set_origins(&site, "pets", vec![allowed.clone(), other.clone()]);

    // WHEN the page is asked in embed mode
    let (ancestors, xfo, body) = framing(&http, &format!("{}/doc/pets?embed=1", site.base));
    // THEN exactly the owner's origins may frame it, and X-Frame-Options does not contradict them
    assert_eq!(ancestors, format!("frame-ancestors {allowed} {other}"));
    assert_eq!(xfo, None);
    // AND it comes without the site's header and sidebar, its links keeping embed=1 (static assets aside)
    assert!(!body.contains("<header class=\"top\">"), "{body}");
    assert!(!body.contains("class=\"side\""));
    assert!(body.contains("<main id=\"main\""));
    let links: Vec<&str> = body
        .match_indices("href=\"/")
        .map(|(i, _)| {
            let rest = &body[i + 6..];
            &rest[..rest.find('"').unwrap_or(rest.len())]
        })
        .collect();
    assert!(
        links.iter().any(|l| l.starts_with("/doc/pets/")),
        "{links:?}"
    );
    for l in &links {
        assert!(
            l.starts_with("/static/") || l.contains("embed=1"),
            "link {l} lost embed mode"
        );
    }

    // AND outside embed mode the same page is framed by nobody, with its header
    let (ancestors, xfo, body) = framing(&http, &format!("{}/doc/pets", site.base));
    assert_eq!(ancestors, "frame-ancestors 'none'");
    assert_eq!(xfo.as_deref(), Some("DENY"));
    assert!(body.contains("<header class=\"top\">"));
    // AND a documentation without origins is framed by nobody, even in embed mode
    let (ancestors, xfo, _) = framing(&http, &format!("{}/doc/plain?embed=1", site.base));
    assert_eq!(ancestors, "frame-ancestors 'none'");
    assert_eq!(xfo.as_deref(), Some("DENY"));
    // AND an unknown documentation's 404 in embed mode names no origin
    let r = http
        .get(format!("{}/doc/nothing-here?embed=1", site.base))
        .send()
        .expect("answers");
    assert_eq!(r.status().as_u16(), 404);
    assert!(
        r.headers()["content-security-policy"]
            .to_str()
            .expect("text")
            .contains("frame-ancestors 'none'")
    );
}

#[test]
#[cfg_attr(
    any(missing_chromium, missing_node_modules),
    ignore = "needs Chromium and node with playwright-core (scripts/install-tools.sh)"
)]
fn an_embedded_page_shows_in_a_frame_of_the_owner_s_origin_and_is_refused_in_any_other() {
    let (chromium, modules) = specpress_e2e::browser::tools();
    let site = serve();
    let http = Client::new();
    create_and_deploy(&http, &site.base, "pets");
    let framed = format!("{}/doc/pets?embed=1", site.base);
    let allowed = embedder(framed.clone());
    let refused = embedder(framed);
    set_origins(&site, "pets", vec![allowed.clone()]);

    let out = temp_dir();
    let run = std::process::Command::new("node")
        .arg(specpress_e2e::repo_root().join("tests/browser/embed.js"))
        .arg("--out")
        .arg(out.path())
        .arg(format!("{allowed}/"))
        .arg(format!("{refused}/"))
        .env("SPECPRESS_CHROMIUM", &chromium)
        .env("SPECPRESS_NODE_MODULES", &modules)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    println!("{stdout}");
    if let Some(keep) = std::env::var_os("SPECPRESS_SCREENSHOTS").map(std::path::PathBuf::from) {
        let _ = std::fs::create_dir_all(&keep);
        for name in ["embed--allowed.png", "embed--refused.png"] {
            let _ = std::fs::copy(out.path().join(name), keep.join(name));
        }
    }
    assert!(
        run.status.success(),
        "embed check failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(out.path().join("embed--allowed.png").exists());
    assert!(out.path().join("embed--refused.png").exists());
}

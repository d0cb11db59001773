//! The host of public URLs, end to end against the real `specpress serve` (issue 31, defect 4): a client's
//! `X-Forwarded-Host` (or `X-Forwarded-Proto`) never writes the host of `doc_public_url` or of a feed's links;
//! with `SPECPRESS_TRUST_FORWARDED_HOST=true` (a proxy in front sets them) and no public URL, the forwarded host
//! and scheme are used; a configured `SPECPRESS_PUBLIC_URL` wins over every header.
//!
//! `serve` without a public URL or the setting names the address it listens on, so the configuration of a Lambda
//! behind API Gateway (no public URL: the SAM template's default; public URLs from each request's `Host`) is
//! checked on the same routers served in-process with exactly that configuration
//! ([`the_lambda_configuration_takes_the_host_header_never_a_forged_forwarded_host`]).

use reqwest::blocking::Client;
use serde_json::{Value, json};
use specpress_e2e::{Server, fixtures, temp_dir};

const ORG: &str = "public-base-tests-organization-token-42";

/// A server with extra environment, a client that does not follow redirects, and the data directory.
struct Served {
    server: Server,
    http: Client,
    _dir: tempfile::TempDir,
}

impl Served {
    fn start(env: &[(&str, &str)]) -> Served {
        let dir = temp_dir();
        let mut all = vec![("SPECPRESS_ORG_TOKEN", ORG)];
        all.extend_from_slice(env);
        let server = Server::start(dir.path(), &all);
        let http = Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("HTTP client");
        Served {
            server,
            http,
            _dir: dir,
        }
    }

    /// A request to a path with the organization token and `headers`: status and JSON body.
    fn api(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> (u16, Value) {
        let mut rb = self
            .http
            .request(method, format!("{}{path}", self.server.base_url))
            .header("Authorization", format!("Token {ORG}"));
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let r = rb.send().expect("answers");
        let s = r.status().as_u16();
        (s, r.json().unwrap_or(Value::Null))
    }

    /// Creates the documentation `pets` and deploys the petstore with `headers`: the deploy's `doc_public_url`.
    fn deploy_pets(&self, headers: &[(&str, &str)]) -> String {
        let (s, b) = self.api(
            reqwest::Method::POST,
            "/api/v1/docs",
            Some(json!({"name": "Pets", "slug": "pets"})),
            &[],
        );
        assert_eq!(s, 201, "{b}");
        let definition =
            std::fs::read_to_string(fixtures().join("petstore.yaml")).expect("fixture");
        let (s, b) = self.api(
            reqwest::Method::POST,
            "/api/v1/versions",
            Some(json!({"documentation": "pets", "definition": definition})),
            headers,
        );
        assert_eq!(s, 201, "{b}");
        b["doc_public_url"]
            .as_str()
            .expect("doc_public_url")
            .to_owned()
    }

    /// The documentation's `doc_public_url` as `GET /api/v1/docs/pets` answers it to a request with `headers`.
    fn doc_url(&self, headers: &[(&str, &str)]) -> String {
        let (s, b) = self.api(reqwest::Method::GET, "/api/v1/docs/pets", None, headers);
        assert_eq!(s, 200, "{b}");
        b["doc_public_url"]
            .as_str()
            .expect("doc_public_url")
            .to_owned()
    }

    /// A public page or feed fetched with `headers`: its body.
    fn get(&self, path: &str, headers: &[(&str, &str)]) -> String {
        let mut rb = self.http.get(format!("{}{path}", self.server.base_url));
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        let r = rb.send().expect("answers");
        assert_eq!(r.status().as_u16(), 200, "{path}");
        r.text().expect("text")
    }
}

/// Every absolute URL (`http://` or `https://`) of a text, up to the next quote, angle bracket or space.
fn absolute_urls(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for scheme in ["http://", "https://"] {
        for (i, _) in text.match_indices(scheme) {
            let rest = &text[i..];
            let end = rest
                .find(['"', '<', '>', ' ', '\'', '\n'])
                .unwrap_or(rest.len());
            out.push(rest[..end].to_owned());
        }
    }
    out
}

/// The routers every function serves, merged as `specpress serve` merges them, over the embedded engine with the
/// configuration of a Lambda behind API Gateway without `SPECPRESS_PUBLIC_URL`; served on 127.0.0.1 from a thread of
/// their own. Answers the address and the data directory (kept for the test).
fn lambda_configured_routers(org_token: &str) -> (String, tempfile::TempDir) {
    use specpress_local_server::backend::{Backend, BackendOptions};
    let dir = temp_dir();
    let data_dir = dir.path().to_path_buf();
    let token = org_token.to_owned();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
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
                Some(&token),
                time::OffsetDateTime::now_utc(),
            )
            .await
            .expect("organization");
            let config = specpress_api::Config {
                public_url: String::new(),
                trust_forwarded_host: false,
                ..specpress_api::Config::default()
            };
            let state = specpress_api::AppState::from_config(&config, backend.store.clone());
            let engine = std::sync::Arc::new(specpress_engines::Engines::default());
            let app = specpress::app(state, engine);
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("listens");
            let addr = listener.local_addr().expect("address");
            tx.send(addr).expect("test waits");
            let _ = axum::serve(
                listener,
                app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
            )
            .await;
        });
    });
    let addr = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the routers listen");
    (format!("http://{addr}"), dir)
}

#[test]
fn the_lambda_configuration_takes_the_host_header_never_a_forged_forwarded_host() {
    // GIVEN every router with no public URL and no trusted proxy (the SAM template's defaults), reached as the API
    // Gateway domain `api.example` (its Host)
    let (base, _dir) = lambda_configured_routers(ORG);
    let http = Client::new();
    let host = [("Host", "api.example")];
    let send =
        |method: reqwest::Method, path: &str, body: Option<Value>, extra: &[(&str, &str)]| {
            let mut rb = http
                .request(method, format!("{base}{path}"))
                .header("Authorization", format!("Token {ORG}"));
            for (k, v) in host.iter().chain(extra) {
                rb = rb.header(*k, *v);
            }
            if let Some(b) = body {
                rb = rb.json(&b);
            }
            rb.send().expect("answers")
        };
    let r = send(
        reqwest::Method::POST,
        "/api/v1/docs",
        Some(json!({"name": "Pets", "slug": "pets"})),
        &[],
    );
    assert_eq!(r.status().as_u16(), 201);
    // WHEN a client deploys, and reads a feed, with forwarding headers of its choosing
    let definition = std::fs::read_to_string(fixtures().join("petstore.yaml")).expect("fixture");
    let r = send(
        reqwest::Method::POST,
        "/api/v1/versions",
        Some(json!({"documentation": "pets", "definition": definition})),
        &FORGED_DOWNGRADE,
    );
    assert_eq!(r.status().as_u16(), 201);
    let deployed: Value = r.json().expect("JSON");
    // THEN `doc_public_url` names the host the request reached, on https
    assert_eq!(
        deployed["doc_public_url"],
        json!("https://api.example/doc/pets")
    );
    // and so do the feed's links.
    let atom = send(
        reqwest::Method::GET,
        "/doc/pets/changes.atom",
        None,
        &FORGED_DOWNGRADE,
    )
    .text()
    .expect("feed");
    assert!(
        !atom.contains("evil.example") && !atom.contains("http://api.example"),
        "{atom}"
    );
    assert!(
        atom.contains("href=\"https://api.example/doc/pets/changes\""),
        "{atom}"
    );
}

/// A forged host, and a forged downgrade to plain HTTP.
const FORGED_DOWNGRADE: [(&str, &str); 2] = [
    ("X-Forwarded-Host", "evil.example"),
    ("X-Forwarded-Proto", "http"),
];

const FORGED: [(&str, &str); 2] = [
    ("X-Forwarded-Host", "evil.example"),
    ("X-Forwarded-Proto", "https"),
];

#[test]
fn a_forged_forwarded_host_never_writes_the_host_of_doc_public_url_or_of_feed_links() {
    // GIVEN a server with neither a public URL nor trusted forwarding headers
    let s = Served::start(&[]);
    let real = s.server.base_url.clone();
    // WHEN a client deploys and reads with forwarding headers of its choosing
    let deployed = s.deploy_pets(&FORGED);
    // THEN the public URLs it is answered are on the host the server is reached at
    assert_eq!(deployed, format!("{real}/doc/pets"));
    assert_eq!(s.doc_url(&FORGED), format!("{real}/doc/pets"));
    // and so are a feed's links, in both formats.
    for feed in ["/doc/pets/changes.atom", "/doc/pets/changes.rss"] {
        let body = s.get(feed, &FORGED);
        assert!(!body.contains("evil.example"), "{feed}: {body}");
        let urls = absolute_urls(&body);
        let ours: Vec<&String> = urls.iter().filter(|u| u.starts_with(&real)).collect();
        assert!(
            ours.len() >= 2,
            "{feed}: the feed's own and its entry's links: {urls:?}"
        );
    }
}

#[test]
fn with_trusted_forwarding_headers_the_proxy_s_host_and_scheme_make_public_urls() {
    // GIVEN a server behind a proxy that sets the forwarding headers, and no public URL
    let s = Served::start(&[("SPECPRESS_TRUST_FORWARDED_HOST", "true")]);
    let real = s.server.base_url.clone();
    let proxy = [
        ("X-Forwarded-Host", "docs.example"),
        ("X-Forwarded-Proto", "https"),
    ];
    // WHEN requests come through the proxy
    let deployed = s.deploy_pets(&proxy);
    // THEN public URLs name the proxy's host and scheme, in API answers and in feeds
    assert_eq!(deployed, "https://docs.example/doc/pets");
    assert_eq!(s.doc_url(&proxy), "https://docs.example/doc/pets");
    let atom = s.get("/doc/pets/changes.atom", &proxy);
    assert!(
        atom.contains("href=\"https://docs.example/doc/pets/changes\""),
        "{atom}"
    );
    assert!(!atom.contains(&real), "{atom}");
    // and a request that did not come through it names the host it reached.
    assert_eq!(s.doc_url(&[]), format!("{real}/doc/pets"));
    let atom = s.get("/doc/pets/changes.atom", &[]);
    assert!(
        atom.contains(&format!("href=\"{real}/doc/pets/changes\"")),
        "{atom}"
    );
}

#[test]
fn a_configured_public_url_wins_over_trusted_forwarding_headers() {
    let s = Served::start(&[
        ("SPECPRESS_TRUST_FORWARDED_HOST", "true"),
        ("SPECPRESS_PUBLIC_URL", "https://api-docs.example/"),
    ]);
    let deployed = s.deploy_pets(&[("X-Forwarded-Host", "docs.example")]);
    assert_eq!(deployed, "https://api-docs.example/doc/pets");
    let rss = s.get(
        "/doc/pets/changes.rss",
        &[("X-Forwarded-Host", "docs.example")],
    );
    assert!(
        rss.contains("https://api-docs.example/doc/pets/changes"),
        "{rss}"
    );
    assert!(!rss.contains("://docs.example"), "{rss}");
}

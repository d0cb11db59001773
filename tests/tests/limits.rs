//! Request size limits, end to end against the real `specpress serve`: the default takes the largest corpus
//! documents; over a limit, every client reads a complete JSON answer naming the limit and the way around it, and
//! bump-cli prints it as a readable message instead of `Unhandled API error (status: 413)` or `write EPIPE`.

use std::io::{Read, Write};

use flate2::Compression;
use flate2::write::GzEncoder;
use reqwest::blocking::Client;
use serde_json::{Value, json};
use specpress_e2e::{Server, bump, bump_cli, corpus, temp_dir};

const ORG: &str = "limits-tests-organization-token-42";

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(bytes).expect("gzip");
    e.finish().expect("gzip")
}

/// Sends a request by hand, body and all, and reads the whole answer: (status, headers text, body JSON).
fn raw_post(server: &Server, path: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, Value) {
    let addr = server.base_url.trim_start_matches("http://").to_owned();
    let mut conn = std::net::TcpStream::connect(&addr).expect("connect");
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    conn.write_all(head.as_bytes()).expect("head");
    // The whole body is written: the server must read (and discard) it rather than close on the sender.
    conn.write_all(body)
        .expect("the server reads the whole body");
    let mut raw = Vec::new();
    conn.read_to_end(&mut raw).expect("answer");
    let raw = String::from_utf8_lossy(&raw);
    let status = raw
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = raw.split("\r\n\r\n").nth(1).unwrap_or("");
    let start = body.find('{').unwrap_or(0);
    let end = body.rfind('}').map(|i| i + 1).unwrap_or(body.len());
    (
        status,
        serde_json::from_str(&body[start..end]).unwrap_or(Value::Null),
    )
}

fn create_doc(server: &Server, slug: &str) {
    let r = Client::new()
        .post(format!("{}/api/v1/docs", server.base_url))
        .header("Authorization", format!("Token {ORG}"))
        .json(&json!({"name": slug, "slug": slug}))
        .send()
        .expect("create doc");
    assert_eq!(r.status().as_u16(), 201);
}

fn deploy_body(definition: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({"documentation": "big", "definition": definition})).unwrap()
}

#[test]
fn an_over_limit_body_is_read_to_the_end_and_answered_with_the_limit_and_the_way_around() {
    let dir = temp_dir();
    let server = Server::start(
        dir.path(),
        &[
            ("SPECPRESS_ORG_TOKEN", ORG),
            ("SPECPRESS_MAX_BODY_BYTES", "1048576"),
        ],
    );
    create_doc(&server, "big");
    let body = deploy_body(&"x".repeat(2 * 1024 * 1024));
    let auth = format!("Token {ORG}");
    // Any client: 413 with the size, the limit, the setting and the advice.
    let (status, b) = raw_post(
        &server,
        "/api/v1/versions",
        &[("Authorization", &auth)],
        &body,
    );
    assert_eq!(status, 413, "{b}");
    let m = b["message"].as_str().unwrap_or_default();
    assert!(
        m.contains("1.0 MiB (1048576 bytes, SPECPRESS_MAX_BODY_BYTES)")
            && m.contains("specpress serve"),
        "{b}"
    );
    // bump-cli: the same answer as a 422 on `definition`, which it prints.
    let (status, b) = raw_post(
        &server,
        "/api/v1/versions",
        &[
            ("Authorization", &auth),
            ("User-Agent", "bump-cli/2.11.0 linux-x64 node-v20.20.2"),
        ],
        &body,
    );
    assert_eq!(status, 422, "{b}");
    assert!(
        b["errors"]["definition"][0]
            .as_str()
            .is_some_and(|e| e.contains("SPECPRESS_MAX_BODY_BYTES")),
        "{b}"
    );
    // The anonymous diff route too.
    let (status, b) = raw_post(&server, "/api/v1/diffs", &[], &body);
    assert_eq!(status, 413, "{b}");
}

#[test]
fn a_gzip_compressed_body_is_accepted_and_its_decompressed_size_is_what_the_limit_counts() {
    let dir = temp_dir();
    let server = Server::start(
        dir.path(),
        &[
            ("SPECPRESS_ORG_TOKEN", ORG),
            ("SPECPRESS_MAX_BODY_BYTES", "1048576"),
        ],
    );
    create_doc(&server, "big");
    let auth = format!("Token {ORG}");
    // A document whose body fits once decompressed.
    let petstore =
        std::fs::read_to_string(specpress_e2e::fixtures().join("petstore.yaml")).unwrap();
    let (status, b) = raw_post(
        &server,
        "/api/v1/versions",
        &[("Authorization", &auth), ("Content-Encoding", "gzip")],
        &gzip(&deploy_body(&petstore)),
    );
    assert_eq!(status, 201, "{b}");
    // A compression bomb: 100 KB on the wire, 100 MiB once decompressed, stops at the limit.
    let bomb = gzip(&vec![b' '; 100 * 1024 * 1024]);
    assert!(bomb.len() < 200 * 1024);
    let (status, b) = raw_post(
        &server,
        "/api/v1/versions",
        &[("Authorization", &auth), ("Content-Encoding", "gzip")],
        &bomb,
    );
    assert_eq!(status, 413, "{b}");
}

#[test]
#[cfg_attr(
    any(missing_bump_cli, missing_corpus),
    ignore = "needs bump-cli (scripts/install-tools.sh) and the API corpus (SPECPRESS_CORPUS)"
)]
fn bump_cli_prints_a_readable_message_for_a_document_over_the_limit_of_deploy_and_diff() {
    let cli = bump_cli();
    let dir = temp_dir();
    let server = Server::start(
        dir.path(),
        &[
            ("SPECPRESS_ORG_TOKEN", ORG),
            ("SPECPRESS_MAX_BODY_BYTES", "1048576"),
        ],
    );
    create_doc(&server, "big");
    let big = corpus().join("openapi-3.0/stripe-2022-02-08.json");
    let big = big.to_str().unwrap();
    let r = bump(
        &cli,
        &server.base_url,
        &["deploy", big, "--doc", "big", "--token", ORG],
    );
    assert_ne!(r.code, 0, "{r:?}");
    let out = r.all();
    assert!(
        out.contains("definition")
            && out.contains("SPECPRESS_MAX_BODY_BYTES")
            && !out.contains("EPIPE")
            && !out.contains("Unhandled API error"),
        "{r:?}"
    );
    let newer = corpus().join("openapi-3.0/stripe-2022-04-12.json");
    let r = bump(
        &cli,
        &server.base_url,
        &["diff", big, newer.to_str().unwrap()],
    );
    assert_ne!(r.code, 0, "{r:?}");
    let out = r.all();
    assert!(
        out.contains("SPECPRESS_MAX_BODY_BYTES") && !out.contains("EPIPE"),
        "{r:?}"
    );
}

#[test]
#[cfg_attr(
    any(missing_bump_cli, missing_corpus),
    ignore = "needs bump-cli (scripts/install-tools.sh) and the API corpus (SPECPRESS_CORPUS)"
)]
fn the_default_limits_take_the_largest_corpus_documents_through_bump_cli() {
    let cli = bump_cli();
    let dir = temp_dir();
    let server = Server::start(dir.path(), &[("SPECPRESS_ORG_TOKEN", ORG)]);
    create_doc(&server, "github");
    let github = corpus().join("openapi-3.0/github-api-23.0.2.json");
    let r = bump(
        &cli,
        &server.base_url,
        &[
            "deploy",
            github.to_str().unwrap(),
            "--doc",
            "github",
            "--token",
            ORG,
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.all().contains(&format!("{}/doc/github", server.base_url)),
        "{r:?}"
    );
    // The public diff of the largest pair, through bump-cli (inline, no token).
    let older = corpus().join("openapi-3.0/github-api-22.0.0.json");
    let r = bump(
        &cli,
        &server.base_url,
        &[
            "diff",
            older.to_str().unwrap(),
            github.to_str().unwrap(),
            "--format",
            "text",
        ],
    );
    assert!(r.code == 0 || r.code == 1, "{r:?}");
    assert!(r.stdout.contains("GET /"), "{r:?}");
}

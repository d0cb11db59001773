//! The size of the event API Gateway sends a Lambda function for a bump-cli deploy of a large description (docs/limits.md,
//! "On AWS"): the body bump-cli 2.11 builds, the event around it, the largest file that fits the 6 MB invocation limit,
//! and the gzip alternative. Prints figures; measures nothing when the description is missing.
//!
//! ```sh
//! cargo bench -p specpress-http-lambda --bench deploy_event
//! ```
//!
//! The description: `SPECPRESS_GITHUB_DESCRIPTION`, default the corpus's `openapi-3.0/github-api-23.0.2.json`
//! (`SPECPRESS_CORPUS`, default `../shared/corpus`).

use std::path::PathBuf;

use base64::Engine as _;
use serde_json::json;
use specpress_http_lambda::response::LAMBDA_PAYLOAD_LIMIT;

fn main() {
    let path = std::env::var_os("SPECPRESS_GITHUB_DESCRIPTION")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            specpress_testkit::Tool::Corpus
                .location()
                .join("openapi-3.0/github-api-23.0.2.json")
        });
    if !path.is_file() {
        eprintln!(
            "deploy_event bench: no description at {} (set SPECPRESS_GITHUB_DESCRIPTION or SPECPRESS_CORPUS); nothing measured",
            path.display()
        );
        return;
    }
    let file = std::fs::read_to_string(&path).expect("the description");
    // bump-cli 2.11's body (core/deploy.js): JSON.stringify of the request, the file's text as `definition`.
    let body = serde_json::to_string(&json!({
        "auto_create_documentation": false, "definition": file, "documentation": "github", "references": [],
    }))
    .expect("body");
    // API Gateway puts an application/json body into the event as a JSON string, next to the request's headers
    // and context (about 1 KB here, as in a real event).
    let mut event = json!({
        "version": "2.0",
        "routeKey": "POST /api/v1/versions",
        "rawPath": "/api/v1/versions",
        "rawQueryString": "",
        "headers": {
            "accept": "application/json, text/plain, */*", "accept-encoding": "gzip, compress, deflate, br",
            "authorization": "Token sp_doc_0123456789abcdefghijklmnopqrstuvwxyz0123456789ab",
            "content-length": body.len().to_string(), "content-type": "application/json",
            "host": "abcdefghij.execute-api.eu-west-1.amazonaws.com", "user-agent": "bump-cli/2.11.0 linux-x64 node-v22.12.0",
            "x-amzn-trace-id": "Root=1-67891233-abcdef012345678912345678", "x-forwarded-for": "192.0.2.1",
            "x-forwarded-port": "443", "x-forwarded-proto": "https"
        },
        "requestContext": {
            "accountId": "123456789012", "apiId": "abcdefghij",
            "domainName": "abcdefghij.execute-api.eu-west-1.amazonaws.com", "domainPrefix": "abcdefghij",
            "http": {"method": "POST", "path": "/api/v1/versions", "protocol": "HTTP/1.1", "sourceIp": "192.0.2.1",
                     "userAgent": "bump-cli/2.11.0 linux-x64 node-v22.12.0"},
            "requestId": "JKJaXmPLvHcESHA=", "routeKey": "POST /api/v1/versions", "stage": "$default",
            "time": "28/Nov/2026:10:00:00 +0000", "timeEpoch": 1_795_860_000_000u64
        },
        "isBase64Encoded": false
    });
    event["body"] = json!(body);
    let event_bytes = serde_json::to_vec(&event).expect("event").len();
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut e, body.as_bytes()).expect("gzip");
        e.finish().expect("gzip")
    };
    let gz_event = base64::engine::general_purpose::STANDARD.encode(&gz).len();
    println!(
        "file {} bytes; bump-cli body {} bytes ({:.3}x); event {} bytes ({:.3}x the file); \
         largest file that fits ~{} bytes; gzip body {} bytes, {} base64 in the event",
        file.len(),
        body.len(),
        body.len() as f64 / file.len() as f64,
        event_bytes,
        event_bytes as f64 / file.len() as f64,
        (LAMBDA_PAYLOAD_LIMIT as f64 * file.len() as f64 / event_bytes as f64) as u64,
        gz.len(),
        gz_event,
    );
}

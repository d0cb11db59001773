//! The SES transport against moto's SES v2 (`SendEmail` with raw content): the message moto records is the same
//! MIME the other transports send, read back from moto's `/moto-api/data.json`.
//!
//! Tools: a running moto server (`specpress_testkit::Tool::Moto`; scripts/test.sh starts one) and the tools' Python
//! (the message moto recorded is parsed by Python's `email` package).

mod common;

use aws_sdk_sesv2::config::Credentials;
use common::*;
use specpress_domain::ports::Mailer;
use specpress_mail::{Sender, SesMailer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn client(endpoint: &str) -> aws_sdk_sesv2::Client {
    let conf = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(aws_config::Region::new("us-east-1"))
        .credentials_provider(Credentials::new("testing", "testing", None, None, "test"))
        .load()
        .await;
    aws_sdk_sesv2::Client::new(&conf)
}

/// `GET {endpoint}{path}`'s body (HTTP/1.0, so the body ends with the connection).
async fn get(endpoint: &str, path: &str) -> String {
    let host = endpoint
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let mut stream = tokio::net::TcpStream::connect(&host).await.expect("moto");
    stream
        .write_all(format!("GET {path} HTTP/1.0\r\nHost: {host}\r\n\r\n").as_bytes())
        .await
        .expect("request");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.expect("answer");
    answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default()
}

#[tokio::test]
#[cfg_attr(
    any(missing_moto, missing_python_tools),
    ignore = "needs a moto server (scripts/test.sh starts one) and the tools' Python"
)]
async fn a_mail_goes_to_ses_as_the_same_raw_mime() {
    let endpoint = specpress_testkit::moto_endpoint();
    let client = client(&endpoint).await;
    let domain = format!("ses-{}.example.com", std::process::id());
    client
        .create_email_identity()
        .email_identity(&domain)
        .send()
        .await
        .expect("identity");
    let sender = Sender::parse(&format!("Specpress <docs@{domain}>")).expect("sender");
    let mailer = SesMailer::new(client.clone(), sender.clone());
    assert_eq!(mailer.describe(), format!("Amazon SES as docs@{domain}"));
    let id = format!("rel_42-{}", std::process::id());
    mailer
        .send(&release_mail(&id, "reader@example.net", HOSTILE_TITLE))
        .await
        .expect("SES accepted it");

    let data: serde_json::Value =
        serde_json::from_str(&get(&endpoint, "/moto-api/data.json").await).expect("moto's data");
    let message_id = sender.message_id(&id);
    let sent: Vec<&serde_json::Value> = data["ses"]["RawMessage"]
        .as_array()
        .expect("moto keeps raw messages")
        .iter()
        .filter(|m| {
            m["raw_data"]
                .as_str()
                .is_some_and(|raw| raw.contains(&message_id))
        })
        .collect();
    assert_eq!(sent.len(), 1, "{data}");
    assert_eq!(sent[0]["source"], format!("docs@{domain}"));
    // What SES got, parsed by Python's `email` package: the same message the other transports send.
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("ses.eml");
    std::fs::write(&file, sent[0]["raw_data"].as_str().expect("raw")).expect("written");
    let m = &inspect(&[file])[0];
    assert_eq!(m["content_type"], "multipart/alternative");
    assert_eq!(header(m, "message-id"), Some(message_id.as_str()));
    assert_eq!(
        header(m, "list-unsubscribe"),
        Some(format!("<{UNSUBSCRIBE}>").as_str())
    );
    assert_eq!(
        header(m, "list-unsubscribe-post"),
        Some("List-Unsubscribe=One-Click")
    );
    let html = part(m, "text/html");
    assert!(
        !html["tags"]
            .as_array()
            .expect("tags")
            .iter()
            .any(|t| t == "script")
    );
    assert!(
        html["visible"]
            .as_str()
            .expect("visible")
            .contains(HOSTILE_SHOWN)
    );

    // An unverified sender is refused: the caller retries, nothing is lost.
    let stranger = SesMailer::new(
        client,
        Sender::parse("docs@unverified.example.org").expect("sender"),
    );
    assert!(
        stranger
            .send(&release_mail("m2", "reader@example.net", "Pets API"))
            .await
            .is_err()
    );
}

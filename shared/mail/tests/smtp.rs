//! Mail sent through a real local SMTP server (Python's `aiosmtpd`, `specpress_testkit::smtp`) and every received
//! message parsed by Python's `email` package: the MIME structure, RFC 8058's two headers, the `Message-ID` across a
//! retry, hostile document strings escaped in HTML and harmless in text.
//!
//! Tools: the tools' Python with `aiosmtpd` (`specpress_testkit::Tool::Python`; scripts/install-tools.sh installs
//! it): the tests fail under `CI=true` and are reported as ignored elsewhere when it is missing.

mod common;

use common::*;
use specpress_domain::ports::Mailer;
use specpress_mail::{Sender, SmtpMailer};

const TO: &str = "reader@example.net";

fn sender() -> Sender {
    Sender::parse("Specpress Docs <docs@example.com>").expect("sender")
}

#[tokio::test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python with aiosmtpd (scripts/install-tools.sh)"
)]
async fn a_release_mail_arrives_as_text_and_html_with_one_click_unsubscribe() {
    let server = Receiver::start();
    let mailer = SmtpMailer::new(&server.url(), sender()).expect("mailer");
    assert_eq!(
        mailer.describe(),
        format!("smtp://127.0.0.1:{}", server.port)
    );
    mailer
        .send(&release_mail("rel_42-f_7", TO, HOSTILE_TITLE))
        .await
        .expect("sent");
    let files = server.wait_for(1);
    assert_eq!(files.len(), 1);
    assert_eq!(
        server.recipients(&files[0]),
        TO,
        "the envelope names only the reader"
    );
    let m = &inspect(&files)[0];
    assert_eq!(m["defects"], serde_json::json!([]), "{m}");
    assert_eq!(m["content_type"], "multipart/alternative");
    let types: Vec<&str> = m["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .filter_map(|p| p["type"].as_str())
        .collect();
    assert_eq!(
        types,
        ["text/plain", "text/html"],
        "text first, HTML preferred"
    );
    // RFC 8058: both headers, exactly.
    assert_eq!(
        header(m, "list-unsubscribe"),
        Some(format!("<{UNSUBSCRIBE}>").as_str())
    );
    assert_eq!(
        header(m, "list-unsubscribe-post"),
        Some("List-Unsubscribe=One-Click")
    );
    assert_eq!(header(m, "auto-submitted"), Some("auto-generated"));
    assert_eq!(
        header(m, "message-id"),
        Some(sender().message_id("rel_42-f_7").as_str())
    );
    assert!(header(m, "message-id").is_some_and(|id| id.ends_with("@example.com>")));
    assert_eq!(header(m, "from"), Some("Specpress Docs <docs@example.com>"));
    assert_eq!(header(m, "to"), Some(TO));
    // The hostile title made no header of its own and the subject is one line.
    assert!(header(m, "bcc").is_none(), "{m}");
    let names: Vec<&str> = m["header_names"]
        .as_array()
        .expect("names")
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    assert!(!names.contains(&"bcc"), "{names:?}");
    let subject = header(m, "subject").expect("subject");
    assert!(!subject.contains(['\r', '\n', '\u{202E}']), "{subject:?}");
    assert!(subject.chars().count() <= 140, "{subject:?}");
    assert!(subject.contains("2 breaking changes"), "{subject:?}");

    let html = part(m, "text/html");
    let tags: Vec<&str> = html["tags"]
        .as_array()
        .expect("tags")
        .iter()
        .filter_map(|t| t.as_str())
        .collect();
    for forbidden in ["script", "img", "iframe", "link", "style", "form", "b"] {
        assert!(
            !tags.contains(&forbidden),
            "<{forbidden}> in the HTML: {tags:?}"
        );
    }
    assert_eq!(
        html["resources"],
        serde_json::json!([]),
        "nothing fetched on open"
    );
    // Every link is Specpress's own: the title's Markdown and mrkdwn links stayed text.
    for link in html["links"].as_array().expect("links") {
        let link = link.as_str().expect("href");
        assert!(link.starts_with("https://docs.example.com/"), "{link}");
    }
    let visible = html["visible"].as_str().expect("visible text");
    assert!(
        visible.contains(HOSTILE_SHOWN),
        "the title shows as its text: {visible}"
    );
    assert!(
        visible.contains("<script>steal()</script> [docs](javascript:alert(3))"),
        "{visible}"
    );
    assert!(
        visible
            .contains("Deprecated for a year </li><b>bold</b><img src=https://evil.example/t.gif>"),
        "{visible}"
    );

    let text = part(m, "text/plain")["text"].as_str().expect("text");
    assert!(text.contains(HOSTILE_SHOWN), "{text}");
    assert!(!text.contains('\u{202E}'));
    assert!(text.contains(UNSUBSCRIBE) && text.contains(MANAGE) && text.contains(CHANGE));
    // Breaking changes first, each with its migration note or acceptance, before the warning.
    let first_lines: Vec<&str> = text.lines().take(16).collect();
    let at = |needle: &str| {
        first_lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle:?} not in the first lines: {first_lines:#?}"))
    };
    assert!(at("2 breaking changes") < at("GET /pets/{id}"));
    assert!(at("GET /pets/{id}") < at("Migration"));
    assert!(at("Migration") < at("Read `title` instead."));
    assert!(at("Accepted by the owner: Deprecated for a year") < at("Warning: GET /pets:"));
    assert!(text.contains("And 3 more changes."));
}

#[tokio::test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python with aiosmtpd (scripts/install-tools.sh)"
)]
async fn a_retried_mail_keeps_its_message_id_and_another_mail_gets_its_own() {
    let server = Receiver::start();
    let mailer = SmtpMailer::new(&server.url(), sender()).expect("mailer");
    let mail = release_mail("rel_42-f_7", TO, "Pets API");
    mailer.send(&mail).await.expect("first attempt");
    mailer.send(&mail).await.expect("retry");
    mailer
        .send(&release_mail("rel_43-f_7", TO, "Pets API"))
        .await
        .expect("another release");
    let files = server.wait_for(3);
    let ids: Vec<String> = inspect(&files)
        .iter()
        .map(|m| header(m, "message-id").expect("id").to_owned())
        .collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(ids[0], ids[1], "a retry is the same message");
    assert_ne!(ids[0], ids[2]);
}

#[tokio::test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python with aiosmtpd (scripts/install-tools.sh)"
)]
async fn a_confirmation_carries_its_link_and_no_unsubscribe_header() {
    let server = Receiver::start();
    let mailer = SmtpMailer::new(&server.url(), sender()).expect("mailer");
    mailer
        .send(&confirm_mail("confirm-1", TO))
        .await
        .expect("sent");
    let m = &inspect(&server.wait_for(1))[0];
    assert!(header(m, "list-unsubscribe").is_none(), "{m}");
    assert!(header(m, "list-unsubscribe-post").is_none(), "{m}");
    assert_eq!(header(m, "auto-submitted"), Some("auto-generated"));
    let subject = header(m, "subject").expect("subject");
    assert!(
        subject.starts_with("Confirm that you want to follow <script>"),
        "{subject}"
    );
    let html = part(m, "text/html");
    assert!(
        html["links"]
            .as_array()
            .expect("links")
            .iter()
            .any(|l| l == "https://docs.example.com/doc/pets/follow/confirm?t=c_1")
    );
    assert!(
        !html["tags"]
            .as_array()
            .expect("tags")
            .iter()
            .any(|t| t == "script")
    );
    let text = part(m, "text/plain")["text"].as_str().expect("text");
    assert!(text.contains("https://docs.example.com/doc/pets/follow/confirm?t=c_1"));
    assert!(text.contains("48 hours"));
    assert!(text.contains("Breaking releases that touch GET /pets/{id}"));
}

#[tokio::test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python with aiosmtpd (scripts/install-tools.sh)"
)]
async fn a_digest_groups_the_releases_per_documentation_and_a_private_one_shows_no_changes() {
    let server = Receiver::start();
    let mailer = SmtpMailer::new(&server.url(), sender()).expect("mailer");
    mailer
        .send(&digest_mail("digest-w49-f_7", TO))
        .await
        .expect("sent");
    let m = &inspect(&server.wait_for(1))[0];
    assert_eq!(
        header(m, "list-unsubscribe"),
        Some(format!("<{UNSUBSCRIBE}>").as_str())
    );
    assert_eq!(
        header(m, "subject"),
        Some("Weekly digest: 3 releases of Pets API and 1 other, 3 breaking changes")
    );
    let text = part(m, "text/plain")["text"].as_str().expect("text");
    let pets = text.find("Pets API 2.0.0").expect("first Pets release");
    let pets_again = text.find("Pets API 2.1.0").expect("second Pets release");
    let orders = text.find("Orders API 1.1.0").expect("Orders release");
    assert!(
        pets < pets_again && pets_again < orders,
        "grouped per documentation: {text}"
    );
    let private = &text[pets_again..orders];
    assert!(private.contains("1 breaking change:"), "{private}");
    assert!(
        !private.contains("- Breaking"),
        "no change content: {private}"
    );
}

#[tokio::test]
async fn an_unreachable_server_is_an_error_and_no_password_is_shown() {
    // A port nothing listens on: bind one, then free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a port")
        .port();
    let url = format!("smtp://user:s3cret-pw@127.0.0.1:{port}");
    let mailer = SmtpMailer::new(&url, sender()).expect("mailer");
    assert_eq!(mailer.describe(), format!("smtp://127.0.0.1:{port}"));
    assert!(!format!("{mailer:?}").contains("s3cret"));
    let err = mailer
        .send(&release_mail("m1", TO, "Pets API"))
        .await
        .expect_err("nothing listens");
    assert!(!err.to_string().contains("s3cret"), "{err}");
    let secure = SmtpMailer::new("smtps://u:s3cret-pw@mail.example.com", sender()).expect("mailer");
    assert_eq!(secure.describe(), "smtps://mail.example.com:465");
    let required =
        SmtpMailer::new("smtp://mail.example.com:587?tls=required", sender()).expect("mailer");
    assert_eq!(
        required.describe(),
        "smtp://mail.example.com:587 (tls=required)"
    );
    for bad in ["http://mail.example.com", "smtp://"] {
        let e = SmtpMailer::new(bad, sender()).expect_err(bad);
        assert!(!e.is_empty());
    }
}

#[tokio::test]
async fn a_recipient_that_is_not_an_address_is_refused_before_sending() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a port")
        .port();
    let mailer = SmtpMailer::new(&format!("smtp://127.0.0.1:{port}"), sender()).expect("mailer");
    for to in ["not an address", "a@b.example\r\nBcc: x@y.example", ""] {
        let err = mailer
            .send(&release_mail("m1", to, "Pets API"))
            .await
            .expect_err(to);
        assert!(
            matches!(err, specpress_domain::DomainError::Invalid { .. }),
            "{to:?}: {err}"
        );
    }
}

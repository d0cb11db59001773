//! The `.eml` outbox: one file per mail id, written whole (temporary file, then rename), each parsed by Python's
//! `email` package as the SMTP server's messages are.

mod common;

use common::*;
use specpress_domain::ports::Mailer;
use specpress_mail::{EmlOutbox, Sender, outbox::file_name};

fn outbox(dir: &std::path::Path) -> EmlOutbox {
    EmlOutbox::new(
        dir.join("outbox"),
        Sender::parse("Specpress <specpress@localhost>").expect("sender"),
    )
}

#[tokio::test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn each_mail_is_one_parseable_file_and_a_retry_overwrites_it() {
    let data = tempfile::tempdir().expect("temp dir");
    let mailer = outbox(data.path());
    let dir = data.path().join("outbox");
    assert_eq!(
        mailer.describe(),
        format!("written as .eml files into {}", dir.display())
    );
    let release = release_mail("rel_42-f_7", "reader@example.net", HOSTILE_TITLE);
    mailer.send(&release).await.expect("written");
    mailer.send(&release).await.expect("retried");
    mailer
        .send(&confirm_mail("confirm:f_8/2026", "other@example.net"))
        .await
        .expect("written");
    let files = eml_files(&dir);
    let names: Vec<String> = files
        .iter()
        .filter_map(|f| f.file_name()?.to_str().map(str::to_owned))
        .collect();
    assert_eq!(files.len(), 2, "one file per mail id: {names:?}");
    assert!(names.contains(&"rel_42-f_7.eml".to_owned()));
    // An id that is no plain file name is hashed, never a path.
    assert!(names.contains(&file_name("confirm:f_8/2026")));
    assert_eq!(file_name("confirm:f_8/2026").len(), 64 + 4);
    assert_eq!(file_name("../../etc/passwd").len(), 64 + 4);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary file left");

    let parsed = inspect(&[dir.join("rel_42-f_7.eml")]);
    let m = &parsed[0];
    assert_eq!(m["defects"], serde_json::json!([]));
    assert_eq!(m["content_type"], "multipart/alternative");
    assert_eq!(m["crlf"], true, "RFC 5322 line ends");
    assert_eq!(header(m, "to"), Some("reader@example.net"));
    assert_eq!(
        header(m, "list-unsubscribe-post"),
        Some("List-Unsubscribe=One-Click")
    );
    assert!(header(m, "message-id").is_some_and(|id| id.ends_with("@localhost>")));
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
            .expect("text")
            .contains(HOSTILE_SHOWN)
    );
}

#[tokio::test]
async fn a_folder_that_cannot_be_made_is_an_error() {
    let data = tempfile::tempdir().expect("temp dir");
    // A file where the folder should be.
    std::fs::write(data.path().join("outbox"), b"not a folder").expect("file");
    let err = outbox(data.path())
        .send(&release_mail("m1", "reader@example.net", "Pets API"))
        .await
        .expect_err("no folder");
    assert!(!err.to_string().contains("reader@example.net"), "{err}");
}

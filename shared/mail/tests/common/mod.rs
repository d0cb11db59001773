//! What the mail tests share: sample mails (hostile document strings), the real SMTP server (aiosmtpd) and the real
//! MIME parser (Python's `email`), both from the test kit (`specpress_testkit::smtp`).
#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;
use specpress_domain::notify::ChangeNote;
use specpress_domain::ports::{Confirmation, FollowLinks, Mail, MailContent, ReleaseNote};
use time::macros::datetime;

/// A title a hostile document could carry: HTML, a closing link, Markdown and Slack mrkdwn link tricks, a header
/// injection attempt and a bidirectional override.
pub const HOSTILE_TITLE: &str = "<script>x()</script></a> [Pay](https://evil.example) <https://evil.example|Docs> *Pets*\r\nBcc: v@x.example \u{202E}API";

/// What the hostile title shows as once cleaned (one line, no control or bidi characters; within the 120 characters
/// of a title).
pub const HOSTILE_SHOWN: &str = "<script>x()</script></a> [Pay](https://evil.example) <https://evil.example|Docs> *Pets* Bcc: v@x.example API";

pub const UNSUBSCRIBE: &str = "https://docs.example.com/follow/unsubscribe?t=tok_123";
pub const MANAGE: &str = "https://docs.example.com/follow/manage?t=tok_123";
pub const CHANGE: &str = "https://docs.example.com/doc/pets/changes/rel_42";

pub fn links() -> FollowLinks {
    FollowLinks {
        manage_url: MANAGE.to_owned(),
        unsubscribe_url: UNSUBSCRIBE.to_owned(),
    }
}

pub fn note(level: &str, place: &str, message: &str) -> ChangeNote {
    ChangeNote {
        id: None,
        level: level.to_owned(),
        place: place.to_owned(),
        message: message.to_owned(),
        migration: None,
        accepted: None,
    }
}

/// A release with a warning listed before two breaking changes (the mail puts breaking first), a migration note in
/// Markdown with HTML in it, and an accepted change.
pub fn release(title: &str) -> ReleaseNote {
    let mut removed = note(
        "breaking",
        "GET /pets/{id}",
        "The response property `name` was removed.",
    );
    removed.migration = Some(
        "Read `title` instead.\n\n<script>steal()</script> [docs](javascript:alert(3))\n- step one"
            .to_owned(),
    );
    let mut accepted = note(
        "breaking",
        "DELETE /pets/{id}",
        "The operation was removed.",
    );
    accepted.accepted = Some(
        "Deprecated for a year </li><b>bold</b><img src=https://evil.example/t.gif>".to_owned(),
    );
    ReleaseNote {
        doc_title: title.to_owned(),
        version: Some("2.0.0".to_owned()),
        branch: "main".to_owned(),
        published_at: datetime!(2026-12-07 10:30 UTC),
        change_url: CHANGE.to_owned(),
        breaking: 2,
        notes: vec![
            note(
                "warning",
                "GET /pets",
                "The parameter `limit` is deprecated.",
            ),
            removed,
            accepted,
        ],
        more: 3,
    }
}

pub fn release_mail(id: &str, to: &str, title: &str) -> Mail {
    Mail {
        to: to.to_owned(),
        id: id.to_owned(),
        content: MailContent::Release {
            release: release(title),
            links: links(),
        },
    }
}

pub fn confirm_mail(id: &str, to: &str) -> Mail {
    Mail {
        to: to.to_owned(),
        id: id.to_owned(),
        content: MailContent::Confirm(Confirmation {
            title: HOSTILE_TITLE.to_owned(),
            page_url: "https://docs.example.com/doc/pets".to_owned(),
            scope: "Breaking releases that touch GET /pets/{id}".to_owned(),
            confirm_url: "https://docs.example.com/doc/pets/follow/confirm?t=c_1".to_owned(),
            expires_in_hours: 48,
        }),
    }
}

pub fn digest_mail(id: &str, to: &str) -> Mail {
    let mut other = release("Orders API");
    other.version = Some("1.1.0".to_owned());
    other.breaking = 0;
    other.notes = vec![note(
        "info",
        "POST /orders",
        "An optional property `note` was added.",
    )];
    other.more = 0;
    let mut private = release("Pets API");
    private.version = Some("2.1.0".to_owned());
    private.notes = Vec::new();
    private.breaking = 1;
    private.more = 0;
    Mail {
        to: to.to_owned(),
        id: id.to_owned(),
        content: MailContent::Digest {
            period: "weekly".to_owned(),
            releases: vec![release("Pets API"), other, private],
            links: links(),
        },
    }
}

#[allow(unused_imports)]
pub use specpress_testkit::smtp::{Receiver, eml_files};

/// Each file parsed by Python's `email` package (see `specpress_testkit::smtp::inspect_json`).
pub fn inspect(files: &[PathBuf]) -> Vec<Value> {
    serde_json::from_str(&specpress_testkit::smtp::inspect_json(files))
        .expect("JSON from the parser")
}

/// The header `name` (lower case) of a parsed message.
pub fn header<'a>(m: &'a Value, name: &str) -> Option<&'a str> {
    m["headers"][name].as_str()
}

/// The part of type `ty` of a parsed message.
pub fn part<'a>(m: &'a Value, ty: &str) -> &'a Value {
    m["parts"]
        .as_array()
        .and_then(|parts| parts.iter().find(|p| p["type"] == ty))
        .unwrap_or_else(|| panic!("no {ty} part in {m}"))
}

//! Readers following by email, from outside (issue 38): the real `specpress serve` sending through a real SMTP server
//! (Python's `aiosmtpd`, every message parsed by Python's `email` package, its links followed). A reader who follows
//! gets a confirmation mail and nothing before confirming, then one mail per matching release with a working
//! one-click unsubscribe (RFC 8058: a POST without `Origin` nor cookie); an operation follower gets only that
//! operation's releases; repeated requests send at most three confirmations; the owner's list masks addresses.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use specpress_e2e::site::Site;
use specpress_testkit::smtp::{Receiver, inspect_json};

const ORG: &str = "follow-tests-organization-token-0042";

/// A Pets API whose `GET /pets` and `GET /pets/{id}` answer a `Pet` with the given property names; `extra` adds a
/// `GET /owners` operation.
fn pets(version: &str, list_props: &[&str], item_props: &[&str], owners: bool) -> String {
    let props = |names: &[&str]| -> Value {
        names
            .iter()
            .map(|n| ((*n).to_owned(), json!({"type": "string"})))
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    let mut paths = json!({
        "/pets": {"get": {"operationId": "listPets", "responses": {"200": {"description": "ok",
            "content": {"application/json": {"schema": {"type": "object", "properties": props(list_props)}}}}}}},
        "/pets/{id}": {"get": {"operationId": "getPet",
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok",
            "content": {"application/json": {"schema": {"type": "object", "properties": props(item_props)}}}}}}}
    });
    if owners {
        paths["/owners"] = json!({"get": {"operationId": "listOwners", "responses": {"200": {"description": "ok"}}}});
    }
    json!({"openapi": "3.0.3", "info": {"title": "Pets <b>API</b>", "version": version}, "paths": paths})
        .to_string()
}

/// `application/x-www-form-urlencoded` text of `fields`, as a browser encodes a form.
fn form_body(fields: &[(&str, &str)]) -> String {
    let encode = |t: &str| -> String {
        t.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                    (b as char).to_string()
                }
                b' ' => "+".to_owned(),
                other => format!("%{other:02X}"),
            })
            .collect()
    };
    fields
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Posts the follow form of `/doc/pets` as a browser would (no JavaScript); the status.
fn follow(site: &Site, fields: &[(&str, &str)]) -> u16 {
    site.http
        .post(site.url("/doc/pets/follow"))
        .header("Origin", site.url(""))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(form_body(fields))
        .send()
        .expect("the follow form answers")
        .status()
        .as_u16()
}

/// The messages received so far, parsed, with the envelope recipient of each.
fn mails(smtp: &Receiver) -> Vec<(String, Value)> {
    let files: Vec<PathBuf> = smtp.received();
    if files.is_empty() {
        return Vec::new();
    }
    let parsed: Vec<Value> = serde_json::from_str(&inspect_json(&files)).expect("parsed mails");
    files
        .iter()
        .zip(parsed)
        .map(|(f, m)| (smtp.recipients(f).trim().to_owned(), m))
        .collect()
}

/// Waits until `n` messages have arrived (at most 30 s: release mails go through the queue); the parsed messages.
fn wait_mails(smtp: &Receiver, n: usize) -> Vec<(String, Value)> {
    smtp.wait_for_within(n, Duration::from_secs(30));
    mails(smtp)
}

/// The text part of a parsed message.
fn text(m: &Value) -> String {
    m["parts"]
        .as_array()
        .and_then(|parts| parts.iter().find(|p| p["type"] == "text/plain"))
        .and_then(|p| p["text"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// The first link of the message's text part containing `needle`.
fn link(m: &Value, needle: &str) -> String {
    text(m)
        .split_whitespace()
        .map(|w| w.trim_matches(|c| c == '<' || c == '>' || c == '(' || c == ')'))
        .find(|w| w.starts_with("http") && w.contains(needle))
        .unwrap_or_else(|| panic!("no {needle} link in {}", text(m)))
        .to_owned()
}

/// Confirms through the link of a confirmation mail: the GET page asks for one click (mail scanners fetch links),
/// its form's POST confirms.
fn confirm(site: &Site, mail: &Value) {
    let url = link(mail, "/follow/confirm/");
    let (status, _, page) = site.get(&url);
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("<form") && page.contains("method=\"post\""),
        "{page}"
    );
    // The page's button, as a browser posts it (same origin).
    let r = site
        .http
        .post(&url)
        .header("Origin", site.url(""))
        .send()
        .expect("confirm answers");
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().unwrap_or_default());
}

fn mails_to<'a>(all: &'a [(String, Value)], to: &str) -> Vec<&'a Value> {
    all.iter()
        .filter(|(r, _)| r == to)
        .map(|(_, m)| m)
        .collect()
}

#[test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python with aiosmtpd (scripts/install-tools.sh)"
)]
fn a_follower_confirms_then_gets_one_mail_per_matching_release_and_unsubscribes_in_one_click() {
    let smtp = Receiver::start();
    let site = Site::start_with(
        ORG,
        &[
            ("SPECPRESS_SMTP_URL", &smtp.url()),
            ("SPECPRESS_MAIL_FROM", "Specpress <docs@specpress.test>"),
        ],
    );
    site.create_doc("pets", "Pets", None);
    site.deploy("pets", None, pets("1", &["name"], &["name"], false));

    // GIVEN a reader following every release, one following only `GET /pets/{id}`, one following only breaking
    // releases
    assert_eq!(
        follow(
            &site,
            &[("email", "ann@example.com"), ("cadence", "release")]
        ),
        200
    );
    assert_eq!(
        follow(
            &site,
            &[
                ("email", "op@example.com"),
                ("cadence", "release"),
                ("operation", "GET /pets/{id}")
            ]
        ),
        200
    );
    assert_eq!(
        follow(
            &site,
            &[
                ("email", "brk@example.com"),
                ("cadence", "release"),
                ("breaking_only", "on")
            ]
        ),
        200
    );
    let confirmations = wait_mails(&smtp, 3);
    assert_eq!(confirmations.len(), 3, "one confirmation mail each");
    for (to, m) in &confirmations {
        assert!(
            m["headers"].get("list-unsubscribe").is_none(),
            "a confirmation has no unsubscribe: {to}"
        );
        assert!(text(m).contains("/follow/confirm/"), "{}", text(m));
    }

    // WHEN a release is published before anyone confirmed THEN nothing is sent
    site.deploy("pets", None, pets("2", &["name", "tag"], &["name"], false));
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(smtp.received().len(), 3, "nothing before confirmation");

    for (_, m) in &confirmations {
        confirm(&site, m);
    }

    // WHEN a release changes only `GET /pets` (not breaking: a property added)
    site.deploy(
        "pets",
        None,
        pets("3", &["name", "tag", "age"], &["name"], false),
    );
    // THEN the reader following everything gets it, the operation follower and the breaking-only one do not
    let all = wait_mails(&smtp, 4);
    assert_eq!(all.len(), 4, "one release mail");
    let ann = mails_to(&all, "ann@example.com");
    assert_eq!(ann.len(), 2, "ann: confirmation + release 3");
    let release = ann[1];
    let unsubscribe = release["headers"]["list-unsubscribe"]
        .as_str()
        .expect("List-Unsubscribe")
        .trim_matches(|c| c == '<' || c == '>')
        .to_owned();
    assert_eq!(
        release["headers"]["list-unsubscribe-post"],
        "List-Unsubscribe=One-Click"
    );
    assert!(
        text(release).contains("/doc/pets/changes/"),
        "{}",
        text(release)
    );
    let html = release["parts"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["type"] == "text/html"))
        .expect("an HTML part");
    assert!(!html["tags"].to_string().contains("script"));
    assert!(
        !html["text"].as_str().unwrap_or_default().contains("<b>API"),
        "the title is escaped"
    );

    // WHEN a breaking release changes `GET /pets/{id}` (a property removed)
    site.deploy("pets", None, pets("4", &["name", "tag", "age"], &[], false));
    // THEN all three get exactly one mail of it
    let all = wait_mails(&smtp, 7);
    assert_eq!(all.len(), 7, "three release mails");
    assert_eq!(mails_to(&all, "ann@example.com").len(), 3);
    assert_eq!(mails_to(&all, "op@example.com").len(), 2);
    assert_eq!(mails_to(&all, "brk@example.com").len(), 2);
    assert!(
        text(mails_to(&all, "brk@example.com")[1])
            .to_lowercase()
            .contains("breaking")
    );

    // WHEN ann unsubscribes in one click, as a mail provider does (a POST without Origin nor cookie)
    let r = site
        .http
        .post(&unsubscribe)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .expect("unsubscribe answers");
    assert!(r.status().is_success(), "{}", r.status());
    // THEN the next release (not breaking: `GET /pets/{id}` answers one more property, `GET /owners` is new) reaches
    // the operation follower only: ann unsubscribed, and it breaks nothing
    site.deploy(
        "pets",
        None,
        pets("5", &["name", "tag", "age"], &["id"], true),
    );
    let all = wait_mails(&smtp, 8);
    assert_eq!(
        all.len(),
        8,
        "{:?}",
        all.iter().map(|(t, _)| t).collect::<Vec<_>>()
    );
    assert_eq!(mails_to(&all, "op@example.com").len(), 3);
    assert_eq!(
        mails_to(&all, "ann@example.com").len(),
        3,
        "nothing after unsubscribing"
    );
    assert_eq!(
        mails_to(&all, "brk@example.com").len(),
        2,
        "breaking releases only"
    );
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(smtp.received().len(), 8, "never twice");

    // The owner sees masked addresses only, and ann is gone.
    let (status, list) = site.api(Method::GET, "/api/v1/docs/pets/subscribers", None);
    assert_eq!(status, 200, "{list}");
    let body = list.to_string();
    assert!(
        !body.contains("op@example.com") && !body.contains("brk@example.com"),
        "{body}"
    );
    assert!(
        !body.contains("ann@"),
        "unsubscribed addresses are deleted: {body}"
    );
    assert_eq!(
        list["subscribers"].as_array().map(Vec::len),
        Some(2),
        "{body}"
    );
}

#[test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python with aiosmtpd (scripts/install-tools.sh)"
)]
fn repeated_follow_requests_send_at_most_three_confirmations_a_day_and_answer_alike() {
    let smtp = Receiver::start();
    let site = Site::start_with(
        ORG,
        &[
            ("SPECPRESS_SMTP_URL", &smtp.url()),
            ("SPECPRESS_MAIL_FROM", "Specpress <docs@specpress.test>"),
        ],
    );
    site.create_doc("pets", "Pets", None);
    site.deploy("pets", None, pets("1", &["name"], &["name"], false));
    // Five requests for one address, each from another client address (127.0.0.x: the per-client limit of the form
    // is not what stops them).
    let mut answers = Vec::new();
    for i in 0..5u8 {
        let client = reqwest::blocking::Client::builder()
            .local_address(std::net::IpAddr::from([127, 0, 0, 10 + i]))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("HTTP client");
        let r = client
            .post(site.url("/doc/pets/follow"))
            .header("Origin", site.url(""))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(form_body(&[
                ("email", "victim@example.com"),
                ("cadence", "release"),
            ]))
            .send()
            .expect("the follow form answers");
        answers.push(r.status().as_u16());
    }
    // Every request gets the same answer: the form tells nothing about the address.
    assert!(answers.iter().all(|&s| s == answers[0]), "{answers:?}");
    smtp.wait_for_within(5, Duration::from_secs(5));
    assert_eq!(
        smtp.received().len(),
        3,
        "at most three confirmations per address per day"
    );
}

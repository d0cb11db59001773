//! What a start of `specpress serve` writes, where its public URLs point, and what it says on stderr when it runs
//! on a DynamoDB table (`specpress::serve`'s start-up decisions, without starting a server).

use specpress::serve::{PublicUrls, StartWrites, TableNotice};
use specpress_domain::Result;
use specpress_domain::model::OrgId;
use specpress_domain::usecases::manage::Bootstrap;
use specpress_local_server::self_doc::SelfDoc;
use time::OffsetDateTime;

#[test]
fn only_the_embedded_store_or_an_explicit_bootstrap_writes_at_start() {
    assert_eq!(StartWrites::of(true, false), StartWrites::Bootstrap);
    assert_eq!(StartWrites::of(true, true), StartWrites::Bootstrap);
    assert_eq!(StartWrites::of(false, true), StartWrites::Bootstrap);
    assert_eq!(StartWrites::of(false, false), StartWrites::Nothing);
}

#[test]
fn public_urls_follow_requests_only_when_forwarding_headers_are_trusted_and_none_is_configured() {
    let listen = "http://127.0.0.1:3000";
    assert_eq!(
        PublicUrls::of(None, false, listen),
        PublicUrls {
            routes: listen.into(),
            shown: listen.into()
        }
    );
    assert_eq!(
        PublicUrls::of(None, true, listen),
        PublicUrls {
            routes: String::new(),
            shown: listen.into()
        }
    );
    let configured = PublicUrls::of(Some("https://docs.example/"), true, listen);
    assert_eq!(configured.routes, "https://docs.example");
    assert_eq!(configured.shown, "https://docs.example");
}

#[test]
fn a_start_on_a_table_without_bootstrap_says_it_wrote_nothing_and_what_was_left_undone() {
    let org = OrgId::new();
    let notice = TableNotice {
        table: "prod-table",
        boot: None,
        self_doc: None,
        self_doc_on: true,
        org_token_given: true,
        existing_default: Some(org),
    };
    let text = notice.lines().join("\n");
    assert!(
        text.contains("DynamoDB table prod-table used as it is"),
        "{text}"
    );
    assert!(text.contains("no organization created"), "{text}");
    assert!(text.contains(&org.to_string()), "{text}");
    assert!(
        text.contains("SPECPRESS_ORG_TOKEN was not applied"),
        "{text}"
    );
    assert!(text.contains("reference was not published"), "{text}");
    assert!(text.contains("--bootstrap"), "{text}");
    let quiet = TableNotice {
        org_token_given: false,
        self_doc_on: false,
        existing_default: None,
        ..notice
    };
    let text = quiet.lines().join("\n");
    assert!(
        !text.contains("SPECPRESS_ORG_TOKEN was not applied"),
        "{text}"
    );
    assert!(text.contains("has no default organization"), "{text}");
}

#[test]
fn a_bootstrapped_start_on_a_table_says_what_it_created_and_published() {
    let org = specpress_domain::model::Organization {
        id: OrgId::new(),
        name: "Local".into(),
        created_at: OffsetDateTime::now_utc(),
    };
    let boot = Bootstrap::CreatedWithGiven(org.clone());
    let published: Result<SelfDoc> = Ok(SelfDoc::Published);
    let notice = TableNotice {
        table: "t",
        boot: Some(&boot),
        self_doc: Some(&published),
        self_doc_on: true,
        org_token_given: true,
        existing_default: None,
    };
    let text = notice.lines().join("\n");
    assert!(
        text.contains(&format!("created the default organization {}", org.id)),
        "{text}"
    );
    assert!(
        text.contains("published a version of Specpress's own API reference"),
        "{text}"
    );
    let kept = Bootstrap::Existing(org.id);
    let text = TableNotice {
        boot: Some(&kept),
        self_doc: None,
        ..notice
    }
    .lines()
    .join("\n");
    assert!(text.contains("was left as it is"), "{text}");
    assert!(
        text.contains("was not published (publishing is off)"),
        "{text}"
    );
}

//! Subscriptions people choose (issue 38), end to end over the embedded engine, the in-process queue and the real
//! receiver: filters (breaking only, operation patterns) choose the releases and the changes each subscription
//! gets; Slack and Teams subscriptions get unsigned messages the receiver validates with `slack_sdk`'s Block Kit
//! models and the Adaptive Cards 1.5 JSON schema; their URLs are sealed at rest and shown masked.

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use specpress_domain::usecases::webhooks as uc;
use specpress_webhook::RetryPolicy;

const WAIT: Duration = Duration::from_secs(30);

/// An OpenAPI document with these GET operations; `{id}` paths declare their parameter, and `verbose` adds an
/// optional query parameter to the operations whose path it names.
fn document(version: &str, paths: &[&str], verbose: &[&str]) -> String {
    let mut p = serde_json::Map::new();
    for path in paths {
        let mut parameters = Vec::new();
        if path.contains("{id}") {
            parameters.push(
                json!({"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}),
            );
        }
        if verbose.contains(path) {
            parameters
                .push(json!({"name": "verbose", "in": "query", "schema": {"type": "boolean"}}));
        }
        p.insert(
            (*path).into(),
            json!({"get": {"tags": [if path.starts_with("/pets") { "Pets" } else { "Other" }],
                           "parameters": parameters,
                           "responses": {"200": {"description": "ok"}}}}),
        );
    }
    json!({"openapi": "3.0.3", "info": {"title": "Zoo <b>&</b> co", "version": version}, "paths": p}).to_string()
}

fn versions_of(got: &[Received]) -> Vec<String> {
    let mut v: Vec<String> = got
        .iter()
        .map(|r| {
            r.body["version"]["api_version"]
                .as_str()
                .unwrap_or("?")
                .to_owned()
        })
        .collect();
    v.sort();
    v
}

/// The item names of a standard delivery's `diff.details`.
fn names(r: &Received) -> Vec<String> {
    r.body["diff"]["details"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| i["name"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn filters_choose_the_releases_and_changes_and_slack_and_teams_get_valid_unsigned_messages() {
    let mut w = World::new(RetryPolicy::default().with_scale(0.001), None, None).await;
    w.start_consumer();
    let doc = w.doc("zoo").await;
    w.subscribe_scripted(&doc, "/all", json!([])).await;
    w.subscribe_filtered(
        &doc,
        "/breaking",
        json!({"breaking_only": true}),
        "standard",
    )
    .await;
    w.subscribe_filtered(
        &doc,
        "/pets",
        json!({"operations": ["GET /pets/*"]}),
        "standard",
    )
    .await;
    w.subscribe_filtered(&doc, "/tagged", json!({"tags": ["Pets"]}), "standard")
        .await;
    let slack = w
        .subscribe_filtered(&doc, "/s/slackSECRET", json!({}), "slack")
        .await;
    w.subscribe_filtered(&doc, "/t/teamsSECRET", json!({}), "teams")
        .await;

    // 1: the first version (no change to match); 2: GET /toys added; 3: GET /owners removed (breaking);
    // 4: an optional parameter on GET /pets/{id} and on GET /toys; 5: GET /pets/{id} removed (breaking).
    let all = ["/pets", "/pets/{id}", "/owners"];
    w.deploy(&doc, document("1", &all, &[]), None).await;
    let with_toys = ["/pets", "/pets/{id}", "/owners", "/toys"];
    w.deploy(&doc, document("2", &with_toys, &[]), None).await;
    let no_owners = ["/pets", "/pets/{id}", "/toys"];
    w.deploy(&doc, document("3", &no_owners, &[]), None).await;
    w.deploy(
        &doc,
        document("4", &no_owners, &["/pets/{id}", "/toys"]),
        None,
    )
    .await;
    w.deploy(&doc, document("5", &["/pets", "/toys"], &[]), None)
        .await;

    let everything = w.receiver.wait_for("/all", 5, WAIT).await;
    assert_eq!(versions_of(&everything), ["1", "2", "3", "4", "5"]);
    let slack_got = w.receiver.wait_for("/s/slackSECRET", 5, WAIT).await;
    let teams_got = w.receiver.wait_for("/t/teamsSECRET", 5, WAIT).await;
    // Give filtered fan-outs the time to send anything they should not.
    tokio::time::sleep(Duration::from_millis(500)).await;

    // A breaking-only subscription gets exactly the breaking releases, signed as always.
    let breaking = w.receiver.at("/breaking").await;
    assert_eq!(versions_of(&breaking), ["3", "5"], "{breaking:?}");
    assert_all_verified(&breaking);
    for r in &breaking {
        assert!(
            r.body["diff"]["details"]
                .as_array()
                .is_some_and(|d| d.iter().all(|i| i["breaking"] == true))
        );
    }

    // An operation pattern gets exactly the releases that touch it, and only the matching changes.
    let pets = w.receiver.at("/pets").await;
    assert_eq!(versions_of(&pets), ["4", "5"], "{pets:?}");
    assert_all_verified(&pets);
    let v4 = pets
        .iter()
        .find(|r| r.body["version"]["api_version"] == "4")
        .expect("v4");
    assert_eq!(names(v4), ["GET /pets/{id}"]);
    assert_eq!(
        v4.body["diff"]["details_summary"],
        json!({"total_items": 2, "breaking_items": 0, "included_items": 1, "left_out_items": 1})
    );

    // Tags match through the document: the Pets operations' releases only.
    let tagged = w.receiver.at("/tagged").await;
    assert_eq!(versions_of(&tagged), ["4", "5"], "{tagged:?}");
    assert!(
        tagged
            .iter()
            .all(|r| names(r).iter().all(|n| n.starts_with("GET /pets")))
    );

    // Slack and Teams: valid messages (the receiver validated each and answered 200), never signed.
    for r in slack_got.iter().chain(&teams_got) {
        assert!(r.problems.is_empty(), "{r:?}");
        assert_eq!(r.answered, 200, "{r:?}");
        assert!(!r.signed, "no signature headers: {r:?}");
    }
    let slack_v3 = slack_got
        .iter()
        .find(|r| {
            r.body["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("zoo 3:"))
        })
        .expect("the Slack message of version 3");
    let text = slack_v3.body.to_string();
    assert!(
        text.contains("1 breaking change") && text.contains("GET /owners"),
        "{text}"
    );
    let teams_v5 = teams_got
        .iter()
        .find(|r| {
            r.body.to_string().contains("GET /pets/{id}") && r.body.to_string().contains("Breaking")
        })
        .expect("the Teams card of version 5");
    assert_eq!(teams_v5.body["attachments"][0]["content"]["version"], "1.5");

    // The Slack URL is a secret: stored sealed, shown masked.
    let shown = uc::get(&w.service, &w.principal, "zoo", &slack.id.to_string())
        .await
        .expect("subscription");
    assert!(
        shown.url.ends_with("/s/slac...") && !shown.url.contains("SECRET"),
        "{}",
        shown.url
    );
    assert!(shown.sealed_url.is_some());
    let log = uc::deliveries(&w.service, &w.principal, "zoo", &slack.id.to_string())
        .await
        .expect("log");
    assert_eq!(log.len(), 5, "the same delivery log");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn a_slack_ping_is_a_valid_message() {
    let mut w = World::new(RetryPolicy::default().with_scale(0.001), None, None).await;
    w.start_consumer();
    let doc = w.doc("pinged").await;
    let sub = w
        .subscribe_filtered(&doc, "/ping", json!({}), "slack")
        .await;
    uc::test(&w.service, &w.principal, "pinged", &sub.id.to_string())
        .await
        .expect("ping");
    let got = w.receiver.wait_for("/ping", 1, WAIT).await;
    assert_eq!(got.len(), 1);
    assert!(
        got[0].problems.is_empty() && got[0].answered == 200,
        "{:?}",
        got[0]
    );
    let _: &Value = &got[0].body["blocks"];
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python (scripts/install-tools.sh)"
)]
async fn a_hubs_subscription_gets_the_releases_of_every_documentation_of_the_hub() {
    use specpress_domain::model::Visibility;
    use specpress_domain::usecases::manage::{create_doc, create_hub};
    use time::OffsetDateTime;

    let mut w = World::new(RetryPolicy::default().with_scale(0.001), None, None).await;
    w.start_consumer();
    let now = OffsetDateTime::now_utc();
    let store = w.store.as_ref();
    let (hub, _) = create_hub(
        store,
        &w.principal,
        "Zoo hub",
        Some("zoo-hub"),
        None,
        Visibility::Public,
        now,
    )
    .await
    .expect("hub");
    let in_hub = |slug: &'static str| {
        let p = w.principal.clone();
        async move {
            create_doc(
                store,
                &p,
                slug,
                Some(slug),
                Some("zoo-hub"),
                Visibility::Public,
                now,
            )
            .await
            .expect("doc")
            .0
        }
    };
    let before = in_hub("lions").await;
    let outside = w.doc("outside").await;
    let input = uc::CreateSubscription {
        url: w.receiver.url("/hub"),
        filter: Some(serde_json::from_value(json!({"breaking_only": false})).expect("filter")),
        ..uc::CreateSubscription::default()
    };
    let v = uc::create(&w.service, &w.principal, uc::Owner::Hub("zoo-hub"), input)
        .await
        .expect("hub subscription");
    assert!(v.subscription.hub);
    let secret = v.secret.expect("secret");
    w.receiver.configure("/hub", &[&secret], json!([]), 0).await;
    // Listed under the hub, not under its documentations.
    assert_eq!(
        uc::list(&w.service, &w.principal, uc::Owner::Hub("zoo-hub"))
            .await
            .expect("list")
            .len(),
        1
    );
    assert!(
        uc::list(&w.service, &w.principal, "lions")
            .await
            .expect("list")
            .is_empty()
    );
    let after = in_hub("tigers").await;

    w.deploy(&before, document("1", &["/lions"], &[]), None)
        .await;
    w.deploy(&after, document("1", &["/tigers"], &[]), None)
        .await;
    w.deploy(&outside, document("1", &["/outside"], &[]), None)
        .await;
    let got = w.receiver.wait_for("/hub", 2, WAIT).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let got_all = w.receiver.at("/hub").await;
    assert_eq!(got_all.len(), 2, "{got:?}");
    assert_all_verified(&got_all);
    let mut slugs: Vec<&str> = got_all
        .iter()
        .map(|r| r.body["documentation"]["slug"].as_str().unwrap_or(""))
        .collect();
    slugs.sort();
    assert_eq!(
        slugs,
        ["lions", "tigers"],
        "the hub's documentations, also one added after the subscription"
    );
    let log = uc::deliveries(
        &w.service,
        &w.principal,
        uc::Owner::Hub(hub.slug.as_str()),
        &v.subscription.id.to_string(),
    )
    .await
    .expect("log");
    assert_eq!(log.len(), 2);
}

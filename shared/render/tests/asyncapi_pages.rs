//! AsyncAPI pages: a channel lists every one of its messages (AsyncAPI 3.0 `messages` maps, 2.x
//! `publish`/`subscribe` messages with `oneOf`), shows its id when it has an address, and a
//! component message no channel uses has a page of its own (in the navigation and the search
//! index). Also the `x-beta` badges of operations, parameters and properties.

mod common;

use common::{BRANCHES, Fixture, LINKS, corpus_dir, load, parse};
use specpress_apispec::{Document, V};
use specpress_render::{Lookup, PageKind, SearchIndex, Site};

/// The HTML of the page at `path`.
fn page(doc: &Document, site: &Site, path: &str) -> String {
    let fx = Fixture::new();
    let ctx = fx.ctx(BRANCHES, LINKS, "Test");
    let Lookup::Page(p) = site.lookup(path) else {
        panic!(
            "no page at {path}: {:?}",
            site.pages().map(|p| p.path.to_string()).collect::<Vec<_>>()
        );
    };
    site.render(doc, &p, &ctx).html
}

/// The list items of the page's "Messages" section.
fn listed_messages(html: &str) -> Vec<&str> {
    let Some(start) = html.find("<h2>Messages</h2>") else {
        return Vec::new();
    };
    let rest = &html[start..];
    let end = rest.find("</ul>").unwrap_or(rest.len());
    rest[..end].split("<li>").skip(1).collect()
}

/// The keys of the object at `path` (member names) in the document.
fn keys(doc: &Document, path: &[&str]) -> Vec<String> {
    let mut v: Option<V<'_>> = Some(doc.root());
    for p in path {
        v = v.and_then(|x| x.get(p));
    }
    v.and_then(V::as_object)
        .map(|o| o.keys().map(|k| k.to_string()).collect())
        .unwrap_or_default()
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn a_channel_page_lists_every_message_of_the_channel() {
    let dir = corpus_dir();
    for file in ["slack-rtm-3.0.0.yml", "slack-rtm-3.1.0.yml"] {
        let doc = load(&dir.join("asyncapi").join(file));
        let site = Site::build(&doc);
        let names = keys(&doc, &["channels", "root", "messages"]);
        assert!(names.len() > 40, "{file}: {}", names.len());
        let html = page(&doc, &site, "channel/root");
        let items = listed_messages(&html);
        assert_eq!(items.len(), names.len(), "{file}");
        eprintln!("{file}: channel root lists {} messages", items.len());
        for name in &names {
            assert!(
                items
                    .iter()
                    .any(|i| i.contains(&format!("<code>{name}</code>"))),
                "{file}: {name} not listed"
            );
        }
        // Each link leads to an operation page showing the message at that anchor.
        for item in &items {
            let Some(href) = item
                .split("href=\"")
                .nth(1)
                .and_then(|h| h.split('"').next())
            else {
                continue;
            };
            let (path, anchor) = href.split_once('#').expect("an anchor");
            let path = path
                .trim_start_matches(common::BASE)
                .trim_start_matches('/');
            let target = page(&doc, &site, path);
            assert!(target.contains(&format!("id=\"{anchor}\"")), "{href}");
        }
        assert!(
            items.iter().filter(|i| i.contains("href=")).count() == items.len(),
            "{file}: every root message is carried by an operation"
        );
        assert!(html.len() < 100 * 1024, "{file}: {} bytes", html.len());
    }
}

#[test]
fn an_asyncapi_2_channel_page_lists_the_messages_of_its_operations_one_of_included() {
    let doc = parse(
        "asyncapi: 2.6.0
info: {title: T, version: '1'}
channels:
  light/measured:
    subscribe:
      message:
        oneOf:
          - $ref: '#/components/messages/lightMeasured'
          - {name: inline, title: Inline one, contentType: text/plain, payload: {type: string}}
    publish:
      message: {$ref: '#/components/messages/lightMeasured'}
components:
  messages:
    lightMeasured: {name: lightMeasured, summary: Lumens measured., payload: {type: integer}}
",
    );
    let site = Site::build(&doc);
    let html = page(&doc, &site, "channel/light-measured");
    let items = listed_messages(&html);
    assert_eq!(items.len(), 2, "{html}");
    assert!(items[0].contains("<code>lightMeasured</code>"), "{html}");
    assert!(items[0].contains("Lumens measured."), "{html}");
    assert!(
        items[1].contains("Inline one") && items[1].contains("text/plain"),
        "{html}"
    );
    // No id line: a 2.x channel's id is its address.
    assert!(!html.contains("Channel id"), "{html}");
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn a_channel_page_shows_its_id_when_it_has_an_address() {
    let dir = corpus_dir();
    let doc = load(&dir.join("asyncapi/slack-rtm-3.0.0.yml"));
    let site = Site::build(&doc);
    let html = page(&doc, &site, "channel/root");
    assert!(
        html.contains("<li>Channel id <code>root</code></li>"),
        "{html}"
    );
    let doc = load(&dir.join("asyncapi/streetlights-kafka-2.5.0.yml"));
    let site = Site::build(&doc);
    for p in site.pages().filter(|p| p.kind == PageKind::Channel) {
        let html = site
            .render(&doc, &p.page, &Fixture::new().ctx(BRANCHES, LINKS, "T"))
            .html;
        assert!(!html.contains("Channel id"), "{}", p.path);
    }
}

const LONE: &str = "asyncapi: 3.0.0
info: {title: T, version: '1'}
channels:
  events:
    address: 'events/{id}'
    messages:
      used: {$ref: '#/components/messages/used'}
operations:
  publishEvent:
    action: send
    channel: {$ref: '#/channels/events'}
components:
  messages:
    used: {payload: {type: string}}
    forgotten:
      title: 'Forgotten <script>alert(1)</script>'
      summary: Nobody sends it.
      contentType: application/json
      payload: {type: object, properties: {lonelyField: {type: string}}}
";

#[test]
fn a_component_message_used_by_no_channel_has_its_own_page() {
    let doc = parse(LONE);
    let site = Site::build(&doc);
    let html = page(&doc, &site, "message/forgotten");
    assert!(html.contains("No channel uses this message"), "{html}");
    assert!(html.contains("lonelyField"), "{html}");
    assert!(html.contains("application/json"), "{html}");
    assert!(!html.contains("<script>alert"), "{html}");
    assert!(html.contains("&lt;script&gt;"), "{html}");
    // The used message has no page of its own; the channel page shows its id and address.
    assert!(!matches!(site.lookup("message/used"), Lookup::Page(_)));
    let channel = page(&doc, &site, "channel/events-id");
    assert!(
        channel.contains("Channel id <code>events</code>"),
        "{channel}"
    );
    assert_eq!(listed_messages(&channel).len(), 1, "{channel}");
    // It has a place in the navigation.
    let home = page(&doc, &site, "");
    assert!(home.contains("Messages used by no channel"), "{home}");
    assert!(home.contains("message/forgotten"), "{home}");
    // And in the search index.
    let index = SearchIndex::build(&doc, &site);
    let found = index.search(&site, "forgotten", 10).expect("a valid query");
    assert!(
        found.hits.iter().any(|h| h.path == "message/forgotten"),
        "{:?}",
        found.hits.iter().map(|h| h.path).collect::<Vec<_>>()
    );
}

#[test]
fn an_asyncapi_2_component_message_used_by_no_operation_has_its_own_page() {
    let doc = parse(
        "asyncapi: 2.6.0
info: {title: T, version: '1'}
channels:
  a:
    subscribe:
      message: {$ref: '#/components/messages/used'}
components:
  messages:
    used: {payload: {type: string}}
    spare: {summary: Kept for later., payload: {type: integer}}
",
    );
    let site = Site::build(&doc);
    let html = page(&doc, &site, "message/spare");
    assert!(html.contains("Message <code>spare</code>"), "{html}");
    assert!(html.contains("Kept for later."), "{html}");
    assert!(!matches!(site.lookup("message/used"), Lookup::Page(_)));
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn the_corpus_component_messages_used_by_no_channel_have_pages() {
    let dir = corpus_dir();
    for file in [
        "slack-rtm-3.0.0.yml",
        "slack-rtm-3.1.0.yml",
        "streetlights-kafka-2.3.0.yml",
        "streetlights-kafka-2.5.0.yml",
        "streetlights-kafka-3.0.0.yml",
        "streetlights-kafka-3.1.0.yml",
    ] {
        let doc = load(&dir.join("asyncapi").join(file));
        let site = Site::build(&doc);
        let lone: Vec<_> = site
            .pages()
            .filter(|p| p.kind == PageKind::Message)
            .map(|p| (p.path.to_string(), p.page))
            .collect();
        eprintln!(
            "{file}: {} component messages, {} used by no channel",
            keys(&doc, &["components", "messages"]).len(),
            lone.len()
        );
        let fx = Fixture::new();
        let ctx = fx.ctx(BRANCHES, LINKS, "T");
        for (path, p) in lone {
            let html = site.render(&doc, &p, &ctx).html;
            assert!(html.contains("No channel uses this message"), "{path}");
        }
    }
}

#[test]
fn beta_operations_parameters_and_properties_show_a_beta_badge() {
    let doc = parse(
        "openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /pets:
    get:
      x-beta: true
      summary: List pets
      parameters:
        - {name: q, in: query, x-beta: true, schema: {type: string}}
        - {name: stable, in: query, schema: {type: string}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  fresh: {type: string, x-beta: true}
                  old: {type: string}
  /cats:
    get:
      summary: List cats
      responses: {'200': {description: ok}}
",
    );
    let site = Site::build(&doc);
    let badge = "<span class=\"b beta\">beta</span>";
    let pets = site
        .pages()
        .find(|p| p.title == "List pets")
        .map(|p| p.path.to_string())
        .expect("the pets page");
    let html = page(&doc, &site, &pets);
    assert!(
        html.contains(&format!("<h1>List pets {badge}</h1>")),
        "{html}"
    );
    // The operation, `q` and `fresh`: three badges; `stable` and `old` have none.
    assert_eq!(html.matches(badge).count(), 3, "{html}");
    let cats = site
        .pages()
        .find(|p| p.title == "List cats")
        .map(|p| p.path.to_string())
        .expect("the cats page");
    assert!(!page(&doc, &site, &cats).contains(badge));
}

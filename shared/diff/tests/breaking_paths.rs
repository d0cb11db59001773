//! Every breaking flag can be followed, through children and `ref` links, down to the change
//! that causes it; levels likewise; and the four renderings count the same breaking changes.
//! One small document pair per cause the corpus audit (issue 18, item 5) found.

#[path = "support/trace.rs"]
mod trace;

use serde_json::Value;
use specpress_apispec::{Limits, parse};
use specpress_diff::{DiffOptions, DiffReport, Level, diff};

fn report_with(previous: &str, current: &str, options: &DiffOptions) -> DiffReport {
    let p = parse(previous, &[], &Limits::default()).expect("previous parses");
    let c = parse(current, &[], &Limits::default()).expect("current parses");
    diff(&p, &c, options)
}

fn report(previous: &str, current: &str) -> DiffReport {
    report_with(
        previous,
        current,
        &DiffOptions::new().with_today("2026-01-01"),
    )
}

/// The report's flags and levels can be followed to their causes, and every rendering counts
/// the same breaking changes; returns the JSON details.
fn sound(r: &DiffReport) -> Value {
    let t = trace::check(r);
    assert!(t.is_sound(), "{t:#?}\n{}", r.text());
    let c = trace::counts(r);
    assert_eq!(
        (c.json, c.text, c.markdown_headline, c.html),
        (c.report, c.report, c.report, c.report),
        "{c:?}\n{}",
        r.text()
    );
    r.details()
}

/// The root item with this id.
fn item<'v>(details: &'v Value, id: &str) -> &'v Value {
    details
        .as_array()
        .and_then(|a| a.iter().find(|i| i["id"] == id))
        .unwrap_or_else(|| panic!("no item {id} in {details:#}"))
}

fn has_item(details: &Value, id: &str) -> bool {
    details
        .as_array()
        .is_some_and(|a| a.iter().any(|i| i["id"] == id))
}

/// Every link item (at any depth) under `v`: (its `ref`, its `breaking`, its `level`).
fn links(v: &Value) -> Vec<(String, bool, String)> {
    let mut out = Vec::new();
    if let Some(r) = v["ref"].as_str() {
        out.push((
            r.to_string(),
            v["breaking"] == true,
            v["level"].as_str().unwrap_or("").to_string(),
        ));
    }
    for child in v["children"].as_array().into_iter().flatten() {
        out.extend(links(child));
    }
    out
}

const OA31: &str = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n";

/// `GET /pets` answers with `schemas[response]`; `POST /pets` takes `schemas[request]`.
fn api(response: &str, request: &str, schemas: &str) -> String {
    format!(
        "{OA31}paths:
  /pets:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {{$ref: '#/components/schemas/{response}'}}
    post:
      requestBody:
        content:
          application/json:
            schema: {{$ref: '#/components/schemas/{request}'}}
      responses:
        '201': {{description: created}}
components:
  schemas:
{schemas}"
    )
}

const TAG: &str =
    "    Tag: {type: object, properties: {id: {type: integer}, label: {type: string}}}\n";
const TAG_WITHOUT_LABEL: &str = "    Tag: {type: object, properties: {id: {type: integer}}}\n";

#[test]
fn a_component_whose_only_change_is_a_description_links_to_the_component_whose_change_breaks() {
    // `Pet` only changes its description; the `Tag` it uses loses a property (breaking in a
    // response). Before, `Pet`'s item was flagged breaking with nothing under it to say why,
    // and `GET /pets`'s link to `Pet` said "not breaking" while the operation said "breaking".
    let pet = |description: &str| {
        format!(
            "    Pet: {{type: object, description: {description}, properties: {{tag: {{$ref: '#/components/schemas/Tag'}}}}}}\n"
        )
    };
    let r = report(
        &api("Pet", "Tag", &format!("{}{TAG}", pet("Old"))),
        &api("Pet", "Tag", &format!("{}{TAG_WITHOUT_LABEL}", pet("New"))),
    );
    let details = sound(&r);
    let get = item(&details, "get-pets");
    assert_eq!(get["breaking"], true);
    assert_eq!(
        links(get),
        vec![("schema-pet-response-body".into(), true, "breaking".into())]
    );
    let pet = item(&details, "schema-pet-response-body");
    assert_eq!(pet["breaking"], true);
    // The link sits where `Pet` uses `Tag`.
    let tag_link = &pet["children"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "tag"))
        .expect("property tag")["children"][0];
    assert_eq!(tag_link["ref"], "schema-tag-response-body");
    assert_eq!(tag_link["breaking"], true);
    let tag = item(&details, "schema-tag-response-body");
    assert_eq!(
        tag["children"][0]["changes"][0]["rule"],
        "response-body-property-removed"
    );
    assert_eq!(tag["affected"], serde_json::json!(["GET /pets"]));
}

#[test]
fn a_link_carries_the_level_of_the_component_it_points_at() {
    // In a request body, removing a property is a warning: the link from `POST /pets` to
    // `Tag` says so (it said `info` before: a link was either breaking or info).
    let r = report(
        &api("Tag", "Tag", TAG),
        &api("Tag", "Tag", TAG_WITHOUT_LABEL),
    );
    let details = sound(&r);
    let post = item(&details, "post-pets");
    assert_eq!(post["breaking"], false);
    assert_eq!(post["level"], "warning");
    assert_eq!(
        links(post),
        vec![("schema-tag-request-body".into(), false, "warning".into())]
    );
    assert_eq!(
        item(&details, "schema-tag-request-body")["level"],
        "warning"
    );
}

#[test]
fn an_operation_reaching_a_breaking_change_through_an_unchanged_component_links_to_it() {
    // `PetList` does not change; the `Pet` it lists loses a property. Before, `GET /pets` had
    // no link to follow (only components that changed themselves were linked, and `PetList`
    // was no item), so the operation was not shown at all.
    let schemas = |tag: &str| {
        format!(
            "    PetList: {{type: array, items: {{$ref: '#/components/schemas/Pet'}}}}\n    Pet: {{type: object, properties: {{tag: {{$ref: '#/components/schemas/Tag'}}}}}}\n{tag}"
        )
    };
    let r = report(
        &api("PetList", "Pet", &schemas(TAG)),
        &api("PetList", "Pet", &schemas(TAG_WITHOUT_LABEL)),
    );
    let details = sound(&r);
    let get = item(&details, "get-pets");
    assert_eq!(
        links(get),
        vec![(
            "schema-petlist-response-body".into(),
            true,
            "breaking".into()
        )]
    );
    // `PetList` and `Pet` are waypoints: no change of their own, links only, no `affected`
    // list (the operations are listed at `Tag`, whose change they reach).
    for (id, next) in [
        ("schema-petlist-response-body", "schema-pet-response-body"),
        ("schema-pet-response-body", "schema-tag-response-body"),
    ] {
        let waypoint = item(&details, id);
        assert_eq!(waypoint["breaking"], true);
        assert!(waypoint.get("changes").is_none(), "{waypoint:#}");
        assert!(waypoint.get("affected").is_none(), "{waypoint:#}");
        assert_eq!(
            links(waypoint),
            vec![(next.into(), true, "breaking".into())]
        );
    }
    assert_eq!(
        item(&details, "schema-tag-response-body")["affected"],
        serde_json::json!(["GET /pets"])
    );
    let text = r.text();
    assert!(
        text.contains(
            "Modified: GET /pets\n  Response modified: 200\n    Schema modified: PetList (leads to breaking changes)\n"
        ),
        "{text}"
    );
    // `POST /pets` takes `Pet` in a request, where the removal is a warning: it reaches a
    // change only through the unchanged `Pet`, and no breaking one, so it has no item; the
    // change is listed at `Tag` with it among the operations.
    assert!(!has_item(&details, "post-pets"), "{details:#}");
    assert!(!has_item(&details, "schema-pet-request-body"));
    assert_eq!(
        item(&details, "schema-tag-request-body")["affected"],
        serde_json::json!(["POST /pets"])
    );
}

#[test]
fn a_cycle_of_components_leads_every_member_to_the_breaking_change_inside_it() {
    let schemas = |extra: &str, description: &str| {
        format!(
            "    Node: {{type: object, description: {description}, properties: {{next: {{$ref: '#/components/schemas/Edge'}}}}}}\n    Edge: {{type: object, properties: {{to: {{$ref: '#/components/schemas/Node'}}{extra}}}}}\n"
        )
    };
    let r = report(
        &api("Node", "Node", &schemas(", weight: {type: number}", "Old")),
        &api("Node", "Node", &schemas("", "New")),
    );
    let details = sound(&r);
    let node = item(&details, "schema-node-response-body");
    let edge = item(&details, "schema-edge-response-body");
    assert_eq!(node["breaking"], true);
    assert_eq!(edge["breaking"], true);
    assert_eq!(
        links(node),
        vec![("schema-edge-response-body".into(), true, "breaking".into())]
    );
    // `Edge` links back to `Node` (which changed itself): the cycle is shown, and the flag
    // on that link is explained by `Edge`'s own change, one link further.
    assert_eq!(
        links(edge),
        vec![("schema-node-response-body".into(), true, "breaking".into())]
    );
}

#[test]
fn a_change_that_does_not_break_reached_through_an_unchanged_component_is_reported_at_its_component()
 {
    let schemas = |description: &str| {
        format!(
            "    PetList: {{type: array, items: {{$ref: '#/components/schemas/Pet'}}}}\n    Pet: {{type: object, description: {description}}}\n    Other: {{type: string}}\n"
        )
    };
    let r = report(
        &api("PetList", "Other", &schemas("Old")),
        &api("PetList", "Other", &schemas("New")),
    );
    let details = sound(&r);
    assert_eq!(r.changes().len(), 1, "{:?}", r.text());
    assert!(!has_item(&details, "get-pets"), "{details:#}");
    assert!(!has_item(&details, "schema-petlist-response-body"));
    assert_eq!(
        item(&details, "schema-pet-response-body")["affected"],
        serde_json::json!(["GET /pets"])
    );
}

#[test]
fn levels_and_flags_follow_overrides_and_ignores() {
    let previous = api(
        "Pet",
        "Pet",
        &format!("    Pet: {{$ref: '#/components/schemas/Tag'}}\n{TAG}"),
    );
    let current = api(
        "Pet",
        "Pet",
        &format!("    Pet: {{$ref: '#/components/schemas/Tag'}}\n{TAG_WITHOUT_LABEL}"),
    );
    let mut warning = DiffOptions::new();
    warning
        .apply_override("response-body-property-removed=warning")
        .expect("override");
    let r = report_with(&previous, &current, &warning);
    assert!(!r.breaking());
    let details = sound(&r);
    assert_eq!(item(&details, "get-pets")["breaking"], false);
    assert_eq!(item(&details, "get-pets")["level"], "warning");
    let mut ignored = DiffOptions::new();
    ignored
        .apply_ignore("response-body-property-removed")
        .expect("ignore");
    let r = report_with(&previous, &current, &ignored);
    let details = sound(&r);
    assert!(!has_item(&details, "get-pets"), "{details:#}");
    // Ignoring the rule for the operation leaves the component's change (it belongs to the
    // component), so the operation still leads to it.
    let mut for_the_operation = DiffOptions::new();
    for_the_operation
        .apply_ignore("response-body-property-removed@GET /pets")
        .expect("ignore");
    let r = report_with(&previous, &current, &for_the_operation);
    let details = sound(&r);
    assert_eq!(item(&details, "get-pets")["breaking"], true);
}

#[test]
fn a_schema_shared_by_every_media_type_of_a_swagger_response_is_linked_once() {
    let doc = |tag: &str| {
        format!(
            "swagger: '2.0'
info: {{title: t, version: '1'}}
produces: [application/json, application/yaml, application/xml]
paths:
  /pets:
    get:
      responses:
        '200':
          description: ok
          schema: {{$ref: '#/definitions/Tag'}}
definitions:
  Tag: {tag}
"
        )
    };
    let r = report(
        &doc("{type: object, properties: {id: {type: integer}, label: {type: string}}}"),
        &doc("{type: object, properties: {id: {type: integer}}}"),
    );
    let details = sound(&r);
    let get = item(&details, "get-pets");
    // Once, under the first media type, as the changes of an inline schema are.
    assert_eq!(links(get).len(), 1, "{get:#}");
    assert_eq!(
        get["children"][0]["children"][0]["name"], "application/json",
        "{get:#}"
    );
    assert_eq!(r.text().matches("Schema modified: Tag").count(), 1);
}

#[test]
fn a_node_with_two_breaking_changes_is_marked_twice_in_every_rendering() {
    let doc = |schema: &str| {
        format!(
            "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {schema}\n"
        )
    };
    let r = report(
        &doc("{type: object, required: [url], properties: {url: {type: string}}}"),
        &doc("{type: object, properties: {url: {type: string, nullable: true, description: d}}}"),
    );
    let details = sound(&r);
    let breaking: Vec<&str> = r
        .changes()
        .iter()
        .filter(|c| c.level() == Level::Breaking)
        .map(|c| c.rule_id())
        .collect();
    assert_eq!(
        breaking,
        vec![
            "response-body-property-became-optional",
            "response-body-became-nullable"
        ]
    );
    let text = r.text();
    assert!(
        text.contains("    [Breaking] Body attribute modified: url (property `url` became optional; description changed)\n    [Breaking] Body attribute modified: url (became nullable)\n"),
        "{text}"
    );
    assert!(
        r.markdown()
            .starts_with("**2 breaking changes** (1 of 1 changed item leads to one)."),
        "{}",
        r.markdown()
    );
    assert_eq!(
        details[0]["children"][0]["children"][0]["breaking_details"]["breaking_attributes"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
}

#[test]
fn the_markdown_comment_shows_the_breaking_changes_before_the_operations_leading_to_them() {
    // 600 operations all answer with `Pet`, which loses a property: the items leading to the
    // change come first in the item list, the change's own item last; the comment is cut, but
    // never before the change.
    let mut paths = String::new();
    for i in 0..600 {
        paths.push_str(&format!(
            "  /pets{i}:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {{$ref: '#/components/schemas/Pet'}}\n"
        ));
    }
    let doc = |pet: &str| format!("{OA31}paths:\n{paths}components:\n  schemas:\n    Pet: {pet}\n");
    let r = report(
        &doc("{type: object, properties: {id: {type: integer}, name: {type: string}}}"),
        &doc("{type: object, properties: {id: {type: integer}}}"),
    );
    sound(&r);
    assert_eq!(r.items().len(), 601);
    assert_eq!(r.items()[600].name, "Pet");
    let md = r.markdown();
    assert!(md.len() <= 61_000, "{}", md.len());
    assert!(md.starts_with("**1 breaking change** (601 of 601 changed items lead to one).\n\n## Modified (601)\n\n* schema (response body) `Pet` 🚨\n"), "{}", &md[..400]);
    assert!(md.contains("more changed items not shown here"));
    // Whole items only: the last line written before the trailer ends an item.
    let body = md.split("\n\n_…and").next().unwrap_or("");
    assert!(
        body.trim_end().ends_with("(leads to breaking changes)"),
        "{}",
        &body[body.len() - 300..]
    );
}

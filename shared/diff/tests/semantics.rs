//! Behaviour of the engine beyond single rules: shared components reported once, circular
//! schemas, matching, direction, read/write-only, dialects, options and the four renderings.

use specpress_apispec::{Limits, parse};
use specpress_diff::{DiffOptions, DiffReport, Format, Level, Status, diff};

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

fn rules(r: &DiffReport) -> Vec<&'static str> {
    r.changes().iter().map(|c| c.rule_id()).collect()
}

const OA31: &str = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n";

fn pets(pet_schema: &str) -> String {
    format!(
        "{OA31}paths:
  /pets:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {{type: array, items: {{$ref: '#/components/schemas/Pet'}}}}
    post:
      requestBody:
        content:
          application/json:
            schema: {{$ref: '#/components/schemas/Pet'}}
      responses:
        '201': {{description: created}}
  /pets/{{petId}}:
    get:
      parameters: [{{name: petId, in: path, required: true, schema: {{type: string}}}}]
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {{$ref: '#/components/schemas/Pet'}}
components:
  schemas:
    Pet: {pet_schema}
"
    )
}

#[test]
fn a_change_in_a_shared_component_is_reported_once_per_direction_with_its_operations() {
    let r = report(
        &pets("{type: object, properties: {id: {type: integer}, name: {type: string}}}"),
        &pets("{type: object, properties: {id: {type: integer}}}"),
    );
    let removed: Vec<_> = r
        .changes()
        .iter()
        .filter(|c| c.rule_id().ends_with("property-removed"))
        .collect();
    // Once as a response (breaking) and once as a request body (warning), never per use.
    assert_eq!(removed.len(), 2, "{:?}", rules(&r));
    assert!(
        removed
            .iter()
            .any(|c| c.rule_id() == "response-body-property-removed"
                && c.level() == Level::Breaking
                && c.subject() == "Pet")
    );
    assert!(
        removed
            .iter()
            .any(|c| c.rule_id() == "request-body-property-removed" && c.level() == Level::Warning)
    );
    let response_item = r
        .items()
        .iter()
        .find(|i| i.item_type == "schema" && i.id.ends_with("response-body"))
        .expect("component item");
    assert_eq!(
        response_item.affected,
        vec!["GET /pets", "GET /pets/{petId}"]
    );
    // Each operation links to the component instead of repeating the change.
    let get = r
        .items()
        .iter()
        .find(|i| i.name == "GET /pets/{petId}")
        .expect("op item");
    assert!(get.breaking);
    let text = r.text();
    // The link says where the breaking change is; the change itself is marked once, at the
    // component.
    assert!(text.contains("Modified: GET /pets/{petId}\n  Response modified: 200\n    Schema modified: Pet (leads to breaking changes)\n"), "{text}");
    assert_eq!(text.matches("[Breaking]").count(), 1, "{text}");
    assert!(
        text.contains("[Breaking] Body attribute removed: name"),
        "{text}"
    );
}

#[test]
fn circular_schemas_terminate_and_changes_inside_the_cycle_are_found() {
    let node = |extra: &str| {
        format!(
            "{{type: object, properties: {{children: {{type: array, items: {{$ref: '#/components/schemas/Pet'}}}}, parent: {{$ref: '#/components/schemas/Pet'}}{extra}}}}}"
        )
    };
    let r = report(&pets(&node("")), &pets(&node(", tag: {type: string}")));
    assert_eq!(
        r.changes()
            .iter()
            .filter(|c| c.rule_id() == "response-body-property-added")
            .count(),
        1
    );
    let same = report(&pets(&node("")), &pets(&node("")));
    assert!(same.is_empty());
}

#[test]
fn operations_match_by_method_and_template_whatever_the_parameter_names() {
    let a = format!(
        "{OA31}paths:\n  /pets/{{id}}:\n    get:\n      parameters: [{{name: id, in: path, required: true, schema: {{type: string}}}}]\n      responses: {{'200': {{description: ok}}}}\n"
    );
    let b = format!(
        "{OA31}paths:\n  /pets/{{petId}}:\n    get:\n      parameters: [{{name: petId, in: path, required: true, schema: {{type: integer}}}}]\n      responses: {{'200': {{description: ok}}}}\n"
    );
    let r = report(&a, &b);
    let ids = rules(&r);
    assert!(
        !ids.contains(&"endpoint-removed") && !ids.contains(&"endpoint-added"),
        "{ids:?}"
    );
    assert!(ids.contains(&"path-parameter-renamed"));
    // Every check still runs on the matched operation: the path parameter's type changed.
    assert!(ids.contains(&"request-parameter-type-changed"), "{ids:?}");
    assert!(r.breaking());
}

#[test]
fn path_level_parameters_are_merged_into_each_operation() {
    let a = format!(
        "{OA31}paths:\n  /a:\n    parameters: [{{name: q, in: query, schema: {{type: string}}}}]\n    get: {{responses: {{'200': {{description: ok}}}}}}\n"
    );
    let b = format!(
        "{OA31}paths:\n  /a:\n    parameters: [{{name: q, in: query, required: true, schema: {{type: string}}}}]\n    get: {{responses: {{'200': {{description: ok}}}}}}\n"
    );
    assert_eq!(
        rules(&report(&a, &b)),
        vec!["request-parameter-became-required"]
    );
}

#[test]
fn read_only_properties_are_not_required_in_requests_nor_write_only_in_responses() {
    let body = |props: &str, req: &str| {
        format!(
            "{OA31}paths:\n  /a:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema: {{type: object, properties: {props}, required: {req}}}\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {{type: object, properties: {props}, required: {req}}}\n"
        )
    };
    // A required but read-only `id` added: no request client has to send it.
    let r = report(
        &body("{name: {type: string}}", "[]"),
        &body(
            "{name: {type: string}, id: {type: string, readOnly: true}}",
            "[id]",
        ),
    );
    assert!(!r.breaking(), "{:?}", rules(&r));
    assert!(rules(&r).contains(&"request-body-property-added"));
    // A required property becoming write-only disappears from responses: breaking there.
    let r = report(
        &body("{secret: {type: string}}", "[secret]"),
        &body("{secret: {type: string, writeOnly: true}}", "[secret]"),
    );
    assert!(rules(&r).contains(&"response-body-property-became-write-only"));
    assert!(rules(&r).contains(&"response-body-property-became-optional"));
    assert!(r.breaking());
}

#[test]
fn openapi_30_nullable_and_swagger_x_nullable_are_understood() {
    let oa30 = |nullable: bool| {
        format!(
            "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {{type: string, nullable: {nullable}}}\n"
        )
    };
    let r = report(&oa30(false), &oa30(true));
    assert_eq!(rules(&r), vec!["response-body-became-nullable"]);
    assert!(r.breaking());
    let sw = |nullable: bool| {
        format!(
            "swagger: '2.0'\ninfo: {{title: t, version: '1'}}\nproduces: [application/json]\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          schema: {{type: string, x-nullable: {nullable}}}\n"
        )
    };
    assert_eq!(
        rules(&report(&sw(false), &sw(true))),
        vec!["response-body-became-nullable"]
    );
}

#[test]
fn deprecated_then_removed_operations_respect_the_sunset_date() {
    let op = |extra: &str| {
        format!(
            "{OA31}paths:\n  /a:\n    get: {{deprecated: true, {extra} responses: {{'200': {{description: ok}}}}}}\n  /b:\n    get: {{responses: {{'200': {{description: ok}}}}}}\n"
        )
    };
    let gone =
        format!("{OA31}paths:\n  /b:\n    get: {{responses: {{'200': {{description: ok}}}}}}\n");
    assert_eq!(
        rules(&report(&op(""), &gone)),
        vec!["endpoint-removed-after-deprecation"]
    );
    assert_eq!(
        rules(&report(&op("x-sunset: '2025-06-01',"), &gone)),
        vec!["endpoint-removed-after-deprecation"]
    );
    assert_eq!(
        rules(&report(&op("x-sunset: '2027-06-01',"), &gone)),
        vec!["endpoint-removed-before-sunset"]
    );
}

#[test]
fn asyncapi_direction_decides_how_a_payload_change_is_judged() {
    let doc = |action: &str, props: &str| {
        format!(
            "asyncapi: 2.6.0\ninfo: {{title: t, version: '1'}}\nchannels:\n  user/signedup:\n    {action}:\n      message:\n        name: UserSignedUp\n        payload: {{type: object, properties: {props}}}\n"
        )
    };
    // The application sends it: consumers lose a field (like a response).
    let sent = report(
        &doc("subscribe", "{a: {type: string}, b: {type: string}}"),
        &doc("subscribe", "{a: {type: string}}"),
    );
    assert_eq!(rules(&sent), vec!["message-sent-property-removed"]);
    assert!(sent.breaking());
    // The application receives it: producers may keep sending it (like a request).
    let received = report(
        &doc("publish", "{a: {type: string}, b: {type: string}}"),
        &doc("publish", "{a: {type: string}}"),
    );
    assert_eq!(rules(&received), vec!["message-received-property-removed"]);
    assert!(!received.breaking());
}

#[test]
fn a_ref_replaced_by_an_equal_inline_schema_and_reordered_keys_are_no_change() {
    let with_ref = pets("{type: object, properties: {id: {type: integer}, name: {type: string}}}");
    let inline = with_ref.replace(
        "schema: {$ref: '#/components/schemas/Pet'}\n      responses:\n        '201'",
        "schema: {properties: {name: {type: string}, id: {type: integer}}, type: object}\n      responses:\n        '201'",
    );
    assert_ne!(with_ref, inline);
    let r = report(&with_ref, &inline);
    assert!(!r.structural(), "{}", r.text());
}

#[test]
fn content_only_changes_are_not_structural() {
    let r = report(
        &pets("{type: object, description: A pet, properties: {id: {type: integer, example: 1}}}"),
        &pets(
            "{type: object, description: A good pet, properties: {id: {type: integer, example: 2}}}",
        ),
    );
    assert!(!r.is_empty());
    assert!(!r.structural());
    assert!(!r.breaking());
    // Direction-independent content changes are reported once even when the component is
    // compared in two roles.
    assert_eq!(
        r.changes()
            .iter()
            .filter(|c| c.message() == "description changed")
            .count(),
        1
    );
}

#[test]
fn levels_can_be_overridden_and_rules_ignored_per_operation() {
    let a = format!(
        "{OA31}paths:\n  /a: {{get: {{responses: {{'200': {{description: ok}}}}}}}}\n  /b/{{id}}: {{get: {{responses: {{'200': {{description: ok}}}}}}}}\n"
    );
    let b = format!("{OA31}paths: {{}}\n");
    let mut o = DiffOptions::new();
    o.apply_ignore("endpoint-removed@get /b/{x}").unwrap();
    let r = report_with(&a, &b, &o);
    assert_eq!(r.changes().len(), 1);
    assert_eq!(r.changes()[0].subject(), "GET /a");
    let mut o = DiffOptions::new();
    o.apply_override("endpoint-removed=warning").unwrap();
    let r = report_with(&a, &b, &o);
    assert!(!r.breaking());
    assert!(r.has_level(Level::Warning));
}

#[test]
fn the_four_renderings_follow_the_bump_shapes() {
    let a = format!(
        "{OA31}paths:\n  /ping: {{get: {{responses: {{'200': {{description: ok}}}}}}}}\n  /books:\n    post:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {{type: object, properties: {{cent: {{type: integer}}, title: {{type: string}}}}}}\n"
    );
    let b = format!(
        "{OA31}paths:\n  /books:\n    post:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {{type: object, properties: {{title: {{type: string}}}}}}\n  /versions: {{get: {{responses: {{'200': {{description: ok}}}}}}}}\n"
    );
    let r = report(&a, &b);
    let text = r.render(Format::Text);
    assert_eq!(
        text,
        "Modified: POST /books\n  Response modified: 200\n    [Breaking] Body attribute removed: cent\n[Breaking] Removed: GET /ping\nAdded: GET /versions\n"
    );
    let md = r.render(Format::Markdown);
    let removed = md.find("## Removed (1)").expect("removed group");
    let modified = md.find("## Modified (1)").expect("modified group");
    let added = md.find("## Added (1)").expect("added group");
    assert!(
        removed < added && modified < added,
        "breaking groups first:\n{md}"
    );
    assert!(
        md.contains("* **[Breaking]** Body attribute removed: `cent`"),
        "{md}"
    );
    let json = r.details();
    let ping = json
        .as_array()
        .and_then(|a| a.iter().find(|i| i["name"] == "GET /ping"))
        .expect("ping item");
    assert_eq!(ping["status"], "removed");
    assert_eq!(ping["type"], "endpoint");
    assert_eq!(ping["id"], "get-ping");
    assert_eq!(ping["breaking"], true);
    assert_eq!(
        ping["breaking_details"]["message_key"],
        "removed_not_deprecated"
    );
    assert_eq!(ping["previous"]["verb"], "GET");
    assert_eq!(ping["changes"][0]["rule"], "endpoint-removed");
    let html = r.render(Format::Html);
    assert!(html.contains("class=\"specpress-diff__item specpress-diff__root changelog-event__diff-operation removed breaking\""));
    assert!(html.contains("<code class=\"code-inline root\">GET /ping</code>"));
    assert_eq!(html.matches("<li").count(), html.matches("</li>").count());
    assert!(
        r.items().iter().all(|i| i.status != Status::Modified
            || !i.children.is_empty()
            || !i.changes.is_empty())
    );
}

#[test]
fn html_escapes_names_from_the_document() {
    let a = format!("{OA31}paths: {{}}\n");
    let b = format!(
        "{OA31}paths:\n  '/x<script>': {{get: {{responses: {{'200': {{description: ok}}}}}}}}\n"
    );
    let html = report(&a, &b).html();
    assert!(html.contains("/x&lt;script&gt;"));
    assert!(!html.contains("<script>"));
}

#[test]
fn reports_and_options_can_be_shared_across_threads() {
    fn check<T: Send + Sync + Clone>() {}
    check::<DiffReport>();
    check::<DiffOptions>();
    let r = report(
        &format!("{OA31}paths: {{}}\n"),
        &format!("{OA31}paths: {{}}\n"),
    );
    let handle = std::thread::spawn(move || r.is_empty());
    assert!(handle.join().expect("thread"));
}

#[test]
fn deeply_nested_schemas_are_compared_within_a_small_thread_stack() {
    // As deep as the spec engine's default depth limit allows, on a 2 MiB stack (the size of
    // a tokio blocking thread), in a debug build.
    let nested = |leaf: &str| {
        let mut s = leaf.to_string();
        for _ in 0..55 {
            s = format!("{{\"type\":\"object\",\"properties\":{{\"a\":{s}}}}}");
        }
        format!(
            "{{\"openapi\":\"3.1.0\",\"info\":{{\"title\":\"t\",\"version\":\"1\"}},\"paths\":{{\"/a\":{{\"get\":{{\"responses\":{{\"200\":{{\"description\":\"ok\",\"content\":{{\"application/json\":{{\"schema\":{s}}}}}}}}}}}}}}}}}"
        )
    };
    let (a, b) = (
        nested("{\"type\":\"string\"}"),
        nested("{\"type\":\"integer\"}"),
    );
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || rules(&report(&a, &b)).contains(&"response-body-type-changed"))
        .expect("spawn");
    assert!(handle.join().expect("no stack overflow"));
}

#[test]
fn keywords_next_to_a_ref_belong_to_the_use_site() {
    let doc = |siblings: &str| {
        format!(
            "{OA31}paths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema:\n                type: object\n                properties:\n                  pet: {{$ref: '#/components/schemas/Pet'{siblings}}}\ncomponents:\n  schemas:\n    Pet: {{type: object}}\n"
        )
    };
    let r = report(
        &doc(", description: Old"),
        &doc(", description: New, deprecated: true"),
    );
    let ids = rules(&r);
    assert!(
        ids.contains(&"response-body-description-changed"),
        "{ids:?}"
    );
    assert!(
        ids.contains(&"response-body-property-deprecated"),
        "{ids:?}"
    );
    assert!(!r.structural() || ids.contains(&"response-body-property-deprecated"));
    assert!(report(&doc(", description: Same"), &doc(", description: Same")).is_empty());
}

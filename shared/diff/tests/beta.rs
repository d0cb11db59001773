//! Beta elements (`x-beta: true`, Bump.sh's convention): a change to an element that is beta in
//! the previous version is reported, under its usual rule, but never at level breaking (a
//! warning saying "beta: not breaking"); entering and leaving beta are noted. Every rendering
//! (text, Markdown, HTML, the JSON tree the change pages, digests and webhook payloads read)
//! agrees.

use specpress_apispec::{Limits, parse};
use specpress_diff::{Change, DiffOptions, DiffReport, Level, diff};

fn report(previous: &str, current: &str) -> DiffReport {
    let p = parse(previous, &[], &Limits::default()).expect("previous parses");
    let c = parse(current, &[], &Limits::default()).expect("current parses");
    diff(&p, &c, &DiffOptions::new().with_today("2026-01-01"))
}

fn change<'r>(r: &'r DiffReport, rule: &str) -> &'r Change {
    r.changes()
        .iter()
        .find(|c| c.rule_id() == rule)
        .unwrap_or_else(|| {
            let rules: Vec<_> = r.changes().iter().map(|c| c.rule_id()).collect();
            panic!("{rule} not reported; got {rules:?}")
        })
}

/// The change is reported, at level warning, saying why it does not break.
fn assert_beta(r: &DiffReport, rule: &str) {
    let c = change(r, rule);
    assert_eq!(c.level(), Level::Warning, "{rule}: {}", c.message());
    assert!(
        c.message().ends_with("(beta: not breaking)"),
        "{rule}: {}",
        c.message()
    );
}

/// No rendering says breaking.
fn assert_nothing_breaks(r: &DiffReport) {
    assert!(!r.breaking(), "{}", r.text());
    assert_eq!(r.counts().breaking, 0);
    assert!(!r.text().contains("[Breaking]"), "{}", r.text());
    let json = r.details().to_string();
    assert!(!json.contains("\"breaking\":true"), "{json}");
    assert!(!json.contains("\"level\":\"breaking\""), "{json}");
}

const OA31: &str = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n";
const AA26: &str = "asyncapi: 2.6.0\ninfo: {title: t, version: '1'}\n";
const AA30: &str = "asyncapi: 3.0.0\ninfo: {title: t, version: '1'}\n";

/// `GET /pets` (with `extra` spliced into the operation) and `GET /stable`.
fn pets(extra: &str) -> String {
    format!(
        "{OA31}paths:
  /pets:
    get:
      {extra}
      responses: {{'200': {{description: ok}}}}
  /stable:
    get:
      responses: {{'200': {{description: ok}}}}
"
    )
}

#[test]
fn removing_a_beta_operation_is_reported_but_not_breaking() {
    let previous = pets("x-beta: true");
    let current = format!(
        "{OA31}paths:\n  /stable:\n    get:\n      responses: {{'200': {{description: ok}}}}\n"
    );
    let r = report(&previous, &current);
    assert_beta(&r, "endpoint-removed");
    assert_nothing_breaks(&r);
    assert!(r.text().contains("GET /pets"), "{}", r.text());
}

#[test]
fn removing_a_non_beta_operation_stays_breaking() {
    let previous = pets("x-beta: true");
    let current = format!(
        "{OA31}paths:\n  /pets:\n    get:\n      x-beta: true\n      responses: {{'200': {{description: ok}}}}\n"
    );
    let r = report(&previous, &current);
    assert_eq!(change(&r, "endpoint-removed").level(), Level::Breaking);
    assert!(r.breaking());
}

#[test]
fn removing_a_beta_webhook_is_not_breaking() {
    let hook = |beta: &str| {
        format!(
            "{OA31}webhooks:\n  ping:\n    post:\n      {beta}\n      responses: {{'200': {{description: ok}}}}\n"
        )
    };
    let r = report(&hook("x-beta: true"), &format!("{OA31}webhooks: {{}}\n"));
    assert_beta(&r, "webhook-removed");
    assert_nothing_breaks(&r);
    let r = report(&hook("summary: s"), &format!("{OA31}webhooks: {{}}\n"));
    assert!(r.breaking());
}

#[test]
fn a_beta_parameter_made_required_is_not_breaking() {
    let param = |attrs: &str| {
        pets(&format!(
            "parameters: [{{name: q, in: query, {attrs} schema: {{type: string}}}}]"
        ))
    };
    let r = report(
        &param("x-beta: true,"),
        &param("x-beta: true, required: true,"),
    );
    assert_beta(&r, "request-parameter-became-required");
    assert_nothing_breaks(&r);
    // The same change to a parameter that is not beta breaks.
    let r = report(&param(""), &param("required: true,"));
    assert_eq!(
        change(&r, "request-parameter-became-required").level(),
        Level::Breaking
    );
}

#[test]
fn a_shared_beta_parameter_is_beta_in_every_operation_using_it() {
    let doc = |required: &str| {
        format!(
            "{OA31}paths:
  /a:
    get:
      parameters: [{{$ref: '#/components/parameters/Q'}}]
      responses: {{'200': {{description: ok}}}}
components:
  parameters:
    Q: {{name: q, in: query, x-beta: true, {required} schema: {{type: string}}}}
"
        )
    };
    let r = report(&doc(""), &doc("required: true,"));
    assert_beta(&r, "request-parameter-became-required");
    assert_nothing_breaks(&r);
}

#[test]
fn a_required_parameter_added_to_a_beta_operation_is_not_breaking() {
    let r = report(
        &pets("x-beta: true"),
        &pets(
            "x-beta: true\n      parameters: [{name: q, in: query, required: true, schema: {type: string}}]",
        ),
    );
    assert_beta(&r, "request-required-parameter-added");
    assert_nothing_breaks(&r);
}

/// `GET /pets` answering an object with `id` and `name` (`name` carrying `name_attrs`).
fn pet_response(op_attrs: &str, name_attrs: Option<&str>) -> String {
    let name = match name_attrs {
        Some(attrs) => format!(", name: {{type: string{attrs}}}"),
        None => String::new(),
    };
    format!(
        "{OA31}paths:
  /pets:
    get:
      {op_attrs}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {{type: object, properties: {{id: {{type: string}}{name}}}}}
"
    )
}

#[test]
fn removing_a_beta_property_from_a_non_beta_operations_response_is_not_breaking() {
    let r = report(
        &pet_response("summary: s", Some(", x-beta: true")),
        &pet_response("summary: s", None),
    );
    assert_beta(&r, "response-body-property-removed");
    assert_nothing_breaks(&r);
    let r = report(
        &pet_response("summary: s", Some("")),
        &pet_response("summary: s", None),
    );
    assert_eq!(
        change(&r, "response-body-property-removed").level(),
        Level::Breaking
    );
}

#[test]
fn a_property_change_inside_a_beta_operation_is_not_breaking() {
    let r = report(
        &pet_response("x-beta: true", Some("")),
        &pet_response("x-beta: true", None),
    );
    assert_beta(&r, "response-body-property-removed");
    assert_nothing_breaks(&r);
}

#[test]
fn a_beta_response_removed_is_not_breaking() {
    let doc = |extra: &str| {
        format!(
            "{OA31}paths:
  /pets:
    get:
      responses:
        '200': {{description: ok}}
{extra}"
        )
    };
    let beta = "        '201': {description: made, x-beta: true, content: {application/json: {schema: {type: string}}}}\n";
    let r = report(&doc(beta), &doc(""));
    assert!(!r.is_empty(), "the removal is reported");
    assert_nothing_breaks(&r);
}

/// A named schema `Pet` (its own attributes `pet_attrs`) with `id` and `tag`, the answer of
/// `GET /pets`.
fn named_pet(pet_attrs: &str, tag: &str) -> String {
    format!(
        "{OA31}paths:
  /pets:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {{$ref: '#/components/schemas/Pet'}}
components:
  schemas:
    Pet:
      type: object
      {pet_attrs}
      properties:
        id: {{type: string}}
{tag}"
    )
}

#[test]
fn a_change_inside_a_beta_named_schema_is_not_breaking() {
    let tag = "        tag: {type: string}\n";
    let r = report(
        &named_pet("x-beta: true", tag),
        &named_pet("x-beta: true", ""),
    );
    assert_beta(&r, "response-body-property-removed");
    assert_nothing_breaks(&r);
    let r = report(&named_pet("title: Pet", tag), &named_pet("title: Pet", ""));
    assert!(r.breaking(), "{}", r.text());
}

#[test]
fn a_beta_property_of_a_named_schema_removed_is_not_breaking() {
    let tag = "        tag: {type: string, x-beta: true}\n";
    let r = report(&named_pet("title: Pet", tag), &named_pet("title: Pet", ""));
    assert_beta(&r, "response-body-property-removed");
    assert_nothing_breaks(&r);
}

#[test]
fn an_operation_that_becomes_beta_is_noted_and_still_judged_normally() {
    let r = report(
        &pet_response("summary: s", Some("")),
        &pet_response("x-beta: true", None),
    );
    let noted = change(&r, "beta-started");
    assert_eq!(noted.level(), Level::Info);
    assert_eq!(noted.message(), "the operation became beta");
    // Clients relied on the stable contract until this version.
    assert_eq!(
        change(&r, "response-body-property-removed").level(),
        Level::Breaking
    );
}

#[test]
fn an_operation_that_leaves_beta_is_noted_and_not_breaking() {
    let r = report(
        &pet_response("x-beta: true", Some("")),
        &pet_response("summary: s", None),
    );
    let noted = change(&r, "beta-ended");
    assert_eq!(noted.level(), Level::Info);
    assert_eq!(noted.message(), "the operation is no longer beta");
    assert_beta(&r, "response-body-property-removed");
}

#[test]
fn a_property_and_a_parameter_entering_or_leaving_beta_are_noted() {
    let r = report(
        &pet_response("summary: s", Some("")),
        &pet_response("summary: s", Some(", x-beta: true")),
    );
    assert_eq!(
        change(&r, "beta-started").message(),
        "property `name` became beta"
    );
    let param = |attrs: &str| {
        pets(&format!(
            "parameters: [{{name: q, in: query, {attrs} schema: {{type: string}}}}]"
        ))
    };
    let r = report(&param("x-beta: true,"), &param(""));
    assert_eq!(
        change(&r, "beta-ended").message(),
        "parameter `q` is no longer beta"
    );
    assert!(!r.breaking());
}

#[test]
fn removing_a_beta_asyncapi_2_operation_is_not_breaking() {
    let doc = |beta: &str| {
        format!(
            "{AA26}channels:
  events:
    subscribe:
      {beta}
      message: {{name: m, payload: {{type: string}}}}
  other:
    subscribe:
      message: {{name: n, payload: {{type: string}}}}
"
        )
    };
    let current = format!(
        "{AA26}channels:\n  other:\n    subscribe:\n      message: {{name: n, payload: {{type: string}}}}\n"
    );
    let r = report(&doc("x-beta: true"), &current);
    assert_beta(&r, "message-operation-removed");
    assert_nothing_breaks(&r);
    let r = report(&doc("summary: s"), &current);
    assert!(r.breaking());
}

/// An AsyncAPI 3.0 channel `events` (with `channel_attrs`) sent by operation `o` (with
/// `op_attrs`), its message payload an object with `id` and maybe `kind`.
fn aa30(channel_attrs: &str, op_attrs: &str, kind: bool) -> String {
    let kind = if kind { ", kind: {type: string}" } else { "" };
    format!(
        "{AA30}channels:
  events:
    address: events
    {channel_attrs}
    messages:
      m:
        payload: {{type: object, properties: {{id: {{type: string}}{kind}}}}}
operations:
  o:
    action: send
    {op_attrs}
    channel: {{$ref: '#/channels/events'}}
    messages: [{{$ref: '#/channels/events/messages/m'}}]
"
    )
}

#[test]
fn a_payload_change_of_a_beta_asyncapi_3_operation_or_channel_is_not_breaking() {
    let r = report(
        &aa30("title: e", "x-beta: true", true),
        &aa30("title: e", "x-beta: true", false),
    );
    assert_beta(&r, "message-sent-property-removed");
    assert_nothing_breaks(&r);
    let r = report(
        &aa30("x-beta: true", "title: o", true),
        &aa30("x-beta: true", "title: o", false),
    );
    assert_beta(&r, "message-sent-property-removed");
    assert_nothing_breaks(&r);
    let r = report(
        &aa30("title: e", "title: o", true),
        &aa30("title: e", "title: o", false),
    );
    assert!(r.breaking(), "{}", r.text());
}

#[test]
fn every_rendering_of_a_beta_removal_says_not_breaking() {
    let previous = pets("x-beta: true");
    let current = format!(
        "{OA31}paths:\n  /stable:\n    get:\n      responses: {{'200': {{description: ok}}}}\n"
    );
    let r = report(&previous, &current);
    assert_nothing_breaks(&r);
    let markdown = r.markdown();
    assert!(markdown.contains("GET /pets"), "{markdown}");
    assert!(!markdown.to_lowercase().contains("breaking"), "{markdown}");
    let html = r.html();
    assert!(html.contains("(beta: not breaking)"), "{html}");
    assert!(!html.contains("Breaking"), "{html}");
    assert!(!html.contains("=\"breaking"), "{html}");
    let json = r.render(specpress_diff::Format::Json);
    assert!(json.contains("beta: not breaking"), "{json}");
    // The JSON tree digests and webhook payloads are built from: the item is not breaking
    // and its change is a warning.
    let details = r.details();
    let item = &details[0];
    assert_eq!(item["name"], "GET /pets");
    assert_eq!(item["breaking"], false);
    let level = item["changes"][0]["level"].as_str();
    assert_eq!(level, Some("warning"), "{details}");
}

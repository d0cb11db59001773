//! Changes the engine once missed: inside callback operations (judged the other way round,
//! their request parameters included), properties moving between an inline schema and an
//! `allOf` member (nested `allOf`s flattened), and keys added to or
//! removed from `patternProperties` / `dependentSchemas`. Each case: previous, current, the
//! expected rule id and level.

use specpress_apispec::{Limits, parse};
use specpress_diff::{DiffOptions, DiffReport, Level, diff};

fn report(previous: &str, current: &str) -> DiffReport {
    let p = parse(previous, &[], &Limits::default()).expect("previous parses");
    let c = parse(current, &[], &Limits::default()).expect("current parses");
    diff(&p, &c, &DiffOptions::new().with_today("2026-01-01"))
}

fn level_of(r: &DiffReport, rule: &str) -> Option<Level> {
    r.changes()
        .iter()
        .find(|c| c.rule_id() == rule)
        .map(|c| c.level())
}

fn rules(r: &DiffReport) -> Vec<&'static str> {
    r.changes().iter().map(|c| c.rule_id()).collect()
}

const OA31: &str = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n";

/// An operation with a callback whose request carries `event` and whose response is `ack`.
fn with_callback(event: &str, ack: &str) -> String {
    format!(
        "{OA31}paths:
  /subscriptions:
    post:
      responses:
        '201': {{description: created}}
      callbacks:
        onEvent:
          '{{$request.body#/url}}':
            post:
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {event}
              responses:
                '200':
                  description: ok
                  content:
                    application/json:
                      schema: {ack}
"
    )
}

const EVENT: &str =
    "{type: object, required: [id], properties: {id: {type: string}, kind: {type: string}}}";
const ACK: &str = "{type: object, properties: {ok: {type: boolean}}}";

#[test]
fn a_property_removed_from_a_callback_request_breaks_the_subscribers_that_read_it() {
    let current = with_callback(
        "{type: object, required: [id], properties: {id: {type: string}}}",
        ACK,
    );
    let r = report(&with_callback(EVENT, ACK), &current);
    // The callback request is produced by the API: judged like a response.
    assert_eq!(
        level_of(&r, "response-body-property-removed"),
        Some(Level::Breaking),
        "{:?}",
        rules(&r)
    );
    assert!(r.breaking());
    // Reported under its own callback item, named after the operation that declares it.
    let item = r
        .items()
        .iter()
        .find(|i| i.item_type == "callback")
        .expect("a callback item");
    assert!(item.name.contains("onEvent"), "{}", item.name);
    assert!(
        item.name.starts_with("POST /subscriptions"),
        "{}",
        item.name
    );
    assert!(r.text().contains("callback"), "{}", r.text());
    // The reverse (the API sends one more optional field) breaks nobody.
    let back = report(&current, &with_callback(EVENT, ACK));
    assert_eq!(
        level_of(&back, "response-body-property-added"),
        Some(Level::Info),
        "{:?}",
        rules(&back)
    );
    assert!(!back.breaking(), "{:?}", rules(&back));
}

#[test]
fn a_field_the_subscriber_must_now_return_in_its_callback_response_is_breaking() {
    let current = with_callback(
        EVENT,
        "{type: object, required: [ok], properties: {ok: {type: boolean}}}",
    );
    let r = report(&with_callback(EVENT, ACK), &current);
    // The callback response is produced by the subscriber: judged like a request body.
    assert_eq!(
        level_of(&r, "request-body-property-became-required"),
        Some(Level::Breaking),
        "{:?}",
        rules(&r)
    );
}

#[test]
fn a_type_change_inside_a_callback_is_found_and_unchanged_callbacks_report_nothing() {
    let current = with_callback(
        "{type: object, required: [id], properties: {id: {type: integer}, kind: {type: string}}}",
        ACK,
    );
    let r = report(&with_callback(EVENT, ACK), &current);
    assert_eq!(
        level_of(&r, "response-body-type-changed"),
        Some(Level::Breaking),
        "{:?}",
        rules(&r)
    );
    let same = report(&with_callback(EVENT, ACK), &with_callback(EVENT, ACK));
    assert!(same.is_empty(), "{:?}", rules(&same));
}

fn object_body(schema: &str) -> String {
    format!(
        "{OA31}paths:
  /things:
    post:
      requestBody:
        content:
          application/json:
            schema: {schema}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {schema}
"
    )
}

#[test]
fn pattern_properties_entries_added_and_removed_are_reported_per_direction() {
    let without = object_body("{type: object}");
    let with = object_body("{type: object, patternProperties: {'^x-': {type: string}}}");
    let r = report(&without, &with);
    assert_eq!(
        level_of(&r, "request-body-pattern-property-added"),
        Some(Level::Warning),
        "{:?}",
        rules(&r)
    );
    assert_eq!(
        level_of(&r, "response-body-pattern-property-added"),
        Some(Level::Info)
    );
    let back = report(&with, &without);
    assert_eq!(
        level_of(&back, "response-body-pattern-property-removed"),
        Some(Level::Warning),
        "{:?}",
        rules(&back)
    );
    assert_eq!(
        level_of(&back, "request-body-pattern-property-removed"),
        Some(Level::Info)
    );
}

#[test]
fn a_dependent_schema_added_to_a_request_is_breaking_and_its_removal_from_a_response_a_warning() {
    let without = object_body("{type: object, properties: {a: {type: string}}}");
    let with = object_body(
        "{type: object, properties: {a: {type: string}}, dependentSchemas: {a: {required: [b]}}}",
    );
    let r = report(&without, &with);
    assert_eq!(
        level_of(&r, "request-body-dependent-schema-added"),
        Some(Level::Breaking),
        "{:?}",
        rules(&r)
    );
    assert_eq!(
        level_of(&r, "response-body-dependent-schema-added"),
        Some(Level::Info)
    );
    let back = report(&with, &without);
    assert_eq!(
        level_of(&back, "response-body-dependent-schema-removed"),
        Some(Level::Warning),
        "{:?}",
        rules(&back)
    );
    // An entry present on both sides is still compared inside.
    let changed = object_body(
        "{type: object, properties: {a: {type: string}}, dependentSchemas: {a: {required: [b, c]}}}",
    );
    let inner = report(&with, &changed);
    assert!(
        rules(&inner)
            .iter()
            .any(|r| r.starts_with("request-body-property-became-required")),
        "{:?}",
        rules(&inner)
    );
}

fn with_base(schema: &str, base: &str) -> String {
    format!(
        "{OA31}paths:
  /things:
    post:
      requestBody:
        content:
          application/json:
            schema: {schema}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {schema}
components:
  schemas:
    Base: {base}
"
    )
}

const INLINE: &str =
    "{type: object, required: [id], properties: {id: {type: string}, name: {type: string}}}";
const BASE: &str = "{type: object, required: [id], properties: {id: {type: string}}}";
const VIA_BASE: &str = "{allOf: [{$ref: '#/components/schemas/Base'}], type: object, properties: {name: {type: string}}}";

#[test]
fn a_property_moved_into_an_allof_member_is_neither_removed_nor_added() {
    let r = report(&with_base(INLINE, BASE), &with_base(VIA_BASE, BASE));
    assert!(!r.breaking(), "{:?}", rules(&r));
    assert!(!r.structural(), "{:?}", rules(&r));
    // And back: the member's property moved inline again.
    let back = report(&with_base(VIA_BASE, BASE), &with_base(INLINE, BASE));
    assert!(!back.structural(), "{:?}", rules(&back));
}

#[test]
fn a_moved_property_is_still_compared_where_it_now_lives() {
    // `id` moves into Base and becomes an integer on the way.
    let base = "{type: object, required: [id], properties: {id: {type: integer}}}";
    let r = report(&with_base(INLINE, BASE), &with_base(VIA_BASE, base));
    assert_eq!(
        level_of(&r, "response-body-type-changed"),
        Some(Level::Breaking),
        "{:?}",
        rules(&r)
    );
    assert_eq!(
        level_of(&r, "request-body-type-changed"),
        Some(Level::Breaking)
    );
    assert!(!rules(&r).iter().any(|r| r.ends_with("property-removed")));
    // It moves without its `required`: now optional in the response.
    let loose = "{type: object, properties: {id: {type: string}}}";
    let r = report(&with_base(INLINE, BASE), &with_base(VIA_BASE, loose));
    assert_eq!(
        level_of(&r, "response-body-property-became-optional"),
        Some(Level::Breaking),
        "{:?}",
        rules(&r)
    );
}

#[test]
fn an_allof_member_that_adds_a_constraint_is_still_reported() {
    // The new member requires `name`, which was optional inline: a real narrowing.
    let base = "{type: object, required: [id, name], properties: {id: {type: string}, name: {type: string}}}";
    let via = "{allOf: [{$ref: '#/components/schemas/Base'}], type: object}";
    let r = report(&with_base(INLINE, BASE), &with_base(via, base));
    assert_eq!(
        level_of(&r, "request-body-all-of-added"),
        Some(Level::Breaking),
        "{:?}",
        rules(&r)
    );
}

/// `with_base`, plus a `Root` component that `Base` may build on.
fn with_base_and_root(schema: &str, base: &str, root: &str) -> String {
    format!("{}    Root: {root}\n", with_base(schema, base))
}

/// `Base` declares nothing itself: its `allOf` pulls `Root` in (a second level of `allOf`).
const BASE_VIA_ROOT: &str = "{allOf: [{$ref: '#/components/schemas/Root'}]}";

#[test]
fn a_property_moved_into_a_nested_allof_member_is_neither_removed_nor_added() {
    let previous = with_base_and_root(INLINE, BASE, BASE);
    let current = with_base_and_root(VIA_BASE, BASE_VIA_ROOT, BASE);
    let r = report(&previous, &current);
    assert!(!r.breaking(), "{:?}", rules(&r));
    assert!(!r.structural(), "{:?}", rules(&r));
    let back = report(&current, &previous);
    assert!(!back.structural(), "{:?}", rules(&back));
    // An inline member holding an `allOf` of its own is flattened the same way.
    let inline_nested = "{allOf: [{allOf: [{$ref: '#/components/schemas/Root'}]}], type: object, properties: {name: {type: string}}}";
    let r = report(&previous, &with_base_and_root(inline_nested, BASE, BASE));
    assert!(!r.structural(), "{:?}", rules(&r));
}

#[test]
fn a_property_moved_into_a_nested_allof_member_is_compared_where_it_now_lives() {
    // `id` moves two levels down, into Root, and becomes an integer on the way.
    let root = "{type: object, required: [id], properties: {id: {type: integer}}}";
    let r = report(
        &with_base_and_root(INLINE, BASE, BASE),
        &with_base_and_root(VIA_BASE, BASE_VIA_ROOT, root),
    );
    assert_eq!(
        level_of(&r, "response-body-type-changed"),
        Some(Level::Breaking),
        "{:?}",
        rules(&r)
    );
    assert!(!rules(&r).iter().any(|r| r.ends_with("property-removed")));
    // The `required` entry may sit one level up from the property it names.
    let base = "{required: [id], allOf: [{$ref: '#/components/schemas/Root'}]}";
    let root = "{type: object, properties: {id: {type: string}}}";
    let r = report(
        &with_base_and_root(INLINE, BASE, BASE),
        &with_base_and_root(VIA_BASE, base, root),
    );
    assert!(!r.structural(), "{:?}", rules(&r));
}

#[test]
fn a_nested_allof_member_that_adds_a_constraint_is_still_reported() {
    // Root requires `name`, which was optional inline: a real narrowing, two levels down.
    let root = "{type: object, required: [id, name], properties: {id: {type: string}, name: {type: string}}}";
    let via = "{allOf: [{$ref: '#/components/schemas/Base'}], type: object}";
    let r = report(
        &with_base_and_root(INLINE, BASE, BASE),
        &with_base_and_root(via, BASE_VIA_ROOT, root),
    );
    assert_eq!(
        level_of(&r, "request-body-all-of-added"),
        Some(Level::Breaking),
        "{:?}",
        rules(&r)
    );
}

/// An operation with a callback whose request has the given `parameters` (a YAML flow list).
fn callback_with_parameters(parameters: &str) -> String {
    format!(
        "{OA31}paths:
  /subscriptions:
    post:
      parameters: {parameters}
      responses:
        '201': {{description: created}}
      callbacks:
        onEvent:
          '{{$request.body#/url}}':
            post:
              parameters: {parameters}
              responses:
                '200': {{description: ok}}
"
    )
}

const TOKEN: &str = "{name: X-Token, in: header, schema: {type: integer}}";
const TOKEN_REQUIRED: &str = "{name: X-Token, in: header, required: true, schema: {type: integer}}";

/// The changes reported inside the callback item (the declaring operation's own are not).
fn callback_rules(r: &DiffReport) -> Vec<&'static str> {
    r.changes()
        .iter()
        .filter(|c| c.subject().contains("callback"))
        .map(|c| c.rule_id())
        .collect()
}

#[test]
fn a_required_parameter_added_to_a_callback_request_does_not_break_subscribers() {
    let r = report(
        &callback_with_parameters("[]"),
        &callback_with_parameters(&format!("[{TOKEN_REQUIRED}]")),
    );
    // The API sends the callback request: a parameter subscribers do not read is harmless.
    assert_eq!(callback_rules(&r), vec!["callback-parameter-added"]);
    assert_eq!(level_of(&r, "callback-parameter-added"), Some(Level::Info));
    // The same change on the operation itself is breaking: clients must now send it.
    assert_eq!(
        level_of(&r, "request-required-parameter-added"),
        Some(Level::Breaking),
        "{:?}",
        rules(&r)
    );
}

#[test]
fn a_parameter_removed_from_a_callback_request_breaks_subscribers_that_relied_on_it() {
    let r = report(
        &callback_with_parameters(&format!("[{TOKEN_REQUIRED}]")),
        &callback_with_parameters("[]"),
    );
    assert_eq!(
        callback_rules(&r),
        vec!["callback-required-parameter-removed"]
    );
    assert_eq!(
        level_of(&r, "callback-required-parameter-removed"),
        Some(Level::Breaking)
    );
    let r = report(
        &callback_with_parameters(&format!("[{TOKEN}]")),
        &callback_with_parameters("[]"),
    );
    assert_eq!(callback_rules(&r), vec!["callback-parameter-removed"]);
    assert_eq!(
        level_of(&r, "callback-parameter-removed"),
        Some(Level::Warning)
    );
}

#[test]
fn required_ness_of_a_callback_parameter_is_judged_from_the_subscriber() {
    let optional = callback_with_parameters(&format!("[{TOKEN}]"));
    let required = callback_with_parameters(&format!("[{TOKEN_REQUIRED}]"));
    // Optional now: the API may leave out what subscribers rely on.
    let r = report(&required, &optional);
    assert_eq!(
        callback_rules(&r),
        vec!["callback-parameter-became-optional"]
    );
    assert_eq!(
        level_of(&r, "callback-parameter-became-optional"),
        Some(Level::Breaking)
    );
    // Required now: the API always sends it.
    let r = report(&optional, &required);
    assert_eq!(
        callback_rules(&r),
        vec!["callback-parameter-became-required"]
    );
    assert_eq!(
        level_of(&r, "callback-parameter-became-required"),
        Some(Level::Info)
    );
    assert_eq!(
        level_of(&r, "request-parameter-became-required"),
        Some(Level::Breaking),
        "{:?}",
        rules(&r)
    );
}

#[test]
fn a_callback_parameter_schema_is_judged_as_data_the_api_sends() {
    let integer = callback_with_parameters(&format!("[{TOKEN}]"));
    let number = callback_with_parameters("[{name: X-Token, in: header, schema: {type: number}}]");
    // Widening what the API sends breaks subscribers; widening what it accepts does not.
    let r = report(&integer, &number);
    assert_eq!(
        callback_rules(&r),
        vec!["callback-parameter-type-generalized"]
    );
    assert_eq!(
        level_of(&r, "callback-parameter-type-generalized"),
        Some(Level::Breaking)
    );
    assert_eq!(
        level_of(&r, "request-parameter-type-generalized"),
        Some(Level::Info),
        "{:?}",
        rules(&r)
    );
}

#[test]
fn unencoded_reserved_characters_are_judged_from_whoever_reads_the_parameter() {
    let plain = callback_with_parameters("[{name: q, in: query, schema: {type: string}}]");
    let reserved = callback_with_parameters(
        "[{name: q, in: query, allowReserved: true, schema: {type: string}}]",
    );
    let r = report(&plain, &reserved);
    assert_eq!(
        callback_rules(&r),
        vec!["callback-parameter-allow-reserved-added"]
    );
    // No longer allowed: only the API, reading the operation's request, is hurt.
    let r = report(&reserved, &plain);
    assert!(callback_rules(&r).is_empty(), "{:?}", rules(&r));
    assert_eq!(
        level_of(&r, "request-parameter-allow-reserved-removed"),
        Some(Level::Breaking)
    );
}

#[test]
fn a_callback_request_body_is_judged_from_the_subscriber_that_reads_it() {
    let body = |required: bool| {
        with_callback(EVENT, ACK).replace(
            "requestBody:\n                required: true",
            &format!("requestBody:\n                required: {required}"),
        )
    };
    let without = with_callback(EVENT, ACK).replace(
        &format!(
            "              requestBody:\n                required: true\n                content:\n                  application/json:\n                    schema: {EVENT}\n"
        ),
        "",
    );
    assert!(!without.contains("requestBody"), "{without}");
    // The API stops sending the body subscribers read.
    let r = report(&body(true), &without);
    assert_eq!(
        level_of(&r, "callback-body-removed"),
        Some(Level::Breaking),
        "{:?}",
        rules(&r)
    );
    assert!(level_of(&r, "request-body-removed").is_none());
    // The API starts sending one: harmless to subscribers, required or not.
    let r = report(&without, &body(true));
    assert_eq!(
        level_of(&r, "callback-body-added"),
        Some(Level::Info),
        "{:?}",
        rules(&r)
    );
    assert!(level_of(&r, "request-required-body-added").is_none());
    // It may now be left out.
    let r = report(&body(true), &body(false));
    assert_eq!(
        level_of(&r, "callback-body-became-optional"),
        Some(Level::Breaking),
        "{:?}",
        rules(&r)
    );
    let r = report(&body(false), &body(true));
    assert_eq!(
        level_of(&r, "callback-body-became-required"),
        Some(Level::Info),
        "{:?}",
        rules(&r)
    );
}

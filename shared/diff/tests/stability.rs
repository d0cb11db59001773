//! Stability levels (`x-stability-level`: `draft`, `alpha`, `beta`, `stable`): a change to an
//! element below `stable` in the previous version is reported but never breaking; lowering a
//! level is breaking (`stability-level-lowered`, naming both levels), raising it is noted
//! (`stability-level-raised`); a missing or unknown level counts as `stable`.

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

fn reported(r: &DiffReport, rule: &str) -> bool {
    r.changes().iter().any(|c| c.rule_id() == rule)
}

/// The change is reported, at level warning, saying which level keeps it from breaking.
fn assert_unstable(r: &DiffReport, rule: &str, level: &str) {
    let c = change(r, rule);
    assert_eq!(c.level(), Level::Warning, "{rule}: {}", c.message());
    let suffix = format!("({level}: not breaking)");
    assert!(c.message().ends_with(&suffix), "{rule}: {}", c.message());
}

/// No rendering says breaking.
fn assert_nothing_breaks(r: &DiffReport) {
    assert!(!r.breaking(), "{}", r.text());
    assert_eq!(r.counts().breaking, 0);
    let json = r.details().to_string();
    assert!(!json.contains("\"level\":\"breaking\""), "{json}");
}

const OA31: &str = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n";
const AA26: &str = "asyncapi: 2.6.0\ninfo: {title: t, version: '1'}\n";
const AA30: &str = "asyncapi: 3.0.0\ninfo: {title: t, version: '1'}\n";

/// `GET /pets` (with `op_attrs` spliced into the operation) answering an object with `id` and
/// maybe `name`; and `GET /stable`.
fn pets(op_attrs: &str, name: bool) -> String {
    let name = if name { ", name: {type: string}" } else { "" };
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
  /stable:
    get:
      responses: {{'200': {{description: ok}}}}
"
    )
}

fn without_pets() -> String {
    format!("{OA31}paths:\n  /stable:\n    get:\n      responses: {{'200': {{description: ok}}}}\n")
}

#[test]
fn a_breaking_change_on_an_alpha_operation_is_not_breaking() {
    let level = "x-stability-level: alpha";
    let r = report(&pets(level, true), &pets(level, false));
    assert_unstable(&r, "response-body-property-removed", "alpha");
    assert_nothing_breaks(&r);
    // The same change to the operation without a level breaks.
    let r = report(&pets("summary: s", true), &pets("summary: s", false));
    assert_eq!(
        change(&r, "response-body-property-removed").level(),
        Level::Breaking
    );
}

#[test]
fn removing_a_draft_or_beta_operation_is_not_breaking_and_a_stable_one_is() {
    for level in ["draft", "beta"] {
        let r = report(
            &pets(&format!("x-stability-level: {level}"), true),
            &without_pets(),
        );
        assert_unstable(&r, "endpoint-removed", level);
        assert_nothing_breaks(&r);
    }
    let r = report(&pets("x-stability-level: stable", true), &without_pets());
    assert_eq!(change(&r, "endpoint-removed").level(), Level::Breaking);
}

#[test]
fn an_unknown_or_missing_level_counts_as_stable() {
    for level in [
        "x-stability-level: experimental",
        "x-stability-level: 3",
        "summary: s",
    ] {
        let r = report(&pets(level, true), &pets(level, false));
        assert_eq!(
            change(&r, "response-body-property-removed").level(),
            Level::Breaking,
            "{level}"
        );
    }
    // Going from an unknown level to `stable` changes no level.
    let r = report(
        &pets("x-stability-level: experimental", true),
        &pets("x-stability-level: stable", true),
    );
    assert!(r.is_empty(), "{}", r.text());
}

#[test]
fn the_level_is_read_in_any_case() {
    let r = report(
        &pets("x-stability-level: ' Alpha '", true),
        &pets("x-stability-level: ' Alpha '", false),
    );
    assert_unstable(&r, "response-body-property-removed", "alpha");
}

#[test]
fn lowering_stable_to_beta_is_breaking_and_names_both_levels() {
    let r = report(
        &pets("x-stability-level: stable", true),
        &pets("x-stability-level: beta", true),
    );
    let lowered = change(&r, "stability-level-lowered");
    assert_eq!(lowered.level(), Level::Breaking);
    assert_eq!(
        lowered.message(),
        "the operation: stability level lowered from `stable` to `beta`"
    );
    assert!(r.breaking());
    // A breaking change carries its migration note, with the level before and after.
    let note = lowered.migration().unwrap_or_default();
    assert!(
        note.contains(
            "**Before:** `x-stability-level` `stable`. **After:** `x-stability-level` `beta`."
        ),
        "{note}"
    );
}

#[test]
fn marking_an_operation_without_a_level_beta_is_a_lowering_from_stable() {
    let r = report(
        &pets("summary: s", true),
        &pets("x-stability-level: beta", false),
    );
    let lowered = change(&r, "stability-level-lowered");
    assert_eq!(lowered.level(), Level::Breaking);
    assert!(lowered.message().contains("`stable` to `beta`"));
    // Clients relied on the stable contract until this version.
    assert_eq!(
        change(&r, "response-body-property-removed").level(),
        Level::Breaking
    );
}

#[test]
fn lowering_beta_to_alpha_is_breaking_though_the_operation_was_beta() {
    let r = report(
        &pets("x-stability-level: beta", true),
        &pets("x-stability-level: alpha", true),
    );
    let lowered = change(&r, "stability-level-lowered");
    assert_eq!(lowered.level(), Level::Breaking, "{}", lowered.message());
    assert_eq!(
        lowered.message(),
        "the operation: stability level lowered from `beta` to `alpha`"
    );
}

#[test]
fn raising_a_level_is_noted_and_not_breaking() {
    let r = report(
        &pets("x-stability-level: alpha", true),
        &pets("x-stability-level: stable", false),
    );
    let raised = change(&r, "stability-level-raised");
    assert_eq!(raised.level(), Level::Info);
    assert_eq!(
        raised.message(),
        "the operation: stability level raised from `alpha` to `stable`"
    );
    assert!(!reported(&r, "stability-level-lowered"));
    // Changes in the diff that raised it are still judged at the previous level.
    assert_unstable(&r, "response-body-property-removed", "alpha");
    assert_nothing_breaks(&r);
}

#[test]
fn moving_from_x_beta_to_stability_level_beta_changes_no_level() {
    let r = report(
        &pets("x-beta: true", true),
        &pets("x-stability-level: beta", true),
    );
    assert!(!reported(&r, "stability-level-lowered"), "{}", r.text());
    assert!(!reported(&r, "stability-level-raised"), "{}", r.text());
    assert!(reported(&r, "beta-ended"));
    assert_nothing_breaks(&r);
    // `x-beta: true` caps a level at beta: alpha with x-beta is alpha.
    let r = report(
        &pets("x-beta: true\n      x-stability-level: alpha", true),
        &pets("x-beta: true\n      x-stability-level: alpha", false),
    );
    assert_unstable(&r, "response-body-property-removed", "alpha");
}

#[test]
fn a_lowering_inside_an_alpha_operation_is_not_breaking() {
    let param = |op: &str, level: &str| {
        format!(
            "{OA31}paths:
  /pets:
    get:
      {op}
      parameters: [{{name: q, in: query, x-stability-level: {level}, schema: {{type: string}}}}]
      responses: {{'200': {{description: ok}}}}
"
        )
    };
    let r = report(
        &param("x-stability-level: alpha", "stable"),
        &param("x-stability-level: alpha", "beta"),
    );
    assert_unstable(&r, "stability-level-lowered", "alpha");
    assert_nothing_breaks(&r);
    let r = report(&param("summary: s", "stable"), &param("summary: s", "beta"));
    let lowered = change(&r, "stability-level-lowered");
    assert_eq!(lowered.level(), Level::Breaking);
    assert_eq!(
        lowered.message(),
        "parameter `q`: stability level lowered from `stable` to `beta`"
    );
}

/// A named schema `Pet` (its own attributes `pet_attrs`) with `id` and maybe `tag` (with
/// `tag_attrs`), the answer of `GET /pets` (with `op_attrs`).
fn named_pet(op_attrs: &str, pet_attrs: &str, tag: Option<&str>) -> String {
    let tag = match tag {
        Some(attrs) => format!("        tag: {{type: string{attrs}}}\n"),
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
fn a_change_inside_a_beta_schema_used_by_a_stable_operation_is_not_breaking() {
    let (op, pet) = ("x-stability-level: stable", "x-stability-level: beta");
    let r = report(&named_pet(op, pet, Some("")), &named_pet(op, pet, None));
    assert_unstable(&r, "response-body-property-removed", "beta");
    assert_nothing_breaks(&r);
    // A beta property of a stable schema, likewise.
    let pet = "title: Pet";
    let r = report(
        &named_pet(op, pet, Some(", x-stability-level: beta")),
        &named_pet(op, pet, None),
    );
    assert_unstable(&r, "response-body-property-removed", "beta");
    // A stable schema used by an alpha operation is judged at the component: its changes
    // break (as with `x-beta`, a shared component is not made unstable by a user of it).
    let r = report(
        &named_pet("x-stability-level: alpha", pet, Some("")),
        &named_pet("x-stability-level: alpha", pet, None),
    );
    assert!(r.breaking(), "{}", r.text());
}

#[test]
fn lowering_a_schema_property_is_breaking_and_raising_it_is_noted() {
    let op = "summary: s";
    let pet = "title: Pet";
    let r = report(
        &named_pet(op, pet, Some("")),
        &named_pet(op, pet, Some(", x-stability-level: draft")),
    );
    let lowered = change(&r, "stability-level-lowered");
    assert_eq!(lowered.level(), Level::Breaking);
    assert_eq!(
        lowered.message(),
        "property `tag`: stability level lowered from `stable` to `draft`"
    );
    let r = report(
        &named_pet(op, pet, Some(", x-stability-level: draft")),
        &named_pet(op, pet, Some("")),
    );
    assert_eq!(change(&r, "stability-level-raised").level(), Level::Info);
    assert_nothing_breaks(&r);
}

#[test]
fn removing_an_alpha_asyncapi_2_operation_is_not_breaking() {
    let doc = |attrs: &str| {
        format!(
            "{AA26}channels:
  events:
    subscribe:
      {attrs}
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
    let r = report(&doc("x-stability-level: alpha"), &current);
    assert_unstable(&r, "message-operation-removed", "alpha");
    assert_nothing_breaks(&r);
    let r = report(&doc("x-stability-level: stable"), &current);
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
fn asyncapi_3_operations_and_channels_below_stable_do_not_break_and_lowering_them_does() {
    let r = report(
        &aa30("title: e", "x-stability-level: draft", true),
        &aa30("title: e", "x-stability-level: draft", false),
    );
    assert_unstable(&r, "message-sent-property-removed", "draft");
    assert_nothing_breaks(&r);
    let r = report(
        &aa30("x-stability-level: beta", "title: o", true),
        &aa30("x-stability-level: beta", "title: o", false),
    );
    assert_unstable(&r, "message-sent-property-removed", "beta");
    let r = report(
        &aa30("title: e", "title: o", true),
        &aa30("title: e", "x-stability-level: alpha", true),
    );
    let lowered = change(&r, "stability-level-lowered");
    assert_eq!(lowered.level(), Level::Breaking);
    assert_eq!(
        lowered.message(),
        "the operation: stability level lowered from `stable` to `alpha`"
    );
}

#[test]
fn the_ids_of_the_other_changes_do_not_move_when_a_level_is_lowered_beside_them() {
    // The same property removal, once alone and once with a lowering beside it: same id.
    let alone = report(&pets("summary: s", true), &pets("summary: s", false));
    let beside = report(
        &pets("summary: s", true),
        &pets("summary: s\n      x-stability-level: beta", false),
    );
    let rule = "response-body-property-removed";
    assert_eq!(change(&alone, rule).id(), change(&beside, rule).id());
}

#[test]
fn lowering_a_named_schema_is_breaking_once_whatever_the_roles_it_is_used_in() {
    let doc = |level: &str| {
        format!(
            "{OA31}paths:
  /pets:
    post:
      requestBody: {{content: {{application/json: {{schema: {{$ref: '#/components/schemas/Pet'}}}}}}}}
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
      x-stability-level: {level}
      properties:
        id: {{type: string}}
"
        )
    };
    let r = report(&doc("stable"), &doc("alpha"));
    let lowered: Vec<_> = r
        .changes()
        .iter()
        .filter(|c| c.rule_id() == "stability-level-lowered")
        .collect();
    assert_eq!(lowered.len(), 1, "{}", r.text());
    assert_eq!(lowered[0].level(), Level::Breaking);
    assert_eq!(
        lowered[0].message(),
        "schema `Pet`: stability level lowered from `stable` to `alpha`"
    );
    let r = report(&doc("alpha"), &doc("stable"));
    assert_eq!(change(&r, "stability-level-raised").level(), Level::Info);
    assert_nothing_breaks(&r);
}

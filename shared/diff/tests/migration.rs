//! Migration notes (issue 39): every breaking change carries `migration`, Markdown saying what a client must do.
//!
//! - Every rule of the catalogue, made breaking, gets a note on its example pair (so a rule made breaking by an
//!   override gets one too), within the size cap; a rule breaking by default has a sentence of its own.
//! - Representative notes say the old and new rule and show what changed: a limit lowered, a type changed, a
//!   property made required, an enum value removed, authentication added (requests before and after in the eight
//!   languages), an operation removed (deprecation notice, alternatives on the same path or resource), a response
//!   property removed (response examples before and after).
//! - Hostile document strings stay code: no HTML, link, image, heading or emphasis comes out of them, and no code
//!   block can be broken out of.
//! - Every breaking change of the corpus pairs (both directions) has a note within the cap.

use std::path::PathBuf;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use specpress_apispec::{Document, Limits, parse};
use specpress_diff::cli::load_document;
use specpress_diff::{DiffOptions, DiffReport, Level, MAX_NOTE_BYTES, catalogue, diff, find_rule};

fn doc(text: &str) -> Document {
    parse(text, &[], &Limits::default()).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn options() -> DiffOptions {
    DiffOptions::new().with_today("2026-01-01")
}

/// The sentences a note falls back to when its rule has none of its own.
const GENERIC: [&str; 3] = [
    "so that it meets the new rule",
    "so that it copes with the new rule",
    "the old one no longer holds",
];

fn check_shape(id: &str, note: &str) -> Result<(), String> {
    if note.len() > MAX_NOTE_BYTES {
        return Err(format!("{id}: note of {} bytes", note.len()));
    }
    for part in ["**Where:**", "**What changed:**", "**What to do:**"] {
        if !note.contains(part) {
            return Err(format!("{id}: no {part} in\n{note}"));
        }
    }
    Ok(())
}

#[test]
fn every_rule_made_breaking_gets_a_note_and_rules_breaking_by_default_say_what_to_do() {
    let mut failures = Vec::new();
    let mut checked = 0usize;
    for rule in catalogue() {
        let mut opts = options();
        opts.set_level(&rule.id, Level::Breaking)
            .expect("a known rule");
        let report = diff(
            &doc(&rule.example.previous),
            &doc(&rule.example.current),
            &opts,
        );
        let hits: Vec<_> = report
            .changes()
            .iter()
            .filter(|c| c.rule_id() == rule.id)
            .collect();
        if hits.is_empty() {
            failures.push(format!("{}: its example gives no change of it", rule.id));
        }
        for change in hits {
            checked += 1;
            if change.level() != Level::Breaking {
                // A beta change (`beta-ended`: the element was beta until now) is a warning whatever its level.
                if change.migration().is_some() {
                    failures.push(format!(
                        "{}: a note on a {} change",
                        rule.id,
                        change.level()
                    ));
                }
                continue;
            }
            let Some(note) = change.migration() else {
                failures.push(format!("{}: a breaking change without a note", rule.id));
                continue;
            };
            if let Err(e) = check_shape(&rule.id, note) {
                failures.push(e);
            }
            if rule.level == Level::Breaking && GENERIC.iter().any(|g| note.contains(g)) {
                failures.push(format!(
                    "{}: breaking by default, but says only the generic sentence",
                    rule.id
                ));
            }
        }
    }
    assert!(checked >= catalogue().len(), "{checked} changes checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn only_breaking_changes_carry_a_note_and_the_json_has_it_where_the_change_is() {
    let rule = find_rule("request-parameter-became-required")
        .expect("rule")
        .rule();
    let report = diff(
        &doc(&rule.example.previous),
        &doc(&rule.example.current),
        &options(),
    );
    let mut opts = options();
    opts.set_level(&rule.id, Level::Warning)
        .expect("a known rule");
    let warned = diff(
        &doc(&rule.example.previous),
        &doc(&rule.example.current),
        &opts,
    );
    assert!(warned.changes().iter().all(|c| c.migration().is_none()));
    assert!(!warned.details().to_string().contains("\"migration\""));
    let details = report.details();
    let change = &details[0]["children"][0]["changes"][0];
    assert_eq!(change["rule"], "request-parameter-became-required");
    let note = change["migration"]
        .as_str()
        .expect("the JSON carries the note");
    assert_eq!(Some(note), report.changes()[0].migration());
}

const PETS_V1: &str = r#"
openapi: 3.0.3
info: {title: Pets, version: '1'}
servers: [{url: 'https://api.example.com/v1'}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-API-Key}
paths:
  /pets:
    get:
      operationId: listPets
      summary: List pets
      parameters:
        - {name: limit, in: query, schema: {type: integer, maximum: 100}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: array, items: {type: object, properties: {id: {type: integer}, name: {type: string}}}}
    post:
      operationId: createPet
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              properties:
                name: {type: string, maxLength: 100}
                tag: {type: string}
                status: {type: string, enum: [available, pending, sold]}
      responses:
        '201':
          description: created
          content:
            application/json:
              schema: {type: object, properties: {id: {type: integer}, name: {type: string}, tag: {type: string}}}
  /pets/{id}:
    get:
      operationId: getPet
      summary: Get a pet
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses: {'200': {description: ok}}
    delete:
      operationId: deletePet
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses: {'204': {description: gone}}
"#;

fn pets_v2() -> String {
    PETS_V1
        .replace(
            "schema: {type: integer, maximum: 100}",
            "schema: {type: string, maximum: 100}",
        )
        .replace("maxLength: 100", "maxLength: 50")
        .replace("required: [name]", "required: [name, tag]")
        .replace("enum: [available, pending, sold]", "enum: [available, sold]")
        .replace(
            "              schema: {type: object, properties: {id: {type: integer}, name: {type: string}, tag: {type: string}}}",
            "              schema: {type: object, properties: {id: {type: integer}, tag: {type: string}}}",
        )
        .replace("      operationId: createPet\n", "      operationId: createPet\n      security: [{key: []}]\n")
        .replace(
            "    get:\n      operationId: getPet\n      summary: Get a pet\n      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]\n      responses: {'200': {description: ok}}\n",
            "",
        )
        + "  /animals/{id}:\n    get:\n      operationId: getPet\n      summary: Get an animal\n      responses: {'200': {description: ok}}\n"
}

fn pets_report() -> DiffReport {
    diff(&doc(PETS_V1), &doc(&pets_v2()), &options())
}

/// The note of the one change of `rule` whose message contains `about`.
fn note<'r>(report: &'r DiffReport, rule: &str, about: &str) -> &'r str {
    let found: Vec<_> = report
        .changes()
        .iter()
        .filter(|c| c.rule_id() == rule && c.message().contains(about))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "{rule} about {about}: {:?}",
        report.changes()
    );
    found[0]
        .migration()
        .unwrap_or_else(|| panic!("{rule}: no note"))
}

#[test]
fn a_lowered_limit_says_the_old_and_new_limit_and_shows_the_request() {
    let r = pets_report();
    let n = note(&r, "request-body-max-length-decreased", "");
    assert!(
        n.contains("**Where:** operation `POST /pets` › request body › property `name`"),
        "{n}"
    );
    assert!(
        n.contains("**Before:** `maxLength` `100`. **After:** `maxLength` `50`."),
        "{n}"
    );
    assert!(
        n.contains("Send values no longer than the new maximum length"),
        "{n}"
    );
    // Authentication was added to the same operation: its requests differ, in every language.
    for label in [
        "curl",
        "JavaScript",
        "Python",
        "Go",
        "Java",
        "Ruby",
        "PHP",
        "C#",
    ] {
        assert!(n.contains(&format!("*{label}, before:*")), "{label}: {n}");
    }
}

#[test]
fn a_changed_type_says_both_types() {
    let r = pets_report();
    let n = note(&r, "request-parameter-type-changed", "");
    assert!(n.contains("query parameter `limit`"), "{n}");
    assert!(
        n.contains("**Before:** `type` `integer`. **After:** `type` `string`."),
        "{n}"
    );
    assert!(n.contains("Send values of the new type"), "{n}");
    assert!(n.contains("**Request** (the same in both versions"), "{n}");
    assert!(n.contains("--url 'https://api.example.com/v1/pets'"), "{n}");
}

#[test]
fn a_property_made_required_says_to_always_send_it() {
    let r = pets_report();
    let n = note(&r, "request-body-property-became-required", "tag");
    assert!(n.contains("property `tag`"), "{n}");
    assert!(
        n.contains("**Before:** `required` `false`. **After:** `required` `true`."),
        "{n}"
    );
    assert!(n.contains("Always send this property"), "{n}");
}

#[test]
fn a_removed_enum_value_shows_the_values_before_and_after() {
    let r = pets_report();
    let n = note(&r, "request-body-enum-value-removed", "");
    assert!(n.contains("property `status`"), "{n}");
    assert!(
        n.contains(r#"**Before:** `enum` `["available","pending","sold"]`. **After:** `enum` `["available","sold"]`."#),
        "{n}"
    );
    assert!(n.contains("send one of the values still accepted"), "{n}");
}

#[test]
fn added_authentication_shows_the_requests_before_and_after_in_eight_languages() {
    let r = pets_report();
    let n = note(&r, "endpoint-security-added", "");
    assert!(n.contains("**Added:** `security` `[\"key\"]`."), "{n}");
    let before = n.find("*curl, before:*").expect("curl before");
    let after = n.find("*curl, after:*").expect("curl after");
    let curl_before = &n[before..after];
    let curl_after = &n[after..n.find("*JavaScript, before:*").expect("js")];
    assert!(!curl_before.contains("X-API-Key"), "{curl_before}");
    assert!(
        curl_after.contains("--header 'X-API-Key: YOUR_API_KEY'"),
        "{curl_after}"
    );
    for fence in [
        "```sh",
        "```js",
        "```python",
        "```go",
        "```java",
        "```ruby",
        "```php",
        "```csharp",
    ] {
        assert_eq!(n.matches(fence).count(), 2, "{fence}: {n}");
    }
}

#[test]
fn a_removed_operation_gives_its_deprecation_notice_and_the_alternatives_on_its_resource() {
    let r = pets_report();
    let n = note(&r, "endpoint-removed", "");
    assert!(n.contains("**Where:** operation `GET /pets/{id}`"), "{n}");
    assert!(
        n.contains("**Deprecation notice:** none: it was not deprecated"),
        "{n}"
    );
    assert!(n.contains("Its summary was `Get a pet`."), "{n}");
    let moved = n
        .find("- `GET /animals/{id}` (same operationId): `Get an animal`")
        .expect(n);
    let path = n.find("- `DELETE /pets/{id}` (same path)").expect(n);
    let resource = n
        .find("- `GET /pets` (same resource): `List pets`")
        .expect(n);
    assert!(moved < path && path < resource, "{n}");
}

#[test]
fn a_removed_response_property_shows_the_response_examples_before_and_after() {
    let r = pets_report();
    let n = note(&r, "response-body-property-removed", "name");
    assert!(
        n.contains("**Where:** operation `POST /pets` › response `201` › property `name`"),
        "{n}"
    );
    assert!(n.contains("Stop reading this property"), "{n}");
    let before = n.find("**Response example, before:**").expect(n);
    let after = n.find("**Response example, after:**").expect(n);
    assert!(n[before..after].contains("\"name\": \"string\""), "{n}");
    assert!(!n[after..].contains("\"name\""), "{n}");
    assert!(n[after..].contains("\"tag\": \"string\""), "{n}");
}

#[test]
fn a_removed_operation_that_was_deprecated_with_a_sunset_says_so() {
    let rule = find_rule("endpoint-removed-before-sunset")
        .expect("rule")
        .rule();
    let r = diff(
        &doc(&rule.example.previous),
        &doc(&rule.example.current),
        &options(),
    );
    let n = r.changes()[0].migration().expect("a note");
    assert!(
        n.contains("it was deprecated, to be removed on `2999-01-01` (`x-sunset`)"),
        "{n}"
    );
}

/// Strings a hostile document puts wherever it can.
const HOSTILE: [&str; 7] = [
    "a`b``c```",
    "<script>alert(1)</script>",
    "[click](javascript:alert(1))",
    "x\n\n# Heading\n```\n<img src=x onerror=alert(1)>",
    "**bold** _em_ ![i](https://evil.example/i.png)",
    "\u{202e}gnp.exe",
    "<https://evil.example>",
];

/// Every event of `note` outside code: text the engine wrote (no document string), no HTML, link, image or heading;
/// every code block closed.
fn markup_outside_code(note: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut open_blocks = 0i32;
    for event in Parser::new(note) {
        match event {
            Event::Html(h) | Event::InlineHtml(h) => problems.push(format!("HTML {h}")),
            Event::Start(Tag::Link { dest_url, .. }) => problems.push(format!("link {dest_url}")),
            Event::Start(Tag::Image { dest_url, .. }) => problems.push(format!("image {dest_url}")),
            Event::Start(Tag::Heading { .. }) => problems.push("heading".into()),
            Event::Start(Tag::CodeBlock(_)) => open_blocks += 1,
            Event::End(TagEnd::CodeBlock) => open_blocks -= 1,
            Event::Text(t) if open_blocks == 0 => {
                for marker in [
                    "script",
                    "javascript",
                    "Heading",
                    "evil",
                    "click",
                    "exe",
                    "bold",
                ] {
                    if t.contains(marker) {
                        problems.push(format!("document text outside code: {t}"));
                    }
                }
            }
            _ => {}
        }
    }
    if open_blocks != 0 {
        problems.push("a code block left open".into());
    }
    problems
}

#[test]
fn hostile_document_strings_stay_inside_code_in_every_note() {
    let mut previous = String::from(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\nservers: [{url: 'https://h.example.com'}]\npaths:\n",
    );
    let mut current = previous.clone();
    for (i, h) in HOSTILE.iter().enumerate() {
        let q = serde_json::to_string(h).expect("json");
        let path = serde_json::to_string(&format!("/p{i}/{h}")).expect("json");
        let op = format!(
            "  {path}:\n    post:\n      summary: {q}\n      parameters: [{{name: {q}, in: query, schema: {{type: string, example: {q}}}}}]\n      requestBody:\n        content:\n          application/json:\n            schema: {{type: object, properties: {{{q}: {{type: string, enum: [{q}, other], maxLength: 10}}}}}}\n      responses: {{'200': {{description: ok, content: {{application/json: {{schema: {{type: object, properties: {{{q}: {{type: string, example: {q}}}}}}}}}}}}}}}\n"
        );
        previous.push_str(&op);
        current.push_str(
            &op.replace("in: query, schema", "in: query, required: true, schema")
                .replace(
                    &format!("enum: [{q}, other], maxLength: 10"),
                    "enum: [other], maxLength: 5",
                )
                .replace(
                    &format!("properties: {{{q}: {{type: string, example: {q}}}}}"),
                    "properties: {}",
                ),
        );
        // An operation removed, with a hostile summary.
        previous.push_str(&format!(
            "  {}:\n    get:\n      summary: {q}\n      responses: {{'200': {{description: ok}}}}\n",
            serde_json::to_string(&format!("/gone{i}/{h}")).expect("json")
        ));
    }
    let report = diff(&doc(&previous), &doc(&current), &options());
    let notes: Vec<&str> = report
        .changes()
        .iter()
        .filter_map(|c| c.migration())
        .collect();
    let breaking = report
        .changes()
        .iter()
        .filter(|c| c.level() == Level::Breaking)
        .count();
    assert_eq!(notes.len(), breaking);
    assert!(breaking >= 4 * HOSTILE.len(), "{breaking} breaking changes");
    for note in notes {
        let problems = markup_outside_code(note);
        assert!(problems.is_empty(), "{problems:?}\n{note}");
        assert!(
            !note.contains('\u{202e}'),
            "a bidi control written raw:\n{note}"
        );
        assert!(note.len() <= MAX_NOTE_BYTES);
    }
}

/// The corpus folder (`specpress_testkit::corpus()`): a test that reads it is marked ignored outside CI when it is
/// missing.
fn corpus() -> PathBuf {
    specpress_testkit::corpus()
}

const PAIRS: &[(&str, &str)] = &[
    (
        "openapi-3.0/github-api-22.0.0.json",
        "openapi-3.0/github-api-23.0.2.json",
    ),
    (
        "openapi-3.0/stripe-2022-02-08.json",
        "openapi-3.0/stripe-2022-04-12.json",
    ),
    (
        "openapi-3.1/openai-2026-08-12.json",
        "openapi-3.1/openai-2026-08-21.json",
    ),
    (
        "swagger-2.0/kubernetes-1.35.json",
        "swagger-2.0/kubernetes-1.36.json",
    ),
    (
        "asyncapi/streetlights-kafka-2.3.0.yml",
        "asyncapi/streetlights-kafka-2.5.0.yml",
    ),
    (
        "asyncapi/slack-rtm-3.0.0.yml",
        "asyncapi/slack-rtm-3.1.0.yml",
    ),
];

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn every_breaking_change_of_the_corpus_pairs_has_a_note_within_the_cap() {
    let dir = corpus();
    let mut total = 0usize;
    let mut largest = 0usize;
    for (a, b) in PAIRS {
        let p = load_document(&dir.join(a)).unwrap_or_else(|e| panic!("{a}: {e}"));
        let c = load_document(&dir.join(b)).unwrap_or_else(|e| panic!("{b}: {e}"));
        for (from, to, name) in [
            (&p, &c, format!("{a} -> {b}")),
            (&c, &p, format!("{b} -> {a}")),
        ] {
            let report = diff(from, to, &DiffOptions::default());
            for change in report.changes() {
                let note = change.migration();
                if change.level() != Level::Breaking {
                    assert!(
                        note.is_none(),
                        "{name}: a note on a {} change",
                        change.level()
                    );
                    continue;
                }
                total += 1;
                let note =
                    note.unwrap_or_else(|| panic!("{name}: {} has no note", change.rule_id()));
                largest = largest.max(note.len());
                if let Err(e) = check_shape(change.rule_id(), note) {
                    panic!("{name}: {e}");
                }
                let problems = markup_outside_code(note);
                assert!(problems.is_empty(), "{name}: {problems:?}\n{note}");
            }
        }
    }
    eprintln!(
        "{total} breaking changes in the corpus pairs, each with a note; the largest: {largest} bytes"
    );
    assert!(
        total > 100,
        "only {total} breaking changes in the corpus pairs"
    );
}

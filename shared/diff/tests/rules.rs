//! Every rule of the catalogue, on its own example pair: the rule fires with its level (this
//! is the per-rule unit test, request and response variants included, since each schema check
//! exists once per role), and the reverse diff does not report it.

use specpress_apispec::{Document, Limits, parse};
use specpress_diff::{DiffOptions, catalogue, diff};

fn doc(text: &str) -> Result<Document, String> {
    parse(text, &[], &Limits::default()).map_err(|e| e.to_string())
}

fn options() -> DiffOptions {
    DiffOptions::new().with_today("2026-01-01")
}

#[test]
fn every_rule_fires_on_its_example_with_its_default_level() {
    let mut failures = Vec::new();
    for rule in catalogue() {
        let (p, c) = match (doc(&rule.example.previous), doc(&rule.example.current)) {
            (Ok(p), Ok(c)) => (p, c),
            (Err(e), _) | (_, Err(e)) => {
                failures.push(format!("{}: example does not parse: {e}", rule.id));
                continue;
            }
        };
        let report = diff(&p, &c, &options());
        let hit = report.changes().iter().find(|ch| ch.rule_id() == rule.id);
        match hit {
            Some(ch) if ch.level() == rule.level => {}
            Some(ch) => failures.push(format!(
                "{}: fired at level {} instead of {}",
                rule.id,
                ch.level(),
                rule.level
            )),
            None => failures.push(format!(
                "{}: did not fire; got {:?}",
                rule.id,
                report
                    .changes()
                    .iter()
                    .map(|c| c.rule_id())
                    .collect::<Vec<_>>()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rules fail:\n{}",
        failures.len(),
        catalogue().len(),
        failures.join("\n")
    );
}

/// Symmetric rules (`…-changed`, `…-renamed`) fire both ways; every other rule describes a
/// direction (added/removed, raised/lowered, set/unset, became …) and must not fire on the
/// reverse diff.
fn symmetric(id: &str) -> bool {
    id.ends_with("-changed") || id.ends_with("-renamed")
}

#[test]
fn directed_rules_do_not_fire_on_the_reverse_example_and_symmetric_ones_do() {
    let mut failures = Vec::new();
    for rule in catalogue() {
        let (Ok(p), Ok(c)) = (doc(&rule.example.previous), doc(&rule.example.current)) else {
            continue;
        };
        let reverse = diff(&c, &p, &options());
        let fired = reverse.changes().iter().any(|ch| ch.rule_id() == rule.id);
        if fired != symmetric(&rule.id) {
            failures.push(rule.id.clone());
        }
    }
    assert!(failures.is_empty(), "wrong reverse behaviour: {failures:?}");
}

#[test]
fn an_example_diffed_against_itself_is_empty() {
    for rule in catalogue() {
        let Ok(p) = doc(&rule.example.previous) else {
            continue;
        };
        let report = diff(&p, &p, &options());
        assert!(report.is_empty(), "{}: {:?}", rule.id, report.text());
    }
}

//! Every pair of the shared corpus diffs without error; no change is reported twice; the
//! GitHub pair's added and removed operations match the real delta; a JSON and a YAML
//! rendering of the same document differ by nothing.

use std::collections::HashSet;

use specpress_diff::cli::load_document;
use specpress_diff::{DiffOptions, DiffReport, Status, diff};

#[path = "support/corpus.rs"]
mod corpus_files;
use corpus_files::{PAIRS, corpus};

fn run(dir: &std::path::Path, previous: &str, current: &str) -> DiffReport {
    let p = load_document(&dir.join(previous))
        .unwrap_or_else(|e| panic!("{previous} does not load: {e}"));
    let c = load_document(&dir.join(current))
        .unwrap_or_else(|e| panic!("{current} does not load: {e}"));
    diff(&p, &c, &DiffOptions::default())
}

fn assert_each_change_once(name: &str, report: &DiffReport) {
    let mut seen = HashSet::new();
    for c in report.changes() {
        // A schema change belongs to one place (shared ones to their definition), whatever
        // uses it; other changes are per operation.
        let subject = if specpress_diff::find_rule(c.rule_id()).is_some_and(|r| r.rule().schema) {
            String::new()
        } else {
            c.subject().to_string()
        };
        let key = (
            subject,
            c.rule_id(),
            c.previous_location().cloned(),
            c.current_location().cloned(),
            c.message().to_string(),
        );
        assert!(seen.insert(key.clone()), "{name}: reported twice: {key:?}");
    }
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn every_corpus_pair_diffs_and_reports_each_change_once() {
    let dir = corpus();
    for (previous, current) in PAIRS {
        let report = run(&dir, previous, current);
        assert!(!report.truncated(), "{previous}: walk budget exhausted");
        assert_each_change_once(previous, &report);
        // Every rendering works and is consistent with the change list.
        let details = report.details();
        assert_eq!(details.as_array().map(Vec::len), Some(report.items().len()));
        assert_eq!(report.text().is_empty(), report.items().is_empty());
        assert!(report.html().starts_with("<div class=\"specpress-diff\">"));
        assert!(
            report.markdown().len() <= 62_000,
            "{previous}: markdown too long"
        );
        eprintln!(
            "{previous} -> {current}: {} changes, {:?}",
            report.changes().len(),
            report.counts()
        );
    }
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn github_pair_added_and_removed_operations_match_the_real_delta() {
    let dir = corpus();
    let report = run(
        &dir,
        "openapi-3.0/github-api-22.0.0.json",
        "openapi-3.0/github-api-23.0.2.json",
    );
    let count = |status: Status| {
        report
            .items()
            .iter()
            .filter(|i| i.item_type == "endpoint" && i.status == status)
            .count()
    };
    assert_eq!(count(Status::Removed), 40, "removed operations");
    assert_eq!(count(Status::Added), 155, "added operations");
    assert!(report.breaking(), "removing 40 operations is breaking");
    // A shared component change is reported once, at the component, with its users.
    let components: Vec<_> = report
        .items()
        .iter()
        .filter(|i| i.item_type == "schema" && i.status == Status::Modified)
        .collect();
    assert!(!components.is_empty());
    assert!(components.iter().any(|c| c.affected.len() > 1));
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn the_same_document_in_json_and_in_yaml_has_no_difference() {
    let dir = corpus();
    for name in ["openai-2026-08-12", "openai-2026-08-21"] {
        let report = run(
            &dir,
            &format!("openapi-3.1/{name}.json"),
            &format!("openapi-3.1/{name}.yaml"),
        );
        assert!(
            !report.structural(),
            "{name}: JSON vs YAML shows structural changes:\n{}",
            report.text()
        );
    }
}

#[path = "support/trace.rs"]
mod trace;

/// Both directions of every pair: (previous, current).
fn both_directions() -> impl Iterator<Item = (&'static str, &'static str)> {
    PAIRS.iter().flat_map(|&(a, b)| [(a, b), (b, a)])
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn every_breaking_flag_of_every_corpus_pair_leads_to_a_breaking_change() {
    let dir = corpus();
    let mut unsound = Vec::new();
    for (previous, current) in both_directions() {
        let report = run(&dir, previous, current);
        let t = trace::check(&report);
        eprintln!(
            "{previous} -> {current}: {} of {} breaking flags unexplained ({} nodes), {} unflagged, {} wrong levels, {} dangling refs",
            t.unexplained.len(),
            t.flagged,
            t.nodes,
            t.unflagged.len(),
            t.wrong_level.len(),
            t.dangling.len()
        );
        if !t.is_sound() {
            unsound.push(format!(
                "{previous} -> {current}: unexplained {:?}, unflagged {:?}, wrong levels {:?}, dangling {:?}",
                &t.unexplained[..t.unexplained.len().min(5)],
                &t.unflagged[..t.unflagged.len().min(5)],
                &t.wrong_level[..t.wrong_level.len().min(5)],
                &t.dangling[..t.dangling.len().min(5)],
            ));
        }
    }
    assert!(unsound.is_empty(), "{unsound:#?}");
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn the_four_renderings_count_the_same_breaking_changes_on_every_corpus_pair() {
    let dir = corpus();
    for (previous, current) in both_directions() {
        let report = run(&dir, previous, current);
        let c = trace::counts(&report);
        eprintln!("{previous} -> {current}: {c:?}");
        let n = c.report;
        assert_eq!(
            (c.json, c.text, c.markdown_headline, c.html),
            (n, n, n, n),
            "{previous} -> {current}: {c:?}"
        );
        // The flags agree too: the HTML marks the JSON's flagged roots, the Markdown headline
        // counts them.
        let flagged = report.items().iter().filter(|i| i.breaking).count();
        let html = report.html();
        assert_eq!(
            html.matches("changelog-event__diff-operation added breaking\"")
                .count()
                + html
                    .matches("changelog-event__diff-operation removed breaking\"")
                    .count()
                + html
                    .matches("changelog-event__diff-operation modified breaking\"")
                    .count(),
            flagged,
            "{previous} -> {current}"
        );
        if n > 0 {
            assert!(
                report
                    .markdown()
                    .lines()
                    .next()
                    .is_some_and(|l| l.contains(&format!(
                        "({flagged} of {} changed item",
                        report.items().len()
                    ))),
                "{previous} -> {current}"
            );
        }
    }
}

//! Migration notes (issue 39): every breaking change carries one.

use specpress_apispec::{Document, Limits, parse};
use specpress_diff::{DiffOptions, Level, catalogue, diff};

fn doc(text: &str) -> Document {
    parse(text, &[], &Limits::default()).expect("the example parses")
}

#[test]
fn dump_notes() {
    let Ok(dir) = std::env::var("MIGRATION_DUMP") else {
        return;
    };
    let mut out = String::new();
    for rule in catalogue().iter().filter(|r| r.level == Level::Breaking) {
        let (p, c) = (doc(&rule.example.previous), doc(&rule.example.current));
        let report = diff(&p, &c, &DiffOptions::new().with_today("2026-01-01"));
        for ch in report.changes().iter().filter(|c| c.rule_id() == rule.id) {
            out.push_str(&format!(
                "=============== {}\n{}\n",
                rule.id,
                ch.migration().unwrap_or("NONE")
            ));
        }
    }
    std::fs::write(format!("{dir}/notes.md"), out).unwrap();
}

//! `cargo run -p specpress-diff --example diff-dump -- OUT_DIR`: writes every output of the engine
//! (text, Markdown, HTML, pretty JSON, compact details, the change list with locations, counts)
//! for every corpus pair in both directions and every catalogue example in both directions,
//! with default options and with a set of level overrides and ignores, plus the catalogue
//! itself. Run it before and after a change that must not alter behaviour and compare the two
//! folders byte for byte (`diff -r`): a refactoring of the engine is checked on every document
//! the project has.
//!
//! Corpus folder from `SPECPRESS_CORPUS` (default `<repo>/../shared/corpus`); without it only
//! the catalogue examples are written (and it says so).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use specpress_apispec::{Document, Limits, parse};
use specpress_diff::cli::load_document;
use specpress_diff::{DiffOptions, DiffReport, Format, Level, catalogue, diff};

/// The corpus pairs of `tests/corpus.rs`, plus the OpenAI document in JSON against YAML.
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
        "openapi-3.0/stripe-2023-09-11.yaml",
        "openapi-3.0/stripe-2023-09-12.yaml",
    ),
    (
        "openapi-3.1/openai-2026-08-12.json",
        "openapi-3.1/openai-2026-08-21.json",
    ),
    (
        "openapi-3.1/openai-2026-08-12.yaml",
        "openapi-3.1/openai-2026-08-21.yaml",
    ),
    (
        "openapi-3.1/openai-2026-08-12.json",
        "openapi-3.1/openai-2026-08-21.yaml",
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
        "asyncapi/streetlights-kafka-3.0.0.yml",
        "asyncapi/streetlights-kafka-3.1.0.yml",
    ),
    (
        "asyncapi/slack-rtm-3.0.0.yml",
        "asyncapi/slack-rtm-3.1.0.yml",
    ),
];

const TODAY: &str = "2026-01-01";

fn base_options() -> DiffOptions {
    DiffOptions::new().with_today(TODAY)
}

/// Options derived from a default report: every third rule seen ignored everywhere, every
/// fifth change's rule ignored for its subject (when the subject is an operation), every
/// fourth rule seen raised or lowered one level.
fn derived_options(report: &DiffReport) -> DiffOptions {
    let mut options = base_options();
    let mut rules: Vec<&str> = Vec::new();
    for c in report.changes() {
        if !rules.contains(&c.rule_id()) {
            rules.push(c.rule_id());
        }
    }
    for (i, rule) in rules.iter().enumerate() {
        if i % 3 == 1 {
            let _ = options.ignore(rule, None);
        }
        if i % 4 == 2 {
            let level = match specpress_diff::find_rule(rule).map(|r| r.rule().level) {
                Some(Level::Breaking) => Level::Info,
                _ => Level::Breaking,
            };
            let _ = options.set_level(rule, level);
        }
    }
    for (i, c) in report.changes().iter().enumerate() {
        if i % 5 == 0 && c.subject().contains(" /") {
            let _ = options.ignore(c.rule_id(), Some(c.subject()));
        }
    }
    options
}

fn changes_dump(report: &DiffReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "truncated={} structural={} breaking={} counts={:?}",
        report.truncated(),
        report.structural(),
        report.breaking(),
        report.counts()
    );
    for c in report.changes() {
        let _ = writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{:?}\t{:?}\t{}",
            c.rule_id(),
            c.level(),
            c.status().as_str(),
            c.subject(),
            c.structural(),
            c.previous_location(),
            c.current_location(),
            c.message()
        );
    }
    out
}

fn write(dir: &Path, name: &str, report: &DiffReport) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (ext, format) in [
        ("txt", Format::Text),
        ("md", Format::Markdown),
        ("html", Format::Html),
        ("json", Format::Json),
    ] {
        std::fs::write(dir.join(format!("{name}.{ext}")), report.render(format))?;
    }
    std::fs::write(
        dir.join(format!("{name}.details")),
        report.details().to_string(),
    )?;
    std::fs::write(dir.join(format!("{name}.changes")), changes_dump(report))?;
    Ok(())
}

fn both_ways(
    dir: &Path,
    name: &str,
    previous: &Document,
    current: &Document,
) -> std::io::Result<()> {
    for (suffix, p, c) in [("fwd", previous, current), ("rev", current, previous)] {
        let report = diff(p, c, &base_options());
        write(dir, &format!("{name}.{suffix}"), &report)?;
        let derived = diff(p, c, &derived_options(&report));
        write(dir, &format!("{name}.{suffix}.options"), &derived)?;
    }
    Ok(())
}

fn slug(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn main() -> std::io::Result<()> {
    let Some(out) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: dump OUT_DIR");
        std::process::exit(2);
    };
    std::fs::create_dir_all(&out)?;
    std::fs::write(
        out.join("catalogue.md"),
        specpress_diff::catalogue_markdown(),
    )?;
    let limits = Limits::default();
    for rule in catalogue() {
        let (Ok(p), Ok(c)) = (
            parse(&rule.example.previous, &[], &limits),
            parse(&rule.example.current, &[], &limits),
        ) else {
            eprintln!("{}: example does not parse", rule.id);
            std::process::exit(1);
        };
        both_ways(&out.join("rules"), &rule.id, &p, &c)?;
    }
    let corpus = std::env::var_os("SPECPRESS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
        });
    if !corpus.join("README.md").is_file() {
        eprintln!(
            "corpus folder {} not found: only the catalogue examples were written",
            corpus.display()
        );
        return Ok(());
    }
    for (previous, current) in PAIRS {
        let load = |f: &str| {
            load_document(&corpus.join(f)).unwrap_or_else(|e| {
                eprintln!("{f} does not load: {e}");
                std::process::exit(1);
            })
        };
        let (p, c) = (load(previous), load(current));
        let name = format!("{}--{}", slug(previous), slug(current));
        both_ways(&out.join("corpus"), &name, &p, &c)?;
        eprintln!("{name}");
    }
    Ok(())
}

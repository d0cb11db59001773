//! `docs/diff-rules.md` is generated from the rule table; this test fails when it is stale.
//! Regenerate with `SPECPRESS_REGENERATE_DOCS=1 cargo test -p specpress-diff --test rules_doc`.

use std::path::PathBuf;

#[test]
fn docs_diff_rules_md_matches_the_rule_catalogue() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/diff-rules.md");
    let expected = specpress_diff::catalogue_markdown();
    if std::env::var("SPECPRESS_REGENERATE_DOCS").as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().expect("docs dir")).expect("create docs/");
        std::fs::write(&path, &expected).expect("write docs/diff-rules.md");
        return;
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/diff-rules.md is stale or missing: run `SPECPRESS_REGENERATE_DOCS=1 cargo test -p specpress-diff --test rules_doc`"
    );
    for rule in specpress_diff::catalogue() {
        assert!(
            actual.contains(&format!("| `{}` |", rule.id)),
            "{} not documented",
            rule.id
        );
    }
}

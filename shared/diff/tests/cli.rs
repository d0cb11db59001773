//! `specpress diff` on real files: YAML and JSON, external `$ref`s resolved relative to each
//! file (and never outside the document's directory), exit codes 0 / 1 / 2.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use specpress_diff::cli::{CliError, DiffCommand};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    command: DiffCommand,
}

fn command(args: &[&str]) -> DiffCommand {
    let mut all = vec!["specpress-diff"];
    all.extend_from_slice(args);
    Cli::try_parse_from(all).expect("arguments parse").command
}

/// A fresh directory under the system temp dir.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("specpress-diff-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

fn write(dir: &Path, rel: &str, text: &str) -> String {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

const ROOT: &str = "openapi: 3.0.3
info: {title: Pets, version: '1'}
paths:
  /pets/{id}:
    get:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: 'schemas/pet.yaml'}
";

fn version(dir: &Path, tag_type: &str) -> String {
    write(
        dir,
        "schemas/pet.yaml",
        "type: object\nproperties:\n  name: {type: string}\n  tag: {$ref: './tag.yaml'}\n",
    );
    write(dir, "schemas/tag.yaml", &format!("type: {tag_type}\n"));
    write(dir, "api.yaml", ROOT)
}

#[test]
fn external_refs_are_followed_relative_to_each_file_and_breaking_changes_exit_1() {
    let root = scratch("refs");
    let previous = version(&root.join("v1"), "string");
    let current = version(&root.join("v2"), "integer");
    let cmd = command(&[&previous, &current, "--fail-on", "breaking"]);
    let mut out = Vec::new();
    let code = cmd.execute(&mut out).expect("diff runs");
    let text = String::from_utf8(out).expect("utf-8");
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("Modified: GET /pets/{id}"), "{text}");
    assert!(
        text.contains(
            "[Breaking] Body attribute modified: tag (type changed from `string` to `integer`)"
        ),
        "{text}"
    );
    // Same files, no threshold: exit 0; `run` prints and returns the process exit code.
    let cmd = command(&[&previous, &current, "--format", "json"]);
    assert_eq!(
        format!("{:?}", cmd.run()),
        format!("{:?}", ExitCode::from(0))
    );
    let mut out = Vec::new();
    cmd.execute(&mut out).expect("json");
    let json: serde_json::Value = serde_json::from_slice(&out).expect("json output parses");
    assert_eq!(json[0]["name"], "GET /pets/{id}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn json_and_yaml_files_of_the_same_api_compare_equal() {
    let root = scratch("formats");
    let yaml = write(
        &root,
        "a.yaml",
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses: {'200': {description: ok}}\n",
    );
    let json = write(
        &root,
        "a.json",
        r#"{"info":{"version":"1","title":"t"},"openapi":"3.1.0","paths":{"/a":{"get":{"responses":{"200":{"description":"ok"}}}}}}"#,
    );
    let cmd = command(&[&yaml, &json, "--fail-on", "warning", "--format", "markdown"]);
    let mut out = Vec::new();
    assert_eq!(cmd.execute(&mut out).expect("diff runs"), 0);
    assert_eq!(String::from_utf8(out).expect("utf-8"), "No changes.\n");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_ref_to_an_existing_file_outside_the_document_directory_is_refused() {
    let root = scratch("outside");
    write(&root, "secret.yaml", "type: string\n");
    let api = write(
        &root,
        "api/api.yaml",
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    S: {$ref: '../secret.yaml'}\n",
    );
    let err = command(&[&api, &api]).report().expect_err("refused");
    assert!(matches!(err, CliError::Outside { .. }), "{err}");
    assert!(err.to_string().contains("points outside"));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn missing_files_invalid_documents_and_bad_flags_are_errors_with_exit_2() {
    let root = scratch("errors");
    let missing = root.join("nope.yaml").display().to_string();
    let bad = write(&root, "bad.yaml", "openapi: 3.1.0\ninfo: [unclosed\n");
    let good = write(
        &root,
        "good.yaml",
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n",
    );
    let err = command(&[&missing, &good])
        .report()
        .expect_err("missing file");
    assert!(err.to_string().contains("nope.yaml"), "{err}");
    let err = command(&[&bad, &good])
        .report()
        .expect_err("invalid document");
    assert!(matches!(err, CliError::Invalid { .. }), "{err}");
    let err = command(&[&good, &good, "--ignore", "not-a-rule"])
        .report()
        .expect_err("bad flag");
    assert!(
        err.to_string().contains("unknown rule id `not-a-rule`"),
        "{err}"
    );
    assert_eq!(
        format!("{:?}", command(&[&missing, &good]).run()),
        format!("{:?}", ExitCode::from(2))
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn loading_a_pair_in_parallel_reports_the_file_that_failed_as_a_sequential_load_does() {
    use specpress_diff::cli::{load_document, load_pair};
    let root = scratch("pair");
    let missing = root.join("nope.yaml");
    let bad = PathBuf::from(write(
        &root,
        "bad.yaml",
        "openapi: 3.1.0\ninfo: [unclosed\n",
    ));
    let good = PathBuf::from(write(
        &root,
        "good.yaml",
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n",
    ));
    let other = PathBuf::from(write(
        &root,
        "other.json",
        r#"{"openapi":"3.1.0","info":{"title":"u","version":"2"},"paths":{}}"#,
    ));
    // Both load: each document comes back on its own side.
    let (p, c) = load_pair(&good, &other).expect("both load");
    assert_eq!((p.title(), c.title()), ("t", "u"));
    // One fails: the same error (and message) as loading that file alone.
    for (previous, current, failing) in [
        (&missing, &good, &missing),
        (&good, &missing, &missing),
        (&bad, &good, &bad),
        (&good, &bad, &bad),
        // Both fail: the previous file's error, as a sequential load would report it.
        (&bad, &missing, &bad),
        (&missing, &bad, &missing),
    ] {
        let err = load_pair(previous, current).expect_err("one file fails");
        let alone = load_document(failing).expect_err("fails alone too");
        assert_eq!(err.to_string(), alone.to_string());
        assert!(
            err.to_string().contains(&*failing.display().to_string()),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn github_format_annotates_breaking_changes_at_their_file_and_line_as_given_on_the_command_line() {
    let root = scratch("github");
    let previous = version(&root.join("v1"), "string");
    let current = version(&root.join("v2"), "integer");
    // A removed parameter: annotated in the previous file, where it was.
    let before = write(
        &root.join("v3"),
        "api.yaml",
        "openapi: 3.0.3\ninfo: {title: Pets, version: '1'}\npaths:\n  /pets:\n    get:\n      parameters:\n        - name: limit\n          in: query\n          required: true\n          schema: {type: integer}\n      responses:\n        '200': {description: ok}\n      deprecated: false\n",
    );
    let after = write(
        &root.join("v4"),
        "api.yaml",
        "openapi: 3.0.3\ninfo: {title: Pets, version: '1'}\npaths:\n  /pets:\n    get:\n      deprecated: true\n      responses:\n        '200': {description: ok}\n",
    );
    let run = |a: &str, b: &str| {
        let mut out = Vec::new();
        let code = command(&[a, b, "--format", "github", "--fail-on", "breaking"])
            .execute(&mut out)
            .expect("diff runs");
        (code, String::from_utf8(out).expect("utf-8"))
    };

    let (code, text) = run(&previous, &current);
    assert_eq!(code, 1, "{text}");
    let tag = Path::new(&current)
        .parent()
        .expect("parent")
        .join("schemas/tag.yaml")
        .display()
        .to_string()
        .replace(':', "%3A");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(
        lines[0].starts_with(&format!("::error file={tag},line=1,col=1,title=")),
        "{text}"
    );
    assert!(
        lines[0].ends_with("type changed from `string` to `integer`"),
        "{text}"
    );

    // Warnings only: annotated, and `--fail-on breaking` passes.
    let (code, text) = run(&before, &after);
    assert_eq!(code, 0, "{text}");
    let before_file = before.replace(':', "%3A");
    let after_file = after.replace(':', "%3A");
    assert!(
        text.lines()
            .any(|l| l.starts_with(&format!("::warning file={before_file},line=7,col=11,"))),
        "the removed parameter, at its item in the previous file: {text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with(&format!("::warning file={after_file},line=5,col=5,"))),
        "the deprecated operation, at its method in the current file: {text}"
    );
    assert_eq!(text.lines().count(), 2, "{text}");
}

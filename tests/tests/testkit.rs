//! One way for a test to need a tool (shared/testkit): no test source reads a tool's variable itself, and `CI` is the
//! one switch. Every Rust file under `shared/*/tests`, `functions/*/tests` and `tests/` is read: a string literal that
//! names a tool's variable is allowed only as the name a child process is given (`.env("SPECPRESS_CHROMIUM", ..)`);
//! reading it (`std::env::var`, `var_os`, `env!`, a constant...) must go through `specpress_testkit`. The old browser
//! switch is not mentioned at all, and no test prints that it skipped itself.

use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use specpress_e2e::repo_root;

/// The variables that locate a tool; only `specpress_testkit` reads them.
const TOOL_VARIABLES: [&str; 6] = [
    "SPECPRESS_BUMP_CLI",
    "SPECPRESS_TOOLS_PYTHON",
    "SPECPRESS_NODE_MODULES",
    "SPECPRESS_CHROMIUM",
    "SPECPRESS_TEST_MOTO_ENDPOINT",
    "SPECPRESS_CORPUS",
];

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The test sources of the workspace: `shared/*/tests`, `functions/*/tests` and the end-to-end package `tests/`.
fn test_sources() -> Vec<PathBuf> {
    let root = repo_root();
    let mut files = Vec::new();
    for group in ["shared", "functions"] {
        let Ok(crates) = std::fs::read_dir(root.join(group)) else {
            panic!("{group}/ is missing under {}", root.display());
        };
        for c in crates.flatten() {
            rust_files(&c.path().join("tests"), &mut files);
        }
    }
    for dir in ["src", "tests", "benches", "examples"] {
        rust_files(&root.join("tests").join(dir), &mut files);
    }
    files.sort();
    files
}

/// The places in `source` that read a tool's variable directly: each a line and the variable.
fn direct_reads(source: &str) -> Vec<(usize, String)> {
    fn walk(tokens: TokenStream, before_group: &[TokenTree], out: &mut Vec<(usize, String)>) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, t) in trees.iter().enumerate() {
            match t {
                TokenTree::Group(g) => {
                    let before: Vec<TokenTree> = trees[..i].iter().rev().take(2).cloned().collect();
                    walk(g.stream(), &before, out);
                }
                TokenTree::Literal(l) => {
                    let text = l.to_string();
                    let Some(name) = TOOL_VARIABLES.iter().find(|v| text == format!("\"{v}\""))
                    else {
                        continue;
                    };
                    // `.env("NAME", ...)` and `.env_remove("NAME")` name the variable for a child process: the
                    // literal is the first token of a parenthesized group that follows `.env` / `.env_remove`.
                    let for_a_child = i == 0
                        && matches!(before_group, [TokenTree::Ident(m), TokenTree::Punct(dot)]
                            if (m == "env" || m == "env_remove") && dot.as_char() == '.');
                    if !for_a_child {
                        out.push((l.span().start().line, (*name).to_owned()));
                    }
                }
                _ => {}
            }
        }
    }
    let Ok(tokens) = source.parse::<TokenStream>() else {
        return vec![(0, "(the file does not tokenize)".to_owned())];
    };
    let mut out = Vec::new();
    walk(tokens, &[], &mut out);
    out
}

#[test]
fn no_test_source_reads_a_tools_variable_itself_or_switches_on_anything_but_ci() {
    let root = repo_root();
    let me = Path::new(file!())
        .file_name()
        .expect("this file's name")
        .to_owned();
    let mut problems = Vec::new();
    let files = test_sources();
    assert!(files.len() > 50, "{} test sources found", files.len());
    for path in files {
        if path.file_name() == Some(me.as_os_str())
            && path.parent().is_some_and(|p| p.ends_with("tests/tests"))
        {
            continue;
        }
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
        for (line, name) in direct_reads(&text) {
            problems.push(format!(
                "{rel}:{line}: reads {name} itself; use specpress_testkit::tool(Tool::..) / corpus() and a \
                 #[cfg_attr(missing_<tool>, ignore = ..)] (shared/testkit)"
            ));
        }
        for (n, line) in text.lines().enumerate() {
            if line.contains(concat!("SPECPRESS_BROWSER", "_REQUIRED")) {
                problems.push(format!(
                    "{rel}:{}: the browser switch is gone: CI is the one switch",
                    n + 1
                ));
            }
            if line.contains("SKIPPED") || line.contains("SKIPPING") {
                problems.push(format!(
                    "{rel}:{}: a test that skips itself passes; mark it ignored through specpress_testkit",
                    n + 1
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_direct_read_of_a_tools_variable_is_found_and_naming_it_for_a_child_process_is_not() {
    let reads = direct_reads(
        r#"
fn a() -> Option<std::ffi::OsString> { std::env::var_os("SPECPRESS_BUMP_CLI") }
fn b() { let _ = std::env::var("SPECPRESS_TEST_MOTO_ENDPOINT"); }
const C: &str = "SPECPRESS_CORPUS";
fn d() -> &'static str { env!("SPECPRESS_TOOLS_PYTHON") }
fn e(c: &mut std::process::Command) { c.env("SPECPRESS_CHROMIUM", "/x").env_remove("SPECPRESS_NODE_MODULES"); }
fn f() { println!("set SPECPRESS_CORPUS to the corpus"); }
"#,
    );
    let names: Vec<&str> = reads.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "SPECPRESS_BUMP_CLI",
            "SPECPRESS_TEST_MOTO_ENDPOINT",
            "SPECPRESS_CORPUS",
            "SPECPRESS_TOOLS_PYTHON"
        ]
    );
    assert_eq!(
        reads.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
        [2, 3, 4, 5]
    );
}

//! The size rules of the whole workspace (issue 22): no source file under `functions/*/src` or `shared/*/src` over
//! 1,000 lines (a file is read whole, test modules included) and no function over 150 lines (test code aside).
//! Functions are found by parsing every file with `syn`: a function runs from the line of its `fn` to the line of
//! its body's closing brace, so no brace in a string, a comment, a raw string or a macro can throw the count off
//! (a brace-counting scan could be). Tests and benches of their own (`tests/`, `benches/`, `examples/`) aside.

use std::path::{Path, PathBuf};

use syn::visit::Visit;

const MAX_FILE_LINES: usize = 1000;
const MAX_FUNCTION_LINES: usize = 150;

/// A function found in a file: its name, first line and length in lines.
#[derive(Debug)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

#[derive(Default)]
struct Functions {
    found: Vec<Function>,
}

/// `#[cfg(test)]` or `#[test]`.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("test")
            || (a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test"))
    })
}

impl Functions {
    fn record(&mut self, name: &syn::Ident, fn_token: &syn::token::Fn, body: &syn::Block) {
        let first = fn_token.span.start().line;
        let last = body.brace_token.span.close().end().line;
        self.found.push(Function {
            name: name.to_string(),
            line: first,
            lines: last + 1 - first,
        });
    }
}

impl<'ast> Visit<'ast> for Functions {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_test(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test(&f.attrs) {
            self.record(&f.sig.ident, &f.sig.fn_token, &f.block);
            syn::visit::visit_item_fn(self, f);
        }
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test(&f.attrs) {
            self.record(&f.sig.ident, &f.sig.fn_token, &f.block);
            syn::visit::visit_impl_item_fn(self, f);
        }
    }
    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.record(&f.sig.ident, &f.sig.fn_token, body);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

fn functions(source: &str) -> Result<Vec<Function>, syn::Error> {
    let file = syn::parse_file(source)?;
    let mut v = Functions::default();
    v.visit_file(&file);
    Ok(v.found)
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `src/` folder of the workspace's crates.
fn crate_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut dirs = Vec::new();
    for group in ["functions", "shared"] {
        let entries =
            std::fs::read_dir(root.join(group)).unwrap_or_else(|e| panic!("{group}: {e}"));
        for entry in entries.flatten() {
            let src = entry.path().join("src");
            if src.is_dir() {
                dirs.push(src);
            }
        }
    }
    dirs.sort();
    dirs
}

#[test]
fn no_source_file_of_the_workspace_is_over_1000_lines_and_no_function_over_150() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for src in crate_sources() {
        sources(&src, &mut files);
    }
    files.sort();
    let mut failures = Vec::new();
    let mut count = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"));
        let name = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        let lines = text.lines().count();
        if lines > MAX_FILE_LINES {
            failures.push(format!("{name}: {lines} lines (at most {MAX_FILE_LINES})"));
        }
        let found = functions(&text).unwrap_or_else(|e| panic!("{name} does not parse: {e}"));
        count += found.len();
        for f in found.iter().filter(|f| f.lines > MAX_FUNCTION_LINES) {
            failures.push(format!(
                "{name}:{}: fn {} is {} lines (at most {MAX_FUNCTION_LINES})",
                f.line, f.name, f.lines
            ));
        }
    }
    // The scan sees the workspace: every crate, its files, and the functions in them.
    assert!(
        crate_sources().len() >= 20,
        "only {} crates found",
        crate_sources().len()
    );
    assert!(
        files.len() >= 200,
        "only {} source files found",
        files.len()
    );
    assert!(count >= 1500, "only {count} functions found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn functions_are_measured_from_fn_to_their_closing_brace_whatever_their_text_holds() {
    let body = "    let s = \"}}}\"; // }\n".repeat(149);
    let source = format!(
        "impl X {{\n    /// Doc.\n    fn long(&self) {{\n{body}    }}\n}}\n\
         fn short() {{ let _ = r#\"{{\"#; }}\n\
         #[cfg(test)]\nmod tests {{\n    fn ignored() {{\n{body}{body}    }}\n}}\n"
    );
    let found = functions(&source).expect("parses");
    let summary: Vec<(&str, usize, usize)> = found
        .iter()
        .map(|f| (f.name.as_str(), f.line, f.lines))
        .collect();
    assert_eq!(summary, vec![("long", 3, 151), ("short", 155, 1)]);
}

/// Issue 22: a function's `main.rs` is wiring only, at most 15 lines, the rest in the helper of its kind.
#[test]
fn every_function_main_is_at_most_15_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../functions");
    let mut mains = Vec::new();
    for entry in std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
    {
        let main = entry.path().join("src/main.rs");
        if main.is_file() {
            mains.push(main);
        }
    }
    assert!(mains.len() >= 9, "only {} main.rs found", mains.len());
    let long: Vec<String> = mains
        .iter()
        .filter_map(|m| {
            let lines = std::fs::read_to_string(m)
                .unwrap_or_default()
                .lines()
                .count();
            (lines > 15).then(|| format!("{}: {lines} lines", m.display()))
        })
        .collect();
    assert!(long.is_empty(), "{}", long.join("\n"));
}

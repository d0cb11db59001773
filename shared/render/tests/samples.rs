//! The request samples of operation pages, checked by each language's own tools: every generated
//! sample of every operation of every corpus document, and of a hostile fixture whose paths,
//! parameter names, examples and server hold quotes, backslashes, line breaks, `$`, `#{`, `${`,
//! `*/`, control, separator and bidi characters, passes `bash -n` (curl), `node --check`
//! (JavaScript), `python3 -m py_compile`, `gofmt -e`, `javac`, `ruby -c`, `php -l` and `mcs`
//! (C#). Samples are checked in batches (each sample in its own function, class or namespace);
//! a failing batch is checked again sample by sample so the failure names the document, the
//! operation and the language. The tools are `specpress_testkit::Tool::Compilers`: when one is
//! missing the tests fail under `CI=true` and are reported as ignored otherwise. Also: the page
//! shows the document's own samples as escaped text.

mod common;

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use common::{BRANCHES, Fixture, LINKS, corpus_dir, corpus_files, load, parse};
use serde_json::json;
use specpress_render::{CodeSample, Site};

/// Samples per batch file.
const BATCH: usize = 500;

/// One sample to check, with where it comes from.
struct Item {
    whence: String,
    source: String,
}

/// A language's check: how a batch file is written and which command checks it.
struct Lang {
    key: &'static str,
    /// The tool and its arguments before the file names.
    tool: &'static str,
    args: &'static [&'static str],
    /// The file extension of a batch.
    ext: &'static str,
    /// Writes the batch file text of `items`.
    wrap: fn(&[&Item]) -> String,
}

fn indent(s: &str, by: &str) -> String {
    s.lines().map(|l| format!("{by}{l}\n")).collect()
}

fn wrap_shell(items: &[&Item]) -> String {
    items
        .iter()
        .enumerate()
        .map(|(i, it)| format!("sample_{i}() {{\n{}\n}}\n", it.source))
        .collect()
}

fn wrap_js(items: &[&Item]) -> String {
    items
        .iter()
        .enumerate()
        .map(|(i, it)| format!("export async function sample_{i}() {{\n{}\n}}\n", it.source))
        .collect()
}

fn wrap_python(items: &[&Item]) -> String {
    items
        .iter()
        .enumerate()
        .map(|(i, it)| format!("def sample_{i}():\n{}\n", indent(&it.source, "    ")))
        .collect()
}

fn wrap_ruby(items: &[&Item]) -> String {
    items
        .iter()
        .enumerate()
        .map(|(i, it)| format!("def sample_{i}\n{}\nend\n", it.source))
        .collect()
}

fn wrap_php(items: &[&Item]) -> String {
    let mut s = String::from("<?php\n");
    for (i, it) in items.iter().enumerate() {
        let body = it
            .source
            .strip_prefix("<?php\n")
            .unwrap_or("syntax error: no <?php");
        s.push_str(&format!("function sample_{i}() {{\n{body}\n}}\n"));
    }
    s
}

/// Go: one `gofmt` run parses many files, so each sample stays a file of its own (see `check`).
fn wrap_go(items: &[&Item]) -> String {
    items
        .first()
        .map(|it| it.source.clone())
        .unwrap_or_default()
}

/// Java: the imports of all the batch's samples on top, then each sample's class renamed.
fn wrap_java(items: &[&Item]) -> String {
    let mut imports = Vec::new();
    let mut classes = String::new();
    for (i, it) in items.iter().enumerate() {
        for line in it.source.lines() {
            if line.starts_with("import ") {
                if !imports.contains(&line) {
                    imports.push(line);
                }
            } else {
                classes.push_str(&line.replace("public class Main ", &format!("class Main{i} ")));
                classes.push('\n');
            }
        }
    }
    format!("{}\n{classes}", imports.join("\n"))
}

/// C#: each sample in a namespace of its own (its `using` directives inside it).
fn wrap_csharp(items: &[&Item]) -> String {
    items
        .iter()
        .enumerate()
        .map(|(i, it)| format!("namespace Sample{i}\n{{\n{}\n}}\n", it.source))
        .collect()
}

const LANGS: &[Lang] = &[
    Lang {
        key: "curl",
        tool: "bash",
        args: &["-n"],
        ext: "sh",
        wrap: wrap_shell,
    },
    Lang {
        key: "javascript",
        tool: "node",
        args: &["--check"],
        ext: "mjs",
        wrap: wrap_js,
    },
    Lang {
        key: "python",
        tool: "python3",
        args: &["-m", "py_compile"],
        ext: "py",
        wrap: wrap_python,
    },
    Lang {
        key: "go",
        tool: "gofmt",
        args: &["-e", "-l"],
        ext: "go",
        wrap: wrap_go,
    },
    Lang {
        key: "java",
        tool: "javac",
        args: &["-encoding", "UTF-8", "-proc:none", "-nowarn", "-d"],
        ext: "java",
        wrap: wrap_java,
    },
    Lang {
        key: "ruby",
        tool: "ruby",
        args: &["-c"],
        ext: "rb",
        wrap: wrap_ruby,
    },
    Lang {
        key: "php",
        tool: "php",
        args: &["-l"],
        ext: "php",
        wrap: wrap_php,
    },
    Lang {
        key: "csharp",
        tool: "mcs",
        args: &[
            "-target:library",
            "-r:System.Net.Http",
            "-nowarn:1998",
            "-out:",
        ],
        ext: "cs",
        wrap: wrap_csharp,
    },
];

/// Runs the language's tool on `items` written into `dir`; `Err` holds the tool's output.
fn run(lang: &Lang, items: &[&Item], dir: &Path, name: &str) -> Result<(), String> {
    let mut cmd = Command::new(lang.tool);
    match lang.key {
        "java" => {
            cmd.args(lang.args).arg(dir.join(format!("{name}-classes")));
        }
        "csharp" => {
            cmd.args(&lang.args[..lang.args.len() - 1]);
            cmd.arg(format!(
                "-out:{}",
                dir.join(format!("{name}.dll")).display()
            ));
        }
        _ => {
            cmd.args(lang.args);
        }
    }
    if lang.key == "go" {
        // One file per sample, one gofmt run for all of them.
        for (i, it) in items.iter().enumerate() {
            let file = dir.join(format!("{name}-{i}.go"));
            std::fs::write(&file, &it.source).map_err(|e| e.to_string())?;
            cmd.arg(file);
        }
    } else {
        let file = if lang.key == "java" && items.len() == 1 {
            // One sample: checked exactly as a reader would save it.
            let d = dir.join(format!("{name}-single"));
            std::fs::create_dir_all(&d).map_err(|e| e.to_string())?;
            let f = d.join("Main.java");
            std::fs::write(&f, &items[0].source).map_err(|e| e.to_string())?;
            f
        } else {
            let f = dir.join(format!("{name}.{}", lang.ext));
            std::fs::write(&f, (lang.wrap)(items)).map_err(|e| e.to_string())?;
            f
        };
        cmd.arg(file);
    }
    let out = cmd.output().map_err(|e| format!("{}: {e}", lang.tool))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    // gofmt -l lists the files it would reformat on stdout: not an error; errors go to stderr.
    let failed = !out.status.success() || (lang.key == "go" && !stderr.trim().is_empty());
    if failed {
        let stdout = String::from_utf8_lossy(&out.stdout);
        return Err(format!("{stdout}{stderr}"));
    }
    Ok(())
}

/// Checks every item in batches; for a failing batch, finds a failing sample by halving it
/// (a few runs, not one per sample) and returns a message naming its document, operation and
/// language, with the tool's output and the sample.
fn check(lang: &Lang, items: &[Item], dir: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    let refs: Vec<&Item> = items.iter().collect();
    for (b, batch) in refs.chunks(BATCH).enumerate() {
        let name = format!("{}-{b}", lang.key);
        let Err(whole) = run(lang, batch, dir, &name) else {
            continue;
        };
        let mut part = batch;
        let mut round = 0;
        while part.len() > 1 {
            round += 1;
            let (left, right) = part.split_at(part.len() / 2);
            part = if run(lang, left, dir, &format!("{name}-half-{round}")).is_err() {
                left
            } else {
                right
            };
        }
        let it = part[0];
        let out = match run(lang, &[it], dir, &format!("{name}-one")) {
            Err(out) => out,
            Ok(()) => format!("(it passes alone; the batch's output:)\n{whole}"),
        };
        let out: String = out.chars().take(3000).collect();
        failures.push(format!(
            "{} sample of {} fails {}:\n{out}\n--- sample ---\n{}\n",
            lang.key, it.whence, lang.tool, it.source
        ));
    }
    failures
}

/// The generated samples of every operation of `doc`, each language's deduplicated into `out`.
fn collect(
    doc_name: &str,
    doc: &specpress_apispec::Document,
    seen: &mut HashSet<(String, String)>,
    out: &mut Vec<(String, Item)>,
) {
    let site = Site::build(doc);
    for (i, op) in doc.model().operations.values().enumerate() {
        let samples: Vec<CodeSample> = site.request_samples(doc, i);
        for s in samples.into_iter().filter(|s| s.generated) {
            if seen.insert((s.lang.clone(), s.source.clone())) {
                out.push((
                    s.lang,
                    Item {
                        whence: format!("{} {} of {doc_name}", op.key.method, op.path),
                        source: s.source,
                    },
                ));
            }
        }
    }
}

/// Checks `samples` with every language's tool; panics listing every failure.
fn check_all(samples: Vec<(String, Item)>) {
    specpress_testkit::tool(specpress_testkit::Tool::Compilers);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    let mut counts = Vec::new();
    for lang in LANGS {
        let items: Vec<Item> = samples
            .iter()
            .filter(|(k, _)| k == lang.key)
            .map(|(_, it)| Item {
                whence: it.whence.clone(),
                source: it.source.clone(),
            })
            .collect();
        assert!(!items.is_empty(), "no {} sample was generated", lang.key);
        let started = Instant::now();
        failures.extend(check(lang, &items, dir.path()));
        counts.push(format!(
            "{} {} in {:.1}s",
            items.len(),
            lang.key,
            started.elapsed().as_secs_f64()
        ));
    }
    println!("checked: {}", counts.join(", "));
    assert!(
        failures.is_empty(),
        "{} failing batch(es); a failing sample of each:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A document whose every string a sample carries is hostile. (NUL is not here: the parser
/// refuses a document with one, so no sample can meet it.)
fn hostile() -> serde_json::Value {
    let evil = "a'b\"c\\d`e$f${g}#{h}#@i #{) {$) $(j) */ /* <!-- --> \n\r\t\u{1}\u{1b}\u{7f}\u{85}\u{2028}\u{2029}\u{feff}\u{202e}\u{2066} é😀 \\u000a \\\" '''\"\"\" %s {0} ?>";
    let schema = json!({ "type": "object", "properties": {
        evil: { "type": "string", "example": evil },
        "__proto__": { "type": "string", "example": "x" },
        "n": { "type": "integer" } } });
    json!({
        "openapi": "3.1.0",
        "info": { "title": evil, "version": "1" },
        "servers": [ { "url": format!("https://api.example.com/{{v}}{evil}"), "variables": { "v": { "default": evil } } } ],
        "components": { "securitySchemes": {
            "key": { "type": "apiKey", "in": "query", "name": evil },
            "cookie": { "type": "apiKey", "in": "cookie", "name": evil },
            "basic": { "type": "http", "scheme": "basic" },
            "bearer": { "type": "http", "scheme": "bearer" } } },
        "security": [ { "key": [], "cookie": [], "basic": [] } ],
        "paths": {
            format!("/x/{{{evil}}}/{evil}"): {
                "parameters": [
                    { "name": evil, "in": "path", "required": true, "example": evil, "schema": { "type": "string" } },
                    { "name": evil, "in": "query", "required": true, "example": evil, "schema": { "type": "string" } },
                    { "name": evil, "in": "header", "required": true, "example": evil, "schema": { "type": "string" } },
                    { "name": evil, "in": "cookie", "required": true, "example": evil, "schema": { "type": "string" } } ],
                "post": {
                    "x-codeSamples": [ { "lang": evil, "label": evil, "source": format!("</script><script>alert(1)</script>{evil}") } ],
                    "requestBody": { "content": { format!("application/json; x={evil}"): { "schema": schema.clone(),
                        "example": { evil: [evil, 1, true, null, { evil: {} }, []], "__proto__": { "a": evil }, "deep": [[[[[1]]]]] } } } },
                    "responses": { "200": { "description": evil } } },
                "put": {
                    "security": [ { "bearer": [] } ],
                    "requestBody": { "content": { "application/x-www-form-urlencoded": { "schema": schema.clone() } } },
                    "responses": { "200": { "description": "ok" } } },
                "patch": {
                    "requestBody": { "content": { "multipart/form-data": { "schema": schema } } },
                    "responses": { "200": { "description": "ok" } } },
                "delete": {
                    "requestBody": { "content": { "application/octet-stream": { "schema": { "type": "string", "format": "binary" } } } },
                    "responses": { "204": { "description": "gone" } } },
                "get": { "responses": { "200": { "description": "ok" } } }
            }
        }
    })
}

#[test]
#[cfg_attr(
    missing_compilers,
    ignore = "needs the compilers of the samples (scripts/install-tools.sh)"
)]
fn every_generated_sample_of_a_hostile_document_passes_its_languages_syntax_check() {
    let doc = parse(&hostile().to_string());
    let mut seen = HashSet::new();
    let mut samples = Vec::new();
    collect("the hostile fixture", &doc, &mut seen, &mut samples);
    for (lang, it) in &samples {
        println!("--- {lang}: {}\n{}", it.whence, it.source);
    }
    assert_eq!(
        samples.len(),
        5 * 8,
        "five operations, eight languages, all different"
    );
    check_all(samples);
}

#[test]
#[cfg_attr(
    any(missing_compilers, missing_corpus),
    ignore = "needs the compilers of the samples (scripts/install-tools.sh) and the API corpus (SPECPRESS_CORPUS)"
)]
fn every_generated_sample_of_every_corpus_operation_passes_its_languages_syntax_check() {
    let dir = corpus_dir();
    let started = Instant::now();
    let mut seen = HashSet::new();
    let mut samples = Vec::new();
    let mut docs = 0;
    for path in corpus_files(&dir) {
        let doc = load(&path);
        if doc.model().operations.is_empty() {
            continue;
        }
        docs += 1;
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        collect(&name, &doc, &mut seen, &mut samples);
    }
    assert!(docs > 0, "no corpus document has operations");
    println!(
        "{docs} documents, {} distinct samples, generated in {:.1}s",
        samples.len(),
        started.elapsed().as_secs_f64()
    );
    check_all(samples);
    println!(
        "corpus samples checked in {:.1}s",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn the_documents_own_samples_come_first_labelled_and_are_shown_as_escaped_text() {
    let doc_json = hostile();
    let doc = parse(&doc_json.to_string());
    let site = Site::build(&doc);
    let i = doc
        .model()
        .operations
        .values()
        .position(|o| o.key.method.eq_ignore_ascii_case("post"))
        .expect("post");
    let samples = site.request_samples(&doc, i);
    assert!(!samples[0].generated && samples[0].source.starts_with("</script>"));
    let langs: Vec<&str> = samples.iter().skip(1).map(|s| s.lang.as_str()).collect();
    assert_eq!(
        langs,
        [
            "curl",
            "javascript",
            "python",
            "go",
            "java",
            "ruby",
            "php",
            "csharp"
        ]
    );
    let (_, op) = doc.model().operations.get_index(i).expect("operation");
    let page = site
        .operation_page(&doc, &op.key.method, &op.path)
        .expect("page");
    let fx = Fixture::new();
    let ctx = fx.ctx(BRANCHES, LINKS, "Hostile");
    let html = site.render(&doc, &page, &ctx).html;
    assert!(
        html.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
        "escaped source"
    );
    assert!(
        !html.contains("<script>alert"),
        "the document's sample is never markup"
    );
    assert!(html.contains("<section class=\"opr\""), "second pane");
    assert!(
        html.contains("from the API"),
        "the document's sample is labelled"
    );
    for lang in [
        "curl",
        "javascript",
        "python",
        "go",
        "java",
        "ruby",
        "php",
        "csharp",
    ] {
        assert!(
            html.contains(&format!("<details class=\"smp\" data-lang=\"{lang}\"")),
            "{lang}"
        );
    }
}

//! `cargo run --release -p specpress-apispec --example spec-dump -- OUT_DIR`: writes everything the spec engine's public
//! API yields for every document it can find, so that a change which must not alter behaviour (a refactoring) is
//! checked by comparing two folders byte for byte (`diff -r BEFORE AFTER`).
//!
//! The documents:
//! - every `.json`, `.yaml` and `.yml` file of the corpus (`SPECPRESS_CORPUS`, default `<repo>/../shared/corpus`),
//!   read with budgets large enough for the biggest of them and once more with the default budgets;
//! - every string and byte-string literal of the crate's tests (`tests/**/*.rs` but `size.rs`, which holds no
//!   document; parsed with `syn`, macro arguments included), each read alone and, when the test function it is written in builds a `Reference`
//!   table from literals, with that table too; a literal with `{{`/`}}` (a `format!` template) is read a second
//!   time with them unescaped; under the default budgets and under budgets that allow aliases;
//! - a few deterministic mutations of each literal (bytes changed, cut, repeated, structural characters
//!   inserted), read with `parse_bytes` next to a small reference file, for the error paths and their positions.
//!
//! For each: the error (every diagnostic with its code, pointer, line and column) or the document: version,
//! format, specification, title, version, description, files, `Debug`, fingerprint, the normalized model,
//! `validate()`, every file as JSON, every `$ref` with its target and where it resolves, every location of the
//! model resolved; for `check`, `parse_owned` and `parse_bytes` the same, each part that equals `parse`'s written
//! as `= parse`. For YAML corpus files, what each YAML reader makes of the text (`compare_readers`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use specpress_apispec::{
    ApiModel, Document, FileId, Invalid, Kind, Limits, Location, Operation, Reference, V, check,
    compare_readers, parse, parse_bytes, parse_owned,
};
use syn::visit::Visit;

type Sections = Vec<(&'static str, String)>;

fn errors(e: &Invalid) -> String {
    let mut out = format!("error: {e}\n");
    for d in &e.diagnostics {
        let _ = writeln!(out, "{d:?}\n  {d}");
    }
    out
}

fn push_location(doc: &Document, loc: &Location, out: &mut String) {
    let _ = write!(out, "{}#{} -> ", loc.file.0, loc.pointer);
    match doc.resolve(loc) {
        Ok((at, v)) => {
            let _ = writeln!(out, "{}#{} {}", at.file.0, at.pointer, kind_name(v));
        }
        Err(e) => {
            let _ = writeln!(out, "error {e}");
        }
    }
}

fn kind_name(v: V<'_>) -> &'static str {
    match v.kind() {
        Kind::Null => "null",
        Kind::Bool(_) => "bool",
        Kind::Number(_) => "number",
        Kind::String(_) => "string",
        Kind::Array(_) => "array",
        Kind::Object(_) => "object",
    }
}

/// Every location an operation of the model holds, callbacks included.
fn operation_locations<'m>(op: &'m Operation, out: &mut Vec<&'m Location>) {
    out.push(&op.source);
    for p in &op.parameters {
        out.push(&p.source);
        out.extend(&p.schema);
        for m in p.content.values() {
            out.push(&m.source);
            out.extend(&m.schema);
            out.extend(&m.encoding);
        }
    }
    if let Some(b) = &op.request_body {
        out.push(&b.source);
        for m in b.content.values() {
            out.push(&m.source);
            out.extend(&m.schema);
            out.extend(&m.encoding);
        }
    }
    for r in op.responses.values() {
        out.push(&r.source);
        for h in r.headers.values() {
            out.push(&h.source);
            out.extend(&h.schema);
        }
        for m in r.content.values() {
            out.push(&m.source);
            out.extend(&m.schema);
            out.extend(&m.encoding);
        }
    }
    for list in op.callbacks.values() {
        for cb in list {
            operation_locations(cb, out);
        }
    }
}

fn model_locations(model: &ApiModel) -> Vec<&Location> {
    let mut out = Vec::new();
    for op in model.operations.values() {
        operation_locations(op, &mut out);
    }
    for op in model.message_operations.values() {
        out.push(&op.source);
        for m in op.messages.values() {
            out.push(&m.source);
            out.extend(&m.payload);
            out.extend(&m.headers);
        }
    }
    for ch in model.channels.values() {
        out.push(&ch.source);
        for p in ch.parameters.values().flatten() {
            out.push(p);
        }
    }
    out.extend(model.security_schemes.values().map(|s| &s.source));
    out.extend(model.schemas.values());
    out
}

/// Every `$ref` of every file: where it is written, its target and where its chain ends.
fn refs(doc: &Document) -> String {
    let mut out = String::new();
    for f in 0..doc.file_count() {
        let file = FileId(f as u32);
        let Some(root) = doc.value(&Location::root(file)) else {
            let _ = writeln!(out, "file {f}: no root");
            continue;
        };
        let mut stack = vec![(Location::root(file), root)];
        while let Some((loc, v)) = stack.pop() {
            match v.kind() {
                Kind::Object(m) => {
                    if let Some(r) = m.get("$ref").and_then(V::as_str) {
                        let target = match doc.ref_target(file, r) {
                            Ok(t) => format!("{}#{}", t.file.0, t.pointer),
                            Err(e) => format!("error {e}"),
                        };
                        let _ = write!(out, "{f}#{} $ref {r:?} target {target}; ", loc.pointer);
                        push_location(doc, &loc, &mut out);
                    }
                    for (k, child) in m.iter().rev() {
                        if child.is_object() || child.is_array() {
                            stack.push((loc.child(k), child));
                        }
                    }
                }
                Kind::Array(a) => {
                    for (i, child) in a.iter().enumerate().rev() {
                        if child.is_object() || child.is_array() {
                            stack.push((loc.index(i), child));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// Everything a document yields, part by part.
fn describe(doc: &Document) -> Sections {
    let mut summary = String::new();
    let _ = writeln!(summary, "version: {:?}", doc.version());
    let _ = writeln!(
        summary,
        "spec_version_string: {}",
        doc.spec_version_string()
    );
    let _ = writeln!(summary, "format: {:?}", doc.format());
    let _ = writeln!(summary, "specification: {}", doc.specification());
    let _ = writeln!(summary, "title: {}", doc.title());
    let _ = writeln!(summary, "api_version: {}", doc.api_version());
    let _ = writeln!(summary, "description: {:?}", doc.description());
    let _ = writeln!(summary, "file_count: {}", doc.file_count());
    for f in 0..doc.file_count() + 1 {
        let _ = writeln!(
            summary,
            "file_name({f}): {:?}",
            doc.file_name(FileId(f as u32))
        );
    }
    let _ = writeln!(summary, "debug: {doc:?}");
    let _ = writeln!(summary, "fingerprint: {}", doc.fingerprint_hex());
    let _ = writeln!(summary, "fingerprint bytes: {:?}", doc.fingerprint());
    let mut validate = String::new();
    for d in doc.validate() {
        let _ = writeln!(validate, "{d:?}\n  {d}");
    }
    let mut files = String::new();
    for f in 0..doc.file_count() {
        let root = doc.value(&Location::root(FileId(f as u32)));
        let _ = writeln!(
            files,
            "file {f}: {}",
            root.map(|v| v.to_string()).unwrap_or_default()
        );
    }
    let mut resolved = String::new();
    for loc in model_locations(doc.model()) {
        push_location(doc, loc, &mut resolved);
    }
    push_location(doc, &Location::root(FileId::ROOT), &mut resolved);
    vec![
        ("summary", summary),
        ("model", format!("{:#?}\n", doc.model())),
        ("validate", validate),
        ("to_json", doc.to_json() + "\n"),
        ("files", files),
        ("refs", refs(doc)),
        ("resolved", resolved),
    ]
}

fn outcome(r: &Result<Document, Invalid>) -> Sections {
    match r {
        Ok(doc) => describe(doc),
        Err(e) => vec![("error", errors(e))],
    }
}

/// `sections` under `title`; a part equal to the same part of `base` is written `= parse`.
fn write_sections(out: &mut String, title: &str, sections: &Sections, base: Option<&Sections>) {
    for (name, text) in sections {
        let same = base
            .and_then(|b| b.iter().find(|(n, _)| n == name))
            .is_some_and(|(_, t)| t == text);
        if same {
            let _ = writeln!(out, "## {title} {name} = parse");
        } else {
            let _ = write!(out, "## {title} {name}\n{text}");
        }
    }
}

/// Every entry point on one input, written as one text.
fn run_all(definition: &str, references: &[Reference], limits: &Limits) -> String {
    let mut out = String::new();
    let parsed = outcome(&parse(definition, references, limits));
    write_sections(&mut out, "parse", &parsed, None);
    let checked = outcome(&check(definition, references, limits));
    write_sections(&mut out, "check", &checked, Some(&parsed));
    let owned = outcome(&parse_owned(
        definition.to_string(),
        references.to_vec(),
        limits,
    ));
    write_sections(&mut out, "parse_owned", &owned, Some(&parsed));
    let bytes = outcome(&parse_bytes(definition.as_bytes(), references, limits));
    write_sections(&mut out, "parse_bytes", &bytes, Some(&parsed));
    out
}

fn yaml_readers(text: &str) -> String {
    let r = compare_readers(text);
    let mut out = String::new();
    let _ = writeln!(out, "## load\n{:?}", r.load);
    for (name, reading) in [
        ("block", r.block.clone().ok_or_else(String::new)),
        ("saphyr", r.saphyr.clone()),
    ] {
        if reading == r.load {
            let _ = writeln!(out, "## {name} = load");
        } else {
            let _ = writeln!(out, "## {name}\n{reading:?}");
        }
    }
    out
}

fn slug(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn corpus(dir: &Path, out: &Path) -> std::io::Result<usize> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)?.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e, "json" | "yaml" | "yml"))
            {
                files.push(p);
            }
        }
    }
    files.sort();
    let big = Limits {
        max_bytes: 64 * 1024 * 1024,
        ..Limits::default()
    };
    for path in &files {
        let rel = path.strip_prefix(dir).unwrap_or(path).display().to_string();
        let text = std::fs::read_to_string(path)?;
        let mut text_out = run_all(&text, &[], &big);
        text_out.push_str("## default budgets\n");
        match parse(&text, &[], &Limits::default()) {
            Ok(doc) => {
                let _ = writeln!(text_out, "ok {}", doc.fingerprint_hex());
            }
            Err(e) => text_out.push_str(&errors(&e)),
        }
        if !rel.ends_with(".json") {
            text_out.push_str(&yaml_readers(&text));
        }
        std::fs::write(out.join(format!("{}.txt", slug(&rel))), text_out)?;
        eprintln!("{rel}");
    }
    Ok(files.len())
}

// ------------------------------------------------------------------ test fixtures

/// The literals of one test file, in order, and the reference tables its functions build.
#[derive(Default)]
struct Literals {
    /// (text, enclosing function).
    found: Vec<(Vec<u8>, String)>,
    /// Function name -> references built from literals in it.
    references: Vec<(String, Reference)>,
    function: String,
}

impl Literals {
    fn add(&mut self, bytes: Vec<u8>) {
        let function = self.function.clone();
        self.found.push((bytes, function));
    }

    fn add_tokens(&mut self, tokens: proc_macro2::TokenStream) {
        for t in tokens {
            match t {
                proc_macro2::TokenTree::Group(g) => self.add_tokens(g.stream()),
                proc_macro2::TokenTree::Literal(l) => match syn::Lit::new(l) {
                    syn::Lit::Str(s) => self.add(s.value().into_bytes()),
                    syn::Lit::ByteStr(b) => self.add(b.value()),
                    _ => {}
                },
                _ => {}
            }
        }
    }
}

/// The text of `"x"`, `"x".into()`, `"x".to_string()`, `String::from("x")`.
fn literal_of(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        syn::Expr::MethodCall(m) if m.args.is_empty() => literal_of(&m.receiver),
        syn::Expr::Call(c) if c.args.len() == 1 => c.args.first().and_then(literal_of),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for Literals {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let outer = std::mem::replace(&mut self.function, f.sig.ident.to_string());
        syn::visit::visit_item_fn(self, f);
        self.function = outer;
    }
    fn visit_lit_str(&mut self, s: &'ast syn::LitStr) {
        self.add(s.value().into_bytes());
    }
    fn visit_lit_byte_str(&mut self, b: &'ast syn::LitByteStr) {
        self.add(b.value());
    }
    /// Macro arguments that are expressions (`vec![...]`, `assert_eq!(...)`, `format!(...)`) are visited as
    /// such, so that a `Reference` built inside `vec![...]` is found; other macros' literals are read from their
    /// tokens.
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let args = m.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        );
        match args {
            Ok(args) => {
                for e in &args {
                    self.visit_expr(e);
                }
            }
            Err(_) => self.add_tokens(m.tokens.clone()),
        }
    }
    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        if s.path
            .segments
            .last()
            .is_some_and(|p| p.ident == "Reference")
        {
            let field = |name: &str| {
                s.fields.iter().find_map(|f| match &f.member {
                    syn::Member::Named(i) if i == name => literal_of(&f.expr),
                    _ => None,
                })
            };
            if let (Some(location), Some(content)) = (field("location"), field("content")) {
                self.references.push((
                    self.function.clone(),
                    Reference {
                        location,
                        content,
                        name: None,
                    },
                ));
            }
        }
        syn::visit::visit_expr_struct(self, s);
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const INSERTS: [&[u8]; 10] = [
    b"{",
    b"[",
    b"}",
    b"]",
    b":",
    b"&a ",
    b"*a",
    b"\"",
    b"$ref: '#/'",
    b"\n  - ",
];

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(v.len() + 1);
        match rng.below(5) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] = rng.next() as u8;
            }
            1 => v.truncate(at),
            2 => {
                let end = (at + rng.below(40)).min(v.len());
                let chunk = v[at.min(end)..end].to_vec();
                for _ in 0..rng.below(6) {
                    v.splice(at..at, chunk.iter().copied());
                }
            }
            3 => {
                let ins = INSERTS[rng.below(INSERTS.len())];
                v.splice(at..at, ins.iter().copied());
            }
            _ => {
                let end = (at + rng.below(20)).min(v.len());
                v.drain(at.min(end)..end);
            }
        }
    }
    v
}

const MUTATIONS: usize = 12;

fn fixture(text: &[u8], references: &[Reference], seed: u64) -> String {
    let mut out = String::new();
    let aliases = Limits {
        allow_aliases: true,
        max_aliases: 16,
        max_nodes: 50_000,
        ..Limits::default()
    };
    match std::str::from_utf8(text) {
        Ok(s) => {
            let mut variants = vec![s.to_string()];
            if s.contains("{{") || s.contains("}}") {
                variants.push(s.replace("{{", "{").replace("}}", "}"));
            }
            for (i, v) in variants.iter().enumerate() {
                let _ = writeln!(out, "# variant {i}, default budgets, no references");
                out.push_str(&run_all(v, &[], &Limits::default()));
                let _ = writeln!(out, "# variant {i}, aliases allowed, no references");
                out.push_str(&run_all(v, &[], &aliases));
                if !references.is_empty() {
                    let _ = writeln!(out, "# variant {i}, default budgets, the test's references");
                    out.push_str(&run_all(v, references, &Limits::default()));
                }
            }
        }
        Err(_) => {
            let _ = writeln!(out, "# not UTF-8");
            out.push_str(&outcome_text(&parse_bytes(
                text,
                references,
                &Limits::default(),
            )));
        }
    }
    let reference = [Reference {
        location: "ref.yaml".into(),
        content: "X: {type: string}\n".into(),
        name: None,
    }];
    let mut rng = Rng(seed | 1);
    for m in 0..MUTATIONS {
        let input = mutate(&mut rng, text);
        let _ = writeln!(out, "# mutation {m}: {:?}", String::from_utf8_lossy(&input));
        out.push_str(&outcome_text(&parse_bytes(&input, &reference, &aliases)));
    }
    out
}

fn outcome_text(r: &Result<Document, Invalid>) -> String {
    let mut out = String::new();
    write_sections(&mut out, "parse_bytes", &outcome(r), None);
    out
}

fn fixtures(tests: &Path, out: &Path) -> std::io::Result<usize> {
    let mut sources = Vec::new();
    let mut stack = vec![tests.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)?.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") && !p.ends_with("size.rs") {
                sources.push(p);
            }
        }
    }
    sources.sort();
    let mut seen = std::collections::HashSet::new();
    let mut written = 0;
    for path in &sources {
        let source = std::fs::read_to_string(path)?;
        let file = syn::parse_file(&source)
            .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
        let mut lits = Literals::default();
        lits.visit_file(&file);
        let name = slug(
            &path
                .strip_prefix(tests)
                .unwrap_or(path)
                .display()
                .to_string(),
        );
        for (i, (text, function)) in lits.found.iter().enumerate() {
            if text.is_empty() || !seen.insert(text.clone()) {
                continue;
            }
            let references: Vec<Reference> = lits
                .references
                .iter()
                .filter(|(f, _)| f == function)
                .map(|(_, r)| r.clone())
                .collect();
            let body = fixture(text, &references, written as u64 * 7919 + i as u64);
            let head = format!("# {name} literal {i} in fn {function}\n");
            std::fs::write(out.join(format!("{name}_{i:04}.txt")), head + &body)?;
            written += 1;
        }
        eprintln!("{name}: {} literals", lits.found.len());
    }
    Ok(written)
}

fn main() -> std::io::Result<()> {
    let Some(out) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: dump OUT_DIR");
        std::process::exit(2);
    };
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(out.join("fixtures"))?;
    let n = fixtures(&manifest.join("tests"), &out.join("fixtures"))?;
    eprintln!("{n} test literals written");
    let dir = std::env::var_os("SPECPRESS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../../shared/corpus"));
    if !dir.join("README.md").is_file() {
        eprintln!(
            "corpus folder {} not found: only the test literals were written",
            dir.display()
        );
        return Ok(());
    }
    std::fs::create_dir_all(out.join("corpus"))?;
    let n = corpus(&dir, &out.join("corpus"))?;
    eprintln!("{n} corpus documents written");
    Ok(())
}

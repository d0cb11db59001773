//! Issue 27: no import circle among the source files of a crate. Every crate of the workspace (the library and
//! binaries under `functions/*/src`, `shared/*/src` and `tests/src`) is read as rustc reads it: from its root
//! (`lib.rs`, `main.rs`, `bin/*.rs`) through its `mod` declarations (`name.rs` + `name/`, `name/mod.rs`, inline
//! `mod name { .. }` nesting). Each file's references to other modules of its crate become edges between files:
//! `use` trees, paths in code (`crate::a::b::X`, `super::f`, `self::x::Y`), paths written inside macro invocations,
//! and paths through a name a `use` brought in. A path goes to the file of the deepest module it names (an inline
//! module is its file's). Visibilities (`pub(crate)`, `pub(super)`) use nothing and are no reference; neither is
//! a `macro_rules!` macro called by name (its textual scope is not a path).
//!
//! A module file reaching into its own subtree is the tree, not an import: `mod child;` and `child::f()` or
//! `pub use self::child::X` in the parent are no edge. A file using a module outside its subtree is an edge, its
//! parent (`super::`) or the crate root (`crate::State`) included. Circles are the strongly connected components of
//! that graph (Tarjan); each is printed as a walk along its edges, `crate: a.rs -> b.rs -> a.rs`, with the
//! reference behind each step.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// A crate's source files, by path under `src/` (`site/build.rs`), and their text.
type Sources = BTreeMap<String, String>;

/// A module path from the crate root (`["site", "build"]`; the root is empty).
type ModPath = Vec<String>;

/// One source file of a crate: its name under `src/` and the path of the module it is.
struct File {
    name: String,
    module: ModPath,
    ast: syn::File,
}

/// A crate's module tree: its files and every module (inline ones included), each with the file that holds it.
struct Tree {
    files: Vec<File>,
    modules: HashMap<ModPath, usize>,
}

/// An edge between two files, with the first reference that makes it: its line and its path as written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reference {
    line: usize,
    path: String,
}

/// The file graph of one crate: edges from file to file (indices into `Tree::files`).
struct Graph {
    names: Vec<String>,
    edges: BTreeMap<(usize, usize), Reference>,
}

/// The `#[path = "..."]` of a module declaration.
fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// The folder, under `src/`, where the files of `file`'s child modules live: beside a crate root or a `mod.rs`,
/// in `name/` for `name.rs`.
fn children_dir(file: &str, is_root: bool) -> String {
    let (dir, base) = match file.rsplit_once('/') {
        Some((d, b)) => (d.to_owned(), b),
        None => (String::new(), file),
    };
    if is_root || base == "mod.rs" {
        dir
    } else {
        let stem = base.trim_end_matches(".rs");
        if dir.is_empty() {
            stem.to_owned()
        } else {
            format!("{dir}/{stem}")
        }
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// Reads a crate from its root file: every file its `mod` declarations reach.
fn load_tree(sources: &Sources, root: &str) -> Result<Tree, String> {
    let mut tree = Tree {
        files: Vec::new(),
        modules: HashMap::new(),
    };
    load_file(sources, root, Vec::new(), true, &mut tree)?;
    Ok(tree)
}

fn load_file(
    sources: &Sources,
    name: &str,
    module: ModPath,
    is_root: bool,
    tree: &mut Tree,
) -> Result<(), String> {
    let text = sources
        .get(name)
        .ok_or_else(|| format!("{name}: declared as a module but not found"))?;
    let ast = syn::parse_file(text).map_err(|e| format!("{name} does not parse: {e}"))?;
    let dir = children_dir(name, is_root);
    let file_dir = name.rsplit_once('/').map_or("", |(d, _)| d);
    let mut inline = Vec::new();
    let mut children = Vec::new();
    declarations(
        sources,
        &ast.items,
        &module,
        &dir,
        file_dir,
        &mut inline,
        &mut children,
    );
    let index = tree.files.len();
    tree.modules.insert(module.clone(), index);
    for m in inline {
        tree.modules.insert(m, index);
    }
    tree.files.push(File {
        name: name.to_owned(),
        module,
        ast,
    });
    for (child, file) in children {
        load_file(sources, &file, child, false, tree)?;
    }
    Ok(())
}

/// The module declarations of a file (or of an inline module in it): inline modules, and file modules with the
/// file each is read from.
fn declarations(
    sources: &Sources,
    items: &[syn::Item],
    module: &ModPath,
    dir: &str,
    file_dir: &str,
    inline: &mut Vec<ModPath>,
    children: &mut Vec<(ModPath, String)>,
) {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        let name = m.ident.to_string();
        let mut child = module.clone();
        child.push(name.clone());
        match &m.content {
            Some((_, items)) => {
                inline.push(child.clone());
                let inner_dir = join(dir, &name);
                declarations(
                    sources, items, &child, &inner_dir, file_dir, inline, children,
                );
            }
            None => {
                let file = match path_attribute(&m.attrs) {
                    // `#[path]` is taken relative to the declaring file's folder (how rustc reads it outside
                    // inline modules, the only place this workspace could use it).
                    Some(p) => join(file_dir, &p),
                    None => {
                        let flat = join(dir, &format!("{name}.rs"));
                        if sources.contains_key(&flat) {
                            flat
                        } else {
                            join(dir, &format!("{name}/mod.rs"))
                        }
                    }
                };
                children.push((child, file));
            }
        }
    }
}

/// A path as written, in the module it is written in.
struct RawPath {
    context: ModPath,
    segments: Vec<String>,
    line: usize,
}

/// What a `use` brings into a module: the name, and the path it stands for (as written).
struct UseName {
    context: ModPath,
    name: String,
    segments: Vec<String>,
}

/// Collects the paths of one file, with the module each is written in.
struct Collector {
    context: ModPath,
    paths: Vec<RawPath>,
    names: Vec<UseName>,
}

impl Collector {
    fn record(&mut self, segments: Vec<String>, line: usize) {
        if !segments.is_empty() {
            self.paths.push(RawPath {
                context: self.context.clone(),
                segments,
                line,
            });
        }
    }

    /// Flattens a `use` tree into its leaf paths, and records the names it brings in.
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree, line: usize) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree, line);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                let mut full = prefix.clone();
                if name != "self" {
                    full.push(name.clone());
                }
                let bound = if name == "self" {
                    prefix.last().cloned().unwrap_or_default()
                } else {
                    name
                };
                self.bind(bound, full.clone());
                self.record(full, line);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                self.bind(r.rename.to_string(), full.clone());
                self.record(full, line);
            }
            syn::UseTree::Glob(_) => self.record(prefix.clone(), line),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t, line);
                }
            }
        }
    }

    fn bind(&mut self, name: String, segments: Vec<String>) {
        if !name.is_empty() && name != "_" {
            self.names.push(UseName {
                context: self.context.clone(),
                name,
                segments,
            });
        }
    }

    /// Paths written inside a macro invocation (`format!("{}", crate::a::X)`): runs of `ident :: ident ...`
    /// that do not follow a `::` (so `std::a::b` gives `std::a::b`, never `a::b`).
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let is_colon =
            |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ':');
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => {
                    self.tokens(g.stream());
                    i += 1;
                }
                TokenTree::Ident(first)
                    if !(i >= 2 && is_colon(trees.get(i - 1)) && is_colon(trees.get(i - 2))) =>
                {
                    let line = first.span().start().line;
                    let mut segments = vec![first.to_string()];
                    let mut j = i + 1;
                    while is_colon(trees.get(j)) && is_colon(trees.get(j + 1)) {
                        match trees.get(j + 2) {
                            Some(TokenTree::Ident(next)) => {
                                segments.push(next.to_string());
                                j += 3;
                            }
                            _ => break,
                        }
                    }
                    if segments.len() > 1 {
                        self.record(segments, line);
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.context.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.context.pop();
    }
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if u.leading_colon.is_none() {
            let line = u.use_token.span.start().line;
            self.use_tree(&mut Vec::new(), &u.tree, line);
        }
    }
    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none()
            && let Some(first) = p.segments.first()
        {
            let line = first.ident.span().start().line;
            let segments = p.segments.iter().map(|s| s.ident.to_string()).collect();
            self.record(segments, line);
        }
        syn::visit::visit_path(self, p);
    }
    // `pub(crate)`, `pub(super)`, `pub(in crate::a)` say who may see an item; they use nothing.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }
}

/// The module a path written in `context` names, from the crate root; `None` when it leaves the crate (an extern
/// crate, `std`, a local item, a generic).
fn absolute(
    names: &HashMap<(ModPath, String), Vec<String>>,
    context: &[String],
    segments: &[String],
    depth: usize,
) -> Option<ModPath> {
    let first = segments.first()?;
    let rest = || segments[1..].to_vec();
    match first.as_str() {
        "crate" => Some(rest()),
        "self" => Some([context, &segments[1..]].concat()),
        "super" => {
            let ups = segments.iter().take_while(|s| *s == "super").count();
            let base = context.get(..context.len().checked_sub(ups)?)?;
            Some([base, &segments[ups..]].concat())
        }
        "Self" => None,
        // A path starting with a child module's name (`child::f`) stays in the file's own subtree: never an edge.
        // Otherwise the first name may be one a `use` brought into this module, written relative to it.
        name => {
            let bound = names.get(&(context.to_vec(), name.to_owned()))?;
            if depth > 4 {
                return None;
            }
            let target = absolute(names, context, bound, depth + 1)?;
            Some([target, rest()].concat())
        }
    }
}

/// The file that holds the deepest module a path names.
fn file_of(tree: &Tree, module: &[String]) -> usize {
    (0..=module.len())
        .rev()
        .find_map(|n| tree.modules.get(&module[..n]).copied())
        .unwrap_or(0)
}

/// The graph of a crate's files: who uses whom, outside the tree's own parent-to-subtree links.
fn file_graph(tree: &Tree) -> Graph {
    let mut raw: Vec<(usize, RawPath)> = Vec::new();
    let mut names = HashMap::new();
    for (index, file) in tree.files.iter().enumerate() {
        let mut c = Collector {
            context: file.module.clone(),
            paths: Vec::new(),
            names: Vec::new(),
        };
        c.visit_file(&file.ast);
        for n in c.names {
            names.entry((n.context, n.name)).or_insert(n.segments);
        }
        raw.extend(c.paths.into_iter().map(|p| (index, p)));
    }
    let mut edges = BTreeMap::new();
    for (from, p) in raw {
        let Some(module) = absolute(&names, &p.context, &p.segments, 0) else {
            continue;
        };
        let to = file_of(tree, &module);
        let (own, target) = (&tree.files[from].module, &tree.files[to].module);
        let in_subtree = target.len() > own.len() && target.starts_with(own);
        if to != from && !in_subtree {
            edges.entry((from, to)).or_insert(Reference {
                line: p.line,
                path: p.segments.join("::"),
            });
        }
    }
    Graph {
        names: tree.files.iter().map(|f| f.name.clone()).collect(),
        edges,
    }
}

/// Tarjan's strongly connected components with more than one file, each sorted, in order of their first file.
fn circles(graph: &Graph) -> Vec<Vec<usize>> {
    struct State<'g> {
        next: &'g [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        found: Vec<Vec<usize>>,
    }
    fn connect(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.counter);
        s.low[v] = s.counter;
        s.counter += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.next[v].iter() {
            match s.index[w] {
                None => {
                    connect(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort_unstable();
                s.found.push(component);
            }
        }
    }
    let n = graph.names.len();
    let mut next = vec![Vec::new(); n];
    for &(a, b) in graph.edges.keys() {
        next[a].push(b);
    }
    let mut s = State {
        next: &next,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        counter: 0,
        found: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            connect(&mut s, v);
        }
    }
    s.found.sort();
    s.found
}

/// The shortest path inside `inside` from `from` to `to` (back to `from` itself when `to == from`), without
/// `from`.
fn shortest(graph: &Graph, inside: &BTreeSet<usize>, from: usize, to: usize) -> Vec<usize> {
    let successors = |v: usize| {
        graph
            .edges
            .range((v, 0)..=(v, usize::MAX))
            .map(|(&(_, b), _)| b)
            .filter(|b| inside.contains(b))
    };
    // Seeded with the successors of `from`, so that a way back to `from` is found too.
    let mut before: HashMap<usize, usize> = HashMap::new();
    let mut queue = VecDeque::new();
    for b in successors(from) {
        before.entry(b).or_insert(from);
        queue.push_back(b);
    }
    while let Some(v) = queue.pop_front() {
        if v == to {
            break;
        }
        for b in successors(v) {
            if let std::collections::hash_map::Entry::Vacant(e) = before.entry(b) {
                e.insert(v);
                queue.push_back(b);
            }
        }
    }
    let mut path = vec![to];
    let mut at = to;
    while let Some(&p) = before.get(&at) {
        if p == from {
            break;
        }
        path.push(p);
        at = p;
    }
    path.reverse();
    path
}

/// A closed walk along the edges of a circle through all its files: from the first to each file not yet passed,
/// in turn, by shortest paths inside the circle, then back to the first.
fn walk(graph: &Graph, component: &[usize]) -> Vec<usize> {
    let inside: BTreeSet<usize> = component.iter().copied().collect();
    let start = component[0];
    let mut route = vec![start];
    for &target in &component[1..] {
        if !route.contains(&target) {
            let here = route[route.len() - 1];
            route.extend(shortest(graph, &inside, here, target));
        }
    }
    let here = route[route.len() - 1];
    route.extend(shortest(graph, &inside, here, start));
    route
}

/// Every circle of a crate as `label: a.rs -> b.rs -> a.rs`, each followed by the reference behind each step.
fn describe(label: &str, graph: &Graph) -> Vec<String> {
    circles(graph)
        .iter()
        .map(|component| {
            let route = walk(graph, component);
            let names: Vec<&str> = route.iter().map(|&i| graph.names[i].as_str()).collect();
            let mut text = format!("{label}: {}", names.join(" -> "));
            let mut shown = BTreeSet::new();
            for pair in route.windows(2) {
                if shown.insert((pair[0], pair[1]))
                    && let Some(r) = graph.edges.get(&(pair[0], pair[1]))
                {
                    text.push_str(&format!(
                        "\n    {}:{} uses {}",
                        graph.names[pair[0]], r.line, r.path
                    ));
                }
            }
            text
        })
        .collect()
}

/// Every `.rs` file under `dir`, by path relative to it.
fn read_sources(dir: &Path) -> Sources {
    fn walk_dir(root: &Path, dir: &Path, out: &mut Sources) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk_dir(root, &path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                let name = rel.to_string_lossy().replace('\\', "/");
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                out.insert(name, text);
            }
        }
    }
    let mut out = Sources::new();
    walk_dir(dir, dir, &mut out);
    out
}

/// The crate roots of a package's `src/`: `lib.rs`, `main.rs`, `bin/*.rs` and `bin/*/main.rs`.
fn roots(sources: &Sources) -> Vec<String> {
    sources
        .keys()
        .filter(|k| {
            *k == "lib.rs"
                || *k == "main.rs"
                || (k.starts_with("bin/")
                    && (k.matches('/').count() == 1 || k.ends_with("/main.rs")))
        })
        .cloned()
        .collect()
}

/// The `src/` folders of the workspace's packages, by package folder (`functions/docs`).
fn package_sources() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = vec![("tests".to_owned(), root.join("tests/src"))];
    for group in ["functions", "shared"] {
        let entries =
            std::fs::read_dir(root.join(group)).unwrap_or_else(|e| panic!("{group}: {e}"));
        for entry in entries.flatten() {
            let src = entry.path().join("src");
            if src.is_dir() {
                let name = format!("{group}/{}", entry.file_name().to_string_lossy());
                found.push((name, src));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn no_crate_of_the_workspace_has_an_import_circle_among_its_source_files() {
    let (mut crates, mut files, mut edges) = (0, 0, 0);
    let mut failures = Vec::new();
    for (package, src) in package_sources() {
        let sources = read_sources(&src);
        for root in roots(&sources) {
            let tree = load_tree(&sources, &root).unwrap_or_else(|e| panic!("{package}: {e}"));
            let graph = file_graph(&tree);
            let label = if root == "lib.rs" {
                package.clone()
            } else {
                format!("{package} ({root})")
            };
            crates += 1;
            files += tree.files.len();
            edges += graph.edges.len();
            failures.extend(describe(&label, &graph));
        }
    }
    // The scan sees the workspace: every crate, its files, and the references between them.
    assert!(crates >= 30, "only {crates} crates found");
    assert!(files >= 200, "only {files} source files found");
    assert!(edges >= 400, "only {edges} references between files found");
    assert!(
        failures.is_empty(),
        "{} import circle(s) among the source files of a crate ({crates} crates, {files} files, {edges} \
         references between files):\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!(
        "structure: {crates} crates, {files} source files, {edges} references between files, no import circle"
    );
}

/// Builds the file graph of an in-memory crate rooted at `lib.rs`.
fn graph_of(files: &[(&str, &str)]) -> Graph {
    let sources: Sources = files
        .iter()
        .map(|(n, t)| ((*n).to_owned(), (*t).to_owned()))
        .collect();
    let tree = load_tree(&sources, "lib.rs").expect("the crate loads");
    file_graph(&tree)
}

fn edge_list(graph: &Graph) -> Vec<String> {
    graph
        .edges
        .keys()
        .map(|&(a, b)| format!("{} -> {}", graph.names[a], graph.names[b]))
        .collect()
}

#[test]
fn a_circle_between_two_sibling_files_is_reported_with_the_references_that_close_it() {
    let graph = graph_of(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "use crate::b::B;\npub struct A(B);\n"),
        (
            "b.rs",
            "pub struct B;\n\npub fn f() -> usize {\n    crate::a::size()\n}\n",
        ),
    ]);
    assert_eq!(
        describe("demo", &graph),
        vec![
            "demo: a.rs -> b.rs -> a.rs\n    a.rs:1 uses crate::b::B\n    b.rs:4 uses crate::a::size"
        ]
    );
}

#[test]
fn a_parent_using_its_subtree_and_children_using_their_parent_is_a_tree_not_a_circle() {
    let graph = graph_of(&[
        (
            "lib.rs",
            "pub mod site;\npub use site::build::render;\npub struct Config;\n\
             pub fn run() { site::groups::group(); self::site::build::render(); }\n",
        ),
        // Visibilities (`pub(crate)`, `pub(super)`) name modules but use nothing.
        (
            "site.rs",
            "pub(crate) mod build;\npub(super) mod groups;\npub use self::build::render;\n",
        ),
        (
            "site/build.rs",
            "use crate::Config;\nuse super::groups;\npub fn render() { groups::group(); }\n",
        ),
        (
            "site/groups.rs",
            "pub fn group() { let _ = super::super::Config; }\n",
        ),
    ]);
    assert!(circles(&graph).is_empty(), "{:?}", describe("demo", &graph));
    // Only the children's uses of their parent and of each other: lib.rs and site.rs reach down their own subtree.
    assert_eq!(
        edge_list(&graph),
        vec![
            "site/build.rs -> lib.rs",
            "site/build.rs -> site/groups.rs",
            "site/groups.rs -> lib.rs",
        ]
    );
}

#[test]
fn super_paths_resolve_from_mod_rs_and_name_rs_files_and_from_inline_modules() {
    // `pages/mod.rs` layout: `super::view` in pages/list.rs is pages/view.rs; in an inline test module,
    // `super::super::view` is the same file.
    let graph = graph_of(&[
        ("lib.rs", "mod pages;\nmod machine;\n"),
        ("pages/mod.rs", "mod list;\nmod view;\n"),
        (
            "pages/list.rs",
            "pub fn items() {}\n#[cfg(test)]\nmod tests {\n    use super::super::view::show;\n}\n",
        ),
        ("pages/view.rs", "pub fn show() { super::list::items(); }\n"),
        ("machine.rs", "mod gate;\npub fn run() {}\n"),
        ("machine/gate.rs", "pub fn open() { super::run(); }\n"),
    ]);
    assert_eq!(
        edge_list(&graph),
        vec![
            "pages/list.rs -> pages/view.rs",
            "pages/view.rs -> pages/list.rs",
            "machine/gate.rs -> machine.rs",
        ]
    );
    assert_eq!(
        describe("demo", &graph),
        vec![
            "demo: pages/list.rs -> pages/view.rs -> pages/list.rs\n    pages/list.rs:4 uses super::super::view::show\n    \
             pages/view.rs:1 uses super::list::items"
        ]
    );
}

#[test]
fn paths_in_macros_through_use_names_and_nested_inline_modules_are_references() {
    let graph = graph_of(&[
        (
            "lib.rs",
            "mod a;\nmod b;\nmod c;\nmod outer {\n    pub mod inner;\n}\n",
        ),
        // A path inside a macro invocation.
        (
            "a.rs",
            "pub fn f() -> String { format!(\"{}\", crate::b::NAME) }\n",
        ),
        (
            "b.rs",
            "pub const NAME: &str = \"b\";\npub fn g() { crate::c::h(); }\n",
        ),
        // A name brought in by `use` (the inline module `outer`, in lib.rs), then a path through it: `mod inner;`
        // inside `mod outer { }` is outer/inner.rs.
        (
            "c.rs",
            "use crate::outer as o;\npub fn h() { o::inner::k(); }\n",
        ),
        ("outer/inner.rs", "pub fn k() { crate::a::f(); }\n"),
    ]);
    assert_eq!(
        edge_list(&graph),
        vec![
            "a.rs -> b.rs",
            "b.rs -> c.rs",
            "c.rs -> lib.rs",
            "c.rs -> outer/inner.rs",
            "outer/inner.rs -> a.rs"
        ]
    );
    let found = describe("demo", &graph);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("demo: a.rs -> b.rs -> c.rs -> outer/inner.rs -> a.rs\n"),
        "{}",
        found[0]
    );
}

#[test]
fn a_circle_of_three_files_is_one_walk_through_all_of_them_along_real_edges() {
    // machine <-> pages <-> view, with no edge between machine and view.
    let graph = graph_of(&[
        ("lib.rs", "mod machine;\nmod pages;\nmod view;\n"),
        ("machine.rs", "use crate::pages::P;\npub struct M;\n"),
        (
            "pages.rs",
            "use crate::{machine::M, view::V};\npub struct P;\n",
        ),
        ("view.rs", "use crate::pages::P;\npub struct V;\n"),
    ]);
    let found = describe("demo", &graph);
    assert_eq!(found.len(), 1, "{found:?}");
    let first = found[0].lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "demo: machine.rs -> pages.rs -> view.rs -> pages.rs -> machine.rs"
    );
}

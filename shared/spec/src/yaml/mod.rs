//! YAML loading with hard budgets.
//!
//! Why not a ready-made loader: `serde_yaml` is unmaintained and still allows ~100x alias
//! amplification; `saphyr`'s and `yaml-rust2`'s loaders deep-clone anchors with no limit (a
//! ~100-byte alias bomb expands to tens of millions of nodes) and recurse on nesting.
//! `serde-saphyr` has a `Budget`, but going through serde into a `serde_json::Value` gives no
//! event positions for the lazy diagnostics locator and no control over how keys such as
//! `200:` are turned into strings. So this module drives the maintained, pull-based
//! `saphyr-parser` (the parser under saphyr and serde-saphyr: a state machine, no recursion)
//! and builds the value itself with an explicit stack, enforcing:
//!
//! - nesting depth ([`crate::Limits::max_depth`], checked when a collection opens, so the
//!   parser never runs ahead on a `[[[[...` bomb);
//! - node count over the whole document ([`crate::Limits::max_nodes`]), counting every node an
//!   alias expands to, so alias bombs fail on the budget long before memory grows;
//! - aliases refused unless [`crate::Limits::allow_aliases`] is set, then at most
//!   [`crate::Limits::max_aliases`] of them (anchors alone are harmless and accepted);
//! - duplicate keys, YAML merge keys (`<<`), non-scalar keys, custom tags, several documents
//!   in one stream, NUL characters and numbers JSON cannot represent are errors with a
//!   line and column.
//!
//! Scalars are resolved with the YAML 1.2 core schema (so `on`/`no`/`yes` stay strings, as in
//! every YAML 1.2 tool); keys are always the scalar's text (`200:` is the key `"200"`).

use std::borrow::Cow;
use std::collections::HashMap;

mod block;

use crate::Diagnostic;
use crate::tree::{Builder, Num, Tree};
use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};

/// Budgets for one YAML file.
pub(crate) struct YamlBudget {
    pub max_depth: usize,
    pub max_nodes: usize,
    pub nodes_before: usize,
    pub allow_aliases: bool,
    pub max_aliases: usize,
}

impl YamlBudget {
    /// The budgets of `limits` for a file read after `nodes_before` values of the same document.
    pub(crate) fn new(limits: &crate::Limits, nodes_before: usize) -> Self {
        YamlBudget {
            max_depth: limits.max_depth.min(crate::MAX_DEPTH_CEILING),
            max_nodes: limits.max_nodes,
            nodes_before,
            allow_aliases: limits.allow_aliases,
            max_aliases: if limits.allow_aliases {
                limits.max_aliases
            } else {
                0
            },
        }
    }

    /// The message for a document past the node budget.
    fn too_many_nodes(&self) -> String {
        format!(
            "the document has more than {} values (the node budget)",
            self.max_nodes
        )
    }
}

/// An open collection. Its members are pending in the tree builder from `start` (its mark)
/// on, and the collection is built from them when it closes.
enum Frame<'a> {
    Seq {
        start: usize,
        count: usize,
        anchor: usize,
        start_nodes: usize,
    },
    Map {
        start: usize,
        /// Where this mapping's key positions start in the loader's list.
        positions: usize,
        /// The key read and waiting for its value, with its position.
        key: Option<(Cow<'a, str>, (u32, u32))>,
        anchor: usize,
        start_nodes: usize,
    },
}

/// A resolved scalar.
enum Leaf<'a> {
    Null,
    Bool(bool),
    Num(Num),
    Str(Cow<'a, str>),
}

impl Leaf<'_> {
    fn add(self, b: &mut Builder) -> u32 {
        match self {
            Leaf::Null => b.null(),
            Leaf::Bool(x) => b.bool(x),
            Leaf::Num(n) => b.number(n),
            Leaf::Str(s) => b.string(&s),
        }
    }
}

pub(crate) struct Loaded {
    pub value: Tree,
    pub nodes: usize,
}

fn diag(
    code: &'static str,
    message: impl Into<String>,
    span: Option<&Span>,
    stack: &[Frame],
) -> Diagnostic {
    let mut tokens: Vec<String> = Vec::with_capacity(stack.len());
    for f in stack {
        match f {
            Frame::Seq { count, .. } => tokens.push(count.to_string()),
            Frame::Map {
                key: Some((k, _)), ..
            } => tokens.push(k.to_string()),
            Frame::Map { key: None, .. } => {}
        }
    }
    Diagnostic {
        code,
        message: message.into(),
        file: None,
        pointer: crate::pointer::from_tokens(&tokens),
        line: span.map(|s| s.start.line() as u32),
        column: span.map(|s| s.start.col() as u32 + 1),
    }
}

fn tag_name(tag: &Tag) -> String {
    if tag.is_yaml_core_schema() {
        format!("!!{}", tag.suffix)
    } else {
        format!("{}{}", tag.handle, tag.suffix)
    }
}

/// What a tag asks for.
enum Want {
    Auto,
    Str,
    Int,
    Float,
    Bool,
    Null,
    Seq,
    Map,
}

fn want(tag: Option<&Tag>) -> Result<Want, String> {
    let Some(tag) = tag else {
        return Ok(Want::Auto);
    };
    if tag.handle == "!" && tag.suffix.is_empty() {
        return Ok(Want::Str);
    }
    if tag.is_yaml_core_schema() {
        return Ok(match tag.suffix.as_str() {
            "str" => Want::Str,
            "int" => Want::Int,
            "float" => Want::Float,
            "bool" => Want::Bool,
            "null" => Want::Null,
            "seq" => Want::Seq,
            "map" => Want::Map,
            _ => return Err(tag_name(tag)),
        });
    }
    Err(tag_name(tag))
}

fn is_int(s: &str) -> bool {
    let d = s.strip_prefix(['-', '+']).unwrap_or(s);
    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
}

fn is_float(s: &str) -> bool {
    let d = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exp) = match d.find(['e', 'E']) {
        Some(i) => (&d[..i], Some(&d[i + 1..])),
        None => (d, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let digits = |x: &str| x.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match frac {
        Some(f) => digits(int) && digits(f) && !(int.is_empty() && f.is_empty()),
        None => !int.is_empty() && digits(int),
    };
    let exp_ok = match exp {
        Some(e) => {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            !e.is_empty() && digits(e)
        }
        None => true,
    };
    mantissa_ok && exp_ok
}

/// Resolves an integer/float literal to a JSON number.
fn number(s: &str) -> Result<Leaf<'static>, String> {
    if is_int(s) {
        if let Ok(i) = s.parse::<i64>() {
            return Ok(Leaf::Num(Num::Int(i)));
        }
        if let Ok(u) = s.trim_start_matches('+').parse::<u64>() {
            return Ok(Leaf::Num(Num::Uint(u)));
        }
    }
    match s.parse::<f64>() {
        Ok(f) if f.is_finite() => Ok(Leaf::Num(Num::Float(f))),
        _ => Err(format!(
            "the number {} is out of range (JSON numbers must be finite 64-bit floats)",
            abbreviate(s)
        )),
    }
}

fn abbreviate(s: &str) -> String {
    if s.chars().count() > 40 {
        format!(
            "{}... ({} characters)",
            s.chars().take(30).collect::<String>(),
            s.chars().count()
        )
    } else {
        s.to_string()
    }
}

fn resolve_plain(text: Cow<'_, str>) -> Result<Leaf<'_>, String> {
    let s: &str = &text;
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Leaf::Null),
        "true" | "True" | "TRUE" => return Ok(Leaf::Bool(true)),
        "false" | "False" | "FALSE" => return Ok(Leaf::Bool(false)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => {
            return Err(format!(
                "'{s}' (infinity/NaN) cannot be represented in JSON"
            ));
        }
        _ => {}
    }
    if let Some(h) = s.strip_prefix("0x")
        && !h.is_empty()
        && h.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return u64::from_str_radix(h, 16)
            .map(|u| Leaf::Num(Num::Uint(u)))
            .map_err(|_| format!("the number {} is out of range", abbreviate(s)));
    }
    if let Some(o) = s.strip_prefix("0o")
        && !o.is_empty()
        && o.bytes().all(|b| (b'0'..=b'7').contains(&b))
    {
        return u64::from_str_radix(o, 8)
            .map(|u| Leaf::Num(Num::Uint(u)))
            .map_err(|_| format!("the number {} is out of range", abbreviate(s)));
    }
    if is_int(s) || is_float(s) {
        return number(s);
    }
    Ok(Leaf::Str(text))
}

fn scalar<'a>(
    text: Cow<'a, str>,
    style: ScalarStyle,
    tag: Option<&Tag>,
) -> Result<Leaf<'a>, String> {
    let w = want(tag).map_err(|t| {
        format!(
            "the YAML tag '{t}' is not supported (only the YAML 1.2 core schema tags are accepted)"
        )
    })?;
    match w {
        Want::Str => Ok(Leaf::Str(text)),
        Want::Auto if style != ScalarStyle::Plain => Ok(Leaf::Str(text)),
        Want::Auto => resolve_plain(text),
        Want::Int | Want::Float => number(text.trim()),
        Want::Bool => match &*text {
            "true" | "True" | "TRUE" => Ok(Leaf::Bool(true)),
            "false" | "False" | "FALSE" => Ok(Leaf::Bool(false)),
            _ => Err(format!("'{}' is not a boolean", abbreviate(&text))),
        },
        Want::Null => Ok(Leaf::Null),
        Want::Seq | Want::Map => Err("a collection tag on a scalar".to_string()),
    }
}

/// Parses `text` as a single YAML document within the budget.
///
/// Block-style documents go through [`block`], a fast reader for the block subset API documents are written in; it
/// declines anything outside that subset, and any document it declines or finds fault with is read again by
/// saphyr-parser, which decides it (so every error, with its position, is saphyr-parser's).
pub(crate) fn load(text: &str, b: &YamlBudget) -> Result<Loaded, Diagnostic> {
    let mut loader = Loader::new(text, b);
    if block::read(text, &mut loader).is_ok()
        && let Ok(loaded) = loader.finish()
    {
        return Ok(loaded);
    }
    load_with_saphyr(text, b)
}

/// [`load`] with saphyr-parser alone.
pub(crate) fn load_with_saphyr(text: &str, b: &YamlBudget) -> Result<Loaded, Diagnostic> {
    let mut parser = Parser::new_from_str(text);
    let mut loader = Loader::new(text, b);
    loop {
        let (event, span) = match parser.next_event() {
            None => break,
            Some(Ok(x)) => x,
            Some(Err(e)) => {
                let m = e.marker();
                let deep = e.info().contains("recursion limit");
                return Err(Diagnostic {
                    code: if deep { "too-deep" } else { "syntax" },
                    message: if deep {
                        format!(
                            "the document nests sequences/mappings too deeply (YAML parser: {})",
                            e.info()
                        )
                    } else {
                        format!("invalid YAML: {}", e.info())
                    },
                    file: None,
                    pointer: diag("", "", None, &loader.stack).pointer,
                    line: Some(m.line() as u32),
                    column: Some(m.col() as u32 + 1),
                });
            }
        };
        loader.event(event, span)?;
    }
    loader.finish()
}

/// Builds the tree from parser events, within the budget.
pub(crate) struct Loader<'a, 'b> {
    b: &'b YamlBudget,
    stack: Vec<Frame<'a>>,
    root: Option<u32>,
    nodes: usize,
    aliases: usize,
    /// Anchored values by anchor id: an alias shares the node (and counts its size again
    /// against the node budget, as if expanded).
    anchors: HashMap<usize, (u32, usize)>,
    documents: usize,
    tree: Builder,
    key_positions: Vec<(u32, u32)>,
}

impl<'a, 'b> Loader<'a, 'b> {
    fn new(text: &str, b: &'b YamlBudget) -> Self {
        Loader {
            b,
            stack: Vec::new(),
            root: None,
            nodes: b.nodes_before,
            aliases: 0,
            anchors: HashMap::new(),
            documents: 0,
            tree: Builder::new(text.len()),
            key_positions: Vec::new(),
        }
    }

    /// Takes one event.
    pub(crate) fn event(&mut self, event: Event<'a>, span: Span) -> Result<(), Diagnostic> {
        let b = self.b;
        let Loader {
            stack,
            root,
            nodes,
            aliases,
            anchors,
            documents,
            tree,
            key_positions,
            ..
        } = self;

        macro_rules! fail {
            ($code:expr, $msg:expr, $span:expr) => {
                return Err(diag($code, $msg, $span, stack))
            };
        }

        // A finished value to attach to the parent (with its anchor id and node count).
        let finished: Option<(u32, usize, usize)> = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => None,
            Event::DocumentStart(_) => {
                *documents += 1;
                if *documents > 1 {
                    fail!(
                        "multiple-documents",
                        "the YAML stream holds more than one document; send one document per file",
                        Some(&span)
                    );
                }
                None
            }
            Event::Scalar(value, style, anchor, tag) => {
                if value.contains('\0') {
                    fail!(
                        "nul-character",
                        "a string contains a NUL character, which is not accepted",
                        Some(&span)
                    );
                }
                if let Some(Frame::Map {
                    key: key @ None, ..
                }) = stack.last_mut()
                {
                    // A mapping key: always its text.
                    if let Some(t) = tag.as_deref()
                        && let Err(t) = want(Some(t))
                    {
                        fail!(
                            "yaml-tag",
                            format!(
                                "the YAML tag '{t}' is not supported (only the YAML 1.2 core schema tags are accepted)"
                            ),
                            Some(&span)
                        );
                    }
                    if style == ScalarStyle::Plain && value == "<<" {
                        fail!(
                            "yaml-merge-key",
                            "YAML merge keys ('<<') are not supported: they are a YAML 1.1 extension; write the keys out",
                            Some(&span)
                        );
                    }
                    let pos = (span.start.line() as u32, span.start.col() as u32 + 1);
                    *key = Some((value, pos));
                    return Ok(());
                }
                *nodes += 1;
                if *nodes > b.max_nodes {
                    fail!("too-many-nodes", b.too_many_nodes(), Some(&span));
                }
                match scalar(value, style, tag.as_deref()) {
                    Ok(v) => Some((v.add(tree), anchor, 1)),
                    Err(m) => fail!(
                        if m.contains("tag") {
                            "yaml-tag"
                        } else {
                            "number-out-of-range"
                        },
                        m,
                        Some(&span)
                    ),
                }
            }
            Event::SequenceStart(anchor, ref tag) | Event::MappingStart(anchor, ref tag) => {
                let is_map = matches!(event, Event::MappingStart(..));
                if let Some(Frame::Map { key: None, .. }) = stack.last() {
                    fail!(
                        "yaml-complex-key",
                        "a mapping key must be a scalar (a string), not a sequence or mapping",
                        Some(&span)
                    );
                }
                match want(tag.as_deref()) {
                    Ok(Want::Auto) => {}
                    Ok(Want::Seq) if !is_map => {}
                    Ok(Want::Map) if is_map => {}
                    Ok(_) => fail!("yaml-tag", "a scalar tag on a collection", Some(&span)),
                    Err(t) => fail!(
                        "yaml-tag",
                        format!(
                            "the YAML tag '{t}' is not supported (only the YAML 1.2 core schema tags are accepted)"
                        ),
                        Some(&span)
                    ),
                }
                if stack.len() >= b.max_depth {
                    fail!(
                        "too-deep",
                        format!(
                            "the document nests sequences/mappings more than {} levels deep",
                            b.max_depth
                        ),
                        Some(&span)
                    );
                }
                *nodes += 1;
                if *nodes > b.max_nodes {
                    fail!("too-many-nodes", b.too_many_nodes(), Some(&span));
                }
                let start_nodes = *nodes - 1;
                stack.push(if is_map {
                    Frame::Map {
                        start: tree.mark(),
                        positions: key_positions.len(),
                        key: None,
                        anchor,
                        start_nodes,
                    }
                } else {
                    Frame::Seq {
                        start: tree.mark(),
                        count: 0,
                        anchor,
                        start_nodes,
                    }
                });
                None
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Frame::Seq {
                    start,
                    anchor,
                    start_nodes,
                    ..
                }) => Some((tree.close_array(start), anchor, *nodes - start_nodes)),
                Some(Frame::Map {
                    start,
                    positions,
                    anchor,
                    start_nodes,
                    ..
                }) => match tree.close_object(start) {
                    Ok(id) => {
                        key_positions.truncate(positions);
                        Some((id, anchor, *nodes - start_nodes))
                    }
                    Err(dup) => {
                        let k = tree.pending_key(start, dup.0);
                        let mut d = diag(
                            "duplicate-key",
                            format!(
                                "duplicate key '{k}': each key may appear only once in a mapping; remove or rename one of them"
                            ),
                            None,
                            stack,
                        );
                        crate::pointer::push_token(&mut d.pointer, k);
                        if let Some(&(line, column)) = key_positions.get(positions + dup.0) {
                            d.line = Some(line);
                            d.column = Some(column);
                        }
                        return Err(d);
                    }
                },
                None => fail!(
                    "syntax",
                    "invalid YAML: unbalanced collection end",
                    Some(&span)
                ),
            },
            Event::Alias(id) => {
                if !b.allow_aliases {
                    fail!(
                        "yaml-alias",
                        "YAML aliases (*name) are not accepted: they can expand a small file into a huge document; write the content out or use $ref",
                        Some(&span)
                    );
                }
                if let Some(Frame::Map { key: None, .. }) = stack.last() {
                    fail!(
                        "yaml-complex-key",
                        "an alias cannot be used as a mapping key",
                        Some(&span)
                    );
                }
                *aliases += 1;
                if *aliases > b.max_aliases {
                    fail!(
                        "too-many-aliases",
                        format!("the document uses more than {} YAML aliases", b.max_aliases),
                        Some(&span)
                    );
                }
                let Some((v, n)) = anchors.get(&id) else {
                    fail!(
                        "syntax",
                        "invalid YAML: alias to an unknown or unfinished anchor",
                        Some(&span)
                    );
                };
                *nodes += *n;
                if *nodes > b.max_nodes {
                    fail!(
                        "too-many-nodes",
                        format!(
                            "expanding YAML aliases would exceed the budget of {} values (alias bomb?)",
                            b.max_nodes
                        ),
                        Some(&span)
                    );
                }
                Some((*v, 0, *n))
            }
        };
        if let Some((value, anchor, count)) = finished {
            if anchor != 0 && b.allow_aliases {
                anchors.insert(anchor, (value, count));
            }
            match stack.last_mut() {
                None => {
                    if root.is_some() {
                        fail!(
                            "multiple-documents",
                            "the YAML stream holds more than one document",
                            Some(&span)
                        );
                    }
                    *root = Some(value);
                }
                Some(Frame::Seq { count, .. }) => {
                    tree.push_item(value);
                    *count += 1;
                }
                Some(Frame::Map { key, .. }) => {
                    if let Some((k, pos)) = key.take() {
                        tree.push_member(&k, value);
                        key_positions.push(pos);
                    }
                }
            }
        }
        Ok(())
    }

    /// The document, once every event is in.
    pub(crate) fn finish(self) -> Result<Loaded, Diagnostic> {
        let (root, tree, nodes, b) = (self.root, self.tree, self.nodes, self.b);
        match root {
            Some(root) => Ok(Loaded {
                value: tree.finish(root),
                nodes: nodes - b.nodes_before,
            }),
            None => Err(Diagnostic {
                code: "empty-document",
                message: "the document is empty".to_string(),
                file: None,
                pointer: String::new(),
                line: None,
                column: None,
            }),
        }
    }
}

/// What the YAML readers make of one text, for the differential tests of the block reader (`tests/yaml_block.rs`).
#[doc(hidden)]
pub struct Readings {
    /// The tree [`block`] gives, if it takes the text.
    pub block: Option<String>,
    /// What saphyr-parser alone gives.
    pub saphyr: Result<String, String>,
    /// What [`load`] gives.
    pub load: Result<String, String>,
}

/// [`Readings`] of `text` under the default budgets: each tree as JSON text, each error as its code, position and
/// message.
#[doc(hidden)]
pub fn compare_readers(text: &str) -> Readings {
    let b = YamlBudget::new(&crate::Limits::default(), 0);
    let json = |l: Loaded| l.value.root().to_value().to_string();
    let error = |d: Diagnostic| {
        format!(
            "{} at {:?}:{:?} {}: {}",
            d.code, d.line, d.column, d.pointer, d.message
        )
    };
    let mut loader = Loader::new(text, &b);
    let block = match block::read(text, &mut loader) {
        Ok(()) => loader.finish().ok().map(json),
        Err(_) => None,
    };
    Readings {
        block,
        saphyr: load_with_saphyr(text, &b).map(json).map_err(error),
        load: load(text, &b).map(json).map_err(error),
    }
}

//! Lazy line/column lookup: for diagnostics, and for the places of a diff's changes
//! ([`crate::Document::positions`]).
//!
//! Values carry no positions (that would add a third to the memory of a 13 MB document, for
//! positions most readers never ask for). When positions are wanted, the text of each concerned
//! file is scanned once more, and the positions of the wanted pointers (and of their ancestors,
//! the fallback for a pointer that names nothing) are recorded. For an object member the
//! position is that of its key; for an array item (and the root), that of the value.
//!
//! The wanted pointers form a trie ([`Wanted`]) and the scan follows it: in JSON a value outside
//! the trie is skipped without looking inside (its strings and brackets are counted, no pointer
//! is built, no key is read), in YAML its events pass by without a pointer being built, and
//! the scan stops as soon as every wanted pointer has a position. YAML is read by the block
//! reader the parse uses (`crate::yaml::block`, fed to a scanner instead of the loader), and
//! by saphyr-parser when that reader declines the text. Both scans are iterative (explicit
//! stacks), so hostile nesting cannot overflow the stack.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, Span};

use crate::yaml::{Sink, read_block};
use crate::{Diagnostic, SourceFormat};

/// A line and a column in a file's text, both counted from 1 (the column in characters).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

/// Where a scan found a value: a byte offset (the JSON scan, the block reader), or a line and
/// column (saphyr-parser's markers).
#[derive(Copy, Clone, Debug)]
enum Mark {
    Offset(usize),
    LineColumn(u32, u32),
}

struct Node {
    parent: u32,
    /// Children by unescaped token.
    children: HashMap<Box<str>, u32>,
    mark: Option<Mark>,
}

/// The pointers wanted in one file, as a trie of their unescaped tokens: node 0 is the root
/// (`""`), and every pointer's ancestors are nodes too.
pub(crate) struct Wanted {
    nodes: Vec<Node>,
    /// Nodes without a mark yet.
    missing: usize,
    /// Record the last occurrence of a repeated key rather than the first (diagnostics of
    /// duplicate JSON keys point at the repeat); the scan then reads the whole text.
    last_key_wins: bool,
}

impl Wanted {
    pub(crate) fn new() -> Self {
        Wanted {
            nodes: vec![Node {
                parent: 0,
                children: HashMap::new(),
                mark: None,
            }],
            missing: 1,
            last_key_wins: false,
        }
    }

    /// Adds a pointer (and its ancestors); its node, or `None` for an invalid pointer.
    pub(crate) fn insert(&mut self, pointer: &str) -> Option<u32> {
        let tokens = crate::pointer::tokens(pointer)?;
        let mut node = 0u32;
        for t in tokens {
            let next = self.nodes.len() as u32;
            let children = &mut self.nodes[node as usize].children;
            let child = *children.entry(t.into_boxed_str()).or_insert(next);
            if child == next {
                self.nodes.push(Node {
                    parent: node,
                    children: HashMap::new(),
                    mark: None,
                });
                self.missing += 1;
            }
            node = child;
        }
        Some(node)
    }

    #[inline]
    fn child(&self, node: u32, token: &str) -> Option<u32> {
        let n = &self.nodes[node as usize];
        if n.children.is_empty() {
            return None;
        }
        n.children.get(token).copied()
    }

    #[inline]
    fn item(&self, node: u32, index: usize) -> Option<u32> {
        let n = &self.nodes[node as usize];
        if n.children.is_empty() {
            return None;
        }
        let mut buffer = [0u8; 20];
        n.children.get(decimal(index, &mut buffer)).copied()
    }

    /// Records where `node` is (the first time, or every time for keys when the last one
    /// wins).
    #[inline]
    fn record(&mut self, node: u32, mark: Mark, key: bool) {
        let n = &mut self.nodes[node as usize];
        match n.mark {
            None => {
                n.mark = Some(mark);
                self.missing -= 1;
            }
            Some(_) if key && self.last_key_wins => n.mark = Some(mark),
            Some(_) => {}
        }
    }

    /// Every wanted pointer has a mark: the scan may stop.
    #[inline]
    fn done(&self) -> bool {
        self.missing == 0 && !self.last_key_wins
    }

    fn clear(&mut self) {
        for n in &mut self.nodes {
            n.mark = None;
        }
        self.missing = self.nodes.len();
    }

    /// The mark of `node`, or of its nearest ancestor that has one.
    fn mark(&self, mut node: u32) -> Option<Mark> {
        loop {
            let n = &self.nodes[node as usize];
            if let Some(m) = n.mark {
                return Some(m);
            }
            if node == 0 {
                return None;
            }
            node = n.parent;
        }
    }
}

/// `i` in decimal, written at the end of `buffer` (no allocation: items are looked up by index
/// all along a scan).
fn decimal(i: usize, buffer: &mut [u8; 20]) -> &str {
    let mut at = buffer.len();
    let mut n = i;
    loop {
        at -= 1;
        buffer[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&buffer[at..]).unwrap_or("")
}

/// Scans `text` once for the wanted pointers and gives each wanted node's position (its
/// own, or its nearest ancestor's), in the order of `nodes`.
pub(crate) fn scan(
    text: &str,
    format: SourceFormat,
    wanted: &mut Wanted,
    nodes: &[u32],
) -> Vec<Option<Position>> {
    match format {
        SourceFormat::Json if text.trim_start().starts_with(['{', '[']) => {
            scan_json(text, wanted);
        }
        _ => scan_yaml(text, wanted),
    }
    let marks: Vec<Option<Mark>> = nodes.iter().map(|&n| wanted.mark(n)).collect();
    resolve(text, &marks)
}

/// Marks to positions: byte offsets counted into lines and columns in one pass over the text.
fn resolve(text: &str, marks: &[Option<Mark>]) -> Vec<Option<Position>> {
    let bytes = text.as_bytes();
    let mut out: Vec<Option<Position>> = vec![None; marks.len()];
    let mut offsets: Vec<(usize, usize)> = Vec::new();
    for (i, m) in marks.iter().enumerate() {
        match *m {
            Some(Mark::LineColumn(line, column)) => out[i] = Some(Position { line, column }),
            Some(Mark::Offset(o)) => offsets.push((o.min(bytes.len()), i)),
            None => {}
        }
    }
    offsets.sort_unstable();
    let (mut line, mut line_start, mut pos) = (1u32, 0usize, 0usize);
    for (off, i) in offsets {
        if off > pos {
            let slice = &bytes[pos..off];
            line += memchr::memchr_iter(b'\n', slice).count() as u32;
            if let Some(k) = memchr::memrchr(b'\n', slice) {
                line_start = pos + k + 1;
            }
            pos = off;
        }
        // Characters, not bytes: every byte but UTF-8 continuation bytes starts one.
        let column = bytes[line_start..off]
            .iter()
            .filter(|&&b| (b & 0xC0) != 0x80)
            .count();
        out[i] = Some(Position {
            line,
            column: column as u32 + 1,
        });
    }
    out
}

/// Fills `line`/`column` of every diagnostic lacking them. `text_of(file)` gives the text and
/// format of a file (`None` = the root definition).
pub(crate) fn fill<'a>(
    list: &mut [Diagnostic],
    text_of: impl Fn(Option<&str>) -> Option<(&'a str, SourceFormat)>,
) {
    let mut files: Vec<Option<String>> = Vec::new();
    for d in list.iter() {
        if d.line.is_none() && !files.contains(&d.file) {
            files.push(d.file.clone());
        }
    }
    for file in files {
        let Some((text, format)) = text_of(file.as_deref()) else {
            continue;
        };
        let mut wanted = Wanted::new();
        wanted.last_key_wins = true;
        let mut targets: Vec<(usize, u32)> = Vec::new();
        for (i, d) in list.iter().enumerate() {
            if d.line.is_none() && d.file == file {
                // An invalid pointer falls back to the root.
                targets.push((i, wanted.insert(&d.pointer).unwrap_or(0)));
            }
        }
        let nodes: Vec<u32> = targets.iter().map(|&(_, n)| n).collect();
        let found = scan(text, format, &mut wanted, &nodes);
        for ((i, _), position) in targets.into_iter().zip(found) {
            if let Some(p) = position {
                list[i].line = Some(p.line);
                list[i].column = Some(p.column);
            }
        }
    }
}

// ---- JSON -------------------------------------------------------------------------------

/// An open container on the trie's path.
struct JsonFrame {
    node: u32,
    is_map: bool,
    next_index: usize,
}

#[inline]
fn skip_space(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    i
}

/// The position after the string starting at `i` (a `"`).
#[inline]
fn skip_string(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while let Some(k) = b
        .get(j..)
        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
    {
        if b[j + k] == b'\\' {
            j += k + 2;
        } else {
            return j + k + 1;
        }
    }
    b.len()
}

/// The position after the value starting at `i`, without looking inside it.
fn skip_value(b: &[u8], mut i: usize) -> usize {
    match b.get(i) {
        Some(b'"') => skip_string(b, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        i = skip_string(b, i);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            i
        }
        _ => {
            while i < b.len() && !matches!(b[i], b',' | b']' | b'}' | b' ' | b'\t' | b'\r' | b'\n')
            {
                i += 1;
            }
            i
        }
    }
}

/// Follows the trie through a JSON text (a small tokenizer: the text parsed before, so it is
/// well formed; on anything unexpected the scan stops with what it found).
fn scan_json(text: &str, wanted: &mut Wanted) {
    let b = text.as_bytes();
    let mut i = skip_space(b, if text.starts_with('\u{feff}') { 3 } else { 0 });
    let mut stack: Vec<JsonFrame> = Vec::new();
    // The trie node of the value starting at `i`.
    let mut pending: Option<u32> = Some(0);
    wanted.record(0, Mark::Offset(i), false);
    loop {
        // A value starts at `i`.
        i = skip_space(b, i);
        match (pending, b.get(i)) {
            (Some(node), Some(&c @ (b'{' | b'['))) => {
                stack.push(JsonFrame {
                    node,
                    is_map: c == b'{',
                    next_index: 0,
                });
                i += 1;
            }
            (_, Some(_)) => i = skip_value(b, i),
            (_, None) => return,
        }
        if wanted.done() {
            return;
        }
        // Up to the start of the next value that matters: a member's value, an item.
        loop {
            i = skip_space(b, i);
            let Some(top) = stack.last_mut() else {
                return;
            };
            match b.get(i) {
                Some(b',') => i += 1,
                Some(b'}' | b']') => {
                    stack.pop();
                    i += 1;
                }
                Some(b'"') if top.is_map => {
                    let start = i;
                    i = skip_string(b, i);
                    let node = top.node;
                    let child = if wanted.nodes[node as usize].children.is_empty() {
                        None
                    } else {
                        let raw = text.get(start..i).unwrap_or("\"\"");
                        let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or("");
                        if inner.contains('\\') {
                            let key: String = serde_json::from_str(raw).unwrap_or_default();
                            wanted.child(node, &key)
                        } else {
                            wanted.child(node, inner)
                        }
                    };
                    if let Some(c) = child {
                        wanted.record(c, Mark::Offset(start), true);
                    }
                    i = skip_space(b, i);
                    if b.get(i) != Some(&b':') {
                        return;
                    }
                    i += 1;
                    pending = child;
                    break;
                }
                Some(_) if !top.is_map => {
                    let child = wanted.item(top.node, top.next_index);
                    top.next_index += 1;
                    i = skip_space(b, i);
                    if let Some(c) = child {
                        wanted.record(c, Mark::Offset(i), false);
                    }
                    pending = child;
                    break;
                }
                _ => return,
            }
        }
    }
}

// ---- YAML -------------------------------------------------------------------------------

/// An open collection, on the trie's path (`node`) or not.
struct YamlFrame {
    node: Option<u32>,
    is_map: bool,
    next_index: usize,
    /// The member whose key was just read (maps only): its trie node, if any.
    key: Option<Option<u32>>,
}

/// Follows the trie through YAML events.
struct YamlScan<'w> {
    wanted: &'w mut Wanted,
    stack: Vec<YamlFrame>,
    /// The events come from saphyr-parser (spans with real lines and columns), not from the
    /// block reader (spans starting at byte offsets).
    saphyr: bool,
    /// Stopped by the scan itself (every pointer found, or a complex key), not declined.
    stopped: bool,
}

impl YamlScan<'_> {
    fn mark(&self, span: &Span) -> Mark {
        if self.saphyr {
            Mark::LineColumn(span.start.line() as u32, span.start.col() as u32 + 1)
        } else {
            Mark::Offset(span.start.index())
        }
    }

    /// The trie node of the value an event starts (`None` off the trie), recorded for items
    /// and the root (a member's position is its key's).
    fn value_node(&mut self, span: &Span) -> Option<u32> {
        let mark = self.mark(span);
        let node = match self.stack.last_mut() {
            None => Some(0),
            Some(f) if f.is_map => return f.key.take().flatten(),
            Some(f) => {
                let i = f.next_index;
                f.next_index += 1;
                let parent = f.node?;
                self.wanted.item(parent, i)
            }
        };
        if let Some(n) = node {
            self.wanted.record(n, mark, false);
        }
        node
    }

    fn event(&mut self, event: Event<'_>, span: Span) -> bool {
        match event {
            Event::Scalar(v, ..) => {
                if let Some(f) = self.stack.last()
                    && f.is_map
                    && f.key.is_none()
                {
                    let child = f.node.and_then(|n| self.wanted.child(n, &v));
                    if let Some(c) = child {
                        let mark = self.mark(&span);
                        self.wanted.record(c, mark, true);
                    }
                    if let Some(f) = self.stack.last_mut() {
                        f.key = Some(child);
                    }
                } else {
                    self.value_node(&span);
                }
            }
            Event::Alias(_) => {
                self.value_node(&span);
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                let is_map = matches!(event, Event::MappingStart(..));
                if let Some(f) = self.stack.last()
                    && f.is_map
                    && f.key.is_none()
                {
                    // A complex key: not addressable by a pointer; give up on positions.
                    self.stopped = true;
                    return false;
                }
                let node = self.value_node(&span);
                self.stack.push(YamlFrame {
                    node,
                    is_map,
                    next_index: 0,
                    key: None,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                self.stack.pop();
            }
            _ => {}
        }
        if self.wanted.done() {
            self.stopped = true;
            return false;
        }
        true
    }
}

impl<'a> Sink<'a> for YamlScan<'_> {
    fn take(&mut self, event: Event<'a>, span: Span) -> bool {
        self.event(event, span)
    }
}

/// Follows the trie through a YAML text: the block reader's events, or saphyr-parser's when
/// that reader declines the text.
fn scan_yaml(text: &str, wanted: &mut Wanted) {
    let block = {
        let mut scan = YamlScan {
            wanted: &mut *wanted,
            stack: Vec::new(),
            saphyr: false,
            stopped: false,
        };
        read_block(text, &mut scan).is_ok() || scan.stopped
    };
    if block {
        return;
    }
    wanted.clear();
    let mut scan = YamlScan {
        wanted,
        stack: Vec::new(),
        saphyr: true,
        stopped: false,
    };
    let mut parser = Parser::new_from_str(text);
    while let Some(Ok((event, span))) = parser.next_event() {
        if !scan.event(event, span) {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The positions of `pointers` in `text`.
    fn find(text: &str, format: SourceFormat, pointers: &[&str]) -> Vec<Option<(u32, u32)>> {
        let mut wanted = Wanted::new();
        let nodes: Vec<u32> = pointers
            .iter()
            .map(|p| wanted.insert(p).expect("valid pointer"))
            .collect();
        scan(text, format, &mut wanted, &nodes)
            .into_iter()
            .map(|p| p.map(|p| (p.line, p.column)))
            .collect()
    }

    #[test]
    fn json_positions_point_at_keys_and_items() {
        let text = "{\n  \"a\": {\"b~/\": [1, {\"c\": 2}]},\n  \"d\": \"x\\\"y\"\n}";
        let f = find(
            text,
            SourceFormat::Json,
            &["", "/a", "/a/b~0~1", "/a/b~0~1/1/c", "/d"],
        );
        assert_eq!(
            f,
            vec![
                Some((1, 1)),
                Some((2, 3)),
                Some((2, 9)),
                Some((2, 21)),
                Some((3, 3))
            ]
        );
    }

    #[test]
    fn yaml_positions_point_at_keys_and_items() {
        let text = "a:\n  b:\n    - 1\n    - c: 2\nd: x\n";
        let f = find(
            text,
            SourceFormat::Yaml,
            &["/a", "/a/b/1/c", "/a/b/0", "/d"],
        );
        assert_eq!(
            f,
            vec![Some((1, 1)), Some((4, 7)), Some((3, 7)), Some((5, 1))]
        );
    }
}

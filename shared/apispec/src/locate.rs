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
//! is built, no key is read), and the scan stops as soon as every wanted pointer has a
//! position. YAML that the block reader took at parse time is in that reader's subset, where
//! a value is the lines indented below its key: the scan skims it line by line, reading only
//! the keys and items on the trie's paths ([`skim_yaml`]). Other YAML (or a line the skim does
//! not expect) is read again by the block reader the parse uses (`crate::yaml::block`, fed to
//! a scanner instead of the loader) or by saphyr-parser when that reader declines the text, its
//! events passing by without a pointer being built. The scans are iterative (explicit stacks)
//! or recurse along the trie only (as deep as a pointer of the document), so hostile nesting
//! cannot overflow the stack.

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
/// `block`: the text is YAML the block reader took at parse time (see [`skim_yaml`]).
pub(crate) fn scan(
    text: &str,
    (format, block): (SourceFormat, bool),
    wanted: &mut Wanted,
    nodes: &[u32],
) -> Vec<Option<Position>> {
    match format {
        SourceFormat::Json if text.trim_start().starts_with(['{', '[']) => {
            scan_json(text, wanted);
        }
        SourceFormat::Yaml if block && skim_yaml(text, wanted).is_some() => {}
        _ => {
            wanted.clear();
            scan_yaml(text, wanted);
        }
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
        let found = scan(text, (format, false), &mut wanted, &nodes);
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

/// The position after the value starting at `i`, without looking inside it. A container is
/// skipped by counting its own kind of bracket only (the other kind nests inside it in
/// pairs), jumping from one quote or bracket to the next with a vectorized search.
fn skip_value(b: &[u8], mut i: usize) -> usize {
    match b.get(i) {
        Some(b'"') => skip_string(b, i),
        Some(&open @ (b'{' | b'[')) => {
            let close = if open == b'{' { b'}' } else { b']' };
            let mut depth = 0usize;
            while let Some(k) = b
                .get(i..)
                .and_then(|rest| memchr::memchr3(b'"', open, close, rest))
            {
                let at = i + k;
                if b[at] == b'"' {
                    i = skip_string(b, at);
                    continue;
                }
                i = at + 1;
                if b[at] == open {
                    depth += 1;
                } else {
                    depth -= 1;
                    if depth == 0 {
                        return i;
                    }
                }
            }
            b.len()
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

// ---- Block YAML, by indentation ----------------------------------------------------------

/// One line of a text: where it starts, how many spaces indent it, where it ends (its `\n`).
#[derive(Copy, Clone)]
struct Line {
    start: usize,
    indent: usize,
    end: usize,
}

impl Line {
    fn content(&self) -> usize {
        self.start + self.indent
    }
}

/// The skim could not place a line: give up (the events scan decides).
struct Unexpected;

/// Follows the trie through block YAML by indentation (see [`skim_yaml`]).
struct Skim<'t, 'w> {
    b: &'t [u8],
    wanted: &'w mut Wanted,
    /// Start of the next line to read.
    pos: usize,
}

type Skimmed = Result<(), Unexpected>;

impl Skim<'_, '_> {
    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(b'\n')
    }

    fn line_at(&self, start: usize) -> Line {
        let rest = &self.b[start..];
        let end = memchr::memchr(b'\n', rest).map_or(self.b.len(), |i| start + i);
        let indent = rest[..end - start]
            .iter()
            .take_while(|&&c| c == b' ')
            .count();
        Line { start, indent, end }
    }

    /// The next line with content (blank and comment lines skipped; `pos` moves to it).
    fn peek(&mut self) -> Option<Line> {
        while self.pos < self.b.len() {
            let line = self.line_at(self.pos);
            if line.content() < line.end && self.b[line.content()] != b'#' {
                return Some(line);
            }
            self.pos = line.end + 1;
        }
        None
    }

    /// `- ` (or `-` at the end of the line) at `i`.
    fn dash(&self, i: usize) -> bool {
        self.at(i) == b'-' && matches!(self.at(i + 1), b' ' | b'\n')
    }

    /// Moves past the line at `pos` and every following line that belongs to a value of a
    /// collection at column `col`: more indented, or (`compact`: in a mapping) a compact
    /// sequence's item at `col`.
    fn skip_value(&mut self, col: usize, compact: bool) {
        if self.pos < self.b.len() {
            self.pos = self.line_at(self.pos).end + 1;
        }
        while let Some(line) = self.peek() {
            if line.indent > col || (compact && line.indent == col && self.dash(line.content())) {
                self.pos = line.end + 1;
            } else {
                break;
            }
        }
    }

    /// The implicit key at `i`: its text and the position after its `:`.
    fn key(&self, i: usize, end: usize) -> Option<(std::borrow::Cow<'_, str>, usize)> {
        let text = |a: usize, z: usize| std::str::from_utf8(&self.b[a..z]).ok();
        let (key, close) = match self.b.get(i)? {
            b'"' => {
                let k = memchr::memchr(b'"', &self.b[i + 1..end])?;
                let raw = text(i + 1, i + 1 + k)?;
                // Escapes are left to the events scan.
                if raw.contains('\\') {
                    return None;
                }
                (raw.into(), i + k + 2)
            }
            b'\'' => {
                let mut j = i + 1;
                loop {
                    let k = memchr::memchr(b'\'', &self.b[j..end])?;
                    if self.at(j + k + 1) == b'\'' {
                        j += k + 2;
                    } else {
                        j += k;
                        break;
                    }
                }
                (text(i + 1, j)?.replace("\'\'", "\'").into(), j + 1)
            }
            _ => {
                let mut j = i;
                loop {
                    let k = memchr::memchr(b':', &self.b[j..end])?;
                    if matches!(self.at(j + k + 1), b' ' | b'\n') {
                        let raw = text(i, j + k)?.trim_end_matches(' ');
                        return Some((raw.into(), j + k + 1));
                    }
                    j += k + 1;
                }
            }
        };
        let mut j = close;
        while j < end && self.b[j] == b' ' {
            j += 1;
        }
        (self.at(j) == b':' && matches!(self.at(j + 1), b' ' | b'\n')).then_some((key, j + 1))
    }

    /// The block collection whose first line is `line` (at `pos`), at trie node `node`.
    fn collection(&mut self, node: u32, line: Line) -> Skimmed {
        if self.dash(line.content()) {
            self.sequence(node, line.indent)
        } else {
            self.mapping(node, line.indent, false)
        }
    }

    /// A mapping whose keys are at column `col`, its first key on the line at `pos` (after
    /// the item's dash when `in_item`: `- key: value`).
    fn mapping(&mut self, node: u32, col: usize, mut in_item: bool) -> Skimmed {
        while let Some(line) = self.peek() {
            if line.indent < col && !in_item || self.wanted.done() {
                return Ok(());
            }
            let at = line.start + col;
            if line.indent != col && !in_item {
                return Err(Unexpected);
            }
            in_item = false;
            let (key, after) = self.key(at, line.end).ok_or(Unexpected)?;
            match self.wanted.child(node, &key) {
                Some(child) => {
                    self.wanted.record(child, Mark::Offset(at), true);
                    self.value(child, after, line, (col, true))?;
                }
                None => self.skip_value(col, true),
            }
        }
        Ok(())
    }

    /// A sequence whose dashes are at column `col`.
    fn sequence(&mut self, node: u32, col: usize) -> Skimmed {
        let mut index = 0usize;
        while let Some(line) = self.peek() {
            if line.indent != col || !self.dash(line.content()) || self.wanted.done() {
                return Ok(());
            }
            let child = self.wanted.item(node, index);
            index += 1;
            let Some(child) = child else {
                self.skip_value(col, false);
                continue;
            };
            let mut p = line.content() + 1;
            while p < line.end && self.b[p] == b' ' {
                p += 1;
            }
            if p < line.end && self.b[p] != b'#' {
                self.wanted.record(child, Mark::Offset(p), false);
                if self.dash(p) {
                    // `- - item`: left to the events scan.
                    return Err(Unexpected);
                }
                if self.key(p, line.end).is_some() {
                    // `- key: value`: a mapping whose keys are at the first key's column.
                    self.mapping(child, p - line.start, true)?;
                    continue;
                }
            }
            self.value(child, line.content() + 1, line, (col, false))?;
        }
        Ok(())
    }

    /// The value after a `:` or `-` at `after` on `line`, of a collection at column `col` (a
    /// mapping's when `compact`: its value may be a sequence whose dashes are at `col`).
    fn value(
        &mut self,
        node: u32,
        after: usize,
        line: Line,
        (col, compact): (usize, bool),
    ) -> Skimmed {
        let mut p = after;
        while p < line.end && self.b[p] == b' ' {
            p += 1;
        }
        if p < line.end && self.b[p] != b'#' {
            if self.b[p] == b'[' {
                self.flow_items(node, p, line.end);
            }
            // A scalar (continued on more indented lines), `{}`, a block scalar or a flow
            // sequence: nothing inside it but flow items.
            self.skip_value(col, compact);
            return Ok(());
        }
        self.pos = line.end + 1;
        let Some(next) = self.peek() else {
            return Ok(());
        };
        let dash = self.dash(next.content());
        if next.indent > col || (compact && next.indent == col && dash) {
            self.wanted
                .record(node, Mark::Offset(next.content()), false);
            return self.collection(node, next);
        }
        Ok(())
    }

    /// The items of a one-line flow sequence `[a, "b", 'c']` at `p` (scalars only: the block
    /// reader takes nothing else).
    fn flow_items(&mut self, node: u32, p: usize, end: usize) {
        let mut i = p + 1;
        let mut index = 0usize;
        while i < end {
            while i < end && self.b[i] == b' ' {
                i += 1;
            }
            if i >= end || self.b[i] == b']' {
                return;
            }
            if let Some(child) = self.wanted.item(node, index) {
                self.wanted.record(child, Mark::Offset(i), false);
            }
            index += 1;
            i = match self.b[i] {
                q @ (b'"' | b'\'') => {
                    let mut j = i + 1;
                    while j < end && self.b[j] != q {
                        j += if q == b'"' && self.b[j] == b'\\' {
                            2
                        } else {
                            1
                        };
                    }
                    j + 1
                }
                _ => i,
            };
            match memchr::memchr2(b',', b']', &self.b[i.min(end)..end]) {
                Some(k) if self.b[i + k] == b',' => i += k + 1,
                _ => return,
            }
        }
    }
}

/// Follows the trie through YAML the block reader took: block mappings and sequences, where a
/// value is the lines more indented than its key (or a compact sequence's items at the key's
/// column), so that a value off the trie is skipped a line at a time without being read.
/// `None` when a line is not what that subset allows (the caller then reads the events).
fn skim_yaml(text: &str, wanted: &mut Wanted) -> Option<()> {
    let mut skim = Skim {
        b: text.as_bytes(),
        wanted,
        pos: 0,
    };
    let first = skim.peek()?;
    skim.wanted.record(0, Mark::Offset(first.content()), false);
    skim.collection(0, first).ok()
}

#[cfg(test)]
mod tests;

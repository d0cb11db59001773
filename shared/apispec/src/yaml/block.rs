//! A fast reader for block-style YAML: the subset API documents are written in.
//!
//! saphyr-parser is a faithful YAML 1.2 scanner, and most of a YAML deploy's CPU time (a third of a `POST /versions`
//! with a 100 KB document). API documents use a small part of YAML: block mappings and sequences, single-line plain
//! scalars or plain scalars folded over more-indented lines, quoted scalars, `|` and `>` block scalars, `[a, b]`
//! flow sequences of scalars, `{}`, and comments. This reader handles that subset line by line and feeds the same
//! [`Loader`] the same events saphyr-parser would, so every budget and every rule (duplicate keys, merge keys, node
//! count, depth) is enforced by the same code.
//!
//! It declines ([`Declined`]) anything else: tabs, carriage returns, control and non-printable characters, anchors,
//! aliases, tags, directives, document markers, complex keys, nested flow collections, indentation indicators, and every line it cannot place. It also
//! declines as soon as the loader refuses an event. A declined document is read again from the start by
//! saphyr-parser, which decides it: so a document this reader accepts gives the tree saphyr-parser gives (checked
//! on the corpus and on thousands of mutated documents in `tests/yaml_block.rs`), and every error is
//! saphyr-parser's, with its position.
//!
//! Recursion follows nesting, which the loader bounds (`max_depth`): it refuses the collection that would go
//! deeper, and this reader stops there.
//!
//! The reader feeds a [`Sink`]: the loader, or the position scanner of `crate::locate`, which reads the same
//! events again to find where values are (each event's span starts at the byte offset of its token: a key's
//! first character, a value's, a sequence item's; the line and column are not counted here).

use std::borrow::Cow;

use saphyr_parser::{Event, Marker, ScalarStyle, Span};

use super::Loader;

/// What the reader feeds its events to. `false` stops the reading (the reader then returns [`Declined`]).
pub(crate) trait Sink<'a> {
    fn take(&mut self, event: Event<'a>, span: Span) -> bool;
}

impl<'a> Sink<'a> for Loader<'a, '_> {
    #[inline]
    fn take(&mut self, event: Event<'a>, span: Span) -> bool {
        self.event(event, span).is_ok()
    }
}

/// The document is outside the subset, or the loader refused it: read it with saphyr-parser instead.
#[derive(Debug)]
pub(crate) struct Declined;

type R<T> = Result<T, Declined>;

/// An implicit key: its text, its style, and the position after its `:`.
type Key<'a> = (Cow<'a, str>, ScalarStyle, usize);

/// Reads `text` into `sink` (the loader, or a position scanner).
pub(crate) fn read<'a, S: Sink<'a>>(text: &'a str, sink: &mut S) -> R<()> {
    if !printable(text.as_bytes()) {
        return Err(Declined);
    }
    let mut r = Reader {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        token: 0,
        sink,
    };
    r.emit(Event::StreamStart)?;
    r.emit(Event::DocumentStart(false))?;
    let Some(first) = r.peek()? else {
        return Err(Declined);
    };
    r.node(first, -1)?;
    if r.peek()?.is_some() {
        return Err(Declined);
    }
    r.emit(Event::DocumentEnd)?;
    r.emit(Event::StreamEnd)
}

/// No byte this reader leaves to saphyr-parser: ASCII controls other than `\n` (so no tab, no `\r`), DEL, C1
/// controls (NEL included), U+2028/U+2029, a byte-order mark, U+FFFE/U+FFFF.
fn printable(bytes: &[u8]) -> bool {
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x20 {
            if b != b'\n' {
                return false;
            }
        } else if b >= 0x7F {
            let next = |k: usize| bytes.get(i + k).copied().unwrap_or(0);
            let refused = match b {
                0x7F => true,
                0xC2 => next(1) < 0xA0,
                0xE2 => next(1) == 0x80 && matches!(next(2), 0xA8 | 0xA9),
                0xEF => matches!(
                    (next(1), next(2)),
                    (0xBB, 0xBF) | (0xBF, 0xBE) | (0xBF, 0xBF)
                ),
                _ => false,
            };
            if refused {
                return false;
            }
        }
        i += 1;
    }
    true
}

/// One physical line: `start` of the line, `indent` spaces, content from `start + indent` to `end` (the `\n` or the
/// end of the text).
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    indent: usize,
    end: usize,
}

impl Line {
    fn content(&self) -> usize {
        self.start + self.indent
    }
    fn blank(&self) -> bool {
        self.content() == self.end
    }
}

/// How a block scalar treats its final line breaks.
#[derive(Clone, Copy, PartialEq)]
enum Chomp {
    Clip,
    Strip,
    Keep,
}

/// `s` without its trailing spaces (`str::trim_end_matches(' ')`, written here so that it is compiled with the
/// reader whatever code-generation unit the standard library's generic lands in).
fn trim_spaces(s: &str) -> &str {
    let bytes = s.as_bytes();
    let mut n = bytes.len();
    while n > 0 && bytes[n - 1] == b' ' {
        n -= 1;
    }
    // Only ASCII spaces were cut, so `n` is a character boundary.
    s.get(..n).unwrap_or(s)
}

/// Where the first ` #` of `bytes` is (a comment after a plain scalar).
fn comment_start(bytes: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'#', bytes)
        .find(|&j| j > 0 && bytes[j - 1] == b' ')
        .map(|j| j - 1)
}

/// Characters that start something other than a plain scalar.
fn indicator(b: u8) -> bool {
    matches!(
        b,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

struct Reader<'a, 'l, S> {
    text: &'a str,
    bytes: &'a [u8],
    /// Start of the next line to read.
    pos: usize,
    /// Byte offset of the token the next event stands for (the start of its span).
    token: usize,
    sink: &'l mut S,
}

impl<'a, S: Sink<'a>> Reader<'a, '_, S> {
    fn emit(&mut self, event: Event<'a>) -> R<()> {
        let at = Marker::new(self.token, 1, 0);
        if self.sink.take(event, Span::new(at, at)) {
            Ok(())
        } else {
            Err(Declined)
        }
    }

    fn scalar(&mut self, value: Cow<'a, str>, style: ScalarStyle) -> R<()> {
        self.emit(Event::Scalar(value, style, 0, None))
    }

    fn null(&mut self) -> R<()> {
        self.scalar(Cow::Borrowed("~"), ScalarStyle::Plain)
    }

    fn line_at(&self, start: usize) -> Line {
        let rest = &self.bytes[start..];
        let end = memchr::memchr(b'\n', rest).map_or(self.bytes.len(), |i| start + i);
        let indent = rest[..end - start]
            .iter()
            .take_while(|&&b| b == b' ')
            .count();
        Line { start, indent, end }
    }

    /// The start of the line after the one ending at `end`.
    fn next_line(&self, end: usize) -> usize {
        (end + 1).min(self.bytes.len())
    }

    fn at(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(b'\n')
    }

    fn skip_spaces(&self, mut i: usize, end: usize) -> usize {
        while i < end && self.bytes[i] == b' ' {
            i += 1;
        }
        i
    }

    /// The next line with content (blank and comment lines skipped; `pos` moves to it), declining document markers
    /// and directives.
    fn peek(&mut self) -> R<Option<Line>> {
        while self.pos < self.bytes.len() {
            let line = self.line_at(self.pos);
            if line.blank() || self.bytes[line.content()] == b'#' {
                self.pos = self.next_line(line.end);
                continue;
            }
            if line.indent == 0 {
                let head = &self.bytes[line.start..line.end];
                let marker = (head.starts_with(b"---") || head.starts_with(b"..."))
                    && matches!(head.get(3), None | Some(b' '));
                if marker || head[0] == b'%' {
                    return Err(Declined);
                }
            }
            return Ok(Some(line));
        }
        Ok(None)
    }

    /// `- ` (or `-` at the end of the line) at `i`.
    fn dash(&self, i: usize) -> bool {
        self.at(i) == b'-' && matches!(self.at(i + 1), b' ' | b'\n')
    }

    /// A block collection starting on `line`, more indented than `parent`.
    fn node(&mut self, line: Line, parent: isize) -> R<()> {
        if line.indent as isize <= parent {
            return Err(Declined);
        }
        let at = line.content();
        if self.dash(at) {
            self.sequence(line.indent)
        } else if let Some(key) = self.key(at)? {
            self.mapping(line.indent, key)
        } else {
            Err(Declined)
        }
    }

    /// The implicit key at `i`, if the line holds one: its text, style, and the position after its `:`.
    fn key(&self, i: usize) -> R<Option<Key<'a>>> {
        let end = self.line_at_end(i);
        let (value, style, close) = match self.bytes[i] {
            b'"' | b'\'' => {
                // Not closed on this line: not a key (a quoted scalar over several lines, or something to decline).
                let Ok(quoted) = self.quoted_scalar(i, None) else {
                    return Ok(None);
                };
                quoted
            }
            // Flow collections, block scalars, anchors, tags...: not an implicit key this reader takes.
            b if indicator(b) => return Ok(None),
            _ => {
                let mut j = i;
                while j < end {
                    match self.bytes[j] {
                        b':' if matches!(self.at(j + 1), b' ' | b'\n') => {
                            let text = trim_spaces(&self.text[i..j]);
                            if text.len() > 1000 {
                                return Err(Declined);
                            }
                            return Ok(Some((Cow::Borrowed(text), ScalarStyle::Plain, j + 1)));
                        }
                        b'#' if self.bytes[j - 1] == b' ' => return Err(Declined),
                        _ => j += 1,
                    }
                }
                return Ok(None);
            }
        };
        if close - i > 1000 {
            return Err(Declined);
        }
        let colon = self.skip_spaces(close, end);
        if self.at(colon) == b':' && matches!(self.at(colon + 1), b' ' | b'\n') {
            Ok(Some((value, style, colon + 1)))
        } else {
            Ok(None)
        }
    }

    fn line_at_end(&self, i: usize) -> usize {
        memchr::memchr(b'\n', &self.bytes[i..]).map_or(self.bytes.len(), |k| i + k)
    }

    /// A block mapping at column `col`, its first key already read.
    /// Every key of it is on a line that [`Reader::peek`] moved `pos` to, `col` bytes from the line's start.
    fn mapping(&mut self, col: usize, first: Key<'a>) -> R<()> {
        self.token = self.pos + col;
        self.emit(Event::MappingStart(0, None))?;
        let mut key = first;
        loop {
            let (text, style, after) = key;
            self.token = self.pos + col;
            self.scalar(text, style)?;
            let end = self.line_at_end(after);
            self.value(after, end, col as isize, true)?;
            key = match self.peek()? {
                Some(l) if l.indent == col && !self.dash(l.content()) => {
                    self.key(l.content())?.ok_or(Declined)?
                }
                Some(l) if l.indent >= col => return Err(Declined),
                _ => break,
            };
        }
        self.emit(Event::MappingEnd)
    }

    /// A block sequence whose dashes are at column `col`.
    fn sequence(&mut self, col: usize) -> R<()> {
        self.token = self.pos + col;
        self.emit(Event::SequenceStart(0, None))?;
        loop {
            let line = match self.peek()? {
                Some(l) if l.indent == col && self.dash(l.content()) => l,
                Some(l) if l.indent > col => return Err(Declined),
                _ => break,
            };
            let after = line.content() + 1;
            let p = self.skip_spaces(after, line.end);
            if p < line.end && self.bytes[p] != b'#' {
                if self.dash(p) {
                    return Err(Declined);
                }
                if let Some(key) = self.key(p)? {
                    self.mapping(p - line.start, key)?;
                    continue;
                }
            }
            self.value(after, line.end, col as isize, false)?;
        }
        self.emit(Event::SequenceEnd)
    }

    /// The value after a `:` or `-` at `after` (the line ends at `end`), inside a collection at column `parent`.
    /// `compact`: a sequence at the parent's own column may be the value (`key:` then `- item` lines).
    fn value(&mut self, after: usize, end: usize, parent: isize, compact: bool) -> R<()> {
        let p = self.skip_spaces(after, end);
        self.token = p;
        if p == end || self.bytes[p] == b'#' {
            if p == after && p < end {
                return Err(Declined);
            }
            self.pos = self.next_line(end);
            return match self.peek()? {
                Some(l) if l.indent as isize > parent => self.node(l, parent),
                Some(l) if compact && l.indent as isize == parent && self.dash(l.content()) => {
                    self.sequence(l.indent)
                }
                _ => self.null(),
            };
        }
        match self.bytes[p] {
            b'"' | b'\'' => self.quoted(p, parent)?,
            b'[' => self.flow_sequence(p, end)?,
            b'{' => {
                let close = self.skip_spaces(p + 1, end);
                if self.at(close) != b'}' {
                    return Err(Declined);
                }
                self.emit(Event::MappingStart(0, None))?;
                self.emit(Event::MappingEnd)?;
                self.line_rest(close + 1, end)?;
            }
            b'|' | b'>' => self.block_scalar(p, end, parent)?,
            b'-' if !matches!(self.at(p + 1), b' ' | b'\n') => self.plain(p, end, parent)?,
            b if indicator(b) => return Err(Declined),
            _ => self.plain(p, end, parent)?,
        }
        // Nothing may follow a scalar more indented than its collection.
        match self.peek()? {
            Some(l) if l.indent as isize > parent => Err(Declined),
            _ => Ok(()),
        }
    }

    /// After a value that ends at `i` on a line ending at `end`: only spaces, then the end or a comment.
    fn line_rest(&mut self, i: usize, end: usize) -> R<()> {
        let j = self.skip_spaces(i, end);
        if j < end && (self.bytes[j] != b'#' || j == i) {
            return Err(Declined);
        }
        self.pos = self.next_line(end);
        Ok(())
    }

    /// A plain scalar starting at `p`, folded over the more-indented lines that follow.
    fn plain(&mut self, p: usize, end: usize, parent: isize) -> R<()> {
        let (first, commented) = match comment_start(&self.bytes[p..end]) {
            Some(k) => (&self.text[p..p + k], true),
            None => (&self.text[p..end], false),
        };
        let first = trim_spaces(first);
        if first.contains(": ") || first.ends_with(':') {
            return Err(Declined);
        }
        let mut value = Cow::Borrowed(first);
        self.pos = self.next_line(end);
        if !commented {
            let mut empty = 0usize;
            while self.pos < self.bytes.len() {
                let line = self.line_at(self.pos);
                if line.blank() {
                    empty += 1;
                    self.pos = self.next_line(line.end);
                    continue;
                }
                if line.indent as isize <= parent {
                    break;
                }
                let text = &self.text[line.content()..line.end];
                // Inside a plain scalar, a line may start with any character but a comment's `#`.
                if text.starts_with('#')
                    || text.contains(": ")
                    || text.ends_with(':')
                    || text.contains(" #")
                {
                    return Err(Declined);
                }
                let s = value.to_mut();
                if empty == 0 {
                    s.push(' ');
                } else {
                    s.extend(std::iter::repeat_n('\n', empty));
                }
                s.push_str(trim_spaces(text));
                empty = 0;
                self.pos = self.next_line(line.end);
            }
        }
        self.scalar(value, ScalarStyle::Plain)
    }

    /// The escape at `j` (a backslash) appended to `out`; the position after it.
    fn escape(&self, j: usize, end: usize, out: &mut String) -> R<usize> {
        let c = self.bytes[..end].get(j + 1).copied().ok_or(Declined)?;
        let simple = match c {
            b'0' => Some('\0'),
            b'a' => Some('\x07'),
            b'b' => Some('\x08'),
            b't' => Some('\t'),
            b'n' => Some('\n'),
            b'v' => Some('\x0b'),
            b'f' => Some('\x0c'),
            b'r' => Some('\r'),
            b'e' => Some('\x1b'),
            b' ' => Some(' '),
            b'"' => Some('"'),
            b'/' => Some('/'),
            b'\\' => Some('\\'),
            b'N' => Some('\u{85}'),
            b'_' => Some('\u{a0}'),
            b'L' => Some('\u{2028}'),
            b'P' => Some('\u{2029}'),
            _ => None,
        };
        if let Some(ch) = simple {
            out.push(ch);
            return Ok(j + 2);
        }
        let digits = match c {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => return Err(Declined),
        };
        let hex = self.text.get(j + 2..j + 2 + digits).ok_or(Declined)?;
        if j + 2 + digits > end || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Declined);
        }
        let code = u32::from_str_radix(hex, 16).map_err(|_| Declined)?;
        out.push(char::from_u32(code).ok_or(Declined)?);
        Ok(j + 2 + digits)
    }

    /// A quoted scalar value from the quote at `p`, possibly folded over more-indented lines.
    fn quoted(&mut self, p: usize, parent: isize) -> R<()> {
        let (value, style, close) = self.quoted_scalar(p, Some(parent))?;
        self.line_rest(close, self.line_at_end(close))?;
        self.scalar(value, style)
    }

    /// The quoted scalar whose opening quote is at `i`: its value, its style, and the position after its closing
    /// quote. With `fold_over: Some(parent)` it may go on over lines more indented than `parent`: each line break
    /// folds to a space, or to one `\n` per empty line between, and spaces around a break are dropped (escaped ones
    /// are kept). With `None` it must close on its own line.
    fn quoted_scalar(
        &self,
        i: usize,
        fold_over: Option<isize>,
    ) -> R<(Cow<'a, str>, ScalarStyle, usize)> {
        let double = self.bytes[i] == b'"';
        let (quote, style) = if double {
            (b'"', ScalarStyle::DoubleQuoted)
        } else {
            (b'\'', ScalarStyle::SingleQuoted)
        };
        let body = i + 1;
        let mut end = self.line_at_end(i);
        // Most quoted scalars close on their line with no escape: borrowed from the text.
        let stop = if double {
            memchr::memchr2(b'"', b'\\', &self.bytes[body..end])
        } else {
            memchr::memchr(b'\'', &self.bytes[body..end])
        };
        if let Some(k) = stop
            && self.bytes[body + k] == quote
            && (double || self.at(body + k + 1) != b'\'')
        {
            return Ok((
                Cow::Borrowed(&self.text[body..body + k]),
                style,
                body + k + 1,
            ));
        }
        let mut out = String::new();
        let mut kept = 0usize;
        let mut j = body;
        // A `\` at the end of a line escapes its break: the lines join with nothing between them.
        let mut escaped_break = false;
        loop {
            if j >= end {
                let Some(parent) = fold_over else {
                    return Err(Declined);
                };
                if end >= self.bytes.len() {
                    return Err(Declined);
                }
                out.truncate(kept);
                let mut empty = 0usize;
                let mut next = end + 1;
                let line = loop {
                    if next >= self.bytes.len() {
                        return Err(Declined);
                    }
                    let line = self.line_at(next);
                    if !line.blank() {
                        break line;
                    }
                    empty += 1;
                    next = self.next_line(line.end);
                };
                if line.indent as isize <= parent {
                    return Err(Declined);
                }
                if empty == 0 {
                    if !escaped_break {
                        out.push(' ');
                    }
                } else {
                    out.extend(std::iter::repeat_n('\n', empty));
                }
                escaped_break = false;
                kept = out.len();
                j = line.content();
                end = line.end;
                continue;
            }
            let b = self.bytes[j];
            if b == quote {
                if !double && self.at(j + 1) == b'\'' {
                    out.push('\'');
                    kept = out.len();
                    j += 2;
                    continue;
                }
                return Ok((Cow::Owned(out), style, j + 1));
            }
            if double && b == b'\\' {
                if j + 1 >= end {
                    escaped_break = true;
                    kept = out.len();
                    j = end;
                    continue;
                }
                j = self.escape(j, end, &mut out)?;
                kept = out.len();
                continue;
            }
            let ch_len = utf8_len(b);
            out.push_str(&self.text[j..j + ch_len]);
            if b != b' ' {
                kept = out.len();
            }
            j += ch_len;
        }
    }

    /// `[a, "b", 'c']` on one line: scalars only.
    fn flow_sequence(&mut self, p: usize, end: usize) -> R<()> {
        self.emit(Event::SequenceStart(0, None))?;
        let mut i = self.skip_spaces(p + 1, end);
        if self.at(i) == b']' {
            i += 1;
        } else {
            loop {
                self.token = i;
                match self.at(i) {
                    b'"' | b'\'' => {
                        let (v, style, close) = self.quoted_scalar(i, None)?;
                        self.scalar(v, style)?;
                        i = close;
                    }
                    b if indicator(b) || b == b'\n' => return Err(Declined),
                    _ => {
                        let k = memchr::memchr2(b',', b']', &self.bytes[i..end]).ok_or(Declined)?;
                        let item = trim_spaces(&self.text[i..i + k]);
                        // A `-` before a flow indicator is an error in a flow scalar.
                        if item.ends_with('-')
                            || item
                                .bytes()
                                .any(|b| matches!(b, b':' | b'#' | b'[' | b'{' | b'}'))
                        {
                            return Err(Declined);
                        }
                        self.scalar(Cow::Borrowed(item), ScalarStyle::Plain)?;
                        i += k;
                    }
                }
                i = self.skip_spaces(i, end);
                match self.at(i) {
                    b',' if i < end => {
                        i = self.skip_spaces(i + 1, end);
                        if self.at(i) == b']' {
                            return Err(Declined);
                        }
                    }
                    b']' if i < end => {
                        i += 1;
                        break;
                    }
                    _ => return Err(Declined),
                }
            }
        }
        self.emit(Event::SequenceEnd)?;
        self.line_rest(i, end)
    }

    /// A `|` or `>` block scalar whose header is at `p`, in a collection at column `parent`.
    fn block_scalar(&mut self, p: usize, end: usize, parent: isize) -> R<()> {
        let literal = self.bytes[p] == b'|';
        let style = if literal {
            ScalarStyle::Literal
        } else {
            ScalarStyle::Folded
        };
        let mut i = p + 1;
        let chomp = match self.at(i) {
            b'-' => {
                i += 1;
                Chomp::Strip
            }
            b'+' => {
                i += 1;
                Chomp::Keep
            }
            b' ' | b'\n' => Chomp::Clip,
            _ => return Err(Declined),
        };
        // The header line: spaces, then the end or a comment after a space.
        let j = self.skip_spaces(i, end);
        if j < end && (self.bytes[j] != b'#' || j == i) {
            return Err(Declined);
        }
        if end >= self.bytes.len() {
            return Err(Declined);
        }
        let mut pos = end + 1;
        let mut leading = 0usize;
        let mut widest_blank = 0usize;
        let first = loop {
            if pos >= self.bytes.len() {
                break None;
            }
            let line = self.line_at(pos);
            if !line.blank() {
                break Some(line);
            }
            leading += 1;
            widest_blank = widest_blank.max(line.indent);
            pos = self.next_line(line.end);
        };
        let indent = match first {
            Some(line) if line.indent as isize > parent => line.indent,
            _ => {
                // No content line: an empty scalar (its empty lines kept by `+`).
                if pos >= self.bytes.len() && !self.text.ends_with('\n') {
                    return Err(Declined);
                }
                self.pos = pos;
                let value = if chomp == Chomp::Keep {
                    Cow::Owned("\n".repeat(leading))
                } else {
                    Cow::Borrowed("")
                };
                return self.scalar(value, style);
            }
        };
        if widest_blank > indent {
            return Err(Declined);
        }
        let mut out = String::new();
        let mut pending = leading;
        let mut first_line = true;
        let mut previous_more_indented = false;
        while pos < self.bytes.len() {
            let line = self.line_at(pos);
            // A line of spaces only is empty up to the scalar's indentation; past it, the spaces are content.
            if line.blank() && line.indent <= indent {
                pending += 1;
                pos = self.next_line(line.end);
                continue;
            }
            if line.indent < indent {
                break;
            }
            let text = &self.text[line.start + indent..line.end];
            // A folded scalar joins two lines with a space (or with the empty lines between them), unless either
            // is more indented than the scalar; a literal one keeps every line break.
            let more_indented = text.starts_with(' ');
            if first_line {
                out.extend(std::iter::repeat_n('\n', pending));
            } else if !literal && !previous_more_indented && !more_indented {
                if pending == 0 {
                    out.push(' ');
                } else {
                    out.extend(std::iter::repeat_n('\n', pending));
                }
            } else {
                out.extend(std::iter::repeat_n('\n', 1 + pending));
            }
            previous_more_indented = more_indented;
            out.push_str(text);
            first_line = false;
            pending = 0;
            if line.end >= self.bytes.len() {
                return Err(Declined);
            }
            pos = line.end + 1;
        }
        // A block scalar that runs to the end of a text without a final line break: saphyr-parser's rules for that
        // last line are its own.
        if pos >= self.bytes.len() && !self.text.ends_with('\n') {
            return Err(Declined);
        }
        match chomp {
            Chomp::Strip => {}
            Chomp::Clip => out.push('\n'),
            Chomp::Keep => {
                // The last line break and every empty line after it.
                out.extend(std::iter::repeat_n('\n', 1 + pending));
            }
        }
        self.pos = pos;
        self.scalar(Cow::Owned(out), style)
    }
}

/// Length of the UTF-8 sequence led by `b`.
fn utf8_len(b: u8) -> usize {
    match b {
        0..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

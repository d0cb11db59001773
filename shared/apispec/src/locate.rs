//! Lazy line/column lookup for diagnostics.
//!
//! Values carry no positions (that would double the memory of a 13 MB document). When there
//! are diagnostics, the text of each concerned file is scanned once more, tracking the JSON
//! pointer of every node, and the positions of the wanted pointers (and their parents, as a
//! fallback) are recorded. For an object member the position is that of its key. Both scans
//! are iterative (explicit stacks), so hostile nesting cannot overflow the stack.

use std::collections::{HashMap, HashSet};

use saphyr_parser::{Event, Parser};

use crate::{Diagnostic, SourceFormat};

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
        let mut wanted: HashSet<String> = HashSet::new();
        for d in list.iter().filter(|d| d.line.is_none() && d.file == file) {
            let mut p = d.pointer.as_str();
            loop {
                wanted.insert(p.to_string());
                match p.rfind('/') {
                    Some(i) => p = &p[..i],
                    None => break,
                }
            }
        }
        let found = match format {
            SourceFormat::Json if text.trim_start().starts_with(['{', '[']) => {
                scan_json(text, &wanted)
            }
            _ => scan_yaml(text, &wanted),
        };
        for d in list
            .iter_mut()
            .filter(|d| d.line.is_none() && d.file == file)
        {
            let mut p = d.pointer.as_str();
            loop {
                if let Some(&(l, c)) = found.get(p) {
                    d.line = Some(l);
                    d.column = Some(c);
                    break;
                }
                match p.rfind('/') {
                    Some(i) => p = &p[..i],
                    None => break,
                }
            }
        }
    }
}

struct Frame {
    is_map: bool,
    next_index: usize,
    /// Pointer of the member whose key was just read (maps only).
    key_ptr: Option<String>,
    base: String,
}

fn child_pointer(stack: &mut [Frame]) -> String {
    match stack.last_mut() {
        None => String::new(),
        Some(f) if f.is_map => f.key_ptr.take().unwrap_or_else(|| f.base.clone()),
        Some(f) => {
            let p = format!("{}/{}", f.base, f.next_index);
            f.next_index += 1;
            p
        }
    }
}

fn key_pointer(base: &str, key: &str) -> String {
    let mut p = base.to_string();
    crate::pointer::push_token(&mut p, key);
    p
}

/// Scans YAML events; positions are (line, column), 1-based.
fn scan_yaml(text: &str, wanted: &HashSet<String>) -> HashMap<String, (u32, u32)> {
    let mut found: HashMap<String, (u32, u32)> = HashMap::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut parser = Parser::new_from_str(text);
    while let Some(Ok((event, span))) = parser.next_event() {
        if found.len() == wanted.len() {
            break;
        }
        let pos = (span.start.line() as u32, span.start.col() as u32 + 1);
        let record = |p: &String, found: &mut HashMap<String, (u32, u32)>| {
            if wanted.contains(p) {
                found.entry(p.clone()).or_insert(pos);
            }
        };
        match event {
            Event::Scalar(v, ..) => {
                if let Some(f) = stack.last_mut()
                    && f.is_map
                    && f.key_ptr.is_none()
                {
                    let kp = key_pointer(&f.base, &v);
                    record(&kp, &mut found);
                    f.key_ptr = Some(kp);
                    continue;
                }
                let p = child_pointer(&mut stack);
                record(&p, &mut found);
            }
            Event::Alias(_) => {
                let p = child_pointer(&mut stack);
                record(&p, &mut found);
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                let is_map = matches!(event, Event::MappingStart(..));
                if let Some(f) = stack.last()
                    && f.is_map
                    && f.key_ptr.is_none()
                {
                    // A complex key: not addressable by a pointer; give up on positions.
                    break;
                }
                let p = child_pointer(&mut stack);
                record(&p, &mut found);
                stack.push(Frame {
                    is_map,
                    next_index: 0,
                    key_ptr: None,
                    base: p,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                stack.pop();
            }
            _ => {}
        }
    }
    found
}

/// Scans JSON text with a small tokenizer; positions are (line, column), 1-based, column in
/// characters.
fn scan_json(text: &str, wanted: &HashSet<String>) -> HashMap<String, (u32, u32)> {
    let bytes = text.as_bytes();
    let mut offsets: HashMap<String, usize> = HashMap::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let record = |p: &String, at: usize, offsets: &mut HashMap<String, usize>| {
        if wanted.contains(p) {
            offsets.entry(p.clone()).or_insert(at);
        }
    };
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\r' | b'\n' | b',' | b':' => i += 1,
            b'{' | b'[' => {
                let p = child_pointer(&mut stack);
                record(&p, i, &mut offsets);
                stack.push(Frame {
                    is_map: bytes[i] == b'{',
                    next_index: 0,
                    key_ptr: None,
                    base: p,
                });
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
            }
            b'"' => {
                let start = i;
                i += 1;
                let mut escaped = false;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => {
                            escaped = true;
                            i += 2;
                        }
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                let end = (i + 1).min(bytes.len());
                i = end;
                let raw = &text[start..end];
                let is_key = matches!(stack.last(), Some(f) if f.is_map && f.key_ptr.is_none());
                if is_key {
                    let key: String = if escaped {
                        serde_json::from_str(raw).unwrap_or_default()
                    } else {
                        raw.trim_matches('"').to_string()
                    };
                    let kp = match stack.last() {
                        Some(f) => key_pointer(&f.base, &key),
                        None => String::new(),
                    };
                    // The last occurrence wins: a duplicate key is reported where it repeats.
                    if wanted.contains(&kp) {
                        offsets.insert(kp.clone(), start);
                    }
                    if let Some(f) = stack.last_mut() {
                        f.key_ptr = Some(kp);
                    }
                } else {
                    let p = child_pointer(&mut stack);
                    record(&p, start, &mut offsets);
                }
            }
            _ => {
                let p = child_pointer(&mut stack);
                record(&p, i, &mut offsets);
                while i < bytes.len()
                    && !matches!(bytes[i], b',' | b']' | b'}' | b' ' | b'\t' | b'\r' | b'\n')
                {
                    i += 1;
                }
            }
        }
    }
    // Offsets to (line, column) in one pass.
    let mut by_offset: Vec<(usize, String)> = offsets.into_iter().map(|(p, o)| (o, p)).collect();
    by_offset.sort();
    let mut found = HashMap::new();
    let (mut line, mut line_start, mut pos) = (1u32, 0usize, 0usize);
    for (off, p) in by_offset {
        while pos < off {
            if bytes[pos] == b'\n' {
                line += 1;
                line_start = pos + 1;
            }
            pos += 1;
        }
        let col = text
            .get(line_start..off)
            .map_or(1, |s| s.chars().count() + 1);
        found.insert(p, (line, col as u32));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn want(ps: &[&str]) -> HashSet<String> {
        ps.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn json_positions_point_at_keys_and_items() {
        let text = "{\n  \"a\": {\"b~/\": [1, {\"c\": 2}]},\n  \"d\": \"x\\\"y\"\n}";
        let f = scan_json(text, &want(&["", "/a", "/a/b~0~1", "/a/b~0~1/1/c", "/d"]));
        assert_eq!(f[""], (1, 1));
        assert_eq!(f["/a"], (2, 3));
        assert_eq!(f["/a/b~0~1"], (2, 9));
        assert_eq!(f["/a/b~0~1/1/c"], (2, 21));
        assert_eq!(f["/d"], (3, 3));
    }

    #[test]
    fn yaml_positions_point_at_keys_and_items() {
        let text = "a:\n  b:\n    - 1\n    - c: 2\nd: x\n";
        let f = scan_yaml(text, &want(&["/a", "/a/b/1/c", "/a/b/0", "/d"]));
        assert_eq!(f["/a"], (1, 1));
        assert_eq!(f["/a/b/0"], (3, 7));
        assert_eq!(f["/a/b/1/c"], (4, 7));
        assert_eq!(f["/d"], (5, 1));
    }
}

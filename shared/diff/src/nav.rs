//! Fast navigation in a document: pointer lookups and `$ref` resolution with two caches.
//!
//! The spec engine's `value`/`resolve` walk every pointer from the file root; on large
//! documents that dominated the diff. Here a pointer is walked without allocation, from the
//! last path item looked up when the pointer lies inside it (or from a cached three-token
//! prefix), and each `$ref` string is resolved once per file.

use std::collections::HashMap;
use std::rc::Rc;

use hashbrown::HashTable;
use specpress_apispec::{Document, FileId, Kind, Location, V};

/// The engine's hasher for its own maps, whose keys are JSON pointers and names from the
/// documents being compared: rustc-hash's Fx hasher, fast and not cryptographic (the maps are
/// private to one diff run, so hash flooding is not a concern).
pub(crate) use rustc_hash::FxHasher;

/// `BuildHasher` for [`FxHasher`].
pub(crate) type FxBuild = rustc_hash::FxBuildHasher;
/// A `HashMap` with [`FxHasher`].
pub(crate) type FxMap<K, V> = HashMap<K, V, FxBuild>;
/// A `HashSet` with [`FxHasher`].
pub(crate) type FxSet<K> = std::collections::HashSet<K, FxBuild>;

/// Longest `$ref` chain followed (the spec engine's default limit).
const MAX_CHAIN: usize = 64;

/// Where a `$ref` leads: the final location (shared, so handing it out copies no pointer)
/// and the value there.
pub(crate) type Target<'a> = (Rc<Location>, V<'a>);

pub(crate) struct Nav<'a> {
    doc: &'a Document,
    /// Values of the three-token prefixes walked so far (`/paths/<path>/<method>`,
    /// `/components/schemas/<name>`), by file and prefix.
    prefixes: HeadCache<'a>,
    /// `$ref` strings already resolved: (file, ref) → final location (shared: a hit copies
    /// no pointer) and value.
    refs: FxMap<(FileId, &'a str), Option<Target<'a>>>,
    /// The last pointer looked up and the value after each of its tokens (from the end of
    /// its cached prefix on): the next lookup resumes from the longest common token prefix
    /// (consecutive lookups are siblings: `…/responses/200/schema`, `…/responses/404/schema`).
    last: Option<FileId>,
    last_pointer: String,
    stack: Vec<(usize, V<'a>)>,
}

/// The pointer prefixes walked so far and their values: a hash table keyed by file and
/// prefix whose keys live in one text buffer (no allocation per key, and dropping it frees
/// three buffers).
struct HeadCache<'a> {
    /// Indices in `entries`, by the hash of their file and prefix.
    table: HashTable<u32>,
    entries: Vec<HeadEntry<'a>>,
    /// Every prefix, one after the other.
    text: String,
}

struct HeadEntry<'a> {
    file: FileId,
    /// Where the prefix is in [`HeadCache::text`].
    span: std::ops::Range<usize>,
    value: Option<V<'a>>,
    /// The hash of the file and prefix (the table grows without hashing prefixes again).
    hash: u64,
}

impl<'a> HeadCache<'a> {
    fn with_capacity(entries: usize) -> Self {
        HeadCache {
            table: HashTable::with_capacity(entries),
            entries: Vec::with_capacity(entries),
            text: String::with_capacity(entries * 48),
        }
    }

    fn hash(file: FileId, head: &str) -> u64 {
        use std::hash::Hasher;
        // The length and the last bytes: prefixes share their beginnings (`/paths/~1api~1v1`)
        // and differ at the end (entries with the same hash still compare whole prefixes).
        let bytes = head.as_bytes();
        let mut h = FxHasher::default();
        h.write_u32(file.0);
        h.write_usize(bytes.len());
        h.write(bytes.get(bytes.len().saturating_sub(24)..).unwrap_or(bytes));
        h.finish()
    }

    /// `Some(value)` if the prefix was walked before (the value is `None` if it led nowhere).
    fn get(&self, hash: u64, file: FileId, head: &str) -> Option<Option<V<'a>>> {
        let same = |&i: &u32| {
            self.entries
                .get(i as usize)
                .is_some_and(|e| e.file == file && self.text.get(e.span.clone()) == Some(head))
        };
        let i = *self.table.find(hash, same)?;
        self.entries.get(i as usize).map(|e| e.value)
    }

    /// Records a prefix not recorded before.
    fn insert(&mut self, hash: u64, file: FileId, head: &str, value: Option<V<'a>>) {
        let i = self.entries.len();
        let start = self.text.len();
        self.text.push_str(head);
        let entries = &self.entries;
        let rehash = |&j: &u32| entries.get(j as usize).map_or(0, |e| e.hash);
        self.table.insert_unique(hash, i as u32, rehash);
        self.entries.push(HeadEntry {
            file,
            span: start..self.text.len(),
            value,
            hash,
        });
    }
}

/// Length of the common byte prefix of two strings, compared a word at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while let (Some(x), Some(y)) = (a.get(i..i + 8), b.get(i..i + 8)) {
        let (mut wx, mut wy) = ([0u8; 8], [0u8; 8]);
        wx.copy_from_slice(x);
        wy.copy_from_slice(y);
        let diff = u64::from_le_bytes(wx) ^ u64::from_le_bytes(wy);
        if diff != 0 {
            return i + (diff.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// One pointer step from `v` by the raw (escaped) token.
#[inline]
fn step<'v>(v: V<'v>, raw: &str, escaped: bool) -> Option<V<'v>> {
    if escaped {
        step_escaped(v, raw)
    } else {
        step_token(v, raw)
    }
}

/// [`step`] by a token holding `~` escapes (kept out of line: most tokens hold none).
#[inline(never)]
fn step_escaped<'v>(v: V<'v>, raw: &str) -> Option<V<'v>> {
    // Unescaped on the stack when short (path templates, media types), else on the heap.
    let mut buf = [0u8; 256];
    match buf.get_mut(..raw.len()) {
        Some(out) => {
            let n = unescape_into(raw.as_bytes(), out);
            // Only ASCII escape sequences are replaced (by ASCII), so this stays UTF-8.
            step_token(v, std::str::from_utf8(out.get(..n)?).ok()?)
        }
        None => step_token(v, &unescape(raw)),
    }
}

/// One pointer step from `v` by an unescaped token (an array index as `usize` parses it).
#[inline]
fn step_token<'v>(v: V<'v>, token: &str) -> Option<V<'v>> {
    match v.kind() {
        Kind::Object(m) => m.get(token),
        Kind::Array(a) => a.get(token.parse::<usize>().ok()?),
        _ => None,
    }
}

/// [`unescape`] into `out` (at least as long as `raw`); returns the length written.
fn unescape_into(raw: &[u8], out: &mut [u8]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while let Some(&b) = raw.get(i) {
        let decoded = match (b, raw.get(i + 1)) {
            (b'~', Some(b'1')) => Some(b'/'),
            (b'~', Some(b'0')) => Some(b'~'),
            _ => None,
        };
        let (byte, width) = decoded.map_or((b, 1), |d| (d, 2));
        if let Some(slot) = out.get_mut(n) {
            *slot = byte;
        }
        n += 1;
        i += width;
    }
    n
}

/// `0x01` in every byte of a word.
const LO: u64 = 0x0101_0101_0101_0101;
/// `0x80` in every byte of a word.
const HI: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `w` equal to `byte`, read eight bytes at a time. Bytes above
/// the first match may be flagged falsely (a borrow), never bytes below it: the lowest flag
/// is always exact, and any flag implies a true match at or below it.
#[inline]
fn matches(w: u64, byte: u8) -> u64 {
    let x = w ^ (LO * u64::from(byte));
    x.wrapping_sub(LO) & !x & HI
}

/// The end of the pointer token starting at `start` (the next `/` or the end), and whether
/// it holds `~` escapes: one scan per token, a word at a time.
#[inline]
fn token_end(bytes: &[u8], start: usize) -> (usize, bool) {
    let mut end = start;
    let mut escaped = false;
    while let Some(chunk) = bytes.get(end..end + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let w = u64::from_le_bytes(w);
        let (slash, tilde) = (matches(w, b'/'), matches(w, b'~'));
        if slash != 0 {
            let below = (slash & slash.wrapping_neg()) - 1;
            return (
                end + (slash.trailing_zeros() / 8) as usize,
                escaped || tilde & below != 0,
            );
        }
        escaped |= tilde != 0;
        end += 8;
    }
    token_end_bytewise(bytes, end, escaped)
}

/// [`token_end`] one byte at a time from `end` (the tail shorter than a word), `escaped`
/// carrying what the bytes before it held.
#[inline]
fn token_end_bytewise(bytes: &[u8], mut end: usize, mut escaped: bool) -> (usize, bool) {
    while let Some(&b) = bytes.get(end) {
        if b == b'/' {
            break;
        }
        escaped |= b == b'~';
        end += 1;
    }
    (end, escaped)
}

fn walk<'v>(mut v: V<'v>, pointer: &str) -> Option<V<'v>> {
    if pointer.is_empty() {
        return Some(v);
    }
    let rest = pointer.strip_prefix('/')?;
    let bytes = rest.as_bytes();
    let mut start = 0;
    loop {
        let (end, escaped) = token_end(bytes, start);
        v = step(v, rest.get(start..end)?, escaped)?;
        if end >= bytes.len() {
            return Some(v);
        }
        start = end + 1;
    }
}

/// `~1` → `/`, `~0` → `~` in one pass (a lone `~` is kept).
fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch == '~' {
            match chars.peek() {
                Some('1') => {
                    chars.next();
                    out.push('/');
                    continue;
                }
                Some('0') => {
                    chars.next();
                    out.push('~');
                    continue;
                }
                _ => {}
            }
        }
        out.push(ch);
    }
    out
}

/// The JSON pointer of a local `$ref` (`#/definitions/Pet`) that the spec engine would take
/// as written: no percent-encoding, every `~` escape valid, and no token that an array index
/// lookup reads differently here (`+1`, leading zeros). `None` sends the reference to the
/// spec engine.
fn direct_local_pointer(r: &str) -> Option<&str> {
    let pointer = r.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(pointer);
    }
    let rest = pointer.strip_prefix('/')?;
    if pointer.contains('%') {
        return None;
    }
    for token in rest.split('/') {
        let b = token.as_bytes();
        if b.first() == Some(&b'+') || (b.len() > 1 && b[0] == b'0') {
            return None;
        }
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'~' {
                if !matches!(b.get(i + 1), Some(b'0' | b'1')) {
                    return None;
                }
                i += 1;
            }
            i += 1;
        }
    }
    Some(pointer)
}

/// The end of the first three tokens of a pointer (`/paths/~1pets/get`), if it has more.
fn prefix_end(pointer: &str) -> Option<usize> {
    let bytes = pointer.as_bytes();
    if bytes.is_empty() {
        return None;
    }
    let mut at = 0;
    for _ in 0..3 {
        at = token_end(bytes, at + 1).0;
        if at >= bytes.len() {
            return None;
        }
    }
    Some(at)
}

impl<'a> Nav<'a> {
    pub(crate) fn new(doc: &'a Document) -> Self {
        // Room for the usual number of entries up front (growing a map re-hashes every
        // pointer in it): a path and an operation prefix per operation, a prefix per named
        // schema and per other shared definition, and about one `$ref` string per schema.
        let model = doc.model();
        let heads = 2 * model.operations.len() + 2 * model.schemas.len() + 64;
        Nav {
            doc,
            prefixes: HeadCache::with_capacity(heads),
            refs: FxMap::with_capacity_and_hasher(model.schemas.len() + 64, FxBuild::default()),
            last: None,
            last_pointer: String::new(),
            stack: Vec::new(),
        }
    }

    /// The value at a location (no `$ref` following).
    pub(crate) fn lookup(&mut self, at: &Location) -> Option<V<'a>> {
        let ptr = at.pointer.as_str();
        if ptr.is_empty() {
            return self.doc.value(&Location::root(at.file));
        }
        let bytes = ptr.as_bytes();
        // Resume from the deepest token the previous lookup shares with this one.
        let mut resume = None;
        if self.last == Some(at.file) {
            let common = common_prefix(bytes, self.last_pointer.as_bytes());
            while let Some(&(end, v)) = self.stack.last() {
                if end <= common && (end == bytes.len() || bytes.get(end) == Some(&b'/')) {
                    resume = Some((end, v));
                    break;
                }
                self.stack.pop();
            }
        }
        let (mut pos, mut v) = match resume {
            Some(x) => x,
            None => {
                self.stack.clear();
                self.last = None;
                // Pointers of up to three tokens (`/definitions/X`, `/parameters/X`, shared
                // components) and the first three tokens of longer ones (`/paths/<p>/<m>`)
                // are cached whole.
                let end = prefix_end(ptr).unwrap_or(ptr.len());
                let head = ptr.get(..end)?;
                let base = self.head(at.file, head)?;
                self.stack.push((end, base));
                (end, base)
            }
        };
        self.last = Some(at.file);
        self.last_pointer.clear();
        self.last_pointer.push_str(ptr);
        while pos < bytes.len() {
            // `bytes[pos]` is the `/` before the next token.
            let start = pos + 1;
            let (end, escaped) = token_end(bytes, start);
            v = step(v, ptr.get(start..end)?, escaped)?;
            self.stack.push((end, v));
            pos = end;
        }
        Some(v)
    }

    /// The value at a pointer prefix, cached per file.
    fn head(&mut self, file: FileId, head: &str) -> Option<V<'a>> {
        let hash = HeadCache::hash(file, head);
        if let Some(hit) = self.prefixes.get(hash, file, head) {
            return hit;
        }
        // Walk from the cached parent prefix (`/paths/<path>` for `/paths/<path>/<method>`),
        // so the big maps at the top of a document are searched once per key.
        // The last `/` is usually a few bytes from the end (`/paths/<p>/get`): a backward
        // byte scan beats `rfind`'s setup.
        let base = match head.as_bytes().iter().rposition(|&b| b == b'/') {
            Some(i) if i > 0 => match head.get(..i) {
                Some(parent) => self
                    .head(file, parent)
                    .and_then(|v| walk(v, head.get(i..).unwrap_or(""))),
                None => None,
            },
            _ => self
                .doc
                .value(&Location::root(file))
                .and_then(|root| walk(root, head)),
        };
        self.prefixes.insert(hash, file, head, base);
        base
    }

    /// Resolves the `$ref` string `r` written in `file`.
    pub(crate) fn follow(&mut self, file: FileId, r: &'a str) -> Option<(Rc<Location>, V<'a>)> {
        if let Some(hit) = self.refs.get(&(file, r)) {
            return hit.clone();
        }
        let mut here = self.target(file, r);
        let mut out = None;
        for _ in 0..MAX_CHAIN {
            let Some((loc, v)) = here.take() else { break };
            match v.get("$ref").and_then(V::as_str) {
                Some(next) => here = self.target(loc.file, next),
                None => {
                    out = Some((Rc::new(loc), v));
                    break;
                }
            }
        }
        self.refs.insert((file, r), out.clone());
        out
    }

    /// Where one `$ref` string points, and the value there (one hop). A local pointer that
    /// leads straight to a value is that value's location, as the spec engine's
    /// [`Document::ref_target`] would find it, and is walked here through the caches; the
    /// others (other files, pointers through `$ref`s, percent-encoding, errors) are left to
    /// the spec engine.
    fn target(&mut self, file: FileId, r: &str) -> Option<(Location, V<'a>)> {
        if let Some(pointer) = direct_local_pointer(r) {
            let loc = Location {
                file,
                pointer: pointer.to_string(),
            };
            if let Some(v) = self.lookup(&loc) {
                return Some((loc, v));
            }
        }
        let loc = self.doc.ref_target(file, r).ok()?;
        let v = self.lookup(&loc)?;
        Some((loc, v))
    }

    /// `readOnly` and `writeOnly` of a schema value that may be a `$ref`: what [`Nav::flag`]
    /// gives for each, following the `$ref` at most once.
    pub(crate) fn access(&mut self, file: FileId, v: V<'a>) -> (bool, bool) {
        let local = |key: &str| v.get(key).and_then(V::as_bool);
        let (ro, wo) = (local("readOnly"), local("writeOnly"));
        if let (Some(ro), Some(wo)) = (ro, wo) {
            return (ro, wo);
        }
        let target = match v.get("$ref").and_then(V::as_str) {
            Some(r) => self.follow(file, r).map(|(_, t)| t),
            None => None,
        };
        let remote = |key: &str| {
            target
                .and_then(|t| t.get(key))
                .and_then(V::as_bool)
                .unwrap_or(false)
        };
        (
            ro.unwrap_or_else(|| remote("readOnly")),
            wo.unwrap_or_else(|| remote("writeOnly")),
        )
    }

    /// A boolean keyword of a schema value that may be a `$ref` (the local value wins).
    pub(crate) fn flag(&mut self, file: FileId, v: V<'a>, key: &str) -> bool {
        if let Some(b) = v.get(key).and_then(V::as_bool) {
            return b;
        }
        match v.get("$ref").and_then(V::as_str) {
            Some(r) => self
                .follow(file, r)
                .and_then(|(_, t)| t.get(key).and_then(V::as_bool))
                .unwrap_or(false),
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use specpress_apispec::Tree;

    #[test]
    fn prefixes_are_the_first_three_pointer_tokens() {
        assert_eq!(prefix_end("/paths/~1a/get/responses"), Some(14));
        assert_eq!(prefix_end("/a/b/c/"), Some(6));
        assert_eq!(prefix_end("/a/b/c"), None);
        assert_eq!(prefix_end("/"), None);
        assert_eq!(prefix_end("//"), None);
        assert_eq!(prefix_end("///"), None);
        assert_eq!(prefix_end("////"), Some(3));
        assert_eq!(
            prefix_end("/paths/~1api~1v1~1namespaces~1{namespace}/get/responses"),
            Some(45)
        );
        assert_eq!(prefix_end("/paths/~1a/get"), None);
        assert_eq!(prefix_end(""), None);
    }

    #[test]
    fn common_prefixes_are_found_a_word_at_a_time() {
        let cases = [
            ("", "", 0),
            ("a", "", 0),
            ("/paths/~1a/get", "/paths/~1a/get", 14),
            ("/paths/~1a/get/x", "/paths/~1a/put/x", 11),
            ("0123456789abcdefX", "0123456789abcdefY", 16),
            ("0123456789abcdef", "0123456789abcdefY", 16),
            ("01234567", "01234568", 7),
        ];
        for (a, b, n) in cases {
            assert_eq!(common_prefix(a.as_bytes(), b.as_bytes()), n, "{a:?} {b:?}");
            assert_eq!(common_prefix(b.as_bytes(), a.as_bytes()), n, "{b:?} {a:?}");
        }
    }

    #[test]
    fn word_scans_find_what_byte_scans_find() {
        let samples = [
            "",
            "/",
            "~",
            "a~/~",
            "/paths/~1api~1v1~1namespaces~1{namespace}~1pods/get/responses/200/schema",
            "/definitions/io.k8s.api.core.v1.PodSpec/properties/containers",
            "abcdefg~/hijklmnop",
            "abcdefgh/~ijklmnop",
            "~bcdefgh/ijklmnop~",
            "\u{1}\u{1}~\u{0}\u{7f}\u{80}/x",
            "ünï~1cødé~0/ünï/cødé~0",
            "0123456789abcdef0123456789abcdef~/",
        ];
        for text in samples {
            let b = text.as_bytes();
            for start in 0..=b.len() {
                assert_eq!(
                    token_end(b, start),
                    token_end_bytewise(b, start, false),
                    "{text:?} from {start}"
                );
            }
        }
    }

    #[test]
    fn unescaping_is_one_pass_like_rfc_6901() {
        // `~01` is `~1` (not `/`): `~0` is decoded once, never re-read.
        assert_eq!(unescape("a~01b"), "a~1b");
        assert_eq!(unescape("~1x~0"), "/x~");
        assert_eq!(unescape("a~b"), "a~b");
        for raw in [
            "a~01b",
            "~1x~0",
            "a~b",
            "~",
            "~~1",
            "ünï~1cødé~0",
            "",
            "~1api~1v1~1namespaces~1{namespace}~1pods~1{name}~1status",
            "abcdefghijklmnop~1qrstuvwxyz0123456789~0~",
            "abcdefg~1hijklmno~",
        ] {
            let mut out = [0u8; 64];
            let n = unescape_into(raw.as_bytes(), &mut out);
            assert_eq!(
                std::str::from_utf8(&out[..n]),
                Ok(unescape(raw).as_str()),
                "{raw:?}"
            );
        }
        let t = Tree::from_value(&serde_json::json!({"": {"a": 1}, "b": [{"c": 2}]}));
        let v = t.root();
        assert_eq!(walk(v, "/b/0/c").and_then(V::as_u64), Some(2));
        assert_eq!(walk(v, "//a").and_then(V::as_u64), Some(1));
        assert!(walk(v, "/b/x").is_none());
    }

    #[test]
    fn lookups_resuming_from_the_previous_pointer_find_what_a_full_walk_finds() {
        let text = r#"{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/a/{b}":{"get":{"responses":{"200":{"description":"x","content":{"application/json":{"schema":{"type":"string"}}}},"404":{"description":"y"}}}}},"components":{"schemas":{"A":{"properties":{"p":{"type":"integer"},"p~q":{"items":[1,2]}}}}}}"#;
        let doc = specpress_apispec::parse(text, &[], &specpress_apispec::Limits::default())
            .expect("parses");
        let root = doc.root();
        let mut nav = Nav::new(&doc);
        let pointers = [
            "/paths/~1a~1{b}/get/responses/200/content/application~1json/schema",
            "/paths/~1a~1{b}/get/responses/404/description",
            "/paths/~1a~1{b}/get/responses/404",
            "/paths/~1a~1{b}/get/responses/200/description",
            "/paths/~1a~1{b}/get/responses/500/description",
            "/paths/~1a~1{b}/get/responses/200/description",
            "/components/schemas/A/properties/p/type",
            "/components/schemas/A/properties/p~0q/items/1",
            "/components/schemas/A/properties/p~0q/items/7",
            "/components/schemas/A/properties/p",
            "/components/schemas/A",
            "/components",
            "/paths/~1a~1{b}/get/responses/200/content/application~1json/schema/type",
            "",
        ];
        for _ in 0..2 {
            for p in pointers {
                let at = Location {
                    file: FileId(0),
                    pointer: p.to_string(),
                };
                let (found, walked) = (nav.lookup(&at), walk(root, p));
                assert_eq!(found.map(V::id), walked.map(V::id), "{p}");
            }
        }
    }

    #[test]
    fn walking_unescapes_tokens() {
        let t = Tree::from_value(&serde_json::json!({"paths": {"/a/{b}": {"x~y": [1, 2]}}}));
        let v = t.root();
        assert_eq!(
            walk(v, "/paths/~1a~1{b}/x~0y/1").and_then(V::as_u64),
            Some(2)
        );
        assert!(walk(v, "/paths/missing").is_none());
        assert!(walk(v, "/paths/~1a~1{b}/x~0y/01").is_some_and(|x| x.as_u64() == Some(2)));
    }
}

//! Redaction by design: one [`Redactor`] per run, built from the run's secrets, applied to whole texts before
//! anything is cut, logged or returned.
//!
//! An API may echo a credential in many spellings. Rather than list every spelling of every secret (their mixes
//! are endless: an HTML page quoting a JSON string quoting a percent-encoded query), each text is also read
//! **decoded**, and the secrets are looked for in every reading:
//!
//! - as written;
//! - with its escapes decoded, each where it stands, so mixed spellings decode too: JSON (`\/`, `\"`, `\\`, `\n`...,
//!   `\uXXXX` with surrogate pairs, in either case), `\xHH`, HTML character references (named, `&#NN;`,
//!   `&#xHH;`, in either case) and percent-encoding (`%HH`, in either case; a space written `+` is matched by a
//!   needle with `+` for each space);
//! - decoded twice (an escape of an escape: `%255C`, `&amp;#47;`, `\u0025`).
//!
//! What is looked for, per secret: the secret itself; its standard and URL-safe base64, padded and not (an
//! `Authorization: Basic` header echoed, a token encoded by the API), and the middle of its base64 at each of the
//! three alignments it can have inside a longer base64 text; for HTTP Basic (`user:password`), the password alone
//! too. A JSON number whose text holds a secret becomes the string `[redacted]` (a numeric key or PIN).
//!
//! A piece of a secret is redacted too where a text ends with its start or begins with its end (at least
//! [`MIN_PIECE`] bytes): an API that cuts what it echoes (the first 100 characters of the URL...) would otherwise
//! let a caller choose the cut by the length of an input and read a secret one character at a time. Every match
//! in every reading is mapped back to the bytes of the text it came from; overlapping matches merge, and each
//! merged span becomes [`REDACTED`](super::REDACTED).

use std::borrow::Cow;

use aho_corasick::AhoCorasick;
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use serde_json::Value;

use super::{REDACTED, Secrets};
use crate::model::{SchemeKind, WorkflowSet};

/// The shortest piece of a secret redacted at the start or end of a text.
pub const MIN_PIECE: usize = 4;
/// The shortest base64 middle looked for (shorter ones would match ordinary text).
const MIN_BASE64_CORE: usize = 8;
/// How many times a text is decoded.
const DECODING_DEPTH: usize = 2;
/// The most bytes of a cut escape a text may start with before a piece of a secret (`x2F;` of `&#x2F;`).
const MAX_LEAD: usize = 9;

/// The redactor of one run (see the module documentation).
pub struct Redactor {
    /// Every form looked for, longest first, none empty.
    needles: Vec<Vec<u8>>,
    /// The forms whose pieces are redacted at the ends of a text.
    pieces: Pieces,
    /// Finds them all at once (overlapping matches included).
    matcher: Option<AhoCorasick>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor")
            .field("needles", &self.needles.len())
            .finish_non_exhaustive()
    }
}

/// A secret and how it is used.
#[derive(Debug, Clone, Copy)]
pub enum SecretUse<'s> {
    /// Sent as it is (an API key, a bearer token).
    Plain(&'s str),
    /// HTTP Basic `user:password`.
    Basic(&'s str),
}

impl Redactor {
    /// The redactor of a run of `set` with `secrets`: every secret of a scheme the document declares.
    pub fn new(set: &WorkflowSet, secrets: &dyn Secrets) -> Self {
        let uses: Vec<SecretUse<'_>> = set
            .schemes
            .iter()
            .filter_map(|scheme| {
                let secret = secrets.get(&scheme.name)?;
                Some(match scheme.kind {
                    SchemeKind::Basic => SecretUse::Basic(secret),
                    SchemeKind::Bearer | SchemeKind::ApiKey { .. } => SecretUse::Plain(secret),
                })
            })
            .collect();
        Self::of(&uses)
    }

    /// The redactor of these secrets.
    pub fn of(uses: &[SecretUse<'_>]) -> Self {
        let mut needles: Vec<Vec<u8>> = Vec::new();
        let mut pieces: Vec<(Vec<u8>, usize)> = Vec::new();
        for u in uses {
            let mut forms = Vec::new();
            let (secret, user_len) = match *u {
                SecretUse::Plain(s) => (s, None),
                SecretUse::Basic(s) => match s.split_once(':') {
                    Some((user, password)) => {
                        add_forms(&mut forms, password);
                        pieces.extend(forms.iter().map(|f| (f.clone(), MIN_PIECE)));
                        needles.append(&mut forms);
                        (s, Some(user.len()))
                    }
                    None => (s, None),
                },
            };
            add_forms(&mut forms, secret);
            // The shortest start of each form that reaches past `user:` (as written, or its base64).
            let shortest = |form: &[u8]| match user_len {
                None => MIN_PIECE,
                Some(u) if form == secret.as_bytes() => u + 2,
                Some(u) => (8 * (u + 1)).div_ceil(6) + 1,
            };
            pieces.extend(
                forms
                    .iter()
                    .map(|f| (f.clone(), shortest(f).max(MIN_PIECE))),
            );
            needles.append(&mut forms);
        }
        needles.retain(|n| !n.is_empty());
        needles.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        needles.dedup();
        pieces.retain(|(n, _)| !n.is_empty());
        pieces.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
        pieces.dedup();
        let matcher = if needles.is_empty() {
            None
        } else {
            AhoCorasick::new(&needles).ok()
        };
        Redactor {
            needles,
            pieces: Pieces::new(pieces),
            matcher,
        }
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.needles.is_empty()
    }

    /// `text` with every secret, every spelling of one and every piece of one at its ends replaced by
    /// [`REDACTED`].
    pub fn text(&self, text: &str) -> String {
        self.redacted(text).unwrap_or_else(|| text.to_owned())
    }

    /// [`Redactor::text`] of an owned text, given back as it is when it holds nothing to redact.
    fn text_owned(&self, text: String) -> String {
        self.redacted(&text).unwrap_or(text)
    }

    /// `text` redacted, or `None` when it holds nothing to redact.
    fn redacted(&self, text: &str) -> Option<String> {
        let spans = self.spans(text);
        if spans.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (start, end) in spans {
            out.push_str(&text[at..start]);
            out.push_str(REDACTED);
            at = end;
        }
        out.push_str(&text[at..]);
        Some(out)
    }

    /// `v` with [`Redactor::text`] applied to every string and member name, and every number whose text holds a
    /// secret made a string of its redacted text.
    pub fn value(&self, v: Value) -> Value {
        if self.is_empty() {
            return v;
        }
        match v {
            Value::String(s) => Value::String(self.text_owned(s)),
            Value::Number(n) => match self.redacted(&n.to_string()) {
                Some(redacted) => Value::String(redacted),
                None => Value::Number(n),
            },
            Value::Array(a) => Value::Array(a.into_iter().map(|x| self.value(x)).collect()),
            Value::Object(m) => Value::Object(
                m.into_iter()
                    .map(|(k, x)| (self.text_owned(k), self.value(x)))
                    .collect(),
            ),
            other => other,
        }
    }

    /// The byte spans of `text` to redact: sorted, merged, on character boundaries.
    fn spans(&self, text: &str) -> Vec<(usize, usize)> {
        let Some(matcher) = &self.matcher else {
            return Vec::new();
        };
        let mut found: Vec<(usize, usize)> = Vec::new();
        let scan = |view: &View<'_>, found: &mut Vec<(usize, usize)>| {
            for m in matcher.find_overlapping_iter(&*view.bytes) {
                found.push(view.origin(m.start(), m.end()));
            }
            for (s, e) in self.pieces.at_ends(&view.bytes) {
                found.push(view.origin(s, e));
            }
        };
        let raw = View::raw(text.as_bytes());
        scan(&raw, &mut found);
        let mut next = raw.decoded();
        for depth in 1..=DECODING_DEPTH {
            let Some(view) = next else { break };
            scan(&view, &mut found);
            next = if depth < DECODING_DEPTH {
                view.decoded()
            } else {
                None
            };
        }
        if found.is_empty() {
            return found;
        }
        merge(found, text)
    }
}

/// Adds the forms of `secret` looked for (see the module documentation).
fn add_forms(needles: &mut Vec<Vec<u8>>, secret: &str) {
    if secret.is_empty() {
        return;
    }
    needles.push(secret.as_bytes().to_vec());
    if secret.contains(' ') {
        needles.push(secret.replace(' ', "+").into_bytes());
    }
    let bytes = secret.as_bytes();
    for engine in [&STANDARD, &STANDARD_NO_PAD, &URL_SAFE, &URL_SAFE_NO_PAD] {
        needles.push(engine.encode(bytes).into_bytes());
    }
    for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
        for offset in 0..3usize {
            let mut shifted = vec![0u8; offset];
            shifted.extend_from_slice(bytes);
            let encoded = engine.encode(&shifted);
            // The characters of the encoding that only the secret's bits decide.
            let first = (8 * offset).div_ceil(6);
            let end = (8 * (offset + bytes.len())) / 6;
            if let Some(core) = encoded.get(first..end)
                && core.len() >= MIN_BASE64_CORE
            {
                needles.push(core.as_bytes().to_vec());
            }
        }
    }
}

/// The forms whose pieces are redacted at the ends of a text, each with the shortest start of it that is a secret
/// (a Basic credential starts with its user name, which is none: only a start reaching into the password counts),
/// indexed by their first and last bytes so that a text is looked at once, whatever the number of forms.
struct Pieces {
    forms: Vec<(Vec<u8>, usize)>,
    /// Forms by their first byte.
    by_first: Vec<Vec<usize>>,
    /// Forms by their last byte.
    by_last: Vec<Vec<usize>>,
    /// The longest form.
    longest: usize,
}

impl Pieces {
    fn new(forms: Vec<(Vec<u8>, usize)>) -> Pieces {
        let forms: Vec<(Vec<u8>, usize)> = forms
            .into_iter()
            .filter(|(f, _)| f.len() > MIN_PIECE)
            .collect();
        let mut by_first = vec![Vec::new(); 256];
        let mut by_last = vec![Vec::new(); 256];
        for (i, (f, _)) in forms.iter().enumerate() {
            if let (Some(&a), Some(&z)) = (f.first(), f.last()) {
                by_first[usize::from(a)].push(i);
                by_last[usize::from(z)].push(i);
            }
        }
        let longest = forms.iter().map(|(f, _)| f.len()).max().unwrap_or(0);
        Pieces {
            forms,
            by_first,
            by_last,
            longest,
        }
    }

    /// The spans of `text` that are pieces of a form at one of its ends: the longest end of `text` that starts a form
    /// (at least its shortest start), and the longest start of `text` that ends one (at least [`MIN_PIECE`] bytes,
    /// after at most [`MAX_LEAD`] bytes left of an escape the start cut: `2F` of `%2F`, `u002F` of `\u002F`); each
    /// shorter than its form (a whole one is a match already).
    fn at_ends(&self, text: &[u8]) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        if text.len() < MIN_PIECE || self.forms.is_empty() {
            return found;
        }
        // The earliest start is the longest piece.
        let from = text.len().saturating_sub(self.longest - 1);
        'ends: for start in from..=text.len() - MIN_PIECE {
            let len = text.len() - start;
            for &i in &self.by_first[usize::from(text[start])] {
                let (form, shortest) = &self.forms[i];
                if len < form.len() && len >= *shortest && text[start..] == form[..len] {
                    found.push((start, text.len()));
                    break 'ends;
                }
            }
        }
        let lead_bytes = text
            .iter()
            .take(MAX_LEAD)
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'#' | b';'))
            .count();
        for lead in 0..=lead_bytes {
            let rest = &text[lead..];
            let reach = rest.len().min(self.longest - 1);
            for end in (MIN_PIECE..=reach).rev() {
                for &i in &self.by_last[usize::from(rest[end - 1])] {
                    let (form, _) = &self.forms[i];
                    if end < form.len() && rest[..end] == form[form.len() - end..] {
                        found.push((0, lead + end));
                        return found;
                    }
                }
            }
        }
        found
    }
}

/// Sorts and merges spans, each widened to the characters it touches.
fn merge(mut found: Vec<(usize, usize)>, text: &str) -> Vec<(usize, usize)> {
    for (s, e) in &mut found {
        while *s > 0 && !text.is_char_boundary(*s) {
            *s -= 1;
        }
        while *e < text.len() && !text.is_char_boundary(*e) {
            *e += 1;
        }
    }
    found.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(found.len());
    for (s, e) in found {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}

/// A reading of a text: its bytes and, for each, the span of the original text it came from.
struct View<'t> {
    bytes: Cow<'t, [u8]>,
    /// `None`: the bytes are the text's own (each byte its own span).
    spans: Option<Vec<(u32, u32)>>,
}

impl<'t> View<'t> {
    fn raw(text: &'t [u8]) -> View<'t> {
        View {
            bytes: Cow::Borrowed(text),
            spans: None,
        }
    }

    /// The original span of the bytes `start..end` of this view.
    fn origin(&self, start: usize, end: usize) -> (usize, usize) {
        match &self.spans {
            None => (start, end),
            Some(spans) => {
                let s = spans.get(start).map_or(0, |x| x.0 as usize);
                let e = end
                    .checked_sub(1)
                    .and_then(|i| spans.get(i))
                    .map_or(s, |x| x.1 as usize);
                (s, e.max(s))
            }
        }
    }

    /// The span of byte `i` of this view in the original text.
    fn span(&self, i: usize) -> (u32, u32) {
        match &self.spans {
            None => (i as u32, i as u32 + 1),
            Some(spans) => spans.get(i).copied().unwrap_or((0, 0)),
        }
    }

    /// This view with its escapes decoded; `None` when it has none.
    fn decoded(&self) -> Option<View<'static>> {
        let b = &self.bytes;
        if !b.iter().any(|c| matches!(c, b'\\' | b'&' | b'%')) {
            return None;
        }
        let mut bytes = Vec::with_capacity(b.len());
        let mut spans = Vec::with_capacity(b.len());
        let mut changed = false;
        let mut i = 0;
        while i < b.len() {
            let decoded = match b[i] {
                b'\\' => backslash_escape(b, i),
                b'&' => character_reference(b, i),
                b'%' => percent_escape(b, i),
                _ => None,
            };
            match decoded {
                Some(Decoded::Char(c, len)) => {
                    let span = (self.span(i).0, self.span(i + len - 1).1);
                    let mut buf = [0u8; 4];
                    for &byte in c.encode_utf8(&mut buf).as_bytes() {
                        bytes.push(byte);
                        spans.push(span);
                    }
                    changed = true;
                    i += len;
                }
                Some(Decoded::Byte(byte, len)) => {
                    bytes.push(byte);
                    spans.push((self.span(i).0, self.span(i + len - 1).1));
                    changed = true;
                    i += len;
                }
                // An escape cut by the end of the text: left out, so that what precedes it ends the reading.
                Some(Decoded::Cut) => {
                    changed = true;
                    break;
                }
                None => {
                    bytes.push(b[i]);
                    spans.push(self.span(i));
                    i += 1;
                }
            }
        }
        changed.then_some(View {
            bytes: Cow::Owned(bytes),
            spans: Some(spans),
        })
    }
}

/// What an escape at a position decodes to, with its length in bytes.
enum Decoded {
    Char(char, usize),
    Byte(u8, usize),
    /// An escape that starts but the text ends before it does.
    Cut,
}

fn hex(b: u8) -> Option<u32> {
    (b as char).to_digit(16)
}

/// `n` hex digits at `at`, or `Cut` when the text ends first, or `None` when one is not a hex digit.
fn hex_digits(b: &[u8], at: usize, n: usize) -> Result<u32, bool> {
    let mut value = 0u32;
    for k in 0..n {
        let Some(&c) = b.get(at + k) else {
            return Err(true);
        };
        value = value * 16 + hex(c).ok_or(false)?;
    }
    Ok(value)
}

/// `\/`, `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, `\uXXXX` (a surrogate pair as one character), `\xHH`.
fn backslash_escape(b: &[u8], i: usize) -> Option<Decoded> {
    let Some(&kind) = b.get(i + 1) else {
        return Some(Decoded::Cut);
    };
    let simple = match kind {
        b'/' => Some('/'),
        b'"' => Some('"'),
        b'\\' => Some('\\'),
        b'\'' => Some('\''),
        b'b' => Some('\u{8}'),
        b'f' => Some('\u{c}'),
        b'n' => Some('\n'),
        b'r' => Some('\r'),
        b't' => Some('\t'),
        _ => None,
    };
    if let Some(c) = simple {
        return Some(Decoded::Char(c, 2));
    }
    match kind {
        b'x' => match hex_digits(b, i + 2, 2) {
            Ok(v) => Some(Decoded::Byte(v as u8, 4)),
            Err(true) => Some(Decoded::Cut),
            Err(false) => None,
        },
        b'u' | b'U' => {
            let unit = match hex_digits(b, i + 2, 4) {
                Ok(v) => v,
                Err(true) => return Some(Decoded::Cut),
                Err(false) => return None,
            };
            if (0xD800..0xDC00).contains(&unit) {
                // A high surrogate: a character only with the low one that follows.
                if b.get(i + 6) == Some(&b'\\') && matches!(b.get(i + 7), Some(b'u' | b'U')) {
                    return match hex_digits(b, i + 8, 4) {
                        Ok(low) if (0xDC00..0xE000).contains(&low) => {
                            let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                            char::from_u32(c).map(|c| Decoded::Char(c, 12))
                        }
                        Err(true) => Some(Decoded::Cut),
                        _ => None,
                    };
                }
                return if b.len() <= i + 7 {
                    Some(Decoded::Cut)
                } else {
                    None
                };
            }
            char::from_u32(unit).map(|c| Decoded::Char(c, 6))
        }
        _ => None,
    }
}

/// `%HH`.
fn percent_escape(b: &[u8], i: usize) -> Option<Decoded> {
    match hex_digits(b, i + 1, 2) {
        Ok(v) => Some(Decoded::Byte(v as u8, 3)),
        Err(true) => Some(Decoded::Cut),
        Err(false) => None,
    }
}

/// Named references of the characters a secret may hold (ASCII punctuation), case ignored.
const NAMED: [(&str, char); 39] = [
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("sol", '/'),
    ("bsol", '\\'),
    ("plus", '+'),
    ("equals", '='),
    ("percnt", '%'),
    ("num", '#'),
    ("dollar", '$'),
    ("colon", ':'),
    ("semi", ';'),
    ("comma", ','),
    ("period", '.'),
    ("excl", '!'),
    ("quest", '?'),
    ("lpar", '('),
    ("rpar", ')'),
    ("lsqb", '['),
    ("rsqb", ']'),
    ("lbrack", '['),
    ("rbrack", ']'),
    ("lcub", '{'),
    ("rcub", '}'),
    ("lbrace", '{'),
    ("rbrace", '}'),
    ("ast", '*'),
    ("midast", '*'),
    ("verbar", '|'),
    ("vert", '|'),
    ("hat", '^'),
    ("grave", '`'),
    ("lowbar", '_'),
    ("commat", '@'),
    ("hyphen", '-'),
    ("dash", '-'),
    ("tab", '\t'),
];

/// The longest reference read: `&#x10FFFF;` and the names above fit.
const MAX_REFERENCE: usize = 10;

/// `&name;`, `&#NNN;`, `&#xHH;` (`X` too).
fn character_reference(b: &[u8], i: usize) -> Option<Decoded> {
    let rest = &b[i + 1..];
    let end = rest.iter().take(MAX_REFERENCE + 1).position(|&c| c == b';');
    let Some(end) = end else {
        // No `;` near: a reference cut by the end of the text, or no reference at all.
        let plausible = rest.len() <= MAX_REFERENCE
            && rest.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'#');
        return plausible.then_some(Decoded::Cut);
    };
    let body = &rest[..end];
    let len = end + 2;
    let c = if let Some(number) = body.strip_prefix(b"#") {
        let (digits, radix) = match number.first() {
            Some(b'x' | b'X') => (&number[1..], 16),
            _ => (number, 10),
        };
        if digits.is_empty() {
            return None;
        }
        let text = std::str::from_utf8(digits).ok()?;
        char::from_u32(u32::from_str_radix(text, radix).ok()?)?
    } else {
        NAMED
            .iter()
            .find(|(name, _)| name.as_bytes().eq_ignore_ascii_case(body))
            .map(|(_, c)| *c)?
    };
    Some(Decoded::Char(c, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "QSECRET_abc/def+12";

    fn plain() -> Redactor {
        Redactor::of(&[SecretUse::Plain(KEY)])
    }

    #[test]
    fn every_spelling_of_a_secret_is_redacted() {
        let r = plain();
        let b64 = STANDARD.encode(KEY);
        let url_b64 = URL_SAFE_NO_PAD.encode(KEY);
        for text in [
            KEY.to_string(),
            "QSECRET_abc\\/def+12".into(),
            "\\u0051SECRET_abc\\u002fdef\\u002B12".into(),
            "QSECRET&#95;abc&sol;def&plus;12".into(),
            "QSECRET_abc&#x2F;def&#43;12".into(),
            "QSECRET_abc&SOL;def&PLUS;12".into(),
            "QSECRET_abc%2fdef%2B12".into(),
            "QSECRET_abc%2Fdef%2b12".into(),
            "%51%53%45%43%52%45%54%5F%61%62%63%2F%64%65%66%2B%31%32".into(),
            "QSECRET_abc%252Fdef%252B12".into(),
            "QSECRET_abc&amp;#47;def+12".into(),
            "\\x51SECRET_abc/def+12".into(),
            b64.clone(),
            url_b64.clone(),
        ] {
            let out = r.text(&format!("<p>said: {text} ok</p>"));
            assert_eq!(out, "<p>said: [redacted] ok</p>", "{text}");
        }
    }

    #[test]
    fn base64_of_a_text_holding_the_secret_is_redacted_at_every_alignment() {
        let r = plain();
        for pad in 0..6 {
            let wrapped = format!("{}key={KEY};rest", "p".repeat(pad));
            for encoded in [STANDARD.encode(&wrapped), URL_SAFE_NO_PAD.encode(&wrapped)] {
                let out = r.text(&encoded);
                assert!(out.contains(REDACTED), "{pad}: {out}");
                let core = &encoded[encoded.len() / 2 - 4..encoded.len() / 2 + 4];
                assert!(!out.contains(core), "{pad}: {out}");
            }
        }
    }

    #[test]
    fn a_basic_credential_is_redacted_whole_encoded_and_by_its_password_alone() {
        let r = Redactor::of(&[SecretUse::Basic("alice:s3cr3t-pw")]);
        let b64 = STANDARD.encode("alice:s3cr3t-pw");
        assert_eq!(r.text(&format!("Basic {b64}")), "Basic [redacted]");
        assert_eq!(r.text("password=s3cr3t-pw"), "password=[redacted]");
        assert_eq!(r.text("alice:s3cr3t-pw"), "[redacted]");
        assert_eq!(r.text("user alice"), "user alice");
    }

    #[test]
    fn a_number_whose_text_is_a_secret_becomes_the_redacted_string() {
        let r = Redactor::of(&[SecretUse::Plain("918273645")]);
        let v: Value = serde_json::from_str(r#"{"pin": 918273645, "n": 42, "a": [918273645.0]}"#)
            .expect("json");
        assert_eq!(
            r.value(v),
            serde_json::json!({"pin": "[redacted]", "n": 42, "a": ["[redacted].0"]})
        );
    }

    /// `text` as written, decoded once and decoded twice.
    fn readings(text: &str) -> Vec<Vec<u8>> {
        let mut views = vec![View::raw(text.as_bytes())];
        while let Some(next) = views.last().and_then(View::decoded) {
            views.push(next);
        }
        views.into_iter().map(|v| v.bytes.into_owned()).collect()
    }

    #[test]
    fn no_piece_of_a_secret_is_left_whatever_the_cut_of_the_text() {
        // GIVEN texts holding the secret in several spellings
        let r = plain();
        let pieces: Vec<&str> = (MIN_PIECE..=KEY.len())
            .flat_map(|len| (0..=KEY.len() - len).map(move |s| &KEY[s..s + len]))
            .collect();
        for text in [
            format!("https://api.test/x?q=1&key={KEY}&more=1"),
            format!(
                "https://api.test/x?q=1&key={}&more",
                KEY.replace('/', "%2F").replace('+', "%2B")
            ),
            format!("{{\"key\":\"{}\",\"n\":1}}", KEY.replace('/', "\\/")),
            format!(
                "<td>{}</td>",
                KEY.replace('/', "&#x2F;").replace('_', "&lowbar;")
            ),
        ] {
            // WHEN it is cut anywhere, keeping its start or its end
            for cut in 0..=text.len() {
                for piece in [&text[..cut], &text[cut..]] {
                    let out = r.text(piece);
                    // THEN no piece of the secret is left in any reading of what remains
                    for reading in readings(&out) {
                        for p in &pieces {
                            assert!(
                                !reading.windows(p.len()).any(|w| w == p.as_bytes()),
                                "{piece:?} -> {out:?} holds {p:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn ordinary_text_is_left_as_it_is() {
        let r = plain();
        for text in [
            "",
            "plain text with 100% & nothing \\ secret",
            "QSE",
            "&#;&#x;&;%zz\\u12G4\\",
            "ünïcödé ✓",
        ] {
            assert_eq!(r.text(text), text);
        }
        assert!(Redactor::of(&[]).is_empty());
        assert_eq!(Redactor::of(&[]).text(KEY), KEY);
    }
}

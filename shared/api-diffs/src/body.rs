//! Reading the `POST /diffs` body.
//!
//! The body carries two API definitions as JSON strings of several MB each. A JSON definition inside a JSON string
//! is dense with escapes (every quote is `\"`, every line break `\n`), so reading it is real work: serde_json first
//! scans the whole body to find where each value ends, then unescapes each definition in a second pass (13 ms for
//! the 8 MB Stripe pair, a fifth of the request outside the engine).
//!
//! [`diff_input`] reads the body in one pass instead: the top-level object is scanned here, each definition is
//! unescaped where it is found, eight bytes at a time between escapes, and every other member is handed to
//! serde_json as raw text. Anything this reader does not accept (malformed JSON, a definition that is not a string,
//! a duplicate member, a lone surrogate, invalid UTF-8, a body that is not an object) is read again by serde_json
//! alone, which gives the error, so every error keeps serde_json's message, position and status: 400 for malformed
//! JSON, 422 for the wrong shape, naming the field.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use specpress_api::ApiError;
use specpress_domain::DomainError;
use specpress_domain::model::Reference;
use specpress_domain::usecases::diffs::DiffInput;

/// Parses the body of `POST /diffs` (blocking: several MB of JSON).
pub(crate) fn diff_input(bytes: &[u8]) -> Result<DiffInput, ApiError> {
    match one_pass(bytes) {
        Some(input) => Ok(input),
        None => with_serde(bytes),
    }
}

/// One `references` entry as received.
#[derive(Debug, Deserialize)]
struct ReferenceIn {
    location: String,
    content: String,
    #[serde(default)]
    name: Option<String>,
}

/// The `POST /diffs` body as serde_json reads it. Unknown fields are ignored, as the contract's clients send extra
/// ones.
#[derive(Debug, Deserialize)]
struct CreateDiffBody<'a> {
    #[serde(default, borrow)]
    previous_definition: Option<&'a RawValue>,
    #[serde(default, borrow)]
    definition: Option<&'a RawValue>,
    #[serde(default)]
    previous_references: Option<Vec<ReferenceIn>>,
    #[serde(default)]
    references: Option<Vec<ReferenceIn>>,
    #[serde(default)]
    previous_url: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    expires_at: Option<String>,
}

fn refs(r: Option<Vec<ReferenceIn>>) -> Vec<Reference> {
    r.unwrap_or_default()
        .into_iter()
        .map(|r| Reference {
            location: r.location,
            content: r.content,
            name: r.name,
        })
        .collect()
}

/// A serde error on the body: 400 for malformed JSON, 422 for the wrong shape.
fn body_error(e: serde_json::Error, field: Option<&str>) -> ApiError {
    if e.is_data() {
        let message = match field {
            Some(f) => format!("Invalid request body: `{f}`: {e}"),
            None => format!("Invalid request body: {e}"),
        };
        DomainError::invalid("body", message).into()
    } else {
        ApiError::BadJson(format!("Malformed JSON body: {e}"))
    }
}

/// The reference reading: serde_json alone, in two passes. It decides every body the one-pass reader declines.
pub(crate) fn with_serde(bytes: &[u8]) -> Result<DiffInput, ApiError> {
    let body: CreateDiffBody<'_> =
        serde_json::from_slice(bytes).map_err(|e| body_error(e, None))?;
    let definition = |raw: Option<&RawValue>, field: &str| {
        raw.map(|r| serde_json::from_str::<String>(r.get()).map_err(|e| body_error(e, Some(field))))
            .transpose()
    };
    Ok(DiffInput {
        previous_definition: definition(body.previous_definition, "previous_definition")?,
        previous_references: refs(body.previous_references),
        definition: definition(body.definition, "definition")?,
        references: refs(body.references),
        previous_url: body.previous_url,
        url: body.url,
        expires_at: body.expires_at,
    })
}

/// The members of the body the one-pass reader has seen.
#[derive(Default)]
struct Seen {
    previous_definition: Option<Option<String>>,
    definition: Option<Option<String>>,
    previous_references: Option<Option<Vec<ReferenceIn>>>,
    references: Option<Option<Vec<ReferenceIn>>>,
    previous_url: Option<Option<String>>,
    url: Option<Option<String>>,
    expires_at: Option<Option<String>>,
}

/// Reads a body that is one JSON object, in one pass. `None` declines the body: [`with_serde`] then decides it.
fn one_pass(bytes: &[u8]) -> Option<DiffInput> {
    let mut c = Cursor { b: bytes, i: 0 };
    let mut seen = Seen::default();
    c.whitespace();
    c.eat(b'{')?;
    c.whitespace();
    if !c.eat_if(b'}') {
        loop {
            c.whitespace();
            c.eat(b'"')?;
            let key = c.string(false)?;
            c.whitespace();
            c.eat(b':')?;
            c.whitespace();
            match key.as_str() {
                "previous_definition" => set(&mut seen.previous_definition, c.definition()?)?,
                "definition" => set(&mut seen.definition, c.definition()?)?,
                "previous_references" => set(&mut seen.previous_references, c.value()?)?,
                "references" => set(&mut seen.references, c.value()?)?,
                "previous_url" => set(&mut seen.previous_url, c.value()?)?,
                "url" => set(&mut seen.url, c.value()?)?,
                "expires_at" => set(&mut seen.expires_at, c.value()?)?,
                _ => {
                    c.raw()?;
                }
            }
            c.whitespace();
            if c.eat_if(b'}') {
                break;
            }
            c.eat(b',')?;
        }
    }
    c.whitespace();
    if c.i != bytes.len() {
        return None;
    }
    Some(DiffInput {
        previous_definition: seen.previous_definition.flatten(),
        previous_references: refs(seen.previous_references.flatten()),
        definition: seen.definition.flatten(),
        references: refs(seen.references.flatten()),
        previous_url: seen.previous_url.flatten(),
        url: seen.url.flatten(),
        expires_at: seen.expires_at.flatten(),
    })
}

/// Records a member's value; a member given twice declines the body (serde_json names the duplicate).
fn set<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value);
    Some(())
}

/// A position in the body.
struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    fn whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn eat_if(&mut self, byte: u8) -> bool {
        let hit = self.b.get(self.i) == Some(&byte);
        if hit {
            self.i += 1;
        }
        hit
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.eat_if(byte).then_some(())
    }

    /// A definition: a string, or `null` for none. Any other value declines the body.
    fn definition(&mut self) -> Option<Option<String>> {
        if self.eat_if(b'"') {
            return self.string(true).map(Some);
        }
        if self.b.get(self.i..self.i + 4) == Some(b"null") {
            self.i += 4;
            return Some(None);
        }
        None
    }

    /// Any JSON value, as serde_json reads it, without its type checked.
    fn raw(&mut self) -> Option<&'a RawValue> {
        let rest = self.b.get(self.i..)?;
        let mut values = serde_json::Deserializer::from_slice(rest).into_iter::<&RawValue>();
        let raw = values.next()?.ok()?;
        self.i += values.byte_offset();
        Some(raw)
    }

    /// A member other than a definition, typed by serde_json.
    fn value<T: DeserializeOwned>(&mut self) -> Option<T> {
        serde_json::from_str(self.raw()?.get()).ok()
    }

    /// The rest of a string whose opening quote has been read, unescaped; the cursor ends after its closing quote.
    /// A `long` string (a definition) reserves room for the rest of the body at its first escape rather than
    /// growing by doubling; the pages it does not fill are never touched.
    fn string(&mut self, long: bool) -> Option<String> {
        let b = self.b;
        let mut out = Vec::new();
        let mut run = self.i;
        let mut i = self.i;
        loop {
            // Eight bytes at a time up to the next quote, backslash or control character.
            while let Some(word) = b.get(i..i + 8) {
                let mut w = [0u8; 8];
                w.copy_from_slice(word);
                let hits = special(u64::from_le_bytes(w));
                if hits != 0 {
                    i += (hits.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
            match *b.get(i)? {
                b'"' => {
                    out.extend_from_slice(&b[run..i]);
                    self.i = i + 1;
                    return String::from_utf8(out).ok();
                }
                b'\\' => {
                    if long && out.capacity() == 0 {
                        // Unescaped, the rest of the string is shorter than the rest of the body.
                        out.reserve(b.len() - run);
                    }
                    out.extend_from_slice(&b[run..i]);
                    i = escape(b, i + 1, &mut out)?;
                    run = i;
                }
                0..0x20 => return None,
                _ => i += 1,
            }
        }
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `w` that is a quote, a backslash or a control character, and possibly of bytes
/// after the first such byte (borrows carry upwards): only the lowest set bit is exact, and only it is used.
fn special(w: u64) -> u64 {
    let zero = |x: u64| x.wrapping_sub(ONES) & !x;
    let quote = zero(w ^ (ONES * u64::from(b'"')));
    let backslash = zero(w ^ (ONES * u64::from(b'\\')));
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    (quote | backslash | control) & HIGHS
}

/// One escape, whose backslash is at `i - 1`, appended to `out`; returns the index after it.
fn escape(b: &[u8], i: usize, out: &mut Vec<u8>) -> Option<usize> {
    let byte = match *b.get(i)? {
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 0x08,
        b'f' => 0x0c,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'u' => return unicode(b, i + 1, out),
        _ => return None,
    };
    out.push(byte);
    Some(i + 1)
}

/// A `\u` escape whose four hex digits start at `i`, with the second half of a surrogate pair if it needs one.
fn unicode(b: &[u8], i: usize, out: &mut Vec<u8>) -> Option<usize> {
    let high = hex4(b, i)?;
    let (code, end) = match high {
        0xD800..=0xDBFF => {
            if b.get(i + 4..i + 6)? != b"\\u" {
                return None;
            }
            let low = hex4(b, i + 6)?;
            if !(0xDC00..=0xDFFF).contains(&low) {
                return None;
            }
            (0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00), i + 10)
        }
        0xDC00..=0xDFFF => return None,
        _ => (high, i + 4),
    };
    let ch = char::from_u32(code)?;
    out.extend_from_slice(ch.encode_utf8(&mut [0u8; 4]).as_bytes());
    Some(end)
}

fn hex4(b: &[u8], i: usize) -> Option<u32> {
    b.get(i..i + 4)?.iter().try_fold(0u32, |n, &d| {
        let v = char::from(d).to_digit(16)?;
        Some(n << 4 | v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both readers' answers, as text: the one-pass reader must equal serde_json wherever it answers.
    fn both(body: &str) -> (Option<String>, String) {
        let fast = one_pass(body.as_bytes()).map(|i| format!("{i:?}"));
        let reference = match with_serde(body.as_bytes()) {
            Ok(i) => format!("{i:?}"),
            Err(e) => format!("error: {e:?}"),
        };
        (fast, reference)
    }

    fn agrees(body: &str) {
        let (fast, reference) = both(body);
        assert_eq!(
            fast.as_deref(),
            Some(reference.as_str()),
            "one-pass reading differs on {body:?}"
        );
    }

    fn declines(body: &str) {
        let (fast, _) = both(body);
        assert_eq!(fast, None, "one-pass reader accepted {body:?}");
    }

    #[test]
    fn the_one_pass_reader_equals_serde_json_on_every_accepted_body() {
        let definition = serde_json::to_string(
            &serde_json::json!({"openapi": "3.1.0", "info": {"title": "Pets \u{e9}\u{1F600}", "version": "1"},
                "paths": {"/a\tb": {"description": "line 1\nline 2 \"quoted\" back\\slash / \u{1}"}}}),
        )
        .unwrap_or_default();
        let escaped = serde_json::to_string(&definition).unwrap_or_default();
        for body in [
            "{}".to_string(),
            " \n{ \t}\r\n ".to_string(),
            format!(r#"{{"previous_definition":{escaped},"definition":{escaped}}}"#),
            format!(
                "{{ \"definition\" : {escaped} , \"previous_definition\" :\n{escaped}, \"expires_at\": \"2026-01-01T00:00:00Z\" }}"
            ),
            r#"{"previous_definition": "a: 1", "definition": null}"#.to_string(),
            r#"{"previous_url": "https://a.example/x.yaml", "url": "https://b.example/y.json", "unknown": {"deep": [1, 2, {"x": null}]}}"#.to_string(),
            r#"{"definition": "x", "references": [{"location": "a.yaml", "content": "b: 1", "name": "n"}], "previous_references": null}"#.to_string(),
            r#"{"definition": "\u00e9\u20AC\uD83D\uDE00 \/ \b\f\n\r\t \" \\"}"#.to_string(),
            r#"{"definition": "éàü 日本語 😀 and more than eight bytes before any escape\n"}"#.to_string(),
            r#"{"\u0064efinition": "escaped key"}"#.to_string(),
            r#"{"definition": ""}"#.to_string(),
            r#"{"definition": "1234567\"12345678\\1234567"}"#.to_string(),
        ] {
            agrees(&body);
        }
    }

    #[test]
    fn bodies_the_one_pass_reader_declines_are_decided_by_serde_json_with_its_status() {
        for body in [
            "",
            "{",
            "{not json",
            r#"{"definition": "x"} trailing"#,
            r#"{"definition": "x",}"#,
            r#"{"definition": 12}"#,
            r#"{"definition": "x", "definition": "y"}"#,
            r#"{"definition": "unterminated"#,
            r#"{"definition": "bad escape \q"}"#,
            r#"{"definition": "lone \uD800 surrogate"}"#,
            r#"{"definition": "lone \uDC00 low"}"#,
            r#"{"definition": "short \u12"}"#,
            "{\"definition\": \"raw control \u{1} character\"}",
            r#"{"references": "not a list"}"#,
            r#"{"url": 5}"#,
        ] {
            declines(body);
            assert!(
                with_serde(body.as_bytes()).is_err(),
                "serde_json accepted {body:?}"
            );
        }
        // serde_json reads a struct from an array too, by position: declined, and answered as serde_json does.
        for body in ["[]", r#"["a: 1", "b: 2"]"#] {
            declines(body);
            let (_, reference) = both(body);
            assert_eq!(
                diff_input(body.as_bytes()).map(|i| format!("{i:?}")).ok(),
                Some(reference)
            );
        }
        // Invalid UTF-8 inside a definition.
        let mut bytes = br#"{"definition": "ab"#.to_vec();
        bytes.extend_from_slice(&[0xff, 0xfe]);
        bytes.extend_from_slice(br#"cd\n"}"#);
        assert!(one_pass(&bytes).is_none());
        assert!(matches!(diff_input(&bytes), Err(ApiError::BadJson(_))));
    }

    #[test]
    fn errors_keep_their_status_and_name_the_field() {
        assert!(matches!(
            diff_input(b"{not json"),
            Err(ApiError::BadJson(_))
        ));
        let err = diff_input(br#"{"previous_definition": 12, "definition": "x"}"#)
            .err()
            .map(|e| format!("{e:?}"))
            .unwrap_or_default();
        assert!(err.contains("previous_definition"), "{err}");
        assert!(!err.contains("BadJson"), "{err}");
        let err = diff_input(br#"{"definition": "x", "definition": "y"}"#)
            .err()
            .map(|e| format!("{e:?}"))
            .unwrap_or_default();
        assert!(err.contains("duplicate field"), "{err}");
    }

    #[test]
    fn the_special_byte_scan_finds_the_first_quote_backslash_or_control_character() {
        for (i, byte) in [b'"', b'\\', 0x00, 0x1f, b'\n'].into_iter().enumerate() {
            for at in 0..8 {
                let mut w = *b"abcdefgh";
                w[at] = byte;
                // A later special byte never hides an earlier one.
                if at < 7 {
                    w[7] = b'"';
                }
                let hits = special(u64::from_le_bytes(w));
                assert_eq!((hits.trailing_zeros() / 8) as usize, at, "case {i} at {at}");
            }
        }
        for w in [
            *b"abcdefgh",
            [0x20; 8],
            [0x7f; 8],
            [0xff; 8],
            *b"\xc3\xa9\xe6\x97\xa5 ~!",
        ] {
            assert_eq!(special(u64::from_le_bytes(w)), 0, "{w:?}");
        }
    }

    #[test]
    fn a_multi_megabyte_escaped_definition_reads_like_serde_json() {
        let line = "    \"description\": \"A \\\"quoted\\\" word, tab\\tand unicode é😀\",\n";
        let definition = format!("{{\n{}}}", line.repeat(60_000));
        let escaped = serde_json::to_string(&definition).unwrap_or_default();
        let body = format!(r#"{{"previous_definition":{escaped},"definition":{escaped}}}"#);
        let input = one_pass(body.as_bytes());
        assert_eq!(
            input.and_then(|i| i.definition).as_deref(),
            Some(definition.as_str())
        );
    }
}

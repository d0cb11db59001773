//! The generated request samples: one request model ([`crate::Request`]) written in each
//! language: curl, JavaScript (fetch), Python (requests), Go (net/http), Java (java.net.http),
//! Ruby (net/http), PHP (the curl extension) and C# (HttpClient).
//!
//! Every string of the document is hostile. A generator never writes document text outside a
//! string literal of its language, and writes every literal with [`quote`] (or the shell's
//! quoting): quotes and backslashes escaped, the language's interpolation characters escaped
//! (`$` in PHP, `#` in Ruby), and every control, line- or paragraph-separator, byte order mark
//! and bidirectional-formatting character written as an escape ([`is_risky`]), so that no value
//! can end a literal, start an interpolation, break a line or hide code. The site's
//! `shared/render/tests/samples.rs` checks every generated sample of the corpus and of a hostile
//! fixture with each language's own compiler or parser.

mod csharp;
mod curl;
mod go;
mod java;
mod javascript;
mod php;
mod python;
mod ruby;

use serde_json::Value;

use crate::request::Request;

/// One generated language: its key (the site remembers a reader's choice by key), the label of
/// its tab, and its generator.
#[derive(Clone, Copy, Debug)]
pub struct Language {
    /// `curl`, `javascript`, `python`, `go`, `java`, `ruby`, `php`, `csharp`.
    pub key: &'static str,
    /// What a reader sees on the language's tab (`JavaScript`).
    pub label: &'static str,
    /// The info string of a Markdown code block of this language (`sh`, `js`, …).
    pub fence: &'static str,
    /// Writes the request as a sample of the language.
    pub generate: fn(&Request) -> String,
}

/// The generated languages, in the site's order.
pub const LANGUAGES: [Language; 8] = [
    Language {
        key: "curl",
        label: "curl",
        fence: "sh",
        generate: curl::sample,
    },
    Language {
        key: "javascript",
        label: "JavaScript",
        fence: "js",
        generate: javascript::sample,
    },
    Language {
        key: "python",
        label: "Python",
        fence: "python",
        generate: python::sample,
    },
    Language {
        key: "go",
        label: "Go",
        fence: "go",
        generate: go::sample,
    },
    Language {
        key: "java",
        label: "Java",
        fence: "java",
        generate: java::sample,
    },
    Language {
        key: "ruby",
        label: "Ruby",
        fence: "ruby",
        generate: ruby::sample,
    },
    Language {
        key: "php",
        label: "PHP",
        fence: "php",
        generate: php::sample,
    },
    Language {
        key: "csharp",
        label: "C#",
        fence: "csharp",
        generate: csharp::sample,
    },
];

/// The curl sample alone (a page's Markdown form shows one sample).
pub fn curl(r: &Request) -> String {
    curl::sample(r)
}

/// Whether a character is written as an escape in every language's string literal: control
/// characters (NUL and line breaks included), the Unicode line and paragraph separators and
/// next-line (line breaks to some parsers), the byte order mark (refused mid-file by Go) and
/// the bidirectional formatting characters (which can make code read other than it parses).
pub fn is_risky(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{feff}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// A double-quoted string literal of a C-like language: `"` and `\` backslash-escaped, each
/// character of `extra` backslash-escaped (a language's interpolation sigil), line feed, carriage
/// return and tab as `\n`, `\r`, `\t`, and every other [`is_risky`] character written by `code`.
pub(crate) fn quote(s: &str, extra: &[char], code: fn(char) -> String) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if extra.contains(&c) => {
                out.push('\\');
                out.push(c);
            }
            c if is_risky(c) => out.push_str(&code(c)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `\uXXXX` (every risky character is in the Basic Multilingual Plane).
pub(crate) fn u4(c: char) -> String {
    format!("\\u{:04x}", u32::from(c))
}

/// How a language writes a JSON value as a literal of its own.
pub(crate) struct Syntax {
    pub(crate) null: &'static str,
    pub(crate) yes: &'static str,
    pub(crate) no: &'static str,
    pub(crate) open_object: &'static str,
    pub(crate) close_object: &'static str,
    pub(crate) empty_object: &'static str,
    /// Between a key and its value (`": "`, `" => "`).
    pub(crate) pair: &'static str,
    /// A key (usually the language's string literal).
    pub(crate) key: fn(&str) -> String,
    pub(crate) string: fn(&str) -> String,
}

/// Writes `v` as a literal of the language, pretty-printed: nested lines start with `indent`
/// and one more `unit` per level.
pub(crate) fn write_value(v: &Value, syn: &Syntax, indent: &str, unit: &str, out: &mut String) {
    match v {
        Value::Null => out.push_str(syn.null),
        Value::Bool(true) => out.push_str(syn.yes),
        Value::Bool(false) => out.push_str(syn.no),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => out.push_str(&(syn.string)(s)),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) => {
            let inner = format!("{indent}{unit}");
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                out.push_str(&inner);
                write_value(item, syn, &inner, unit, out);
            }
            out.push('\n');
            out.push_str(indent);
            out.push(']');
        }
        Value::Object(map) if map.is_empty() => out.push_str(syn.empty_object),
        Value::Object(map) => {
            let inner = format!("{indent}{unit}");
            out.push_str(syn.open_object);
            for (i, (k, item)) in map.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                out.push_str(&inner);
                out.push_str(&(syn.key)(k));
                out.push_str(syn.pair);
                write_value(item, syn, &inner, unit, out);
            }
            out.push('\n');
            out.push_str(indent);
            out.push_str(syn.close_object);
        }
    }
}

/// The JSON text of a body, pretty-printed (two spaces).
pub(crate) fn json_text(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".to_string())
}

/// A multi-line text as literals of a language joined by `+` (Java, C#): one literal per line,
/// continuation lines starting with `indent`.
pub(crate) fn concatenated(text: &str, indent: &str, lit: fn(&str) -> String) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let last = lines.len().saturating_sub(1);
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push_str(" +\n");
            out.push_str(indent);
        }
        if i < last {
            out.push_str(&lit(&format!("{line}\n")));
        } else {
            out.push_str(&lit(line));
        }
    }
    out
}

/// The `Content-Type` the model asks for, if any.
pub(crate) fn content_type(r: &Request) -> Option<&str> {
    r.headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::{csharp, curl, go, java, javascript, php, python, quote, ruby, u4};

    #[test]
    fn a_literal_escapes_quotes_backslashes_line_breaks_and_invisible_characters() {
        assert_eq!(
            quote("a\"b\\c\nd\u{2028}\u{1}\u{202e}", &[], u4),
            r#""a\"b\\c\nd\u2028\u0001\u202e""#
        );
        for lit in [javascript::lit, python::lit, go::lit, csharp::lit] {
            assert_eq!(lit("${x} */ \u{85}"), r#""${x} */ \u0085""#);
        }
    }

    #[test]
    fn ruby_and_php_literals_escape_their_interpolation_sigils() {
        assert_eq!(ruby::lit("#{x} #@y"), r#""\#{x} \#@y""#);
        assert_eq!(php::lit("{$x} $y"), r#""{\$x} \$y""#);
        assert_eq!(php::lit("\u{1}"), r#""\u{0001}""#);
    }

    #[test]
    fn java_writes_low_characters_as_octal_escapes_and_doubles_a_written_unicode_escape() {
        assert_eq!(java::lit("\u{85}\u{1}\\u000a"), r#""\205\001\\u000a""#);
        assert_eq!(java::lit("\u{2028}"), r#""\u2028""#);
    }

    #[test]
    fn the_shell_quotes_in_single_quotes_and_in_ansi_c_quotes_for_control_characters() {
        assert_eq!(curl::shell_quote("it's\n{}"), "'it'\\''s\n{}'");
        assert_eq!(curl::shell_quote("a\u{1b}'\u{2028}"), "$'a\\x1b\\'\\u2028'");
    }
}

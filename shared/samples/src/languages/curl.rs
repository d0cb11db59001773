//! The curl sample: one shell command, each argument quoted for the shell.

use super::is_risky;
use super::json_text;
use crate::request::{Body, Request, url_encode};

/// A shell word: single-quoted (`'` written as `'\''`; line feeds and tabs kept, as a reader
/// expects of a multi-line JSON body), or ANSI-C quoted (`$'…'`) when it holds another character
/// a single-quoted word would carry raw (control characters, separators, bidi controls).
pub(crate) fn shell_quote(s: &str) -> String {
    if !s.chars().any(|c| is_risky(c) && c != '\n' && c != '\t') {
        return format!("'{}'", s.replace('\'', "'\\''"));
    }
    let mut out = String::from("$'");
    for c in s.chars() {
        match c {
            '\'' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_risky(c) && u32::from(c) < 0x80 => {
                out.push_str(&format!("\\x{:02x}", u32::from(c)));
            }
            c if is_risky(c) => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A word for the method: as is when it is letters only, else quoted.
fn method_word(m: &str) -> String {
    if !m.is_empty() && m.chars().all(|c| c.is_ascii_alphabetic()) {
        m.to_string()
    } else {
        shell_quote(m)
    }
}

pub(crate) fn sample(r: &Request) -> String {
    let mut s = format!(
        "curl --request {} \\\n  --url {}",
        method_word(&r.method),
        shell_quote(&r.url)
    );
    if let Some((u, p)) = &r.basic {
        s.push_str(&format!(
            " \\\n  --user {}",
            shell_quote(&format!("{u}:{p}"))
        ));
    }
    for (n, v) in &r.headers {
        s.push_str(&format!(
            " \\\n  --header {}",
            shell_quote(&format!("{n}: {v}"))
        ));
    }
    match &r.body {
        Body::None => {}
        Body::Json(v) => s.push_str(&format!(" \\\n  --data {}", shell_quote(&json_text(v)))),
        Body::Form(fields) => {
            // The name is encoded here so that curl never reads `name@file` as a file to send.
            for (k, v) in fields {
                let mut arg = String::new();
                url_encode(k, &mut arg);
                arg.push('=');
                arg.push_str(v);
                s.push_str(&format!(" \\\n  --data-urlencode {}", shell_quote(&arg)));
            }
        }
        Body::Multipart(fields) => {
            // `--form-string`: a value starting with `@` or `<` is text, not a file to read.
            for (k, v) in fields {
                let k = k.replace(['=', ';'], "_");
                s.push_str(&format!(
                    " \\\n  --form-string {}",
                    shell_quote(&format!("{k}={v}"))
                ));
            }
        }
        Body::Raw => s.push_str(" \\\n  --data-binary @file"),
    }
    s
}

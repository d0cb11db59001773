//! The JavaScript sample: `fetch` (browsers, Node 18+, Deno, Bun), with top-level `await`.

use super::{Syntax, quote, u4, write_value};
use crate::request::{Body, FILE_PLACEHOLDER, Request};

/// A JavaScript string literal (double quotes; no template literal, so `${` is plain text).
pub(crate) fn lit(s: &str) -> String {
    quote(s, &[], u4)
}

/// An object key: a string literal, computed for `__proto__` (which a plain key would turn into
/// the object's prototype instead of a member).
fn key(s: &str) -> String {
    if s == "__proto__" {
        format!("[{}]", lit(s))
    } else {
        lit(s)
    }
}

const SYNTAX: Syntax = Syntax {
    null: "null",
    yes: "true",
    no: "false",
    open_object: "{",
    close_object: "}",
    empty_object: "{}",
    pair: ": ",
    key,
    string: lit,
};

pub(crate) fn sample(r: &Request) -> String {
    let mut s = String::new();
    if let Body::Multipart(fields) = &r.body {
        s.push_str("const form = new FormData();\n");
        for (k, v) in fields {
            s.push_str(&format!("form.append({}, {});\n", lit(k), lit(v)));
        }
    }
    s.push_str(&format!(
        "const response = await fetch({}, {{\n",
        lit(&r.url)
    ));
    s.push_str(&format!("  method: {},\n", lit(&r.method)));
    if !r.headers.is_empty() || r.basic.is_some() {
        s.push_str("  headers: {\n");
        for (n, v) in &r.headers {
            s.push_str(&format!("    {}: {},\n", key(n), lit(v)));
        }
        if let Some((u, p)) = &r.basic {
            s.push_str(&format!(
                "    \"Authorization\": \"Basic \" + btoa({}),\n",
                lit(&format!("{u}:{p}"))
            ));
        }
        s.push_str("  },\n");
    }
    match &r.body {
        Body::None => {}
        Body::Json(v) => {
            let mut text = String::new();
            write_value(v, &SYNTAX, "  ", "  ", &mut text);
            s.push_str(&format!("  body: JSON.stringify({text}),\n"));
        }
        Body::Form(fields) => {
            s.push_str("  body: new URLSearchParams([\n");
            for (k, v) in fields {
                s.push_str(&format!("    [{}, {}],\n", lit(k), lit(v)));
            }
            s.push_str("  ]),\n");
        }
        Body::Multipart(_) => s.push_str("  body: form,\n"),
        Body::Raw => s.push_str(&format!("  body: {},\n", lit(FILE_PLACEHOLDER))),
    }
    s.push_str("});\nconsole.log(response.status, await response.text());");
    s
}

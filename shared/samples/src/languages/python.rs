//! The Python sample: the `requests` library.

use super::{Syntax, quote, u4, write_value};
use crate::request::{Body, FILE_PLACEHOLDER, Request};

/// A Python string literal (double quotes; never an f-string, so `{` is plain text).
pub(crate) fn lit(s: &str) -> String {
    quote(s, &[], u4)
}

const SYNTAX: Syntax = Syntax {
    null: "None",
    yes: "True",
    no: "False",
    open_object: "{",
    close_object: "}",
    empty_object: "{}",
    pair: ": ",
    key: lit,
    string: lit,
};

/// `name=[(key, value), ...],` (pairs keep order and repeated names).
fn pairs(name: &str, fields: &[(String, String)], multipart: bool) -> String {
    let mut s = format!("    {name}=[\n");
    for (k, v) in fields {
        if multipart {
            s.push_str(&format!("        ({}, (None, {})),\n", lit(k), lit(v)));
        } else {
            s.push_str(&format!("        ({}, {}),\n", lit(k), lit(v)));
        }
    }
    s.push_str("    ],\n");
    s
}

pub(crate) fn sample(r: &Request) -> String {
    let mut s = String::from("import requests\n\nresponse = requests.request(\n");
    s.push_str(&format!("    {},\n    {},\n", lit(&r.method), lit(&r.url)));
    if !r.headers.is_empty() {
        s.push_str("    headers={\n");
        for (n, v) in &r.headers {
            s.push_str(&format!("        {}: {},\n", lit(n), lit(v)));
        }
        s.push_str("    },\n");
    }
    if let Some((u, p)) = &r.basic {
        s.push_str(&format!("    auth=({}, {}),\n", lit(u), lit(p)));
    }
    match &r.body {
        Body::None => {}
        Body::Json(v) => {
            let mut text = String::new();
            write_value(v, &SYNTAX, "    ", "    ", &mut text);
            s.push_str(&format!("    json={text},\n"));
        }
        Body::Form(fields) => s.push_str(&pairs("data", fields, false)),
        Body::Multipart(fields) => s.push_str(&pairs("files", fields, true)),
        Body::Raw => s.push_str(&format!("    data={},\n", lit(FILE_PLACEHOLDER))),
    }
    s.push_str(")\nprint(response.status_code, response.text)");
    s
}

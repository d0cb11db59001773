//! The PHP sample: the curl extension.

use super::{Syntax, quote, write_value};
use crate::request::{Body, FILE_PLACEHOLDER, Request};

/// `\u{XXXX}` (PHP 7+).
fn code(c: char) -> String {
    format!("\\u{{{:04x}}}", u32::from(c))
}

/// A PHP double-quoted string literal: `$` is escaped as well, so no `$var` or `{$…}` of the
/// text interpolates.
pub(crate) fn lit(s: &str) -> String {
    quote(s, &['$'], code)
}

const SYNTAX: Syntax = Syntax {
    null: "null",
    yes: "true",
    no: "false",
    open_object: "[",
    close_object: "]",
    // `json_encode([])` is a JSON array; an empty object needs an object.
    empty_object: "new stdClass()",
    pair: " => ",
    key: lit,
    string: lit,
};

/// `["name" => "value", ...]` (a later repeated name wins, as PHP arrays keep one per key).
fn fields_array(fields: &[(String, String)]) -> String {
    let mut s = String::from("[\n");
    for (k, v) in fields {
        s.push_str(&format!("        {} => {},\n", lit(k), lit(v)));
    }
    s.push_str("    ]");
    s
}

pub(crate) fn sample(r: &Request) -> String {
    let mut s = String::from("<?php\n");
    s.push_str(&format!("$ch = curl_init({});\n", lit(&r.url)));
    s.push_str("curl_setopt_array($ch, [\n");
    s.push_str(&format!(
        "    CURLOPT_CUSTOMREQUEST => {},\n",
        lit(&r.method)
    ));
    s.push_str("    CURLOPT_RETURNTRANSFER => true,\n");
    if !r.headers.is_empty() {
        s.push_str("    CURLOPT_HTTPHEADER => [\n");
        for (n, v) in &r.headers {
            s.push_str(&format!("        {},\n", lit(&format!("{n}: {v}"))));
        }
        s.push_str("    ],\n");
    }
    if let Some((u, p)) = &r.basic {
        s.push_str(&format!(
            "    CURLOPT_USERPWD => {},\n",
            lit(&format!("{u}:{p}"))
        ));
    }
    match &r.body {
        Body::None => {}
        Body::Json(v) => {
            let mut text = String::new();
            write_value(v, &SYNTAX, "    ", "    ", &mut text);
            s.push_str(&format!("    CURLOPT_POSTFIELDS => json_encode({text}),\n"));
        }
        Body::Form(fields) => s.push_str(&format!(
            "    CURLOPT_POSTFIELDS => http_build_query({}),\n",
            fields_array(fields)
        )),
        Body::Multipart(fields) => s.push_str(&format!(
            "    CURLOPT_POSTFIELDS => {},\n",
            fields_array(fields)
        )),
        Body::Raw => s.push_str(&format!(
            "    CURLOPT_POSTFIELDS => {},\n",
            lit(FILE_PLACEHOLDER)
        )),
    }
    s.push_str(
        "]);\n$response = curl_exec($ch);\n\
         echo curl_getinfo($ch, CURLINFO_RESPONSE_CODE), \"\\n\", $response, \"\\n\";\ncurl_close($ch);",
    );
    s
}

//! The Ruby sample: `net/http` from the standard library.

use super::{Syntax, quote, u4, write_value};
use crate::request::{Body, FILE_PLACEHOLDER, Request};

/// A Ruby double-quoted string literal: `#` is escaped as well, so no `#{…}`, `#@x` or `#$x`
/// of the text interpolates.
pub(crate) fn lit(s: &str) -> String {
    quote(s, &['#'], u4)
}

const SYNTAX: Syntax = Syntax {
    null: "nil",
    yes: "true",
    no: "false",
    open_object: "{",
    close_object: "}",
    empty_object: "{}",
    pair: " => ",
    key: lit,
    string: lit,
};

/// The request class of a method `net/http` has one for, else the generic request.
fn request_new(method: &str) -> String {
    let class = match method {
        "GET" => "Get",
        "POST" => "Post",
        "PUT" => "Put",
        "PATCH" => "Patch",
        "DELETE" => "Delete",
        "HEAD" => "Head",
        "OPTIONS" => "Options",
        "TRACE" => "Trace",
        _ => {
            return format!(
                "Net::HTTPGenericRequest.new({}, true, true, uri)",
                lit(method)
            );
        }
    };
    format!("Net::HTTP::{class}.new(uri)")
}

/// `[["name", "value"], ...]`.
fn pairs(fields: &[(String, String)]) -> String {
    let items: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("[{}, {}]", lit(k), lit(v)))
        .collect();
    format!("[{}]", items.join(", "))
}

pub(crate) fn sample(r: &Request) -> String {
    let mut s = String::from("require \"net/http\"\n");
    if matches!(r.body, Body::Json(_)) {
        s.push_str("require \"json\"\n");
    }
    s.push_str(&format!("\nuri = URI({})\n", lit(&r.url)));
    s.push_str(&format!("request = {}\n", request_new(&r.method)));
    for (n, v) in &r.headers {
        s.push_str(&format!("request[{}] = {}\n", lit(n), lit(v)));
    }
    if let Some((u, p)) = &r.basic {
        s.push_str(&format!("request.basic_auth({}, {})\n", lit(u), lit(p)));
    }
    match &r.body {
        Body::None => {}
        Body::Json(v) => {
            let mut text = String::new();
            write_value(v, &SYNTAX, "", "  ", &mut text);
            s.push_str(&format!("request.body = JSON.generate({text})\n"));
        }
        Body::Form(fields) => {
            s.push_str(&format!(
                "request.body = URI.encode_www_form({})\n",
                pairs(fields)
            ));
        }
        Body::Multipart(fields) => {
            s.push_str(&format!(
                "request.set_form({}, \"multipart/form-data\")\n",
                pairs(fields)
            ));
        }
        Body::Raw => s.push_str(&format!("request.body = {}\n", lit(FILE_PLACEHOLDER))),
    }
    s.push_str(
        "response = Net::HTTP.start(uri.hostname, uri.port, use_ssl: uri.scheme == \"https\") do |http|\n\
         \x20 http.request(request)\nend\nputs response.code, response.body",
    );
    s
}

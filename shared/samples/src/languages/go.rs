//! The Go sample: a `main` package with `net/http`.

use super::{is_risky, json_text, quote, u4};
use crate::request::{Body, FILE_PLACEHOLDER, Request};

/// A Go interpreted string literal (`\uXXXX` escapes).
pub(crate) fn lit(s: &str) -> String {
    quote(s, &[], u4)
}

/// A raw string literal when the text can be one (no backquote, no risky character but line
/// feeds and tabs, since a raw literal carries them as they are and drops carriage returns),
/// else an interpreted one.
fn text_lit(s: &str) -> String {
    if s.contains('`') || s.chars().any(|c| is_risky(c) && c != '\n' && c != '\t') {
        lit(s)
    } else {
        format!("`{s}`")
    }
}

/// The imports the sample uses, sorted as gofmt sorts them.
fn imports(r: &Request) -> Vec<&'static str> {
    let mut v = vec!["fmt", "io", "net/http"];
    match r.body {
        Body::None => {}
        Body::Json(_) | Body::Raw => v.push("strings"),
        Body::Form(_) => v.extend(["net/url", "strings"]),
        Body::Multipart(_) => v.extend(["bytes", "mime/multipart"]),
    }
    v.sort_unstable();
    v
}

/// The statements that make `body` (an `io.Reader`) before the request, if there is a body.
fn body_statements(r: &Request) -> String {
    let mut s = String::new();
    match &r.body {
        Body::None => {}
        Body::Json(v) => s.push_str(&format!(
            "\tbody := strings.NewReader({})\n",
            text_lit(&json_text(v))
        )),
        Body::Raw => s.push_str(&format!(
            "\tbody := strings.NewReader({})\n",
            lit(FILE_PLACEHOLDER)
        )),
        Body::Form(fields) => {
            s.push_str("\tform := url.Values{}\n");
            for (k, v) in fields {
                s.push_str(&format!("\tform.Add({}, {})\n", lit(k), lit(v)));
            }
            s.push_str("\tbody := strings.NewReader(form.Encode())\n");
        }
        Body::Multipart(fields) => {
            s.push_str("\tbody := &bytes.Buffer{}\n\twriter := multipart.NewWriter(body)\n");
            for (k, v) in fields {
                s.push_str(&format!(
                    "\tif err := writer.WriteField({}, {}); err != nil {{\n\t\tpanic(err)\n\t}}\n",
                    lit(k),
                    lit(v)
                ));
            }
            s.push_str("\tif err := writer.Close(); err != nil {\n\t\tpanic(err)\n\t}\n");
        }
    }
    s
}

pub(crate) fn sample(r: &Request) -> String {
    let mut s = String::from("package main\n\nimport (\n");
    for i in imports(r) {
        s.push_str(&format!("\t\"{i}\"\n"));
    }
    s.push_str(")\n\nfunc main() {\n");
    s.push_str(&body_statements(r));
    let body = if matches!(r.body, Body::None) {
        "nil"
    } else {
        "body"
    };
    s.push_str(&format!(
        "\treq, err := http.NewRequest({}, {}, {body})\n\tif err != nil {{\n\t\tpanic(err)\n\t}}\n",
        lit(&r.method),
        lit(&r.url)
    ));
    for (n, v) in &r.headers {
        s.push_str(&format!("\treq.Header.Add({}, {})\n", lit(n), lit(v)));
    }
    if matches!(r.body, Body::Multipart(_)) {
        s.push_str("\treq.Header.Set(\"Content-Type\", writer.FormDataContentType())\n");
    }
    if let Some((u, p)) = &r.basic {
        s.push_str(&format!("\treq.SetBasicAuth({}, {})\n", lit(u), lit(p)));
    }
    s.push_str(
        "\tresp, err := http.DefaultClient.Do(req)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\
         \tdefer resp.Body.Close()\n\tout, err := io.ReadAll(resp.Body)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\
         \tfmt.Println(resp.Status, string(out))\n}",
    );
    s
}

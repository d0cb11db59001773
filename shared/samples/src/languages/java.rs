//! The Java sample: `java.net.http.HttpClient` (Java 11+), one `Main` class.

use super::{concatenated, json_text, quote};
use crate::request::{Body, FILE_PLACEHOLDER, Request, url_encode};

/// A character as a Java escape. Not `\uXXXX` for the characters up to U+00FF: javac turns
/// unicode escapes into characters before it reads literals, so `\u000a` would end the literal;
/// octal escapes are read inside it. The others (separators, bidi controls) are no line break
/// to Java, so a unicode escape is safe for them.
fn code(c: char) -> String {
    let n = u32::from(c);
    if n <= 0xff {
        format!("\\{n:03o}")
    } else {
        format!("\\u{n:04x}")
    }
}

/// A Java string literal. Each backslash is doubled, so no `\u` of the text is a unicode escape.
pub(crate) fn lit(s: &str) -> String {
    quote(s, &[], code)
}

/// The body publisher: the body as one (concatenated) string literal, or none.
fn publisher(r: &Request) -> String {
    const INDENT: &str = "                ";
    let text = match &r.body {
        Body::None => return "HttpRequest.BodyPublishers.noBody()".to_string(),
        Body::Json(v) => concatenated(&json_text(v), INDENT, lit),
        Body::Raw => lit(FILE_PLACEHOLDER),
        Body::Form(fields) => {
            let mut form = String::new();
            for (i, (k, v)) in fields.iter().enumerate() {
                if i > 0 {
                    form.push('&');
                }
                url_encode(k, &mut form);
                form.push('=');
                url_encode(v, &mut form);
            }
            lit(&form)
        }
        Body::Multipart(fields) => concatenated(&multipart(fields), INDENT, lit),
    };
    format!("HttpRequest.BodyPublishers.ofString({text})")
}

/// The boundary of a multipart body.
const BOUNDARY: &str = "specpress-sample-boundary";

/// A `multipart/form-data` body of text fields (names quoted as HTML forms quote them).
fn multipart(fields: &[(String, String)]) -> String {
    let mut s = String::new();
    for (k, v) in fields {
        let name = k.replace('"', "%22").replace(['\r', '\n'], " ");
        s.push_str(&format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{v}\r\n"
        ));
    }
    s.push_str(&format!("--{BOUNDARY}--\r\n"));
    s
}

pub(crate) fn sample(r: &Request) -> String {
    let mut s = String::from(
        "import java.net.URI;\nimport java.net.http.HttpClient;\nimport java.net.http.HttpRequest;\n\
         import java.net.http.HttpResponse;\n",
    );
    if r.basic.is_some() {
        s.push_str("import java.nio.charset.StandardCharsets;\nimport java.util.Base64;\n");
    }
    s.push_str(
        "\npublic class Main {\n    public static void main(String[] args) throws Exception {\n\
         \x20       HttpRequest request = HttpRequest.newBuilder()\n",
    );
    s.push_str(&format!("            .uri(URI.create({}))\n", lit(&r.url)));
    for (n, v) in &r.headers {
        s.push_str(&format!("            .header({}, {})\n", lit(n), lit(v)));
    }
    if matches!(r.body, Body::Multipart(_)) {
        s.push_str(&format!(
            "            .header(\"Content-Type\", \"multipart/form-data; boundary={BOUNDARY}\")\n"
        ));
    }
    if let Some((u, p)) = &r.basic {
        s.push_str(&format!(
            "            .header(\"Authorization\", \"Basic \" + Base64.getEncoder().encodeToString(\n\
             \x20               {}.getBytes(StandardCharsets.UTF_8)))\n",
            lit(&format!("{u}:{p}"))
        ));
    }
    s.push_str(&format!(
        "            .method({}, {})\n            .build();\n",
        lit(&r.method),
        publisher(r)
    ));
    s.push_str(
        "        HttpResponse<String> response = HttpClient.newHttpClient()\n\
         \x20           .send(request, HttpResponse.BodyHandlers.ofString());\n\
         \x20       System.out.println(response.statusCode() + \" \" + response.body());\n    }\n}",
    );
    s
}

//! The C# sample: `HttpClient` (.NET Framework 4.5+, .NET Core, Mono), C# 7.

use super::{concatenated, content_type, json_text, quote, u4};
use crate::request::{Body, FILE_PLACEHOLDER, Request};

/// A C# regular string literal (`\uXXXX` escapes; never `\x`, whose length varies, nor a
/// verbatim or interpolated string).
pub(crate) fn lit(s: &str) -> String {
    quote(s, &[], u4)
}

const INDENT: &str = "            ";

/// The statements that set `request.Content`, if there is a body.
fn content(r: &Request) -> String {
    let mut s = String::new();
    let text = match &r.body {
        Body::None => return s,
        Body::Json(v) => concatenated(&json_text(v), &format!("{INDENT}    "), lit),
        Body::Raw => lit(FILE_PLACEHOLDER),
        Body::Form(fields) => {
            s.push_str(&format!(
                "{INDENT}request.Content = new FormUrlEncodedContent(new List<KeyValuePair<string, string>>\n{INDENT}{{\n"
            ));
            for (k, v) in fields {
                s.push_str(&format!(
                    "{INDENT}    new KeyValuePair<string, string>({}, {}),\n",
                    lit(k),
                    lit(v)
                ));
            }
            s.push_str(&format!("{INDENT}}});\n"));
            return s;
        }
        Body::Multipart(fields) => {
            s.push_str(&format!(
                "{INDENT}var form = new MultipartFormDataContent();\n"
            ));
            for (k, v) in fields {
                s.push_str(&format!(
                    "{INDENT}form.Add(new StringContent({}), {});\n",
                    lit(v),
                    lit(k)
                ));
            }
            s.push_str(&format!("{INDENT}request.Content = form;\n"));
            return s;
        }
    };
    s.push_str(&format!(
        "{INDENT}request.Content = new StringContent({text});\n"
    ));
    if let Some(ct) = content_type(r) {
        // Set without validation: a media type with parameters is sent as written.
        s.push_str(&format!(
            "{INDENT}request.Content.Headers.Remove(\"Content-Type\");\n\
             {INDENT}request.Content.Headers.TryAddWithoutValidation(\"Content-Type\", {});\n",
            lit(ct)
        ));
    }
    s
}

pub(crate) fn sample(r: &Request) -> String {
    let mut s = String::from(
        "using System;\nusing System.Collections.Generic;\nusing System.Net.Http;\nusing System.Text;\n\
         using System.Threading.Tasks;\n\nclass Program\n{\n    static async Task Main()\n    {\n\
         \x20       using (var client = new HttpClient())\n        {\n",
    );
    s.push_str(&format!(
        "{INDENT}var request = new HttpRequestMessage(new HttpMethod({}), {});\n",
        lit(&r.method),
        lit(&r.url)
    ));
    for (n, v) in &r.headers {
        if n.eq_ignore_ascii_case("content-type") {
            continue;
        }
        s.push_str(&format!(
            "{INDENT}request.Headers.TryAddWithoutValidation({}, {});\n",
            lit(n),
            lit(v)
        ));
    }
    if let Some((u, p)) = &r.basic {
        s.push_str(&format!(
            "{INDENT}request.Headers.TryAddWithoutValidation(\"Authorization\",\n\
             {INDENT}    \"Basic \" + Convert.ToBase64String(Encoding.UTF8.GetBytes({})));\n",
            lit(&format!("{u}:{p}"))
        ));
    }
    s.push_str(&content(r));
    s.push_str(&format!(
        "{INDENT}var response = await client.SendAsync(request);\n\
         {INDENT}Console.WriteLine((int)response.StatusCode + \" \" + await response.Content.ReadAsStringAsync());\n\
         \x20       }}\n    }}\n}}"
    ));
    s
}

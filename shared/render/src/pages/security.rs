//! Authentication: the security schemes explained in words, and security requirements.

use specpress_spec::SecurityRequirement;

use crate::html::{Out, url_or_text};
use crate::schema::Ctx;

use super::{first_line, md, str_at};

/// Security schemes, explained in words, and the document-wide requirement.
pub(super) fn authentication_section(c: &mut Ctx<'_>, out: &mut Out) {
    let model = c.doc.model();
    if model.security_schemes.is_empty() {
        return;
    }
    out.raw("<h2>Authentication</h2>");
    if let Some(req) = &model.security {
        out.raw("<p>Unless an operation says otherwise: ");
        requirements(out, req);
        out.raw("</p>");
    }
    for (name, s) in &model.security_schemes {
        out.raw("<h3>").text(name).raw("</h3>");
        let src = c.doc.value(&s.source);
        out.raw("<p>");
        match s.scheme_type.as_str() {
            "apiKey" => {
                let place = s.location.as_deref().unwrap_or("header");
                out.raw("An API key sent in the ")
                    .raw(match place {
                        "query" => "query parameter",
                        "cookie" => "cookie",
                        _ => "header",
                    })
                    .raw(" <code>")
                    .text(s.name.as_deref().unwrap_or(""))
                    .raw("</code>.");
            }
            "http" => {
                let scheme = s.scheme.as_deref().unwrap_or("").to_ascii_lowercase();
                match scheme.as_str() {
                    "bearer" => {
                        out.raw("A bearer token in the <code>Authorization</code> header: <code>Authorization: Bearer &lt;token&gt;</code>");
                        if let Some(f) = &s.bearer_format {
                            out.raw(" (format: ").text(f).raw(")");
                        }
                        out.raw(".");
                    }
                    "basic" => {
                        out.raw("HTTP Basic authentication: a user name and password in the <code>Authorization</code> header.");
                    }
                    _ => {
                        out.raw("HTTP authentication with the <code>")
                            .text(s.scheme.as_deref().unwrap_or(""))
                            .raw("</code> scheme in the <code>Authorization</code> header.");
                    }
                }
            }
            "basic" => {
                out.raw("HTTP Basic authentication: a user name and password in the <code>Authorization</code> header.");
            }
            "oauth2" => {
                out.raw("OAuth 2.0: send the access token as <code>Authorization: Bearer &lt;token&gt;</code>.");
            }
            "openIdConnect" => {
                out.raw("OpenID Connect: send the token as <code>Authorization: Bearer &lt;token&gt;</code>.");
                if let Some(u) = &s.open_id_connect_url {
                    out.raw(" Discovery document: ");
                    url_or_text(out, u, None);
                    out.raw(".");
                }
            }
            "mutualTLS" | "X509" => {
                out.raw("Mutual TLS: the client presents a certificate.");
            }
            other => {
                out.raw("Scheme <code>").text(other).raw("</code>.");
            }
        }
        out.raw("</p>");
        if let Some(d) = src.and_then(|v| str_at(v, "description")) {
            md(out, d, 4);
        }
        if !s.flows.is_empty() {
            out.raw("<dl class=\"kv\">");
            let flows_v = src.and_then(|v| v.get("flows"));
            for (flow, scopes) in &s.flows {
                out.raw("<dt>").text(flow).raw(" flow</dt><dd>");
                let fv = flows_v.and_then(|f| f.get(flow)).or(src);
                for (key, label) in [
                    ("authorizationUrl", "authorization"),
                    ("tokenUrl", "token"),
                    ("refreshUrl", "refresh"),
                ] {
                    if let Some(u) = fv.and_then(|f| str_at(f, key)) {
                        out.raw(label).raw(": ");
                        url_or_text(out, u, None);
                        out.raw("<br>");
                    }
                }
                if !scopes.is_empty() {
                    out.raw("scopes: <ul>");
                    for (scope, desc) in scopes.iter().take(200) {
                        out.raw("<li><code>").text(scope).raw("</code>");
                        if !desc.is_empty() {
                            out.raw(" ").text(&first_line(desc, 300));
                        }
                        out.raw("</li>");
                    }
                    out.raw("</ul>");
                }
                out.raw("</dd>");
            }
            out.raw("</dl>");
        }
    }
}

pub(super) fn requirements(out: &mut Out, req: &[SecurityRequirement]) {
    if req.is_empty() {
        out.raw("no authentication.");
        return;
    }
    for (i, alt) in req.iter().enumerate() {
        if i > 0 {
            out.raw(" <em>or</em> ");
        }
        if alt.is_empty() {
            out.raw("no authentication");
            continue;
        }
        for (j, (name, scopes)) in alt.iter().enumerate() {
            if j > 0 {
                out.raw(" <em>and</em> ");
            }
            out.raw("<code>").text(name).raw("</code>");
            if !scopes.is_empty() {
                out.raw(" (scopes ");
                for (k, s) in scopes.iter().take(50).enumerate() {
                    if k > 0 {
                        out.raw(", ");
                    }
                    out.raw("<code>").text(s).raw("</code>");
                }
                out.raw(")");
            }
        }
    }
}

//! Authentication: the security schemes explained in words, and security requirements
//! (templates `pages/authentication.html` and `pages/requirements.html`).

use askama::Template;
use specpress_apispec::SecurityRequirement;

use crate::html::{Html, Out, url_or_text};
use crate::markdown::{self, MAX_MARKDOWN_BYTES};
use crate::schema::Ctx;
use crate::tpl;

use super::{first_line, str_at};

#[derive(Template)]
#[template(path = "pages/authentication.html", escape = "engine")]
struct Authentication<'a> {
    /// The document-wide requirement, if any.
    requirement: Option<Html>,
    schemes: Vec<SchemeView<'a>>,
}

struct SchemeView<'a> {
    name: &'a str,
    explain: Explain<'a>,
    description: Option<Html>,
    flows: Vec<FlowView<'a>>,
}

/// How a scheme is explained, by its type.
enum Explain<'a> {
    ApiKey { place: &'static str, name: &'a str },
    Bearer { format: Option<&'a str> },
    Basic,
    Http { scheme: &'a str },
    OAuth2,
    OpenIdConnect { discovery: Option<Html> },
    MutualTls,
    Other { scheme: &'a str },
}

/// An OAuth flow: its URLs (label, link or text) and its scopes (name, first line of the
/// description).
struct FlowView<'a> {
    name: &'a str,
    urls: Vec<(&'static str, Html)>,
    scopes: Vec<(&'a str, Option<String>)>,
}

#[derive(Template)]
#[template(path = "pages/requirements.html", escape = "engine")]
struct Requirements<'a> {
    req: &'a [SecurityRequirement],
}

fn url_html(url: &str) -> Html {
    let mut out = Out::new();
    url_or_text(&mut out, url, None);
    out.finish()
}

/// Security schemes, explained in words, and the document-wide requirement (nothing when the
/// document has no security scheme).
pub(super) fn authentication_section(c: &mut Ctx<'_>) -> Option<Html> {
    let model = c.doc.model();
    if model.security_schemes.is_empty() {
        return None;
    }
    let schemes = model
        .security_schemes
        .iter()
        .map(|(name, s)| {
            let src = c.doc.value(&s.source);
            let explain = match s.scheme_type.as_str() {
                "apiKey" => Explain::ApiKey {
                    place: match s.location.as_deref().unwrap_or("header") {
                        "query" => "query parameter",
                        "cookie" => "cookie",
                        _ => "header",
                    },
                    name: s.name.as_deref().unwrap_or(""),
                },
                "http" => match s
                    .scheme
                    .as_deref()
                    .unwrap_or("")
                    .to_ascii_lowercase()
                    .as_str()
                {
                    "bearer" => Explain::Bearer {
                        format: s.bearer_format.as_deref(),
                    },
                    "basic" => Explain::Basic,
                    _ => Explain::Http {
                        scheme: s.scheme.as_deref().unwrap_or(""),
                    },
                },
                "basic" => Explain::Basic,
                "oauth2" => Explain::OAuth2,
                "openIdConnect" => Explain::OpenIdConnect {
                    discovery: s.open_id_connect_url.as_deref().map(url_html),
                },
                "mutualTLS" | "X509" => Explain::MutualTls,
                other => Explain::Other { scheme: other },
            };
            let flows_v = src.and_then(|v| v.get("flows"));
            let flows = s
                .flows
                .iter()
                .map(|(flow, scopes)| {
                    let fv = flows_v.and_then(|f| f.get(flow)).or(src);
                    FlowView {
                        name: flow,
                        urls: [
                            ("authorizationUrl", "authorization"),
                            ("tokenUrl", "token"),
                            ("refreshUrl", "refresh"),
                        ]
                        .into_iter()
                        .filter_map(|(key, label)| {
                            fv.and_then(|f| str_at(f, key))
                                .map(|u| (label, url_html(u)))
                        })
                        .collect(),
                        scopes: scopes
                            .iter()
                            .take(200)
                            .map(|(scope, desc)| {
                                let line = (!desc.is_empty()).then(|| first_line(desc, 300));
                                (scope.as_str(), line)
                            })
                            .collect(),
                    }
                })
                .collect();
            SchemeView {
                name,
                explain,
                description: src
                    .and_then(|v| str_at(v, "description"))
                    .map(|d| markdown::render(d, 4, MAX_MARKDOWN_BYTES)),
                flows,
            }
        })
        .collect();
    let section = Authentication {
        requirement: model.security.as_deref().map(requirements),
        schemes,
    };
    Some(tpl::render(&section, 4096))
}

/// A security requirement in words (`no authentication.` when it is empty).
pub(super) fn requirements(req: &[SecurityRequirement]) -> Html {
    tpl::render(&Requirements { req }, 256)
}

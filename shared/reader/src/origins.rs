//! The origins a documentation's "Try it" may reach: those of its document's servers, as the proxy
//! (`specpress-try-it`) allows them and as a `direct` documentation's operation pages name them in `connect-src`
//! (`specpress-site`).
//!
//! Every server of the head is read: the document's `servers` (Swagger 2.0's `schemes`/`host`/`basePath` are
//! mapped there by the spec engine) and the path- and operation-level ones. A server URL with variables is
//! expanded with every value a variable may take: its `enum` values when it has some, else its `default`; a
//! variable with neither, or a URL still holding a `{` after expansion, yields nothing (no guess is made). Each URL
//! must then be an absolute `http` or `https` URL with a host: a relative server URL (`/v1`, `//api.example`)
//! resolves against nothing here and is refused, since the page's own origin is not an API server. The origin is
//! the `url` crate's ASCII serialization (`scheme://host[:port]`, lowercase, the default port left out), which
//! holds no quote, semicolon, comma, space or wildcard, so it is safe inside a Content-Security-Policy.

use specpress_apispec::model::{ApiModel, Server};
use url::Url;

/// Most origins one documentation may name (a document with more is cut there, in document order).
pub const MAX_ORIGINS: usize = 64;
/// Most URLs one server's variables expand to.
const MAX_EXPANSIONS: usize = 64;

/// The origins of every server of `model`, each once, in document order, at most [`MAX_ORIGINS`].
pub fn server_origins(model: &ApiModel) -> Vec<String> {
    let operation_servers = model
        .operations
        .values()
        .filter_map(|op| op.servers.as_deref())
        .flatten();
    let mut out: Vec<String> = Vec::new();
    for server in model.servers.iter().chain(operation_servers) {
        for url in expansions(server) {
            if let Some(origin) = http_origin(&url)
                && !out.contains(&origin)
            {
                out.push(origin);
                if out.len() == MAX_ORIGINS {
                    return out;
                }
            }
        }
    }
    out
}

/// The URLs a server's variables expand to (see the module documentation).
fn expansions(server: &Server) -> Vec<String> {
    let mut urls = vec![server.url.clone()];
    for (name, var) in &server.variables {
        let values: Vec<&str> = if var.enumeration.is_empty() {
            var.default.as_deref().into_iter().collect()
        } else {
            var.enumeration.iter().map(String::as_str).collect()
        };
        let placeholder = format!("{{{name}}}");
        let mut next = Vec::new();
        for url in &urls {
            if !url.contains(&placeholder) {
                next.push(url.clone());
                continue;
            }
            for value in &values {
                if next.len() < MAX_EXPANSIONS {
                    next.push(url.replace(&placeholder, value));
                }
            }
        }
        urls = next;
    }
    urls.retain(|u| !u.contains('{'));
    urls
}

/// The origin of an absolute `http(s)` URL with a host and no user info; `None` for anything else.
pub fn http_origin(text: &str) -> Option<String> {
    let url = Url::parse(text.trim()).ok()?;
    let ok = matches!(url.scheme(), "http" | "https")
        && url.host_str().is_some_and(|h| !h.is_empty())
        && url.username().is_empty()
        && url.password().is_none();
    ok.then(|| url.origin().ascii_serialization())
}

#[cfg(test)]
mod tests {
    use specpress_apispec::model::ServerVariable;

    use super::*;

    fn server(url: &str, vars: &[(&str, Option<&str>, &[&str])]) -> Server {
        Server {
            url: url.into(),
            description: None,
            variables: vars
                .iter()
                .map(|(n, d, e)| {
                    (
                        (*n).to_owned(),
                        ServerVariable {
                            default: d.map(str::to_owned),
                            enumeration: e.iter().map(|s| (*s).to_owned()).collect(),
                        },
                    )
                })
                .collect(),
            protocol: None,
        }
    }

    fn origins(servers: Vec<Server>) -> Vec<String> {
        server_origins(&ApiModel {
            servers,
            ..ApiModel::default()
        })
    }

    #[test]
    fn server_urls_give_their_origins_once_and_relative_or_odd_ones_nothing() {
        let got = origins(vec![
            server("https://API.example.com:443/v1", &[]),
            server("https://api.example.com/v2", &[]),
            server("http://127.0.0.1:8080", &[]),
            server("/relative", &[]),
            server("//no-scheme.example", &[]),
            server("ftp://files.example", &[]),
            server("https://user:pw@creds.example", &[]),
            server("wss://socket.example", &[]),
        ]);
        assert_eq!(got, ["https://api.example.com", "http://127.0.0.1:8080"]);
    }

    #[test]
    fn variables_expand_to_their_enum_values_or_their_default_and_never_to_a_guess() {
        let got = origins(vec![
            server(
                "https://{region}.api.example/{version}",
                &[
                    ("region", Some("eu"), &["eu", "us"]),
                    ("version", Some("v1"), &[]),
                ],
            ),
            server("https://{tenant}.other.example", &[("tenant", None, &[])]),
            server("https://{undeclared}.third.example", &[]),
        ]);
        assert_eq!(got, ["https://eu.api.example", "https://us.api.example"]);
    }
}

//! A running `specpress serve` seen as a site: its API under an organization token, and its public pages fetched
//! without following redirects (the tests check them).

use reqwest::blocking::Client;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

use crate::{Server, temp_dir};

/// A fresh server with an organization token of the test's choosing, and an HTTP client that shows redirects.
pub struct Site {
    /// The server.
    pub server: Server,
    /// Its data directory (removed on drop).
    pub dir: tempfile::TempDir,
    /// A client that does not follow redirects.
    pub http: Client,
    org: String,
}

impl Site {
    /// Starts a server whose organization token is `org`.
    pub fn start(org: &str) -> Site {
        Site::start_with(org, &[])
    }

    /// [`Site::start`] with more environment.
    pub fn start_with(org: &str, env: &[(&str, &str)]) -> Site {
        let dir = temp_dir();
        let mut all = vec![("SPECPRESS_ORG_TOKEN", org)];
        all.extend_from_slice(env);
        let server = Server::start(dir.path(), &all);
        let http = Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("HTTP client");
        Site {
            server,
            dir,
            http,
            org: org.to_owned(),
        }
    }

    /// The absolute URL of a path (an absolute URL is kept as it is).
    pub fn url(&self, p: &str) -> String {
        if p.starts_with("http") {
            p.to_owned()
        } else {
            format!("{}{}", self.server.base_url, p)
        }
    }

    /// An API call with the organization token: status and JSON body (`null` when there is none).
    pub fn api(&self, method: reqwest::Method, p: &str, body: Option<Value>) -> (u16, Value) {
        let mut rb = self
            .http
            .request(method, self.url(p))
            .header("Authorization", format!("Token {}", self.org));
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let r = rb.send().expect("API answers");
        let s = r.status().as_u16();
        (s, r.json().unwrap_or(Value::Null))
    }

    /// Creates the hub `slug` named `name`; asserts the 201.
    pub fn create_hub(&self, slug: &str, name: &str) {
        let body = json!({"name": name, "slug": slug});
        let (s, b) = self.api(reqwest::Method::POST, "/api/v1/hubs", Some(body));
        assert_eq!(s, 201, "{b}");
    }

    /// Creates the documentation `slug` named `name` (in `hub` when given); asserts the 201.
    pub fn create_doc(&self, slug: &str, name: &str, hub: Option<&str>) {
        let mut body = json!({"name": name, "slug": slug});
        if let Some(h) = hub {
            body["hub"] = json!(h);
        }
        let (s, b) = self.api(reqwest::Method::POST, "/api/v1/docs", Some(body));
        assert_eq!(s, 201, "{b}");
    }

    /// Deploys `definition` to `doc` (on `branch` when given); asserts the 201 and answers its body.
    pub fn deploy(&self, doc: &str, branch: Option<&str>, definition: impl AsRef<str>) -> Value {
        let mut body = json!({"documentation": doc, "definition": definition.as_ref()});
        if let Some(b) = branch {
            body["branch_name"] = json!(b);
        }
        let (s, b) = self.api(reqwest::Method::POST, "/api/v1/versions", Some(body));
        assert_eq!(s, 201, "{b}");
        b
    }

    /// A GET of a path or an absolute URL, without credentials: status, headers, body.
    pub fn get(&self, p: &str) -> (u16, HeaderMap, String) {
        let r = self.http.get(self.url(p)).send().expect("GET answers");
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        (status, headers, r.text().unwrap_or_default())
    }
}

/// A header's value as text (`""` when absent or not text).
pub fn header<'a>(h: &'a HeaderMap, name: &str) -> &'a str {
    h.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
}

//! Specpress samples engine: what a client sends to an operation and what it gets back, written
//! from one API document. No HTML, no HTTP: the site (`shared/render`) shows these samples and
//! examples on its pages, and the diff engine (`shared/diff`) shows them, before and after, in
//! the migration notes of breaking changes.
//!
//! - [`Request::of`]: the request model of an operation (method, URL with its server and required
//!   parameters, authentication, headers, body), one place the eight languages are written from.
//! - [`LANGUAGES`] / [`request_samples`]: that request as curl, JavaScript, Python, Go, Java, Ruby,
//!   PHP and C# (every document string escaped for its language: see [`languages`]).
//! - [`schema`]: a schema read in place (`$ref`s followed, `allOf` merged) and an example
//!   generated from it; [`body_example`]: a media type's example (its own, else generated).
//!
//! Every budget (body size and depth, generated values, properties read) is the site's, so a
//! sample in a migration note is the one the operation page shows.

mod json;
pub mod languages;
mod request;
pub mod schema;

use specpress_apispec::{Document, Operation};

pub use json::write_json;
pub use languages::{LANGUAGES, Language, is_risky};
pub use request::{
    Body, FILE_PLACEHOLDER, Request, body_example, fit, is_http_url, param_value, resolve_value,
    url_encode,
};
pub use schema::Mode;

/// One generated request sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    pub language: Language,
    /// The sample's text (plain text: a page escapes it).
    pub source: String,
}

impl PartialEq for Language {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Language {}

/// The generated samples of `op` of `doc`, one per language, in the site's order.
pub fn request_samples(doc: &Document, op: &Operation) -> Vec<Sample> {
    let request = Request::of(doc, op);
    LANGUAGES
        .iter()
        .map(|language| Sample {
            language: *language,
            source: (language.generate)(&request),
        })
        .collect()
}

//! Search over one documentation: an index of its operations (summaries, operation ids, paths, tags),
//! parameters, named schemas and their properties (nested ones too), request body properties, tags, topics,
//! AsyncAPI channels, operations and messages, built from the parsed document and its [`Site`](crate::Site) once per
//! version.
//!
//! The term dictionary is an [`fst::Map`] (a compact, sorted automaton over the distinct terms), so a query word
//! is matched exactly, as a prefix (as-you-type) and within an edit distance (a Levenshtein automaton intersected
//! with the dictionary: `vacinations` finds `vaccinations`) without scanning every term. Each term points to a
//! posting list of (entry, field weight); an entry is one result (an operation, a property...) with the page it
//! links to. Scores add the best match of every query word (exact > prefix > one typo > two typos, times the weight
//! of the field it matched: name or summary above path above tag), times the kind's weight, so operations rank
//! above schema properties. Every word must match (the query falls back to any word when no entry has them all).
//!
//! Bounds: queries of at most [`MAX_QUERY_CHARS`] characters and [`MAX_QUERY_WORDS`] words, at most
//! [`MAX_EXPANSIONS`] dictionary terms per word for prefixes and typos each, [`MAX_PROPERTY_ENTRIES`] property
//! entries per document (nested [`MAX_PROPERTY_DEPTH`] levels), results cut at the caller's limit.

//!
//! Layout: `terms` (query words and index terms), `build` (the index from a document), `query` (a search and its
//! ranking), `fuzzy` (the typo automaton), `results_page` (the results page).

mod build;
mod fuzzy;
mod query;
mod results_page;
mod terms;

use fst::Map;

pub use results_page::{SearchPage, SearchResult, search_json, search_page};
pub use terms::query_words;

/// Longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 100;
/// Words of a query that are used (the rest are ignored).
pub const MAX_QUERY_WORDS: usize = 8;
/// Most results a search returns.
pub const MAX_RESULTS: usize = 50;
/// Dictionary terms one query word may expand to, for prefixes and for typos (each).
pub const MAX_EXPANSIONS: usize = 64;
/// Property entries indexed for one document (the largest corpus document has fewer).
pub const MAX_PROPERTY_ENTRIES: usize = 100_000;
/// Levels of nested properties indexed below a schema.
pub const MAX_PROPERTY_DEPTH: usize = 4;
/// Characters of a term (longer words are cut).
const MAX_TERM_CHARS: usize = 40;

/// What a search result is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HitKind {
    Operation,
    Webhook,
    /// An AsyncAPI operation.
    MessageOperation,
    Channel,
    Message,
    Tag,
    Topic,
    Schema,
    Parameter,
    Property,
}

impl HitKind {
    /// How a reader calls it.
    pub fn label(self) -> &'static str {
        match self {
            HitKind::Operation => "Operation",
            HitKind::Webhook => "Webhook",
            HitKind::MessageOperation => "Operation",
            HitKind::Channel => "Channel",
            HitKind::Message => "Message",
            HitKind::Tag => "Group",
            HitKind::Topic => "Topic",
            HitKind::Schema => "Schema",
            HitKind::Parameter => "Parameter",
            HitKind::Property => "Property",
        }
    }

    /// The factor of the kind in a score: operations first, schema properties last.
    fn weight(self) -> f32 {
        match self {
            HitKind::Operation | HitKind::MessageOperation => 10.0,
            HitKind::Webhook => 9.0,
            HitKind::Channel => 8.0,
            HitKind::Message => 7.0,
            HitKind::Tag | HitKind::Topic => 6.0,
            HitKind::Schema => 5.0,
            HitKind::Parameter => 3.0,
            HitKind::Property => 2.0,
        }
    }
}

/// Field weights (at most 7: they share a posting's low three bits).
const W_NAME: u8 = 4;
const W_ID: u8 = 3;
const W_PATH: u8 = 3;
const W_SUMMARY: u8 = 2;
const W_TAG: u8 = 1;

struct Entry {
    kind: HitKind,
    /// Index of the page in the site.
    page: u32,
    title: Box<str>,
    context: Box<str>,
}

/// The search index of one documentation version. `Send + Sync`, no borrow of the document.
pub struct SearchIndex {
    terms: Map<Vec<u8>>,
    /// Postings of term `t`: `postings[offsets[t]..offsets[t + 1]]`, each `entry << 3 | field weight`.
    offsets: Vec<u32>,
    postings: Vec<u32>,
    entries: Vec<Entry>,
    /// True when the property budget cut the index short.
    truncated: bool,
}

/// One result.
#[derive(Clone, Debug)]
pub struct Hit<'a> {
    pub kind: HitKind,
    /// The entry's name (document text: escape it).
    pub title: &'a str,
    /// Where it is: `GET /pets/{id}`, `Property of Pet`... (document text: escape it).
    pub context: &'a str,
    /// The page it links to, relative to the documentation root (URL-safe).
    pub path: &'a str,
    /// The method or action badge of an operation.
    pub badge: Option<&'static str>,
    pub score: f32,
    /// True when a query word matched only with a typo.
    pub approximate: bool,
}

impl Hit<'_> {
    /// The link to the result under a documentation root (`/doc/pets`), not escaped (URL-safe parts).
    pub fn href(&self, base: &str) -> String {
        match (self.path.is_empty(), base.is_empty()) {
            (true, true) => "/".to_string(),
            (true, false) => base.to_string(),
            (false, _) => format!("{base}/{}", self.path),
        }
    }
}

/// The answer to a query.
#[derive(Clone, Debug, Default)]
pub struct Found<'a> {
    /// The best results, best first, at most the limit asked for.
    pub hits: Vec<Hit<'a>>,
    /// How many entries matched in all.
    pub total: usize,
    /// True when no entry matched every word and the results match some of them.
    pub partial: bool,
}

/// Why a query is not searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryError {
    /// Nothing to search for (no letter or digit).
    Empty,
    /// Longer than [`MAX_QUERY_CHARS`].
    TooLong,
}

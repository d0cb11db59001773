//! The results page of a search (askama template `search.html`) in the site shell.

use super::{Hit, HitKind, MAX_QUERY_CHARS, QueryError};

/// One result as the results page shows it.
#[derive(Clone, Debug)]
pub struct SearchResult<'a> {
    /// The link (URL-safe; escaped by the template anyway).
    pub href: String,
    pub kind: HitKind,
    /// Document text.
    pub title: &'a str,
    /// Document text.
    pub context: &'a str,
    pub badge: Option<&'static str>,
    /// The API it belongs to, on a hub's results (document text).
    pub api: Option<&'a str>,
    pub approximate: bool,
}

impl<'a> SearchResult<'a> {
    /// A hit of a documentation rooted at `base`.
    pub fn of(hit: &Hit<'a>, base: &str, api: Option<&'a str>) -> SearchResult<'a> {
        SearchResult {
            href: hit.href(base),
            kind: hit.kind,
            title: hit.title,
            context: hit.context,
            badge: hit.badge,
            api,
            approximate: hit.approximate,
        }
    }
}

/// The results page of a search.
pub struct SearchPage<'a> {
    /// The query as typed (untrusted; shown escaped).
    pub query: &'a str,
    /// The form's action (URL-safe).
    pub action: &'a str,
    /// What is searched, as in "Search {scope}" (text): "this documentation", "the Payments hub".
    pub scope: &'a str,
    pub results: &'a [SearchResult<'a>],
    /// How many results matched in all.
    pub total: usize,
    /// No result matched every word.
    pub partial: bool,
    /// Why the query was not searched, when it was not; `None` with an empty query shows the form alone.
    pub error: Option<QueryError>,
}

#[derive(serde::Serialize)]
struct RowView<'a> {
    href: &'a str,
    badge: Option<&'static str>,
    badge_text: &'static str,
    title: &'a str,
    kind_label: &'static str,
    approximate: bool,
    api: Option<&'a str>,
    context: &'a str,
}

#[derive(askama::Template)]
#[template(path = "search.html")]
struct ResultsBody<'a> {
    heading: String,
    action: &'a str,
    scope: &'a str,
    query: &'a str,
    max_chars: usize,
    message: Option<String>,
    summary: Option<String>,
    results: Vec<RowView<'a>>,
}

/// The words above the results: why the query was not searched (`message`), or how many results it found
/// (`summary`); neither for an empty query.
fn messages(page: &SearchPage<'_>, shown: &str) -> (Option<String>, Option<String>) {
    let blank = page.query.trim().is_empty();
    let message = match page.error {
        Some(QueryError::TooLong) => Some(format!(
            "This search is too long: type at most {MAX_QUERY_CHARS} characters."
        )),
        Some(QueryError::Empty) if !blank => {
            Some("Type a word of at least two letters or digits.".to_string())
        }
        _ => None,
    };
    let summary = (page.error.is_none() && !blank).then(|| {
        let quoted = format!("“{shown}”");
        let counted = match page.total {
            0 => format!("No results for {quoted}."),
            1 => format!("1 result for {quoted}."),
            n if n > page.results.len() => format!(
                "{n} results for {quoted}; the first {} are shown.",
                page.results.len()
            ),
            n => format!("{n} results for {quoted}."),
        };
        if page.partial && page.total > 0 {
            counted + " No result has every word: these have some of them."
        } else {
            counted
        }
    });
    (message, summary)
}

fn rows<'a>(page: &'a SearchPage<'a>) -> Vec<RowView<'a>> {
    page.results
        .iter()
        .map(|r| RowView {
            href: &r.href,
            badge: r.badge,
            badge_text: r.badge.map_or("", crate::shell::badge_text),
            title: r.title,
            kind_label: r.kind.label(),
            approximate: r.approximate,
            api: r.api,
            context: r.context,
        })
        .collect()
}

#[derive(serde::Serialize)]
struct ResultsJson<'a> {
    query: &'a str,
    total: usize,
    partial: bool,
    message: Option<String>,
    summary: Option<String>,
    results: Vec<RowView<'a>>,
}

/// The results as JSON, for the search field's suggestions as one types (and for scripts): the same results,
/// order and words as the page. Document text is returned as text; the client inserts it as text.
pub fn search_json(page: &SearchPage<'_>) -> String {
    let shown: String = page.query.chars().take(MAX_QUERY_CHARS).collect();
    let (message, summary) = messages(page, &shown);
    let body = ResultsJson {
        query: &shown,
        total: page.total,
        partial: page.partial,
        message,
        summary,
        results: rows(page),
    };
    // Serializing plain strings, numbers and booleans cannot fail.
    serde_json::to_string(&body).unwrap_or_default()
}

/// The results page: the search form with the query, what was found (best first, linked into the reference
/// pages), or why nothing was searched. A whole HTML document in the site shell.
pub fn search_page(ctx: &crate::PageContext<'_>, page: &SearchPage<'_>) -> String {
    use askama::Template;
    let shown: String = page.query.chars().take(MAX_QUERY_CHARS).collect();
    let blank = page.query.trim().is_empty();
    let (message, summary) = messages(page, &shown);
    let heading = if blank || page.error.is_some() {
        "Search".to_string()
    } else {
        format!("Search results for “{shown}”")
    };
    let results = rows(page);
    let body = ResultsBody {
        heading: heading.clone(),
        action: page.action,
        scope: page.scope,
        query: &shown,
        max_chars: MAX_QUERY_CHARS,
        message,
        summary,
        results,
    };
    let mut html = String::with_capacity(4096);
    // Rendering into a String cannot fail: the values are plain strings.
    let _ = body.render_into(&mut html);
    let body = crate::Html::trusted(html);
    crate::layout(
        ctx,
        &crate::Layout {
            title: &heading,
            description: None,
            body: &body,
            sidebar: None,
        },
    )
}

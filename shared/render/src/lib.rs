//! Specpress rendering engine: server-side HTML reference pages for one API document.
//!
//! [`Site::build`] indexes a [`specpress_apispec::Document`] once per version (every page's path,
//! title and navigation group, and where each named schema is used); [`Site::lookup`] maps a
//! request path to a page (or a redirect to its canonical path); [`Site::render`] renders one
//! page. Pages are plain HTML that work without JavaScript and under a strict
//! Content-Security-Policy (no inline script or style); [`assets`] are the one stylesheet and
//! the one optional script they link to. [`layout`] is the site shell (header, navigation,
//! footer), for other page kinds to reuse.
//!
//! Every string of a document is untrusted: templates (askama) escape by default, Markdown is
//! rendered by pulldown-cmark and sanitized by ammonia, and document URLs become links only when
//! they are http(s). See docs/rendering.md.
//!
//! No AWS, no HTTP types.
//!
//! # Layout
//!
//! One job per module (a module with sub-modules keeps its shared types in `name.rs` and its
//! parts in `name/`):
//!
//! | module | job |
//! |---|---|
//! | `site` | the page index: [`Site`], its pages, paths, lookups; `site/build` builds it (pages, navigation order, aliases), `site/groups` the navigation groups (tags, path prefixes, channels), `site/builder` what both add pages with |
//! | `usage` | where each named schema is used (the operations that reach it) |
//! | `pages` | [`Site::render`]: the HTML body of each page kind: `pages/home`, `topic`, `tag`, `operation`, `schemas`, `asyncapi`; sections they share: `servers`, `security`, `examples`, `lists`; `samples` (the request samples: the document's own and eight generated languages, from one request model) |
//! | `schema` | schemas on a page: `schema/flat` reads one (`$ref`s followed, `allOf` merged), `label` (type, badges, constraints), `tree` (expandable rows), `json` (JSON and code blocks), `example` (generated examples) |
//! | `text` | the Markdown variant of every page: escaping and the writer; `text/pages` (each page kind), `text/llms` (`llms.txt`) |
//! | `search` | search: `search/terms` (words and terms), `build` (the index), `query` (matching and ranking), `fuzzy` (the typo automaton), `results_page` |
//! | `changes` | the change pages from a diff's `DiffItem[]`: `changes/tree` (a diff's items), `changelog`, `release`, `compare`, `diff`, `hub` |
//! | `feed` | Atom and RSS feeds of a changelog |
//! | `history` | the history section of an operation, schema or channel page ([`Site::render_with_history`]), from releases the presenter read |
//! | `mcp` | discovery of the MCP servers: the footer link, the client configuration section, the `llms.txt` section |
//! | `shell` | the site shell ([`layout`]) and the API navigation ([`Site::sidebar`]) |
//! | `markdown` | Markdown from documents: rendered and sanitized ([`markdown()`]) |
//! | `html` | escaping, the [`Html`] type and the fragment writer every page uses |
//! | `tpl` | what the page-body templates (`templates/pages/`, ...) share: their escaper (the engine's entities), links and `render` |
//! | `assets` | the stylesheet and script, with hashed names |
//! | `workflows` | the public page of a workflow MCP server ([`workflow_server_page`]): its tools, their inputs, outputs and steps |
//!
//! `examples/dump.rs` writes every output of the engine for the whole corpus: run it before and
//! after a change that must not alter the output and compare the two folders (`diff -r`).
//! The workspace's `tests/tests/size.rs` keeps every file of `src/` at most 1,000 lines and every function at most 150.

pub mod access;
mod assets;
pub mod changes;
pub mod feed;
pub mod follow;
pub mod history;
mod html;
mod markdown;
pub mod mcp;
pub mod neutral;
mod pages;
mod schema;
pub mod search;
mod shell;
mod site;
mod text;
mod tpl;
mod usage;
pub mod workflows;

pub use assets::{Asset, AssetUrls, asset_urls, assets};
pub use html::{Html, escape};
pub use mcp::{McpScope, McpServer};
pub use neutral::{neutral, neutral_owned};
pub use pages::samples::CodeSample;
pub use search::{SearchIndex, SearchPage, SearchResult, search_json, search_page};
pub use shell::{Layout, layout, site_page};
pub use site::Site;
pub use text::{MarkdownContext, escape_markdown, md_href};
pub use workflows::{DeployedWorkflows, WorkflowServerPage, workflow_server_page};

/// A page of a [`Site`] (valid for the site it came from).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PageRef(pub(crate) u32);

/// What [`Site::lookup`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    Page(PageRef),
    /// The canonical path (relative to the documentation root) of an alias or of a path with a
    /// trailing slash.
    Redirect(String),
    NotFound,
}

/// The kinds of page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PageKind {
    Home,
    /// An `x-topics` entry.
    Topic,
    /// A navigation group: a tag, the untagged operations, or a path prefix.
    Tag,
    /// An HTTP operation.
    Operation,
    /// An OpenAPI 3.1+ webhook.
    Webhook,
    /// The callback of an operation.
    Callback,
    /// The list of named schemas.
    Schemas,
    /// One named schema.
    Schema,
    /// An AsyncAPI channel.
    Channel,
    /// An AsyncAPI operation.
    MessageOperation,
    /// An AsyncAPI component message that no channel uses (no other page shows it).
    Message,
}

/// One page of [`Site::pages`].
#[derive(Clone, Copy, Debug)]
pub struct PageInfo<'a> {
    pub page: PageRef,
    /// Relative to the documentation root, no leading slash (`""` is the home page). URL-safe.
    pub path: &'a str,
    /// The page's title (document text: escape it).
    pub title: &'a str,
    pub kind: PageKind,
}

/// What the caller knows about the request: where the documentation is, its branches and
/// version, and the portal's additions.
pub struct PageContext<'a> {
    /// URL path of the documentation root for this branch, no trailing slash ("/doc/pets",
    /// "/doc/pets/branches/next"; "" when served at the site root). Already URL-safe.
    pub base: &'a str,
    /// The documentation's display name (untrusted).
    pub doc_name: &'a str,
    pub branches: &'a [BranchLink<'a>],
    pub version: Option<VersionInfo<'a>>,
    pub assets: &'a AssetUrls,
    /// Extra header links (Changelog, ...), may be empty.
    pub links: &'a [NavLink<'a>],
    /// GET form action of the portal's search; no form when `None`.
    pub search_action: Option<&'a str>,
    /// `<link rel="alternate">` entries (feeds, .json/.yaml), may be empty.
    pub alternates: &'a [Alternate<'a>],
    /// Adds `<meta name="robots" content="noindex">`.
    pub noindex: bool,
    /// For a reader signed in to see private documentation: where their session is (the page to sign out from),
    /// named in the footer. `None` for everyone else.
    pub session_href: Option<&'a str>,
    /// The MCP server of the documentation (branch) or hub the page is about: linked in the footer; its client
    /// configuration is shown on the home page when its absolute URL is given. `None` for other pages.
    pub mcp: Option<McpServer<'a>>,
    /// Whether operation pages offer the "Try it" form, and how it sends (docs/try-it.md).
    pub try_it: TryItMode,
    /// A page of a release read at its own address (`/doc/{doc}/v/{version}/...`): the banner naming it, and the
    /// canonical link to the latest release. `None` for every other page.
    pub release: Option<ReleaseBanner<'a>>,
    /// A page of a branch's latest release: what the "since your last visit" script reads (`None`: no script
    /// data, nothing shown).
    pub since: Option<SinceVisit<'a>>,
    /// The "Follow changes" form (issue 38) of a documentation, hub or operation page; `None` for other pages.
    pub follow: Option<FollowBox<'a>>,
}

/// The "Follow changes" form of a page: readers follow its documentation or hub (or one operation) by email.
#[derive(Clone, Copy, Debug)]
pub struct FollowBox<'a> {
    /// Where it posts (`/doc/pets/follow`, `/hub/vets/follow`). URL-safe (the caller's).
    pub action: &'a str,
    /// On an operation page: its `METHOD /path` (document text), sent as the hidden `operation` field.
    pub operation: Option<&'a str>,
}

/// The banner of a page of a release read at its own address. Every href is URL-safe (the caller's), every other
/// string document text (escaped).
#[derive(Clone, Copy, Debug)]
pub struct ReleaseBanner<'a> {
    /// The release's id.
    pub id: &'a str,
    /// The API version it declared (document text; may be empty).
    pub api_version: &'a str,
    /// When it was published (RFC 3339).
    pub published_at: &'a str,
    /// It is the branch's latest release.
    pub latest: bool,
    /// The same page in the latest release, or the latest release's home when the page is not there any more.
    pub latest_href: &'a str,
    /// The page is in the latest release (`latest_href` is the same page).
    pub same_page: bool,
    /// The compare page between this release and the latest (`None` for the latest itself).
    pub compare_href: Option<&'a str>,
    /// The absolute URL of `<link rel="canonical">`: the same page in the latest release (or its home).
    pub canonical: &'a str,
}

/// What the "since your last visit" script of a page of a branch's latest release reads from its data attributes.
#[derive(Clone, Copy, Debug)]
pub struct SinceVisit<'a> {
    /// Which documentation and branch the browser remembers a release for (the branch's base path).
    pub key: &'a str,
    /// The release the page shows (the branch's latest).
    pub release: &'a str,
    /// The compare page's JSON twin (`/doc/{doc}/compare.json`), asked `?from={last seen}&to={release}`.
    pub changes: &'a str,
}

/// How the "Try it" form of an operation page sends its request (the documentation owner's `try_it` setting).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TryItMode {
    /// No form (the default).
    #[default]
    Off,
    /// The reader's browser sends the request to the API itself.
    Direct,
    /// The form posts the request to the documentation's proxy (`{base}/try`).
    Proxy,
}

/// One entry of the branch switcher.
#[derive(Clone, Copy, Debug)]
pub struct BranchLink<'a> {
    /// The branch name (untrusted).
    pub name: &'a str,
    /// URL-safe href of the branch's documentation root.
    pub href: &'a str,
    pub current: bool,
    pub default: bool,
}

/// The published version a page shows.
#[derive(Clone, Copy, Debug)]
pub struct VersionInfo<'a> {
    pub id: &'a str,
    /// RFC 3339.
    pub published_at: &'a str,
    /// The API's own version string (`info.version`, untrusted).
    pub api_version: &'a str,
}

/// A header link added by the portal (Changelog, ...).
#[derive(Clone, Copy, Debug)]
pub struct NavLink<'a> {
    pub label: &'a str,
    pub href: &'a str,
    pub current: bool,
}

/// A `<link rel="alternate">`.
#[derive(Clone, Copy, Debug)]
pub struct Alternate<'a> {
    pub href: &'a str,
    /// `application/json`, `application/atom+xml`, ...
    pub media_type: &'a str,
    pub title: &'a str,
}

/// A rendered page: a whole HTML document.
#[derive(Clone, Debug)]
pub struct RenderedPage {
    pub html: String,
    /// The page's title as text (not escaped).
    pub title: String,
}

/// An RFC 3339 UTC time as a reader reads it: `2026-11-25T13:01:18.103Z` is `2026-11-25 13:01 UTC`. Anything else
/// is returned as it is.
pub fn human_time(rfc3339: &str) -> String {
    let b = rfc3339.as_bytes();
    let shaped = b.len() >= 17
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && rfc3339.ends_with('Z')
        && b[..16]
            .iter()
            .enumerate()
            .all(|(i, c)| matches!(i, 4 | 7 | 10 | 13) || c.is_ascii_digit());
    if shaped {
        format!("{} {} UTC", &rfc3339[..10], &rfc3339[11..16])
    } else {
        rfc3339.to_owned()
    }
}

/// Markdown from a document, rendered (CommonMark, GFM tables and strikethrough) and sanitized,
/// for other page kinds. Top-level headings of the text become `<h{min_heading}>`.
pub fn markdown(text: &str, min_heading: u8) -> Html {
    markdown::render(text, min_heading, markdown::MAX_TOPIC_BYTES)
}

#[cfg(test)]
mod human_time_tests {
    use super::human_time;

    #[test]
    fn an_rfc3339_utc_time_reads_as_date_hours_and_minutes() {
        assert_eq!(
            human_time("2026-11-25T13:01:18.103214726Z"),
            "2026-11-25 13:01 UTC"
        );
        assert_eq!(human_time("2026-11-25T13:01:18Z"), "2026-11-25 13:01 UTC");
        assert_eq!(
            human_time("2026-11-25T13:01:18+02:00"),
            "2026-11-25T13:01:18+02:00"
        );
        assert_eq!(human_time("not a time at all"), "not a time at all");
        assert_eq!(human_time(""), "");
    }
}

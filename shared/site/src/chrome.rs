//! The chrome of a page (its header, branch switcher, links, search form, feeds, footer, MCP server): built owned on
//! the async side from what the page is about, then lent to a render on the CPU gate.

use std::sync::Arc;

use specpress_domain::model::Version;
use specpress_reader::DocView;
use specpress_render::{
    Alternate, AssetUrls, BranchLink, FollowBox, McpScope, McpServer, NavLink, PageContext,
    ReleaseBanner, SinceVisit, VersionInfo,
};

use crate::respond::rfc3339_seconds;

/// The path of the hub `slug` names on the request's hostname.
fn hub_path_of(slug: &str) -> String {
    match specpress_domain::model::Slug::parse(slug) {
        Ok(s) => specpress_domain::urls::hub_path(&s),
        Err(_) => format!("/hub/{slug}"),
    }
}

/// One branch of the switcher, owned.
#[derive(Debug, Clone)]
pub struct OwnedBranchLink {
    pub name: String,
    pub href: String,
    pub current: bool,
    pub default: bool,
}

/// The version a page shows, owned.
#[derive(Debug, Clone)]
pub struct OwnedVersion {
    pub id: String,
    pub published_at: String,
    pub api_version: String,
}

/// The banner of a release read at its own address, owned (see [`ReleaseBanner`]).
#[derive(Debug, Clone)]
pub struct OwnedRelease {
    pub id: String,
    pub api_version: String,
    pub published_at: String,
    pub latest: bool,
    pub latest_href: String,
    pub same_page: bool,
    pub compare_href: Option<String>,
    pub canonical: String,
}

/// What the "since your last visit" script reads, owned (see [`SinceVisit`]).
#[derive(Debug, Clone)]
pub struct OwnedSince {
    pub key: String,
    pub release: String,
    pub changes: String,
}

/// The MCP server a page is about, owned (see [`McpServer`]).
#[derive(Debug, Clone)]
pub struct OwnedMcp {
    /// `/doc/pets/mcp`, `/doc/pets/branches/next/mcp`, `/hub/vets/mcp`.
    pub href: String,
    /// The absolute URL, on the pages that show the client configuration (and whose validator holds the origin).
    pub url: Option<String>,
    /// The documentation's or hub's slug.
    pub name: String,
    pub scope: McpScope,
    /// A token is needed (private).
    pub token: bool,
}

impl OwnedMcp {
    /// The MCP server of `view`: the documentation on the branch shown.
    pub fn of_view(view: &DocView) -> OwnedMcp {
        OwnedMcp {
            href: format!("{}/mcp", view.base),
            url: None,
            name: view.doc.slug.to_string(),
            scope: McpScope::Documentation,
            token: view.private,
        }
    }

    /// The MCP server of the hub `slug`.
    pub fn of_hub(slug: &str, token: bool) -> OwnedMcp {
        OwnedMcp {
            href: format!("{}/mcp", hub_path_of(slug)),
            url: None,
            name: slug.to_owned(),
            scope: McpScope::Hub,
            token,
        }
    }

    /// The same, with its absolute URL on `origin` (the client configuration is shown).
    pub fn on(mut self, origin: &str) -> OwnedMcp {
        self.url = Some(format!("{origin}{}", self.href));
        self
    }

    /// The [`McpServer`] these parts make.
    pub fn server(&self) -> McpServer<'_> {
        McpServer {
            href: &self.href,
            url: self.url.as_deref(),
            name: &self.name,
            scope: self.scope,
            token: self.token,
        }
    }
}

/// The renderer's mode of a documentation's `try_it` setting.
fn try_it_mode(setting: specpress_domain::model::TryIt) -> specpress_render::TryItMode {
    use specpress_domain::model::TryIt;
    match setting {
        TryIt::Off => specpress_render::TryItMode::Off,
        TryIt::Direct => specpress_render::TryItMode::Direct,
        TryIt::Proxy => specpress_render::TryItMode::Proxy,
    }
}

/// Everything a [`PageContext`] borrows, owned: built on the async side, lent to a render on the CPU gate.
#[derive(Debug, Clone)]
pub struct Chrome {
    pub base: String,
    pub doc_name: String,
    pub branches: Vec<OwnedBranchLink>,
    pub version: Option<OwnedVersion>,
    pub assets: Arc<AssetUrls>,
    /// Header links: (label, href, current).
    pub links: Vec<(String, String, bool)>,
    pub search_action: Option<String>,
    /// `<link rel="alternate">`: (href, media type, title).
    pub alternates: Vec<(String, String, String)>,
    pub noindex: bool,
    /// The page is answered to a signed-in reader (see [`crate::request::signed_in`]).
    pub signed_in: bool,
    /// The MCP server of the documentation or hub the page is about (the footer link, the home page's
    /// configuration).
    pub mcp: Option<OwnedMcp>,
    /// Whether and how operation pages offer "Try it" (the documentation's `try_it`; off for everything else).
    pub try_it: specpress_render::TryItMode,
    /// A release read at its own address (`/doc/{doc}/v/{version}`): its banner and canonical link.
    pub release: Option<OwnedRelease>,
    /// A page of a branch's latest release: the "since your last visit" script's data.
    pub since: Option<OwnedSince>,
    /// The "Follow changes" form (issue 38): where it posts, and an operation page's `METHOD /path`.
    pub follow: Option<(String, Option<String>)>,
}

impl Chrome {
    /// A chrome with a title and nothing else (previews, public diffs, hubs fill in what they have).
    pub fn bare(base: String, name: String) -> Chrome {
        Chrome {
            base,
            doc_name: name,
            branches: Vec::new(),
            version: None,
            assets: crate::assets::urls(),
            links: Vec::new(),
            search_action: None,
            alternates: Vec::new(),
            noindex: true,
            signed_in: crate::request::signed_in(),
            mcp: None,
            try_it: specpress_render::TryItMode::Off,
            release: None,
            since: None,
            follow: None,
        }
    }

    /// The chrome of a page about `view` showing `version` (its branch switcher, links, search form, feeds, MCP
    /// server).
    pub fn of_view(view: &DocView, version: Option<&Version>) -> Chrome {
        Chrome {
            base: view.base.clone(),
            doc_name: view.doc.name.clone(),
            branches: view
                .branches
                .iter()
                .map(|b| OwnedBranchLink {
                    name: b.name.name().to_owned(),
                    href: view.branch_href(b.name.slug()),
                    current: b.name.slug() == view.branch.name.slug(),
                    default: b.name.slug() == &view.doc.default_branch,
                })
                .collect(),
            version: version.map(|v| OwnedVersion {
                id: v.id.to_string(),
                published_at: rfc3339_seconds(v.created_at),
                api_version: v.analysis.api_version.clone(),
            }),
            assets: crate::assets::urls(),
            links: vec![
                ("Reference".to_owned(), view.base.clone(), false),
                (
                    "Changelog".to_owned(),
                    format!("{}/changes", view.base),
                    false,
                ),
            ],
            search_action: Some(format!("{}/search", view.base)),
            alternates: vec![
                (
                    format!("{}/changes.atom", view.base),
                    "application/atom+xml".to_owned(),
                    format!("{} changelog (Atom)", view.doc.name),
                ),
                (
                    format!("{}/changes.rss", view.base),
                    "application/rss+xml".to_owned(),
                    format!("{} changelog (RSS)", view.doc.name),
                ),
            ],
            noindex: view.private,
            signed_in: crate::request::signed_in(),
            mcp: Some(OwnedMcp::of_view(view)),
            try_it: try_it_mode(view.doc.try_it),
            release: None,
            // A page of the branch's latest release: the reader's browser remembers it was seen.
            since: version.filter(|v| v.id == view.head()).map(|v| OwnedSince {
                key: view.base.clone(),
                release: v.id.to_string(),
                changes: format!("/doc/{}/compare.json", view.doc.slug),
            }),
            follow: Some((format!("{}/follow", view.root), None)),
        }
    }

    /// Calls `f` with the [`PageContext`] these parts make.
    pub fn with<R>(&self, f: impl FnOnce(&PageContext<'_>) -> R) -> R {
        let branches: Vec<BranchLink<'_>> = self
            .branches
            .iter()
            .map(|b| BranchLink {
                name: &b.name,
                href: &b.href,
                current: b.current,
                default: b.default,
            })
            .collect();
        let links: Vec<NavLink<'_>> = self
            .links
            .iter()
            .map(|(label, href, current)| NavLink {
                label,
                href,
                current: *current,
            })
            .collect();
        let alternates: Vec<Alternate<'_>> = self
            .alternates
            .iter()
            .map(|(href, media_type, title)| Alternate {
                href,
                media_type,
                title,
            })
            .collect();
        let ctx = PageContext {
            base: &self.base,
            doc_name: &self.doc_name,
            branches: &branches,
            version: self.version.as_ref().map(|v| VersionInfo {
                id: &v.id,
                published_at: &v.published_at,
                api_version: &v.api_version,
            }),
            assets: &self.assets,
            links: &links,
            search_action: self.search_action.as_deref(),
            alternates: &alternates,
            noindex: self.noindex,
            session_href: self.signed_in.then_some(crate::request::SIGN_IN_PATH),
            mcp: self.mcp.as_ref().map(OwnedMcp::server),
            try_it: self.try_it,
            release: self.release.as_ref().map(|r| ReleaseBanner {
                id: &r.id,
                api_version: &r.api_version,
                published_at: &r.published_at,
                latest: r.latest,
                latest_href: &r.latest_href,
                same_page: r.same_page,
                compare_href: r.compare_href.as_deref(),
                canonical: &r.canonical,
            }),
            since: self.since.as_ref().map(|s| SinceVisit {
                key: &s.key,
                release: &s.release,
                changes: &s.changes,
            }),
            follow: self.follow.as_ref().map(|(action, operation)| FollowBox {
                action,
                operation: operation.as_deref(),
            }),
        };
        f(&ctx)
    }
}

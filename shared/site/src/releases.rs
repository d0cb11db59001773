//! Any release as it was: `GET /doc/{doc}/v/{version}[/{page}]` (the default branch's releases) and
//! `GET /doc/{doc}/branches/{branch}/v/{version}[/{page}]` (another branch's) serve every page of one published
//! release: its home and reference pages, their `.md` forms, its definition (`/v/{version}.json`, `.yaml`) and its
//! search (`/v/{version}/search[.json]?q=`). `{version}` is the release's id, as the changelog, the change pages
//! (`/doc/{doc}/changes/{version}`) and the compare page name releases.
//!
//! A release page carries a banner naming the release and its date, linking the same page in the branch's latest
//! release and the compare page between the two; its canonical link is the latest release's page, and every
//! release page is `noindex` (`<meta name="robots">` and `X-Robots-Tag`). Its links stay inside the release (the
//! navigation, the reference's own links, redirects of aliases); the header's changelog, feeds and MCP server are
//! the branch's. A version of another branch is redirected to its branch's form, a temporary or unknown version is
//! the site's 404 page, and a private documentation answers as its latest pages do (`Library::find_doc`).
//!
//! Parsed releases come from the same content-addressed site cache as the latest pages (a stored definition never
//! changes), and each answer has its validator: the release, the branch's latest release (the banner's links), the
//! page and the public origin (the canonical link).

use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, Uri};
use axum::response::Response;
use axum::routing::get;
use specpress_api::readers::Viewer;
use specpress_domain::model::{Slug, Version};
use specpress_domain::usecases::public::{self, PublicDoc};
use specpress_engines::cpu::CpuGate;
use specpress_reader::{BranchInUrl, DocView, Loaded, Missing, ReadError, branch_in_url};
use specpress_render::{Lookup, PageRef};
use time::OffsetDateTime;
use tracing::instrument;

use crate::SiteState;
use crate::chrome::{Chrome, OwnedMcp, OwnedRelease};
use crate::error::{Page, PageError};
use crate::pages::{Variant, split_variant, variant_answer};
use crate::reference::{Form, lookup};
use crate::respond::{
    Validator, html_page, not_modified, origin_of, revalidated, rfc3339_seconds, types,
};
use crate::search::{Format, query_param, release_results};

/// The routes of release pages.
pub fn routes() -> Router<SiteState> {
    Router::new()
        .route("/doc/{doc}/v/{version}", get(doc_release))
        .route("/doc/{doc}/v/{version}/{*rest}", get(doc_release_page))
        .route(
            "/doc/{doc}/branches/{branch}/v/{version}",
            get(branch_release),
        )
        .route(
            "/doc/{doc}/branches/{branch}/v/{version}/{*rest}",
            get(branch_release_page),
        )
}

/// What a release URL names after `/v/`: the version segment (with its form) and the path after it.
struct Asked<'a> {
    branch: Option<&'a str>,
    version: &'a str,
    rest: &'a str,
    query: Option<&'a str>,
}

/// `GET /doc/{doc}/v/{version}[.md|.json|.yaml]`.
#[instrument(skip_all)]
pub async fn doc_release(
    State(st): State<SiteState>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    uri: Uri,
    RawQuery(raw): RawQuery,
    Path((key, version)): Path<(String, String)>,
) -> Page {
    let doc = crate::changes::open_doc(&st.library, &reader, &key, &uri).await?;
    let asked = Asked {
        branch: None,
        version: &version,
        rest: "",
        query: raw.as_deref(),
    };
    release(&st, &headers, doc, asked).await
}

/// `GET /doc/{doc}/v/{version}/{page}[.md]`, `.../search[.json]`.
#[instrument(skip_all)]
pub async fn doc_release_page(
    State(st): State<SiteState>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    uri: Uri,
    RawQuery(raw): RawQuery,
    Path((key, version, rest)): Path<(String, String, String)>,
) -> Page {
    let doc = crate::changes::open_doc(&st.library, &reader, &key, &uri).await?;
    let asked = Asked {
        branch: None,
        version: &version,
        rest: &rest,
        query: raw.as_deref(),
    };
    release(&st, &headers, doc, asked).await
}

/// `GET /doc/{doc}/branches/{branch}/v/{version}[.md|.json|.yaml]`.
#[instrument(skip_all)]
pub async fn branch_release(
    State(st): State<SiteState>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    uri: Uri,
    RawQuery(raw): RawQuery,
    Path((key, branch, version)): Path<(String, String, String)>,
) -> Page {
    let doc = crate::changes::open_doc(&st.library, &reader, &key, &uri).await?;
    let asked = Asked {
        branch: Some(&branch),
        version: &version,
        rest: "",
        query: raw.as_deref(),
    };
    release(&st, &headers, doc, asked).await
}

/// `GET /doc/{doc}/branches/{branch}/v/{version}/{page}[.md]`, `.../search[.json]`.
#[instrument(skip_all)]
pub async fn branch_release_page(
    State(st): State<SiteState>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    uri: Uri,
    RawQuery(raw): RawQuery,
    Path((key, branch, version, rest)): Path<(String, String, String, String)>,
) -> Page {
    let doc = crate::changes::open_doc(&st.library, &reader, &key, &uri).await?;
    let asked = Asked {
        branch: Some(&branch),
        version: &version,
        rest: &rest,
        query: raw.as_deref(),
    };
    release(&st, &headers, doc, asked).await
}

/// The URL path of a release of `doc` on `branch` (its documentation root).
fn release_base(doc: &PublicDoc, branch: &Slug, id: &str) -> String {
    if branch == &doc.default_branch {
        format!("/doc/{}/v/{id}", doc.slug)
    } else {
        format!("/doc/{}/branches/{branch}/v/{id}", doc.slug)
    }
}

/// A release page named by `asked`: the version (a published one of this documentation), its branch's form, then
/// the page, the definition or the search it names.
async fn release(st: &SiteState, headers: &HeaderMap, doc: PublicDoc, asked: Asked<'_>) -> Page {
    let (id, variant) = split_variant(asked.version);
    let now = OffsetDateTime::now_utc();
    // The definition's forms answer their failures as JSON, like the latest's.
    let machine = matches!(variant, Variant::Json | Variant::Yaml) && asked.rest.is_empty();
    let failed = |e: ReadError| {
        if machine {
            PageError::json(e)
        } else {
            PageError::from(e)
        }
    };
    let version = match public::doc_version(st.library.store(), &doc, id, now).await {
        Ok(v) if !v.temporary && v.seq.is_some() => v,
        Ok(_) => return Err(failed(Missing::Version.into())),
        Err(e) => return Err(failed(ReadError::or_missing(e, Missing::Version))),
    };
    // The branch the URL names must be the release's own; any other form is redirected to it.
    let named = match asked.branch {
        None => None,
        Some(segment) => match branch_in_url(&doc, segment)? {
            BranchInUrl::Default => None,
            BranchInUrl::Named(slug) => Some(slug),
        },
    };
    let own = (version.branch != doc.default_branch).then(|| version.branch.clone());
    if named != own || (asked.branch.is_some() && own.is_none()) {
        let mut target = release_base(&doc, &version.branch, asked.version);
        if !asked.rest.is_empty() {
            target = format!("{target}/{}", asked.rest);
        }
        return Ok(crate::respond::redirect(
            axum::http::StatusCode::TEMPORARY_REDIRECT,
            &target,
            asked.query,
        ));
    }
    let view = st.library.open(doc, own).await?;
    let base = format!("{}/v/{}", view.base, version.id);
    let r = Release {
        st,
        headers,
        view: &view,
        version: &version,
        base: &base,
    };
    match (variant, asked.rest) {
        (Variant::Json | Variant::Yaml, "") => {
            let id = version.id.to_string();
            match public::version_definition(st.library.store(), &view.doc, &id, now).await {
                Ok(d) => Ok(noindex(variant_answer(headers, d, variant).await)),
                Err(e) => Err(PageError::json(ReadError::or_missing(e, Missing::Version))),
            }
        }
        (Variant::Markdown, "") => r.page("", Form::Markdown).await,
        (Variant::Page, "") => r.page("", Form::Html).await,
        (Variant::Page, "search") => r.search(asked.query, Format::Page).await,
        (Variant::Page, "search.json") => r.search(asked.query, Format::Json).await,
        (Variant::Page, rest) => r.path(rest).await,
        // `/v/{version}.json/...` names nothing.
        _ => Err(Missing::Page.into()),
    }
}

/// Marks an answer as never indexed (a release page is read at the latest release's address).
fn noindex(mut resp: Response) -> Response {
    resp.headers_mut()
        .insert("x-robots-tag", HeaderValue::from_static("noindex"));
    resp
}

/// One release of one documentation branch, as a request reads it.
struct Release<'a> {
    st: &'a SiteState,
    headers: &'a HeaderMap,
    /// The branch, as its latest pages show it (its head is the latest release).
    view: &'a DocView,
    version: &'a Version,
    /// The release's documentation root: `{branch base}/v/{version}`.
    base: &'a str,
}

impl Release<'_> {
    /// A path under the release: a page, or its Markdown form (a page whose own path ends in `.md` stays HTML).
    async fn path(&self, rest: &str) -> Page {
        match rest.strip_suffix(".md") {
            Some(page) if !page.is_empty() => {
                let (loaded, _) = self.st.library.load_version(self.version.id).await?;
                if matches!(loaded.site.lookup(rest), Lookup::Page(_)) {
                    self.page(rest, Form::Html).await
                } else {
                    self.page(page, Form::Markdown).await
                }
            }
            _ => self.page(rest, Form::Html).await,
        }
    }

    /// The same page in the branch's latest release (its home when the page is not there any more), and whether it
    /// is the same page.
    async fn latest_of(&self, loaded: &Loaded, page: PageRef) -> Result<(String, bool), PageError> {
        let path = loaded.site.info(page).path.to_owned();
        let (head, _) = self.st.library.load_head(self.view).await?;
        let same = matches!(head.site.lookup(&path), Lookup::Page(_));
        let href = if same && !path.is_empty() {
            format!("{}/{path}", self.view.base)
        } else {
            self.view.base.clone()
        };
        Ok((href, same))
    }

    /// The chrome of a release page: the branch's switcher, changelog, feeds and MCP server; the reference, the
    /// search and the pages' links inside the release; the banner; never indexed.
    fn chrome(&self, banner: OwnedRelease) -> Chrome {
        let mut chrome = Chrome::of_view(self.view, Some(self.version));
        chrome.base = self.base.to_owned();
        for (label, href, _) in &mut chrome.links {
            if label == "Reference" {
                *href = self.base.to_owned();
            }
        }
        chrome.search_action = Some(format!("{}/search", self.base));
        chrome.mcp = Some(OwnedMcp::of_view(self.view));
        chrome.noindex = true;
        chrome.since = None;
        chrome.release = Some(banner);
        chrome
    }

    /// The banner of `page`: the release, the same page in the latest release, the compare page.
    fn banner(&self, origin: &str, (latest_href, same_page): (String, bool)) -> OwnedRelease {
        let head = self.view.head();
        let latest = head == self.version.id;
        OwnedRelease {
            id: self.version.id.to_string(),
            api_version: self.version.analysis.api_version.clone(),
            published_at: rfc3339_seconds(self.version.created_at),
            latest,
            canonical: format!("{origin}{latest_href}"),
            latest_href,
            same_page,
            compare_href: (!latest).then(|| {
                format!(
                    "/doc/{}/compare?from={}&to={head}",
                    self.view.doc.slug, self.version.id
                )
            }),
        }
    }

    /// A page of the release in `form`.
    async fn page(&self, page: &str, form: Form) -> Page {
        let library = &self.st.library;
        let (loaded, version) = library.load_version(self.version.id).await?;
        let page_ref = lookup(&loaded, self.base, page, form)?;
        let origin = origin_of(&self.st.config, self.headers);
        let mut v = Validator::of_view(self.view)
            .add("release\0")
            .add(version.id.to_string())
            .add(self.view.head().to_string())
            .add(page)
            .add(if form == Form::Markdown {
                "md\0"
            } else {
                "html\0"
            })
            .add(&origin)
            .add(self.view.doc.try_it.as_str());
        let subject = (form == Form::Html)
            .then(|| loaded.site.history_subject(&loaded.doc, &page_ref))
            .flatten();
        // The history as it was at this release: the branch's index up to it.
        let history = match &subject {
            Some(s) => {
                let index = library.branch_history(self.view, &version).await?;
                v = v.add(if index.complete { "h\0" } else { "h-\0" });
                Some(crate::history::page_history(self.view, &index, s))
            }
            None => None,
        };
        let etag = v.etag();
        if let Some(r) = not_modified(self.headers, &etag) {
            return Ok(noindex(r));
        }
        let latest = self.latest_of(&loaded, page_ref).await?;
        let banner = self.banner(&origin, latest);
        match form {
            Form::Html => {
                let chrome = self.chrome(banner);
                let html = CpuGate::shared()
                    .run(move || {
                        chrome.with(|ctx| {
                            loaded
                                .site
                                .render_with_history(&loaded.doc, &page_ref, ctx, history.as_ref())
                                .html
                        })
                    })
                    .await?;
                Ok(noindex(html_page(html, &etag)))
            }
            Form::Markdown => {
                let text = specpress_reader::markdown::page(
                    loaded,
                    page_ref,
                    self.base.to_owned(),
                    self.view,
                    &version,
                )
                .await?;
                let text = format!("{}\n\n{text}", markdown_banner(&banner));
                Ok(noindex(revalidated(types::MARKDOWN, text, &etag)))
            }
        }
    }

    /// The release's search results page (or its JSON twin), links inside the release.
    async fn search(&self, raw: Option<&str>, format: Format) -> Page {
        let q = query_param(raw);
        let etag = Validator::of_view(self.view)
            .add("release search\0")
            .add(self.version.id.to_string())
            .add(self.view.head().to_string())
            .add(if format == Format::Json {
                "json\0"
            } else {
                "page\0"
            })
            .add(&q)
            .etag();
        if let Some(r) = not_modified(self.headers, &etag) {
            return Ok(noindex(r));
        }
        let (loaded, index, _) = self.st.library.indexed_version(self.version.id).await?;
        let origin = origin_of(&self.st.config, self.headers);
        let latest_href = format!("{}/search", self.view.base);
        let mut banner = self.banner(&origin, (self.view.base.clone(), true));
        banner.canonical = format!("{origin}{latest_href}");
        let chrome = self.chrome(banner);
        let answer = release_results(
            chrome,
            self.base.to_owned(),
            (loaded, index),
            &q,
            format,
            &etag,
        )
        .await?;
        Ok(noindex(answer))
    }
}

/// The banner of a release page's Markdown form: a quote naming the release and where the latest is.
fn markdown_banner(b: &OwnedRelease) -> String {
    let name = if b.api_version.trim().is_empty() {
        format!("version {}", b.id.chars().take(8).collect::<String>())
    } else {
        specpress_render::escape_markdown(&b.api_version)
    };
    let mut out = format!(
        "> {} release {name}, published {}.",
        if b.latest { "The latest" } else { "An earlier" },
        specpress_render::human_time(&b.published_at)
    );
    let what = if b.same_page {
        "This page in the latest release"
    } else {
        "The latest release (this page is not in it)"
    };
    out.push_str(&format!(" {what}: <{}>.", b.canonical));
    out
}

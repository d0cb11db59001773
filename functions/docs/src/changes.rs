//! What changed: a documentation's changelog (per branch, paginated in the store), one release's change page and its
//! `.json` variant (the `DiffItem[]` details that `diff_public_url` and webhook `details_url` point at), the compare
//! page between any two versions, the changelog feeds (Atom, RSS), and public diffs (`/diff/{id}`).
//!
//! A release is compared with the version it was deployed after (`previous_version_id`, as `GET /versions/{id}` and
//! webhook payloads do). The diff runs on the parsed documents the reference pages cache ([`crate::cache`]) and its
//! result is kept by the pair of stored definitions it compares ([`DiffCache`]): definitions never change, so an
//! entry never goes stale, and a changelog page viewed again costs no diff. Diffs are bounded by the diff engine's
//! own walk budget and the stored-document parse limits, and run on the CPU gate.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Redirect, Response};
use quick_cache::sync::{Cache, DefaultLifecycle};
use quick_cache::{DefaultHashBuilder, OptionsBuilder, Weighter};
use sha2::{Digest, Sha256};
use specpress_api::ApiError;
use specpress_api::cpu::CpuGate;
use specpress_domain::DomainError;
use specpress_domain::model::{Documentation, Slug, Version};
use specpress_domain::usecases::diffs;
use specpress_domain::usecases::public::{self, PublicDoc, Reader};

use crate::access::Viewer;
use specpress_render::changes::{
    self as render, ChangePage, Changelog, Changes, ComparePage, DiffPage, Pager, Release,
    ReleaseChanges, VersionOption, VersionRef,
};
use specpress_render::feed::{self, Feed, FeedEntry};
use tracing::instrument;

use crate::DocsState;
use crate::cache::Loaded;
use crate::pages::load_blob;
use crate::view::{
    Answer, Chrome, DocView, etag_of, html_page, not_found, not_modified, page_error,
    rfc3339_seconds,
};

/// Releases on one changelog page.
pub const PER_PAGE: u32 = 10;
/// Releases in a feed.
pub const FEED_ENTRIES: u32 = 20;
/// Highest changelog page number accepted.
const MAX_PAGE: u64 = 1_000_000;
/// Branches and versions per branch offered by the compare form.
const COMPARE_BRANCHES: usize = 12;
const COMPARE_VERSIONS: u32 = 30;
/// Longest query string read.
const MAX_QUERY: usize = 2048;
/// Budget of the diff cache, in bytes (estimated: four times the details' JSON).
pub const DEFAULT_DIFF_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// The diff of two stored definitions, as the pages use it.
pub struct DiffOutcome {
    /// The `DiffItem[]` JSON (the `.json` variant).
    pub details: String,
    /// The same, read for the pages.
    pub changes: Changes,
    /// No change at all.
    pub empty: bool,
    /// Some change is structural.
    pub structural: bool,
}

#[derive(Clone)]
struct ByWeight;

impl Weighter<String, Arc<DiffOutcome>> for ByWeight {
    fn weight(&self, _: &String, v: &Arc<DiffOutcome>) -> u64 {
        // The JSON text, and the parsed tree (about three times its text).
        (v.details.len() as u64 * 4).max(64)
    }
}

/// Diffs by the pair of definitions they compare (`{previous sha256}:{current sha256}`), bounded by an estimate of
/// their memory. Concurrent requests for the same pair wait for one computation.
pub struct DiffCache {
    cache: Cache<String, Arc<DiffOutcome>, ByWeight>,
}

impl DiffCache {
    /// A cache of about `budget` bytes.
    pub fn new(budget: u64) -> Self {
        let options = OptionsBuilder::new()
            .estimated_items_capacity(256)
            .weight_capacity(budget.max(1))
            .shards(1)
            .build();
        let cache = match options {
            Ok(o) => Cache::with_options(
                o,
                ByWeight,
                DefaultHashBuilder::default(),
                DefaultLifecycle::default(),
            ),
            Err(_) => Cache::with_weighter(256, budget.max(1), ByWeight),
        };
        DiffCache { cache }
    }
}

/// The diff between two versions (from the cache when it is there).
async fn outcome(
    st: &DocsState,
    previous: &Version,
    current: &Version,
) -> Result<Arc<DiffOutcome>, DomainError> {
    let key = format!("{}:{}", previous.blob.sha256, current.blob.sha256);
    st.diffs
        .cache
        .get_or_insert_async(&key, async {
            let before = load_blob(st, &previous.blob).await?;
            let after = load_blob(st, &current.blob).await?;
            CpuGate::shared()
                .run(move || compute(&before, &after))
                .await?
        })
        .await
}

fn compute(before: &Loaded, after: &Loaded) -> Result<Arc<DiffOutcome>, DomainError> {
    let report = specpress_diff::diff(
        &before.doc,
        &after.doc,
        &specpress_diff::DiffOptions::default(),
    );
    let value = report.details();
    let details = serde_json::to_string(&value).map_err(DomainError::unexpected)?;
    let changes = Changes::from_value(value).map_err(DomainError::unexpected)?;
    Ok(Arc::new(DiffOutcome {
        details,
        changes,
        empty: report.is_empty(),
        structural: report.structural(),
    }))
}

/// What a release shows, owned (the diff is shared with the cache).
#[derive(Clone)]
pub(crate) enum Shown {
    First,
    Unavailable,
    Diff(Arc<DiffOutcome>),
}

impl Shown {
    fn as_release(&self) -> ReleaseChanges<'_> {
        match self {
            Shown::First => ReleaseChanges::First,
            Shown::Unavailable => ReleaseChanges::Unavailable,
            Shown::Diff(o) if o.empty => ReleaseChanges::Unchanged,
            Shown::Diff(o) if !o.structural => ReleaseChanges::ContentOnly(&o.changes),
            Shown::Diff(o) => ReleaseChanges::Changes(&o.changes),
        }
    }
}

/// A version's changes against the version it followed.
async fn release_state(st: &DocsState, v: &Version) -> Result<Shown, DomainError> {
    if v.previous_version_id.is_none() {
        return Ok(Shown::First);
    }
    match public::previous_version(st.app.store.as_ref(), v, st.app.now()).await? {
        Some(prev) => Ok(Shown::Diff(outcome(st, &prev, v).await?)),
        None => Ok(Shown::Unavailable),
    }
}

/// Finds the documentation of a public URL; the id form is answered with a redirect to the slug form (path and query
/// kept).
pub(crate) async fn open_doc(
    st: &DocsState,
    reader: &Reader,
    key: &str,
    uri: &Uri,
) -> Result<PublicDoc, Response> {
    match public::find_doc(st.app.store.as_ref(), reader, key).await {
        Ok(doc) if !doc.by_id => Ok(doc),
        Ok(doc) => {
            let prefix = format!("/doc/{key}");
            let rest = uri.path().strip_prefix(&prefix).unwrap_or("");
            let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
            Err(
                Redirect::permanent(&format!("/doc/{}{rest}{query}", doc.slug, rest = rest))
                    .into_response(),
            )
        }
        Err(e) => Err(page_error(st, e)),
    }
}

/// The query's values by name (bounded).
fn query_value(uri: &Uri, name: &str) -> Option<String> {
    let q = uri.query()?;
    if q.len() > MAX_QUERY {
        return None;
    }
    url::form_urlencoded::parse(q.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// The reference page of an operation at the head of the branch shown, when it has one.
fn linker<'a>(
    head: Option<&'a Loaded>,
    base: &'a str,
) -> impl Fn(&str, &str, &str) -> Option<String> + 'a {
    move |kind, verb, path| {
        let loaded = head?;
        if !matches!(kind, "endpoint" | "webhook") {
            return None;
        }
        let page = loaded.site.operation_page(&loaded.doc, verb, path)?;
        Some(format!("{base}/{}", loaded.site.info(page).path))
    }
}

/// The chrome of a page about `view`, with the changelog link marked current when it is one.
fn doc_chrome(st: &DocsState, view: &DocView, head: Option<&Version>, changelog: bool) -> Chrome {
    let mut chrome = view.chrome(st, head);
    for (label, _, current) in &mut chrome.links {
        *current = changelog && label == "Changelog";
    }
    chrome
}

/// Which answer a changelog URL asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Page,
    Atom,
    Rss,
}

/// `GET /doc/{doc}/changes[.atom|.rss]`.
#[instrument(skip_all)]
pub async fn changelog(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    parts: Parts,
    Path(key): Path<String>,
) -> Response {
    let format = format_of(parts.uri.path());
    changelog_of(&st, &reader, &parts, &key, None, format)
        .await
        .unwrap_or_else(|r| r)
}

/// `GET /doc/{doc}/branches/{branch}/changes[.atom|.rss]`.
#[instrument(skip_all)]
pub async fn branch_changelog(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    parts: Parts,
    Path((key, branch)): Path<(String, String)>,
) -> Response {
    let format = format_of(parts.uri.path());
    changelog_of(&st, &reader, &parts, &key, Some(&branch), format)
        .await
        .unwrap_or_else(|r| r)
}

fn format_of(path: &str) -> Format {
    if path.ends_with(".atom") {
        Format::Atom
    } else if path.ends_with(".rss") {
        Format::Rss
    } else {
        Format::Page
    }
}

fn suffix(format: Format) -> &'static str {
    match format {
        Format::Page => "",
        Format::Atom => ".atom",
        Format::Rss => ".rss",
    }
}

async fn changelog_of(
    st: &DocsState,
    reader: &Reader,
    parts: &Parts,
    key: &str,
    branch: Option<&str>,
    format: Format,
) -> Answer {
    let doc = open_doc(st, reader, key, &parts.uri).await?;
    let branch = match branch {
        None => None,
        Some(b) => {
            let Some(slug) = specpress_domain::branch_rules::slug_from_path(b) else {
                return Err(not_found(
                    st,
                    "Branch not found",
                    "This documentation has no such branch.",
                ));
            };
            if slug == doc.default_branch {
                // The default branch's changelog lives at the documentation's own URL.
                return Ok(Redirect::temporary(&format!(
                    "/doc/{}/changes{}",
                    doc.slug,
                    suffix(format)
                ))
                .into_response());
            }
            Some(slug)
        }
    };
    let view = DocView::open(st, doc, branch).await?;
    let total = view.branch.seq;
    let pages = total.div_ceil(u64::from(PER_PAGE)).max(1);
    let page = match (format, query_value(&parts.uri, "page")) {
        (Format::Page, Some(p)) => match p.parse::<u64>() {
            Ok(n) if (1..=MAX_PAGE).contains(&n) && n <= pages => n,
            _ => {
                return Err(not_found(
                    st,
                    "Page not found",
                    "This changelog has no such page.",
                ));
            }
        },
        _ => 1,
    };
    let limit = if format == Format::Page {
        PER_PAGE
    } else {
        FEED_ENTRIES
    };
    let mut h = Sha256::new();
    view.hash_into(&mut h);
    h.update(total.to_le_bytes());
    h.update(view.head().to_string());
    h.update(page.to_le_bytes());
    h.update(suffix(format));
    if format != Format::Page {
        h.update(public_origin(st, parts));
    }
    let etag = etag_of(h);
    if let Some(r) = not_modified(&parts.headers, &etag) {
        return Ok(r);
    }
    let store = st.app.store.as_ref();
    let versions = public::releases(
        store,
        &view.doc,
        &view.branch,
        (page - 1) * u64::from(limit),
        limit,
    )
    .await
    .map_err(|e| page_error(st, e))?;
    let mut states = Vec::with_capacity(versions.len());
    for v in &versions {
        states.push(release_state(st, v).await.map_err(|e| page_error(st, e))?);
    }
    let hrefs: Vec<String> = versions
        .iter()
        .map(|v| format!("/doc/{}/changes/{}", view.doc.slug, v.id))
        .collect();
    let changelog_path = format!("{}/changes", view.base);
    if format != Format::Page {
        let origin = public_origin(st, parts);
        let entries: Vec<FeedEntry> = versions
            .iter()
            .zip(&states)
            .zip(&hrefs)
            .map(|((v, s), href)| feed_entry(&origin, None, v, s, href))
            .collect();
        let title = match view.named {
            true => format!("{} ({}): changelog", view.doc.name, view.branch.name.name()),
            false => format!("{}: changelog", view.doc.name),
        };
        let feed = Feed {
            title: &title,
            subtitle: "Every published version, newest first, with its changes.",
            self_url: &format!("{origin}{changelog_path}{}", suffix(format)),
            page_url: &format!("{origin}{changelog_path}"),
            updated: versions
                .first()
                .map_or(view.doc.created_at, |v| v.created_at),
            entries: &entries,
        };
        return Ok(feed_response(&feed, format, &etag));
    }
    let head = crate::pages::loaded_version(st, view.head()).await.ok();
    let head_version = head.as_ref().map(|(_, v)| v.clone());
    let chrome = doc_chrome(st, &view, head_version.as_ref(), true);
    let published: Vec<String> = versions
        .iter()
        .map(|v| rfc3339_seconds(v.created_at))
        .collect();
    let ids: Vec<String> = versions.iter().map(|v| v.id.to_string()).collect();
    let releases: Vec<Release<'_>> = versions
        .iter()
        .enumerate()
        .map(|(i, v)| Release {
            href: &hrefs[i],
            id: &ids[i],
            api_version: &v.analysis.api_version,
            title: &v.analysis.title,
            published_at: &published[i],
            doc: None,
            changes: states[i].as_release(),
        })
        .collect();
    let page_href = |n: u64| {
        if n == 1 {
            changelog_path.clone()
        } else {
            format!("{changelog_path}?page={n}")
        }
    };
    let newer = (page > 1).then(|| page_href(page - 1));
    let older = (page < pages).then(|| page_href(page + 1));
    let atom = format!("{changelog_path}.atom");
    let rss = format!("{changelog_path}.rss");
    let compare = format!("/doc/{}/compare", view.doc.slug);
    let body = Changelog {
        branch: view.named.then(|| view.branch.name.name()),
        total,
        releases: &releases,
        pager: Pager {
            page,
            pages,
            newer: newer.as_deref(),
            older: older.as_deref(),
        },
        atom_href: &atom,
        rss_href: &rss,
        compare_href: &compare,
    };
    let link = linker(head.as_ref().map(|(l, _)| l.as_ref()), &view.base);
    let html = chrome.with(|ctx| render::changelog_page(ctx, &body, &link));
    Ok(html_page(html, &etag))
}

/// The origin of absolute URLs (feeds): the configured public base, else the request's host.
fn public_origin(st: &DocsState, parts: &Parts) -> String {
    if !st.app.config.public_base_url.is_empty() {
        return st.app.config.public_base_url.clone();
    }
    let header = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    let host = header("x-forwarded-host")
        .or_else(|| header("host"))
        .filter(|h| {
            !h.is_empty()
                && h.len() <= 255
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b))
        })
        .unwrap_or("localhost");
    let proto = match header("x-forwarded-proto") {
        Some("http") => "http",
        Some(_) => "https",
        // `specpress serve` answers plain HTTP on its own port.
        None if host.starts_with("127.0.0.1") || host.starts_with("localhost") => "http",
        None => "https",
    };
    format!("{proto}://{host}")
}

fn feed_entry(
    origin: &str,
    doc_name: Option<&str>,
    v: &Version,
    state: &Shown,
    href: &str,
) -> FeedEntry {
    let changes = state.as_release();
    let version = if v.analysis.api_version.trim().is_empty() {
        v.id.to_string()
    } else {
        v.analysis.api_version.clone()
    };
    let mut title = match doc_name {
        Some(d) => format!("{d} {version}"),
        None => format!("{version}: {}", v.analysis.title),
    };
    if changes.breaking() {
        title.push_str(" (breaking)");
    }
    FeedEntry {
        title,
        url: format!("{origin}{href}"),
        id: format!("urn:uuid:{}", v.id),
        published: v.created_at,
        summary: changes.summary_text(30),
    }
}

fn feed_response(feed: &Feed<'_>, format: Format, etag: &str) -> Response {
    let (body, ct) = match format {
        Format::Rss => (feed::rss(feed), "application/rss+xml; charset=utf-8"),
        _ => (feed::atom(feed), "application/atom+xml; charset=utf-8"),
    };
    let mut resp = (
        [
            (header::CONTENT_TYPE, ct),
            (header::CACHE_CONTROL, "public, no-cache"),
        ],
        body,
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(etag) {
        resp.headers_mut().insert(header::ETAG, v);
    }
    resp
}

/// The view a version's pages show it in: its own branch when that has published versions, else the default one;
/// `None` when the documentation has nothing published (a temporary version of a new documentation).
async fn view_of(st: &DocsState, doc: &PublicDoc, v: &Version) -> Option<DocView> {
    if v.branch != doc.default_branch
        && let Ok(view) = DocView::open(st, doc.clone(), Some(v.branch.clone())).await
    {
        return Some(view);
    }
    DocView::open(st, doc.clone(), None).await.ok()
}

/// A chrome without a published documentation behind it.
fn bare_chrome(st: &DocsState, doc: &Documentation) -> Chrome {
    Chrome {
        base: format!("/doc/{}", doc.slug),
        doc_name: doc.name.clone(),
        branches: Vec::new(),
        version: None,
        assets: st.assets.clone(),
        links: Vec::new(),
        search_action: None,
        alternates: Vec::new(),
        noindex: true,
        signed_in: crate::access::signed_in(),
    }
}

fn branch_name(view: Option<&DocView>, slug: &Slug) -> String {
    view.and_then(|w| w.branches.iter().find(|b| b.name.slug() == slug))
        .map_or_else(|| slug.to_string(), |b| b.name.name().to_owned())
}

/// `GET /doc/{doc}/changes/{version}[.json]`: one release's changes, as a page or as the `DiffItem[]` JSON.
#[instrument(skip_all)]
pub async fn change(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    parts: Parts,
    Path((key, segment)): Path<(String, String)>,
) -> Response {
    let (version, json) = match segment.strip_suffix(".json") {
        Some(v) => (v, true),
        None => (segment.as_str(), false),
    };
    let doc = match open_doc(&st, &reader, &key, &parts.uri).await {
        Ok(d) => d,
        Err(r) => return r,
    };
    let answer = if json {
        change_json(&st, &parts.headers, &doc, version).await
    } else {
        change_page(&st, &parts.headers, &doc, version).await
    };
    answer.unwrap_or_else(|r| r)
}

async fn change_json(st: &DocsState, headers: &HeaderMap, doc: &PublicDoc, id: &str) -> Answer {
    let now = st.app.now();
    let api = |e: DomainError| ApiError::from(e).into_response();
    let v = public::doc_version(st.app.store.as_ref(), doc, id, now)
        .await
        .map_err(api)?;
    let mut h = Sha256::new();
    h.update(v.id.to_string());
    h.update(
        v.previous_version_id
            .map(|p| p.to_string())
            .unwrap_or_default(),
    );
    h.update("json");
    let etag = etag_of(h);
    if let Some(r) = not_modified(headers, &etag) {
        return Ok(r);
    }
    let body = match release_state(st, &v).await.map_err(api)? {
        Shown::First => "[]".to_owned(),
        Shown::Unavailable => {
            return Err(api(DomainError::NotFound(
                "The version this one followed is no longer available".into(),
            )));
        }
        Shown::Diff(o) => o.details.clone(),
    };
    let mut resp = (
        [
            (header::CONTENT_TYPE, "application/json; charset=utf-8"),
            (header::CACHE_CONTROL, "public, no-cache"),
        ],
        body,
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(&etag) {
        resp.headers_mut().insert(header::ETAG, v);
    }
    Ok(resp)
}

async fn change_page(st: &DocsState, headers: &HeaderMap, doc: &PublicDoc, id: &str) -> Answer {
    let now = st.app.now();
    let store = st.app.store.as_ref();
    let v = public::doc_version(store, doc, id, now)
        .await
        .map_err(|e| page_error(st, e))?;
    let view = view_of(st, doc, &v).await;
    let previous = public::previous_version(store, &v, now)
        .await
        .map_err(|e| page_error(st, e))?;
    let mut h = Sha256::new();
    match &view {
        Some(view) => view.hash_into(&mut h),
        None => h.update(crate::view::build_id()),
    }
    h.update(v.id.to_string());
    h.update(
        previous
            .as_ref()
            .map(|p| p.id.to_string())
            .unwrap_or_default(),
    );
    if let Some(view) = &view {
        h.update(view.head().to_string());
    }
    let etag = etag_of(h);
    if let Some(r) = not_modified(headers, &etag) {
        return Ok(r);
    }
    let state = match (&previous, v.previous_version_id) {
        (_, None) => Shown::First,
        (None, Some(_)) => Shown::Unavailable,
        (Some(p), Some(_)) => Shown::Diff(outcome(st, p, &v).await.map_err(|e| page_error(st, e))?),
    };
    let head = match view.as_ref().map(DocView::head) {
        Some(id) => crate::pages::loaded_version(st, id).await.ok(),
        None => None,
    };
    let mut chrome = match &view {
        Some(view) => doc_chrome(st, view, head.as_ref().map(|(_, hv)| hv), false),
        None => bare_chrome(st, doc),
    };
    if v.temporary {
        chrome.noindex = true;
    }
    let base = view
        .as_ref()
        .map_or_else(|| format!("/doc/{}", doc.slug), |w| w.base.clone());
    let vid = v.id.to_string();
    let published = rfc3339_seconds(v.created_at);
    let branch = branch_name(view.as_ref(), &v.branch);
    let prev_id = previous.as_ref().map(|p| p.id.to_string());
    let prev_published = previous.as_ref().map(|p| rfc3339_seconds(p.created_at));
    let prev_branch = previous
        .as_ref()
        .map(|p| branch_name(view.as_ref(), &p.branch));
    let prev_href = prev_id
        .as_ref()
        .map(|p| format!("/doc/{}/changes/{p}", doc.slug));
    let changelog = format!("{base}/changes");
    let json = format!("/doc/{}/changes/{vid}.json", doc.slug);
    let source = format!("/doc/{}/versions/{vid}/source", doc.slug);
    let compare = prev_id
        .as_ref()
        .map(|p| format!("/doc/{}/compare?from={p}&to={vid}", doc.slug));
    let page = ChangePage {
        version: VersionRef {
            id: &vid,
            api_version: &v.analysis.api_version,
            branch: &branch,
            published_at: &published,
            href: None,
        },
        title: &v.analysis.title,
        previous: match (&previous, &prev_id, &prev_published, &prev_branch) {
            (Some(p), Some(id), Some(at), Some(b)) => Some(VersionRef {
                id,
                api_version: &p.analysis.api_version,
                branch: b,
                published_at: at,
                href: prev_href.as_deref(),
            }),
            _ => None,
        },
        changes: state.as_release(),
        changelog_href: &changelog,
        json_href: &json,
        source_href: &source,
        compare_href: compare.as_deref(),
        temporary: v.temporary,
    };
    let link = linker(head.as_ref().map(|(l, _)| l.as_ref()), &base);
    let html = chrome.with(|ctx| render::change_page(ctx, &page, &link));
    Ok(html_page(html, &etag))
}

/// A version named by the compare form; `None` when it is not given or not one of this documentation's.
async fn find_version(
    st: &DocsState,
    doc: &Documentation,
    key: Option<&str>,
) -> Result<Option<Version>, Response> {
    let Some(key) = key else { return Ok(None) };
    match public::doc_version(st.app.store.as_ref(), doc, key, st.app.now()).await {
        Ok(v) => Ok(Some(v)),
        Err(DomainError::NotFound(_)) => Ok(None),
        Err(e) => Err(page_error(st, e)),
    }
}

fn option_label(v: &Version) -> String {
    let date = rfc3339_seconds(v.created_at);
    let when = specpress_render::human_time(&date);
    let id = v.id.to_string();
    if v.analysis.api_version.trim().is_empty() {
        format!("{} · {when}", &id[..8])
    } else {
        format!("{} · {when} · {}", v.analysis.api_version, &id[..8])
    }
}

/// `GET /doc/{doc}/compare?from={version}&to={version}`: the changes between any two versions of a documentation,
/// on one branch or across branches; without both, the form alone.
#[instrument(skip_all)]
pub async fn compare(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    parts: Parts,
    Path(key): Path<String>,
) -> Response {
    compare_of(&st, &reader, &parts, &key)
        .await
        .unwrap_or_else(|r| r)
}

async fn compare_of(st: &DocsState, reader: &Reader, parts: &Parts, key: &str) -> Answer {
    let doc = open_doc(st, reader, key, &parts.uri).await?;
    let view = DocView::open(st, doc, None).await?;
    let store = st.app.store.as_ref();
    let from_key = query_value(&parts.uri, "from");
    let to_key = query_value(&parts.uri, "to");
    let mut problem: Option<&str> = None;
    let mut status = StatusCode::OK;
    let from = find_version(st, &view.doc, from_key.as_deref()).await?;
    let to = find_version(st, &view.doc, to_key.as_deref()).await?;
    if (from_key.is_some() && from.is_none()) || (to_key.is_some() && to.is_none()) {
        problem = Some("This documentation has no such version: choose one in the lists.");
        status = StatusCode::NOT_FOUND;
    }
    let state = match (&from, &to) {
        (Some(a), Some(b)) if a.id == b.id => None,
        (Some(a), Some(b)) => Some(Shown::Diff(
            outcome(st, a, b).await.map_err(|e| page_error(st, e))?,
        )),
        _ => None,
    };
    if let (Some(a), Some(b)) = (&from, &to)
        && a.id == b.id
    {
        problem = Some("Both sides are the same version: choose two different versions.");
    }
    // The form's lists: the newest versions of each published branch.
    let mut options_owned: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for b in view.branches.iter().take(COMPARE_BRANCHES) {
        let versions = public::releases(store, &view.doc, b, 0, COMPARE_VERSIONS)
            .await
            .map_err(|e| page_error(st, e))?;
        options_owned.push((
            b.name.name().to_owned(),
            versions
                .iter()
                .map(|v| (v.id.to_string(), option_label(v)))
                .collect(),
        ));
    }
    let options: Vec<(&str, Vec<VersionOption<'_>>)> = options_owned
        .iter()
        .map(|(b, vs)| {
            (
                b.as_str(),
                vs.iter()
                    .map(|(id, label)| VersionOption { id, label })
                    .collect(),
            )
        })
        .collect();
    let head = crate::pages::loaded_version(st, view.head()).await.ok();
    let chrome = doc_chrome(st, &view, head.as_ref().map(|(_, hv)| hv), false);
    let refs: Vec<Option<(String, String, String, String)>> = [&from, &to]
        .iter()
        .map(|v| {
            v.as_ref().map(|v| {
                (
                    v.id.to_string(),
                    rfc3339_seconds(v.created_at),
                    branch_name(Some(&view), &v.branch),
                    format!("/doc/{}/changes/{}", view.doc.slug, v.id),
                )
            })
        })
        .collect();
    fn version_ref<'a>(
        v: &'a Option<Version>,
        r: &'a Option<(String, String, String, String)>,
    ) -> Option<VersionRef<'a>> {
        let v = v.as_ref()?;
        let (id, at, branch, href) = r.as_ref()?;
        Some(VersionRef {
            id,
            api_version: &v.analysis.api_version,
            branch,
            published_at: at,
            href: Some(href),
        })
    }
    let action = format!("/doc/{}/compare", view.doc.slug);
    let changelog = format!("{}/changes", view.base);
    let page = ComparePage {
        action: &action,
        options: &options,
        from: version_ref(&from, &refs[0]),
        to: version_ref(&to, &refs[1]),
        changes: state.as_ref().map(Shown::as_release),
        problem,
        changelog_href: &changelog,
    };
    let link = linker(head.as_ref().map(|(l, _)| l.as_ref()), &view.base);
    let html = chrome.with(|ctx| render::compare_page(ctx, &page, &link));
    Ok((
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        html,
    )
        .into_response())
}

/// `GET /diff/{id}`: a public diff (`POST /diffs`, what `bump diff` prints), read through the diffs use case, so an
/// expired or evicted anonymous diff is a 404 page.
#[instrument(skip_all)]
pub async fn diff(State(st): State<DocsState>, Path(id): Path<String>) -> Response {
    diff_of(&st, &id).await.unwrap_or_else(|r| r)
}

async fn diff_of(st: &DocsState, id: &str) -> Answer {
    let view = diffs::get_diff(st.app.store.as_ref(), id, st.app.now())
        .await
        .map_err(|e| page_error(st, e))?;
    let parts = view.rendered.parts().map_err(|e| page_error(st, e))?;
    let details = parts.details.get().to_owned();
    let changes = CpuGate::shared()
        .run(move || Changes::parse(&details))
        .await
        .map_err(|e| page_error(st, e))?
        .map_err(|e| page_error(st, DomainError::unexpected(e)))?;
    let rid = view.record.id.to_string();
    let base = format!("/diff/{rid}");
    let chrome = Chrome {
        base: base.clone(),
        doc_name: view.record.title.clone(),
        branches: Vec::new(),
        version: None,
        assets: st.assets.clone(),
        links: Vec::new(),
        search_action: None,
        alternates: vec![(
            format!("{base}/current.json"),
            "application/json".to_owned(),
            "Current document".to_owned(),
        )],
        noindex: true,
        signed_in: crate::access::signed_in(),
    };
    let previous = format!("{base}/previous.json");
    let current = format!("{base}/current.json");
    let expires = view.record.expires_at.map(rfc3339_seconds);
    let page = DiffPage {
        title: &view.record.title,
        changes: ReleaseChanges::Changes(&changes),
        previous_href: &previous,
        current_href: &current,
        expires_at: expires.as_deref(),
    };
    let html = chrome.with(|ctx| render::diff_page(ctx, &page));
    Ok((
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response())
}

/// The releases of a hub's APIs, newest first: the `limit` newest across its documentations' default branches.
/// Only the documentations whose latest release is among the `limit` newest can contribute (any other has at least
/// `limit` newer releases elsewhere), so at most `limit` histories are read, each for at most `limit` versions.
pub(crate) async fn hub_releases(
    st: &DocsState,
    apis: &[specpress_domain::usecases::hubs::HubApi],
    limit: u32,
) -> Result<Vec<(Documentation, Version, Shown)>, DomainError> {
    let store = st.app.store.as_ref();
    let mut recent: Vec<&specpress_domain::usecases::hubs::HubApi> =
        apis.iter().filter(|a| a.head.is_some()).collect();
    recent.sort_by_key(|a| std::cmp::Reverse(a.head.as_ref().map(|h| h.created_at)));
    recent.truncate(limit as usize);
    let mut all: Vec<(Documentation, Version)> = Vec::new();
    for api in recent {
        let Some(branch) = public::doc_branch(store, &api.doc, &api.doc.default_branch).await?
        else {
            continue;
        };
        for v in public::releases(store, &api.doc, &branch, 0, limit).await? {
            all.push((api.doc.clone(), v));
        }
    }
    all.sort_by_key(|(_, v)| std::cmp::Reverse((v.created_at, v.id.0)));
    all.truncate(limit as usize);
    let mut out = Vec::with_capacity(all.len());
    for (doc, v) in all {
        let state = release_state(st, &v).await?;
        out.push((doc, v, state));
    }
    Ok(out)
}

/// Owned pieces of a hub's combined changelog, for its page and feeds.
pub(crate) struct HubReleases {
    pub hrefs: Vec<String>,
    pub doc_hrefs: Vec<String>,
    pub ids: Vec<String>,
    pub published: Vec<String>,
    pub items: Vec<(Documentation, Version, Shown)>,
}

impl HubReleases {
    pub(crate) fn new(items: Vec<(Documentation, Version, Shown)>) -> Self {
        HubReleases {
            hrefs: items
                .iter()
                .map(|(d, v, _)| format!("/doc/{}/changes/{}", d.slug, v.id))
                .collect(),
            doc_hrefs: items
                .iter()
                .map(|(d, _, _)| format!("/doc/{}", d.slug))
                .collect(),
            ids: items.iter().map(|(_, v, _)| v.id.to_string()).collect(),
            published: items
                .iter()
                .map(|(_, v, _)| rfc3339_seconds(v.created_at))
                .collect(),
            items,
        }
    }

    pub(crate) fn releases(&self) -> Vec<Release<'_>> {
        self.items
            .iter()
            .enumerate()
            .map(|(i, (d, v, s))| Release {
                href: &self.hrefs[i],
                id: &self.ids[i],
                api_version: &v.analysis.api_version,
                title: &v.analysis.title,
                published_at: &self.published[i],
                doc: Some((&d.name, &self.doc_hrefs[i])),
                changes: s.as_release(),
            })
            .collect()
    }

    pub(crate) fn feed_entries(&self, origin: &str) -> Vec<FeedEntry> {
        self.items
            .iter()
            .enumerate()
            .map(|(i, (d, v, s))| feed_entry(origin, Some(&d.name), v, s, &self.hrefs[i]))
            .collect()
    }
}

/// Feeds of a hub share the writer with documentation feeds.
pub(crate) fn hub_feed(feed: &Feed<'_>, rss: bool, etag: &str) -> Response {
    feed_response(feed, if rss { Format::Rss } else { Format::Atom }, etag)
}

pub(crate) fn origin_of(st: &DocsState, parts: &Parts) -> String {
    public_origin(st, parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changelog_url_names_its_format_by_its_suffix() {
        assert_eq!(format_of("/doc/pets/changes"), Format::Page);
        assert_eq!(format_of("/doc/pets/changes.atom"), Format::Atom);
        assert_eq!(
            format_of("/doc/pets/branches/next/changes.rss"),
            Format::Rss
        );
    }

    #[test]
    fn query_values_are_read_decoded_and_bounded() {
        let uri: Uri = "/x?from=a%20b&to=&page=2".parse().unwrap();
        assert_eq!(query_value(&uri, "from").as_deref(), Some("a b"));
        assert_eq!(query_value(&uri, "to"), None);
        assert_eq!(query_value(&uri, "page").as_deref(), Some("2"));
        let long: Uri = format!("/x?from={}", "a".repeat(3000)).parse().unwrap();
        assert_eq!(query_value(&long, "from"), None);
    }
}

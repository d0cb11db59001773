//! Files for machines: what tools and AI agents read instead of scraping the HTML (the `.md` form of every reference
//! page is presented by [`crate::reference`]).
//!
//! - `GET /doc/{doc}/llms.txt`: the documentation's pages (default branch), each with its Markdown URL and a
//!   one-line description; `GET /hub/{hub}/llms.txt`: the hub's documentations, each with its own `llms.txt`. Both
//!   name the MCP server (`/doc/{doc}/mcp`, `/hub/{hub}/mcp`) by its absolute URL.
//! - `GET /doc/{doc}/sitemap.xml`: every page of the default branch, `lastmod` the publication time of the version
//!   it shows; `GET /hub/{hub}/sitemap.xml`: a sitemap index of the hub's documentations' sitemaps. XML is written by
//!   quick-xml (escaping included); at most [`MAX_SITEMAP_URLS`] URLs (the protocol's limit).
//!
//! Absolute URLs are built on the public base of the request (`SPECPRESS_PUBLIC_URL`, else the Host), like every
//! `*_public_url` of the API. Documentations and hubs are resolved by the reader layer, so what it hides stays out of
//! these files.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::request::Parts;
use axum::routing::get;
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};
use specpress_api::ApiConfig;
use specpress_api::readers::Viewer;
use specpress_domain::model::{Hub, Version};
use specpress_domain::usecases::public::Reader;
use specpress_engines::cpu::CpuGate;
use specpress_reader::{DocView, Library, ReadError};
use specpress_render::MarkdownContext;
use tracing::instrument;

use crate::SiteState;
use crate::chrome::OwnedMcp;
use crate::error::{Page, PageError};
use crate::respond::{
    Validator, not_modified, origin_of, revalidated, rfc3339_seconds, to_slug_form, types,
};

/// The routes of the files for machines.
pub fn routes() -> Router<SiteState> {
    Router::new()
        .route("/doc/{doc}/llms.txt", get(doc_llms))
        .route("/doc/{doc}/sitemap.xml", get(doc_sitemap))
        .route("/hub/{hub}/llms.txt", get(hub_llms))
        .route("/hub/{hub}/sitemap.xml", get(hub_sitemap))
}

/// URLs in one sitemap (the sitemap protocol's limit), and sitemaps in one index.
pub const MAX_SITEMAP_URLS: usize = 50_000;

/// The default branch behind a machine file of a documentation (`file`: `llms.txt`, `sitemap.xml`), the public
/// origin its URLs are written on, and its validator; or the answer already due (the slug redirect, a 404 page, a 304).
async fn machine_file(
    (library, config): (&Library, &ApiConfig),
    reader: &Reader,
    key: &str,
    file: &str,
    parts: &Parts,
) -> Result<(DocView, String, String), PageError> {
    let doc = library.find_doc(reader, key).await?;
    if doc.by_id {
        return Err(PageError::answered(to_slug_form(
            doc.slug.as_str(),
            &parts.uri,
            key,
        )));
    }
    let origin = origin_of(config, &parts.headers);
    let view = library.open(doc, None).await?;
    let etag = Validator::of_view(&view)
        .add(view.head().to_string())
        .add(file)
        .add([0])
        .add(&origin)
        .etag();
    match not_modified(&parts.headers, &etag) {
        Some(r) => Err(PageError::answered(r)),
        None => Ok((view, origin, etag)),
    }
}

/// `GET /doc/{doc}/llms.txt`.
#[instrument(skip_all)]
pub async fn doc_llms(
    State(library): State<Arc<Library>>,
    State(config): State<Arc<ApiConfig>>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    parts: Parts,
) -> Page {
    let (view, origin, etag) =
        machine_file((&library, &config), &reader, &key, "llms.txt", &parts).await?;
    let (loaded, version) = library.load_head(&view).await?;
    let base = format!("{origin}{}", view.base);
    let name = view.doc.name.clone();
    let api_version = version.analysis.api_version.clone();
    let mcp = OwnedMcp::of_view(&view).on(&origin);
    let text = CpuGate::shared()
        .run(move || {
            loaded.site.llms_txt(
                &loaded.doc,
                &MarkdownContext {
                    base: &base,
                    doc_name: &name,
                    version: Some((&api_version, "")),
                    mcp: Some(mcp.server()),
                },
            )
        })
        .await?;
    Ok(revalidated(types::TEXT, text, &etag))
}

/// An XML document written by quick-xml: the declaration, then `body`.
fn xml(body: impl FnOnce(&mut Writer<Vec<u8>>) -> std::io::Result<()>) -> std::io::Result<String> {
    let mut w = Writer::new_with_indent(Vec::with_capacity(64 * 1024), b' ', 1);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    body(&mut w)?;
    String::from_utf8(w.into_inner()).map_err(std::io::Error::other)
}

/// A sitemap (`urlset`) or a sitemap index (`sitemapindex`, of `sitemap` entries): (location, lastmod) pairs.
fn sitemap_xml(root: &str, entry: &str, items: &[(String, String)]) -> std::io::Result<String> {
    xml(|w| {
        w.create_element(root)
            .with_attribute(("xmlns", SITEMAP_NS))
            .write_inner_content(|w| {
                for (loc, lastmod) in items {
                    w.create_element(entry).write_inner_content(|w| {
                        w.create_element("loc")
                            .write_text_content(BytesText::new(loc))?;
                        w.create_element("lastmod")
                            .write_text_content(BytesText::new(lastmod))?;
                        Ok::<(), std::io::Error>(())
                    })?;
                }
                Ok::<(), std::io::Error>(())
            })?;
        Ok(())
    })
}

const SITEMAP_NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";

/// `GET /doc/{doc}/sitemap.xml`.
#[instrument(skip_all)]
pub async fn doc_sitemap(
    State(library): State<Arc<Library>>,
    State(config): State<Arc<ApiConfig>>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    parts: Parts,
) -> Page {
    let (view, origin, etag) =
        machine_file((&library, &config), &reader, &key, "sitemap.xml", &parts).await?;
    let (loaded, version) = library.load_head(&view).await?;
    let base = format!("{origin}{}", view.base);
    let lastmod = rfc3339_seconds(version.created_at);
    let text = CpuGate::shared()
        .run(move || {
            let items: Vec<(String, String)> = loaded
                .site
                .pages()
                .take(MAX_SITEMAP_URLS)
                .map(|p| {
                    let loc = if p.path.is_empty() {
                        base.clone()
                    } else {
                        format!("{base}/{}", p.path)
                    };
                    (loc, lastmod.clone())
                })
                .collect();
            sitemap_xml("urlset", "url", &items)
        })
        .await?
        .map_err(unexpected)?;
    Ok(revalidated(types::XML, text, &etag))
}

fn unexpected(e: std::io::Error) -> PageError {
    PageError::Failed(specpress_domain::DomainError::unexpected(e))
}

/// A hub's documentations that have a published default branch, with their head versions.
async fn hub_heads(
    library: &Library,
    reader: &Reader,
    key: &str,
) -> Result<(Hub, Vec<(DocView, Version)>), PageError> {
    let hub = library.find_hub(reader, key).await?;
    let views = library.hub_views(reader, &hub, MAX_SITEMAP_URLS).await?;
    let mut out = Vec::with_capacity(views.len());
    for view in views {
        match library.head_version(&view).await {
            Ok(v) => out.push((view, v)),
            Err(ReadError::Missing(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok((hub, out))
}

fn hub_etag(hub: &Hub, heads: &[(DocView, Version)], what: &str, origin: &str) -> String {
    let mut v = Validator::new()
        .add(hub.slug.as_str())
        .add(&hub.name)
        .add(hub.description.as_deref().unwrap_or(""))
        .add([u8::from(hub.visibility.is_private())]);
    for (view, version) in heads {
        v = v.add_view(view).add(version.id.to_string());
    }
    v.add(what).add(origin).etag()
}

/// `GET /hub/{hub}/sitemap.xml`: a sitemap index of its documentations' sitemaps.
#[instrument(skip_all)]
pub async fn hub_sitemap(
    State(library): State<Arc<Library>>,
    State(config): State<Arc<ApiConfig>>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    parts: Parts,
) -> Page {
    let (hub, heads) = hub_heads(&library, &reader, &key).await?;
    let origin = origin_of(&config, &parts.headers);
    let etag = hub_etag(&hub, &heads, "sitemap\0", &origin);
    if let Some(r) = not_modified(&parts.headers, &etag) {
        return Ok(r);
    }
    let items: Vec<(String, String)> = heads
        .iter()
        .map(|(view, version)| {
            (
                format!("{origin}{}/sitemap.xml", view.base),
                rfc3339_seconds(version.created_at),
            )
        })
        .collect();
    let text = sitemap_xml("sitemapindex", "sitemap", &items).map_err(unexpected)?;
    Ok(revalidated(types::XML, text, &etag))
}

/// `GET /hub/{hub}/llms.txt`: the hub's documentations, each with its `llms.txt`, Markdown home and HTML page.
#[instrument(skip_all)]
pub async fn hub_llms(
    State(library): State<Arc<Library>>,
    State(config): State<Arc<ApiConfig>>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    parts: Parts,
) -> Page {
    let (hub, heads) = hub_heads(&library, &reader, &key).await?;
    let origin = origin_of(&config, &parts.headers);
    let etag = hub_etag(&hub, &heads, "llms\0", &origin);
    if let Some(r) = not_modified(&parts.headers, &etag) {
        return Ok(r);
    }
    Ok(revalidated(
        types::TEXT,
        hub_llms_text(&hub, &heads, &origin),
        &etag,
    ))
}

fn hub_llms_text(hub: &Hub, heads: &[(DocView, Version)], origin: &str) -> String {
    use specpress_render::escape_markdown as esc;
    use std::fmt::Write;
    let mut out = String::with_capacity(256 + heads.len() * 200);
    let _ = writeln!(out, "# {}\n", esc(&hub.name));
    let summary = match hub
        .description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        Some(d) => format!("API documentation hub. {}", d.lines().next().unwrap_or("")),
        None => "API documentation hub.".to_string(),
    };
    let _ = writeln!(out, "> {}\n", esc(&summary));
    out.push_str("Each API below has its own llms.txt listing its pages as Markdown.\n\n");
    let private = hub.visibility.is_private() || heads.iter().any(|(view, _)| view.private);
    let mcp = OwnedMcp::of_hub(hub.slug.as_str(), private).on(origin);
    specpress_render::mcp::llms_section(&mut out, &mcp.server());
    out.push_str("## APIs\n\n");
    for (view, version) in heads {
        let a = &version.analysis;
        let mut line = format!(
            "- [{}]({origin}{}/llms.txt): {}",
            esc(&view.doc.name),
            view.base,
            esc(if a.title.is_empty() {
                &view.doc.name
            } else {
                &a.title
            })
        );
        if !a.api_version.is_empty() {
            let _ = write!(line, ", version {}", esc(&a.api_version));
        }
        if let Some(d) = a
            .description
            .as_deref()
            .and_then(|d| d.lines().find(|l| !l.trim().is_empty()))
        {
            let cut: String = d.trim().chars().take(200).collect();
            let _ = write!(line, ". {}", esc(&cut));
        }
        let _ = writeln!(line, " (Markdown: {origin}{}.md)", view.base);
        out.push_str(&line);
    }
    out
}

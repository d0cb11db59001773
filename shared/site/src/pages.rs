//! Which documentation, branch, page and form a URL names, and the answer: `/doc/{doc}[.json|.yaml|.md]`,
//! `/doc/{doc}/{page}[.md]`, `/doc/{doc}/branches/{branch}[/{page}][.md]`, `/doc/{doc}/versions/{id}/source`,
//! `/doc/{doc}/change/{id}` (redirected to `changes/`), and live previews (`/preview/{id}[/{page}]`).

use specpress_domain::urls;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use specpress_api::ApiConfig;
use specpress_api::readers::Viewer;
use specpress_domain::DomainError;
use specpress_domain::model::Slug;
use specpress_domain::usecases::public::{self, Definition, PublicDoc};
use specpress_engines::cpu::CpuGate;
use specpress_reader::{BranchInUrl, Library, Missing, ReadError, branch_in_url};
use time::OffsetDateTime;
use tracing::instrument;

use crate::SiteState;
use crate::chrome::Chrome;
use crate::error::{Page, PageError};
use crate::reference::{self, Form, Presenter};
use crate::respond::{
    Validator, data, html_no_store, moved_permanently, moved_temporarily, not_modified,
    to_slug_form, types,
};

/// The routes of documentation pages, definitions and previews.
pub fn routes() -> Router<SiteState> {
    Router::new()
        .route("/doc/{doc}", get(doc_root))
        .route("/doc/{doc}/", get(doc_root_slash))
        .route("/doc/{doc}/{*rest}", get(doc_path))
        .route("/preview/{id}", get(preview_root))
        .route("/preview/{id}/{*rest}", get(preview_path))
}

/// What follows a documentation key in its last path segment: `pets`, `pets.json`, `pets.yaml`, `pets.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Variant {
    Page,
    Markdown,
    Json,
    Yaml,
}

/// Splits `pets.json` into (`pets`, Json). Slugs and ids never contain a dot, so the split is unambiguous.
pub(crate) fn split_variant(segment: &str) -> (&str, Variant) {
    match segment.rsplit_once('.') {
        Some((key, "json")) => (key, Variant::Json),
        Some((key, "yaml" | "yml")) => (key, Variant::Yaml),
        Some((key, "md")) => (key, Variant::Markdown),
        _ => (segment, Variant::Page),
    }
}

fn looks_json(text: &str) -> bool {
    text.trim_start().starts_with(['{', '['])
}

/// The validator of a stored definition served in one form: its content address names its bytes for ever, so
/// nothing of the (possibly many-megabyte) text is hashed per request.
fn definition_etag(d: &Definition, form: &str) -> String {
    Validator::new().add(&d.blob.sha256).add(form).etag()
}

/// A stored definition as it is, with its validator, revalidated like pages.
fn definition_answer(headers: &HeaderMap, d: Definition, content_type: &'static str) -> Response {
    let etag = definition_etag(&d, content_type);
    if let Some(r) = not_modified(headers, &etag) {
        return r;
    }
    data(content_type, d.bundle.definition, &etag)
}

/// The definition in the syntax the URL asks for. JSON text is YAML 1.2 already, so `.yaml` of a JSON definition
/// is its text; `.json` of a YAML definition is converted by the spec engine (`$ref`s kept as refs).
pub(crate) async fn variant_answer(
    headers: &HeaderMap,
    d: Definition,
    variant: Variant,
) -> Response {
    let json = looks_json(&d.definition);
    match variant {
        Variant::Json if !json => {
            let etag = definition_etag(&d, "as json");
            if let Some(r) = not_modified(headers, &etag) {
                return r;
            }
            let b = d.bundle;
            let converted = CpuGate::shared()
                .run(move || {
                    let refs = specpress_engines::engine::references(&b);
                    specpress_apispec::parse(
                        &b.definition,
                        &refs,
                        &specpress_engines::engine::stored_limits(),
                    )
                    .map(|d| d.to_json())
                    .map_err(DomainError::unexpected)
                })
                .await
                .and_then(|r| r);
            match converted {
                Ok(text) => data(types::JSON, text, &etag),
                Err(e) => PageError::json(e).into_response(),
            }
        }
        Variant::Yaml => definition_answer(headers, d, types::YAML),
        _ => {
            let ct = if json { types::JSON } else { types::YAML };
            definition_answer(headers, d, ct)
        }
    }
}

/// `GET /doc/{doc}[.json|.yaml|.md]`.
#[instrument(skip_all)]
pub async fn doc_root(
    State(library): State<Arc<Library>>,
    State(config): State<Arc<ApiConfig>>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    uri: Uri,
    Path(segment): Path<String>,
) -> Page {
    let (key, variant) = split_variant(&segment);
    let doc = match library.find_doc(&reader, key).await {
        Ok(d) => d,
        Err(e) if matches!(variant, Variant::Json | Variant::Yaml) => {
            return Err(PageError::json(e));
        }
        Err(e) => return Err(e.into()),
    };
    if doc.by_id {
        return Ok(to_slug_form(doc.slug.as_str(), &uri, key));
    }
    let p = Presenter {
        library: &library,
        config: &config,
    };
    match variant {
        Variant::Page => doc_page(p, &headers, &doc, None, "", Form::Html).await,
        Variant::Markdown => doc_page(p, &headers, &doc, None, "", Form::Markdown).await,
        Variant::Json | Variant::Yaml => {
            match public::doc_definition(library.store(), &doc).await {
                Ok(bundle) => Ok(variant_answer(&headers, bundle, variant).await),
                Err(e) => Err(PageError::json(ReadError::or_missing(
                    e,
                    Missing::NothingPublished,
                ))),
            }
        }
    }
}

/// `GET /doc/{doc}/`: the documentation's home, without the slash.
#[instrument(skip_all)]
pub async fn doc_root_slash(uri: Uri) -> Response {
    let path = percent_encoding::percent_decode_str(uri.path()).decode_utf8_lossy();
    moved_permanently(path.trim_end_matches('/'))
}

/// What a path under a documentation names.
#[derive(Debug, PartialEq, Eq)]
enum Under<'a> {
    /// The contract's `/change/{id}` form of a change page.
    Change(&'a str),
    /// A version's definition as deployed.
    Source(&'a str),
    /// A page (possibly empty: the home) on a branch (`None`: the default one), in a form.
    Page {
        branch: Option<&'a str>,
        page: &'a str,
        form: Form,
    },
}

/// Reads what follows `/doc/{doc}/`. A trailing `.md` names the Markdown form, except that a page whose own path
/// ends in `.md` (a schema named `notes.md`) stays the HTML page: [`doc_path`] checks that against the site.
fn read_under(rest: &str) -> Under<'_> {
    let parts: Vec<&str> = rest.split('/').collect();
    match parts.as_slice() {
        ["change", version] => return Under::Change(version),
        ["versions", version, "source"] => return Under::Source(version),
        _ => {}
    }
    let (path, form) = match rest.strip_suffix(".md") {
        Some(p)
            if !p.is_empty()
                && !["changes/", "change/", "versions/"]
                    .iter()
                    .any(|not_a_page| p.starts_with(not_a_page)) =>
        {
            (p, Form::Markdown)
        }
        _ => (rest, Form::Html),
    };
    match path.strip_prefix("branches/") {
        Some(b) => match b.split_once('/') {
            Some((branch, page)) => Under::Page {
                branch: Some(branch),
                page,
                form,
            },
            None => Under::Page {
                branch: Some(b),
                page: "",
                form,
            },
        },
        None => Under::Page {
            branch: None,
            page: path,
            form,
        },
    }
}

/// `GET /doc/{doc}/{rest}`: a page (HTML or Markdown), a branch's page, a change, a version's source.
#[instrument(skip_all)]
pub async fn doc_path(
    State(library): State<Arc<Library>>,
    State(config): State<Arc<ApiConfig>>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    uri: Uri,
    Path((key, rest)): Path<(String, String)>,
) -> Page {
    let doc = library.find_doc(&reader, &key).await?;
    if doc.by_id {
        return Ok(to_slug_form(doc.slug.as_str(), &uri, &key));
    }
    let p = Presenter {
        library: &library,
        config: &config,
    };
    match read_under(&rest) {
        Under::Change(version) => Ok(moved_permanently(&format!(
            "{}/changes/{version}",
            urls::doc_path(&doc.slug)
        ))),
        Under::Source(version) => Ok(version_source(&library, &headers, &doc, version).await),
        Under::Page {
            branch: None,
            page,
            form,
        } => {
            // One open and one load, whichever form the page turns out to be.
            match form {
                Form::Markdown => markdown_or_page(p, &headers, &doc, &rest, page).await,
                Form::Html => doc_page(p, &headers, &doc, None, page, form).await,
            }
        }
        Under::Page {
            branch: Some(b),
            page,
            form,
        } => match branch_in_url(&doc, b)? {
            BranchInUrl::Default => {
                let suffix = if form == Form::Markdown { ".md" } else { "" };
                let target = if page.is_empty() {
                    urls::href_with(urls::doc_path(&doc.slug), suffix)
                } else {
                    format!("{}/{page}{suffix}", urls::doc_path(&doc.slug))
                };
                Ok(moved_temporarily(&target))
            }
            BranchInUrl::Named(slug) => doc_page(p, &headers, &doc, Some(slug), page, form).await,
        },
    }
}

/// `/doc/{doc}/{rest}` where `rest` ends in `.md` on the default branch: the HTML page when the site has a page of
/// that very path, else the Markdown form of `page`.
async fn markdown_or_page(
    p: Presenter<'_>,
    headers: &HeaderMap,
    doc: &PublicDoc,
    rest: &str,
    page: &str,
) -> Page {
    let view = p.library.open(doc.clone(), None).await?;
    let head = p.library.load_head(&view).await?;
    if matches!(head.0.site.lookup(rest), specpress_render::Lookup::Page(_)) {
        return p.present(headers, &view, head, rest, Form::Html).await;
    }
    p.present(headers, &view, head, page, Form::Markdown).await
}

/// One page of a documentation on one branch (`None`: the default branch), in `form`.
async fn doc_page(
    p: Presenter<'_>,
    headers: &HeaderMap,
    doc: &PublicDoc,
    branch: Option<Slug>,
    page: &str,
    form: Form,
) -> Page {
    let view = p.library.open(doc.clone(), branch).await?;
    p.page(headers, &view, page, form).await
}

/// `GET /doc/{doc}/versions/{id}/source`: a version's definition exactly as deployed.
async fn version_source(
    library: &Library,
    headers: &HeaderMap,
    doc: &PublicDoc,
    version: &str,
) -> Response {
    let now = OffsetDateTime::now_utc();
    match public::version_definition(library.store(), doc, version, now).await {
        Ok(b) => {
            let ct = if looks_json(&b.definition) {
                types::JSON
            } else {
                types::YAML
            };
            definition_answer(headers, b, ct)
        }
        Err(e) => PageError::json(ReadError::or_missing(e, Missing::Version)).into_response(),
    }
}

/// `GET /preview/{id}[.json|.yaml]`.
#[instrument(skip_all)]
pub async fn preview_root(
    State(library): State<Arc<Library>>,
    headers: HeaderMap,
    Path(segment): Path<String>,
) -> Page {
    let (id, variant) = split_variant(&segment);
    match variant {
        Variant::Json | Variant::Yaml => {
            let now = OffsetDateTime::now_utc();
            match public::preview_definition(library.store(), id, now).await {
                Ok(bundle) => {
                    let mut resp = variant_answer(&headers, bundle, variant).await;
                    let h = resp.headers_mut();
                    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
                    h.remove(header::ETAG);
                    Ok(resp)
                }
                Err(e) => Err(PageError::json(ReadError::or_missing(e, Missing::Preview))),
            }
        }
        _ => preview_page(&library, &segment, "").await,
    }
}

/// `GET /preview/{id}/{page}`.
#[instrument(skip_all)]
pub async fn preview_path(
    State(library): State<Arc<Library>>,
    Path((id, rest)): Path<(String, String)>,
) -> Page {
    preview_page(&library, &id, &rest).await
}

/// A live preview, rendered like a documentation (not indexed, not cached by browsers: it changes on every `PUT`).
async fn preview_page(library: &Library, id: &str, page: &str) -> Page {
    let preview_id = specpress_domain::model::PreviewId::parse(id).ok_or(Missing::Preview)?;
    let preview = library
        .store()
        .get_preview(preview_id, OffsetDateTime::now_utc())
        .await?
        .ok_or(Missing::Preview)?;
    let loaded = library.load_blob(&preview.blob).await?;
    let base = format!("/preview/{id}");
    let page_ref = match reference::lookup(&loaded, &base, page, Form::Html) {
        Ok(p) => p,
        Err(PageError::Missing(_)) => {
            return Err(PageError::not_found(
                "Page not found",
                "This preview has no such page.",
            ));
        }
        Err(e) => return Err(e),
    };
    let chrome = Chrome::bare(base, loaded.doc.title().to_owned());
    let html = CpuGate::shared()
        .run(move || chrome.with(|ctx| loaded.site.render(&loaded.doc, &page_ref, ctx).html))
        .await?;
    Ok(html_no_store(StatusCode::OK, html, "no-store"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_documentation_key_splits_from_its_definition_suffix() {
        assert_eq!(split_variant("pets"), ("pets", Variant::Page));
        assert_eq!(split_variant("pets.json"), ("pets", Variant::Json));
        assert_eq!(split_variant("pets.yaml"), ("pets", Variant::Yaml));
        assert_eq!(split_variant("pets.yml"), ("pets", Variant::Yaml));
        assert_eq!(split_variant("pets.md"), ("pets", Variant::Markdown));
        assert_eq!(split_variant("pets.txt"), ("pets.txt", Variant::Page));
    }

    #[test]
    fn a_path_under_a_documentation_names_a_branch_a_page_and_a_form() {
        let page = |branch, page, form| Under::Page { branch, page, form };
        assert_eq!(
            read_under("operation/x.md"),
            page(None, "operation/x", Form::Markdown)
        );
        assert_eq!(
            read_under("branches/next.md"),
            page(Some("next"), "", Form::Markdown)
        );
        assert_eq!(
            read_under("branches/next/schema/Pet.md"),
            page(Some("next"), "schema/Pet", Form::Markdown)
        );
        assert_eq!(
            read_under("operation/x"),
            page(None, "operation/x", Form::Html)
        );
        assert_eq!(read_under(".md"), page(None, ".md", Form::Html));
        assert_eq!(read_under("change/abc"), Under::Change("abc"));
        assert_eq!(
            read_under("changes/abc.md"),
            page(None, "changes/abc.md", Form::Html)
        );
        assert_eq!(read_under("versions/abc/source"), Under::Source("abc"));
    }
}

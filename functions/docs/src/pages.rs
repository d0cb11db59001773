//! The documentation's own URLs: which documentation, branch, page and form a URL names, handed to the presenter
//! that answers it. `/doc/{doc}[.json|.yaml|.md]`, `/doc/{doc}/` (redirected), `/doc/{doc}/{page}[.md]`,
//! `/doc/{doc}/branches/{branch}[/{page}][.md]`, `/doc/{doc}/versions/{id}/source`, `/doc/{doc}/change/{id}`
//! (redirected to `changes/`), and live previews (`/preview/{id}[/{page}]`).

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::Response;
use specpress_domain::DomainError;
use specpress_domain::model::Slug;
use specpress_domain::usecases::public::{self, Definition, PublicDoc};
use specpress_engines::cpu::CpuGate;
use specpress_reader::{BranchInUrl, Missing, ReadError, branch_in_url};
use tracing::instrument;

use crate::DocsState;
use crate::access::Viewer;
use crate::reference::{self, Form};
use crate::respond::{
    Answer, Chrome, Validator, data, json_error, moved_permanently, moved_temporarily, not_found,
    not_modified, page_error, to_slug_form, types,
};

/// What follows a documentation key in its last path segment: `pets`, `pets.json`, `pets.yaml`, `pets.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    Page,
    Markdown,
    Json,
    Yaml,
}

/// Splits `pets.json` into (`pets`, Json). Slugs and ids never contain a dot, so the split is unambiguous.
fn split_variant(segment: &str) -> (&str, Variant) {
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
async fn variant_answer(headers: &HeaderMap, d: Definition, variant: Variant) -> Response {
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
                Err(e) => json_error(ReadError::Failed(e)),
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
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    uri: Uri,
    Path(segment): Path<String>,
) -> Response {
    let (key, variant) = split_variant(&segment);
    let doc = match st.library.find_doc(&reader, key).await {
        Ok(d) => d,
        Err(e) if matches!(variant, Variant::Json | Variant::Yaml) => return json_error(e),
        Err(e) => return page_error(&st, e),
    };
    if doc.by_id {
        return to_slug_form(doc.slug.as_str(), &uri, key);
    }
    match variant {
        Variant::Page => doc_page(&st, &headers, &doc, None, "", Form::Html).await,
        Variant::Markdown => doc_page(&st, &headers, &doc, None, "", Form::Markdown).await,
        Variant::Json | Variant::Yaml => Ok(
            match public::doc_definition(st.library.store(), &doc).await {
                Ok(bundle) => variant_answer(&headers, bundle, variant).await,
                Err(e) => json_error(ReadError::or_missing(e, Missing::NothingPublished)),
            },
        ),
    }
    .unwrap_or_else(|r| r)
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
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    uri: Uri,
    Path((key, rest)): Path<(String, String)>,
) -> Response {
    let doc = match st.library.find_doc(&reader, &key).await {
        Ok(d) => d,
        Err(e) => return page_error(&st, e),
    };
    if doc.by_id {
        return to_slug_form(doc.slug.as_str(), &uri, &key);
    }
    let answer = match read_under(&rest) {
        Under::Change(version) => Ok(moved_permanently(&format!(
            "/doc/{}/changes/{version}",
            doc.slug
        ))),
        Under::Source(version) => Ok(version_source(&st, &headers, &doc, version).await),
        Under::Page {
            branch: None,
            page,
            form,
        } => {
            // One open and one load, whichever form the page turns out to be.
            match form {
                Form::Markdown => markdown_or_page(&st, &headers, &doc, &rest, page).await,
                Form::Html => doc_page(&st, &headers, &doc, None, page, form).await,
            }
        }
        Under::Page {
            branch: Some(b),
            page,
            form,
        } => match branch_in_url(&doc, b) {
            Err(e) => Err(page_error(&st, e)),
            Ok(BranchInUrl::Default) => {
                let suffix = if form == Form::Markdown { ".md" } else { "" };
                let target = if page.is_empty() {
                    format!("/doc/{}{suffix}", doc.slug)
                } else {
                    format!("/doc/{}/{page}{suffix}", doc.slug)
                };
                Ok(moved_temporarily(&target))
            }
            Ok(BranchInUrl::Named(slug)) => {
                doc_page(&st, &headers, &doc, Some(slug), page, form).await
            }
        },
    };
    answer.unwrap_or_else(|r| r)
}

/// `/doc/{doc}/{rest}` where `rest` ends in `.md` on the default branch: the HTML page when the site has a page of
/// that very path, else the Markdown form of `page`.
async fn markdown_or_page(
    st: &DocsState,
    headers: &HeaderMap,
    doc: &PublicDoc,
    rest: &str,
    page: &str,
) -> Answer {
    let view = st
        .library
        .open(doc.clone(), None)
        .await
        .map_err(|e| page_error(st, e))?;
    let head = st
        .library
        .load_head(&view)
        .await
        .map_err(|e| page_error(st, e))?;
    if matches!(head.0.site.lookup(rest), specpress_render::Lookup::Page(_)) {
        return reference::present(st, headers, &view, head, rest, Form::Html).await;
    }
    reference::present(st, headers, &view, head, page, Form::Markdown).await
}

/// One page of a documentation on one branch (`None`: the default branch), in `form`.
async fn doc_page(
    st: &DocsState,
    headers: &HeaderMap,
    doc: &PublicDoc,
    branch: Option<Slug>,
    page: &str,
    form: Form,
) -> Answer {
    let view = st
        .library
        .open(doc.clone(), branch)
        .await
        .map_err(|e| page_error(st, e))?;
    reference::page(st, headers, &view, page, form).await
}

/// `GET /doc/{doc}/versions/{id}/source`: a version's definition exactly as deployed.
async fn version_source(
    st: &DocsState,
    headers: &HeaderMap,
    doc: &PublicDoc,
    version: &str,
) -> Response {
    let now = st.app.now();
    match public::version_definition(st.library.store(), doc, version, now).await {
        Ok(b) => {
            let ct = if looks_json(&b.definition) {
                types::JSON
            } else {
                types::YAML
            };
            definition_answer(headers, b, ct)
        }
        Err(e) => json_error(ReadError::or_missing(e, Missing::Version)),
    }
}

/// `GET /preview/{id}[.json|.yaml]`.
#[instrument(skip_all)]
pub async fn preview_root(
    State(st): State<DocsState>,
    headers: HeaderMap,
    Path(segment): Path<String>,
) -> Response {
    let (id, variant) = split_variant(&segment);
    match variant {
        Variant::Json | Variant::Yaml => {
            match public::preview_definition(st.library.store(), id, st.app.now()).await {
                Ok(bundle) => {
                    let mut resp = variant_answer(&headers, bundle, variant).await;
                    let h = resp.headers_mut();
                    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
                    h.remove(header::ETAG);
                    resp
                }
                Err(e) => json_error(ReadError::or_missing(e, Missing::Preview)),
            }
        }
        _ => preview_page(&st, &segment, "").await.unwrap_or_else(|r| r),
    }
}

/// `GET /preview/{id}/{page}`.
#[instrument(skip_all)]
pub async fn preview_path(
    State(st): State<DocsState>,
    Path((id, rest)): Path<(String, String)>,
) -> Response {
    preview_page(&st, &id, &rest).await.unwrap_or_else(|r| r)
}

/// A live preview, rendered like a documentation (not indexed, not cached by browsers: it changes on every `PUT`).
async fn preview_page(st: &DocsState, id: &str, page: &str) -> Answer {
    let gone = || page_error(st, ReadError::Missing(Missing::Preview));
    let preview_id = specpress_domain::model::PreviewId::parse(id).ok_or_else(gone)?;
    let preview = st
        .library
        .store()
        .get_preview(preview_id, st.app.now())
        .await
        .map_err(|e| page_error(st, e.into()))?
        .ok_or_else(gone)?;
    let loaded = st
        .library
        .load_blob(&preview.blob)
        .await
        .map_err(|e| page_error(st, e))?;
    let base = format!("/preview/{id}");
    let page_ref = match reference::lookup(st, &loaded, &base, page, Form::Html) {
        Ok(p) => p,
        Err(r) if r.status() == StatusCode::NOT_FOUND => {
            return Err(not_found(
                st,
                "Page not found",
                "This preview has no such page.",
            ));
        }
        Err(r) => return Err(r),
    };
    let chrome = Chrome::bare(st, base, loaded.doc.title().to_owned());
    let html = CpuGate::shared()
        .run(move || chrome.with(|ctx| loaded.site.render(&loaded.doc, &page_ref, ctx).html))
        .await
        .map_err(|e| page_error(st, e.into()))?;
    Ok(crate::respond::html_no_store(
        StatusCode::OK,
        html,
        "no-store",
    ))
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

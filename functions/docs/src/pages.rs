//! The handlers: which documentation, branch, version and page a URL names, and the answer.

use std::sync::Arc;

use crate::access::Viewer;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Redirect, Response};
use sha2::{Digest, Sha256};
use specpress_api::ApiError;
use specpress_api::cpu::CpuGate;
use specpress_domain::DomainError;
use specpress_domain::model::{BlobRef, Bundle, Documentation, Slug, Version, VersionId};
use specpress_domain::usecases::public::{self, PublicDoc};
use specpress_render::Lookup;
use tracing::instrument;

use crate::DocsState;
use crate::cache::{Loaded, load};
use crate::view::{
    Answer, Chrome, DocView, etag_of, html_page, not_found, not_modified, page_error,
};

/// What follows a documentation key in its last path segment: `pets`, `pets.json`, `pets.yaml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    Page,
    Json,
    Yaml,
}

/// Splits `pets.json` into (`pets`, Json). Slugs and ids never contain a dot, so the split is unambiguous.
fn split_variant(segment: &str) -> (&str, Variant) {
    match segment.rsplit_once('.') {
        Some((key, "json")) => (key, Variant::Json),
        Some((key, "yaml" | "yml")) => (key, Variant::Yaml),
        _ => (segment, Variant::Page),
    }
}

fn looks_json(text: &str) -> bool {
    text.trim_start().starts_with(['{', '['])
}

/// The definition text as deployed, typed by its syntax.
fn definition_response(b: Bundle) -> Response {
    let ct = if looks_json(&b.definition) {
        "application/json; charset=utf-8"
    } else {
        "application/yaml; charset=utf-8"
    };
    ([(header::CONTENT_TYPE, ct)], b.definition).into_response()
}

/// The definition in the syntax the URL asks for. JSON text is YAML 1.2 already, so `.yaml` of a JSON definition
/// is its text; `.json` of a YAML definition is converted by the spec engine (`$ref`s kept as refs).
async fn variant_response(b: Bundle, variant: Variant) -> Result<Response, ApiError> {
    let json = looks_json(&b.definition);
    match variant {
        Variant::Json if !json => {
            let text = CpuGate::shared()
                .run(move || {
                    let refs = specpress_api::engine::references(&b);
                    specpress_spec::parse(
                        &b.definition,
                        &refs,
                        &specpress_api::engine::stored_limits(),
                    )
                    .map(|d| d.to_json())
                    .map_err(DomainError::unexpected)
                })
                .await??;
            Ok((
                [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
                text,
            )
                .into_response())
        }
        Variant::Yaml => Ok((
            [(header::CONTENT_TYPE, "application/yaml; charset=utf-8")],
            b.definition,
        )
            .into_response()),
        _ => Ok(definition_response(b)),
    }
}

/// Where the id form of a documentation URL goes: the same path with the slug in place of the id.
fn canonical(doc: &Documentation, rest: &str) -> Response {
    Redirect::permanent(&format!("/doc/{}{rest}", doc.slug)).into_response()
}

/// `GET /doc/{doc}[.json|.yaml]`.
#[instrument(skip_all)]
pub async fn doc_root(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    Path(segment): Path<String>,
) -> Response {
    if let Some(key) = segment.strip_suffix(".md") {
        return crate::machine::markdown_root(&st, &reader, &headers, key).await;
    }
    let (key, variant) = split_variant(&segment);
    let doc = match public::find_doc(st.app.store.as_ref(), &reader, key).await {
        Ok(f) => f,
        Err(e) if variant == Variant::Page => return page_error(&st, e),
        Err(e) => return ApiError::from(e).into_response(),
    };
    if doc.by_id {
        return canonical(&doc, &segment[key.len()..]);
    }
    if variant != Variant::Page {
        let answer = async {
            let bundle = public::doc_definition(st.app.store.as_ref(), &doc).await?;
            variant_response(bundle, variant).await
        };
        return answer.await.unwrap_or_else(IntoResponse::into_response);
    }
    serve_page(&st, &headers, &doc, None, "")
        .await
        .unwrap_or_else(|r| r)
}

/// `GET /doc/{doc}/{rest}`: a page, a branch's page, a change, a version's source.
#[instrument(skip_all)]
pub async fn doc_path(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    Path((key, rest)): Path<(String, String)>,
) -> Response {
    let doc = match public::find_doc(st.app.store.as_ref(), &reader, &key).await {
        Ok(f) => f,
        Err(e) => return page_error(&st, e),
    };
    if doc.by_id {
        return canonical(&doc, &format!("/{rest}"));
    }
    if let Some(md) = crate::machine::markdown_request(&rest) {
        return crate::machine::markdown(&st, &headers, &doc, &rest, md)
            .await
            .unwrap_or_else(|r| r);
    }
    let parts: Vec<&str> = rest.split('/').collect();
    let answer = match parts.as_slice() {
        ["change", version] => Ok(canonical(&doc, &format!("/changes/{version}"))),
        ["versions", version, "source"] => version_definition(&st, &doc, version).await,
        ["branches", branch] => branch_page(&st, &headers, &doc, branch, "").await,
        ["branches", branch, page @ ..] => {
            branch_page(&st, &headers, &doc, branch, &page.join("/")).await
        }
        _ => serve_page(&st, &headers, &doc, None, &rest).await,
    };
    answer.unwrap_or_else(|r| r)
}

async fn version_definition(st: &DocsState, doc: &Documentation, version: &str) -> Answer {
    let now = st.app.now();
    match public::version_definition(st.app.store.as_ref(), doc, version, now).await {
        Ok(b) => Ok(definition_response(b)),
        Err(e) => Err(ApiError::from(e).into_response()),
    }
}

async fn branch_page(
    st: &DocsState,
    headers: &HeaderMap,
    doc: &PublicDoc,
    branch: &str,
    page: &str,
) -> Answer {
    let Some(slug) = specpress_domain::branch_rules::slug_from_path(branch) else {
        return Err(not_found(
            st,
            "Branch not found",
            "This documentation has no such branch.",
        ));
    };
    if slug == doc.default_branch {
        // The default branch's pages live at the documentation's own URLs (temporary: the default may change).
        let target = if page.is_empty() {
            format!("/doc/{}", doc.slug)
        } else {
            format!("/doc/{}/{page}", doc.slug)
        };
        return Ok(Redirect::temporary(&target).into_response());
    }
    serve_page(st, headers, doc, Some(slug), page).await
}

/// The published version behind a branch's pages, parsed (from the cache when it is there).
pub(crate) async fn loaded_version(
    st: &DocsState,
    id: VersionId,
) -> Result<(Arc<Loaded>, Version), DomainError> {
    let store = st.app.store.clone();
    let now = st.app.now();
    let version = store
        .get_version(id, now)
        .await?
        .ok_or_else(|| DomainError::NotFound("Version not found".into()))?;
    let loaded = load_blob(st, &version.blob).await?;
    Ok((loaded, version))
}

/// A stored definition, parsed (from the cache when it is there).
pub(crate) async fn load_blob(st: &DocsState, blob: &BlobRef) -> Result<Arc<Loaded>, DomainError> {
    let store = st.app.store.clone();
    let wanted = blob.clone();
    st.cache
        .get_or_load(blob, || async move {
            let bundle = store
                .get_bundle(&wanted)
                .await?
                .ok_or_else(|| DomainError::unexpected("stored definition missing"))?;
            CpuGate::shared().run(move || load(&bundle)).await?
        })
        .await
}

/// One page of a documentation on one branch (`None`: the default branch).
pub(crate) async fn serve_page(
    st: &DocsState,
    headers: &HeaderMap,
    doc: &PublicDoc,
    branch: Option<Slug>,
    page: &str,
) -> Answer {
    let view = DocView::open(st, doc.clone(), branch).await?;
    let (loaded, version) = view.load_head(st).await?;
    let page_ref = match loaded.site.lookup(page) {
        Lookup::Page(p) => p,
        Lookup::Redirect(to) => {
            let target = if to.is_empty() {
                view.base.clone()
            } else {
                format!("{}/{to}", view.base)
            };
            return Ok(Redirect::permanent(&target).into_response());
        }
        Lookup::NotFound => {
            return Err(not_found(
                st,
                "Page not found",
                "This documentation has no such page (it may have been removed in a later version).",
            ));
        }
    };
    // The validator: the version, the page, and everything else the page shows (name, branches), for this build.
    let mut h = Sha256::new();
    view.hash_into(&mut h);
    h.update(version.id.to_string());
    h.update(page);
    let etag = etag_of(h);
    if let Some(r) = not_modified(headers, &etag) {
        return Ok(r);
    }
    let chrome = view.chrome(st, Some(&version));
    let html = CpuGate::shared()
        .run(move || chrome.with(|ctx| loaded.site.render(&loaded.doc, &page_ref, ctx).html))
        .await
        .map_err(|e| page_error(st, e))?;
    Ok(html_page(html, &etag))
}

/// `GET /preview/{id}[.json|.yaml]`.
#[instrument(skip_all)]
pub async fn preview_root(
    State(st): State<DocsState>,
    headers: HeaderMap,
    Path(segment): Path<String>,
) -> Response {
    let (id, variant) = split_variant(&segment);
    if variant != Variant::Page {
        let answer = async {
            let bundle =
                public::preview_definition(st.app.store.as_ref(), id, st.app.now()).await?;
            let mut resp = variant_response(bundle, variant).await?;
            resp.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            Ok::<_, ApiError>(resp)
        };
        return answer.await.unwrap_or_else(IntoResponse::into_response);
    }
    preview_page(&st, &headers, id, "")
        .await
        .unwrap_or_else(|r| r)
}

/// `GET /preview/{id}/{page}`.
#[instrument(skip_all)]
pub async fn preview_path(
    State(st): State<DocsState>,
    headers: HeaderMap,
    Path((id, rest)): Path<(String, String)>,
) -> Response {
    preview_page(&st, &headers, &id, &rest)
        .await
        .unwrap_or_else(|r| r)
}

/// A live preview, rendered like a documentation (not indexed, not cached by browsers: it changes on every `PUT`).
async fn preview_page(st: &DocsState, _headers: &HeaderMap, id: &str, page: &str) -> Answer {
    let now = st.app.now();
    let not_found_preview = || DomainError::NotFound("Preview not found".into());
    let preview_id = specpress_domain::model::PreviewId::parse(id)
        .ok_or_else(|| page_error(st, not_found_preview()))?;
    let preview = st
        .app
        .store
        .get_preview(preview_id, now)
        .await
        .map_err(|e| page_error(st, e))?
        .ok_or_else(|| page_error(st, not_found_preview()))?;
    let loaded = load_blob(st, &preview.blob)
        .await
        .map_err(|e| page_error(st, e))?;
    let base = format!("/preview/{id}");
    let page_ref = match loaded.site.lookup(page) {
        Lookup::Page(p) => p,
        Lookup::Redirect(to) => {
            let target = if to.is_empty() {
                base
            } else {
                format!("{base}/{to}")
            };
            return Ok(Redirect::permanent(&target).into_response());
        }
        Lookup::NotFound => {
            return Err(not_found(
                st,
                "Page not found",
                "This preview has no such page.",
            ));
        }
    };
    let chrome = Chrome {
        base,
        doc_name: loaded.doc.title().to_owned(),
        branches: Vec::new(),
        version: None,
        assets: st.assets.clone(),
        links: Vec::new(),
        search_action: None,
        alternates: Vec::new(),
        noindex: true,
        signed_in: crate::access::signed_in(),
    };
    let html = CpuGate::shared()
        .run(move || chrome.with(|ctx| loaded.site.render(&loaded.doc, &page_ref, ctx).html))
        .await
        .map_err(|e| page_error(st, e))?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response())
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
        assert_eq!(split_variant("pets.txt"), ("pets.txt", Variant::Page));
    }
}

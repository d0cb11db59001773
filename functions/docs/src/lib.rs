//! The docs function: what readers and tools open at the public URLs the API hands out.
//!
//! - `GET /doc/{doc}`: the documentation on its default branch; `{doc}` is its slug, or its id (answered with a
//!   redirect to the slug form). `GET /doc/{doc}.json` / `.yaml`: the current definition.
//! - `GET /doc/{doc}/changes/{version}` (and the contract's `/change/` form, redirected): one published version.
//! - `GET /doc/{doc}/versions/{version}/source`: a version's definition exactly as deployed.
//! - `GET /preview/{id}`: a live preview.
//!
//! [`router`] is mounted by the Lambda binary and by `specpress serve`. Handlers only extract, call one use case,
//! and map the result.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use specpress_api::{AppState, Result};
use specpress_domain::DomainError;
use specpress_domain::model::{Bundle, Documentation};
use specpress_domain::usecases::public::{self, PublicDoc};
use tracing::instrument;

/// Every public route of this function.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/doc/{doc}", get(doc_home))
        .route("/doc/{doc}/changes/{version}", get(change))
        .route("/doc/{doc}/change/{version}", get(change_contract_form))
        .route("/doc/{doc}/versions/{version}/source", get(source))
        .route("/preview/{id}", get(preview))
        .with_state(state)
}

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

/// Where the id form of a documentation URL goes: the same path with the slug in place of the id.
fn canonical(doc: &Documentation, rest: &str) -> Response {
    Redirect::permanent(&format!("/doc/{}{rest}", doc.slug)).into_response()
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
async fn variant_response(b: Bundle, variant: Variant) -> Result<Response> {
    let json = looks_json(&b.definition);
    match variant {
        Variant::Json if !json => {
            let text = specpress_api::cpu::CpuGate::shared()
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
                [(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json; charset=utf-8"),
                )],
                text,
            )
                .into_response())
        }
        Variant::Yaml => Ok((
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/yaml; charset=utf-8"),
            )],
            b.definition,
        )
            .into_response()),
        _ => Ok(definition_response(b)),
    }
}

/// `GET /doc/{doc}[.json|.yaml]`.
#[instrument(skip_all)]
async fn doc_home(State(st): State<AppState>, Path(segment): Path<String>) -> Result<Response> {
    let (key, variant) = split_variant(&segment);
    let found = public::find_doc(st.store.as_ref(), key).await?;
    if let PublicDoc::Id(doc) = &found {
        let suffix = &segment[key.len()..];
        return Ok(canonical(doc, suffix));
    }
    let bundle = public::doc_definition(st.store.as_ref(), found.doc()).await?;
    variant_response(bundle, variant).await
}

/// `GET /doc/{doc}/changes/{version}`.
#[instrument(skip_all)]
async fn change(
    State(st): State<AppState>,
    Path((doc, version)): Path<(String, String)>,
) -> Result<Response> {
    let found = public::find_doc(st.store.as_ref(), &doc).await?;
    if let PublicDoc::Id(d) = &found {
        return Ok(canonical(d, &format!("/changes/{version}")));
    }
    let bundle =
        public::version_definition(st.store.as_ref(), found.doc(), &version, st.now()).await?;
    Ok(definition_response(bundle))
}

/// `GET /doc/{doc}/change/{version}`: the Bump.sh contract's singular form, redirected to `/changes/`.
async fn change_contract_form(
    State(st): State<AppState>,
    Path((doc, version)): Path<(String, String)>,
) -> Result<Response> {
    let found = public::find_doc(st.store.as_ref(), &doc).await?;
    Ok(canonical(found.doc(), &format!("/changes/{version}")))
}

/// `GET /doc/{doc}/versions/{version}/source`: a version's definition, exactly as deployed.
#[instrument(skip_all)]
async fn source(
    State(st): State<AppState>,
    Path((doc, version)): Path<(String, String)>,
) -> Result<Response> {
    let found = public::find_doc(st.store.as_ref(), &doc).await?;
    if let PublicDoc::Id(d) = &found {
        return Ok(canonical(d, &format!("/versions/{version}/source")));
    }
    let bundle =
        public::version_definition(st.store.as_ref(), found.doc(), &version, st.now()).await?;
    Ok(definition_response(bundle))
}

/// `GET /preview/{id}`: a live preview's definition.
#[instrument(skip_all)]
async fn preview(State(st): State<AppState>, Path(id): Path<String>) -> Result<Response> {
    let bundle = public::preview_definition(st.store.as_ref(), &id, st.now()).await?;
    let mut resp = definition_response(bundle);
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(resp)
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

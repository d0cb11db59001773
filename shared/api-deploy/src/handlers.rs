//! Thin handlers: extract, call one use case, map the result.

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::json;
use specpress_api::auth::{Auth, AuthToken, MaybeAuth};
use specpress_api::body::JsonBody;
use specpress_api::reader_settings::ReaderSettingsPatch;
use specpress_api::urls::{PublicBase, diff_public_url, doc_public_url, preview_public_url};
use specpress_api::{AppState, Result};
use specpress_domain::DomainError;
use specpress_domain::model::{Documentation, Preview, TryIt, Visibility};
use specpress_domain::usecases::deploy::{
    DeployInput, DeployOutcome, check_validation_target, deploy,
};
use specpress_domain::usecases::hostnames;
use specpress_domain::usecases::manage::{self, RotateTarget};
use specpress_domain::usecases::readers::{self, Target};
use specpress_domain::usecases::{previews, versions};
use tracing::instrument;

use crate::Engine;
use crate::dto::*;

/// `GET /ping`.
pub async fn ping() -> Json<serde_json::Value> {
    Json(json!({"pong": "And that's how ping-pong ball is bumped"}))
}

/// `POST /versions`: 201 new version, 204 unchanged.
#[instrument(skip_all)]
pub async fn create_version(
    State(st): State<AppState>,
    Extension(engine): Engine,
    PublicBase(base): PublicBase,
    Auth(p): Auth,
    JsonBody(mut req): JsonBody<DefinitionRequest>,
) -> Result<Response> {
    let input = DeployInput {
        bundle: req.bundle()?,
        documentation: req.documentation.unwrap_or_default(),
        hub: req.hub,
        documentation_name: req.documentation_name,
        auto_create: req.auto_create_documentation.unwrap_or(false),
        branch_name: req.branch_name,
        previous_version_id: req.previous_version_id,
        temporary: req.temporary.unwrap_or(false) || req.unpublished.unwrap_or(false),
    };
    match deploy(
        st.store.as_ref(),
        st.publisher.as_ref(),
        engine.as_ref(),
        &p,
        input,
        st.now(),
    )
    .await?
    {
        DeployOutcome::Created { version, doc } => {
            let body = VersionCreated {
                id: version.id.to_string(),
                doc_id: doc.id.to_string(),
                doc_name: doc.name.clone(),
                doc_slug: doc.slug.to_string(),
                doc_public_url: hostnames::doc_public_url(st.store.as_ref(), &base, &doc).await?,
            };
            Ok((StatusCode::CREATED, Json(body)).into_response())
        }
        DeployOutcome::Unchanged { .. } => Ok(StatusCode::NO_CONTENT.into_response()),
    }
}

/// `GET /versions/{id}`: the version and its diff (computed synchronously, so never 202).
#[instrument(skip_all)]
pub async fn get_version(
    State(st): State<AppState>,
    Extension(engine): Engine,
    PublicBase(base): PublicBase,
    Auth(p): Auth,
    Path(id): Path<String>,
) -> Result<Json<VersionOut>> {
    let view = versions::get_version(st.store.as_ref(), engine.as_ref(), &p, &id, st.now()).await?;
    let base = base.as_str();
    let (v, doc) = (&view.version, &view.doc);
    let diff = view.diff.filter(|d| !d.is_empty);
    let public_url = hostnames::doc_public_url(st.store.as_ref(), base, doc).await?;
    Ok(Json(VersionOut {
        id: v.id.to_string(),
        doc_id: doc.id.to_string(),
        doc_name: doc.name.clone(),
        doc_slug: doc.slug.to_string(),
        doc_public_url: public_url,
        branch_name: v.branch.to_string(),
        temporary: v.temporary,
        specification: v.analysis.specification.clone(),
        title: v.analysis.title.clone(),
        api_version: v.analysis.api_version.clone(),
        created_at: v.created_at,
        previous_version_id: v.previous_version_id.map(|p| p.to_string()),
        diff_public_url: diff
            .as_ref()
            .map(|_| diff_public_url(base, &doc.slug, v.id)),
        diff_summary: diff.as_ref().map(|d| d.text.clone()),
        diff_markdown: diff.as_ref().map(|d| d.markdown.clone()),
        diff_breaking: diff.as_ref().map(|d| d.breaking),
        diff_details: diff.map(|d| d.details),
    }))
}

/// `POST /validations`: exactly 200 `{specification}` for a valid document, 422 otherwise. Auth is optional; with a
/// token, the `documentation` (and `hub`) named must be within its reach, or one a deploy with it would auto-create,
/// else 404 as a deploy would answer (docs/auth.md).
#[instrument(skip_all)]
pub async fn validate(
    State(st): State<AppState>,
    Extension(engine): Engine,
    MaybeAuth(p): MaybeAuth,
    JsonBody(mut req): JsonBody<DefinitionRequest>,
) -> Result<Json<Validation>> {
    if let Some(p) = &p {
        check_validation_target(
            st.store.as_ref(),
            p,
            req.documentation.as_deref(),
            req.hub.as_deref(),
            st.now(),
        )
        .await?;
    }
    let analysis = previews::validate(engine.as_ref(), &req.bundle()?).await?;
    Ok(Json(Validation {
        specification: analysis.specification,
    }))
}

fn preview_out(base: &str, p: &Preview) -> PreviewOut {
    PreviewOut {
        id: p.id.to_string(),
        expires_at: p.expires_at,
        public_url: preview_public_url(base, p.id),
    }
}

/// `POST /previews`: 201.
#[instrument(skip_all)]
pub async fn create_preview(
    State(st): State<AppState>,
    Extension(engine): Engine,
    PublicBase(base): PublicBase,
    JsonBody(mut req): JsonBody<DefinitionRequest>,
) -> Result<(StatusCode, Json<PreviewOut>)> {
    let p = previews::create_preview(st.store.as_ref(), engine.as_ref(), &req.bundle()?, st.now())
        .await?;
    Ok((StatusCode::CREATED, Json(preview_out(&base, &p))))
}

/// `PUT /previews/{id}`: 200.
#[instrument(skip_all)]
pub async fn update_preview(
    State(st): State<AppState>,
    Extension(engine): Engine,
    PublicBase(base): PublicBase,
    Path(id): Path<String>,
    JsonBody(mut req): JsonBody<DefinitionRequest>,
) -> Result<Json<PreviewOut>> {
    let p = previews::update_preview(
        st.store.as_ref(),
        engine.as_ref(),
        &id,
        &req.bundle()?,
        st.now(),
    )
    .await?;
    Ok(Json(preview_out(&base, &p)))
}

fn required_name(req: &CreateRequest) -> Result<&str> {
    req.name
        .as_deref()
        .ok_or_else(|| DomainError::invalid("name", "name is required").into())
}

/// The `visibility` of a creation: public when absent.
fn visibility_of(v: Option<&str>) -> Result<Visibility> {
    match v {
        None => Ok(Visibility::Public),
        Some(v) => Ok(Visibility::parse("visibility", v)?),
    }
}

/// A setting sent as `null`: a 422 naming it (leaving a member out keeps the setting; `null` is no value of it).
fn not_null<'a>(field: &str, value: &'a Option<String>) -> Result<&'a str> {
    value
        .as_deref()
        .ok_or_else(|| DomainError::invalid(field, format!("{field} cannot be null")).into())
}

/// What a documentation's `PATCH` sets: `visibility`, `try_it`, `sso_readers`, `embed_origins`, any of them; at
/// least one (an empty body is a 422, never a silent no-op). All are checked before anything is changed.
fn doc_changes(
    req: &UpdateRequest,
) -> Result<(Option<Visibility>, Option<TryIt>, ReaderSettingsPatch)> {
    let visibility = match &req.visibility {
        None => None,
        Some(v) => Some(Visibility::parse("visibility", not_null("visibility", v)?)?),
    };
    let try_it = match &req.try_it {
        None => None,
        Some(v) => Some(TryIt::parse("try_it", not_null("try_it", v)?)?),
    };
    let readers = ReaderSettingsPatch::parse(req.sso_readers.as_ref(), req.embed_origins.as_ref())?;
    if visibility.is_none() && try_it.is_none() && readers.is_empty() {
        return Err(DomainError::invalid(
            "visibility",
            "visibility (\"public\" or \"private\"), try_it (\"off\", \"direct\" or \"proxy\"), sso_readers (true or false) or embed_origins (a list of https origins) is required",
        )
        .into());
    }
    Ok((visibility, try_it, readers))
}

/// `POST /hubs` (organization token): 201 `{id, slug, name, token}`.
#[instrument(skip_all)]
pub async fn create_hub(
    State(st): State<AppState>,
    Auth(p): Auth,
    JsonBody(req): JsonBody<CreateRequest>,
) -> Result<(StatusCode, Json<Created>)> {
    let (hub, token) = manage::create_hub(
        st.store.as_ref(),
        &p,
        required_name(&req)?,
        req.slug.as_deref(),
        req.description.as_deref(),
        visibility_of(req.visibility.as_deref())?,
        st.now(),
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(Created {
            id: hub.id.to_string(),
            slug: hub.slug.to_string(),
            name: hub.name,
            token: token.secret,
            hub_id: None,
            doc_public_url: None,
            visibility: hub.visibility.as_str(),
        }),
    ))
}

/// `POST /docs` (organization token): 201 `{id, slug, name, token}`.
#[instrument(skip_all)]
pub async fn create_doc(
    State(st): State<AppState>,
    PublicBase(base): PublicBase,
    Auth(p): Auth,
    JsonBody(req): JsonBody<CreateRequest>,
) -> Result<(StatusCode, Json<Created>)> {
    let (doc, token) = manage::create_doc(
        st.store.as_ref(),
        &p,
        required_name(&req)?,
        req.slug.as_deref(),
        req.hub.as_deref(),
        visibility_of(req.visibility.as_deref())?,
        st.now(),
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(Created {
            id: doc.id.to_string(),
            slug: doc.slug.to_string(),
            doc_public_url: Some(doc_public_url(&base, &doc.slug)),
            name: doc.name,
            token: token.secret,
            hub_id: doc.hub_id.map(|h| h.to_string()),
            visibility: doc.visibility.as_str(),
        }),
    ))
}

fn doc_out(base: &str, d: Documentation, effective: Visibility) -> DocOut {
    DocOut {
        effective_visibility: effective.as_str(),
        id: d.id.to_string(),
        slug: d.slug.to_string(),
        doc_public_url: doc_public_url(base, &d.slug),
        name: d.name,
        hub_id: d.hub_id.map(|h| h.to_string()),
        default_branch: d.default_branch.to_string(),
        visibility: d.visibility.as_str(),
        try_it: d.try_it.as_str(),
        readers: None,
        created_at: d.created_at,
        modified_at: d.modified_at,
    }
}

/// `GET /docs/{doc}`: one documentation (any token that reaches it).
#[instrument(skip_all)]
pub async fn get_doc(
    State(st): State<AppState>,
    PublicBase(base): PublicBase,
    Auth(p): Auth,
    Path(doc): Path<String>,
) -> Result<Json<DocOut>> {
    let d = manage::get_doc(st.store.as_ref(), &p, &doc).await?;
    let effective = manage::effective_visibility(st.store.as_ref(), &d).await?;
    let settings = readers::reader_settings(st.store.as_ref(), &p, Target::Doc(&doc)).await?;
    let public_url = hostnames::doc_public_url(st.store.as_ref(), &base, &d).await?;
    let mut out = DocOut {
        doc_public_url: public_url,
        ..doc_out(&base, d, effective)
    };
    out.readers = Some(settings.into());
    Ok(Json(out))
}

/// `PATCH /docs/{doc}` `{"visibility": "public" | "private", "try_it": "off" | "direct" | "proxy", "sso_readers": bool,
/// "embed_origins": ["https://..."]}` (any of them; organization token, or its hub's token): 200 the documentation as
/// changed, with its reader settings.
#[instrument(skip_all)]
pub async fn update_doc(
    State(st): State<AppState>,
    PublicBase(base): PublicBase,
    Auth(p): Auth,
    Path(doc): Path<String>,
    JsonBody(req): JsonBody<UpdateRequest>,
) -> Result<Json<DocOut>> {
    let (visibility, try_it, reader_changes) = doc_changes(&req)?;
    let mut d = manage::get_doc(st.store.as_ref(), &p, &doc).await?;
    // Reader settings first: the use case refuses a documentation token (403) before anything else is changed.
    let settings = if reader_changes.is_empty() {
        readers::reader_settings(st.store.as_ref(), &p, Target::Doc(&doc)).await?
    } else {
        reader_changes
            .apply(st.store.as_ref(), &p, Target::Doc(&doc), st.now())
            .await?
    };
    if let Some(v) = visibility {
        d = manage::set_doc_visibility(st.store.as_ref(), &p, &doc, v, st.now()).await?;
    }
    if let Some(t) = try_it {
        d = manage::set_doc_try_it(st.store.as_ref(), &p, &doc, t, st.now()).await?;
    }
    let effective = manage::effective_visibility(st.store.as_ref(), &d).await?;
    let mut out = doc_out(&base, d, effective);
    out.readers = Some(settings.into());
    Ok(Json(out))
}

/// `GET /docs[?hub=]` (organization token).
#[instrument(skip_all)]
pub async fn list_docs(
    State(st): State<AppState>,
    PublicBase(base): PublicBase,
    Auth(p): Auth,
    Query(q): Query<ListQuery>,
    list: specpress_api::pagination::ListRequest,
) -> Result<axum::response::Response> {
    let docs = manage::list_docs(st.store.as_ref(), &p, q.hub.as_deref()).await?;
    let effective = manage::effective_visibilities(st.store.as_ref(), p.org_id, &docs).await?;
    let items: Vec<DocOut> = docs
        .into_iter()
        .zip(effective)
        .map(|(d, e)| doc_out(&base, d, e))
        .collect();
    // Cursors are bound to the organization and the hub filter (a cursor of one list is refused by another).
    let scope = format!("docs:{}:{}", p.org_id, q.hub.as_deref().unwrap_or("*"));
    specpress_api::pagination::paginate(&list, &scope, items, |d| d.slug.clone())
}

async fn rotate(
    st: &AppState,
    AuthToken(p, caller): &AuthToken,
    t: RotateTarget<'_>,
) -> Result<Json<RotatedToken>> {
    let token = manage::rotate_token(st.store.as_ref(), p, caller, t, st.now()).await?;
    Ok(Json(RotatedToken {
        token: token.secret,
    }))
}

/// `POST /hubs/{hub}/rotate_token`.
#[instrument(skip_all)]
pub async fn rotate_hub_token(
    State(st): State<AppState>,
    auth: AuthToken,
    Path(hub): Path<String>,
) -> Result<Json<RotatedToken>> {
    rotate(&st, &auth, RotateTarget::Hub(&hub)).await
}

/// `POST /docs/{doc}/rotate_token`.
#[instrument(skip_all)]
pub async fn rotate_doc_token(
    State(st): State<AppState>,
    auth: AuthToken,
    Path(doc): Path<String>,
) -> Result<Json<RotatedToken>> {
    rotate(&st, &auth, RotateTarget::Doc(&doc)).await
}

/// `POST /org/rotate_token`: replaces the organization token used for the call.
#[instrument(skip_all)]
pub async fn rotate_org_token(
    State(st): State<AppState>,
    auth: AuthToken,
) -> Result<Json<RotatedToken>> {
    rotate(&st, &auth, RotateTarget::Org).await
}

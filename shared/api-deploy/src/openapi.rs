//! `GET /openapi.json` and `/openapi.yaml`: Specpress's own API description (`specpress-openapi`), with `servers`
//! naming this server's public base. No token needed.

use axum::http::header;
use axum::response::{IntoResponse, Response};
use specpress_api::Result;
use specpress_api::urls::PublicBase;
use specpress_domain::DomainError;

/// `GET /openapi.json`.
pub async fn json(PublicBase(base): PublicBase) -> Result<Response> {
    let doc = specpress_openapi::json(&specpress_openapi::api_base(&base))
        .map_err(DomainError::unexpected)?;
    Ok(axum::Json(doc).into_response())
}

/// `GET /openapi.yaml`.
pub async fn yaml(PublicBase(base): PublicBase) -> Response {
    (
        [(header::CONTENT_TYPE, "application/yaml; charset=utf-8")],
        specpress_openapi::yaml(&specpress_openapi::api_base(&base)),
    )
        .into_response()
}

//! A page that cannot be shown, and the answer it becomes: handlers return [`Page`] and use `?` on the reader
//! layer's failures, which carry everything their answer needs (the error page is in the site's shell, whose asset
//! URLs are the process's one handle, [`crate::assets::urls`]).

use std::borrow::Cow;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use specpress_domain::DomainError;
use specpress_reader::{Missing, ReadError};

use crate::assets::error_page;

/// Why a page is not the one asked for.
#[derive(Debug)]
pub enum PageError {
    /// What the reader asked for is not there, or not for this reader: the reader layer's 404 page.
    Missing(Missing),
    /// A 404 page in its own words (a changelog's page number, a preview's page).
    NotFound {
        title: &'static str,
        message: Cow<'static, str>,
    },
    /// The service failed: the generic 500 page (details logged).
    Failed(DomainError),
    /// A read behind a form for machines (`.json`, `.yaml`, a version's source) gave no answer: JSON in the API's
    /// shape, `{message}`.
    Json(ReadError),
    /// Not an error: the answer is already made (a redirect to where the page lives, a 304).
    Answered(Box<Response>),
}

/// A page, or why not.
pub type Page = Result<Response, PageError>;

impl PageError {
    /// A 404 page in its own words.
    pub fn not_found(title: &'static str, message: impl Into<Cow<'static, str>>) -> Self {
        PageError::NotFound {
            title,
            message: message.into(),
        }
    }

    /// The answer already made ([`PageError::Answered`]).
    pub fn answered(r: Response) -> Self {
        PageError::Answered(Box::new(r))
    }

    /// A failed read behind a form for machines (answered as JSON).
    pub fn json(e: impl Into<ReadError>) -> Self {
        PageError::Json(e.into())
    }
}

impl From<ReadError> for PageError {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Missing(m) => PageError::Missing(m),
            ReadError::Failed(e) => PageError::Failed(e),
        }
    }
}

impl From<DomainError> for PageError {
    fn from(e: DomainError) -> Self {
        PageError::Failed(e)
    }
}

impl From<Missing> for PageError {
    fn from(m: Missing) -> Self {
        PageError::Missing(m)
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        match self {
            PageError::Missing(m) => error_page(StatusCode::NOT_FOUND, m.title(), m.message()),
            PageError::NotFound { title, message } => {
                error_page(StatusCode::NOT_FOUND, title, &message)
            }
            PageError::Failed(e) => {
                tracing::error!(error = %e, "public page failed");
                error_page(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Something went wrong",
                    "This page could not be shown. Try again in a moment.",
                )
            }
            PageError::Json(e) => {
                specpress_api::ApiError::from(DomainError::from(e)).into_response()
            }
            PageError::Answered(r) => *r,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_page_is_a_404_page_a_failure_a_500_page_and_a_machine_form_json() {
        let r = PageError::from(ReadError::Missing(Missing::Page)).into_response();
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
        assert_eq!(r.headers()["content-type"], "text/html; charset=utf-8");
        let r = PageError::from(DomainError::unexpected("boom")).into_response();
        assert_eq!(r.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let r = PageError::json(Missing::Version).into_response();
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
        assert!(
            r.headers()["content-type"]
                .to_str()
                .is_ok_and(|c| c.starts_with("application/json"))
        );
    }
}

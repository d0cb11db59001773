//! Request and response bodies (bump-api.md §3). Unknown request fields are ignored, as the contract's legacy
//! fields (`specification`, `validation`, `url`) must be accepted.

use serde::{Deserialize, Serialize};
use specpress_domain::DomainError;
use specpress_domain::model::{Bundle, Reference};

/// One `references` entry.
#[derive(Debug, Deserialize)]
pub struct ReferenceIn {
    pub location: Option<String>,
    pub content: Option<String>,
    pub name: Option<String>,
}

/// `POST /versions`, `POST /validations`, `POST /previews`, `PUT /previews/{id}` bodies (the union of their fields).
#[derive(Debug, Deserialize, Default)]
pub struct DefinitionRequest {
    pub documentation: Option<String>,
    pub hub: Option<String>,
    pub documentation_name: Option<String>,
    pub auto_create_documentation: Option<bool>,
    pub definition: Option<String>,
    pub url: Option<String>,
    pub references: Option<Vec<ReferenceIn>>,
    pub branch_name: Option<String>,
    pub previous_version_id: Option<String>,
    pub temporary: Option<bool>,
    pub unpublished: Option<bool>,
}

impl DefinitionRequest {
    /// The definition and references, or a 422 naming what is missing.
    pub fn bundle(&mut self) -> Result<Bundle, DomainError> {
        let definition = match self.definition.take() {
            Some(d) if !d.trim().is_empty() => d,
            _ if self.url.is_some() => {
                return Err(DomainError::invalid(
                    "definition",
                    "definition is required: deploying from a url is not supported, send the document text",
                ));
            }
            _ => return Err(DomainError::invalid("definition", "definition is required")),
        };
        let mut references = Vec::new();
        for (i, r) in self
            .references
            .take()
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            match (r.location, r.content) {
                (Some(location), Some(content)) if !location.is_empty() => {
                    references.push(Reference {
                        location,
                        content,
                        name: r.name,
                    })
                }
                _ => {
                    return Err(DomainError::invalid(
                        "references",
                        format!("references[{i}] needs a non-empty location and a content"),
                    ));
                }
            }
        }
        Ok(Bundle {
            definition,
            references,
        })
    }
}

/// 201 of `POST /versions`.
#[derive(Debug, Serialize)]
pub struct VersionCreated {
    pub id: String,
    pub doc_id: String,
    pub doc_name: String,
    pub doc_slug: String,
    pub doc_public_url: String,
}

/// 200 of `GET /versions/{id}`.
#[derive(Debug, Serialize)]
pub struct VersionOut {
    pub id: String,
    pub doc_id: String,
    pub doc_name: String,
    pub doc_slug: String,
    pub doc_public_url: String,
    pub branch_name: String,
    pub temporary: bool,
    pub specification: String,
    pub title: String,
    pub api_version: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: time::OffsetDateTime,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_version_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_markdown: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_details: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_breaking: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_public_url: Option<String>,
}

/// 200 of `POST /validations`.
#[derive(Debug, Serialize)]
pub struct Validation {
    pub specification: String,
}

/// 201/200 of the preview endpoints.
#[derive(Debug, Serialize)]
pub struct PreviewOut {
    pub id: String,
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: time::OffsetDateTime,
    pub public_url: String,
}

/// `POST /hubs` and `POST /docs` bodies.
#[derive(Debug, Deserialize)]
pub struct CreateRequest {
    pub name: Option<String>,
    pub slug: Option<String>,
    pub description: Option<String>,
    pub hub: Option<String>,
    /// `public` (default) or `private`.
    pub visibility: Option<String>,
}

/// `PATCH /docs/{doc}` body (also `PATCH /hubs/{hub}`'s): what changes. Unknown fields are refused (422), so a
/// misspelled setting is never silently ignored.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateRequest {
    /// `public` or `private`; `Some(None)` when the body sent `null` (refused: the schema allows no `null`).
    #[serde(default, deserialize_with = "present")]
    pub visibility: Option<Option<String>>,
    /// `off`, `direct` or `proxy` (documentations only: `PATCH /hubs/{hub}` has its own body); `Some(None)` for
    /// `null`, as above.
    #[serde(default, deserialize_with = "present")]
    pub try_it: Option<Option<String>>,
    /// `true` or `false`: readers signed in through the organization's OpenID provider may read it while private.
    #[serde(default, deserialize_with = "specpress_api::reader_settings::present")]
    pub sso_readers: Option<serde_json::Value>,
    /// The https origins that may frame its pages in embed mode (at most 20; `[]` for none).
    #[serde(default, deserialize_with = "specpress_api::reader_settings::present")]
    pub embed_origins: Option<serde_json::Value>,
}

/// A member that is present, even as `null`, is `Some` (absent is `None`, by `default`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// 201 of `POST /hubs` and `POST /docs`: the token is shown here only.
#[derive(Debug, Serialize)]
pub struct Created {
    pub id: String,
    pub slug: String,
    pub name: String,
    pub token: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hub_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc_public_url: Option<String>,
    pub visibility: &'static str,
}

/// One entry of `GET /docs`.
#[derive(Debug, Serialize)]
pub struct DocOut {
    pub id: String,
    pub slug: String,
    pub name: String,
    pub hub_id: Option<String>,
    pub default_branch: String,
    pub doc_public_url: String,
    /// `public` or `private` (the documentation's own setting; a private hub makes it private as well).
    pub visibility: &'static str,
    /// What readers meet: `private` when the documentation or its hub is private, else `public`.
    pub effective_visibility: &'static str,
    /// Whether readers may send requests from its operation pages: `off` (default), `direct` or `proxy`.
    pub try_it: &'static str,
    /// `sso_readers` and `embed_origins` (one documentation's `GET` and `PATCH`; not in lists).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub readers: Option<specpress_api::reader_settings::ReaderSettingsOut>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: time::OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub modified_at: time::OffsetDateTime,
}

/// `GET /docs` query.
#[derive(Debug, Deserialize)]
pub struct ListQuery {
    pub hub: Option<String>,
}

/// 200 of token rotation.
#[derive(Debug, Serialize)]
pub struct RotatedToken {
    pub token: String,
}

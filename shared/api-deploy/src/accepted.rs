//! `GET` and `PUT /docs/{doc}/accepted_changes`: a documentation's accepted changes (docs/accepted-changes.md).
//!
//! `PUT {changes: [{id, reason, expires_at?}]}` replaces the set (an empty list clears it) and answers it as `GET`
//! does: `{changes: [{id, reason, accepted_at, expires_at, expired}]}`. Any token that reaches the documentation (its
//! own, its hub's, its organization's); 401 without one, 404 for a documentation out of its reach; 422
//! `{message, errors}` naming the first entry at fault (`changes[2].reason`).

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use specpress_api::auth::Auth;
use specpress_api::body::JsonBody;
use specpress_api::{AppState, Result};
use specpress_domain::DomainError;
use specpress_domain::accepted::{AcceptedChanges, AcceptedInput};
use specpress_domain::usecases::accepted as uc;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use tracing::instrument;

/// One entry of a `PUT` body.
#[derive(Debug, Deserialize)]
pub struct EntryIn {
    id: Option<String>,
    reason: Option<String>,
    expires_at: Option<String>,
}

/// The `PUT` body.
#[derive(Debug, Deserialize)]
pub struct AcceptedIn {
    changes: Option<Vec<EntryIn>>,
}

/// One entry as answered.
#[derive(Debug, Serialize)]
pub struct EntryOut {
    id: String,
    reason: String,
    accepted_at: String,
    expires_at: Option<String>,
    /// The acceptance has expired: the change fails CI again.
    expired: bool,
}

/// The answer of both routes.
#[derive(Debug, Serialize)]
pub struct AcceptedOut {
    changes: Vec<EntryOut>,
}

fn rfc3339(t: OffsetDateTime) -> String {
    t.format(&Rfc3339).unwrap_or_default()
}

fn out(set: AcceptedChanges, now: OffsetDateTime) -> AcceptedOut {
    AcceptedOut {
        changes: set
            .changes
            .into_iter()
            .map(|c| EntryOut {
                expired: c.expired(now),
                id: c.id,
                reason: c.reason,
                accepted_at: rfc3339(c.accepted_at),
                expires_at: c.expires_at.map(rfc3339),
            })
            .collect(),
    }
}

/// `GET /docs/{doc}/accepted_changes`.
#[instrument(skip_all)]
pub async fn get(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path(doc): Path<String>,
) -> Result<Json<AcceptedOut>> {
    let (_, set) = uc::get_accepted(st.store.as_ref(), &p, &doc).await?;
    Ok(Json(out(set, st.now())))
}

/// `PUT /docs/{doc}/accepted_changes`.
#[instrument(skip_all)]
pub async fn put(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path(doc): Path<String>,
    JsonBody(req): JsonBody<AcceptedIn>,
) -> Result<Json<AcceptedOut>> {
    let entries = req.changes.ok_or_else(|| {
        DomainError::invalid(
            "changes",
            "changes is required: the list of accepted changes ([] clears it)",
        )
    })?;
    let input = entries
        .into_iter()
        .map(|e| AcceptedInput {
            id: e.id,
            reason: e.reason,
            expires_at: e.expires_at,
        })
        .collect();
    let now = st.now();
    let (_, set) = uc::put_accepted(st.store.as_ref(), &p, &doc, input, now).await?;
    Ok(Json(out(set, now)))
}

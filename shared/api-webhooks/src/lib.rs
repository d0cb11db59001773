//! The webhook subscription routes (docs/webhooks.md), served by the webhooks function. Documentation, hub and
//! organization tokens manage the webhooks of the documentations they reach.
//!
//! - `POST   /api/v1/docs/{doc}/webhooks` `{url, description?, branches?}`: 201 with the secret (shown only here
//!   and on rotation).
//! - `GET    /api/v1/docs/{doc}/webhooks`: paginated list.
//! - `GET | PATCH | PUT | DELETE /api/v1/docs/{doc}/webhooks/{id}`: read, update (`url`, `description`, `branches`,
//!   `enabled`), delete (204).
//! - `POST   /api/v1/docs/{doc}/webhooks/{id}/rotate_secret`: a new secret; the previous one signs for 24 h more.
//! - `POST   /api/v1/docs/{doc}/webhooks/{id}/test`: queues a `ping` (202 with the delivery).
//! - `GET    /api/v1/docs/{doc}/webhooks/{id}/deliveries`: paginated delivery log, newest first.
//! - `POST   /api/v1/docs/{doc}/webhooks/{id}/deliveries/{delivery}/redeliver`: re-sends a finished delivery (202).
//!
//! The same routes under `/api/v1/hubs/{hub}` manage a hub's subscriptions (hub or organization tokens), which
//! receive the events of every documentation of the hub. Bodies take `filter` and `format` (issue 38).

use axum::Router;
use axum::extract::{Extension, Path};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use specpress_api::auth::Auth;
use specpress_api::body::JsonBody;
use specpress_api::pagination::{ListRequest, paginate};
use specpress_api::{ApiError, AppState};
use specpress_domain::DomainError;
use specpress_domain::notify::Filter;
use specpress_domain::usecases::delivery::DeliveryService;
use specpress_domain::usecases::webhooks as uc;
use specpress_domain::webhooks::{Attempt, Delivery, DeliveryStatus, Format, Subscription};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// The subscriptions routes. `service` carries the queue, the sender (URL checks) and the secret sealer.
pub fn router(state: AppState, service: DeliveryService) -> Router {
    let api = Router::new()
        .merge(routes("/docs/{doc}").layer(Extension(Whose::Doc)))
        .merge(routes("/hubs/{hub}").layer(Extension(Whose::Hub)))
        .layer(Extension(service));
    Router::new().nest("/api/v1", api).with_state(state)
}

/// The same routes under a documentation (`/docs/{doc}`) or a hub (`/hubs/{hub}`).
fn routes(base: &str) -> Router<AppState> {
    Router::new()
        .route(&format!("{base}/webhooks"), post(create).get(list))
        .route(
            &format!("{base}/webhooks/{{id}}"),
            get(show).patch(update).put(update).delete(remove),
        )
        .route(
            &format!("{base}/webhooks/{{id}}/rotate_secret"),
            post(rotate_secret),
        )
        .route(&format!("{base}/webhooks/{{id}}/test"), post(test))
        .route(
            &format!("{base}/webhooks/{{id}}/deliveries"),
            get(deliveries),
        )
        .route(
            &format!("{base}/webhooks/{{id}}/deliveries/{{delivery}}/redeliver"),
            post(redeliver),
        )
}

/// Whose webhooks a route serves.
#[derive(Debug, Clone, Copy)]
enum Whose {
    Doc,
    Hub,
}

impl Whose {
    fn of(self, key: &str) -> uc::Owner<'_> {
        match self {
            Whose::Doc => uc::Owner::Doc(key),
            Whose::Hub => uc::Owner::Hub(key),
        }
    }
}

fn rfc3339(t: OffsetDateTime) -> String {
    t.format(&Rfc3339).unwrap_or_default()
}

/// A subscription as the API shows it.
#[derive(Debug, Serialize)]
pub struct SubscriptionJson {
    id: String,
    url: String,
    description: Option<String>,
    branches: Vec<String>,
    filter: Filter,
    format: Format,
    enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    disabled_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    secret: Option<String>,
    created_at: String,
    updated_at: String,
}

fn sub_json(s: &Subscription, secret: Option<String>) -> SubscriptionJson {
    SubscriptionJson {
        id: s.id.to_string(),
        url: s.url.clone(),
        description: s.description.clone(),
        branches: s.branches.clone(),
        filter: s.filter.clone(),
        format: s.format,
        enabled: s.enabled,
        disabled_reason: s.disabled_reason.clone(),
        secret,
        created_at: rfc3339(s.created_at),
        updated_at: rfc3339(s.updated_at),
    }
}

/// One attempt in the delivery log.
#[derive(Debug, Serialize)]
pub struct AttemptJson {
    number: u32,
    at: String,
    status_code: Option<u16>,
    error: Option<String>,
    latency_ms: u64,
    response: Option<String>,
}

/// A delivery as the API shows it.
#[derive(Debug, Serialize)]
pub struct DeliveryJson {
    id: String,
    event: String,
    event_id: Option<String>,
    webhook_id: String,
    status: DeliveryStatus,
    attempt_count: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_attempt_at: Option<String>,
    created_at: String,
    updated_at: String,
    attempts: Vec<AttemptJson>,
}

fn attempt_json(a: &Attempt) -> AttemptJson {
    AttemptJson {
        number: a.number,
        at: rfc3339(a.at),
        status_code: a.status_code,
        error: a.error.clone(),
        latency_ms: a.latency_ms,
        response: a.response.clone(),
    }
}

fn delivery_json(d: &Delivery) -> DeliveryJson {
    DeliveryJson {
        id: d.id.to_string(),
        event: d.kind.clone(),
        event_id: d.event_id.map(|e| e.to_string()),
        webhook_id: d.webhook_id.clone(),
        status: d.status,
        attempt_count: d.attempt_count,
        next_attempt_at: (d.status == DeliveryStatus::Pending).then(|| rfc3339(d.next_attempt_at)),
        created_at: rfc3339(d.created_at),
        updated_at: rfc3339(d.updated_at),
        attempts: d.attempts.iter().map(attempt_json).collect(),
    }
}

/// `POST /docs/{doc}/webhooks` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    url: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    branches: Option<Vec<String>>,
    #[serde(default)]
    filter: Option<serde_json::Value>,
    #[serde(default)]
    format: Option<String>,
}

/// A request's `filter`, read into the domain's (a bad pattern or bound is a 422 naming `filter`).
fn filter_of(v: Option<serde_json::Value>) -> Result<Option<Filter>, ApiError> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    serde_json::from_value(v)
        .map(Some)
        .map_err(|e| DomainError::invalid("filter", format!("filter: {e}")).into())
}

/// `PATCH /docs/{doc}/webhooks/{id}` body. An empty `description` clears it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    branches: Option<Vec<String>>,
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    filter: Option<serde_json::Value>,
    #[serde(default)]
    format: Option<String>,
}

#[tracing::instrument(skip_all)]
async fn create(
    Extension(svc): Extension<DeliveryService>,
    Extension(whose): Extension<Whose>,
    Auth(p): Auth,
    Path(doc): Path<String>,
    JsonBody(body): JsonBody<CreateBody>,
) -> Result<Response, ApiError> {
    let input = uc::CreateSubscription {
        url: body.url,
        description: body.description,
        branches: body.branches,
        filter: filter_of(body.filter)?,
        format: body.format,
    };
    let v = uc::create(&svc, &p, whose.of(&doc), input).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(sub_json(&v.subscription, v.secret)),
    )
        .into_response())
}

#[tracing::instrument(skip_all)]
async fn list(
    Extension(svc): Extension<DeliveryService>,
    Extension(whose): Extension<Whose>,
    Auth(p): Auth,
    Path(doc): Path<String>,
    req: ListRequest,
) -> Result<Response, ApiError> {
    let subs = uc::list(&svc, &p, whose.of(&doc)).await?;
    let scope = format!(
        "webhooks:{}",
        subs.first().map(|s| s.doc_id.to_string()).unwrap_or(doc)
    );
    let items: Vec<(String, SubscriptionJson)> = subs
        .iter()
        .map(|s| {
            (
                format!(
                    "{:024}#{}",
                    s.created_at.unix_timestamp_nanos().max(0),
                    s.id
                ),
                sub_json(s, None),
            )
        })
        .collect();
    page_of(&req, &scope, items)
}

/// Paginates `(sort key, item)` pairs and answers the items.
fn page_of<T: Serialize>(
    req: &ListRequest,
    scope: &str,
    items: Vec<(String, T)>,
) -> Result<Response, ApiError> {
    #[derive(Serialize)]
    #[serde(transparent)]
    struct Keyed<T: Serialize> {
        #[serde(skip)]
        key: String,
        item: T,
    }
    // `serde(transparent)` needs exactly one serialized field; the key is skipped.
    let keyed: Vec<Keyed<T>> = items
        .into_iter()
        .map(|(key, item)| Keyed { key, item })
        .collect();
    paginate(req, scope, keyed, |k| k.key.clone())
}

#[tracing::instrument(skip_all)]
async fn show(
    Extension(svc): Extension<DeliveryService>,
    Extension(whose): Extension<Whose>,
    Auth(p): Auth,
    Path((doc, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let s = uc::get(&svc, &p, whose.of(&doc), &id).await?;
    Ok(axum::Json(sub_json(&s, None)).into_response())
}

#[tracing::instrument(skip_all)]
async fn update(
    Extension(svc): Extension<DeliveryService>,
    Extension(whose): Extension<Whose>,
    Auth(p): Auth,
    Path((doc, id)): Path<(String, String)>,
    JsonBody(body): JsonBody<UpdateBody>,
) -> Result<Response, ApiError> {
    let input = uc::UpdateSubscription {
        url: body.url,
        description: body
            .description
            .map(|d| Some(d).filter(|d| !d.trim().is_empty())),
        branches: body.branches,
        enabled: body.enabled,
        filter: filter_of(body.filter)?,
        format: body.format,
    };
    let s = uc::update(&svc, &p, whose.of(&doc), &id, input).await?;
    Ok(axum::Json(sub_json(&s, None)).into_response())
}

#[tracing::instrument(skip_all)]
async fn remove(
    Extension(svc): Extension<DeliveryService>,
    Extension(whose): Extension<Whose>,
    Auth(p): Auth,
    Path((doc, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    uc::delete(&svc, &p, whose.of(&doc), &id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

#[tracing::instrument(skip_all)]
async fn rotate_secret(
    Extension(svc): Extension<DeliveryService>,
    Extension(whose): Extension<Whose>,
    Auth(p): Auth,
    Path((doc, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let v = uc::rotate_secret(&svc, &p, whose.of(&doc), &id).await?;
    Ok(axum::Json(sub_json(&v.subscription, v.secret)).into_response())
}

#[tracing::instrument(skip_all)]
async fn test(
    Extension(svc): Extension<DeliveryService>,
    Extension(whose): Extension<Whose>,
    Auth(p): Auth,
    Path((doc, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let d = uc::test(&svc, &p, whose.of(&doc), &id).await?;
    Ok((StatusCode::ACCEPTED, axum::Json(delivery_json(&d))).into_response())
}

#[tracing::instrument(skip_all)]
async fn deliveries(
    Extension(svc): Extension<DeliveryService>,
    Extension(whose): Extension<Whose>,
    Auth(p): Auth,
    Path((doc, id)): Path<(String, String)>,
    req: ListRequest,
) -> Result<Response, ApiError> {
    let list = uc::deliveries(&svc, &p, whose.of(&doc), &id).await?;
    let items: Vec<(String, DeliveryJson)> = list
        .iter()
        .map(|d| {
            // Newest first: invert the creation time so the ascending key order is newest first.
            let inverted = i128::MAX - d.created_at.unix_timestamp_nanos().max(0);
            (format!("{inverted:040}#{}", d.id), delivery_json(d))
        })
        .collect();
    page_of(&req, &format!("deliveries:{id}"), items)
}

#[tracing::instrument(skip_all)]
async fn redeliver(
    Extension(svc): Extension<DeliveryService>,
    Extension(whose): Extension<Whose>,
    Auth(p): Auth,
    Path((doc, id, delivery)): Path<(String, String, String)>,
) -> Result<Response, ApiError> {
    let d = uc::redeliver(&svc, &p, whose.of(&doc), &id, &delivery).await?;
    Ok((StatusCode::ACCEPTED, axum::Json(delivery_json(&d))).into_response())
}

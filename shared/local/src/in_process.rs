//! The in-process transport of the embedded engine: an `aws-sdk-dynamodb` HTTP client that hands each request
//! straight to dynoxide's [`dynoxide::Database`] instead of sending it over TCP to dynoxide's HTTP server.
//!
//! The store keeps the very same SDK code path as against AWS (request serialization, retries, response and error
//! parsing); only the wire is replaced, and the client sends its requests unsigned (see
//! [`Embedded::in_process_client`](crate::embedded::Embedded::in_process_client)). Each request's `x-amz-target`
//! names the operation, its JSON body is decoded into dynoxide's own request type, the matching public `Database`
//! method runs, and the response (or the error, as DynamoDB's error JSON: `__type`, `message`/`Message`,
//! `CancellationReasons` for a cancelled transaction, `Item` for a failed condition that returns it) goes back with
//! the status dynoxide's server would answer with. Skipped: loopback TCP, hyper on both ends, axum, and dynoxide's
//! extra parses of the body.
//!
//! Served: the item, query/scan, batch, transaction, table, TTL and tag operations. PartiQL and Streams (which the
//! store never uses) are answered with `UnknownOperationException`. What the HTTP server does that this does not:
//! its checks of the HTTP envelope itself (content type, presence of SigV4 headers, which have no meaning in-process)
//! and its exact wording of a few malformed-request
//! errors the SDK cannot produce (booleans written as numbers, documents nested past serde's depth, numbers read
//! under DynamoDB's older validation layer). Engine errors (conditions, transactions, validation of items and
//! keys, missing tables) are the engine's own, word for word.
//!
//! One deliberate difference: a `TransactWriteItems` request's `ClientRequestToken` is dropped before the engine
//! sees it (see `dispatch`).
//!
//! The engine runs each operation synchronously under its own lock (SQLite). Like dynoxide's server, which runs
//! the operation inside its request handler, the call runs on the task that awaits it.

use std::fmt;

use aws_sdk_dynamodb::config::http::{HttpRequest, HttpResponse};
use aws_sdk_dynamodb::config::{HttpClient, RuntimeComponents};
use aws_smithy_runtime_api::client::http::{
    HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::http::StatusCode;
use aws_smithy_types::body::SdkBody;
use dynoxide::{Database, DynoxideError};

/// Prefix of DynamoDB's `x-amz-target` values.
const TARGET_PREFIX: &str = "DynamoDB_20120810.";
/// Content type of DynamoDB JSON responses.
const CONTENT_TYPE: &str = "application/x-amz-json-1.0";

/// An SDK [`HttpClient`] serving every request from an in-process dynoxide database. Cheap to clone.
#[derive(Clone)]
pub struct InProcessClient {
    db: Database,
}

impl fmt::Debug for InProcessClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("InProcessClient")
    }
}

impl InProcessClient {
    /// A client over `db` (a clone of the handle: every clone shares one database).
    pub fn new(db: Database) -> Self {
        InProcessClient { db }
    }
}

impl HttpClient for InProcessClient {
    fn http_connector(
        &self,
        _settings: &HttpConnectorSettings,
        _components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(self.clone())
    }
}

impl HttpConnector for InProcessClient {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let db = self.db.clone();
        HttpConnectorFuture::new(async move {
            let target = request.headers().get("x-amz-target").map(str::to_owned);
            let Some(body) = request.body().bytes() else {
                // The SDK sends DynamoDB JSON bodies from memory; a streaming body is a programming error.
                return Err(ConnectorError::user(
                    "the in-process DynamoDB transport needs an in-memory request body".into(),
                ));
            };
            let (status, json) = handle(&db, target.as_deref(), body);
            let status = StatusCode::try_from(status)
                .map_err(|e| ConnectorError::other(Box::new(e), None))?;
            let mut response = HttpResponse::new(status, SdkBody::from(json));
            response.headers_mut().insert("content-type", CONTENT_TYPE);
            Ok(response)
        })
    }
}

/// Serves one DynamoDB JSON request: `(HTTP status, response body)`, exactly one of the engine's answer or
/// DynamoDB's error JSON.
pub fn handle(db: &Database, target: Option<&str>, body: &[u8]) -> (u16, Vec<u8>) {
    let Some(operation) = target.and_then(|t| t.strip_prefix(TARGET_PREFIX)) else {
        return (
            400,
            bare("com.amazon.coral.service#UnknownOperationException"),
        );
    };
    if body.is_empty() {
        return (400, bare("com.amazon.coral.service#SerializationException"));
    }
    match dispatch(db, operation, body) {
        Ok(json) => (200, json),
        Err(Dispatch::UnknownOperation) => (
            400,
            bare("com.amazon.coral.service#UnknownOperationException"),
        ),
        Err(Dispatch::Engine(e)) => (e.status_code(), e.to_json().into_bytes()),
    }
}

/// An error body carrying only `__type`.
fn bare(error_type: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({ "__type": error_type })).unwrap_or_default()
}

enum Dispatch {
    UnknownOperation,
    Engine(DynoxideError),
}

impl From<DynoxideError> for Dispatch {
    fn from(e: DynoxideError) -> Self {
        Dispatch::Engine(e)
    }
}

/// Decodes the request as `operation`'s request type, runs it, and encodes the response.
fn dispatch(db: &Database, operation: &str, body: &[u8]) -> Result<Vec<u8>, Dispatch> {
    use dynoxide::actions::*;

    macro_rules! ops {
        ($($name:literal => $module:ident :: $request:ident => $method:ident),* $(,)?) => {
            match operation {
                $($name => {
                    let request: $module::$request = decode(operation, body)?;
                    encode(&db.$method(request)?)
                })*
                _ => Err(Dispatch::UnknownOperation),
            }
        };
    }

    if operation == "TransactWriteItems" {
        // In-process, an answer cannot be lost on the way back, so a transaction is never re-sent after it
        // committed and the SDK's idempotency token (which it adds to every `TransactWriteItems`) protects against
        // nothing. The engine would keep each token for ten minutes, with a sorted-JSON hash of the whole request, and
        // scan every kept token on each transaction: a cost that grows with the deploy rate. Dropped here.
        let mut request: transact_write_items::TransactWriteItemsRequest = decode(operation, body)?;
        request.client_request_token = None;
        return encode(&db.transact_write_items(request)?);
    }
    ops! {
        "GetItem" => get_item::GetItemRequest => get_item,
        "PutItem" => put_item::PutItemRequest => put_item,
        "DeleteItem" => delete_item::DeleteItemRequest => delete_item,
        "UpdateItem" => update_item::UpdateItemRequest => update_item,
        "Query" => query::QueryRequest => query,
        "Scan" => scan::ScanRequest => scan,
        "BatchGetItem" => batch_get_item::BatchGetItemRequest => batch_get_item,
        "BatchWriteItem" => batch_write_item::BatchWriteItemRequest => batch_write_item,
        "TransactWriteItems" => transact_write_items::TransactWriteItemsRequest => transact_write_items,
        "TransactGetItems" => transact_get_items::TransactGetItemsRequest => transact_get_items,
        "CreateTable" => create_table::CreateTableRequest => create_table,
        "DeleteTable" => delete_table::DeleteTableRequest => delete_table,
        "DescribeTable" => describe_table::DescribeTableRequest => describe_table,
        "ListTables" => list_tables::ListTablesRequest => list_tables,
        "UpdateTable" => update_table::UpdateTableRequest => update_table,
        "UpdateTimeToLive" => update_time_to_live::UpdateTimeToLiveRequest => update_time_to_live,
        "DescribeTimeToLive" => describe_time_to_live::DescribeTimeToLiveRequest => describe_time_to_live,
        "TagResource" => tag_resource::TagResourceRequest => tag_resource,
        "UntagResource" => untag_resource::UntagResourceRequest => untag_resource,
        "ListTagsOfResource" => list_tags_of_resource::ListTagsOfResourceRequest => list_tags_of_resource,
    }
}

fn encode<T: serde::Serialize>(response: &T) -> Result<Vec<u8>, Dispatch> {
    serde_json::to_vec(response)
        .map_err(|e| Dispatch::Engine(DynoxideError::InternalServerError(e.to_string())))
}

/// Decodes a request body, classifying a refusal as dynoxide's server does: its request types mark their own
/// validation failures with a prefix naming the DynamoDB error class.
fn decode<T: serde::de::DeserializeOwned>(operation: &str, body: &[u8]) -> Result<T, Dispatch> {
    serde_json::from_slice(body).map_err(|e| Dispatch::Engine(classify(operation, &e.to_string())))
}

/// serde_json's " at line N column M" suffix removed.
fn strip_position(msg: &str) -> &str {
    match msg.rfind(" at line ") {
        Some(i) if msg[i..].contains(" column ") => &msg[..i],
        _ => msg,
    }
}

fn classify(operation: &str, msg: &str) -> DynoxideError {
    use DynoxideError::{SerializationException, ValidationException};
    if let Some(m) = msg.strip_prefix("SERIALIZATION_AS_READ:") {
        return SerializationException(m.to_owned());
    }
    if let Some(m) = msg.strip_prefix("VALIDATION_AS_READ:") {
        return ValidationException(m.to_owned());
    }
    if let Some(m) = msg.strip_prefix("SERIALIZATION:") {
        return SerializationException(strip_position(m).to_owned());
    }
    if let Some(m) = msg.strip_prefix("VALIDATION_REQUEST:") {
        // The single-item writes wrap this family in DynamoDB's request-validation envelope.
        let m = strip_position(m);
        return ValidationException(match operation {
            "PutItem" | "UpdateItem" | "DeleteItem" => format!("1 validation error detected: {m}"),
            _ => m.to_owned(),
        });
    }
    if let Some(m) = msg.strip_prefix("VALIDATION:") {
        return ValidationException(strip_position(m).to_owned());
    }
    if msg.contains("missing field")
        || msg.contains("unknown variant")
        || msg.contains("invalid type: null")
    {
        return ValidationException(msg.to_owned());
    }
    if msg.contains("empty AttributeValue") {
        return ValidationException(
            "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
                .to_owned(),
        );
    }
    if msg.contains("Supplied AttributeValue") {
        return ValidationException(strip_position(msg).to_owned());
    }
    SerializationException(strip_position(msg).to_owned())
}

//! The normalized model: what the diff engine (and later the pages) walk.
//!
//! This module is the contract between the spec engine (which builds an [`ApiModel`] from a
//! resolved [`crate::Document`]) and the diff engine (which compares two of them). The model
//! owns the *structure* of an API (operations, parameters, bodies, responses, messages) but not
//! its schemas: a schema is a [`Location`] in the document's files, and the diff engine walks it
//! in place through `Document::value` and `Document::resolve`, so `$ref`s stay refs and shared
//! components are compared once.
//!
//! Conventions:
//! - Every spec family is mapped onto the same shapes. Swagger 2.0 `body`/`formData` parameters,
//!   `consumes` and `produces` become [`RequestBody`] and [`Response::content`] keyed by media
//!   type; `host`/`basePath`/`schemes` become [`Server`]s. AsyncAPI 2.x `publish`/`subscribe`
//!   and 3.0 `send`/`receive` become [`MessageOperation`]s with an explicit [`Direction`].
//! - A schema that does not exist as such in the source (a Swagger 2.0 `formData` object, a
//!   non-body parameter's inline type) is written into a synthetic file of the document, so it
//!   too is addressed by a [`Location`].

use indexmap::IndexMap;

/// The model's maps: insertion-ordered, hashed with hashbrown's default hasher (foldhash, seeded per map) rather
/// than SipHash: keys are short, and the normalizer builds tens of thousands of small maps per large document.
pub type Map<K, V> = IndexMap<K, V, hashbrown::DefaultHashBuilder>;
use serde::Serialize;

/// Text read once from a document and shared by every part of the model that repeats it (a description on a
/// parameter, response or header that many operations reach through the same `$ref`).
pub type Text = std::sync::Arc<str>;

/// One file of a document: `FileId::ROOT` is the `definition`, then each entry of `references`
/// in order, then (if any) the synthetic file holding generated schemas.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FileId(pub u32);

impl FileId {
    pub const ROOT: FileId = FileId(0);
}

/// Where a JSON value lives: a file and an RFC 6901 JSON pointer into it (`""` is the root).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Location {
    pub file: FileId,
    pub pointer: String,
}

impl Location {
    pub fn root(file: FileId) -> Self {
        Location {
            file,
            pointer: String::new(),
        }
    }

    /// The location of a child: `token` is a raw object key or array index, escaped here
    /// (`~` as `~0`, `/` as `~1`).
    pub fn child(&self, token: &str) -> Self {
        let mut pointer = String::with_capacity(self.pointer.len() + token.len() + 1);
        pointer.push_str(&self.pointer);
        crate::pointer::push_token(&mut pointer, token);
        Location {
            file: self.file,
            pointer,
        }
    }

    /// [`Location::child`] written into `out`, reusing its buffer (for walks that visit many
    /// siblings and keep only the current one).
    pub fn child_into(&self, token: &str, out: &mut Location) {
        out.file = self.file;
        out.pointer.clear();
        out.pointer.push_str(&self.pointer);
        crate::pointer::push_token(&mut out.pointer, token);
    }

    pub fn index(&self, i: usize) -> Self {
        // Digits written straight into the pointer: `to_string` goes through the formatting
        // machinery and allocates, and array members are many.
        let mut pointer = String::with_capacity(self.pointer.len() + 21);
        pointer.push_str(&self.pointer);
        crate::pointer::push_index(&mut pointer, i);
        Location {
            file: self.file,
            pointer,
        }
    }
}

/// The families of API description Specpress understands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SpecFamily {
    OpenApi,
    AsyncApi,
}

/// Family plus major/minor, which decides the schema dialect and the mapping rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum SpecVersion {
    /// Swagger / OpenAPI 2.0.
    OpenApi20,
    /// OpenAPI 3.0.x.
    OpenApi30,
    /// OpenAPI 3.1.x.
    OpenApi31,
    /// OpenAPI 3.2.x (read with the 3.1 rules).
    OpenApi32,
    /// AsyncAPI 2.0 to 2.6 (the minor is kept).
    AsyncApi2 { minor: u8 },
    /// AsyncAPI 3.0.x.
    AsyncApi30,
}

impl SpecVersion {
    pub fn family(self) -> SpecFamily {
        match self {
            SpecVersion::AsyncApi2 { .. } | SpecVersion::AsyncApi30 => SpecFamily::AsyncApi,
            _ => SpecFamily::OpenApi,
        }
    }

    /// How schemas are to be read in this version.
    pub fn dialect(self) -> SchemaDialect {
        match self {
            SpecVersion::OpenApi20 => SchemaDialect::Swagger2,
            SpecVersion::OpenApi30 => SchemaDialect::OpenApi30,
            SpecVersion::AsyncApi2 { .. } | SpecVersion::AsyncApi30 => SchemaDialect::AsyncApi,
            SpecVersion::OpenApi31 | SpecVersion::OpenApi32 => SchemaDialect::JsonSchema2020,
        }
    }
}

/// Schema dialects differ in how nullability and a few keywords are spelled.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum SchemaDialect {
    /// Swagger 2.0: a JSON Schema draft 4 subset, `x-nullable`, no oneOf/anyOf.
    Swagger2,
    /// OpenAPI 3.0: draft 4/5 subset, `nullable: true`.
    OpenApi30,
    /// OpenAPI 3.1+: JSON Schema 2020-12 (`type` arrays, `const`, `prefixItems`, ...).
    JsonSchema2020,
    /// AsyncAPI default schema format (a draft 7 superset).
    AsyncApi,
}

/// The normalized view of one API document.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ApiModel {
    /// HTTP operations (OpenAPI paths and, for 3.1+, webhooks), keyed and sorted by
    /// [`OperationKey`].
    pub operations: Map<OperationKey, Operation>,
    /// AsyncAPI operations, keyed and sorted by [`MessageOperationKey`].
    pub message_operations: Map<MessageOperationKey, MessageOperation>,
    /// AsyncAPI channels, keyed by normalized address (parameter names replaced by `{}`).
    pub channels: Map<String, Channel>,
    /// Document-level servers (Swagger 2.0 host/basePath/schemes are mapped here).
    pub servers: Vec<Server>,
    /// Security schemes by name.
    pub security_schemes: Map<String, SecurityScheme>,
    /// Document-level security requirements (`None` when the document declares none).
    pub security: Option<Vec<SecurityRequirement>>,
    /// Named reusable schemas (`#/components/schemas/X`, `#/definitions/X`), by name, so that a
    /// change can be reported once at its definition.
    pub schemas: Map<String, Location>,
    /// AsyncAPI: the messages of `components/messages`, by component key.
    pub messages: Map<String, Message>,
}

/// What kind of HTTP operation: a path operation, or an OpenAPI 3.1 webhook.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OperationKind {
    Path,
    Webhook,
}

/// How operations are matched across two documents: method plus path template with parameter
/// names erased (`/pets/{id}` and `/pets/{petId}` both give `/pets/{}`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct OperationKey {
    pub kind: OperationKind,
    /// Upper-case method: `GET`, `POST`, ...
    pub method: String,
    /// The normalized template (for webhooks, the webhook name).
    pub path: String,
}

/// One HTTP operation, with path-level parameters merged in.
#[derive(Clone, Debug, Serialize)]
pub struct Operation {
    pub key: OperationKey,
    /// The path template as written in this document (`/pets/{petId}`).
    pub path: String,
    /// Where the operation object is.
    pub source: Location,
    pub operation_id: Option<String>,
    pub summary: Option<String>,
    pub description: Option<String>,
    pub tags: Vec<String>,
    pub deprecated: bool,
    /// `x-sunset` (an RFC 3339 date) when present.
    pub sunset: Option<String>,
    /// Parameters after merging path-level ones (operation-level wins on `(in, name)`).
    pub parameters: Vec<Parameter>,
    pub request_body: Option<RequestBody>,
    /// Responses by status key as written (`200`, `4XX`, `default`).
    pub responses: Map<String, Response>,
    /// Effective security: the operation's own, else `None` meaning "inherits the document's".
    pub security: Option<Vec<SecurityRequirement>>,
    /// Operation or path-level servers, if any.
    pub servers: Option<Vec<Server>>,
    /// OpenAPI 3 callbacks: name -> operations of the callback.
    pub callbacks: Map<String, Vec<Operation>>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParameterIn {
    Path,
    Query,
    Header,
    Cookie,
}

/// A non-body parameter.
#[derive(Clone, Debug, Serialize)]
pub struct Parameter {
    /// The name as written. Path parameters are matched by [`Parameter::path_index`], not name.
    pub name: String,
    pub location: ParameterIn,
    /// For a path parameter: its position among the template's `{...}` segments.
    pub path_index: Option<usize>,
    pub required: bool,
    pub deprecated: bool,
    pub description: Option<Text>,
    pub style: Option<String>,
    pub explode: Option<bool>,
    pub allow_empty_value: bool,
    pub allow_reserved: bool,
    /// The schema. For Swagger 2.0 non-body parameters this is the parameter object itself
    /// (it carries `type`, `format`, `items`, `enum`, ... directly).
    pub schema: Option<Location>,
    /// OpenAPI 3 `content` form of a parameter.
    pub content: Map<String, MediaType>,
    /// Where the parameter object is (after following its `$ref`).
    pub source: Location,
}

#[derive(Clone, Debug, Serialize)]
pub struct RequestBody {
    pub required: bool,
    pub description: Option<Text>,
    /// By media type (`application/json`, ...). Swagger 2.0: one entry per `consumes` type.
    pub content: Map<String, MediaType>,
    pub source: Location,
}

#[derive(Clone, Debug, Serialize)]
pub struct MediaType {
    pub schema: Option<Location>,
    /// Multipart/form encoding entries by property name, as written.
    pub encoding: Option<Location>,
    pub source: Location,
}

#[derive(Clone, Debug, Serialize)]
pub struct Response {
    pub status: String,
    pub description: Option<Text>,
    pub headers: Map<String, Header>,
    /// By media type. Swagger 2.0: one entry per `produces` type when the response has a schema.
    pub content: Map<String, MediaType>,
    pub source: Location,
}

#[derive(Clone, Debug, Serialize)]
pub struct Header {
    pub required: bool,
    pub deprecated: bool,
    pub description: Option<Text>,
    /// For Swagger 2.0 the header object itself (as for parameters).
    pub schema: Option<Location>,
    pub source: Location,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Server {
    /// The URL as written (Swagger 2.0: `scheme://host/basePath` per scheme).
    pub url: String,
    pub description: Option<String>,
    /// Server variables: name -> (default, enum).
    pub variables: Map<String, ServerVariable>,
    /// AsyncAPI: the protocol (`kafka`, `mqtt`, ...).
    pub protocol: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ServerVariable {
    pub default: Option<String>,
    pub enumeration: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SecurityScheme {
    /// `apiKey`, `http`, `oauth2`, `openIdConnect`, `mutualTLS`, `basic` (Swagger 2.0), ...
    pub scheme_type: String,
    /// For `http`: `bearer`, `basic`, ...
    pub scheme: Option<String>,
    /// For `apiKey`: where and under what name.
    pub location: Option<String>,
    pub name: Option<String>,
    pub bearer_format: Option<String>,
    /// OAuth2 flows: flow name -> scopes (scope name -> description).
    pub flows: Map<String, Map<String, String>>,
    pub open_id_connect_url: Option<String>,
    pub source: Location,
}

/// One alternative of a security requirement: scheme name -> required scopes. An empty
/// requirement (`{}`) means "anonymous allowed".
pub type SecurityRequirement = Map<String, Vec<String>>;

/// Which way a message travels, seen from the application the document describes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// The application sends it (AsyncAPI 2.x `subscribe`, 3.0 `send`): judged like a
    /// response, covariantly.
    Send,
    /// The application receives it (AsyncAPI 2.x `publish`, 3.0 `receive`): judged like a
    /// request, contravariantly.
    Receive,
}

/// How AsyncAPI operations are matched: direction plus normalized channel address, plus the
/// operation id when one channel has several operations in the same direction.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct MessageOperationKey {
    pub direction: Direction,
    pub channel: String,
    pub discriminator: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MessageOperation {
    pub key: MessageOperationKey,
    pub operation_id: Option<String>,
    /// The channel address as written.
    pub channel_address: String,
    pub summary: Option<String>,
    pub description: Option<String>,
    pub deprecated: bool,
    /// Messages by name (the message's `name`, else its component key, else its index).
    pub messages: Map<String, Message>,
    pub security: Option<Vec<SecurityRequirement>>,
    pub source: Location,
}

#[derive(Clone, Debug, Serialize)]
pub struct Message {
    pub name: String,
    pub title: Option<String>,
    pub summary: Option<String>,
    pub description: Option<String>,
    pub content_type: Option<String>,
    pub payload: Option<Location>,
    pub headers: Option<Location>,
    pub correlation_id: Option<String>,
    /// `schemaFormat` when it is not the default.
    pub schema_format: Option<String>,
    pub deprecated: bool,
    pub source: Location,
}

#[derive(Clone, Debug, Serialize)]
pub struct Channel {
    /// The channel's key in `channels` (2.x: its address; 3.0: its id, which may differ from
    /// its `address`).
    pub id: String,
    pub address: String,
    pub description: Option<String>,
    /// Channel parameters by name, with their schema where declared.
    pub parameters: Map<String, Option<Location>>,
    pub servers: Vec<String>,
    /// Every message of the channel, by name: 3.0, its `messages` map; 2.x, the messages of
    /// its `publish` and `subscribe` operations (`oneOf` members included), each once.
    pub messages: Map<String, Message>,
    pub source: Location,
}

#[cfg(test)]
mod location_tests {
    use super::*;

    #[test]
    fn child_locations_written_into_a_buffer_match_fresh_ones() {
        let base = Location {
            file: FileId(1),
            pointer: "/definitions/A/properties".into(),
        };
        let mut out = Location {
            file: FileId(0),
            pointer: "/left/over/text/that/is/long".into(),
        };
        for token in ["name", "a/b", "x~y", "~/", "", "ünï/cødé"] {
            base.child_into(token, &mut out);
            assert_eq!(out, base.child(token), "{token:?}");
        }
    }

    #[test]
    fn index_writes_the_same_pointer_as_a_decimal_child_token() {
        let base = Location::root(FileId::ROOT).child("paths").child("/a/{id}");
        for i in [0, 7, 10, 99, 100, 1234567890, usize::MAX] {
            assert_eq!(base.index(i), base.child(&i.to_string()), "{i}");
        }
        assert_eq!(base.index(12).pointer, "/paths/~1a~1{id}/12");
    }
}

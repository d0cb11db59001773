//! The rule catalogue: every kind of change the engine can report, with a stable kebab-case id,
//! a default level, the side it is judged from, and an example pair of documents.
//!
//! There is exactly one table of rules: [`BASE`] (structure of operations, parameters, bodies,
//! responses, security, servers, messages, channels) plus [`CHECKS`] (schema checks), which is
//! multiplied by the schema [`Role`]s (`request-body-…`, `response-body-…`, …) to give one rule
//! per (role, check). [`catalogue`] joins them; `docs/diff-rules.md` is generated from it
//! ([`catalogue_markdown`]) and a test fails when the document is stale.

use std::sync::OnceLock;

use serde::Serialize;

/// How serious a change is for existing clients.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Worth knowing, cannot break a client.
    Info,
    /// May break some clients (or clients that validate strictly).
    Warning,
    /// Breaks existing clients.
    Breaking,
}

impl Level {
    /// `breaking`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Breaking => "breaking",
        }
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "breaking" | "error" => Ok(Level::Breaking),
            "warning" | "warn" => Ok(Level::Warning),
            "info" => Ok(Level::Info),
            other => Err(format!(
                "unknown level `{other}` (expected breaking, warning or info)"
            )),
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which way data flows for the thing that changed, seen from the API's clients.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// Sent by clients, read by the API (judged contravariantly).
    Request,
    /// Produced by the API, read by clients (judged covariantly).
    Response,
    /// AsyncAPI: a message the application receives (judged like a request).
    Receive,
    /// AsyncAPI: a message the application sends (judged like a response).
    Send,
    /// Neither (servers, security schemes, metadata).
    Both,
}

impl Side {
    fn as_str(self) -> &'static str {
        match self {
            Side::Request => "request",
            Side::Response => "response",
            Side::Receive => "receive",
            Side::Send => "send",
            Side::Both => "-",
        }
    }
}

/// The document family an example is written for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Template {
    /// `openapi: 3.0.3`
    OpenApi30,
    /// `openapi: 3.1.0`
    OpenApi31,
    /// `swagger: '2.0'`
    Swagger2,
    /// `asyncapi: 2.6.0`
    AsyncApi26,
    /// `asyncapi: 3.0.0`
    AsyncApi30,
}

impl Template {
    /// The header lines every example document of this family starts with.
    pub fn header(self) -> &'static str {
        match self {
            Template::OpenApi30 => "openapi: 3.0.3\ninfo: {title: Example, version: '1'}\n",
            Template::OpenApi31 => "openapi: 3.1.0\ninfo: {title: Example, version: '1'}\n",
            Template::Swagger2 => "swagger: '2.0'\ninfo: {title: Example, version: '1'}\n",
            Template::AsyncApi26 => "asyncapi: 2.6.0\ninfo: {title: Example, version: '1'}\n",
            Template::AsyncApi30 => "asyncapi: 3.0.0\ninfo: {title: Example, version: '1'}\n",
        }
    }
}

/// A pair of complete example documents that triggers a rule.
#[derive(Clone, Debug)]
pub struct Example {
    pub template: Template,
    pub previous: String,
    pub current: String,
}

/// One entry of the catalogue.
#[derive(Clone, Debug)]
pub struct Rule {
    /// Stable kebab-case id.
    pub id: String,
    /// Default level (options may override it).
    pub level: Level,
    /// The side the change is judged from.
    pub side: Side,
    /// Family, for the documentation (`endpoints`, `parameters`, `request-body`, …).
    pub family: &'static str,
    /// False for content-only changes (descriptions, summaries, examples, titles).
    pub structural: bool,
    /// The attribute a change of this rule touches (`type`, `required`, `path`, …).
    pub attribute: &'static str,
    /// One sentence describing the change.
    pub summary: String,
    /// True for schema rules (`<role>-<check>`), false for structure rules.
    pub schema: bool,
    /// An example pair of documents that produces this rule.
    pub example: Example,
}

/// Expands the `@R` shorthand of the examples (a minimal `responses` object).
fn expand(fragment: &str) -> String {
    fragment.replace("@R", "responses: {'200': {description: ok}}")
}

macro_rules! base_rules {
    ($( $variant:ident => $id:literal, $level:ident, $side:ident, $family:literal, $structural:literal, $attr:literal, $summary:literal, $tpl:ident, $prev:literal, $cur:literal; )*) => {
        /// Non-schema rules, by name (the discriminant indexes [`BASE`]).
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        #[allow(clippy::enum_variant_names)]
        pub(crate) enum B { $( $variant, )* }
        /// One row of the base table.
        pub(crate) struct BaseRule {
            pub id: &'static str,
            pub level: Level,
            pub side: Side,
            pub family: &'static str,
            pub structural: bool,
            pub attribute: &'static str,
            pub summary: &'static str,
            pub template: Template,
            pub previous: &'static str,
            pub current: &'static str,
        }
        /// The base table.
        pub(crate) const BASE: &[BaseRule] = &[ $( BaseRule {
            id: $id, level: Level::$level, side: Side::$side, family: $family, structural: $structural,
            attribute: $attr, summary: $summary, template: Template::$tpl, previous: $prev, current: $cur,
        }, )* ];
    };
}

base_rules! {
    EndpointAdded => "endpoint-added", Info, Both, "endpoints", true, "path", "An operation was added.", OpenApi31,
        "paths: {}", "paths: {/a: {get: {@R}}}";
    EndpointRemoved => "endpoint-removed", Breaking, Both, "endpoints", true, "path", "An operation was removed without being deprecated first.", OpenApi31,
        "paths: {/a: {get: {@R}}}", "paths: {}";
    EndpointRemovedAfterDeprecation => "endpoint-removed-after-deprecation", Info, Both, "endpoints", true, "path", "A deprecated operation whose sunset date (if any) has passed was removed.", OpenApi31,
        "paths: {/a: {get: {deprecated: true, @R}}}", "paths: {}";
    EndpointRemovedBeforeSunset => "endpoint-removed-before-sunset", Breaking, Both, "endpoints", true, "path", "A deprecated operation was removed before its announced `x-sunset` date.", OpenApi31,
        "paths: {/a: {get: {deprecated: true, x-sunset: '2999-01-01', @R}}}", "paths: {}";
    EndpointDeprecated => "endpoint-deprecated", Info, Both, "endpoints", true, "deprecated", "An operation was marked deprecated.", OpenApi31,
        "paths: {/a: {get: {@R}}}", "paths: {/a: {get: {deprecated: true, @R}}}";
    EndpointReactivated => "endpoint-reactivated", Info, Both, "endpoints", true, "deprecated", "An operation is no longer deprecated.", OpenApi31,
        "paths: {/a: {get: {deprecated: true, @R}}}", "paths: {/a: {get: {@R}}}";
    EndpointSunsetChanged => "endpoint-sunset-changed", Warning, Both, "endpoints", true, "x-sunset", "The `x-sunset` date of an operation changed.", OpenApi31,
        "paths: {/a: {get: {deprecated: true, x-sunset: '2999-01-01', @R}}}", "paths: {/a: {get: {deprecated: true, x-sunset: '2998-01-01', @R}}}";
    WebhookAdded => "webhook-added", Info, Both, "endpoints", true, "name", "A webhook (OpenAPI 3.1 `webhooks`) was added.", OpenApi31,
        "webhooks: {}", "webhooks: {ping: {post: {@R}}}";
    WebhookRemoved => "webhook-removed", Breaking, Both, "endpoints", true, "name", "A webhook was removed.", OpenApi31,
        "webhooks: {ping: {post: {@R}}}", "webhooks: {}";
    OperationIdChanged => "operation-id-changed", Warning, Both, "endpoints", true, "operationId", "The operationId changed (generated SDK method names change).", OpenApi31,
        "paths: {/a: {get: {operationId: getA, @R}}}", "paths: {/a: {get: {operationId: fetchA, @R}}}";
    OperationSummaryChanged => "operation-summary-changed", Info, Both, "content", false, "summary", "The summary of an operation changed.", OpenApi31,
        "paths: {/a: {get: {summary: Old, @R}}}", "paths: {/a: {get: {summary: New, @R}}}";
    OperationDescriptionChanged => "operation-description-changed", Info, Both, "content", false, "description", "The description of an operation changed.", OpenApi31,
        "paths: {/a: {get: {description: Old, @R}}}", "paths: {/a: {get: {description: New, @R}}}";
    OperationTagsChanged => "operation-tags-changed", Info, Both, "content", false, "tags", "The tags of an operation changed.", OpenApi31,
        "paths: {/a: {get: {tags: [a], @R}}}", "paths: {/a: {get: {tags: [b], @R}}}";
    PathParameterRenamed => "path-parameter-renamed", Info, Request, "content", false, "name", "A path parameter was renamed (it is matched by position, so clients are unaffected).", OpenApi31,
        "paths: {'/a/{id}': {get: {parameters: [{name: id, in: path, required: true, schema: {type: string}}], @R}}}",
        "paths: {'/a/{key}': {get: {parameters: [{name: key, in: path, required: true, schema: {type: string}}], @R}}}";
    RequestParameterAdded => "request-parameter-added", Info, Request, "parameters", true, "name", "An optional parameter was added.", OpenApi31,
        "paths: {/a: {get: {@R}}}", "paths: {/a: {get: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}";
    RequestRequiredParameterAdded => "request-required-parameter-added", Breaking, Request, "parameters", true, "required", "A required parameter was added.", OpenApi31,
        "paths: {/a: {get: {@R}}}", "paths: {/a: {get: {parameters: [{name: q, in: query, required: true, schema: {type: string}}], @R}}}";
    RequestParameterRemoved => "request-parameter-removed", Warning, Request, "parameters", true, "name", "A parameter was removed (clients still sending it may be rejected or see it ignored).", OpenApi31,
        "paths: {/a: {get: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}", "paths: {/a: {get: {@R}}}";
    RequestParameterBecameRequired => "request-parameter-became-required", Breaking, Request, "parameters", true, "required", "An optional parameter became required.", OpenApi31,
        "paths: {/a: {get: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}",
        "paths: {/a: {get: {parameters: [{name: q, in: query, required: true, schema: {type: string}}], @R}}}";
    RequestParameterBecameOptional => "request-parameter-became-optional", Info, Request, "parameters", true, "required", "A required parameter became optional.", OpenApi31,
        "paths: {/a: {get: {parameters: [{name: q, in: query, required: true, schema: {type: string}}], @R}}}",
        "paths: {/a: {get: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}";
    RequestParameterLocationChanged => "request-parameter-location-changed", Breaking, Request, "parameters", true, "in", "A parameter moved to another location (query, header, cookie).", OpenApi31,
        "paths: {/a: {get: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}",
        "paths: {/a: {get: {parameters: [{name: q, in: header, schema: {type: string}}], @R}}}";
    RequestParameterStyleChanged => "request-parameter-style-changed", Breaking, Request, "parameters", true, "style", "The serialization style of a parameter changed.", OpenApi31,
        "paths: {/a: {get: {parameters: [{name: q, in: query, schema: {type: array, items: {type: string}}}], @R}}}",
        "paths: {/a: {get: {parameters: [{name: q, in: query, style: pipeDelimited, schema: {type: array, items: {type: string}}}], @R}}}";
    RequestParameterExplodeChanged => "request-parameter-explode-changed", Breaking, Request, "parameters", true, "explode", "The `explode` setting of a parameter changed.", OpenApi31,
        "paths: {/a: {get: {parameters: [{name: q, in: query, schema: {type: array, items: {type: string}}}], @R}}}",
        "paths: {/a: {get: {parameters: [{name: q, in: query, explode: false, schema: {type: array, items: {type: string}}}], @R}}}";
    RequestParameterAllowEmptyValueRemoved => "request-parameter-allow-empty-value-removed", Breaking, Request, "parameters", true, "allowEmptyValue", "A parameter no longer allows an empty value.", OpenApi30,
        "paths: {/a: {get: {parameters: [{name: q, in: query, allowEmptyValue: true, schema: {type: string}}], @R}}}",
        "paths: {/a: {get: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}";
    RequestParameterAllowEmptyValueAdded => "request-parameter-allow-empty-value-added", Info, Request, "parameters", true, "allowEmptyValue", "A parameter now allows an empty value.", OpenApi30,
        "paths: {/a: {get: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}",
        "paths: {/a: {get: {parameters: [{name: q, in: query, allowEmptyValue: true, schema: {type: string}}], @R}}}";
    RequestParameterAllowReservedRemoved => "request-parameter-allow-reserved-removed", Breaking, Request, "parameters", true, "allowReserved", "A query parameter no longer allows reserved characters unencoded.", OpenApi31,
        "paths: {/a: {get: {parameters: [{name: q, in: query, allowReserved: true, schema: {type: string}}], @R}}}",
        "paths: {/a: {get: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}";
    RequestParameterDeprecated => "request-parameter-deprecated", Info, Request, "parameters", true, "deprecated", "A parameter was marked deprecated.", OpenApi31,
        "paths: {/a: {get: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}",
        "paths: {/a: {get: {parameters: [{name: q, in: query, deprecated: true, schema: {type: string}}], @R}}}";
    RequestParameterDescriptionChanged => "parameter-description-changed", Info, Request, "content", false, "description", "The description of a parameter changed.", OpenApi31,
        "paths: {/a: {get: {parameters: [{name: q, in: query, description: Old, schema: {type: string}}], @R}}}",
        "paths: {/a: {get: {parameters: [{name: q, in: query, description: New, schema: {type: string}}], @R}}}";
    RequestBodyAdded => "request-body-added", Info, Request, "request-body", true, "requestBody", "An optional request body was added.", OpenApi31,
        "paths: {/a: {post: {@R}}}", "paths: {/a: {post: {requestBody: {content: {application/json: {schema: {type: object}}}}, @R}}}";
    RequestRequiredBodyAdded => "request-required-body-added", Breaking, Request, "request-body", true, "requestBody", "A required request body was added.", OpenApi31,
        "paths: {/a: {post: {@R}}}", "paths: {/a: {post: {requestBody: {required: true, content: {application/json: {schema: {type: object}}}}, @R}}}";
    RequestBodyRemoved => "request-body-removed", Warning, Request, "request-body", true, "requestBody", "The request body was removed (clients still sending one may be rejected).", OpenApi31,
        "paths: {/a: {post: {requestBody: {content: {application/json: {schema: {type: object}}}}, @R}}}", "paths: {/a: {post: {@R}}}";
    RequestBodyBecameRequired => "request-body-became-required", Breaking, Request, "request-body", true, "required", "The request body became required.", OpenApi31,
        "paths: {/a: {post: {requestBody: {content: {application/json: {schema: {type: object}}}}, @R}}}",
        "paths: {/a: {post: {requestBody: {required: true, content: {application/json: {schema: {type: object}}}}, @R}}}";
    RequestBodyBecameOptional => "request-body-became-optional", Info, Request, "request-body", true, "required", "The request body became optional.", OpenApi31,
        "paths: {/a: {post: {requestBody: {required: true, content: {application/json: {schema: {type: object}}}}, @R}}}",
        "paths: {/a: {post: {requestBody: {content: {application/json: {schema: {type: object}}}}, @R}}}";
    RequestBodyMediaTypeAdded => "request-body-media-type-added", Info, Request, "request-body", true, "mediaType", "The request body accepts a new media type.", OpenApi31,
        "paths: {/a: {post: {requestBody: {content: {application/json: {schema: {type: object}}}}, @R}}}",
        "paths: {/a: {post: {requestBody: {content: {application/json: {schema: {type: object}}, application/xml: {schema: {type: object}}}}, @R}}}";
    RequestBodyMediaTypeRemoved => "request-body-media-type-removed", Breaking, Request, "request-body", true, "mediaType", "The request body no longer accepts a media type.", OpenApi31,
        "paths: {/a: {post: {requestBody: {content: {application/json: {schema: {type: object}}, application/xml: {schema: {type: object}}}}, @R}}}",
        "paths: {/a: {post: {requestBody: {content: {application/json: {schema: {type: object}}}}, @R}}}";
    RequestBodySchemaAdded => "request-body-schema-added", Warning, Request, "request-body", true, "schema", "A request media type that had no schema now has one (what was accepted may now be refused).", OpenApi31,
        "paths: {/a: {post: {requestBody: {content: {application/json: {}}}, @R}}}",
        "paths: {/a: {post: {requestBody: {content: {application/json: {schema: {type: object}}}}, @R}}}";
    RequestBodySchemaRemoved => "request-body-schema-removed", Info, Request, "request-body", true, "schema", "A request media type no longer declares a schema.", OpenApi31,
        "paths: {/a: {post: {requestBody: {content: {application/json: {schema: {type: object}}}}, @R}}}",
        "paths: {/a: {post: {requestBody: {content: {application/json: {}}}, @R}}}";
    RequestBodyDescriptionChanged => "body-description-changed", Info, Request, "content", false, "description", "The description of the request body changed.", OpenApi31,
        "paths: {/a: {post: {requestBody: {description: Old, content: {application/json: {}}}, @R}}}",
        "paths: {/a: {post: {requestBody: {description: New, content: {application/json: {}}}, @R}}}";
    ResponseSuccessStatusAdded => "response-success-status-added", Info, Response, "responses", true, "status", "A success (1xx-3xx) response status was added.", OpenApi31,
        "paths: {/a: {get: {@R}}}", "paths: {/a: {get: {responses: {'200': {description: ok}, '201': {description: created}}}}}";
    ResponseNonSuccessStatusAdded => "response-non-success-status-added", Info, Response, "responses", true, "status", "An error (4xx/5xx) or default response status was added.", OpenApi31,
        "paths: {/a: {get: {@R}}}", "paths: {/a: {get: {responses: {'200': {description: ok}, '404': {description: missing}}}}}";
    ResponseSuccessStatusRemoved => "response-success-status-removed", Breaking, Response, "responses", true, "status", "A success (1xx-3xx) response status was removed.", OpenApi31,
        "paths: {/a: {get: {responses: {'200': {description: ok}, '201': {description: created}}}}}", "paths: {/a: {get: {@R}}}";
    ResponseNonSuccessStatusRemoved => "response-non-success-status-removed", Warning, Response, "responses", true, "status", "An error (4xx/5xx) or default response status was removed.", OpenApi31,
        "paths: {/a: {get: {responses: {'200': {description: ok}, '404': {description: missing}}}}}", "paths: {/a: {get: {@R}}}";
    ResponseMediaTypeAdded => "response-media-type-added", Info, Response, "responses", true, "mediaType", "A response can now be produced in a new media type.", OpenApi31,
        "paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {}}}}}}}",
        "paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {}, application/xml: {}}}}}}}";
    ResponseMediaTypeRemoved => "response-media-type-removed", Breaking, Response, "responses", true, "mediaType", "A response is no longer produced in a media type.", OpenApi31,
        "paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {}, application/xml: {}}}}}}}",
        "paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {}}}}}}}";
    ResponseBodySchemaAdded => "response-body-schema-added", Info, Response, "responses", true, "schema", "A response media type that had no schema now has one.", OpenApi31,
        "paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {}}}}}}}",
        "paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}}}}";
    ResponseBodySchemaRemoved => "response-body-schema-removed", Breaking, Response, "responses", true, "schema", "A response media type no longer declares its schema.", OpenApi31,
        "paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}}}}",
        "paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {}}}}}}}";
    ResponseDescriptionChanged => "response-description-changed", Info, Response, "content", false, "description", "The description of a response changed.", OpenApi31,
        "paths: {/a: {get: {responses: {'200': {description: Old}}}}}", "paths: {/a: {get: {responses: {'200': {description: New}}}}}";
    ResponseHeaderAdded => "response-header-added", Info, Response, "response-headers", true, "name", "A response header was added.", OpenApi31,
        "paths: {/a: {get: {@R}}}", "paths: {/a: {get: {responses: {'200': {description: ok, headers: {X-A: {schema: {type: string}}}}}}}}";
    ResponseRequiredHeaderRemoved => "response-required-header-removed", Breaking, Response, "response-headers", true, "name", "A required response header was removed.", OpenApi31,
        "paths: {/a: {get: {responses: {'200': {description: ok, headers: {X-A: {required: true, schema: {type: string}}}}}}}}", "paths: {/a: {get: {@R}}}";
    ResponseHeaderRemoved => "response-header-removed", Warning, Response, "response-headers", true, "name", "An optional response header was removed.", OpenApi31,
        "paths: {/a: {get: {responses: {'200': {description: ok, headers: {X-A: {schema: {type: string}}}}}}}}", "paths: {/a: {get: {@R}}}";
    ResponseHeaderBecameOptional => "response-header-became-optional", Breaking, Response, "response-headers", true, "required", "A required response header became optional.", OpenApi31,
        "paths: {/a: {get: {responses: {'200': {description: ok, headers: {X-A: {required: true, schema: {type: string}}}}}}}}",
        "paths: {/a: {get: {responses: {'200': {description: ok, headers: {X-A: {schema: {type: string}}}}}}}}";
    ResponseHeaderBecameRequired => "response-header-became-required", Info, Response, "response-headers", true, "required", "An optional response header became required.", OpenApi31,
        "paths: {/a: {get: {responses: {'200': {description: ok, headers: {X-A: {schema: {type: string}}}}}}}}",
        "paths: {/a: {get: {responses: {'200': {description: ok, headers: {X-A: {required: true, schema: {type: string}}}}}}}}";
    ResponseHeaderDeprecated => "response-header-deprecated", Info, Response, "response-headers", true, "deprecated", "A response header was marked deprecated.", OpenApi31,
        "paths: {/a: {get: {responses: {'200': {description: ok, headers: {X-A: {schema: {type: string}}}}}}}}",
        "paths: {/a: {get: {responses: {'200': {description: ok, headers: {X-A: {deprecated: true, schema: {type: string}}}}}}}}";
    ResponseHeaderDescriptionChanged => "header-description-changed", Info, Response, "content", false, "description", "The description of a response header changed.", OpenApi31,
        "paths: {/a: {get: {responses: {'200': {description: ok, headers: {X-A: {description: Old, schema: {type: string}}}}}}}}",
        "paths: {/a: {get: {responses: {'200': {description: ok, headers: {X-A: {description: New, schema: {type: string}}}}}}}}";
    EndpointSecurityAdded => "endpoint-security-added", Breaking, Request, "security", true, "security", "An operation that needed no authentication now requires it.", OpenApi31,
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}}}\npaths: {/a: {get: {@R}}}",
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}}}\npaths: {/a: {get: {security: [{k: []}], @R}}}";
    EndpointSecurityRemoved => "endpoint-security-removed", Info, Request, "security", true, "security", "An operation no longer requires authentication.", OpenApi31,
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}}}\npaths: {/a: {get: {security: [{k: []}], @R}}}",
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}}}\npaths: {/a: {get: {security: [], @R}}}";
    EndpointSecurityAlternativeAdded => "endpoint-security-alternative-added", Info, Request, "security", true, "security", "An operation accepts a new way to authenticate.", OpenApi31,
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}, b: {type: http, scheme: bearer}}}\npaths: {/a: {get: {security: [{k: []}], @R}}}",
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}, b: {type: http, scheme: bearer}}}\npaths: {/a: {get: {security: [{k: []}, {b: []}], @R}}}";
    EndpointSecurityAlternativeRemoved => "endpoint-security-alternative-removed", Breaking, Request, "security", true, "security", "A way to authenticate to an operation was removed.", OpenApi31,
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}, b: {type: http, scheme: bearer}}}\npaths: {/a: {get: {security: [{k: []}, {b: []}], @R}}}",
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}, b: {type: http, scheme: bearer}}}\npaths: {/a: {get: {security: [{k: []}], @R}}}";
    EndpointSecurityScopeAdded => "endpoint-security-scope-added", Breaking, Request, "security", true, "scopes", "An operation requires an additional OAuth2 scope.", OpenApi31,
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {r: read, w: write}}}}}}\npaths: {/a: {get: {security: [{o: [r]}], @R}}}",
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {r: read, w: write}}}}}}\npaths: {/a: {get: {security: [{o: [r, w]}], @R}}}";
    EndpointSecurityScopeRemoved => "endpoint-security-scope-removed", Info, Request, "security", true, "scopes", "An operation requires fewer OAuth2 scopes.", OpenApi31,
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {r: read, w: write}}}}}}\npaths: {/a: {get: {security: [{o: [r, w]}], @R}}}",
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {r: read, w: write}}}}}}\npaths: {/a: {get: {security: [{o: [r]}], @R}}}";
    ApiSecurityAdded => "api-security-added", Breaking, Request, "security", true, "security", "The document-level security now requires authentication where none was needed.", OpenApi31,
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}}}\npaths: {/a: {get: {@R}}}",
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}}}\nsecurity: [{k: []}]\npaths: {/a: {get: {@R}}}";
    ApiSecurityRemoved => "api-security-removed", Info, Request, "security", true, "security", "The document-level security no longer requires authentication.", OpenApi31,
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}}}\nsecurity: [{k: []}]\npaths: {/a: {get: {@R}}}",
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}}}\npaths: {/a: {get: {@R}}}";
    ApiSecurityAlternativeAdded => "api-security-alternative-added", Info, Request, "security", true, "security", "The document-level security accepts a new way to authenticate.", OpenApi31,
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}, b: {type: http, scheme: bearer}}}\nsecurity: [{k: []}]\npaths: {/a: {get: {@R}}}",
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}, b: {type: http, scheme: bearer}}}\nsecurity: [{k: []}, {b: []}]\npaths: {/a: {get: {@R}}}";
    ApiSecurityAlternativeRemoved => "api-security-alternative-removed", Breaking, Request, "security", true, "security", "A document-level way to authenticate was removed.", OpenApi31,
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}, b: {type: http, scheme: bearer}}}\nsecurity: [{k: []}, {b: []}]\npaths: {/a: {get: {@R}}}",
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}, b: {type: http, scheme: bearer}}}\nsecurity: [{k: []}]\npaths: {/a: {get: {@R}}}";
    ApiSecurityScopeAdded => "api-security-scope-added", Breaking, Request, "security", true, "scopes", "The document-level security requires an additional OAuth2 scope.", OpenApi31,
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {r: read, w: write}}}}}}\nsecurity: [{o: [r]}]\npaths: {/a: {get: {@R}}}",
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {r: read, w: write}}}}}}\nsecurity: [{o: [r, w]}]\npaths: {/a: {get: {@R}}}";
    ApiSecurityScopeRemoved => "api-security-scope-removed", Info, Request, "security", true, "scopes", "The document-level security requires fewer OAuth2 scopes.", OpenApi31,
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {r: read, w: write}}}}}}\nsecurity: [{o: [r, w]}]\npaths: {/a: {get: {@R}}}",
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {r: read, w: write}}}}}}\nsecurity: [{o: [r]}]\npaths: {/a: {get: {@R}}}";
    SecuritySchemeAdded => "security-scheme-added", Info, Both, "security", true, "securitySchemes", "A security scheme was added.", OpenApi31,
        "components: {securitySchemes: {}}", "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}}}";
    SecuritySchemeRemoved => "security-scheme-removed", Breaking, Both, "security", true, "securitySchemes", "A security scheme was removed.", OpenApi31,
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}}}", "components: {securitySchemes: {}}";
    SecuritySchemeTypeChanged => "security-scheme-type-changed", Breaking, Both, "security", true, "type", "The type of a security scheme changed.", OpenApi31,
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}}}", "components: {securitySchemes: {k: {type: http, scheme: bearer}}}";
    SecuritySchemeHttpSchemeChanged => "security-scheme-http-scheme-changed", Breaking, Both, "security", true, "scheme", "The HTTP authentication scheme (basic, bearer, …) changed.", OpenApi31,
        "components: {securitySchemes: {k: {type: http, scheme: basic}}}", "components: {securitySchemes: {k: {type: http, scheme: bearer}}}";
    SecuritySchemeApiKeyChanged => "security-scheme-api-key-changed", Breaking, Both, "security", true, "name", "The name or location of an API key changed.", OpenApi31,
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}}}", "components: {securitySchemes: {k: {type: apiKey, in: query, name: key}}}";
    SecuritySchemeBearerFormatChanged => "security-scheme-bearer-format-changed", Warning, Both, "security", true, "bearerFormat", "The bearer token format changed.", OpenApi31,
        "components: {securitySchemes: {k: {type: http, scheme: bearer, bearerFormat: JWT}}}", "components: {securitySchemes: {k: {type: http, scheme: bearer, bearerFormat: opaque}}}";
    SecuritySchemeOauthFlowAdded => "security-scheme-oauth-flow-added", Info, Both, "security", true, "flows", "An OAuth2 flow was added to a scheme.", OpenApi31,
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {}}}}}}",
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {}}, password: {tokenUrl: 'https://x/t', scopes: {}}}}}}";
    SecuritySchemeOauthFlowRemoved => "security-scheme-oauth-flow-removed", Breaking, Both, "security", true, "flows", "An OAuth2 flow was removed from a scheme.", OpenApi31,
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {}}, password: {tokenUrl: 'https://x/t', scopes: {}}}}}}",
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {}}}}}}";
    SecuritySchemeOauthScopeAdded => "security-scheme-oauth-scope-added", Info, Both, "security", true, "scopes", "An OAuth2 scope was added to a flow.", OpenApi31,
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {r: read}}}}}}",
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {r: read, w: write}}}}}}";
    SecuritySchemeOauthScopeRemoved => "security-scheme-oauth-scope-removed", Breaking, Both, "security", true, "scopes", "An OAuth2 scope was removed from a flow.", OpenApi31,
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {r: read, w: write}}}}}}",
        "components: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/t', scopes: {r: read}}}}}}";
    SecuritySchemeOpenIdUrlChanged => "security-scheme-openid-url-changed", Warning, Both, "security", true, "openIdConnectUrl", "The OpenID Connect discovery URL changed.", OpenApi31,
        "components: {securitySchemes: {i: {type: openIdConnect, openIdConnectUrl: 'https://a/.well-known/openid-configuration'}}}",
        "components: {securitySchemes: {i: {type: openIdConnect, openIdConnectUrl: 'https://b/.well-known/openid-configuration'}}}";
    ServerAdded => "server-added", Info, Both, "servers", true, "url", "A server was added.", OpenApi31,
        "servers: [{url: 'https://a.example.com'}]\npaths: {}", "servers: [{url: 'https://a.example.com'}, {url: 'https://b.example.com'}]\npaths: {}";
    ServerRemoved => "server-removed", Breaking, Both, "servers", true, "url", "A server was removed.", OpenApi31,
        "servers: [{url: 'https://a.example.com'}, {url: 'https://b.example.com'}]\npaths: {}", "servers: [{url: 'https://a.example.com'}]\npaths: {}";
    ServerBasePathChanged => "server-base-path-changed", Breaking, Both, "servers", true, "basePath", "The base path of a server (Swagger 2.0 `basePath`) changed.", Swagger2,
        "host: api.example.com\nbasePath: /v1\npaths: {}", "host: api.example.com\nbasePath: /v2\npaths: {}";
    ServerVariableAdded => "server-variable-added", Warning, Both, "servers", true, "variables", "A server variable was added.", OpenApi31,
        "servers: [{url: 'https://api.example.com'}]\npaths: {}", "servers: [{url: 'https://api.example.com', variables: {region: {default: eu}}}]\npaths: {}";
    ServerVariableRemoved => "server-variable-removed", Breaking, Both, "servers", true, "variables", "A server variable was removed.", OpenApi31,
        "servers: [{url: 'https://api.example.com', variables: {region: {default: eu}}}]\npaths: {}", "servers: [{url: 'https://api.example.com'}]\npaths: {}";
    ServerVariableEnumValueAdded => "server-variable-enum-value-added", Info, Both, "servers", true, "enum", "A server variable accepts a new value.", OpenApi31,
        "servers: [{url: 'https://{r}.example.com', variables: {r: {default: eu, enum: [eu]}}}]\npaths: {}",
        "servers: [{url: 'https://{r}.example.com', variables: {r: {default: eu, enum: [eu, us]}}}]\npaths: {}";
    ServerVariableEnumValueRemoved => "server-variable-enum-value-removed", Breaking, Both, "servers", true, "enum", "A server variable no longer accepts a value.", OpenApi31,
        "servers: [{url: 'https://{r}.example.com', variables: {r: {default: eu, enum: [eu, us]}}}]\npaths: {}",
        "servers: [{url: 'https://{r}.example.com', variables: {r: {default: eu, enum: [eu]}}}]\npaths: {}";
    ServerVariableDefaultChanged => "server-variable-default-changed", Warning, Both, "servers", true, "default", "The default value of a server variable changed.", OpenApi31,
        "servers: [{url: 'https://{r}.example.com', variables: {r: {default: eu}}}]\npaths: {}",
        "servers: [{url: 'https://{r}.example.com', variables: {r: {default: us}}}]\npaths: {}";
    ServerProtocolChanged => "server-protocol-changed", Breaking, Both, "servers", true, "protocol", "The protocol of an AsyncAPI server changed.", AsyncApi26,
        "servers: {prod: {url: 'broker.example.com', protocol: kafka}}\nchannels: {}", "servers: {prod: {url: 'broker.example.com', protocol: amqp}}\nchannels: {}";
    ServerDescriptionChanged => "server-description-changed", Info, Both, "content", false, "description", "The description of a server changed.", OpenApi31,
        "servers: [{url: 'https://a.example.com', description: Old}]\npaths: {}", "servers: [{url: 'https://a.example.com', description: New}]\npaths: {}";
    EndpointServerAdded => "endpoint-server-added", Info, Both, "servers", true, "servers", "An operation-level server was added.", OpenApi31,
        "paths: {/a: {get: {servers: [{url: 'https://a.example.com'}], @R}}}", "paths: {/a: {get: {servers: [{url: 'https://a.example.com'}, {url: 'https://b.example.com'}], @R}}}";
    EndpointServerRemoved => "endpoint-server-removed", Breaking, Both, "servers", true, "servers", "An operation-level server was removed.", OpenApi31,
        "paths: {/a: {get: {servers: [{url: 'https://a.example.com'}, {url: 'https://b.example.com'}], @R}}}", "paths: {/a: {get: {servers: [{url: 'https://a.example.com'}], @R}}}";
    CallbackAdded => "callback-added", Info, Both, "callbacks", true, "callbacks", "A callback was added to an operation.", OpenApi31,
        "paths: {/a: {post: {@R}}}", "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {@R}}}}, @R}}}";
    CallbackRemoved => "callback-removed", Warning, Both, "callbacks", true, "callbacks", "A callback was removed from an operation.", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {@R}}}}, @R}}}", "paths: {/a: {post: {@R}}}";
    CallbackOperationAdded => "callback-operation-added", Info, Both, "callbacks", true, "callbacks", "A callback gained an operation.", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {@R}}}}, @R}}}",
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {@R}, put: {@R}}}}, @R}}}";
    CallbackOperationRemoved => "callback-operation-removed", Warning, Both, "callbacks", true, "callbacks", "A callback lost an operation.", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {@R}, put: {@R}}}}, @R}}}",
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {@R}}}}, @R}}}";
    CallbackParameterAdded => "callback-parameter-added", Info, Response, "callbacks", true, "name", "A parameter was added to a callback request (sent by the API: subscribers that do not read it are unaffected, required or not).", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {@R}}}}, @R}}}",
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}}, @R}}}";
    CallbackParameterRemoved => "callback-parameter-removed", Warning, Response, "callbacks", true, "name", "An optional parameter was removed from a callback request (subscribers that read it when present no longer get it).", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}}, @R}}}",
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {@R}}}}, @R}}}";
    CallbackRequiredParameterRemoved => "callback-required-parameter-removed", Breaking, Response, "callbacks", true, "required", "A required parameter was removed from a callback request (subscribers relying on it break).", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {parameters: [{name: q, in: query, required: true, schema: {type: string}}], @R}}}}, @R}}}",
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {@R}}}}, @R}}}";
    CallbackParameterBecameOptional => "callback-parameter-became-optional", Breaking, Response, "callbacks", true, "required", "A required callback request parameter became optional (the API may now leave out what subscribers rely on).", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {parameters: [{name: q, in: query, required: true, schema: {type: string}}], @R}}}}, @R}}}",
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}}, @R}}}";
    CallbackParameterBecameRequired => "callback-parameter-became-required", Info, Response, "callbacks", true, "required", "An optional callback request parameter became required (the API now always sends it).", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}}, @R}}}",
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {parameters: [{name: q, in: query, required: true, schema: {type: string}}], @R}}}}, @R}}}";
    CallbackParameterAllowEmptyValueAdded => "callback-parameter-allow-empty-value-added", Breaking, Response, "callbacks", true, "allowEmptyValue", "A callback request parameter may now be sent empty (subscribers expecting a value break).", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}}, @R}}}",
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {parameters: [{name: q, in: query, allowEmptyValue: true, schema: {type: string}}], @R}}}}, @R}}}";
    CallbackParameterAllowEmptyValueRemoved => "callback-parameter-allow-empty-value-removed", Info, Response, "callbacks", true, "allowEmptyValue", "A callback request parameter is no longer sent empty.", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {parameters: [{name: q, in: query, allowEmptyValue: true, schema: {type: string}}], @R}}}}, @R}}}",
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}}, @R}}}";
    CallbackParameterAllowReservedAdded => "callback-parameter-allow-reserved-added", Breaking, Response, "callbacks", true, "allowReserved", "A callback request query parameter may now carry reserved characters unencoded (subscribers decoding strictly break).", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {parameters: [{name: q, in: query, schema: {type: string}}], @R}}}}, @R}}}",
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {parameters: [{name: q, in: query, allowReserved: true, schema: {type: string}}], @R}}}}, @R}}}";
    CallbackBodyAdded => "callback-body-added", Info, Response, "callbacks", true, "requestBody", "A callback request (sent by the API) now carries a body, required or not (subscribers that do not read it are unaffected).", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {@R}}}}, @R}}}",
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {requestBody: {required: true, content: {application/json: {schema: {type: object}}}}, @R}}}}, @R}}}";
    CallbackBodyRemoved => "callback-body-removed", Breaking, Response, "callbacks", true, "requestBody", "A callback request no longer carries its body (subscribers reading it break).", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {requestBody: {content: {application/json: {schema: {type: object}}}}, @R}}}}, @R}}}",
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {@R}}}}, @R}}}";
    CallbackBodyBecameOptional => "callback-body-became-optional", Breaking, Response, "callbacks", true, "required", "A callback request body became optional (the API may now leave out what subscribers read).", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {requestBody: {required: true, content: {application/json: {schema: {type: object}}}}, @R}}}}, @R}}}",
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {requestBody: {content: {application/json: {schema: {type: object}}}}, @R}}}}, @R}}}";
    CallbackBodyBecameRequired => "callback-body-became-required", Info, Response, "callbacks", true, "required", "A callback request body became required (the API now always sends it).", OpenApi31,
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {requestBody: {content: {application/json: {schema: {type: object}}}}, @R}}}}, @R}}}",
        "paths: {/a: {post: {callbacks: {done: {'{$request.body#/url}': {post: {requestBody: {required: true, content: {application/json: {schema: {type: object}}}}, @R}}}}, @R}}}";
    ComponentSchemaAdded => "component-schema-added", Info, Both, "components", false, "schemas", "A reusable schema was added to the components.", OpenApi31,
        "components: {schemas: {}}", "components: {schemas: {Pet: {type: object}}}";
    ComponentSchemaRemoved => "component-schema-removed", Info, Both, "components", false, "schemas", "A reusable schema was removed from the components (uses of it are reported where they changed).", OpenApi31,
        "components: {schemas: {Pet: {type: object}}}", "components: {schemas: {}}";
    MessageOperationAdded => "message-operation-added", Info, Both, "asyncapi-operations", true, "channel", "An AsyncAPI operation was added.", AsyncApi26,
        "channels: {a: {}}", "channels: {a: {subscribe: {message: {payload: {type: string}}}}}";
    MessageOperationRemoved => "message-operation-removed", Breaking, Both, "asyncapi-operations", true, "channel", "An AsyncAPI operation was removed without being deprecated first.", AsyncApi26,
        "channels: {a: {subscribe: {message: {payload: {type: string}}}}}", "channels: {a: {}}";
    MessageOperationRemovedAfterDeprecation => "message-operation-removed-after-deprecation", Info, Both, "asyncapi-operations", true, "channel", "A deprecated AsyncAPI operation was removed.", AsyncApi30,
        "channels: {a: {address: a, messages: {m: {payload: {type: string}}}}}\noperations: {o: {action: send, channel: {$ref: '#/channels/a'}, x-deprecated: true, deprecated: true}}",
        "channels: {a: {address: a, messages: {m: {payload: {type: string}}}}}\noperations: {}";
    MessageOperationDeprecated => "message-operation-deprecated", Info, Both, "asyncapi-operations", true, "deprecated", "An AsyncAPI operation was marked deprecated.", AsyncApi30,
        "channels: {a: {address: a, messages: {m: {payload: {type: string}}}}}\noperations: {o: {action: send, channel: {$ref: '#/channels/a'}}}",
        "channels: {a: {address: a, messages: {m: {payload: {type: string}}}}}\noperations: {o: {action: send, channel: {$ref: '#/channels/a'}, deprecated: true}}";
    MessageOperationIdChanged => "message-operation-id-changed", Warning, Both, "asyncapi-operations", true, "operationId", "The operationId of an AsyncAPI operation changed.", AsyncApi26,
        "channels: {a: {subscribe: {operationId: onA, message: {payload: {type: string}}}}}", "channels: {a: {subscribe: {operationId: handleA, message: {payload: {type: string}}}}}";
    MessageOperationSummaryChanged => "message-operation-summary-changed", Info, Both, "content", false, "summary", "The summary of an AsyncAPI operation changed.", AsyncApi26,
        "channels: {a: {subscribe: {summary: Old, message: {payload: {type: string}}}}}", "channels: {a: {subscribe: {summary: New, message: {payload: {type: string}}}}}";
    MessageOperationDescriptionChanged => "message-operation-description-changed", Info, Both, "content", false, "description", "The description of an AsyncAPI operation changed.", AsyncApi26,
        "channels: {a: {subscribe: {description: Old, message: {payload: {type: string}}}}}", "channels: {a: {subscribe: {description: New, message: {payload: {type: string}}}}}";
    ReceivedMessageAdded => "received-message-added", Info, Receive, "messages", true, "message", "The application accepts a new message on an operation.", AsyncApi26,
        "channels: {a: {publish: {message: {oneOf: [{name: m1, payload: {type: string}}]}}}}",
        "channels: {a: {publish: {message: {oneOf: [{name: m1, payload: {type: string}}, {name: m2, payload: {type: string}}]}}}}";
    ReceivedMessageRemoved => "received-message-removed", Breaking, Receive, "messages", true, "message", "The application no longer accepts a message it used to receive.", AsyncApi26,
        "channels: {a: {publish: {message: {oneOf: [{name: m1, payload: {type: string}}, {name: m2, payload: {type: string}}]}}}}",
        "channels: {a: {publish: {message: {oneOf: [{name: m1, payload: {type: string}}]}}}}";
    SentMessageAdded => "sent-message-added", Warning, Send, "messages", true, "message", "The application sends a new kind of message on an operation (consumers must handle it).", AsyncApi26,
        "channels: {a: {subscribe: {message: {oneOf: [{name: m1, payload: {type: string}}]}}}}",
        "channels: {a: {subscribe: {message: {oneOf: [{name: m1, payload: {type: string}}, {name: m2, payload: {type: string}}]}}}}";
    SentMessageRemoved => "sent-message-removed", Warning, Send, "messages", true, "message", "The application no longer sends a kind of message.", AsyncApi26,
        "channels: {a: {subscribe: {message: {oneOf: [{name: m1, payload: {type: string}}, {name: m2, payload: {type: string}}]}}}}",
        "channels: {a: {subscribe: {message: {oneOf: [{name: m1, payload: {type: string}}]}}}}";
    MessageContentTypeChanged => "message-content-type-changed", Breaking, Both, "messages", true, "contentType", "The content type of a message changed.", AsyncApi26,
        "channels: {a: {subscribe: {message: {contentType: application/json, payload: {type: string}}}}}", "channels: {a: {subscribe: {message: {contentType: application/avro, payload: {type: string}}}}}";
    MessageSchemaFormatChanged => "message-schema-format-changed", Breaking, Both, "messages", true, "schemaFormat", "The schema format of a message payload changed.", AsyncApi26,
        "channels: {a: {subscribe: {message: {payload: {type: string}}}}}", "channels: {a: {subscribe: {message: {schemaFormat: 'application/vnd.apache.avro;version=1.9.0', payload: {type: string}}}}}";
    MessageCorrelationIdChanged => "message-correlation-id-changed", Warning, Both, "messages", true, "correlationId", "The correlation id location of a message changed.", AsyncApi26,
        "channels: {a: {subscribe: {message: {correlationId: {location: '$message.header#/id'}, payload: {type: string}}}}}",
        "channels: {a: {subscribe: {message: {correlationId: {location: '$message.header#/cid'}, payload: {type: string}}}}}";
    MessageDeprecated => "message-deprecated", Info, Both, "messages", true, "deprecated", "A message was marked deprecated.", AsyncApi30,
        "channels: {a: {address: a, messages: {m: {payload: {type: string}}}}}\noperations: {o: {action: send, channel: {$ref: '#/channels/a'}, messages: [{$ref: '#/channels/a/messages/m'}]}}",
        "channels: {a: {address: a, messages: {m: {deprecated: true, payload: {type: string}}}}}\noperations: {o: {action: send, channel: {$ref: '#/channels/a'}, messages: [{$ref: '#/channels/a/messages/m'}]}}";
    MessageDescriptionChanged => "message-description-changed", Info, Both, "content", false, "description", "The title, summary or description of a message changed.", AsyncApi26,
        "channels: {a: {subscribe: {message: {description: Old, payload: {type: string}}}}}", "channels: {a: {subscribe: {message: {description: New, payload: {type: string}}}}}";
    MessagePayloadAdded => "message-payload-added", Warning, Both, "messages", true, "payload", "A message that had no payload schema now has one.", AsyncApi26,
        "channels: {a: {subscribe: {message: {name: m}}}}", "channels: {a: {subscribe: {message: {name: m, payload: {type: string}}}}}";
    MessagePayloadRemoved => "message-payload-removed", Warning, Both, "messages", true, "payload", "A message no longer declares its payload schema.", AsyncApi26,
        "channels: {a: {subscribe: {message: {name: m, payload: {type: string}}}}}", "channels: {a: {subscribe: {message: {name: m}}}}";
    ChannelAdded => "channel-added", Info, Both, "channels", true, "address", "A channel was added.", AsyncApi26,
        "channels: {}", "channels: {a: {}}";
    ChannelRemoved => "channel-removed", Warning, Both, "channels", true, "address", "A channel was removed.", AsyncApi26,
        "channels: {a: {}}", "channels: {}";
    ChannelParameterAdded => "channel-parameter-added", Breaking, Both, "channels", true, "parameters", "A channel parameter was added.", AsyncApi26,
        "channels: {'a/{x}': {parameters: {x: {schema: {type: string}}}}}", "channels: {'a/{x}': {parameters: {x: {schema: {type: string}}, y: {schema: {type: string}}}}}";
    ChannelParameterRemoved => "channel-parameter-removed", Breaking, Both, "channels", true, "parameters", "A channel parameter was removed.", AsyncApi26,
        "channels: {'a/{x}': {parameters: {x: {schema: {type: string}}, y: {schema: {type: string}}}}}", "channels: {'a/{x}': {parameters: {x: {schema: {type: string}}}}}";
    ChannelDescriptionChanged => "channel-description-changed", Info, Both, "content", false, "description", "The description of a channel changed.", AsyncApi26,
        "channels: {a: {description: Old}}", "channels: {a: {description: New}}";
}

/// Where a schema sits, which decides both the rule-id prefix and how a change is judged.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Role {
    RequestParameter,
    RequestBody,
    ResponseBody,
    ResponseHeader,
    MessageReceived,
    MessageSent,
    ChannelParameter,
    /// A parameter of a callback request: sent by the API, read by the subscriber.
    CallbackParameter,
}

/// All roles, in catalogue order.
pub(crate) const ROLES: [Role; 8] = [
    Role::RequestParameter,
    Role::RequestBody,
    Role::ResponseBody,
    Role::ResponseHeader,
    Role::MessageReceived,
    Role::MessageSent,
    Role::ChannelParameter,
    Role::CallbackParameter,
];

impl Role {
    /// The rule-id prefix.
    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Role::RequestParameter => "request-parameter",
            Role::RequestBody => "request-body",
            Role::ResponseBody => "response-body",
            Role::ResponseHeader => "response-header",
            Role::MessageReceived => "message-received",
            Role::MessageSent => "message-sent",
            Role::ChannelParameter => "channel-parameter",
            Role::CallbackParameter => "callback-parameter",
        }
    }

    /// True when data in this role is written by clients and read by the API (contravariant).
    pub(crate) fn contravariant(self) -> bool {
        matches!(
            self,
            Role::RequestParameter
                | Role::RequestBody
                | Role::MessageReceived
                | Role::ChannelParameter
        )
    }

    pub(crate) fn side(self) -> Side {
        match self {
            Role::RequestParameter | Role::RequestBody | Role::ChannelParameter => Side::Request,
            Role::ResponseBody | Role::ResponseHeader | Role::CallbackParameter => Side::Response,
            Role::MessageReceived => Side::Receive,
            Role::MessageSent => Side::Send,
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// Describes the schema's place, for summaries.
    fn noun(self) -> &'static str {
        match self {
            Role::RequestParameter => "a request parameter's schema",
            Role::RequestBody => "a request body schema",
            Role::ResponseBody => "a response body schema",
            Role::ResponseHeader => "a response header's schema",
            Role::MessageReceived => "the payload or headers of a message the application receives",
            Role::MessageSent => "the payload or headers of a message the application sends",
            Role::ChannelParameter => "a channel parameter's schema",
            Role::CallbackParameter => {
                "a callback request parameter's schema (sent by the API to subscribers)"
            }
        }
    }
}

macro_rules! schema_checks {
    ($( $variant:ident => $suffix:literal, $contra:ident, $co:ident, $structural:literal, $attr:literal, $summary:literal, $prev:literal, $cur:literal; )*) => {
        /// Schema checks, by name (the discriminant indexes [`CHECKS`]).
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub(crate) enum S { $( $variant, )* }
        /// One schema check: its level when the schema is read by the API (contravariant) and
        /// when it is produced by the API (covariant).
        pub(crate) struct Check {
            pub suffix: &'static str,
            pub contra: Level,
            pub co: Level,
            pub structural: bool,
            pub attribute: &'static str,
            pub summary: &'static str,
            pub previous: &'static str,
            pub current: &'static str,
        }
        /// The schema check table.
        pub(crate) const CHECKS: &[Check] = &[ $( Check {
            suffix: $suffix, contra: Level::$contra, co: Level::$co, structural: $structural,
            attribute: $attr, summary: $summary, previous: $prev, current: $cur,
        }, )* ];
    };
}

schema_checks! {
    TypeChanged => "type-changed", Breaking, Breaking, true, "type", "The type changed to an incompatible one", r#"{"type":"integer"}"#, r#"{"type":"string"}"#;
    TypeGeneralized => "type-generalized", Info, Breaking, true, "type", "The type was widened (integer to number, or a type added to a type list)", r#"{"type":"integer"}"#, r#"{"type":"number"}"#;
    TypeNarrowed => "type-narrowed", Breaking, Info, true, "type", "The type was narrowed (number to integer, or a type removed from a type list)", r#"{"type":"number"}"#, r#"{"type":"integer"}"#;
    BecameNullable => "became-nullable", Info, Breaking, true, "nullable", "The value became nullable", r#"{"type":"string"}"#, r#"{"type":["string","null"]}"#;
    BecameNotNullable => "became-not-nullable", Breaking, Info, true, "nullable", "The value is no longer nullable", r#"{"type":["string","null"]}"#, r#"{"type":"string"}"#;
    FormatChanged => "format-changed", Breaking, Breaking, true, "format", "The format changed", r#"{"type":"string","format":"date"}"#, r#"{"type":"string","format":"uuid"}"#;
    FormatSet => "format-set", Warning, Info, true, "format", "A format was set", r#"{"type":"string"}"#, r#"{"type":"string","format":"email"}"#;
    FormatUnset => "format-unset", Info, Warning, true, "format", "The format was removed", r#"{"type":"string","format":"email"}"#, r#"{"type":"string"}"#;
    EnumValueAdded => "enum-value-added", Info, Warning, true, "enum", "An allowed value was added to an enum (or const)", r#"{"type":"string","enum":["a"]}"#, r#"{"type":"string","enum":["a","b"]}"#;
    EnumValueRemoved => "enum-value-removed", Breaking, Info, true, "enum", "An allowed value was removed from an enum (or const)", r#"{"type":"string","enum":["a","b"]}"#, r#"{"type":"string","enum":["a"]}"#;
    EnumSet => "enum-set", Breaking, Info, true, "enum", "The values were restricted to an enum (or const)", r#"{"type":"string"}"#, r#"{"type":"string","enum":["a"]}"#;
    EnumUnset => "enum-unset", Info, Warning, true, "enum", "The enum (or const) restriction was removed", r#"{"type":"string","enum":["a"]}"#, r#"{"type":"string"}"#;
    MaxDecreased => "max-decreased", Breaking, Info, true, "maximum", "The maximum (or exclusive maximum) was lowered", r#"{"type":"integer","maximum":10}"#, r#"{"type":"integer","maximum":5}"#;
    MaxIncreased => "max-increased", Info, Warning, true, "maximum", "The maximum was raised", r#"{"type":"integer","maximum":5}"#, r#"{"type":"integer","maximum":10}"#;
    MaxSet => "max-set", Breaking, Info, true, "maximum", "A maximum was set", r#"{"type":"integer"}"#, r#"{"type":"integer","maximum":10}"#;
    MaxUnset => "max-unset", Info, Warning, true, "maximum", "The maximum was removed", r#"{"type":"integer","maximum":10}"#, r#"{"type":"integer"}"#;
    MinIncreased => "min-increased", Breaking, Info, true, "minimum", "The minimum (or exclusive minimum) was raised", r#"{"type":"integer","minimum":1}"#, r#"{"type":"integer","minimum":5}"#;
    MinDecreased => "min-decreased", Info, Warning, true, "minimum", "The minimum was lowered", r#"{"type":"integer","minimum":5}"#, r#"{"type":"integer","minimum":1}"#;
    MinSet => "min-set", Breaking, Info, true, "minimum", "A minimum was set", r#"{"type":"integer"}"#, r#"{"type":"integer","minimum":1}"#;
    MinUnset => "min-unset", Info, Warning, true, "minimum", "The minimum was removed", r#"{"type":"integer","minimum":1}"#, r#"{"type":"integer"}"#;
    MaxLengthDecreased => "max-length-decreased", Breaking, Info, true, "maxLength", "The maximum length was lowered", r#"{"type":"string","maxLength":10}"#, r#"{"type":"string","maxLength":5}"#;
    MaxLengthIncreased => "max-length-increased", Info, Warning, true, "maxLength", "The maximum length was raised", r#"{"type":"string","maxLength":5}"#, r#"{"type":"string","maxLength":10}"#;
    MaxLengthSet => "max-length-set", Breaking, Info, true, "maxLength", "A maximum length was set", r#"{"type":"string"}"#, r#"{"type":"string","maxLength":10}"#;
    MaxLengthUnset => "max-length-unset", Info, Warning, true, "maxLength", "The maximum length was removed", r#"{"type":"string","maxLength":10}"#, r#"{"type":"string"}"#;
    MinLengthIncreased => "min-length-increased", Breaking, Info, true, "minLength", "The minimum length was raised", r#"{"type":"string","minLength":1}"#, r#"{"type":"string","minLength":3}"#;
    MinLengthDecreased => "min-length-decreased", Info, Warning, true, "minLength", "The minimum length was lowered", r#"{"type":"string","minLength":3}"#, r#"{"type":"string","minLength":1}"#;
    MaxItemsDecreased => "max-items-decreased", Breaking, Info, true, "maxItems", "The maximum number of items was lowered", r#"{"type":"array","items":{"type":"string"},"maxItems":10}"#, r#"{"type":"array","items":{"type":"string"},"maxItems":5}"#;
    MaxItemsIncreased => "max-items-increased", Info, Warning, true, "maxItems", "The maximum number of items was raised", r#"{"type":"array","items":{"type":"string"},"maxItems":5}"#, r#"{"type":"array","items":{"type":"string"},"maxItems":10}"#;
    MaxItemsSet => "max-items-set", Breaking, Info, true, "maxItems", "A maximum number of items was set", r#"{"type":"array","items":{"type":"string"}}"#, r#"{"type":"array","items":{"type":"string"},"maxItems":10}"#;
    MaxItemsUnset => "max-items-unset", Info, Warning, true, "maxItems", "The maximum number of items was removed", r#"{"type":"array","items":{"type":"string"},"maxItems":10}"#, r#"{"type":"array","items":{"type":"string"}}"#;
    MinItemsIncreased => "min-items-increased", Breaking, Info, true, "minItems", "The minimum number of items was raised", r#"{"type":"array","items":{"type":"string"},"minItems":1}"#, r#"{"type":"array","items":{"type":"string"},"minItems":2}"#;
    MinItemsDecreased => "min-items-decreased", Info, Warning, true, "minItems", "The minimum number of items was lowered", r#"{"type":"array","items":{"type":"string"},"minItems":2}"#, r#"{"type":"array","items":{"type":"string"},"minItems":1}"#;
    MaxPropertiesDecreased => "max-properties-decreased", Breaking, Info, true, "maxProperties", "The maximum number of properties was lowered", r#"{"type":"object","maxProperties":10}"#, r#"{"type":"object","maxProperties":5}"#;
    MaxPropertiesIncreased => "max-properties-increased", Info, Warning, true, "maxProperties", "The maximum number of properties was raised", r#"{"type":"object","maxProperties":5}"#, r#"{"type":"object","maxProperties":10}"#;
    MaxPropertiesSet => "max-properties-set", Breaking, Info, true, "maxProperties", "A maximum number of properties was set", r#"{"type":"object"}"#, r#"{"type":"object","maxProperties":10}"#;
    MaxPropertiesUnset => "max-properties-unset", Info, Warning, true, "maxProperties", "The maximum number of properties was removed", r#"{"type":"object","maxProperties":10}"#, r#"{"type":"object"}"#;
    MinPropertiesIncreased => "min-properties-increased", Breaking, Info, true, "minProperties", "The minimum number of properties was raised", r#"{"type":"object","minProperties":1}"#, r#"{"type":"object","minProperties":2}"#;
    MinPropertiesDecreased => "min-properties-decreased", Info, Warning, true, "minProperties", "The minimum number of properties was lowered", r#"{"type":"object","minProperties":2}"#, r#"{"type":"object","minProperties":1}"#;
    PatternChanged => "pattern-changed", Breaking, Warning, true, "pattern", "The pattern changed", r#"{"type":"string","pattern":"^[a-z]+$"}"#, r#"{"type":"string","pattern":"^[0-9]+$"}"#;
    PatternSet => "pattern-set", Breaking, Info, true, "pattern", "A pattern was set", r#"{"type":"string"}"#, r#"{"type":"string","pattern":"^[a-z]+$"}"#;
    PatternUnset => "pattern-unset", Info, Warning, true, "pattern", "The pattern was removed", r#"{"type":"string","pattern":"^[a-z]+$"}"#, r#"{"type":"string"}"#;
    MultipleOfChanged => "multiple-of-changed", Breaking, Warning, true, "multipleOf", "The multipleOf constraint changed", r#"{"type":"integer","multipleOf":2}"#, r#"{"type":"integer","multipleOf":3}"#;
    MultipleOfSet => "multiple-of-set", Breaking, Info, true, "multipleOf", "A multipleOf constraint was set", r#"{"type":"integer"}"#, r#"{"type":"integer","multipleOf":2}"#;
    MultipleOfUnset => "multiple-of-unset", Info, Warning, true, "multipleOf", "The multipleOf constraint was removed", r#"{"type":"integer","multipleOf":2}"#, r#"{"type":"integer"}"#;
    UniqueItemsSet => "unique-items-set", Breaking, Info, true, "uniqueItems", "Items must now be unique", r#"{"type":"array","items":{"type":"string"}}"#, r#"{"type":"array","items":{"type":"string"},"uniqueItems":true}"#;
    UniqueItemsUnset => "unique-items-unset", Info, Warning, true, "uniqueItems", "Items no longer have to be unique", r#"{"type":"array","items":{"type":"string"},"uniqueItems":true}"#, r#"{"type":"array","items":{"type":"string"}}"#;
    PropertyAdded => "property-added", Info, Info, true, "properties", "An optional property was added", r#"{"type":"object","properties":{"a":{"type":"string"}}}"#, r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}"#;
    RequiredPropertyAdded => "required-property-added", Breaking, Info, true, "required", "A required property was added", r#"{"type":"object","properties":{"a":{"type":"string"}}}"#, r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["b"]}"#;
    PropertyRemoved => "property-removed", Warning, Breaking, true, "properties", "A property was removed without being deprecated first", r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}"#, r#"{"type":"object","properties":{"a":{"type":"string"}}}"#;
    DeprecatedPropertyRemoved => "deprecated-property-removed", Info, Info, true, "properties", "A deprecated property was removed", r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string","deprecated":true}}}"#, r#"{"type":"object","properties":{"a":{"type":"string"}}}"#;
    PropertyBecameRequired => "property-became-required", Breaking, Info, true, "required", "An optional property became required", r#"{"type":"object","properties":{"a":{"type":"string"}}}"#, r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}"#;
    PropertyBecameOptional => "property-became-optional", Info, Breaking, true, "required", "A required property became optional", r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}"#, r#"{"type":"object","properties":{"a":{"type":"string"}}}"#;
    PropertyBecameReadOnly => "property-became-read-only", Warning, Info, true, "readOnly", "A property became read-only (clients can no longer set it)", r#"{"type":"object","properties":{"a":{"type":"string"}}}"#, r#"{"type":"object","properties":{"a":{"type":"string","readOnly":true}}}"#;
    PropertyBecameWriteOnly => "property-became-write-only", Info, Breaking, true, "writeOnly", "A property became write-only (it is no longer returned)", r#"{"type":"object","properties":{"a":{"type":"string"}}}"#, r#"{"type":"object","properties":{"a":{"type":"string","writeOnly":true}}}"#;
    PropertyDeprecated => "property-deprecated", Info, Info, true, "deprecated", "A property or schema was marked deprecated", r#"{"type":"object","properties":{"a":{"type":"string"}}}"#, r#"{"type":"object","properties":{"a":{"type":"string","deprecated":true}}}"#;
    AdditionalPropertiesNarrowed => "additional-properties-narrowed", Breaking, Info, true, "additionalProperties", "Additional (or unevaluated) properties are no longer allowed", r#"{"type":"object"}"#, r#"{"type":"object","additionalProperties":false}"#;
    AdditionalPropertiesWidened => "additional-properties-widened", Info, Warning, true, "additionalProperties", "Additional (or unevaluated) properties are now allowed", r#"{"type":"object","additionalProperties":false}"#, r#"{"type":"object"}"#;
    OneOfAdded => "one-of-added", Info, Warning, true, "oneOf", "A oneOf alternative was added", r#"{"oneOf":[{"type":"string"}]}"#, r#"{"oneOf":[{"type":"string"},{"type":"integer"}]}"#;
    OneOfRemoved => "one-of-removed", Breaking, Info, true, "oneOf", "A oneOf alternative was removed", r#"{"oneOf":[{"type":"string"},{"type":"integer"}]}"#, r#"{"oneOf":[{"type":"string"}]}"#;
    AnyOfAdded => "any-of-added", Info, Warning, true, "anyOf", "An anyOf alternative was added", r#"{"anyOf":[{"type":"string"}]}"#, r#"{"anyOf":[{"type":"string"},{"type":"integer"}]}"#;
    AnyOfRemoved => "any-of-removed", Breaking, Info, true, "anyOf", "An anyOf alternative was removed", r#"{"anyOf":[{"type":"string"},{"type":"integer"}]}"#, r#"{"anyOf":[{"type":"string"}]}"#;
    AllOfAdded => "all-of-added", Breaking, Info, true, "allOf", "An allOf member was added", r#"{"allOf":[{"type":"object"}]}"#, r#"{"allOf":[{"type":"object"},{"required":["a"]}]}"#;
    AllOfRemoved => "all-of-removed", Info, Warning, true, "allOf", "An allOf member was removed", r#"{"allOf":[{"type":"object"},{"required":["a"]}]}"#, r#"{"allOf":[{"type":"object"}]}"#;
    DiscriminatorChanged => "discriminator-changed", Breaking, Breaking, true, "discriminator", "The discriminator property or mapping changed", r#"{"type":"object","discriminator":{"propertyName":"kind"}}"#, r#"{"type":"object","discriminator":{"propertyName":"type"}}"#;
    DefaultChanged => "default-changed", Warning, Info, true, "default", "The default value changed", r#"{"type":"integer","default":1}"#, r#"{"type":"integer","default":2}"#;
    TupleItemAdded => "tuple-item-added", Warning, Warning, true, "prefixItems", "A positional (prefixItems) item was added", r#"{"type":"array","prefixItems":[{"type":"string"}]}"#, r#"{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}"#;
    TupleItemRemoved => "tuple-item-removed", Warning, Warning, true, "prefixItems", "A positional (prefixItems) item was removed", r#"{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}"#, r#"{"type":"array","prefixItems":[{"type":"string"}]}"#;
    ConditionalAdded => "conditional-added", Breaking, Info, true, "if", "An if/then/else condition was added", r#"{"type":"object"}"#, r#"{"type":"object","if":{"required":["a"]},"then":{"required":["b"]}}"#;
    ConditionalRemoved => "conditional-removed", Info, Warning, true, "if", "An if/then/else condition was removed", r#"{"type":"object","if":{"required":["a"]},"then":{"required":["b"]}}"#, r#"{"type":"object"}"#;
    DependentRequiredAdded => "dependent-required-added", Breaking, Info, true, "dependentRequired", "A dependentRequired constraint was added", r#"{"type":"object"}"#, r#"{"type":"object","dependentRequired":{"a":["b"]}}"#;
    DependentRequiredRemoved => "dependent-required-removed", Info, Warning, true, "dependentRequired", "A dependentRequired constraint was removed", r#"{"type":"object","dependentRequired":{"a":["b"]}}"#, r#"{"type":"object"}"#;
    NotAdded => "not-added", Breaking, Info, true, "not", "A `not` exclusion was added", r#"{"type":"string"}"#, r#"{"type":"string","not":{"enum":["x"]}}"#;
    NotRemoved => "not-removed", Info, Warning, true, "not", "A `not` exclusion was removed", r#"{"type":"string","not":{"enum":["x"]}}"#, r#"{"type":"string"}"#;
    ContentMediaTypeChanged => "content-media-type-changed", Warning, Warning, true, "contentMediaType", "The contentMediaType or contentEncoding changed", r#"{"type":"string","contentEncoding":"base64"}"#, r#"{"type":"string","contentEncoding":"base32"}"#;
    PatternPropertyAdded => "pattern-property-added", Warning, Info, true, "patternProperties", "A patternProperties entry was added (properties whose names match it are now constrained)", r#"{"type":"object"}"#, r#"{"type":"object","patternProperties":{"^x-":{"type":"string"}}}"#;
    PatternPropertyRemoved => "pattern-property-removed", Info, Warning, true, "patternProperties", "A patternProperties entry was removed", r#"{"type":"object","patternProperties":{"^x-":{"type":"string"}}}"#, r#"{"type":"object"}"#;
    DependentSchemaAdded => "dependent-schema-added", Breaking, Info, true, "dependentSchemas", "A dependentSchemas entry was added (a property now brings extra constraints)", r#"{"type":"object"}"#, r#"{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}"#;
    DependentSchemaRemoved => "dependent-schema-removed", Info, Warning, true, "dependentSchemas", "A dependentSchemas entry was removed", r#"{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}"#, r#"{"type":"object"}"#;
    DescriptionChanged => "description-changed", Info, Info, false, "description", "The description changed", r#"{"type":"string","description":"Old"}"#, r#"{"type":"string","description":"New"}"#;
    TitleChanged => "title-changed", Info, Info, false, "title", "The title changed", r#"{"type":"string","title":"Old"}"#, r#"{"type":"string","title":"New"}"#;
    ExampleChanged => "example-changed", Info, Info, false, "example", "The example(s) changed", r#"{"type":"string","example":"old"}"#, r#"{"type":"string","example":"new"}"#;
}

/// A rule's index in the [`catalogue`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleId(pub(crate) u16);

impl RuleId {
    pub(crate) fn base(b: B) -> RuleId {
        RuleId(b as u16)
    }
    pub(crate) fn schema(role: Role, check: S) -> RuleId {
        RuleId((BASE.len() + role.index() * CHECKS.len() + check as usize) as u16)
    }
    /// The catalogue entry.
    pub fn rule(self) -> &'static Rule {
        &catalogue()[self.0 as usize]
    }
    /// The stable id.
    pub fn id(self) -> &'static str {
        &self.rule().id
    }
}

/// Wraps a schema snippet into a complete example document for a role.
fn schema_example(role: Role, schema: &str) -> (Template, String) {
    match role {
        Role::RequestParameter => (
            Template::OpenApi31,
            format!(
                "paths:\n  /a:\n    get:\n      parameters:\n        - name: p\n          in: query\n          schema: {schema}\n      {}\n",
                expand("@R")
            ),
        ),
        Role::RequestBody => (
            Template::OpenApi31,
            format!(
                "paths:\n  /a:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema: {schema}\n      {}\n",
                expand("@R")
            ),
        ),
        Role::ResponseBody => (
            Template::OpenApi31,
            format!(
                "paths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {schema}\n"
            ),
        ),
        Role::ResponseHeader => (
            Template::OpenApi31,
            format!(
                "paths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          headers:\n            X-A:\n              schema: {schema}\n"
            ),
        ),
        Role::MessageReceived => (
            Template::AsyncApi26,
            format!(
                "channels:\n  a:\n    publish:\n      message:\n        name: m\n        payload: {schema}\n"
            ),
        ),
        Role::MessageSent => (
            Template::AsyncApi26,
            format!(
                "channels:\n  a:\n    subscribe:\n      message:\n        name: m\n        payload: {schema}\n"
            ),
        ),
        Role::CallbackParameter => (
            Template::OpenApi31,
            format!(
                "paths:\n  /a:\n    post:\n      callbacks:\n        done:\n          '{{$request.body#/url}}':\n            post:\n              parameters:\n                - name: p\n                  in: query\n                  schema: {schema}\n              {}\n      {}\n",
                expand("@R"),
                expand("@R")
            ),
        ),
        Role::ChannelParameter => (
            Template::AsyncApi26,
            format!(
                "channels:\n  'a/{{p}}':\n    parameters:\n      p:\n        schema: {schema}\n"
            ),
        ),
    }
}

/// The whole catalogue: base rules first, then one rule per (role, schema check).
pub fn catalogue() -> &'static [Rule] {
    static CATALOGUE: OnceLock<Vec<Rule>> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let mut rules = Vec::with_capacity(BASE.len() + ROLES.len() * CHECKS.len());
        for b in BASE {
            rules.push(Rule {
                id: b.id.to_string(),
                level: b.level,
                side: b.side,
                family: b.family,
                structural: b.structural,
                attribute: b.attribute,
                summary: b.summary.to_string(),
                schema: false,
                example: Example {
                    template: b.template,
                    previous: format!("{}{}\n", b.template.header(), expand(b.previous)),
                    current: format!("{}{}\n", b.template.header(), expand(b.current)),
                },
            });
        }
        for role in ROLES {
            for c in CHECKS {
                let (template, previous) = schema_example(role, c.previous);
                let (_, current) = schema_example(role, c.current);
                rules.push(Rule {
                    id: format!("{}-{}", role.prefix(), c.suffix),
                    level: if role.contravariant() { c.contra } else { c.co },
                    side: role.side(),
                    family: role.prefix(),
                    structural: c.structural,
                    attribute: c.attribute,
                    summary: format!("{} in {}.", c.summary, role.noun()),
                    schema: true,
                    example: Example {
                        template,
                        previous: format!("{}{}", template.header(), previous),
                        current: format!("{}{}", template.header(), current),
                    },
                });
            }
        }
        rules
    })
}

/// Looks a rule up by its id.
pub fn find_rule(id: &str) -> Option<RuleId> {
    catalogue()
        .iter()
        .position(|r| r.id == id)
        .map(|i| RuleId(i as u16))
}

/// The catalogue as a Markdown document (the content of `docs/diff-rules.md`).
pub fn catalogue_markdown() -> String {
    let rules = catalogue();
    let count = |l: Level| rules.iter().filter(|r| r.level == l).count();
    let mut out = String::new();
    out.push_str("# Diff rules\n\n");
    out.push_str("<!-- Generated from shared/diff/src/rules.rs by `SPECPRESS_REGENERATE_DOCS=1 cargo test -p specpress-diff --test rules_doc`. Do not edit. -->\n\n");
    out.push_str(&format!(
        "{} rules: {} breaking, {} warning, {} info. Levels are defaults; `specpress diff --level RULE=LEVEL` and \
         `--ignore RULE[@METHOD /path]` (or `DiffOptions`) change them.\n\n",
        rules.len(),
        count(Level::Breaking),
        count(Level::Warning),
        count(Level::Info)
    ));
    out.push_str(
        "Schema rules are named `<role>-<check>`. The role says where the schema sits and how it is judged: data \
         clients send (`request-parameter`, `request-body`, `channel-parameter`, and `message-received` for a message \
         the application receives) is judged contravariantly, so narrowing breaks; data the API produces \
         (`response-body`, `response-header`, `callback-parameter` for a parameter of a callback request the API sends, and `message-sent` for a message the application sends) is judged \
         covariantly, so widening or removing breaks. A change inside a shared component is reported once, at the \
         component, with the list of affected operations. Content-only rules (descriptions, summaries, titles, \
         examples) are marked `content`: they never make a diff structural.\n\n",
    );
    out.push_str(
        "A breaking change is one change of level breaking, reported once, at the node where it was found. \
         Every rendering counts the same thing: the Markdown headline, the text's `[Breaking] ` lines (one per \
         breaking change), the HTML's breaking badges and the JSON's `changes[]` entries whose `level` is \
         `breaking`. The JSON `breaking` flag of an item says that a breaking change lies under it (its own \
         changes, its children, or the shared component a `schema` link item points at through `ref`), so it can \
         always be followed down to that change; an operation using a component that leads to a breaking change, \
         directly or through components that did not change, is flagged and links to it.\n\n",
    );
    let mut families: Vec<&str> = Vec::new();
    for r in rules {
        if !families.contains(&r.family) {
            families.push(r.family);
        }
    }
    for family in families {
        out.push_str(&format!(
            "\n## {family}\n\n| rule id | level | side | kind | what changed | example (previous → current) |\n|---|---|---|---|---|---|\n"
        ));
        for (i, r) in rules.iter().enumerate().filter(|(_, r)| r.family == family) {
            let example = if i < BASE.len() {
                let b = &BASE[i];
                format!(
                    "`{}` → `{}`",
                    md_cell(&expand(b.previous)),
                    md_cell(&expand(b.current))
                )
            } else {
                let c = &CHECKS[(i - BASE.len()) % CHECKS.len()];
                format!("`{}` → `{}`", md_cell(c.previous), md_cell(c.current))
            };
            out.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | {} |\n",
                r.id,
                r.level,
                r.side.as_str(),
                if r.structural {
                    "structural"
                } else {
                    "content"
                },
                md_cell(&r.summary),
                example
            ));
        }
    }
    out
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_are_unique_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for r in catalogue() {
            assert!(seen.insert(r.id.clone()), "duplicate rule id {}", r.id);
            assert!(
                r.id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{} is not kebab-case",
                r.id
            );
        }
    }

    #[test]
    fn rule_id_helpers_index_the_catalogue() {
        assert_eq!(RuleId::base(B::EndpointRemoved).id(), "endpoint-removed");
        assert_eq!(
            RuleId::schema(Role::ResponseBody, S::PropertyRemoved).id(),
            "response-body-property-removed"
        );
        assert_eq!(
            RuleId::schema(Role::ResponseBody, S::PropertyRemoved)
                .rule()
                .level,
            Level::Breaking
        );
        assert_eq!(
            RuleId::schema(Role::RequestBody, S::PropertyRemoved)
                .rule()
                .level,
            Level::Warning
        );
        assert_eq!(
            find_rule("message-sent-property-removed").map(|r| r.rule().level),
            Some(Level::Breaking)
        );
    }
}

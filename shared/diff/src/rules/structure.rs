//! The structure rules (operations, parameters, bodies, responses, security, servers,
//! callbacks, components, AsyncAPI operations, messages and channels): one row each, in
//! catalogue order.

use super::{Level, Side, Template};

macro_rules! structure_rules {
    ($( $variant:ident => $id:literal, $level:ident, $side:ident, $family:literal, $structural:literal, $attr:literal, $summary:literal, $tpl:ident, $prev:literal, $cur:literal; )*) => {
        /// Structure (non-schema) rules, by name (the discriminant indexes [`STRUCTURE`]).
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        #[allow(clippy::enum_variant_names)]
        pub(crate) enum StructureRule { $( $variant, )* }
        /// One row of the structure table.
        pub(crate) struct StructureRow {
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
        /// The structure table.
        pub(crate) const STRUCTURE: &[StructureRow] = &[ $( StructureRow {
            id: $id, level: Level::$level, side: Side::$side, family: $family, structural: $structural,
            attribute: $attr, summary: $summary, template: Template::$tpl, previous: $prev, current: $cur,
        }, )* ];
    };
}

structure_rules! {
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
    BetaStarted => "beta-started", Info, Both, "beta", true, "x-beta", "An element (operation, webhook, parameter, request body, response, schema property, AsyncAPI operation or message) was marked `x-beta: true`. This diff still judges its changes normally (clients relied on it until now); from the next version on they are never breaking.", OpenApi31,
        "paths: {/a: {get: {@R}}}", "paths: {/a: {get: {x-beta: true, @R}}}";
    BetaEnded => "beta-ended", Info, Both, "beta", true, "x-beta", "An element is no longer marked `x-beta: true`: it left beta (graduated), and its later changes are judged normally. Its changes in this diff are still judged as beta (not breaking).", OpenApi31,
        "paths: {/a: {get: {x-beta: true, @R}}}", "paths: {/a: {get: {@R}}}";
    StabilityLevelLowered => "stability-level-lowered", Breaking, Both, "beta", true, "x-stability-level", "The `x-stability-level` of an element (operation, webhook, parameter, request body, response, named schema, schema property, AsyncAPI operation or message) was lowered (`stable` → `beta` → `alpha` → `draft`): it withdraws a compatibility promise clients relied on. A missing or unknown level counts as `stable`.", OpenApi31,
        "paths: {/a: {get: {x-stability-level: stable, @R}}}", "paths: {/a: {get: {x-stability-level: beta, @R}}}";
    StabilityLevelRaised => "stability-level-raised", Info, Both, "beta", true, "x-stability-level", "The `x-stability-level` of an element was raised (`draft` → `alpha` → `beta` → `stable`); its changes in this diff are still judged at its previous level.", OpenApi31,
        "paths: {/a: {get: {x-stability-level: alpha, @R}}}", "paths: {/a: {get: {x-stability-level: beta, @R}}}";
}

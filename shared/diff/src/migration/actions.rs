//! What a client must do, one sentence per rule: the engine's own words (no document string;
//! the note names the element and its values around them).
//!
//! Structure rules are looked up by id; schema rules by their check (the id without its role
//! prefix) and by which way the data flows: `sends` when clients write the value (request
//! parameters and bodies, channel parameters, messages the application receives), else clients
//! read it (responses, response headers, callback requests, messages the application sends). A
//! rule with no sentence of its own (one made breaking by an override, or a new rule) gets the
//! generic sentence of its side ([`generic`]); a test keeps every rule breaking by default off
//! that fallback.

use crate::rules::Side;

/// The sentence of a structure rule breaking by default.
pub(crate) fn structure(id: &str) -> Option<&'static str> {
    Some(match id {
        "endpoint-removed" | "endpoint-removed-before-sunset" => {
            "Stop calling this operation. Move its calls to one of the alternatives below, or to what the API's documentation names as its replacement."
        }
        "stability-level-lowered" => {
            "Treat this element as no longer promised: its stability level was lowered, so it may change or go away without notice. Move off it, or pin the version you tested against and watch its changes."
        }
        "webhook-removed" => {
            "Stop relying on this webhook: the API no longer sends it. Remove or repurpose the handler that received it."
        }
        "request-required-parameter-added" | "request-parameter-became-required" => {
            "Send this parameter in every request to the operation: a request without it is now refused."
        }
        "request-parameter-location-changed" => {
            "Send this parameter in its new location (see before and after): the API no longer reads it where it was."
        }
        "request-parameter-style-changed" | "request-parameter-explode-changed" => {
            "Serialize this parameter the new way (its `style` and `explode` decide how a list or object is written): values written the old way are read differently or refused."
        }
        "request-parameter-allow-empty-value-removed" => {
            "Send a non-empty value for this parameter, or leave it out when it is optional: an empty value is now refused."
        }
        "request-parameter-allow-reserved-removed" => {
            "Percent-encode reserved characters (`:/?#[]@!$&'()*+,;=`) in this parameter's value: they are no longer accepted unencoded."
        }
        "request-required-body-added" | "request-body-became-required" => {
            "Send a request body with every request to the operation: a request without one is now refused."
        }
        "request-body-media-type-removed" => {
            "Send the body in one of the media types still accepted (set `Content-Type` accordingly): this one is now refused."
        }
        "response-success-status-removed" => {
            "Stop expecting this status: handle the success statuses the operation answers now."
        }
        "response-media-type-removed" => {
            "Ask for and parse one of the media types the response still comes in (`Accept` header): this one is no longer produced."
        }
        "response-body-schema-removed" => {
            "Stop relying on the former shape of this response body: the API no longer promises any; read it defensively."
        }
        "response-required-header-removed" | "response-header-became-optional" => {
            "Handle responses without this header: the API no longer always sends it."
        }
        "endpoint-security-added" | "api-security-added" => {
            "Authenticate these requests: send the credentials the new requirement names (see the request samples)."
        }
        "endpoint-security-alternative-removed" | "api-security-alternative-removed" => {
            "Authenticate with one of the ways still accepted: the removed one no longer lets requests through."
        }
        "endpoint-security-scope-added" | "api-security-scope-added" => {
            "Request access tokens that also carry the added scope(s): tokens without them are now refused."
        }
        "security-scheme-removed" => {
            "Stop using this security scheme: authenticate with one the API still declares."
        }
        "security-scheme-type-changed" | "security-scheme-http-scheme-changed" => {
            "Change how your client authenticates with this scheme to its new type (see before and after)."
        }
        "security-scheme-api-key-changed" => {
            "Send the API key under its new name or in its new location (see before and after)."
        }
        "security-scheme-oauth-flow-removed" => {
            "Obtain tokens through one of the OAuth 2 flows the scheme still offers: this flow is gone."
        }
        "security-scheme-oauth-scope-removed" => {
            "Stop requesting this scope: it no longer exists, and token requests naming it may be refused."
        }
        "server-removed" | "endpoint-server-removed" => {
            "Point your client at one of the servers the API still declares: this one is no longer listed."
        }
        "server-base-path-changed" => {
            "Update the base path your client puts in front of every operation's path."
        }
        "server-variable-removed" => {
            "Stop filling this server variable: build the server URL from the variables still declared."
        }
        "server-variable-enum-value-removed" => {
            "Use one of the values the server variable still accepts: this one is gone."
        }
        "server-protocol-changed" => {
            "Connect to this server with its new protocol (and a client library that speaks it)."
        }
        "callback-required-parameter-removed" | "callback-parameter-became-optional" => {
            "Make the endpoint that receives this callback cope without this parameter: the API no longer always sends it."
        }
        "callback-parameter-allow-empty-value-added" => {
            "Make the endpoint that receives this callback accept an empty value for this parameter."
        }
        "callback-parameter-allow-reserved-added" => {
            "Make the endpoint that receives this callback accept reserved characters unencoded in this parameter."
        }
        "callback-body-removed" | "callback-body-became-optional" => {
            "Make the endpoint that receives this callback cope without a body: the API no longer always sends one."
        }
        "message-operation-removed" => {
            "Stop using this operation of the channel: move to one of the alternatives below."
        }
        "received-message-removed" => {
            "Stop sending this message on the operation: the application no longer accepts it."
        }
        "message-content-type-changed" => "Encode and decode this message in its new content type.",
        "message-schema-format-changed" => {
            "Read and write this message's payload with its new schema format."
        }
        "channel-parameter-added" | "channel-parameter-removed" => {
            "Build the channel address from its new parameters (see before and after)."
        }
        _ => return None,
    })
}

/// The sentence of a schema check breaking by default on the side it is judged from: `sends`
/// when clients write the value, else when they read it.
pub(crate) fn schema(check: &str, sends: bool) -> Option<&'static str> {
    if sends { sent(check) } else { read(check) }
}

fn sent(check: &str) -> Option<&'static str> {
    Some(match check {
        "type-changed" => "Send values of the new type: values of the old type are now refused.",
        "type-narrowed" => {
            "Send only values of the types still accepted: the removed type is now refused."
        }
        "became-not-nullable" => {
            "Stop sending `null` here: send a value (or leave the field out where it is optional)."
        }
        "format-changed" => "Send values in the new format.",
        "enum-value-removed" => {
            "Stop sending the removed value: send one of the values still accepted."
        }
        "enum-set" => "Send only one of the listed values: any other is now refused.",
        "max-decreased" | "max-set" => {
            "Send values no greater than the new maximum: larger ones are now refused."
        }
        "min-increased" | "min-set" => {
            "Send values no smaller than the new minimum: smaller ones are now refused."
        }
        "max-length-decreased" | "max-length-set" => {
            "Send values no longer than the new maximum length: longer ones are now refused."
        }
        "min-length-increased" => {
            "Send values at least as long as the new minimum length: shorter ones are now refused."
        }
        "max-items-decreased" | "max-items-set" => {
            "Send no more items than the new maximum: longer lists are now refused."
        }
        "min-items-increased" => {
            "Send at least as many items as the new minimum: shorter lists are now refused."
        }
        "max-properties-decreased" | "max-properties-set" => {
            "Send objects with no more properties than the new maximum."
        }
        "min-properties-increased" => {
            "Send objects with at least as many properties as the new minimum."
        }
        "pattern-changed" | "pattern-set" => {
            "Send values that match the new pattern: others are now refused."
        }
        "multiple-of-changed" | "multiple-of-set" => {
            "Send values that are multiples of the new `multipleOf`."
        }
        "unique-items-set" => "Remove duplicate items before sending the list.",
        "required-property-added" | "property-became-required" => {
            "Always send this property: a value without it is now refused."
        }
        "additional-properties-narrowed" => {
            "Send only the properties the schema declares: any other is now refused."
        }
        "one-of-removed" | "any-of-removed" => {
            "Stop sending values of the removed alternative: send one of the alternatives still accepted."
        }
        "all-of-added" => "Make what you send also meet the added `allOf` member.",
        "discriminator-changed" => {
            "Set the discriminator property (and its values) the new way when you build the value."
        }
        "conditional-added" => "Make what you send meet the new `if`/`then`/`else` condition.",
        "dependent-required-added" => {
            "When you send the property the constraint names, also send the properties it now requires."
        }
        "not-added" => "Stop sending the values the new `not` excludes.",
        "dependent-schema-added" => {
            "When you send the property the constraint names, meet the extra constraints it now brings."
        }
        _ => return None,
    })
}

fn read(check: &str) -> Option<&'static str> {
    Some(match check {
        "type-changed" => "Parse this value as its new type.",
        "type-generalized" => "Handle values of the added type(s) as well as the old one.",
        "became-nullable" => "Handle `null` here: the API may now send it.",
        "format-changed" => "Parse this value in its new format.",
        "property-removed" => {
            "Stop reading this property: it is no longer sent. Take the information from elsewhere or drop it."
        }
        "property-became-optional" => {
            "Handle values without this property: it is no longer always sent."
        }
        "property-became-write-only" => {
            "Stop reading this property from what the API sends: it is now write-only."
        }
        "discriminator-changed" => {
            "Read the discriminator property (and its values) the new way to tell the variants apart."
        }
        _ => return None,
    })
}

/// The sentence of a rule that has none of its own, by side.
pub(crate) fn generic(side: Side) -> &'static str {
    match side {
        Side::Request | Side::Receive => {
            "Change what your client sends so that it meets the new rule (see before and after)."
        }
        Side::Response | Side::Send => {
            "Change how your client reads what it receives so that it copes with the new rule (see before and after)."
        }
        Side::Both => {
            "Update your client to the new definition (see before and after): the old one no longer holds."
        }
    }
}

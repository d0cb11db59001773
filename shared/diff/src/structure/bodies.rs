//! Request bodies and responses: presence and required-ness of a body, media types, the
//! schema under each (compared once when Swagger 2.0 repeats it under every media type),
//! response statuses, descriptions and headers. The rules of a request body and of a callback
//! request body, and those of request and response content, are rows of tables.

use specpress_apispec::{Header, Location, Map, MediaType, RequestBody, Response};

use super::matching::{Entry, entries};
use super::presence::{
    NON_SUCCESS_RESPONSE, Presence, REQUEST_MEDIA_TYPE, REQUIRED_RESPONSE_HEADER, RESPONSE_HEADER,
    RESPONSE_MEDIA_TYPE, SUCCESS_RESPONSE,
};
use crate::change::{Crumb, NodeKind, Status};
use crate::context::Context;
use crate::rules::{Role, StructureRule};

/// The rules of a request body in one direction.
struct BodyRules {
    added_optional: StructureRule,
    added_required: StructureRule,
    removed: StructureRule,
    became_required: StructureRule,
    became_optional: StructureRule,
}

/// The body of a request clients send.
const REQUEST_BODY: BodyRules = BodyRules {
    added_optional: StructureRule::RequestBodyAdded,
    added_required: StructureRule::RequestRequiredBodyAdded,
    removed: StructureRule::RequestBodyRemoved,
    became_required: StructureRule::RequestBodyBecameRequired,
    became_optional: StructureRule::RequestBodyBecameOptional,
};

/// The body of a callback request: the API sends it and subscribers read it, so adding one
/// is harmless to them, taking it away (or making it optional) is not.
const CALLBACK_BODY: BodyRules = BodyRules {
    added_optional: StructureRule::CallbackBodyAdded,
    added_required: StructureRule::CallbackBodyAdded,
    removed: StructureRule::CallbackBodyRemoved,
    became_required: StructureRule::CallbackBodyBecameRequired,
    became_optional: StructureRule::CallbackBodyBecameOptional,
};

/// The rules of the media types of a body read by the API or by clients.
struct ContentRules {
    media_type: &'static Presence,
    schema_added: StructureRule,
    schema_removed: StructureRule,
    role: Role,
}

/// Content the API reads (a request body; a callback's response).
const REQUEST_CONTENT: ContentRules = ContentRules {
    media_type: &REQUEST_MEDIA_TYPE,
    schema_added: StructureRule::RequestBodySchemaAdded,
    schema_removed: StructureRule::RequestBodySchemaRemoved,
    role: Role::RequestBody,
};

/// Content clients read (a response; a callback's request body).
const RESPONSE_CONTENT: ContentRules = ContentRules {
    media_type: &RESPONSE_MEDIA_TYPE,
    schema_added: StructureRule::ResponseBodySchemaAdded,
    schema_removed: StructureRule::ResponseBodySchemaRemoved,
    role: Role::ResponseBody,
};

/// 1xx, 2xx and 3xx statuses.
fn is_success(status: &str) -> bool {
    matches!(status.as_bytes().first(), Some(b'1' | b'2' | b'3'))
}

/// The rules of a response status.
fn response_rules(status: &str) -> &'static Presence {
    if is_success(status) {
        &SUCCESS_RESPONSE
    } else {
        &NON_SUCCESS_RESPONSE
    }
}

/// Headers keyed by their lower-cased name (headers match case-insensitively).
type Headers<'a> = Map<String, (&'a String, &'a Header)>;

fn by_lower_name(headers: &Map<String, Header>) -> Headers<'_> {
    headers
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), (k, v)))
        .collect()
}

impl<'a> Context<'a> {
    /// The request bodies of two matched operations.
    pub(super) fn request_body(
        &mut self,
        owner: usize,
        previous: Option<&'a RequestBody>,
        current: Option<&'a RequestBody>,
    ) {
        let body = Crumb::new(NodeKind::Body, "body");
        let rules = if self.inverted {
            &CALLBACK_BODY
        } else {
            &REQUEST_BODY
        };
        match (previous, current) {
            (None, None) => {}
            (None, Some(after)) => {
                let (rule, what) = if after.required {
                    (rules.added_required, "a required")
                } else {
                    (rules.added_optional, "an optional")
                };
                let message = format!("{what} request body was added");
                let at = (None, Some(&after.source));
                self.presence((rule, Status::Added), owner, &[body], message, at);
            }
            (Some(before), None) => {
                let message = "the request body was removed".into();
                let at = (Some(&before.source), None);
                let rule = (rules.removed, Status::Removed);
                self.presence(rule, owner, &[body], message, at);
            }
            (Some(before), Some(after)) => {
                let at = (Some(&before.source), Some(&after.source));
                let mut crumbs = vec![body];
                let sources = (&before.source, &after.source);
                self.beta_marking(owner, &crumbs, format_args!("the request body"), sources);
                self.required(
                    (rules.became_required, rules.became_optional),
                    owner,
                    &crumbs,
                    format_args!("the request body"),
                    (before.required, after.required),
                    at,
                );
                self.text(
                    (StructureRule::RequestBodyDescriptionChanged, "description"),
                    owner,
                    &crumbs,
                    (before.description.as_deref(), after.description.as_deref()),
                    at,
                );
                self.content(owner, &mut crumbs, (&before.content, &after.content), true);
            }
        }
    }

    /// Media types of a request body (`request`) or response. `base` is the crumb path of the
    /// body or response; it is extended for each media type and left as it was given.
    fn content(
        &mut self,
        owner: usize,
        base: &mut Vec<Crumb>,
        (previous, current): (&'a Map<String, MediaType>, &'a Map<String, MediaType>),
        request: bool,
    ) {
        // Inside a callback the API sends the request and reads the response.
        let rules = if request != self.inverted {
            &REQUEST_CONTENT
        } else {
            &RESPONSE_CONTENT
        };
        let depth = base.len();
        // The media type is a crumb of its own only where there is a choice.
        let several = previous.len() > 1 || current.len() > 1;
        // The schema pair compared under the previous media type. Swagger 2.0 gives every
        // media type of a body or response the same schema: it is compared once, under the
        // first, where its changes and its links to shared components are reported (comparing
        // it again would find no change, the pair being memoized, but would repeat every link
        // under every media type).
        let mut last: Option<(&Location, &Location)> = None;
        for entry in entries(previous, current) {
            base.truncate(depth);
            match entry {
                Entry::Added(media_type, after) => {
                    base.push(self.crumb(NodeKind::MediaType, media_type));
                    let at = (None, Some(&after.source));
                    self.appeared(rules.media_type, owner, base, media_type, at);
                }
                Entry::Removed(media_type, before) => {
                    base.push(self.crumb(NodeKind::MediaType, media_type));
                    let at = (Some(&before.source), None);
                    self.disappeared(rules.media_type, owner, base, media_type, at);
                }
                Entry::Both(media_type, before, after) => {
                    if several {
                        base.push(self.crumb(NodeKind::MediaType, media_type));
                    }
                    let at = (Some(&before.source), Some(&after.source));
                    let (rule, message) = match (&before.schema, &after.schema) {
                        (Some(a), Some(b)) => {
                            if last != Some((a, b)) {
                                last = Some((a, b));
                                self.schema(owner, base, rules.role, a, b, 0);
                            }
                            continue;
                        }
                        (None, Some(_)) => (rules.schema_added, "now declares a schema"),
                        (Some(_), None) => (rules.schema_removed, "no longer declares a schema"),
                        (None, None) => continue,
                    };
                    let message = format!("media type `{media_type}` {message}");
                    self.modified(rule, owner, base, message, (None, None), at);
                }
            }
        }
        base.truncate(depth);
    }

    /// The responses of two matched operations, by status.
    pub(super) fn responses(
        &mut self,
        owner: usize,
        previous: &'a Map<String, Response>,
        current: &'a Map<String, Response>,
    ) {
        // One crumb path for every response (each comparison leaves it as it got it).
        let mut crumbs: Vec<Crumb> = Vec::with_capacity(4);
        for entry in entries(previous, current) {
            match entry {
                Entry::Both(status, before, after) => {
                    let crumb = self.crumb(NodeKind::Response, status);
                    crumbs.clear();
                    crumbs.push(crumb);
                    self.response(owner, &mut crumbs, before, after);
                }
                Entry::Added(status, after) => {
                    let crumb = self.crumb(NodeKind::Response, status);
                    crumbs.clear();
                    crumbs.push(crumb);
                    let at = (None, Some(&after.source));
                    self.appeared(response_rules(status), owner, &crumbs, status, at);
                }
                Entry::Removed(status, before) => {
                    let crumbs = [Crumb::new(NodeKind::Response, status.as_str())];
                    let at = (Some(&before.source), None);
                    self.disappeared(response_rules(status), owner, &crumbs, status, at);
                }
            }
        }
    }

    /// Two responses with the same status: description, content, headers.
    fn response(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        previous: &'a Response,
        current: &'a Response,
    ) {
        let at = (Some(&previous.source), Some(&current.source));
        let sources = (&previous.source, &current.source);
        let subject = format_args!("response `{}`", current.status);
        self.beta_marking(owner, crumbs, subject, sources);
        self.text(
            (StructureRule::ResponseDescriptionChanged, "description"),
            owner,
            crumbs,
            (
                previous.description.as_deref(),
                current.description.as_deref(),
            ),
            at,
        );
        let content = (&previous.content, &current.content);
        self.content(owner, crumbs, content, false);
        if previous.headers.is_empty() && current.headers.is_empty() {
            return;
        }
        let (before, after) = (
            by_lower_name(&previous.headers),
            by_lower_name(&current.headers),
        );
        for entry in entries(&before, &after) {
            let mut crumbs = crumbs.clone();
            match entry {
                Entry::Added(_, (name, header)) => {
                    crumbs.push(Crumb::new(NodeKind::Header, name.as_str()));
                    let at = (None, Some(&header.source));
                    self.appeared(&RESPONSE_HEADER, owner, &crumbs, name, at);
                }
                Entry::Removed(_, (name, header)) => {
                    crumbs.push(Crumb::new(NodeKind::Header, name.as_str()));
                    let rules = if header.required {
                        &REQUIRED_RESPONSE_HEADER
                    } else {
                        &RESPONSE_HEADER
                    };
                    let at = (Some(&header.source), None);
                    self.disappeared(rules, owner, &crumbs, name, at);
                }
                Entry::Both(_, (_, before), (name, after)) => {
                    crumbs.push(Crumb::new(NodeKind::Header, name.as_str()));
                    self.response_header(owner, &mut crumbs, name, (*before, *after));
                }
            }
        }
    }

    /// Two response headers with the same name (whatever its case).
    fn response_header(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        name: &str,
        (previous, current): (&'a Header, &'a Header),
    ) {
        let at = (Some(&previous.source), Some(&current.source));
        self.required(
            (
                StructureRule::ResponseHeaderBecameRequired,
                StructureRule::ResponseHeaderBecameOptional,
            ),
            owner,
            crumbs,
            format_args!("header `{name}`"),
            (previous.required, current.required),
            at,
        );
        self.deprecated(
            StructureRule::ResponseHeaderDeprecated,
            owner,
            crumbs,
            format_args!("header `{name}`"),
            (previous.deprecated, current.deprecated),
            at,
        );
        self.text(
            (
                StructureRule::ResponseHeaderDescriptionChanged,
                "description",
            ),
            owner,
            crumbs,
            (
                previous.description.as_deref(),
                current.description.as_deref(),
            ),
            at,
        );
        if let (Some(before), Some(after)) = (&previous.schema, &current.schema) {
            self.schema(owner, crumbs, Role::ResponseHeader, before, after, 0);
        }
    }
}

//! Things that appear or disappear as a whole, declared as data: each kind is a row (the noun
//! its messages use and its two rules), and [`Context::appeared`] / [`Context::disappeared`]
//! report "<noun> `<name>` was added/removed".

use crate::change::{Crumb, Status};
use crate::context::{At, Context};
use crate::rules::StructureRule;

/// A kind of thing that can be added or removed: "`noun` `name` was added" under `added`,
/// "... was removed" under `removed`.
pub(super) struct Presence {
    pub noun: &'static str,
    pub added: StructureRule,
    pub removed: StructureRule,
}

macro_rules! presences {
    ($( $(#[$doc:meta])* $name:ident: $noun:literal, $added:ident, $removed:ident; )*) => {
        $( $(#[$doc])* pub(super) const $name: Presence = Presence {
            noun: $noun,
            added: StructureRule::$added,
            removed: StructureRule::$removed,
        }; )*
    };
}

presences! {
    REQUEST_MEDIA_TYPE: "media type", RequestBodyMediaTypeAdded, RequestBodyMediaTypeRemoved;
    RESPONSE_MEDIA_TYPE: "media type", ResponseMediaTypeAdded, ResponseMediaTypeRemoved;
    /// A 1xx, 2xx or 3xx response.
    SUCCESS_RESPONSE: "response", ResponseSuccessStatusAdded, ResponseSuccessStatusRemoved;
    NON_SUCCESS_RESPONSE: "response", ResponseNonSuccessStatusAdded, ResponseNonSuccessStatusRemoved;
    RESPONSE_HEADER: "header", ResponseHeaderAdded, ResponseHeaderRemoved;
    /// A required response header (its removal is judged apart).
    REQUIRED_RESPONSE_HEADER: "header", ResponseHeaderAdded, ResponseRequiredHeaderRemoved;
    SECURITY_SCHEME: "security scheme", SecuritySchemeAdded, SecuritySchemeRemoved;
    OAUTH_FLOW: "OAuth2 flow", SecuritySchemeOauthFlowAdded, SecuritySchemeOauthFlowRemoved;
    SERVER_VARIABLE: "server variable", ServerVariableAdded, ServerVariableRemoved;
    /// A server of one operation.
    ENDPOINT_SERVER: "server", EndpointServerAdded, EndpointServerRemoved;
    CALLBACK: "callback", CallbackAdded, CallbackRemoved;
    COMPONENT_SCHEMA: "schema", ComponentSchemaAdded, ComponentSchemaRemoved;
    /// A message of an operation the application sends.
    SENT_MESSAGE: "message", SentMessageAdded, SentMessageRemoved;
    /// A message of an operation the application receives.
    RECEIVED_MESSAGE: "message", ReceivedMessageAdded, ReceivedMessageRemoved;
    CHANNEL: "channel", ChannelAdded, ChannelRemoved;
    CHANNEL_PARAMETER: "channel parameter", ChannelParameterAdded, ChannelParameterRemoved;
}

impl Context<'_> {
    /// "`noun` `name` was added" (no values).
    pub(super) fn appeared(
        &mut self,
        what: &Presence,
        owner: usize,
        crumbs: &[Crumb],
        name: &str,
        at: At<'_>,
    ) {
        let message = format!("{} `{name}` was added", what.noun);
        self.presence((what.added, Status::Added), owner, crumbs, message, at);
    }

    /// "`noun` `name` was removed" (no values).
    pub(super) fn disappeared(
        &mut self,
        what: &Presence,
        owner: usize,
        crumbs: &[Crumb],
        name: &str,
        at: At<'_>,
    ) {
        let message = format!("{} `{name}` was removed", what.noun);
        self.presence((what.removed, Status::Removed), owner, crumbs, message, at);
    }
}

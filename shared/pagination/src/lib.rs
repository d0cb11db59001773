//! One pagination convention for every Specpress list endpoint (branches, hubs, a hub's
//! documentations, versions, webhooks, deliveries).
//!
//! * Query parameters ([`PageRequest::from_query`]): `page` (integer >= 1, default 1),
//!   `limit` (1-100, default 10; `per_page` is an alias), optional opaque `cursor`, and
//!   `envelope=true|false`. Every error names the parameter and its limits
//!   ([`ParamError::message`]); the service answers them with 400 `{message}`.
//! * Cursors ([`CursorCodec`]): encrypted and authenticated (XChaCha20-Poly1305), base64url, bound to a list scope
//!   (e.g. `branches:<doc_id>`), carrying an expiry, the page number and an opaque position.
//! * Responses ([`PageInfo`]): the `X-Total-Count`, `X-Page`, `X-Per-Page` and `Link` headers of
//!   the default bare-array response, and the `?envelope=true` object, from the same values.

mod cursor;
mod params;
mod response;

pub use cursor::{
    CursorCodec, CursorError, CursorKeyError, CursorPosition, DEFAULT_CURSOR_TTL, MAX_CURSOR_LEN,
    MIN_KEY_BYTES,
};
pub use params::{DEFAULT_LIMIT, DEFAULT_PAGE, MAX_LIMIT, MAX_PAGE, PageRequest, ParamError};
pub use response::{ListUrl, PageInfo};

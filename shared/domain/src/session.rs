//! Reader sessions of the public site: a signed-in browser holds a sealed cookie naming a [`Session`], and the
//! session names the token it was started with (by hash). Signing out deletes the session; rotating the token ends
//! every session of it, since the hash no longer resolves.

use std::fmt;

use rand::Rng;
use time::OffsetDateTime;

use crate::token::TokenHash;

/// A session's id: 128 random bits. It travels only inside the sealed cookie; `Debug` does not show it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SessionId([u8; 16]);

impl SessionId {
    /// A new random id.
    pub fn new() -> Self {
        SessionId(rand::rng().random())
    }

    /// The id of these 16 bytes (`None` for any other length).
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        bytes.try_into().ok().map(SessionId)
    }

    /// Its 16 bytes.
    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// Its lowercase hex form (32 characters), as stored.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
}

impl Default for SessionId {
    fn default() -> Self {
        SessionId::new()
    }
}

impl fmt::Debug for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionId(***)")
    }
}

/// A reader's session: which token it was started with, and until when it lasts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// The id the cookie names.
    pub id: SessionId,
    /// The hash of the token signed in with (looked up as a token on every request).
    pub token_hash: TokenHash,
    /// When it started.
    pub created_at: OffsetDateTime,
    /// When it ends on its own.
    pub expires_at: OffsetDateTime,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_random_round_trip_through_their_bytes_and_never_show_in_debug() {
        let a = SessionId::new();
        assert_ne!(a, SessionId::new());
        assert_eq!(SessionId::from_bytes(a.as_bytes()), Some(a));
        assert_eq!(SessionId::from_bytes(&[0u8; 15]), None);
        assert_eq!(a.to_hex().len(), 32);
        assert!(!format!("{a:?}").contains(&a.to_hex()));
    }
}

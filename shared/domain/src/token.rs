//! API tokens: `sp_<kind>_<32 base62 random chars><6 base62 CRC32 chars>`.
//!
//! 32 base62 characters carry about 190 bits of randomness. The CRC32 suffix (GitHub-style) lets secret scanners
//! and the server reject a mistyped token without a database round trip. Only the SHA-256 of a token is stored;
//! lookups go by that hash, so no secret comparison happens at all (see reliability.md §4.4).

use rand::Rng;
use rand::distr::Alphanumeric;
use sha2::{Digest, Sha256};
use std::fmt;

use crate::model::{DocId, HubId, OrgId};

const RANDOM_LEN: usize = 32;
const CHECK_LEN: usize = 6;
const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// The level a token grants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// Everything in the organization.
    Org,
    /// One hub and all its documentations.
    Hub,
    /// One documentation.
    Doc,
    /// One MCP server (its runtime credential; never an API token: no `TOKEN#` item names it).
    Mcp,
    /// A reader token (`sp_read_`): reads one documentation or hub on every reader surface (pages, `.md`, feeds,
    /// sign-in sessions, MCP) and nothing else. It is never a [`Principal`]: the API answers it as no token.
    Read,
}

impl TokenKind {
    /// The prefix word (`org`, `hub`, `doc`, `mcp`).
    pub fn as_str(self) -> &'static str {
        match self {
            TokenKind::Org => "org",
            TokenKind::Hub => "hub",
            TokenKind::Doc => "doc",
            TokenKind::Mcp => "mcp",
            TokenKind::Read => "read",
        }
    }

    /// Parses the prefix word.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "org" => Some(TokenKind::Org),
            "hub" => Some(TokenKind::Hub),
            "doc" => Some(TokenKind::Doc),
            "mcp" => Some(TokenKind::Mcp),
            "read" => Some(TokenKind::Read),
            _ => None,
        }
    }
}

/// The hex SHA-256 of a token: the only form ever stored.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct TokenHash(String);

impl TokenHash {
    /// Hash of a token text.
    pub fn of(token: &str) -> Self {
        TokenHash(hex::encode(Sha256::digest(token.as_bytes())))
    }
    /// Rebuilds a stored hash.
    pub fn from_stored(hex: String) -> Self {
        TokenHash(hex)
    }
    /// The hex text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Even the hash is shortened in logs.
        write!(f, "TokenHash({}…)", &self.0.get(..8).unwrap_or(""))
    }
}

/// A freshly minted token: the secret (shown once) and its hash (stored).
pub struct MintedToken {
    /// The secret text, shown to the user once.
    pub secret: String,
    /// Its hash.
    pub hash: TokenHash,
    /// Its kind.
    pub kind: TokenKind,
}

impl fmt::Debug for MintedToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MintedToken")
            .field("kind", &self.kind)
            .field("hash", &self.hash)
            .finish_non_exhaustive()
    }
}

fn checksum(body: &str) -> String {
    let mut n = crc32fast::hash(body.as_bytes()) as u64;
    let mut out = [b'0'; CHECK_LEN];
    for slot in out.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    out.iter().map(|&b| b as char).collect()
}

/// Mints a new random token of `kind`.
pub fn mint(kind: TokenKind) -> MintedToken {
    let random: String = rand::rng()
        .sample_iter(&Alphanumeric)
        .take(RANDOM_LEN)
        .map(char::from)
        .collect();
    let body = format!("sp_{}_{}", kind.as_str(), random);
    let secret = format!("{body}{}", checksum(&body));
    MintedToken {
        hash: TokenHash::of(&secret),
        secret,
        kind,
    }
}

/// Checks the shape and checksum of a presented token. `None` when it cannot be one of ours.
pub fn check_format(token: &str) -> Option<TokenKind> {
    let rest = token.strip_prefix("sp_")?;
    let (kind, tail) = rest.split_once('_')?;
    let kind = TokenKind::parse(kind)?;
    if tail.len() != RANDOM_LEN + CHECK_LEN || !tail.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let (body, check) = token.split_at(token.len() - CHECK_LEN);
    let expected = checksum(body);
    if subtle::ConstantTimeEq::ct_eq(expected.as_bytes(), check.as_bytes()).into() {
        Some(kind)
    } else {
        None
    }
}

/// What a token grants: its organization and its scope within it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The organization.
    pub org_id: OrgId,
    /// The scope.
    pub scope: Scope,
}

/// The part of the organization a token covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The whole organization.
    Org,
    /// One hub and its documentations.
    Hub(HubId),
    /// One documentation.
    Doc(DocId),
}

impl Principal {
    /// The token kind this principal came from.
    pub fn kind(&self) -> TokenKind {
        match self.scope {
            Scope::Org => TokenKind::Org,
            Scope::Hub(_) => TokenKind::Hub,
            Scope::Doc(_) => TokenKind::Doc,
        }
    }
}

/// Whose token an item is: the owner entity of a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenOwner {
    /// The organization's token.
    Org(OrgId),
    /// A hub's token.
    Hub(OrgId, HubId),
    /// A documentation's token.
    Doc(OrgId, DocId),
}

impl TokenOwner {
    /// The principal a token of this owner grants.
    pub fn principal(self) -> Principal {
        match self {
            TokenOwner::Org(org_id) => Principal {
                org_id,
                scope: Scope::Org,
            },
            TokenOwner::Hub(org_id, h) => Principal {
                org_id,
                scope: Scope::Hub(h),
            },
            TokenOwner::Doc(org_id, d) => Principal {
                org_id,
                scope: Scope::Doc(d),
            },
        }
    }
    /// The kind of token this owner holds.
    pub fn kind(self) -> TokenKind {
        self.principal().kind()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_tokens_are_prefixed_random_and_pass_their_checksum() {
        let a = mint(TokenKind::Doc);
        let b = mint(TokenKind::Doc);
        assert!(a.secret.starts_with("sp_doc_"));
        assert_ne!(a.secret, b.secret);
        assert_eq!(check_format(&a.secret), Some(TokenKind::Doc));
        assert_eq!(a.hash, TokenHash::of(&a.secret));
        assert_eq!(a.hash.as_str().len(), 64);
    }

    #[test]
    fn a_mistyped_token_fails_the_checksum() {
        let t = mint(TokenKind::Org).secret;
        let mut chars: Vec<char> = t.chars().collect();
        let i = 10;
        chars[i] = if chars[i] == 'a' { 'b' } else { 'a' };
        let typo: String = chars.into_iter().collect();
        assert_eq!(check_format(&typo), None);
        assert_eq!(check_format("sp_doc_short"), None);
        assert_eq!(check_format(""), None);
        assert_eq!(
            check_format("sp_xyz_0123456789012345678901234567890123456"),
            None
        );
    }

    #[test]
    fn reader_tokens_have_their_own_prefix_and_pass_the_same_checks() {
        let t = mint(TokenKind::Read);
        assert!(t.secret.starts_with("sp_read_"));
        assert_eq!(t.secret.len(), "sp_read_".len() + RANDOM_LEN + CHECK_LEN);
        assert_eq!(check_format(&t.secret), Some(TokenKind::Read));
        // The same random part under another kind's prefix fails the checksum: a reader token cannot be turned
        // into a documentation token by editing its prefix.
        let forged = t.secret.replacen("sp_read_", "sp_doc_", 1);
        assert_eq!(check_format(&forged), None);
    }

    #[test]
    fn debug_output_never_contains_the_secret() {
        let t = mint(TokenKind::Hub);
        assert!(!format!("{t:?}").contains(&t.secret));
        assert!(!format!("{:?}", t.hash).contains(t.hash.as_str()));
    }
}

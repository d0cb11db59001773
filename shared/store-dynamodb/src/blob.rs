//! Lossless storage of definitions of any size up to the API limit despite DynamoDB's 400 KB item limit.
//!
//! A bundle (definition + references) is serialized to JSON (which round-trips strings exactly), hashed
//! (SHA-256 of those bytes = the content address), compressed with zstd, and split into chunks of at most
//! [`CHUNK_BYTES`], one item each under `pk = BLOB#<sha256>`, `sk = CHUNK#<nnnn>`. Every chunk carries the chunk
//! count and the uncompressed size, so a reader needs no separate manifest: it queries the partition, checks it has
//! all chunks, decompresses with the size as a hard cap, and verifies the hash before returning anything.

use sha2::{Digest, Sha256};
use specpress_domain::model::Bundle;
use specpress_domain::{DomainError, Result};

/// Largest compressed payload per item (leaves ample room under 400 KB for keys and attribute names).
pub const CHUNK_BYTES: usize = 300 * 1024;
/// zstd level: fast, with good ratios on YAML/JSON.
const LEVEL: i32 = 3;

/// A bundle ready to store.
pub struct Encoded {
    pub sha256: String,
    pub size: u64,
    pub chunks: Vec<Vec<u8>>,
}

pub fn encode(bundle: &Bundle) -> Result<Encoded> {
    let raw = serde_json::to_vec(bundle).map_err(DomainError::unexpected)?;
    let sha256 = hex::encode(Sha256::digest(&raw));
    let compressed = zstd::bulk::compress(&raw, LEVEL).map_err(DomainError::unexpected)?;
    let mut chunks: Vec<Vec<u8>> = compressed.chunks(CHUNK_BYTES).map(<[u8]>::to_vec).collect();
    if chunks.is_empty() {
        chunks.push(Vec::new());
    }
    Ok(Encoded {
        sha256,
        size: raw.len() as u64,
        chunks,
    })
}

/// Reassembles, decompresses and verifies a bundle.
pub fn decode(sha256: &str, size: u64, compressed: &[u8]) -> Result<Bundle> {
    let cap = usize::try_from(size).map_err(DomainError::unexpected)?;
    let raw = zstd::bulk::decompress(compressed, cap).map_err(DomainError::unexpected)?;
    if raw.len() as u64 != size || hex::encode(Sha256::digest(&raw)) != sha256 {
        return Err(crate::attr::bad("blob hash mismatch"));
    }
    serde_json::from_slice(&raw).map_err(DomainError::unexpected)
}

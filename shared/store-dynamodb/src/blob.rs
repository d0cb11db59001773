//! Lossless storage of definitions of any size up to the API limit despite DynamoDB's 400 KB item limit.
//!
//! A bundle (definition + references) is serialized to JSON (which round-trips strings exactly), hashed
//! (SHA-256 of those bytes = the content address), compressed with zstd, and split into chunks of at most
//! [`CHUNK_BYTES`], one item each under `pk = BLOB#<sha256>`, `sk = CHUNK#<nnnn>`. Every chunk carries the chunk
//! count and the uncompressed size, so a reader needs no separate manifest: it queries the partition, checks it has
//! all chunks, decompresses with the size as a hard cap, and verifies the hash before returning anything.

use sha2::{Digest, Sha256};
use specpress_domain::model::{BlobRef, Bundle};
use specpress_domain::ports::EncodedBundle;
use specpress_domain::{DomainError, Result};

/// Largest compressed payload per item (leaves ample room under 400 KB for keys and attribute names).
pub const CHUNK_BYTES: usize = 300 * 1024;
/// zstd level for definitions up to [`LARGE_BYTES`]: fast, with good ratios on YAML/JSON.
const LEVEL: i32 = 3;
/// Above this size (serialized), the fastest level: a multi-MiB document compresses about twice as fast for a
/// slightly larger blob, which matters on the request path of `POST /diffs`.
const LARGE_BYTES: usize = 1024 * 1024;
const LARGE_LEVEL: i32 = 1;

/// Serializes, hashes and compresses a bundle.
pub fn encode(bundle: &Bundle) -> Result<EncodedBundle> {
    let raw = serde_json::to_vec(bundle).map_err(DomainError::unexpected)?;
    let sha256 = hex::encode(Sha256::digest(&raw));
    let level = if raw.len() > LARGE_BYTES {
        LARGE_LEVEL
    } else {
        LEVEL
    };
    let compressed = zstd::bulk::compress(&raw, level).map_err(DomainError::unexpected)?;
    Ok(EncodedBundle {
        blob: BlobRef {
            sha256,
            size: raw.len() as u64,
        },
        compressed: compressed.into(),
    })
}

/// The chunks of an encoded bundle, one item each (at least one, even for an empty payload).
pub fn chunks(encoded: &EncodedBundle) -> Vec<&[u8]> {
    let mut chunks: Vec<&[u8]> = encoded.compressed.chunks(CHUNK_BYTES).collect();
    if chunks.is_empty() {
        chunks.push(&[]);
    }
    chunks
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

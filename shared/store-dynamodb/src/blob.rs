//! Lossless storage of definitions of any size up to the API limit despite DynamoDB's 400 KB item limit.
//!
//! A bundle (definition + references) is serialized (see [`serialize`]: the definition's bytes as they are, then the
//! references as JSON), hashed (SHA-256 of those bytes = the content address), compressed with zstd, and split into
//! chunks of at most
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

/// First bytes of a bundle serialized by [`serialize`]. A blob written before it existed is the bundle as one JSON
/// object, which starts with `{`, never with a NUL byte, so [`deserialize`] tells the two apart.
const MAGIC: &[u8] = b"\0specpress-bundle-1\n";

/// The bytes a bundle is stored as: [`MAGIC`], the definition's length (8 bytes, little-endian), the definition's
/// bytes as received, then the references as a JSON array.
///
/// The definition is the bulk of a bundle (up to 5 MiB, and several MiB of renderings for a diff result): copying
/// it as it is costs a fraction of escaping it into a JSON string, which was the largest single cost of storing a
/// multi-MiB definition (5-9 ms for 4 MB, against 2.5 ms for its SHA-256).
pub fn serialize(bundle: &Bundle) -> Result<Vec<u8>> {
    let references = serde_json::to_vec(&bundle.references).map_err(DomainError::unexpected)?;
    let definition = bundle.definition.as_bytes();
    let mut raw = Vec::with_capacity(MAGIC.len() + 8 + definition.len() + references.len());
    raw.extend_from_slice(MAGIC);
    raw.extend_from_slice(&(definition.len() as u64).to_le_bytes());
    raw.extend_from_slice(definition);
    raw.extend_from_slice(&references);
    Ok(raw)
}

/// Reads what [`serialize`] wrote, or a blob stored as one JSON object by earlier versions. Corrupt bytes are an
/// error, never a panic.
pub fn deserialize(mut raw: Vec<u8>) -> Result<Bundle> {
    let Some(rest) = raw.strip_prefix(MAGIC) else {
        return serde_json::from_slice(&raw).map_err(DomainError::unexpected);
    };
    let Some((len, rest)) = rest.split_first_chunk::<8>() else {
        return Err(crate::attr::bad("blob header"));
    };
    let len = usize::try_from(u64::from_le_bytes(*len))
        .ok()
        .filter(|&l| l <= rest.len())
        .ok_or_else(|| crate::attr::bad("blob definition length"))?;
    let references = serde_json::from_slice(rest.get(len..).unwrap_or_default())
        .map_err(DomainError::unexpected)?;
    // The definition is taken out of the buffer in place: no copy of a multi-MiB text.
    let start = MAGIC.len() + 8;
    raw.truncate(start + len);
    raw.drain(..start);
    let definition =
        String::from_utf8(raw).map_err(|_| crate::attr::bad("blob definition encoding"))?;
    Ok(Bundle {
        definition,
        references,
    })
}

/// Serializes, hashes and compresses a bundle.
pub fn encode(bundle: &Bundle) -> Result<EncodedBundle> {
    encode_serialized(serialize(bundle)?)
}

/// Hashes and compresses a bundle already [`serialize`]d.
pub fn encode_serialized(raw: Vec<u8>) -> Result<EncodedBundle> {
    let sha256 = hex::encode(Sha256::digest(&raw));
    let level = if raw.len() > LARGE_BYTES {
        LARGE_LEVEL
    } else {
        LEVEL
    };
    let compressed = compress(&raw, level).map_err(DomainError::unexpected)?;
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

/// Compresses with this thread's zstd context. A context holds MBs of tables for a multi-MiB input; made afresh for
/// each blob, they were allocated, faulted in and zeroed again every time.
fn compress(raw: &[u8], level: i32) -> std::io::Result<Vec<u8>> {
    use std::cell::RefCell;
    thread_local! {
        static CONTEXT: RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> = const { RefCell::new(None) };
    }
    CONTEXT.with(|cell| {
        let mut slot = cell.try_borrow_mut().map_err(std::io::Error::other)?;
        match slot.as_mut() {
            Some((l, c)) if *l == level => c.compress(raw),
            Some((l, c)) => {
                c.set_compression_level(level)?;
                *l = level;
                c.compress(raw)
            }
            None => {
                let mut c = zstd::bulk::Compressor::new(level)?;
                let out = c.compress(raw);
                *slot = Some((level, c));
                out
            }
        }
    })
}

/// The item of one chunk of an encoded bundle, under the keys in `keyed`: the chunk's compressed bytes, the
/// bundle's chunk count and its uncompressed size.
pub fn chunk_item(
    mut keyed: crate::attr::Item,
    encoded: &EncodedBundle,
    total: usize,
    data: &[u8],
) -> crate::attr::Item {
    use crate::attr::{b, n};
    keyed.insert("data".into(), b(data.to_vec()));
    keyed.insert("total".into(), n(total));
    keyed.insert("size".into(), n(encoded.blob.size));
    keyed
}

/// The compressed bytes of a bundle's chunk items, read in key order (`sk(i)` is chunk `i`'s sort key). `None`
/// when the set is incomplete: no items, fewer or more than their `total`, or a gap.
pub fn assemble(
    items: &[crate::attr::Item],
    sk: impl Fn(usize) -> String,
) -> Result<Option<Vec<u8>>> {
    use crate::attr::{get_b, get_n, get_s};
    let Some(first) = items.first() else {
        return Ok(None);
    };
    let total: usize = get_n(first, "total")?;
    if items.len() != total {
        return Ok(None);
    }
    let mut compressed = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if get_s(item, "sk")? != sk(i) {
            return Ok(None);
        }
        compressed.extend_from_slice(get_b(item, "data")?);
    }
    Ok(Some(compressed))
}

/// Reassembles, decompresses and verifies a bundle.
pub fn decode(sha256: &str, size: u64, compressed: &[u8]) -> Result<Bundle> {
    let cap = usize::try_from(size).map_err(DomainError::unexpected)?;
    let raw = zstd::bulk::decompress(compressed, cap).map_err(DomainError::unexpected)?;
    if raw.len() as u64 != size || hex::encode(Sha256::digest(&raw)) != sha256 {
        return Err(crate::attr::bad("blob hash mismatch"));
    }
    deserialize(raw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use specpress_domain::model::Reference;

    fn bundle(definition: &str, references: Vec<Reference>) -> Bundle {
        Bundle {
            definition: definition.to_owned(),
            references,
        }
    }

    fn round_trip(b: &Bundle) -> Bundle {
        let e = encode(b).unwrap();
        let compressed: Vec<u8> = chunks(&e).concat();
        decode(&e.blob.sha256, e.blob.size, &compressed).unwrap()
    }

    #[test]
    fn bundles_round_trip_byte_for_byte_with_and_without_references() {
        let refs = vec![
            Reference {
                location: "schemas/pet.yaml".into(),
                content: "type: object\r\n# \u{e9}\u{0}\"\\".into(),
                name: Some("pet".into()),
            },
            Reference {
                location: "b.json".into(),
                content: String::new(),
                name: None,
            },
        ];
        for b in [
            bundle("", vec![]),
            bundle("{\"openapi\": \"3.1.0\"}", vec![]),
            bundle("openapi: 3.0.0\n\u{0}\u{1f600} \\ \"", refs.clone()),
            bundle(&"x".repeat(2 * 1024 * 1024), refs),
        ] {
            assert_eq!(round_trip(&b), b);
        }
    }

    #[test]
    fn the_definition_is_stored_unescaped() {
        let raw = serialize(&bundle("a \"quoted\" \\ text", vec![])).unwrap();
        let text = String::from_utf8_lossy(&raw);
        assert!(text.contains("a \"quoted\" \\ text"), "{text:?}");
    }

    #[test]
    fn blobs_stored_as_one_json_object_by_earlier_versions_still_decode() {
        let b = bundle(
            "{\"swagger\": \"2.0\"}",
            vec![Reference {
                location: "a.yaml".into(),
                content: "x: 1".into(),
                name: None,
            }],
        );
        let legacy = serde_json::to_vec(&b).unwrap();
        let sha = hex::encode(Sha256::digest(&legacy));
        let compressed = zstd::bulk::compress(&legacy, LEVEL).unwrap();
        assert_eq!(decode(&sha, legacy.len() as u64, &compressed).unwrap(), b);
    }

    #[test]
    fn corrupt_serialized_bundles_are_errors_not_panics() {
        let good = serialize(&bundle("openapi: 3.0.0", vec![])).unwrap();
        let mut too_long = good.clone();
        too_long[MAGIC.len()..MAGIC.len() + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        let mut bad_utf8 = good.clone();
        bad_utf8[MAGIC.len() + 8] = 0xff;
        let mut bad_refs = good.clone();
        bad_refs.extend_from_slice(b"[{");
        for raw in [
            MAGIC.to_vec(),
            good[..MAGIC.len() + 4].to_vec(),
            too_long,
            bad_utf8,
            bad_refs,
            b"{not json".to_vec(),
        ] {
            assert!(deserialize(raw.clone()).is_err(), "{raw:?}");
        }
        for n in 0..good.len() {
            assert!(
                deserialize(good[..n].to_vec()).is_err(),
                "truncated to {n} bytes"
            );
        }
    }
}

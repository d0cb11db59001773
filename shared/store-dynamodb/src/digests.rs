//! [`DigestStore`] over DynamoDB (docs/storage.md, "Items"): one `DIGEST#<version id>` / `DIGEST` item per
//! published version whose changes were digested, holding the digest as zstd-compressed JSON. Reads are
//! `BatchGetItem`s of up to [`BATCH`] keys (unprocessed keys are asked again), so a history of any length costs one
//! request per hundred releases.

use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::types::KeysAndAttributes;
use specpress_domain::digest::ReleaseDigest;
use specpress_domain::model::VersionId;
use specpress_domain::ports::DigestStore;
use specpress_domain::{DomainError, Result};

use crate::DynamoStore;
use crate::attr::*;
use crate::items::keyed;

/// Keys per `BatchGetItem` (DynamoDB's limit).
pub const BATCH: usize = 100;
/// Largest compressed digest stored (an item holds 400 KB; a larger digest keeps fewer items).
pub const MAX_DIGEST_BYTES: usize = 300 * 1024;
/// Largest digest read back, uncompressed.
const MAX_JSON_BYTES: usize = 16 * 1024 * 1024;
/// Rounds of asking again for unprocessed keys before giving up.
const MAX_ROUNDS: usize = 8;

/// Partition key of a version's digest.
pub fn digest_pk(version: VersionId) -> String {
    format!("DIGEST#{version}")
}
/// Sort key of a digest.
pub const DIGEST_SK: &str = "DIGEST";

/// The stored bytes of `digest`: compressed JSON of at most [`MAX_DIGEST_BYTES`], leaving out items (last ones
/// first: breaking items come first) until it fits.
fn encode(digest: &ReleaseDigest) -> Result<Vec<u8>> {
    let mut digest = std::borrow::Cow::Borrowed(digest);
    loop {
        let json = serde_json::to_vec(digest.as_ref()).map_err(DomainError::unexpected)?;
        let packed = zstd::bulk::compress(&json, 3).map_err(DomainError::unexpected)?;
        if packed.len() <= MAX_DIGEST_BYTES || digest.items.is_empty() {
            return Ok(packed);
        }
        let d = digest.to_mut();
        let keep = d.items.len() / 2;
        d.omitted += d.items.len() - keep;
        d.items.truncate(keep);
    }
}

fn decode(bytes: &[u8]) -> Result<ReleaseDigest> {
    let json = zstd::bulk::decompress(bytes, MAX_JSON_BYTES).map_err(DomainError::unexpected)?;
    serde_json::from_slice(&json).map_err(DomainError::unexpected)
}

#[async_trait]
impl DigestStore for DynamoStore {
    async fn get_digests(
        &self,
        versions: &[VersionId],
    ) -> Result<HashMap<VersionId, ReleaseDigest>> {
        let mut found = HashMap::with_capacity(versions.len());
        let mut unique: Vec<VersionId> = versions.to_vec();
        unique.sort_by_key(|v| v.0);
        unique.dedup();
        for chunk in unique.chunks(BATCH) {
            let keys: Vec<Item> = chunk
                .iter()
                .map(|v| keyed(digest_pk(*v), DIGEST_SK))
                .collect();
            let mut wanted = Some(
                KeysAndAttributes::builder()
                    .set_keys(Some(keys))
                    .build()
                    .map_err(DomainError::unexpected)?,
            );
            let mut rounds = 0;
            while let Some(request) = wanted.take() {
                rounds += 1;
                if rounds > MAX_ROUNDS {
                    return Err(DomainError::unexpected(
                        "digests still unprocessed after retries",
                    ));
                }
                if rounds > 1 {
                    tokio::time::sleep(std::time::Duration::from_millis(20 << rounds.min(6))).await;
                }
                let out = self
                    .client()
                    .batch_get_item()
                    .request_items(self.table(), request)
                    .send()
                    .await
                    .map_err(sdk("BatchGetItem"))?;
                for item in out
                    .responses
                    .and_then(|mut r| r.remove(self.table()))
                    .unwrap_or_default()
                {
                    let id = get_s(&item, "pk")?
                        .strip_prefix("DIGEST#")
                        .and_then(VersionId::parse)
                        .ok_or_else(|| bad("digest key"))?;
                    found.insert(id, decode(get_b(&item, "digest")?)?);
                }
                wanted = out
                    .unprocessed_keys
                    .and_then(|mut u| u.remove(self.table()))
                    .filter(|k| !k.keys.is_empty());
            }
        }
        Ok(found)
    }

    async fn put_digest(&self, version: VersionId, digest: &ReleaseDigest) -> Result<()> {
        let mut item = keyed(digest_pk(version), DIGEST_SK);
        item.insert("digest".into(), b(encode(digest)?));
        self.client()
            .put_item()
            .table_name(self.table())
            .set_item(Some(item))
            .send()
            .await
            .map_err(sdk("PutItem"))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use specpress_domain::digest::{DigestItem, ReleaseKind};

    #[test]
    fn a_digest_too_large_for_one_item_keeps_its_first_items_and_counts_the_rest() {
        // Incompressible text: hex of a hash chain (about 100 bytes of entropy per item).
        let mut seed = [0u8; 32];
        let mut next = || {
            use sha2::Digest;
            seed = sha2::Sha256::digest(seed).into();
            hex::encode(seed)
        };
        let items: Vec<DigestItem> = (0..4000)
            .map(|i| DigestItem {
                name: format!("GET /{i}/{}", next()),
                kind: "endpoint".into(),
                status: "added".into(),
                breaking: i < 10,
                breaks: vec![next(), next()],
                notes: Vec::new(),
                affected: Vec::new(),
            })
            .collect();
        let d = ReleaseDigest {
            kind: ReleaseKind::Changes,
            items,
            omitted: 7,
        };
        let bytes = encode(&d).unwrap();
        assert!(bytes.len() <= MAX_DIGEST_BYTES);
        let back = decode(&bytes).unwrap();
        assert!(back.items.len() < 4000 && !back.items.is_empty());
        assert_eq!(back.items.len() + back.omitted, 4007);
        assert_eq!(back.items[0], d.items[0]);
    }
}

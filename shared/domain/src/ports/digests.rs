//! Release digests (see [`crate::digest`]): written once per published version, read in batches by histories.

use std::collections::HashMap;

use async_trait::async_trait;

use crate::digest::ReleaseDigest;
use crate::error::Result;
use crate::model::VersionId;

/// Storage of release digests, one per published version. A digest never changes once written.
#[async_trait]
pub trait DigestStore: Send + Sync {
    /// The stored digests of `versions` (any number; the adapter reads them in batches). A version without one is
    /// absent from the map.
    async fn get_digests(
        &self,
        versions: &[VersionId],
    ) -> Result<HashMap<VersionId, ReleaseDigest>>;
    /// Stores the digest of `version`. Writing it again is harmless (the same release yields the same digest); the
    /// adapter may leave out items so that it fits its storage, counting them in `omitted`.
    async fn put_digest(&self, version: VersionId, digest: &ReleaseDigest) -> Result<()>;
}

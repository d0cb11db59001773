//! Content-addressed definition storage.

use async_trait::async_trait;

use crate::error::Result;
use crate::model::{BlobRef, Bundle, Retention};

/// A bundle encoded for storage: its content address and the compressed bytes the store writes. A [`Commit`]
/// carries it so the store can write the definition in the deploy transaction itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedBundle {
    /// Where it lives once written.
    pub blob: BlobRef,
    /// The compressed serialization (produced and read by the store; opaque here).
    pub compressed: std::sync::Arc<[u8]>,
}

/// Content-addressed definition storage.
#[async_trait]
pub trait BlobStore: Send + Sync {
    /// Stores a bundle losslessly (any size up to the API limit) and returns its reference. Idempotent.
    /// A permanent write makes an existing temporary blob permanent; a temporary write never shortens a life.
    async fn put_bundle(&self, bundle: &Bundle, retention: Retention) -> Result<BlobRef>;
    /// Encodes a bundle (serialization, content address, compression) without writing it, for a [`Commit`].
    async fn encode_bundle(&self, bundle: &Bundle) -> Result<EncodedBundle>;
    /// Reads a bundle back byte for byte, verifying its hash; `None` if absent.
    async fn get_bundle(&self, blob: &BlobRef) -> Result<Option<Bundle>>;
}

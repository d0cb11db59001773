//! Compression of answers: the one setting of every router that compresses what it sends (gzip or br, as the
//! client's `Accept-Encoding` asks; `Vary: Accept-Encoding` on every compressible answer).
//!
//! Besides saving bytes, it is what lets a large document through AWS Lambda, whose 6 MB payload limit counts the
//! answer as the function returns it (the Lambda response layer of `specpress-http-lambda`): GitHub's 14 MB description is about 1 MB gzipped.

use tower_http::CompressionLevel;
use tower_http::compression::CompressionLayer;

/// The compression layer of a router's answers: tower-http's, with its default choice of answers (not images,
/// gRPC or event streams, nor bodies under 32 bytes), at level 5 (most of the gain of higher levels at a fraction
/// of their time).
pub fn response_compression() -> CompressionLayer {
    CompressionLayer::new().quality(CompressionLevel::Precise(5))
}

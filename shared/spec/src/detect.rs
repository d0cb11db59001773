//! Spec family and version detection.

use crate::{Diagnostic, SpecVersion};
use serde_json::Value;

/// Detects the family and version from the root value.
pub(crate) fn detect(root: &Value) -> Result<SpecVersion, Diagnostic> {
    let Some(obj) = root.as_object() else {
        return Err(Diagnostic::new(
            "not-an-api-document",
            "the document is not an object",
        ));
    };
    if let Some(v) = obj.get("openapi").and_then(Value::as_str) {
        if v.starts_with("3.0") {
            return Ok(SpecVersion::OpenApi30);
        }
        if v.starts_with("3.1") {
            return Ok(SpecVersion::OpenApi31);
        }
        if v.starts_with("3.2") {
            return Ok(SpecVersion::OpenApi32);
        }
    }
    if obj.get("swagger").and_then(Value::as_str) == Some("2.0") {
        return Ok(SpecVersion::OpenApi20);
    }
    if let Some(v) = obj.get("asyncapi").and_then(Value::as_str) {
        if let Some(m) = v.strip_prefix("2.") {
            let minor: u8 = m
                .split('.')
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            return Ok(SpecVersion::AsyncApi2 { minor });
        }
        if v.starts_with("3.") {
            return Ok(SpecVersion::AsyncApi30);
        }
    }
    Err(Diagnostic::new("unknown-spec", "unknown specification"))
}

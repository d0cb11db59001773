//! Spec family and version detection.

use crate::{Diagnostic, Kind, SpecVersion, V};

fn version_parts(v: &str) -> Option<(u32, u32)> {
    let mut it = v.split('.');
    let major = it.next()?.parse().ok()?;
    let minor_raw = it.next()?;
    let digits: String = minor_raw.chars().take_while(char::is_ascii_digit).collect();
    Some((major, digits.parse().ok()?))
}

fn found(v: V) -> String {
    match v.kind() {
        Kind::String(s) => format!("'{}'", crate::refs::shorten(s)),
        _ => format!(
            "{} ({})",
            crate::refs::shorten(&v.to_string()),
            if v.is_number() {
                "a number: quote it"
            } else {
                "not a string"
            }
        ),
    }
}

/// Detects the family and version from the root value; returns the version as written too.
pub(crate) fn detect(root: V) -> Result<(SpecVersion, String), Diagnostic> {
    let Some(obj) = root.as_object() else {
        return Err(Diagnostic::new(
            "not-an-api-document",
            "the document is not an object",
        ));
    };
    let err = |pointer: &str, message: String| {
        let mut d = Diagnostic::new("unsupported-version", message);
        d.pointer = pointer.to_string();
        d
    };
    if let Some(v) = obj.get("openapi") {
        let s = v.as_str().ok_or_else(|| {
            err(
                "/openapi",
                format!(
                    "'openapi' must be a version string such as \"3.1.0\", found {}",
                    found(v)
                ),
            )
        })?;
        return match version_parts(s) {
            Some((3, 0)) => Ok((SpecVersion::OpenApi30, s.to_string())),
            Some((3, 1)) => Ok((SpecVersion::OpenApi31, s.to_string())),
            Some((3, 2)) => Ok((SpecVersion::OpenApi32, s.to_string())),
            _ => Err(err(
                "/openapi",
                format!(
                    "OpenAPI version {} is not supported (supported: 2.0, 3.0.x, 3.1.x, 3.2.x)",
                    found(v)
                ),
            )),
        };
    }
    if let Some(v) = obj.get("swagger") {
        return match v.as_str() {
            Some("2.0") => Ok((SpecVersion::OpenApi20, "2.0".to_string())),
            _ => Err(err(
                "/swagger",
                format!(
                    "Swagger version {} is not supported (only \"2.0\")",
                    found(v)
                ),
            )),
        };
    }
    if let Some(v) = obj.get("asyncapi") {
        let s = v.as_str().ok_or_else(|| {
            err(
                "/asyncapi",
                format!(
                    "'asyncapi' must be a version string such as \"3.0.0\", found {}",
                    found(v)
                ),
            )
        })?;
        return match version_parts(s) {
            Some((2, minor @ 0..=6)) => {
                Ok((SpecVersion::AsyncApi2 { minor: minor as u8 }, s.to_string()))
            }
            // 3.1 is read with the 3.0 rules (and validated with the 3.1.0 schema).
            Some((3, 0 | 1)) => Ok((SpecVersion::AsyncApi30, s.to_string())),
            _ => Err(err(
                "/asyncapi",
                format!(
                    "AsyncAPI version {} is not supported (supported: 2.0 to 2.6, 3.0, 3.1)",
                    found(v)
                ),
            )),
        };
    }
    let keys: Vec<String> = obj
        .keys()
        .take(5)
        .map(|k| format!("'{}'", crate::refs::shorten(k)))
        .collect();
    Err(Diagnostic::new(
        "unknown-spec",
        format!(
            "this is not an OpenAPI or AsyncAPI document: no 'openapi', 'swagger' or 'asyncapi' field at the top level (found {})",
            if keys.is_empty() {
                "an empty object".to_string()
            } else {
                format!("the keys {}", keys.join(", "))
            }
        ),
    ))
}

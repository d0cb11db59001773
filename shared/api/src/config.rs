//! Typed configuration from the environment, read once at start, failing fast with the variable's name.

/// Settings common to every HTTP function.
#[derive(Debug, Clone)]
pub struct FunctionConfig {
    /// DynamoDB table (`SPECPRESS_TABLE`).
    pub table: String,
    /// SQS queue URL for events (`SPECPRESS_QUEUE_URL`), if configured.
    pub queue_url: Option<String>,
    /// Base of public URLs (`SPECPRESS_PUBLIC_URL`).
    pub public_base_url: String,
    /// Request body limit, decompressed (`SPECPRESS_MAX_BODY_BYTES`, default 64 MiB; Lambda's own 6 MB payload
    /// ceiling applies on the wire before that).
    pub max_body_bytes: usize,
    /// Largest API document (`SPECPRESS_MAX_DOCUMENT_BYTES`, default 32 MiB).
    pub max_document_bytes: usize,
}

/// A missing or malformed variable.
#[derive(Debug, thiserror::Error)]
#[error("environment variable {name}: {problem}")]
pub struct ConfigError {
    /// The variable.
    pub name: &'static str,
    /// What is wrong.
    pub problem: &'static str,
}

fn var(name: &'static str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// A byte count from the environment, or `default` when unset.
fn bytes(name: &'static str, default: usize) -> Result<usize, ConfigError> {
    match var(name) {
        Some(v) => v.parse().map_err(|_| ConfigError {
            name,
            problem: "must be a byte count",
        }),
        None => Ok(default),
    }
}

impl FunctionConfig {
    /// Reads `SPECPRESS_TABLE` (required), `SPECPRESS_PUBLIC_URL` (optional), `SPECPRESS_QUEUE_URL`,
    /// `SPECPRESS_MAX_BODY_BYTES`, `SPECPRESS_MAX_DOCUMENT_BYTES`.
    pub fn from_env() -> Result<Self, ConfigError> {
        let table = var("SPECPRESS_TABLE").ok_or(ConfigError {
            name: "SPECPRESS_TABLE",
            problem: "is required",
        })?;
        // Empty: public URLs are derived from each request's Host (see `urls::PublicBase`).
        let public_base_url = var("SPECPRESS_PUBLIC_URL").unwrap_or_default();
        Ok(FunctionConfig {
            table,
            queue_url: var("SPECPRESS_QUEUE_URL"),
            public_base_url,
            max_body_bytes: bytes("SPECPRESS_MAX_BODY_BYTES", crate::DEFAULT_MAX_BODY_BYTES)?,
            max_document_bytes: bytes(
                "SPECPRESS_MAX_DOCUMENT_BYTES",
                crate::DEFAULT_MAX_DOCUMENT_BYTES,
            )?,
        })
    }

    /// The HTTP-layer part of it.
    pub fn api(&self) -> crate::ApiConfig {
        crate::ApiConfig {
            max_body_bytes: self.max_body_bytes,
            max_document_bytes: self.max_document_bytes,
            runtime: crate::Runtime::Lambda,
            ..crate::ApiConfig::new(self.public_base_url.clone())
        }
    }
}

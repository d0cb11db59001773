//! The domain error, named by meaning. The HTTP layer maps each variant to a status code.

/// Why a conditional write was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictKind {
    /// A slug marker already exists (hub or documentation slug taken).
    SlugTaken,
    /// The branch head moved since it was read (optimistic concurrency); re-read and retry.
    BranchMoved,
    /// The item to create already exists (id collision or branch created concurrently).
    AlreadyExists,
    /// The item to update no longer exists or no longer matches (expired preview, rotated token).
    Stale,
}

/// Every failure a use case can report.
#[derive(Debug, thiserror::Error)]
pub enum DomainError {
    /// The object does not exist, or the caller may not know that it exists.
    #[error("{0}")]
    NotFound(String),
    /// A conditional write lost a race or hit an existing unique key.
    #[error("conflict: {0:?}")]
    Conflict(ConflictKind),
    /// The input is well-formed but invalid; `field` names the attribute (`raw_definition`, `documentation`...).
    #[error("{message}")]
    Invalid {
        /// A sentence summarizing the problem.
        message: String,
        /// The attribute the messages are about.
        field: String,
        /// Located, human-actionable messages.
        messages: Vec<String>,
    },
    /// The request is malformed (missing required field, wrong type).
    #[error("{0}")]
    BadRequest(String),
    /// No credentials, or credentials that match no token.
    #[error("missing or invalid token")]
    Unauthorized,
    /// A valid token that may not perform this action (only used where revealing existence is harmless).
    #[error("{0}")]
    Forbidden(String),
    /// Storage or engine failure; details go to the log, never to the client.
    #[error("unexpected failure")]
    Unexpected(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl DomainError {
    /// Wraps any error as [`DomainError::Unexpected`].
    pub fn unexpected(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        DomainError::Unexpected(e.into())
    }

    /// A 422 about one field with one message.
    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        DomainError::Invalid {
            message: message.clone(),
            field: field.to_owned(),
            messages: vec![message],
        }
    }
}

/// Result alias for the domain.
pub type Result<T, E = DomainError> = std::result::Result<T, E>;

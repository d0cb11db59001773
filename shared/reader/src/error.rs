//! What a reader can be told when an answer cannot be given: something is missing (the same words whether it does
//! not exist or this reader may not see it), or the service failed (details logged by the presenter, never shown).

use specpress_domain::DomainError;

/// What is missing. Every presenter words it the same way: an HTML page, a JSON error, an MCP tool error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// No such documentation, or one this reader may not see.
    Documentation,
    /// No such hub, or one this reader may not see.
    Hub,
    /// The branch a URL names does not exist, or has nothing published.
    Branch,
    /// The documentation has nothing published on its default branch yet.
    NothingPublished,
    /// The version has nothing of this documentation's (or has expired).
    Version,
    /// The page is not in this version's site.
    Page,
    /// No such preview (or it expired).
    Preview,
}

impl Missing {
    /// A short title (an error page's heading).
    pub fn title(self) -> &'static str {
        match self {
            Missing::Documentation => "Not found",
            Missing::Hub => "Not found",
            Missing::Branch => "Branch not found",
            Missing::NothingPublished => "Nothing published yet",
            Missing::Version => "Not found",
            Missing::Page => "Page not found",
            Missing::Preview => "Not found",
        }
    }

    /// One sentence for the reader.
    pub fn message(self) -> &'static str {
        match self {
            Missing::Documentation => "Documentation does not exist",
            Missing::Hub => "Hub does not exist",
            Missing::Branch => "This documentation has no published version on this branch.",
            Missing::NothingPublished => "This documentation has no published version yet.",
            Missing::Version => "Version not found",
            Missing::Page => {
                "This documentation has no such page (it may have been removed in a later version)."
            }
            Missing::Preview => "Preview not found",
        }
    }
}

/// Why a read gave no answer.
#[derive(Debug)]
pub enum ReadError {
    /// Nothing this reader may see is there.
    Missing(Missing),
    /// The service failed (storage, a stored definition that does not parse): a 5xx, details for the log only.
    Failed(DomainError),
}

impl ReadError {
    /// The domain's `NotFound` becomes `missing`; anything else is a failure.
    pub fn or_missing(e: DomainError, missing: Missing) -> ReadError {
        match e {
            DomainError::NotFound(_) => ReadError::Missing(missing),
            other => ReadError::Failed(other),
        }
    }
}

impl From<DomainError> for ReadError {
    fn from(e: DomainError) -> Self {
        ReadError::Failed(e)
    }
}

impl From<Missing> for ReadError {
    fn from(m: Missing) -> Self {
        ReadError::Missing(m)
    }
}

/// A read's failure in the domain's terms (what the API's JSON errors answer): what is missing is `NotFound` in the
/// reader's words, a failure stays itself.
impl From<ReadError> for DomainError {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Missing(m) => DomainError::NotFound(m.message().into()),
            ReadError::Failed(e) => e,
        }
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Missing(m) => f.write_str(m.message()),
            ReadError::Failed(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

/// The result of a read.
pub type Read<T> = Result<T, ReadError>;

//! What the engine reports: a [`Diagnostic`] per problem, [`Invalid`] for a document that
//! cannot be used, [`RefError`] for a `$ref` that cannot be followed; and the [`Collector`] that
//! gathers diagnostics up to [`Limits::max_errors`](crate::Limits::max_errors).

/// A located, human-actionable problem.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Diagnostic {
    /// Stable kebab-case id, e.g. `duplicate-key`, `unresolved-ref`, `schema`.
    pub code: &'static str,
    /// A sentence a person can act on.
    pub message: String,
    /// `None` for the root definition, else the reference location.
    pub file: Option<String>,
    /// JSON pointer (`""` is the root).
    pub pointer: String,
    /// 1-based line.
    pub line: Option<u32>,
    /// 1-based column.
    pub column: Option<u32>,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (at {}#{}",
            self.message,
            self.file.as_deref().unwrap_or(""),
            self.pointer
        )?;
        if let Some(line) = self.line {
            write!(f, ", line {line}")?;
            if let Some(column) = self.column {
                write!(f, ", column {column}")?;
            }
        }
        write!(f, ")")
    }
}

impl Diagnostic {
    pub(crate) fn new(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            message: message.into(),
            file: None,
            pointer: String::new(),
            line: None,
            column: None,
        }
    }
}

/// The document is invalid or could not be read: every diagnostic found (capped at
/// [`Limits::max_errors`](crate::Limits::max_errors)).
#[derive(Debug, thiserror::Error)]
#[error("{}", summarize(.diagnostics))]
pub struct Invalid {
    /// The problems, in document order where possible.
    pub diagnostics: Vec<Diagnostic>,
}

fn summarize(diagnostics: &[Diagnostic]) -> String {
    match diagnostics {
        [] => "invalid document".to_string(),
        [one] => one.to_string(),
        [first, rest @ ..] => format!("{first} (and {} more problems)", rest.len()),
    }
}

impl Invalid {
    pub(crate) fn one(d: Diagnostic) -> Self {
        Invalid {
            diagnostics: vec![d],
        }
    }
}

/// A `$ref` that cannot be followed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RefError {
    /// The target file is not among the references, or the pointer does not exist.
    #[error("unresolved $ref '{reference}' (used at {used_at}): {reason}")]
    Unresolved {
        reference: String,
        used_at: String,
        reason: String,
    },
    /// The reference string is not acceptable (a scheme, an absolute path, `..` escaping the
    /// root, NUL, ...).
    #[error("forbidden $ref '{reference}' (used at {used_at}): {reason}")]
    Forbidden {
        reference: String,
        used_at: String,
        reason: String,
    },
    /// Following the chain comes back to where it started without reaching a value.
    #[error("$ref cycle with no schema in it, starting at {used_at}: {chain}")]
    Cycle { used_at: String, chain: String },
    /// The chain is longer than [`Limits::max_ref_chain`](crate::Limits::max_ref_chain).
    #[error("$ref chain longer than {limit} hops starting at {used_at}")]
    TooLong { used_at: String, limit: usize },
}

impl RefError {
    /// The diagnostic code of this error.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            RefError::Forbidden { .. } => "forbidden-ref",
            RefError::Cycle { .. } => "ref-cycle",
            RefError::TooLong { .. } => "ref-chain-too-long",
            RefError::Unresolved { .. } => "unresolved-ref",
        }
    }

    /// The same error, used at `at`.
    pub(crate) fn used_at(self, at: String) -> Self {
        match self {
            RefError::Unresolved {
                reference, reason, ..
            } => RefError::Unresolved {
                reference,
                used_at: at,
                reason,
            },
            RefError::Forbidden {
                reference, reason, ..
            } => RefError::Forbidden {
                reference,
                used_at: at,
                reason,
            },
            other => other,
        }
    }
}

/// Gathers diagnostics, keeping at most `max`.
pub(crate) struct Collector {
    pub(crate) max: usize,
    pub(crate) list: Vec<Diagnostic>,
}

impl Collector {
    pub(crate) fn push(&mut self, d: Diagnostic) {
        if self.list.len() < self.max {
            self.list.push(d);
        }
    }
    pub(crate) fn full(&self) -> bool {
        self.list.len() >= self.max
    }
}

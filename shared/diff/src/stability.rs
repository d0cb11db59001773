//! Stability levels (`x-stability-level`): the one type both the change records and the beta rules read.

/// How much compatibility an element promises, lowest first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Stability {
    Draft,
    Alpha,
    Beta,
    Stable,
}

impl Stability {
    /// The level an `x-stability-level` value names: `draft`, `alpha`, `beta` (any case,
    /// spaces around ignored); anything else is `stable`.
    pub(crate) fn parse(value: &str) -> Stability {
        match value.trim().to_ascii_lowercase().as_str() {
            "draft" => Stability::Draft,
            "alpha" => Stability::Alpha,
            "beta" => Stability::Beta,
            _ => Stability::Stable,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Stability::Draft => "draft",
            Stability::Alpha => "alpha",
            Stability::Beta => "beta",
            Stability::Stable => "stable",
        }
    }
}

impl std::fmt::Display for Stability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

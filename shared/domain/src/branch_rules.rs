//! Branch name rules, applied by `POST /docs/{doc}/branches` (and documented in docs/api.md):
//!
//! - **Length**: 1 to [`BRANCH_NAME_MAX`] characters after trimming surrounding whitespace.
//! - **Characters**: any printable characters (no control characters such as newlines or tabs); the name must
//!   contain at least one ASCII letter or digit.
//! - **Slug**: every branch has a slug, its identity and URL key: ASCII letters and digits lowercased, every other
//!   run of characters becomes one `-`, leading and trailing dashes dropped (`Feature/Login v2` -> `feature-login-v2`).
//!   The slug must be at most [`SLUG_MAX`] characters (it is never silently truncated).
//! - **Case**: names keep their case for display, but identity is the slug, so `Feature/Login` and `feature-login`
//!   are the same branch (creating the second answers 204 "already exists").
//! - **Reserved**: slugs in [`RESERVED_BRANCH_SLUGS`] are refused because they read as keywords in URLs and
//!   tooling (`latest`, `head`, ...).

use crate::error::{DomainError, Result};
use crate::model::{BRANCH_NAME_MAX, BranchName, SLUG_MAX, Slug};

/// Slugs no branch may take.
pub const RESERVED_BRANCH_SLUGS: &[&str] =
    &["head", "latest", "default", "current", "previous", "new"];

/// The slug of a branch name, without truncation; `None` when the name has no ASCII letter or digit.
pub fn branch_slug(name: &str) -> Option<String> {
    let mut out = String::new();
    let mut dash = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c.to_ascii_lowercase());
        } else {
            dash = true;
        }
    }
    if out.is_empty() { None } else { Some(out) }
}

fn invalid(message: String) -> DomainError {
    DomainError::invalid("name", message)
}

/// Validates a branch name for creation and returns it with its slug.
pub fn validate_branch_name(raw: &str) -> Result<BranchName> {
    let name = raw.trim();
    let shown: String = name.chars().take(80).collect();
    if name.is_empty() {
        return Err(invalid(
            "name is required: give the branch a name of 1 to 100 characters".into(),
        ));
    }
    if name.chars().count() > BRANCH_NAME_MAX {
        return Err(invalid(format!(
            "branch name is longer than {BRANCH_NAME_MAX} characters"
        )));
    }
    if name.chars().any(char::is_control) {
        return Err(invalid(
            "branch name must not contain control characters (newlines, tabs, ...)".into(),
        ));
    }
    let Some(slug) = branch_slug(name) else {
        return Err(invalid(format!(
            "branch name '{shown}' must contain at least one ASCII letter or digit"
        )));
    };
    if slug.len() > SLUG_MAX {
        return Err(invalid(format!(
            "branch name '{shown}' makes a slug longer than {SLUG_MAX} characters; use a shorter name"
        )));
    }
    if RESERVED_BRANCH_SLUGS.contains(&slug.as_str()) {
        return Err(invalid(format!(
            "branch name '{shown}' is reserved (reserved: {}); choose another name",
            RESERVED_BRANCH_SLUGS.join(", ")
        )));
    }
    let slug = Slug::parse(&slug)
        .map_err(|_| invalid(format!("branch name '{shown}' has no usable slug")))?;
    Ok(BranchName::from_stored(name.to_owned(), slug))
}

/// Reads the `{slug}` path segment of a branch URL: a slug as listed, or a branch name (mapped to its slug).
pub fn slug_from_path(segment: &str) -> Option<Slug> {
    let segment = segment.trim();
    if let Ok(s) = Slug::parse(segment) {
        return Some(s);
    }
    if segment.chars().count() > BRANCH_NAME_MAX {
        return None;
    }
    branch_slug(segment).and_then(|s| Slug::parse(&s).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_case_and_map_to_lowercase_slugs() {
        let b = validate_branch_name("  Feature/Login v2 ").expect("valid");
        assert_eq!(b.name(), "Feature/Login v2");
        assert_eq!(b.slug().as_str(), "feature-login-v2");
        assert_eq!(
            validate_branch_name("feature-login-v2")
                .expect("valid")
                .slug(),
            b.slug()
        );
    }

    #[test]
    fn invalid_names_are_refused_with_the_name_field() {
        let long = "a".repeat(101);
        let long_slug = "ab-".repeat(33);
        for bad in [
            "",
            "   ",
            "a\nb",
            "tab\there",
            "日本語",
            "!!!",
            &long,
            &long_slug,
            "latest",
            "HEAD",
            "Default",
        ] {
            match validate_branch_name(bad) {
                Err(DomainError::Invalid { field, .. }) => assert_eq!(field, "name", "{bad:?}"),
                other => panic!("{bad:?} should be refused, got {other:?}"),
            }
        }
    }

    #[test]
    fn boundary_lengths_are_accepted() {
        assert!(validate_branch_name(&"a".repeat(64)).is_ok());
        assert!(
            validate_branch_name(&"a".repeat(65)).is_err(),
            "slug over 64"
        );
        assert!(validate_branch_name("x").is_ok());
        assert!(validate_branch_name("release/2024.01_hotfix").is_ok());
    }

    #[test]
    fn path_segments_accept_slugs_and_names() {
        assert_eq!(
            slug_from_path("feature-login")
                .map(|s| s.to_string())
                .as_deref(),
            Some("feature-login")
        );
        assert_eq!(
            slug_from_path("Feature/Login")
                .map(|s| s.to_string())
                .as_deref(),
            Some("feature-login")
        );
        assert!(slug_from_path("!!!").is_none());
    }
}

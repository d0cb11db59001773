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
//! - **Display safety** ([`display_unsafe`]): bidirectional controls (U+202E turns `main\u{202E}nimda` into
//!   `mainadmin` on screen), zero-width and other invisible characters are refused, so two names that look the same
//!   are the same name. Documentation and hub names follow the same rule (`usecases::manage::check_name`).

use crate::error::{DomainError, Result};
use crate::model::{BRANCH_NAME_MAX, BranchName, SLUG_MAX, Slug};

/// Slugs no branch may take.
pub const RESERVED_BRANCH_SLUGS: &[&str] =
    &["head", "latest", "default", "current", "previous", "new"];

/// The slug of a branch name ([`specpress_slug::slug`]), without truncation; `None` when the name has no ASCII
/// letter or digit.
pub fn branch_slug(name: &str) -> Option<String> {
    let out = specpress_slug::slug(name);
    if out.is_empty() { None } else { Some(out) }
}

/// Whether `c` changes how text around it is displayed, or is invisible: bidirectional controls (U+061C, U+200E,
/// U+200F, U+202A-U+202E, U+2066-U+2069), zero-width and other format characters (Unicode category Cf: U+00AD,
/// U+200B-U+200D, U+2060-U+2064, U+FEFF, U+180E, tags U+E0000-U+E007F, ...), line and paragraph separators
/// (U+2028, U+2029), and blank fillers that render as nothing (U+034F, U+115F, U+1160, U+3164, U+FFA0, U+17B4,
/// U+17B5). Control characters (Cc) are refused separately.
pub fn display_unsafe(c: char) -> bool {
    matches!(
        c,
        // Format characters (Cf), which include every bidirectional control and zero-width character.
        '\u{00AD}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061C}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E007F}'
            // Line and paragraph separators.
            | '\u{2028}'
            | '\u{2029}'
            // Characters that render as nothing.
            | '\u{034F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{3164}'
            | '\u{FFA0}'
    )
}

/// The first display-unsafe character of `text` as `U+XXXX`, if any (for error messages: the character itself
/// would not show).
pub fn first_display_unsafe(text: &str) -> Option<String> {
    text.chars()
        .find(|c| display_unsafe(*c))
        .map(|c| format!("U+{:04X}", u32::from(c)))
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
    if let Some(code) = first_display_unsafe(name) {
        return Err(invalid(format!(
            "branch name must not contain invisible or text-direction characters (found {code}); they make \
             different names look the same"
        )));
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
    fn bidirectional_and_invisible_characters_are_refused_naming_the_code_point() {
        for (bad, code) in [
            ("main\u{202E}nimda", "U+202E"),
            ("feature\u{200B}login", "U+200B"),
            ("zero\u{200D}joiner", "U+200D"),
            ("\u{FEFF}release", "U+FEFF"),
            ("soft\u{00AD}hyphen", "U+00AD"),
            ("word\u{2060}joiner", "U+2060"),
            ("isolate\u{2066}x\u{2069}", "U+2066"),
            ("mark\u{200E}", "U+200E"),
            ("mark\u{200F}x", "U+200F"),
            ("arabic\u{061C}mark", "U+061C"),
            ("embed\u{202A}x", "U+202A"),
            ("tag\u{E0041}x", "U+E0041"),
            ("line\u{2028}sep", "U+2028"),
            ("filler\u{3164}x", "U+3164"),
        ] {
            match validate_branch_name(bad) {
                Err(DomainError::Invalid {
                    field, messages, ..
                }) => {
                    assert_eq!(field, "name", "{bad:?}");
                    assert!(
                        messages.iter().any(|m| m.contains(code)),
                        "{bad:?}: {messages:?}"
                    );
                }
                other => panic!("{bad:?} should be refused, got {other:?}"),
            }
        }
        // Visible non-ASCII letters stay allowed next to an ASCII letter or digit.
        assert!(validate_branch_name("café-2").is_ok());
        assert!(validate_branch_name("release/日本").is_ok());
    }

    #[test]
    fn names_blank_after_trimming_are_refused() {
        for blank in [" ", "\u{00A0}", "\u{3000}\u{2003}", " \t"] {
            assert!(validate_branch_name(blank).is_err(), "{blank:?}");
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

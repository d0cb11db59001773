//! Reference locations and `$ref` strings.
//!
//! A document's files are the `definition` plus the `references` table; a `$ref` may only
//! point inside them. Nothing here touches the filesystem or the network: a location is just
//! a key into the table. Rules (see reliability.md §4.3):
//!
//! - Percent-decode once, then treat `\` as `/` (bump-cli sends Windows separators).
//! - `./` and `.` segments are dropped; `..` is resolved lexically and an error when it climbs
//!   above the root (so `../../etc/passwd`, `%2e%2e/x`, `..%2fx`, `a\..\..\b` are refused).
//! - Absolute paths (`/abs.yaml`), drive letters (`C:\x`), network-path refs (`//host/x`), NUL
//!   bytes, locations longer than [`MAX_LOCATION`] and every scheme but `http`/`https` are
//!   refused.
//! - `http(s)` URLs are accepted only as opaque keys: bump-cli fetches remote files itself and
//!   sends them in `references` under their URL, so a `$ref` to a URL resolves to that entry
//!   when it exists and is an "unresolved" error otherwise. Nothing is ever fetched.
//! - A relative ref inside a referenced file is resolved against that file's location.

use percent_encoding::percent_decode_str;

/// Longest accepted location or `$ref` file part, in bytes.
pub(crate) const MAX_LOCATION: usize = 2048;

fn scheme_of(s: &str) -> Option<&str> {
    let colon = s.find(':')?;
    let scheme = &s[..colon];
    let mut bytes = scheme.bytes();
    let first = bytes.next()?;
    if first.is_ascii_alphabetic()
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
    {
        Some(scheme)
    } else {
        None
    }
}

/// Resolves `.` and `..` segments; `None` when `..` climbs above the start.
fn clean_segments(path: &str) -> Option<Vec<&str>> {
    let mut out: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            s => out.push(s),
        }
    }
    Some(out)
}

fn decode(raw: &str) -> Result<String, String> {
    if raw.len() > MAX_LOCATION {
        return Err(format!(
            "it is {} characters long, more than the limit of {MAX_LOCATION}",
            raw.len()
        ));
    }
    if raw.contains('\0') {
        return Err("it contains a NUL byte".into());
    }
    let decoded = percent_decode_str(raw)
        .decode_utf8()
        .map_err(|_| "it percent-decodes to invalid UTF-8".to_string())?
        .into_owned();
    if decoded.contains('\0') {
        return Err("it contains a NUL byte (percent-encoded)".into());
    }
    Ok(decoded.replace('\\', "/"))
}

/// Normalizes a URL location (`http(s)://authority/path`): lower-cases scheme and authority,
/// resolves dot segments.
fn normalize_url(scheme: &str, rest: &str) -> Result<String, String> {
    let lower = scheme.to_ascii_lowercase();
    if lower != "http" && lower != "https" {
        return Err(format!(
            "the scheme '{scheme}:' is not allowed: Specpress never reads files or fetches URLs; send the file in `references`"
        ));
    }
    let Some(after) = rest.strip_prefix("//") else {
        return Err(format!("'{scheme}:' URL without an authority"));
    };
    let (authority, path) = match after.find('/') {
        Some(i) => (&after[..i], &after[i..]),
        None => (after, "/"),
    };
    if authority.is_empty() {
        return Err("URL without a host".into());
    }
    let (path, query) = match path.find('?') {
        Some(i) => (&path[..i], &path[i..]),
        None => (path, ""),
    };
    let segs = clean_segments(path)
        .ok_or_else(|| "its '..' segments climb above the URL's root".to_string())?;
    let trailing = if path.ends_with('/') && !segs.is_empty() {
        "/"
    } else {
        ""
    };
    Ok(format!(
        "{lower}://{}/{}{trailing}{query}",
        authority.to_ascii_lowercase(),
        segs.join("/")
    ))
}

/// Normalizes a reference location as sent in `references` (relative to the root file).
pub(crate) fn normalize_location(raw: &str) -> Result<String, String> {
    resolve_against(raw, "")
}

/// Resolves the file part of a `$ref` written in the file whose normalized location is `base`
/// (`""` for the root definition) into a normalized location.
pub(crate) fn resolve_against(raw: &str, base: &str) -> Result<String, String> {
    if raw.is_empty() {
        return Err("the location is empty".into());
    }
    let s = decode(raw)?;
    if let Some(scheme) = scheme_of(&s) {
        if scheme.len() == 1 {
            return Err(format!(
                "'{raw}' is an absolute Windows path; use a path relative to the root file"
            ));
        }
        return normalize_url(scheme, &s[scheme.len() + 1..]);
    }
    if s.starts_with("//") {
        return Err(
            "a network-path reference ('//host/...') is not allowed; Specpress never fetches URLs"
                .into(),
        );
    }
    if s.starts_with('/') {
        return Err("absolute paths are not allowed; use a path relative to the root file".into());
    }
    if let Some(scheme) = scheme_of(base) {
        // Relative to a URL-located file: join onto its directory.
        let rest = &base[scheme.len() + 3..];
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let dir = match path.rfind('/') {
            Some(i) => &path[..=i],
            None => "/",
        };
        return normalize_url(scheme, &format!("//{authority}{dir}{s}"));
    }
    let dir = match base.rfind('/') {
        Some(i) => &base[..=i],
        None => "",
    };
    let joined = format!("{dir}{s}");
    let segs = clean_segments(&joined)
        .ok_or_else(|| "its '..' segments climb above the root file's folder".to_string())?;
    if segs.is_empty() {
        return Err("the location names no file".into());
    }
    Ok(segs.join("/"))
}

/// A location or reference for messages: at most 120 characters.
pub(crate) fn shorten(s: &str) -> String {
    let n = s.chars().count();
    if n <= 120 {
        s.replace('\0', "\\0")
    } else {
        format!(
            "{}... ({n} characters)",
            s.chars().take(100).collect::<String>().replace('\0', "\\0")
        )
    }
}

/// Splits a `$ref` into its (raw) file part and its JSON pointer (percent-decoded, still
/// RFC 6901 escaped).
pub(crate) fn split_ref(reference: &str) -> Result<(&str, String), String> {
    let (file, fragment) = match reference.find('#') {
        Some(i) => (&reference[..i], &reference[i + 1..]),
        None => (reference, ""),
    };
    let pointer = if fragment.contains('%') {
        percent_decode_str(fragment)
            .decode_utf8()
            .map_err(|_| "its fragment percent-decodes to invalid UTF-8".to_string())?
            .into_owned()
    } else {
        fragment.to_string()
    };
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err(format!(
            "the fragment '#{pointer}' is not a JSON pointer (plain-name anchors are not supported); write '#/path/to/target'"
        ));
    }
    if !crate::pointer::is_valid(&pointer) {
        return Err(format!(
            "the fragment '#{pointer}' is not a valid JSON pointer ('~' must be followed by 0 or 1)"
        ));
    }
    Ok((file, pointer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_dot_slash_and_accepts_backslashes() {
        assert_eq!(
            normalize_location("./schemas/pet.yaml").unwrap(),
            "schemas/pet.yaml"
        );
        assert_eq!(
            normalize_location("schemas\\pet.yaml").unwrap(),
            "schemas/pet.yaml"
        );
        assert_eq!(normalize_location(".\\a\\.\\b.json").unwrap(), "a/b.json");
        assert_eq!(normalize_location("a/../b.yaml").unwrap(), "b.yaml");
        assert_eq!(normalize_location("a//b.yaml").unwrap(), "a/b.yaml");
    }

    #[test]
    fn refuses_escapes_absolute_paths_schemes_and_nul() {
        for bad in [
            "../../etc/passwd",
            "%2e%2e/x.yaml",
            "..%2fx.yaml",
            "a\\..\\..\\b",
            "/abs.yaml",
            "C:\\x",
            "c:/x",
            "file:///proc/self/environ",
            "//evil.example/x.yaml",
            "ftp://host/x",
            "gopher://x",
            "a\0b",
            "a%00b",
            "",
        ] {
            assert!(normalize_location(bad).is_err(), "{bad:?} must be refused");
        }
        let long = "a/".repeat(5000) + "x.yaml";
        let err = normalize_location(&long).unwrap_err();
        assert!(err.contains("limit"), "{err}");
    }

    #[test]
    fn urls_are_opaque_normalized_keys() {
        assert_eq!(
            normalize_location("HTTPS://Example.org/api/./m.yml").unwrap(),
            "https://example.org/api/m.yml"
        );
        assert!(normalize_location("https://example.org/../x").is_err());
        assert_eq!(
            resolve_against("other.yml", "https://example.org/api/m.yml").unwrap(),
            "https://example.org/api/other.yml"
        );
    }

    #[test]
    fn relative_refs_resolve_against_the_referencing_file() {
        assert_eq!(
            resolve_against("pet.yaml", "schemas/index.yaml").unwrap(),
            "schemas/pet.yaml"
        );
        assert_eq!(
            resolve_against("../common.yaml", "schemas/index.yaml").unwrap(),
            "common.yaml"
        );
        assert!(resolve_against("../../x.yaml", "schemas/index.yaml").is_err());
    }

    #[test]
    fn ref_fragments_are_percent_decoded_pointers() {
        let (f, p) = split_ref("#/paths/~1pets~1%7Bid%7D").unwrap();
        assert_eq!((f, p.as_str()), ("", "/paths/~1pets~1{id}"));
        let (f, p) = split_ref("common.yaml").unwrap();
        assert_eq!((f, p.as_str()), ("common.yaml", ""));
        assert!(split_ref("#anchor").is_err());
        assert!(split_ref("#/a~2").is_err());
    }
}

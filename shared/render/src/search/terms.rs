//! Words of a query and terms of the index: lower-cased, camelCase and snake_case split into their parts, single
//! letters left out.

use super::{MAX_QUERY_CHARS, MAX_QUERY_WORDS, MAX_TERM_CHARS, QueryError};

/// The words of a query, lower-cased (camelCase and snake_case split into their parts).
pub fn query_words(query: &str) -> Result<Vec<String>, QueryError> {
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(QueryError::TooLong);
    }
    let mut words: Vec<String> = Vec::new();
    for word in query.split(|c: char| !c.is_alphanumeric()) {
        let parts = camel_parts(word);
        let list: Vec<&str> = if parts.len() > 1 { parts } else { vec![word] };
        for p in list {
            let w = normalize(p);
            // Single letters are not indexed (see `index_terms`).
            if w.chars().count() >= 2 && !words.contains(&w) && words.len() < MAX_QUERY_WORDS {
                words.push(w);
            }
        }
    }
    if words.is_empty() {
        Err(QueryError::Empty)
    } else {
        Ok(words)
    }
}

/// Lower case, at most [`MAX_TERM_CHARS`] characters.
fn normalize(word: &str) -> String {
    word.chars()
        .flat_map(char::to_lowercase)
        .take(MAX_TERM_CHARS)
        .collect()
}

/// `listReposForOrg` -> `list`, `Repos`, `For`, `Org`; `HTTPServer2` -> `HTTP`, `Server`, `2`. One part when the
/// word has no inner boundary.
fn camel_parts(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for k in 1..chars.len() {
        let (i, c) = chars[k];
        let p = chars[k - 1].1;
        let next_lower = chars.get(k + 1).is_some_and(|(_, n)| n.is_lowercase());
        let boundary = (p.is_lowercase() && c.is_uppercase())
            || (p.is_alphabetic() && c.is_numeric())
            || (p.is_numeric() && c.is_alphabetic())
            || (p.is_uppercase() && c.is_uppercase() && next_lower);
        if boundary {
            parts.push(&word[start..i]);
            start = i;
        }
    }
    parts.push(&word[start..]);
    parts
}

/// Every term of a text: each word lower-cased, and the parts of camelCase words; single letters are left out.
pub(super) fn index_terms(text: &str, mut f: impl FnMut(String)) {
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        let whole = normalize(word);
        let parts = camel_parts(word);
        if whole.chars().count() >= 2 {
            f(whole);
        }
        if parts.len() > 1 {
            for p in parts {
                let p = normalize(p);
                if p.chars().count() >= 2 {
                    f(p);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{MAX_QUERY_CHARS, MAX_QUERY_WORDS, QueryError};

    #[test]
    fn camel_case_words_are_split_into_their_parts() {
        assert_eq!(
            camel_parts("listReposForOrg"),
            vec!["list", "Repos", "For", "Org"]
        );
        assert_eq!(camel_parts("HTTPServer2"), vec!["HTTP", "Server", "2"]);
        assert_eq!(camel_parts("plain"), vec!["plain"]);
    }

    #[test]
    fn a_query_is_lower_cased_split_and_bounded() {
        assert_eq!(
            query_words("GET /repos/{owner} listRepos").unwrap(),
            vec!["get", "repos", "owner", "list"]
        );
        assert_eq!(query_words("  ?! "), Err(QueryError::Empty));
        assert_eq!(query_words("a / b"), Err(QueryError::Empty));
        assert_eq!(
            query_words(&"a".repeat(MAX_QUERY_CHARS + 1)),
            Err(QueryError::TooLong)
        );
        assert_eq!(
            query_words("aa bb cc dd ee ff gg hh ii jj kk")
                .unwrap()
                .len(),
            MAX_QUERY_WORDS
        );
    }
}

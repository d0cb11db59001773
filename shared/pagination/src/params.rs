//! Parsing of the pagination query parameters.

use std::ops::Range;

/// Page used when `page` is absent.
pub const DEFAULT_PAGE: u32 = 1;
/// Page size used when `limit`/`per_page` is absent.
pub const DEFAULT_LIMIT: u32 = 10;
/// Largest page size: bounds the work and response size of one request.
pub const MAX_LIMIT: u32 = 100;
/// Largest page number accepted: keeps `(page - 1) * limit` far from any overflow and refuses
/// absurd offsets early instead of scanning to them.
pub const MAX_PAGE: u32 = 1_000_000;
/// Longest raw parameter value examined before refusing it (cursors have their own cap).
const MAX_NUMBER_LEN: usize = 20;

/// A malformed or out-of-range pagination parameter. [`ParamError::message`] is the text of the
/// 400 answer: it names the parameter and its limits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// `page` is not an integer between 1 and [`MAX_PAGE`].
    #[error("`page` must be an integer between 1 and {MAX_PAGE}")]
    Page,
    /// `limit` (or `per_page`) is not an integer between 1 and [`MAX_LIMIT`].
    #[error("`{0}` must be an integer between 1 and {MAX_LIMIT}")]
    Limit(&'static str),
    /// `limit` and `per_page` are both given (even with the same value).
    #[error("`limit` and `per_page` are aliases; give only one of them")]
    ConflictingLimit,
    /// `envelope` is neither `true` nor `false`.
    #[error("`envelope` must be `true` or `false`")]
    Envelope,
    /// A parameter appears more than once.
    #[error("`{0}` must be given at most once")]
    Repeated(&'static str),
    /// `cursor` and `page` are both given: they are two ways to say where to start.
    #[error("`cursor` and `page` cannot be combined; follow the `next` link as given")]
    CursorWithPage,
    /// `cursor` is empty, malformed, tampered with, or belongs to another list.
    #[error("`cursor` is invalid for this list; use a cursor returned by this list")]
    InvalidCursor,
    /// `cursor` has expired.
    #[error("`cursor` has expired; start again from the first page")]
    ExpiredCursor,
}

impl ParamError {
    /// The query parameter at fault.
    pub fn parameter(&self) -> &'static str {
        match self {
            Self::Page | Self::CursorWithPage => "page",
            Self::Limit(name) | Self::Repeated(name) => name,
            Self::ConflictingLimit => "limit",
            Self::Envelope => "envelope",
            Self::InvalidCursor | Self::ExpiredCursor => "cursor",
        }
    }

    /// The user-facing message (the `message` of the 400 body).
    pub fn message(&self) -> String {
        self.to_string()
    }
}

/// A parsed pagination request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    /// 1-based page number.
    pub page: u32,
    /// Page size, 1..=100.
    pub limit: u32,
    /// The raw opaque cursor, if any; verify it with [`crate::CursorCodec::decode`].
    pub cursor: Option<String>,
    /// Whether `?envelope=true` asked for the `{data, meta, links}` object.
    pub envelope: bool,
    /// Whether `page` was given explicitly.
    pub page_given: bool,
}

impl Default for PageRequest {
    fn default() -> Self {
        Self {
            page: DEFAULT_PAGE,
            limit: DEFAULT_LIMIT,
            cursor: None,
            envelope: false,
            page_given: false,
        }
    }
}

fn parse_bounded(raw: &str, max: u32) -> Option<u32> {
    // Digits only, nothing around them: rejects signs, decimals, exponents and any whitespace
    // (`limit=%2010` is not `limit=10`); the length cap rejects 10^9-digit inputs without
    // parsing them.
    if raw.is_empty() || raw.len() > MAX_NUMBER_LEN || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value: u64 = raw.parse().ok()?;
    u32::try_from(value).ok().filter(|v| (1..=max).contains(v))
}

impl PageRequest {
    /// Parses the raw query string of a request (`None` or `""` for no query). Parameters other
    /// than `page`, `limit`, `per_page`, `cursor` and `envelope` are ignored (they belong to the
    /// endpoint) and preserved by [`crate::ListUrl`].
    pub fn from_query(query: Option<&str>) -> Result<Self, ParamError> {
        let pairs = url::form_urlencoded::parse(query.unwrap_or("").as_bytes());
        Self::from_pairs(pairs.map(|(k, v)| (k.into_owned(), v.into_owned())))
    }

    /// Parses already-decoded query pairs.
    pub fn from_pairs<I, K, V>(pairs: I) -> Result<Self, ParamError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut page: Option<String> = None;
        let mut limit: Option<String> = None;
        let mut per_page: Option<String> = None;
        let mut cursor: Option<String> = None;
        let mut envelope: Option<String> = None;
        for (key, value) in pairs {
            let (slot, name) = match key.as_ref() {
                "page" => (&mut page, "page"),
                "limit" => (&mut limit, "limit"),
                "per_page" => (&mut per_page, "per_page"),
                "cursor" => (&mut cursor, "cursor"),
                "envelope" => (&mut envelope, "envelope"),
                _ => continue,
            };
            if slot.is_some() {
                return Err(ParamError::Repeated(name));
            }
            *slot = Some(value.as_ref().to_owned());
        }

        let mut req = Self::default();
        if let Some(raw) = &page {
            req.page = parse_bounded(raw, MAX_PAGE).ok_or(ParamError::Page)?;
            req.page_given = true;
        }
        let limit_value = match (&limit, &per_page) {
            (Some(l), None) => Some(parse_bounded(l, MAX_LIMIT).ok_or(ParamError::Limit("limit"))?),
            (None, Some(p)) => {
                Some(parse_bounded(p, MAX_LIMIT).ok_or(ParamError::Limit("per_page"))?)
            }
            // Two names for one setting: refused even when equal, so a client never depends on which wins.
            (Some(_), Some(_)) => return Err(ParamError::ConflictingLimit),
            (None, None) => None,
        };
        if let Some(l) = limit_value {
            req.limit = l;
        }
        if let Some(raw) = envelope {
            req.envelope = match raw.as_str() {
                "true" => true,
                "false" => false,
                _ => return Err(ParamError::Envelope),
            };
        }
        if let Some(raw) = cursor {
            if raw.is_empty() {
                return Err(ParamError::InvalidCursor);
            }
            if req.page_given {
                return Err(ParamError::CursorWithPage);
            }
            req.cursor = Some(raw);
        }
        Ok(req)
    }

    /// Index of the first item of the requested page (`(page - 1) * limit`).
    pub fn offset(&self) -> u64 {
        u64::from(self.page.saturating_sub(1)) * u64::from(self.limit)
    }

    /// The index range of the requested page within a list of `total` items (empty past the end),
    /// for lists paginated in memory.
    pub fn range(&self, total: usize) -> Range<usize> {
        let start = usize::try_from(self.offset())
            .unwrap_or(usize::MAX)
            .min(total);
        let end = start
            .saturating_add(usize::try_from(self.limit).unwrap_or(usize::MAX))
            .min(total);
        start..end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(q: &str) -> Result<PageRequest, ParamError> {
        PageRequest::from_query(Some(q))
    }

    #[test]
    fn defaults_apply_when_nothing_is_given() {
        let req = PageRequest::from_query(None).expect("ok");
        assert_eq!((req.page, req.limit, req.envelope), (1, 10, false));
        assert_eq!(req.cursor, None);
        assert_eq!(parse("").expect("ok"), req);
        assert_eq!(parse("name=x&sort=asc").expect("ok"), req);
    }

    #[test]
    fn valid_values_are_parsed_and_per_page_is_an_alias() {
        let req = parse("page=3&limit=100&envelope=true").expect("ok");
        assert_eq!((req.page, req.limit, req.envelope), (3, 100, true));
        assert_eq!(parse("per_page=7").expect("ok").limit, 7);
        assert_eq!(parse("limit=1").expect("ok").limit, 1);
        assert!(!parse("envelope=false").expect("ok").envelope);
    }

    #[test]
    fn out_of_range_and_malformed_values_name_the_parameter_and_limits() {
        let cases: &[(&str, ParamError)] = &[
            ("page=0", ParamError::Page),
            ("page=-1", ParamError::Page),
            ("page=1.5", ParamError::Page),
            ("page=abc", ParamError::Page),
            ("page=", ParamError::Page),
            ("page=1000001", ParamError::Page),
            ("page=99999999999999999999999999", ParamError::Page),
            ("limit=0", ParamError::Limit("limit")),
            ("limit=-1", ParamError::Limit("limit")),
            ("limit=101", ParamError::Limit("limit")),
            ("limit=1000000000", ParamError::Limit("limit")),
            ("limit=1e2", ParamError::Limit("limit")),
            ("per_page=0", ParamError::Limit("per_page")),
            ("limit=5&per_page=6", ParamError::ConflictingLimit),
            ("limit=5&per_page=5", ParamError::ConflictingLimit),
            ("limit=%2010", ParamError::Limit("limit")),
            ("limit=10%20", ParamError::Limit("limit")),
            ("limit=+10", ParamError::Limit("limit")),
            ("limit=%0A10", ParamError::Limit("limit")),
            ("page=%202", ParamError::Page),
            ("per_page=%095", ParamError::Limit("per_page")),
            ("envelope=%20true", ParamError::Envelope),
            ("envelope=TRUE", ParamError::Envelope),
            ("envelope=yes", ParamError::Envelope),
            ("page=1&page=2", ParamError::Repeated("page")),
            ("cursor=", ParamError::InvalidCursor),
            ("cursor=abc&page=2", ParamError::CursorWithPage),
        ];
        for (query, expected) in cases {
            assert_eq!(parse(query).as_ref(), Err(expected), "{query}");
        }
        assert_eq!(
            ParamError::Limit("limit").message(),
            "`limit` must be an integer between 1 and 100"
        );
        assert_eq!(
            ParamError::Page.message(),
            "`page` must be an integer between 1 and 1000000"
        );
        assert_eq!(ParamError::Limit("per_page").parameter(), "per_page");
    }

    #[test]
    fn percent_encoded_values_are_decoded_before_checking() {
        assert_eq!(parse("page=%32").expect("ok").page, 2);
        assert_eq!(
            parse("cursor=a%2Bb").expect("ok").cursor.as_deref(),
            Some("a+b")
        );
    }

    #[test]
    fn range_is_clamped_to_the_list() {
        let req = parse("page=3&limit=10").expect("ok");
        assert_eq!(req.offset(), 20);
        assert_eq!(req.range(25), 20..25);
        assert_eq!(req.range(5), 5..5);
        let last = parse(&format!("page={MAX_PAGE}&limit={MAX_LIMIT}")).expect("ok");
        assert_eq!(last.offset(), 99_999_900);
    }
}

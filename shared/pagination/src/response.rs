//! Response side: headers of the bare-array response and the `?envelope=true` object, built
//! from the same [`PageInfo`] so the two shapes never disagree.

use http::{HeaderMap, HeaderName, HeaderValue};
use serde::Serialize;
use serde_json::{Value, json};

use crate::params::PageRequest;

/// Parameters owned by pagination: replaced in generated links; everything else is preserved.
const PAGINATION_PARAMS: [&str; 4] = ["page", "limit", "per_page", "cursor"];

/// The URL of a list request, minus its pagination parameters, from which `self`, `next`,
/// `prev`, `first` and `last` links are built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListUrl {
    base: String,
    other_pairs: Vec<(String, String)>,
}

impl ListUrl {
    /// `base` is what precedes the query: a path (`/api/v1/docs/d/branches`, giving relative
    /// links, which RFC 8288 allows) or an absolute URL without query. `query` is the raw query
    /// string of the request; its non-pagination parameters (filters, `envelope`) are kept in
    /// their original order.
    pub fn new(base: &str, query: Option<&str>) -> Self {
        let other_pairs = url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
            .filter(|(k, _)| !PAGINATION_PARAMS.contains(&k.as_ref()))
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        Self {
            base: base.to_owned(),
            other_pairs,
        }
    }

    fn build(&self, extra: &[(&str, &str)]) -> String {
        let mut ser = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &self.other_pairs {
            ser.append_pair(k, v);
        }
        for (k, v) in extra {
            ser.append_pair(k, v);
        }
        format!("{}?{}", self.base, ser.finish())
    }

    /// Link to `page` with page size `limit`.
    pub fn page_url(&self, page: u64, limit: u32) -> String {
        self.build(&[("page", &page.to_string()), ("limit", &limit.to_string())])
    }

    /// Link following `cursor` with page size `limit`.
    pub fn cursor_url(&self, cursor: &str, limit: u32) -> String {
        self.build(&[("cursor", cursor), ("limit", &limit.to_string())])
    }
}

/// Where a response sits in its list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageInfo {
    /// 1-based page number of this response.
    pub page: u32,
    /// Page size.
    pub limit: u32,
    /// Items in the whole list.
    pub total_items: u64,
    /// Cursor of the following page, when the service pages by cursor.
    pub next_cursor: Option<String>,
    /// The cursor this page was requested with, if any (used for the `self` link).
    pub current_cursor: Option<String>,
}

impl PageInfo {
    /// Info for the page `req` asked for, in a list of `total_items`. For a cursor request,
    /// set `page` from the verified [`crate::CursorPosition`].
    pub fn new(req: &PageRequest, total_items: u64) -> Self {
        Self {
            page: req.page,
            limit: req.limit,
            total_items,
            next_cursor: None,
            current_cursor: req.cursor.clone(),
        }
    }

    /// Overrides the page number (cursor requests carry it inside the cursor).
    pub fn with_page(mut self, page: u32) -> Self {
        self.page = page;
        self
    }

    /// Sets the cursor of the following page (`None` at the end of the list).
    pub fn with_next_cursor(mut self, cursor: Option<String>) -> Self {
        self.next_cursor = cursor;
        self
    }

    /// `ceil(total_items / limit)`; 0 for an empty list.
    pub fn total_pages(&self) -> u64 {
        self.total_items.div_ceil(u64::from(self.limit.max(1)))
    }

    /// Whether another page follows this one.
    pub fn has_more(&self) -> bool {
        self.next_cursor.is_some() || u64::from(self.page) < self.total_pages()
    }

    /// Link to this very page.
    pub fn self_link(&self, url: &ListUrl) -> String {
        match &self.current_cursor {
            Some(c) => url.cursor_url(c, self.limit),
            None => url.page_url(u64::from(self.page), self.limit),
        }
    }

    /// Link to the next page: by cursor when the service gave one, else by page number.
    pub fn next_link(&self, url: &ListUrl) -> Option<String> {
        match &self.next_cursor {
            Some(c) => Some(url.cursor_url(c, self.limit)),
            None if self.has_more() => Some(url.page_url(u64::from(self.page) + 1, self.limit)),
            None => None,
        }
    }

    /// Link to the previous page (page-numbered; past the end it points at the last page).
    pub fn prev_link(&self, url: &ListUrl) -> Option<String> {
        if self.page <= 1 {
            return None;
        }
        let prev = (u64::from(self.page) - 1).min(self.total_pages().max(1));
        Some(url.page_url(prev, self.limit))
    }

    /// The `Link` header value: `next`, `prev`, `first` and `last` relations (RFC 8288).
    pub fn link_header(&self, url: &ListUrl) -> String {
        let mut parts = Vec::new();
        if let Some(next) = self.next_link(url) {
            parts.push(format!("<{next}>; rel=\"next\""));
        }
        if let Some(prev) = self.prev_link(url) {
            parts.push(format!("<{prev}>; rel=\"prev\""));
        }
        parts.push(format!("<{}>; rel=\"first\"", url.page_url(1, self.limit)));
        if self.total_pages() > 0 {
            parts.push(format!(
                "<{}>; rel=\"last\"",
                url.page_url(self.total_pages(), self.limit)
            ));
        }
        parts.join(", ")
    }

    /// Headers of the default bare-array response: `X-Total-Count`, `X-Page`, `X-Per-Page`,
    /// `Link`. A header whose value is not valid (a non-ASCII `base`) is left out rather than
    /// failing the response.
    pub fn headers(&self, url: &ListUrl) -> HeaderMap {
        let mut headers = HeaderMap::new();
        let values = [
            ("x-total-count", self.total_items.to_string()),
            ("x-page", self.page.to_string()),
            ("x-per-page", self.limit.to_string()),
            ("link", self.link_header(url)),
        ];
        for (name, value) in values {
            if let Ok(value) = HeaderValue::from_str(&value) {
                headers.insert(HeaderName::from_static(name), value);
            }
        }
        headers
    }

    /// The `?envelope=true` body:
    /// `{data, meta: {page, size, total_pages, total_items, next_cursor, has_more},
    /// links: {self, next, prev}}`, where `size` is the page size (`limit`).
    pub fn envelope<T: Serialize + ?Sized>(
        &self,
        data: &T,
        url: &ListUrl,
    ) -> Result<Value, serde_json::Error> {
        Ok(json!({
            "data": serde_json::to_value(data)?,
            "meta": {
                "page": self.page,
                "size": self.limit,
                "total_pages": self.total_pages(),
                "total_items": self.total_items,
                "next_cursor": self.next_cursor,
                "has_more": self.has_more(),
            },
            "links": {
                "self": self.self_link(url),
                "next": self.next_link(url),
                "prev": self.prev_link(url),
            },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(q: &str) -> PageRequest {
        PageRequest::from_query(Some(q)).expect("valid query")
    }

    #[test]
    fn links_preserve_other_parameters_and_replace_pagination_ones() {
        let url = ListUrl::new(
            "/api/v1/docs/d1/branches",
            Some("sort=name&page=2&per_page=5&q=a%20b&envelope=true"),
        );
        let info = PageInfo::new(&req("page=2&per_page=5"), 23);
        assert_eq!(
            info.next_link(&url).as_deref(),
            Some("/api/v1/docs/d1/branches?sort=name&q=a+b&envelope=true&page=3&limit=5")
        );
        assert_eq!(
            info.prev_link(&url).as_deref(),
            Some("/api/v1/docs/d1/branches?sort=name&q=a+b&envelope=true&page=1&limit=5")
        );
    }

    #[test]
    fn headers_carry_counts_and_link_relations() {
        let url = ListUrl::new("https://api.example.com/api/v1/hubs", None);
        let info = PageInfo::new(&req("page=2&limit=10"), 25);
        let h = info.headers(&url);
        let get = |n: &str| h.get(n).and_then(|v| v.to_str().ok()).map(str::to_owned);
        assert_eq!(get("x-total-count").as_deref(), Some("25"));
        assert_eq!(get("x-page").as_deref(), Some("2"));
        assert_eq!(get("x-per-page").as_deref(), Some("10"));
        assert_eq!(
            get("link").as_deref(),
            Some(
                "<https://api.example.com/api/v1/hubs?page=3&limit=10>; rel=\"next\", \
                 <https://api.example.com/api/v1/hubs?page=1&limit=10>; rel=\"prev\", \
                 <https://api.example.com/api/v1/hubs?page=1&limit=10>; rel=\"first\", \
                 <https://api.example.com/api/v1/hubs?page=3&limit=10>; rel=\"last\""
            )
        );
    }

    #[test]
    fn last_page_has_no_next_and_first_page_has_no_prev() {
        let url = ListUrl::new("/l", None);
        let last = PageInfo::new(&req("page=3&limit=10"), 25);
        assert!(!last.has_more());
        assert_eq!(last.next_link(&url), None);
        let first = PageInfo::new(&req("limit=10"), 25);
        assert_eq!(first.prev_link(&url), None);
        assert!(!first.link_header(&url).contains("rel=\"prev\""));
    }

    #[test]
    fn page_past_the_end_points_prev_at_the_last_page() {
        let url = ListUrl::new("/l", None);
        let info = PageInfo::new(&req("page=9&limit=10"), 25);
        assert_eq!(info.prev_link(&url).as_deref(), Some("/l?page=3&limit=10"));
        assert!(!info.has_more());
    }

    #[test]
    fn cursor_pages_link_next_by_cursor() {
        let url = ListUrl::new("/l", Some("cursor=OLD&limit=5&x=1"));
        let info = PageInfo::new(&req("cursor=OLD&limit=5"), 12)
            .with_page(2)
            .with_next_cursor(Some("NEXT".into()));
        assert_eq!(info.self_link(&url), "/l?x=1&cursor=OLD&limit=5");
        assert_eq!(
            info.next_link(&url).as_deref(),
            Some("/l?x=1&cursor=NEXT&limit=5")
        );
        assert_eq!(
            info.prev_link(&url).as_deref(),
            Some("/l?x=1&page=1&limit=5")
        );
    }

    #[test]
    fn envelope_has_the_documented_shape() {
        let url = ListUrl::new("/l", Some("envelope=true"));
        let info = PageInfo::new(&req("page=1&limit=2&envelope=true"), 3)
            .with_next_cursor(Some("c2".into()));
        let body = info.envelope(&["a", "b"], &url).expect("serializes");
        assert_eq!(
            body,
            json!({
                "data": ["a", "b"],
                "meta": {"page": 1, "size": 2, "total_pages": 2, "total_items": 3,
                         "next_cursor": "c2", "has_more": true},
                "links": {"self": "/l?envelope=true&page=1&limit=2",
                          "next": "/l?envelope=true&cursor=c2&limit=2",
                          "prev": null}
            })
        );
    }

    #[test]
    fn empty_list_has_zero_pages_and_no_more() {
        let url = ListUrl::new("/l", None);
        let info = PageInfo::new(&PageRequest::default(), 0);
        assert_eq!(info.total_pages(), 0);
        assert!(!info.has_more());
        assert_eq!(
            info.link_header(&url),
            "</l?page=1&limit=10>; rel=\"first\""
        );
    }
}

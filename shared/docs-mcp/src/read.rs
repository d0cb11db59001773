//! What the tools read and how they shape it: a definition fragment (or its members), a page's Markdown from its
//! URL, whether the current definition has a subject.

use specpress_reader::{DocView, Loaded};
use specpress_render::{Lookup, PageKind, neutral};

use super::answer::{
    Fail, MAX_DEFINITION_BYTES, MAX_OUTLINE, MAX_PAGE_BYTES, failed, internal, loaded, not_found,
    text,
};
use super::wire::*;
use super::{Scope, Target};

/// The JSON of the definition at `pointer`, or its members when too large.
pub(super) fn fragment(site: &Loaded, pointer: String) -> Result<Definition, Fail> {
    let root = site.doc.root();
    let Some(at) = (if pointer.is_empty() {
        Some(root)
    } else {
        root.pointer(&pointer)
    }) else {
        return Err(not_found(format!(
            "nothing at `{}` in the definition",
            text(&pointer)
        )));
    };
    let json = serde_json::to_string(&at).map_err(|_| internal())?;
    let bytes = json.len();
    if bytes <= MAX_DEFINITION_BYTES {
        let mut value: serde_json::Value = serde_json::from_str(&json).map_err(|_| internal())?;
        neutral_value(&mut value);
        return Ok(Definition {
            pointer,
            bytes,
            value: Some(value),
            members: None,
            members_total: None,
            documentation: None,
        });
    }
    let member = |ptr: String, v: specpress_apispec::V<'_>| Member {
        bytes: serde_json::to_string(&v).map_or(0, |s| s.len()),
        kind: match v.kind() {
            specpress_apispec::Kind::Object(_) => "object",
            specpress_apispec::Kind::Array(_) => "array",
            specpress_apispec::Kind::String(_) => "string",
            specpress_apispec::Kind::Number(_) => "number",
            specpress_apispec::Kind::Bool(_) => "boolean",
            specpress_apispec::Kind::Null => "null",
        },
        pointer: text(&ptr),
    };
    let members = match at.kind() {
        specpress_apispec::Kind::Object(o) => o
            .iter()
            .take(MAX_OUTLINE)
            .map(|(k, v)| member(format!("{pointer}/{}", escape_pointer(k)), v))
            .collect(),
        specpress_apispec::Kind::Array(a) => a
            .iter()
            .take(MAX_OUTLINE)
            .enumerate()
            .map(|(i, v)| member(format!("{pointer}/{i}"), v))
            .collect(),
        _ => Vec::new(),
    };
    Ok(Definition {
        pointer: text(&pointer),
        bytes,
        value: None,
        members_total: Some(match at.kind() {
            specpress_apispec::Kind::Object(o) => o.len(),
            specpress_apispec::Kind::Array(a) => a.len(),
            _ => 0,
        }),
        members: Some(members),
        documentation: None,
    })
}

/// Neutralizes every string of a JSON value, member names included (control and bidi characters, as on the pages).
/// The serialized text cannot be neutralized instead: JSON writes a control character as a `\u` escape.
fn neutral_value(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::String(s) => {
            if let std::borrow::Cow::Owned(o) = neutral(s) {
                *s = o;
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(neutral_value),
        serde_json::Value::Object(o) => {
            let entries = std::mem::take(o);
            for (k, mut x) in entries {
                neutral_value(&mut x);
                o.insert(neutral(&k).into_owned(), x);
            }
        }
        _ => {}
    }
}

/// A member name as a JSON pointer token (RFC 6901).
fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Whether the head of `view` has `subject`: an operation's page, or a page titled so (a schema, a channel).
pub(super) async fn present_in_head(
    scope: &Scope,
    view: &DocView,
    subject: &str,
) -> Result<bool, Fail> {
    let site = loaded(scope, view).await?;
    let mut words = subject.split_whitespace();
    if let (Some(method), Some(path), None) = (words.next(), words.next(), words.next())
        && path.starts_with('/')
    {
        return Ok(site
            .site
            .operation_page(&site.doc, &method.to_ascii_uppercase(), path)
            .is_some());
    }
    Ok(site.site.pages().any(|p| {
        matches!(
            p.kind,
            PageKind::Schema | PageKind::Channel | PageKind::Webhook
        ) && specpress_domain::digest::subject_matches(p.title, subject)
    }))
}

/// The view and page path a URL names, or why it names none.
pub(super) fn page_of<'s>(scope: &'s Scope, url: &str) -> Result<(&'s DocView, String), String> {
    let url = url.trim();
    let path = if let Some(rest) = url.strip_prefix(&scope.origin) {
        rest
    } else if url.starts_with('/') {
        url
    } else if let Ok(parsed) = url::Url::parse(url) {
        return Err(format!(
            "not a page of this server: {} (pages are under {})",
            text(parsed.host_str().unwrap_or("")),
            scope.origin
        ));
    } else {
        return Err("not a page URL".into());
    };
    let path = path.split(['#', '?']).next().unwrap_or_default();
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
    let path = decoded.strip_suffix(".md").unwrap_or(&decoded);
    let covered: Vec<&DocView> = match &scope.target {
        Target::Doc(v) => vec![v.as_ref()],
        Target::Hub { views, .. } => views.iter().collect(),
    };
    for view in covered {
        if path == view.base || path == format!("{}/", view.base) {
            return Ok((view, String::new()));
        }
        if let Some(page) = path
            .strip_prefix(view.base.as_str())
            .and_then(|r| r.strip_prefix('/'))
        {
            return Ok((view, page.to_owned()));
        }
    }
    Err("not a page of this documentation (list_pages gives its pages)".into())
}

/// One page as Markdown, capped.
pub(super) async fn markdown_page(
    scope: &Scope,
    view: &DocView,
    path: &str,
    url: &str,
) -> Result<PageText, Fail> {
    let (site, version) = scope.library.load_head(view).await.map_err(failed)?;
    let page = match site.site.lookup(path) {
        Lookup::Page(p) => Some(p),
        Lookup::Redirect(to) => match site.site.lookup(&to) {
            Lookup::Page(p) => Some(p),
            _ => None,
        },
        Lookup::NotFound => None,
    };
    let Some(page) = page else {
        return Ok(PageText {
            url: text(url),
            markdown: None,
            truncated: false,
            error: Some("no such page in this documentation".into()),
        });
    };
    let base = format!("{}{}", scope.origin, view.base);
    let md = specpress_reader::markdown::page(site, page, base, view, &version)
        .await
        .map_err(|e| failed(e.into()))?;
    let mut md = neutral(&md).into_owned();
    let truncated = md.len() > MAX_PAGE_BYTES;
    if truncated {
        let mut end = MAX_PAGE_BYTES;
        while !md.is_char_boundary(end) {
            end -= 1;
        }
        md.truncate(end);
    }
    Ok(PageText {
        url: text(url),
        markdown: Some(md),
        truncated,
        error: None,
    })
}

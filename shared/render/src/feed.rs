//! Changelog feeds: Atom 1.0 (RFC 4287) and RSS 2.0, written with quick-xml's writer (every text and attribute
//! escaped by it, never concatenated by hand). Document texts may hold characters XML 1.0 cannot carry (control
//! characters): they are dropped before writing, so a feed always parses.

use std::io;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};
use time::OffsetDateTime;
use time::format_description::well_known::{Rfc2822, Rfc3339};

/// A feed: a changelog of one documentation (one branch) or of a hub.
#[derive(Debug, Clone)]
pub struct Feed<'a> {
    /// Its title (untrusted).
    pub title: &'a str,
    /// A one-line description (untrusted).
    pub subtitle: &'a str,
    /// The absolute URL of the feed itself.
    pub self_url: &'a str,
    /// The absolute URL of the changelog page it mirrors.
    pub page_url: &'a str,
    /// Last change: the newest entry's time, or the feed's subject's creation when it has none.
    pub updated: OffsetDateTime,
    pub entries: &'a [FeedEntry],
}

/// One release.
#[derive(Debug, Clone)]
pub struct FeedEntry {
    /// Title (untrusted).
    pub title: String,
    /// Absolute URL of the release's change page.
    pub url: String,
    /// A permanent identifier (`urn:uuid:<version id>`).
    pub id: String,
    pub published: OffsetDateTime,
    /// Plain text, one line per change (untrusted).
    pub summary: String,
}

/// Keeps only the characters XML 1.0 allows (`#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]`),
/// and neutralizes bidirectional controls ([`crate::neutral`]).
fn xml_text(s: &str) -> std::borrow::Cow<'_, str> {
    let ok = |c: char| {
        matches!(c, '\t' | '\n' | '\r')
            || ('\u{20}'..='\u{D7FF}').contains(&c)
            || ('\u{E000}'..='\u{FFFD}').contains(&c)
            || c >= '\u{10000}'
    };
    if s.chars()
        .all(|c| ok(c) && !crate::neutral::is_bidi_control(c))
    {
        std::borrow::Cow::Borrowed(s)
    } else {
        std::borrow::Cow::Owned(
            s.chars()
                .filter(|&c| ok(c))
                .map(|c| {
                    if crate::neutral::is_bidi_control(c) {
                        crate::neutral::REPLACEMENT
                    } else {
                        c
                    }
                })
                .collect(),
        )
    }
}

/// RSS readers read `title` and `description` as HTML: document text goes there HTML-escaped (then XML-escaped by
/// the writer), so that a reader shows it as text and no markup of a document reaches a subscriber.
fn rss_text(w: &mut Writer<Vec<u8>>, name: &str, text: &str) -> io::Result<()> {
    text_el(w, name, &crate::escape(text))
}

fn rfc3339(t: OffsetDateTime) -> String {
    t.replace_nanosecond(0)
        .unwrap_or(t)
        .format(&Rfc3339)
        .unwrap_or_default()
}

fn rfc2822(t: OffsetDateTime) -> String {
    t.to_offset(time::UtcOffset::UTC)
        .format(&Rfc2822)
        .unwrap_or_default()
}

fn text_el(w: &mut Writer<Vec<u8>>, name: &str, text: &str) -> io::Result<()> {
    w.create_element(name)
        .write_text_content(BytesText::new(&xml_text(text)))?;
    Ok(())
}

/// The feed as Atom 1.0.
pub fn atom(feed: &Feed<'_>) -> String {
    let mut w = Writer::new(Vec::with_capacity(4096 + feed.entries.len() * 600));
    let result: io::Result<()> = (|| {
        w.write_event(Event::Decl(BytesDecl::new("1.0", Some("utf-8"), None)))?;
        w.create_element("feed")
            .with_attribute(("xmlns", "http://www.w3.org/2005/Atom"))
            .write_inner_content(|w| {
                text_el(w, "title", feed.title)?;
                text_el(w, "subtitle", feed.subtitle)?;
                text_el(w, "id", feed.self_url)?;
                text_el(w, "updated", &rfc3339(feed.updated))?;
                w.create_element("link")
                    .with_attribute(("rel", "self"))
                    .with_attribute(("type", "application/atom+xml"))
                    .with_attribute(("href", xml_text(feed.self_url).as_ref()))
                    .write_empty()?;
                w.create_element("link")
                    .with_attribute(("rel", "alternate"))
                    .with_attribute(("type", "text/html"))
                    .with_attribute(("href", xml_text(feed.page_url).as_ref()))
                    .write_empty()?;
                w.create_element("author")
                    .write_inner_content(|w| text_el(w, "name", feed.title))?;
                text_el(w, "generator", "Specpress")?;
                for e in feed.entries {
                    w.create_element("entry").write_inner_content(|w| {
                        text_el(w, "title", &e.title)?;
                        text_el(w, "id", &e.id)?;
                        text_el(w, "published", &rfc3339(e.published))?;
                        text_el(w, "updated", &rfc3339(e.published))?;
                        w.create_element("link")
                            .with_attribute(("rel", "alternate"))
                            .with_attribute(("type", "text/html"))
                            .with_attribute(("href", xml_text(&e.url).as_ref()))
                            .write_empty()?;
                        w.create_element("summary")
                            .with_attribute(("type", "text"))
                            .write_text_content(BytesText::new(&xml_text(&e.summary)))?;
                        Ok(())
                    })?;
                }
                Ok(())
            })?;
        Ok(())
    })();
    finish(w, result)
}

/// The feed as RSS 2.0 (with an `atom:link rel="self"`, as validators recommend).
pub fn rss(feed: &Feed<'_>) -> String {
    let mut w = Writer::new(Vec::with_capacity(4096 + feed.entries.len() * 600));
    let result: io::Result<()> = (|| {
        w.write_event(Event::Decl(BytesDecl::new("1.0", Some("utf-8"), None)))?;
        w.create_element("rss")
            .with_attribute(("version", "2.0"))
            .with_attribute(("xmlns:atom", "http://www.w3.org/2005/Atom"))
            .write_inner_content(|w| {
                w.create_element("channel").write_inner_content(|w| {
                    rss_text(w, "title", feed.title)?;
                    text_el(w, "link", feed.page_url)?;
                    let description = if feed.subtitle.trim().is_empty() {
                        feed.title
                    } else {
                        feed.subtitle
                    };
                    rss_text(w, "description", description)?;
                    w.create_element("atom:link")
                        .with_attribute(("href", xml_text(feed.self_url).as_ref()))
                        .with_attribute(("rel", "self"))
                        .with_attribute(("type", "application/rss+xml"))
                        .write_empty()?;
                    text_el(w, "lastBuildDate", &rfc2822(feed.updated))?;
                    text_el(w, "generator", "Specpress")?;
                    for e in feed.entries {
                        w.create_element("item").write_inner_content(|w| {
                            rss_text(w, "title", &e.title)?;
                            text_el(w, "link", &e.url)?;
                            w.create_element("guid")
                                .with_attribute(("isPermaLink", "false"))
                                .write_text_content(BytesText::new(&xml_text(&e.id)))?;
                            text_el(w, "pubDate", &rfc2822(e.published))?;
                            rss_text(w, "description", &e.summary)?;
                            Ok(())
                        })?;
                    }
                    Ok(())
                })?;
                Ok(())
            })?;
        Ok(())
    })();
    finish(w, result)
}

fn finish(w: Writer<Vec<u8>>, result: io::Result<()>) -> String {
    // Writing into a Vec cannot fail, and every text written is a str: the bytes are UTF-8.
    if let Err(e) = result {
        return format!("<!-- feed could not be written: {e} -->");
    }
    String::from_utf8(w.into_inner()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (Vec<FeedEntry>, OffsetDateTime) {
        let t = OffsetDateTime::from_unix_timestamp(1_900_000_000).unwrap();
        let entries = vec![
            FeedEntry {
                title: "2.0.0 <b>&\u{1} \"Pets\"".into(),
                url: "https://x.io/doc/pets/changes/a?x=1&y=2".into(),
                id: "urn:uuid:2361df99-1234-4c80-a0cc-45c9fe565812".into(),
                published: t,
                summary: "Breaking: removed GET /pets/{id}\nAdded: POST /pets".into(),
            },
            FeedEntry {
                title: "1.0.0".into(),
                url: "https://x.io/doc/pets/changes/b".into(),
                id: "urn:uuid:11111111-1234-4c80-a0cc-45c9fe565812".into(),
                published: t - time::Duration::days(1),
                summary: "First published version.".into(),
            },
        ];
        (entries, t)
    }

    #[test]
    fn atom_and_rss_feeds_parse_with_every_field_and_hostile_text_intact_but_escaped() {
        let (entries, t) = sample();
        let feed = Feed {
            title: "Pets <API>",
            subtitle: "Changelog",
            self_url: "https://x.io/doc/pets/changes.atom",
            page_url: "https://x.io/doc/pets/changes",
            updated: t,
            entries: &entries,
        };
        // Atom says its texts are text; RSS readers read title and description as HTML, so there the text is
        // HTML-escaped: decoded once more by the reader, it is the same text, and never markup.
        let html_decoded = |s: &str| {
            s.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&amp;", "&")
        };
        for (xml, kind) in [
            (atom(&feed), feed_rs::model::FeedType::Atom),
            (rss(&feed), feed_rs::model::FeedType::RSS2),
        ] {
            let parsed = feed_rs::parser::parse(xml.as_bytes()).expect("a valid feed");
            assert_eq!(parsed.feed_type, kind);
            let shown = |s: &str| match kind {
                feed_rs::model::FeedType::RSS2 => {
                    assert!(!s.contains('<'), "RSS text reaches readers as markup: {s}");
                    html_decoded(s)
                }
                _ => s.to_owned(),
            };
            assert_eq!(shown(&parsed.title.as_ref().unwrap().content), "Pets <API>");
            assert_eq!(parsed.entries.len(), 2);
            let e = &parsed.entries[0];
            assert_eq!(
                shown(&e.title.as_ref().unwrap().content),
                "2.0.0 <b>& \"Pets\"",
                "control characters dropped, markup kept as text"
            );
            assert_eq!(e.links[0].href, "https://x.io/doc/pets/changes/a?x=1&y=2");
            assert_eq!(e.published.unwrap().timestamp(), 1_900_000_000);
            assert!(
                e.summary
                    .as_ref()
                    .unwrap()
                    .content
                    .contains("removed GET /pets/{id}")
            );
            assert!(e.id.contains("2361df99"), "{}", e.id);
        }
    }
}

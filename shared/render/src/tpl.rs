//! What the page-body templates (`templates/pages/`, `templates/changes/`, ...) share: the
//! escaper they are compiled with and the rendering helper.
//!
//! Every template of a page body is declared with `escape = "engine"` (see `askama.toml`): each
//! `{{ value }}` is escaped with the engine's entities (those of [`crate::escape`]), so that the
//! output is byte for byte the one of the fragment writer it replaces. Markup the crate vouches
//! for is passed to a template as [`Html`] (sanitized Markdown, a nested template, a schema tree)
//! and written with `{{ field|safe }}`; `|safe` is never applied to anything but an `Html` field.

use std::fmt;

use askama::{FastWritable, Template, Values};

use crate::html::Html;

/// The engine's HTML escaper: `&`, `<`, `>`, `"` and `'` as `&amp;`, `&lt;`, `&gt;`, `&quot;`,
/// `&#39;` (the entities of [`crate::escape`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Engine;

impl askama::filters::Escaper for Engine {
    #[inline]
    fn write_escaped_str<W: fmt::Write>(&self, mut dest: W, s: &str) -> fmt::Result {
        crate::html::write_escaped(&mut dest, s)
    }
}

impl FastWritable for Html {
    #[inline]
    fn write_into(&self, dest: &mut dyn fmt::Write, _: &dyn Values) -> askama::Result<()> {
        dest.write_str(self.as_str())?;
        Ok(())
    }
}

/// A link of a template: `<a href="{{ l.href }}">{{ l.text }}</a>` (both escaped there).
pub(crate) struct Link<'a> {
    pub(crate) href: String,
    pub(crate) text: &'a str,
}

/// The href of a page under a documentation root, not escaped (the template escapes it): the
/// escaped form is what [`crate::html::push_href`] writes.
pub(crate) fn href(base: &str, path: &str) -> String {
    match (path.is_empty(), base.is_empty()) {
        (true, true) => "/".to_string(),
        (true, false) => base.to_string(),
        (false, _) => {
            let mut s = String::with_capacity(base.len() + 1 + path.len());
            s.push_str(base);
            s.push('/');
            s.push_str(path);
            s
        }
    }
}

/// Renders a page-body template into [`Html`] (its values were escaped by the template).
pub(crate) fn render(t: &impl Template, capacity: usize) -> Html {
    let mut s = String::with_capacity(capacity);
    // Rendering into a String cannot fail: the templates' values are strings, numbers and Html.
    let _ = t.render_into(&mut s);
    Html::trusted(s)
}

#[cfg(test)]
mod tests {
    use askama::filters::Escaper;

    use super::*;

    #[test]
    fn the_template_escaper_writes_the_same_entities_as_the_engine() {
        let hostile = r#"<a href="x" onclick='y'>&amp;</a> é <script>"#;
        let mut s = String::new();
        Engine.write_escaped_str(&mut s, hostile).unwrap();
        assert_eq!(s, crate::escape(hostile));
    }

    #[test]
    fn an_href_escaped_by_a_template_is_the_one_the_fragment_writer_writes() {
        for (base, path) in [
            ("", ""),
            ("/doc/a&b", ""),
            ("", "x"),
            ("/doc/\"q'", "p<a>th"),
        ] {
            let mut written = String::new();
            crate::html::push_href(&mut written, base, path);
            assert_eq!(crate::escape(&href(base, path)), written);
        }
    }
}

//! The pages of readers following by email (issue 38): the answer to the follow form, the confirmation page (one
//! button: mail scanners fetch links, only a click confirms), the manage page and the unsubscribe page. Plain HTML
//! forms posting to the page's own URL (they work without JavaScript); every value is escaped by the template.

use askama::Template;

use crate::Html;

/// What a follow page shows.
#[derive(Debug, Clone, Default)]
pub struct FollowPage<'a> {
    /// The heading.
    pub heading: &'a str,
    /// Paragraphs of text (escaped).
    pub paragraphs: Vec<String>,
    /// One button posting to a URL: (action, label). The action is URL-safe (the caller's).
    pub button: Option<(&'a str, &'a str)>,
    /// A link back: (href, label).
    pub back: Option<(&'a str, &'a str)>,
}

#[derive(Template)]
#[template(path = "follow.html")]
struct FollowBody<'a> {
    heading: &'a str,
    paragraphs: &'a [String],
    button: Option<(&'a str, &'a str)>,
    back: Option<(&'a str, &'a str)>,
}

/// The body of a follow page, for [`crate::site_page`].
pub fn follow_body(page: &FollowPage<'_>) -> Html {
    let body = FollowBody {
        heading: page.heading,
        paragraphs: &page.paragraphs,
        button: page.button,
        back: page.back,
    };
    // Rendering a template into a String fails only if a value's Display fails; ours are plain strings.
    Html::trusted(body.render().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follow_pages_escape_their_text_and_post_one_button_to_the_given_action() {
        let html = follow_body(&FollowPage {
            heading: "Confirm",
            paragraphs: vec!["Follow <script>alert(1)</script> & more".into()],
            button: Some(("/doc/pets/follow/confirm/abc.def", "Confirm")),
            back: Some(("/doc/pets", "Back to <Pets>")),
        })
        .as_str()
        .to_owned();
        // askama escapes `<` and `>` as numeric references.
        let escaped = |t: &str| {
            html.contains(&t.replace('<', "&lt;").replace('>', "&gt;"))
                || html.contains(&t.replace('<', "&#60;").replace('>', "&#62;"))
        };
        assert!(escaped("<script>alert(1)</script>"), "{html}");
        assert!(!html.contains("<script>"));
        assert!(html.contains(
            r#"<form class="access" method="post" action="/doc/pets/follow/confirm/abc.def">"#
        ));
        assert!(escaped("Back to <Pets>"), "{html}");
        assert_eq!(html.matches("<button").count(), 1);
    }
}

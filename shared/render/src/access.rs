//! The sign-in page of private documentation: a form that exchanges a token for a session, or, for a signed-in
//! reader, who they are signed in as and a sign-out button. Plain HTML forms (they work without JavaScript); every
//! value is escaped by the template.

use askama::Template;

use crate::Html;

/// What the sign-in page shows.
#[derive(Debug, Clone)]
pub struct SignInPage<'a> {
    /// The page heading.
    pub heading: &'a str,
    /// Where the sign-in form posts.
    pub sign_in_action: &'a str,
    /// Where the sign-out form posts.
    pub sign_out_action: &'a str,
    /// The path to return to after signing in (already checked to be a local path).
    pub next: &'a str,
    /// An error or notice shown above the form (a refused token, say).
    pub message: Option<&'a str>,
    /// For a signed-in reader: what their token is, in words (`an organization token`); `None` shows the form.
    pub signed_in_as: Option<&'a str>,
    /// How long a session lasts, in hours.
    pub hours: u64,
    /// The longest token the form takes.
    pub max_token: usize,
    /// The organization's identity provider offered for the page returned to (its label: "Sign in with ...").
    pub provider: Option<&'a str>,
    /// Where the provider's sign-in starts, `next` in its query (a link, not a form: the provider is another origin,
    /// and a form's redirect there would break the site's `form-action 'self'`).
    pub provider_href: &'a str,
}

#[derive(Template)]
#[template(path = "sign_in.html")]
struct SignInBody<'a> {
    heading: &'a str,
    sign_in_action: &'a str,
    sign_out_action: &'a str,
    next: &'a str,
    message: Option<&'a str>,
    signed_in_as: Option<&'a str>,
    hours: u64,
    max_token: usize,
    provider: Option<&'a str>,
    provider_href: &'a str,
}

/// The body of the sign-in page, for [`crate::layout`].
pub fn sign_in_body(page: &SignInPage<'_>) -> Html {
    let body = SignInBody {
        heading: page.heading,
        sign_in_action: page.sign_in_action,
        sign_out_action: page.sign_out_action,
        next: page.next,
        message: page.message,
        signed_in_as: page.signed_in_as,
        hours: page.hours,
        max_token: page.max_token,
        provider: page.provider,
        provider_href: page.provider_href,
    };
    // Rendering a template into a String fails only if a value's Display fails; ours are plain strings.
    Html::trusted(body.render().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page<'a>(next: &'a str, message: Option<&'a str>, who: Option<&'a str>) -> SignInPage<'a> {
        SignInPage {
            heading: "Sign in",
            sign_in_action: "/sign-in",
            sign_out_action: "/sign-out",
            next,
            message,
            signed_in_as: who,
            hours: 12,
            max_token: 256,
            provider: None,
            provider_href: "/sign-in/oidc?next=%2Fdoc%2Fa&x=1",
        }
    }

    #[test]
    fn the_form_posts_the_token_and_the_escaped_return_path() {
        let html = sign_in_body(&page("/doc/a?x=\"><script>", Some("<b>no</b>"), None));
        let s = html.as_str();
        assert!(s.contains(r#"<form class="access" method="post" action="/sign-in">"#));
        assert!(s.contains(r#"name="token" type="password""#));
        assert!(!s.contains("<script>"), "{s}");
        assert!(!s.contains("<b>no</b>"), "{s}");
        assert!(s.contains("&#60;b&#62;no&#60;/b&#62;"), "{s}");
    }

    #[test]
    fn a_provider_is_offered_as_a_link_carrying_the_return_path_and_its_label_escaped() {
        let mut p = page("/doc/a", None, None);
        p.provider = Some("login.<acme>.test");
        let s = sign_in_body(&p).as_str().to_owned();
        assert!(
            s.contains(r#"<a class="provider" href="/sign-in/oidc?next=%2Fdoc%2Fa&#38;x=1">"#),
            "{s}"
        );
        assert!(s.contains("Sign in with login.&#60;acme&#62;.test"), "{s}");
        assert!(s.contains(r#"name="token""#), "the token form stays: {s}");
        assert!(
            !sign_in_body(&page("/doc/a", None, None))
                .as_str()
                .contains("/sign-in/oidc")
        );
    }

    #[test]
    fn a_signed_in_reader_gets_the_sign_out_button_and_no_token_field() {
        let html = sign_in_body(&page("/", None, Some("an organization token")));
        let s = html.as_str();
        assert!(s.contains("an organization token"));
        assert!(s.contains(r#"action="/sign-out""#));
        assert!(!s.contains("name=\"token\""));
    }
}

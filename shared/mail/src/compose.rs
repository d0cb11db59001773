//! A mail's words: [`compose`] turns a [`MailContent`] into a subject, a `text/plain` part and a `text/html` part,
//! from the askama templates in `templates/mail/` (the site's colours and type, inline styles only: no stylesheet
//! link, no image, no script, nothing fetched when the mail is opened).
//!
//! Every string of a document (titles, versions, branches, places, change sentences, migration notes, acceptance
//! reasons) is hostile: it is cleaned first ([`crate::text`]: no control or invisible formatting characters, one
//! line where a line is expected, clipped), then escaped by askama's HTML escaper in the HTML part. Migration notes
//! are Markdown: a mail shows them as their escaped text (white space kept), not rendered, so a note cannot bring a
//! remote image or a link that looks like Specpress's own. A release mail opens with what a client must act on:
//! its breaking changes first, each with its migration note and, when the documentation accepted it, the owner's
//! reason (issue 39). A private documentation's releases come without notes (the domain passes none): its mails
//! carry titles and links only.

use askama::Template;
use specpress_domain::notify::ChangeNote;
use specpress_domain::ports::{Confirmation, FollowLinks, MailContent, ReleaseNote};

use crate::text::{self, MAX_LINE_CHARS, MAX_SUBJECT_CHARS, MAX_TITLE_CHARS};

/// A composed mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Composed {
    /// The subject: one line, no control characters, at most [`MAX_SUBJECT_CHARS`] characters.
    pub subject: String,
    /// The `text/plain` part.
    pub text: String,
    /// The `text/html` part.
    pub html: String,
    /// The one-click unsubscribe URL (`List-Unsubscribe`), on every mail but a confirmation.
    pub unsubscribe: Option<String>,
}

/// One change as the templates show it.
struct NoteView {
    breaking: bool,
    label: &'static str,
    place: String,
    message: String,
    migration: Option<String>,
    accepted: Option<String>,
}

/// One release as the templates show it.
struct ReleaseView {
    doc_title: String,
    version: Option<String>,
    branch: String,
    date: String,
    change_url: String,
    breaking: usize,
    notes: Vec<NoteView>,
    more: usize,
}

/// A documentation's releases in a digest.
struct DocGroup {
    title: String,
    releases: Vec<ReleaseView>,
}

/// The links of a follower's mail.
struct LinksView {
    manage_url: String,
    unsubscribe_url: String,
}

#[derive(Template)]
#[template(path = "mail/confirm.html")]
struct ConfirmHtml<'a> {
    subject: &'a str,
    c: &'a ConfirmView,
}

#[derive(Template)]
#[template(path = "mail/confirm.txt")]
struct ConfirmText<'a> {
    c: &'a ConfirmView,
}

struct ConfirmView {
    title: String,
    page_url: String,
    scope: String,
    confirm_url: String,
    expires_in_hours: u32,
}

#[derive(Template)]
#[template(path = "mail/release.html")]
struct ReleaseHtml<'a> {
    subject: &'a str,
    r: &'a ReleaseView,
    links: &'a LinksView,
}

#[derive(Template)]
#[template(path = "mail/release.txt")]
struct ReleaseText<'a> {
    r: &'a ReleaseView,
    links: &'a LinksView,
}

#[derive(Template)]
#[template(path = "mail/digest.html")]
struct DigestHtml<'a> {
    subject: &'a str,
    period: &'a str,
    count: usize,
    groups: &'a [DocGroup],
    links: &'a LinksView,
}

#[derive(Template)]
#[template(path = "mail/digest.txt")]
struct DigestText<'a> {
    period: &'a str,
    count: usize,
    groups: &'a [DocGroup],
    links: &'a LinksView,
}

/// A URL for a template: the link when it is a web URL, else `#` (never reached: the domain builds every link).
fn url(u: &str) -> String {
    text::link(u).unwrap_or_else(|| "#".to_owned())
}

fn note_view(n: &ChangeNote) -> NoteView {
    let breaking = n.is_breaking();
    NoteView {
        breaking,
        label: match n.level.as_str() {
            "breaking" => "Breaking",
            "warning" => "Warning",
            _ => "Change",
        },
        place: text::line(&n.place, MAX_LINE_CHARS),
        message: text::line(&n.message, MAX_LINE_CHARS),
        migration: n
            .migration
            .as_deref()
            .map(text::block)
            .filter(|m| !m.is_empty()),
        accepted: n
            .accepted
            .as_deref()
            .map(|a| text::line(a, MAX_LINE_CHARS))
            .filter(|a| !a.is_empty()),
    }
}

fn release_view(r: &ReleaseNote) -> ReleaseView {
    // Breaking changes first whatever order they came in (a stable sort keeps the domain's order otherwise).
    let mut notes: Vec<NoteView> = r.notes.iter().map(note_view).collect();
    notes.sort_by_key(|n| !n.breaking);
    let date = r
        .published_at
        .format(time::macros::format_description!(
            "[year]-[month]-[day] [hour]:[minute] UTC"
        ))
        .unwrap_or_default();
    ReleaseView {
        doc_title: text::line(&r.doc_title, MAX_TITLE_CHARS),
        version: r
            .version
            .as_deref()
            .map(|v| text::line(v, 40))
            .filter(|v| !v.is_empty()),
        branch: text::line(&r.branch, 80),
        date,
        change_url: url(&r.change_url),
        breaking: r.breaking,
        notes,
        more: r.more,
    }
}

fn links_view(l: &FollowLinks) -> LinksView {
    LinksView {
        manage_url: url(&l.manage_url),
        unsubscribe_url: url(&l.unsubscribe_url),
    }
}

/// `n thing` or `n things`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The documentation and version of a release, as a subject names them.
fn release_name(r: &ReleaseView) -> String {
    match &r.version {
        Some(v) => format!("{} {v}", r.doc_title),
        None => r.doc_title.clone(),
    }
}

/// A subject of `prefix`, `middle` and `suffix`, the middle (a document's title) clipped so that the whole fits
/// [`MAX_SUBJECT_CHARS`]: what the mail is about always shows, whatever the title's length.
fn subject(prefix: &str, middle: &str, suffix: &str) -> String {
    let room = MAX_SUBJECT_CHARS
        .saturating_sub(prefix.chars().count() + suffix.chars().count())
        .max(16);
    let middle = text::clip(middle, room);
    text::line(&format!("{prefix}{middle}{suffix}"), MAX_SUBJECT_CHARS)
}

/// Composes a mail's subject and parts.
pub fn compose(content: &MailContent) -> Composed {
    match content {
        MailContent::Confirm(c) => confirm(c),
        MailContent::Release { release, links } => release_mail(release, links),
        MailContent::Digest {
            period,
            releases,
            links,
        } => digest(period, releases, links),
    }
}

/// Renders a template; the templates only format what the views hold, so rendering cannot fail but for a write
/// into a `String`, which does not.
fn render(t: &impl Template) -> String {
    t.render().unwrap_or_default()
}

fn confirm(c: &Confirmation) -> Composed {
    let view = ConfirmView {
        title: text::line(&c.title, MAX_TITLE_CHARS),
        page_url: url(&c.page_url),
        scope: text::line(&c.scope, MAX_LINE_CHARS),
        confirm_url: url(&c.confirm_url),
        expires_in_hours: c.expires_in_hours,
    };
    let subject = subject("Confirm that you want to follow ", &view.title, "");
    Composed {
        html: render(&ConfirmHtml {
            subject: &subject,
            c: &view,
        }),
        text: render(&ConfirmText { c: &view }),
        subject,
        unsubscribe: None,
    }
}

fn release_mail(release: &ReleaseNote, links: &FollowLinks) -> Composed {
    let r = release_view(release);
    let links = links_view(links);
    let suffix = if r.breaking > 0 {
        format!(
            ": {}",
            count(r.breaking, "breaking change", "breaking changes")
        )
    } else {
        ": new release".to_owned()
    };
    let subject = subject("", &release_name(&r), &suffix);
    Composed {
        html: render(&ReleaseHtml {
            subject: &subject,
            r: &r,
            links: &links,
        }),
        text: render(&ReleaseText {
            r: &r,
            links: &links,
        }),
        unsubscribe: Some(links.unsubscribe_url),
        subject,
    }
}

fn digest(period: &str, releases: &[ReleaseNote], links: &FollowLinks) -> Composed {
    let mut groups: Vec<DocGroup> = Vec::new();
    for r in releases.iter().map(release_view) {
        match groups.iter_mut().find(|g| g.title == r.doc_title) {
            Some(g) => g.releases.push(r),
            None => groups.push(DocGroup {
                title: r.doc_title.clone(),
                releases: vec![r],
            }),
        }
    }
    let period = match period {
        "daily" => "Daily",
        "weekly" => "Weekly",
        _ => "Periodic",
    };
    let links = links_view(links);
    let breaking: usize = releases.iter().map(|r| r.breaking).sum();
    let titles = match groups.as_slice() {
        [one] => one.title.clone(),
        [first, rest @ ..] => format!(
            "{} and {}",
            first.title,
            count(rest.len(), "other", "others")
        ),
        [] => "your documentations".to_owned(),
    };
    let prefix = format!(
        "{period} digest: {} of ",
        count(releases.len(), "release", "releases")
    );
    let suffix = if breaking > 0 {
        format!(
            ", {}",
            count(breaking, "breaking change", "breaking changes")
        )
    } else {
        String::new()
    };
    let subject = subject(&prefix, &titles, &suffix);
    Composed {
        html: render(&DigestHtml {
            subject: &subject,
            period,
            count: releases.len(),
            groups: &groups,
            links: &links,
        }),
        text: render(&DigestText {
            period,
            count: releases.len(),
            groups: &groups,
            links: &links,
        }),
        unsubscribe: Some(links.unsubscribe_url),
        subject,
    }
}

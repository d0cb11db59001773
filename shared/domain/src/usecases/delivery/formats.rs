//! The Slack and Teams bodies of a release's deliveries (issue 38), made from the standard body's envelope and the
//! subscription's matching diff items.
//!
//! Every text taken from a deployed document (documentation name, version, operation names, change messages,
//! migration notes, acceptance reasons) is hostile: Slack `mrkdwn` texts escape `&`, `<` and `>` (so no link,
//! mention or `<!channel>` can be forged), Teams texts go into `TextRun`s of `RichTextBlock`s (never parsed as
//! Markdown), and every text is cut to the platform's limits. Neither format is signed (Slack and Teams accept no
//! Standard Webhooks headers): the URL itself is the secret (docs/webhooks.md).

use serde_json::{Value, json};

use crate::notify::{ChangeNote, change_notes};

/// Changes shown in one message (Slack allows 50 blocks; a Teams card should stay short too).
pub const MAX_NOTES: usize = 10;
/// Longest Slack header text (Block Kit: 150 characters).
const SLACK_HEADER_CHARS: usize = 150;
/// Longest Slack section or context text (Block Kit: 3000 characters).
const SLACK_TEXT_CHARS: usize = 3000;
/// Longest message fallback `text`.
const SLACK_FALLBACK_CHARS: usize = 3000;
/// Longest text of one document string in a message (names, messages, notes).
const PIECE_CHARS: usize = 600;

/// What a message tells about a release.
struct Release<'a> {
    doc: &'a str,
    version: &'a str,
    branch: Option<&'a str>,
    url: &'a str,
    notes: Vec<ChangeNote>,
    breaking: usize,
    more: usize,
    left_out: usize,
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// At most `max` characters of `s`, with `…` when cut.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn release<'a>(envelope: &'a Value, items: &[Value], left_out: usize) -> Release<'a> {
    let (notes, more) = change_notes(items, MAX_NOTES);
    let (all, _) = change_notes(items, usize::MAX);
    let breaking = all.iter().filter(|n| n.is_breaking()).count();
    Release {
        doc: str_at(envelope, "/documentation/name")
            .or_else(|| str_at(envelope, "/documentation/slug"))
            .unwrap_or(""),
        version: str_at(envelope, "/version/api_version").unwrap_or(""),
        branch: str_at(envelope, "/branch"),
        url: str_at(envelope, "/diff/public_url")
            .or_else(|| str_at(envelope, "/api/url"))
            .unwrap_or(""),
        notes,
        breaking,
        more,
        left_out,
    }
}

/// Escapes a text for Slack `mrkdwn` (and for plain text, where Slack reads the same three entities).
pub fn slack_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c if c.is_control() && c != '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// [`slack_escape`] of `s`, at most `max` characters once escaped (cut before an entity, never inside one, with
/// `…` when cut).
fn slack_escape_within(s: &str, max: usize) -> String {
    let escaped = slack_escape(s);
    if escaped.chars().count() <= max {
        return escaped;
    }
    let mut out = String::new();
    let mut count = 0;
    for c in s.chars() {
        let piece = slack_escape(c.encode_utf8(&mut [0; 4]));
        let n = piece.chars().count();
        if count + n + 1 > max {
            break;
        }
        out.push_str(&piece);
        count += n;
    }
    out.push('…');
    out
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn summary_line(r: &Release<'_>) -> String {
    let mut line = if r.breaking > 0 {
        plural(r.breaking, "breaking change", "breaking changes")
    } else {
        "No breaking change".to_owned()
    };
    if let Some(b) = r.branch {
        line.push_str(&format!(" on branch {}", cut(b, 100)));
    }
    line
}

fn level_word(level: &str) -> &'static str {
    match level {
        "breaking" => "Breaking",
        "warning" => "Warning",
        _ => "Info",
    }
}

fn slack_note(n: &ChangeNote) -> String {
    let mut text = format!(
        "*{}* · `{}`: {}",
        level_word(&n.level),
        slack_escape(&cut(&n.place, 200)).replace('`', "'"),
        slack_escape(&cut(&n.message, PIECE_CHARS)),
    );
    if let Some(reason) = &n.accepted {
        text.push_str(&format!(
            "\n>Accepted: {}",
            slack_escape(&cut(reason, PIECE_CHARS)).replace('\n', "\n>")
        ));
    }
    if let Some(m) = &n.migration {
        text.push_str(&format!(
            "\n>Migration: {}",
            slack_escape(&cut(m, PIECE_CHARS)).replace('\n', "\n>")
        ));
    }
    cut(&text, SLACK_TEXT_CHARS)
}

fn more_line(r: &Release<'_>) -> Option<String> {
    let mut parts = Vec::new();
    if r.more > 0 {
        parts.push(format!(
            "{} not shown here",
            plural(r.more, "more change", "more changes")
        ));
    }
    if r.left_out > 0 {
        parts.push(format!(
            "{} of this release left out by this subscription's filter",
            plural(r.left_out, "item", "items")
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// A Slack incoming-webhook message: Block Kit blocks (a header, the summary with the link to the change page, the
/// first changes, breaking ones first with their acceptance reasons and migration notes) and a plain `text`
/// fallback for notifications.
pub fn slack(envelope: &Value, items: &[Value], left_out: usize) -> Value {
    let r = release(envelope, items, left_out);
    let title = if r.version.is_empty() {
        format!("{}: new release", r.doc)
    } else {
        format!("{} {}: new release", r.doc, r.version)
    };
    let summary = summary_line(&r);
    let mut blocks = vec![
        json!({"type": "header", "text": {"type": "plain_text",
            "text": slack_escape_within(&title, SLACK_HEADER_CHARS)}}),
        json!({"type": "section", "text": {"type": "mrkdwn", "text": cut(&format!(
            "{} · <{}|View the changes>", slack_escape(&summary), slack_escape(r.url)), SLACK_TEXT_CHARS)}}),
    ];
    if !r.notes.is_empty() {
        blocks.push(json!({"type": "divider"}));
    }
    for n in &r.notes {
        blocks.push(json!({"type": "section", "text": {"type": "mrkdwn", "text": slack_note(n)}}));
    }
    if let Some(more) = more_line(&r) {
        blocks.push(json!({"type": "context", "elements": [{"type": "mrkdwn", "text": cut(&more, SLACK_TEXT_CHARS)}]}));
    }
    if r.url.starts_with("https://") || r.url.starts_with("http://") {
        blocks.push(
            json!({"type": "actions", "elements": [{"type": "button", "action_id": "view_changes",
            "text": {"type": "plain_text", "text": "View the changes"}, "url": cut(r.url, 3000)}]}),
        );
    }
    let mut text = format!("{}: {}", slack_escape(&title), slack_escape(&summary));
    if let Some(first) = r.notes.first() {
        text.push_str(&format!(
            ". {}: {}",
            slack_escape(&cut(&first.place, 200)),
            slack_escape(&cut(&first.message, PIECE_CHARS))
        ));
    }
    json!({"text": cut(&text, SLACK_FALLBACK_CHARS), "blocks": blocks})
}

/// A ping as a Slack message.
pub fn slack_ping(doc: &str) -> Value {
    let text = format!(
        "Specpress test message: this channel will receive the releases of {}.",
        slack_escape(&cut(doc, 200))
    );
    json!({"text": text, "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]})
}

/// A `RichTextBlock` of plain runs (`TextRun` text is never read as Markdown).
fn rich(runs: Vec<Value>) -> Value {
    json!({"type": "RichTextBlock", "inlines": runs})
}

fn run(text: &str) -> Value {
    json!({"type": "TextRun", "text": cut(text, PIECE_CHARS)})
}

/// The Adaptive Card 1.5 of a release in the envelope of a Teams workflow webhook.
pub fn teams(envelope: &Value, items: &[Value], left_out: usize) -> Value {
    let r = release(envelope, items, left_out);
    let mut title = r.doc.to_owned();
    if !r.version.is_empty() {
        title.push(' ');
        title.push_str(r.version);
    }
    let mut body = vec![
        rich(vec![
            json!({"type": "TextRun", "text": cut(&title, 300), "weight": "Bolder", "size": "Medium"}),
        ]),
        rich(vec![run(&summary_line(&r))]),
    ];
    for n in &r.notes {
        let mut runs = vec![
            json!({"type": "TextRun", "text": format!("{} · ", level_word(&n.level)), "weight": "Bolder",
                   "color": if n.is_breaking() { "Attention" } else { "Default" }}),
            json!({"type": "TextRun", "text": cut(&n.place, 200), "fontType": "Monospace"}),
            run(&format!(": {}", n.message)),
        ];
        if let Some(reason) = &n.accepted {
            runs.push(run(&format!("\nAccepted: {reason}")));
        }
        if let Some(m) = &n.migration {
            runs.push(
                json!({"type": "TextRun", "text": cut(&format!("\nMigration: {m}"), PIECE_CHARS),
                             "isSubtle": true}),
            );
        }
        body.push(json!({"type": "RichTextBlock", "inlines": runs, "separator": true}));
    }
    if let Some(more) = more_line(&r) {
        body.push(rich(vec![
            json!({"type": "TextRun", "text": more, "isSubtle": true}),
        ]));
    }
    let mut card = json!({
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.5",
        "body": body,
    });
    if r.url.starts_with("https://") || r.url.starts_with("http://") {
        card["actions"] =
            json!([{"type": "Action.OpenUrl", "title": "View the changes", "url": r.url}]);
    }
    envelope_of(card)
}

/// A ping as a Teams card.
pub fn teams_ping(doc: &str) -> Value {
    envelope_of(json!({
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.5",
        "body": [rich(vec![run(&format!(
            "Specpress test message: this channel will receive the releases of {doc}."
        ))])],
    }))
}

fn envelope_of(card: Value) -> Value {
    json!({"type": "message", "attachments": [
        {"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": null, "content": card}]})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope() -> Value {
        json!({"documentation": {"name": "Pets <!channel> & co", "slug": "pets"}, "branch": "main",
               "version": {"api_version": "2.0"},
               "diff": {"public_url": "https://docs.example.com/doc/pets/changes/v2"}})
    }

    fn items() -> Vec<Value> {
        vec![
            json!({"name": "GET /pets", "type": "endpoint", "breaking": false, "changes": [
                {"id": "1", "level": "info", "message": "a <b>query</b> parameter was added"}]}),
            json!({"name": "DELETE /pets/{id}", "type": "endpoint", "breaking": true, "changes": [
                {"id": "2", "level": "breaking", "message": "removed <https://evil.example|click>",
                 "migration": "Use `POST /pets/{id}/archive`.", "accepted": {"reason": "Announced <@U123>"}}]}),
        ]
    }

    #[test]
    fn a_slack_message_escapes_document_texts_and_puts_breaking_changes_first() {
        let m = slack(&envelope(), &items(), 2);
        let text = serde_json::to_string(&m).expect("json");
        assert!(
            !text.contains("<!channel>")
                && !text.contains("<https://evil")
                && !text.contains("<@U123>")
        );
        assert!(text.contains("&lt;!channel&gt; &amp; co"));
        let blocks = m["blocks"].as_array().expect("blocks");
        assert_eq!(blocks[0]["type"], "header");
        assert!(
            blocks[0]["text"]["text"]
                .as_str()
                .expect("header")
                .contains("2.0")
        );
        let first_change = blocks[3]["text"]["text"].as_str().expect("note");
        assert!(first_change.starts_with("*Breaking*"), "{first_change}");
        assert!(
            first_change.contains("Accepted: Announced") && first_change.contains("Migration: Use")
        );
        assert!(blocks.iter().any(|b| {
            b["type"] == "context"
                && b["elements"][0]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("2 items"))
        }));
        assert!(
            m["text"]
                .as_str()
                .is_some_and(|t| t.contains("1 breaking change"))
        );
    }

    #[test]
    fn a_slack_message_stays_within_block_kit_limits_whatever_the_diff() {
        let long = "x".repeat(10_000);
        let mut env = envelope();
        env["documentation"]["name"] = json!(long);
        let many: Vec<Value> = (0..500)
            .map(|i| {
                json!({"name": format!("GET /{i}{long}"), "type": "endpoint", "breaking": true,
                            "changes": [{"level": "breaking", "message": long, "migration": long}]})
            })
            .collect();
        let m = slack(&env, &many, 0);
        let blocks = m["blocks"].as_array().expect("blocks");
        assert!(blocks.len() <= 50);
        assert!(
            blocks[0]["text"]["text"]
                .as_str()
                .expect("h")
                .chars()
                .count()
                <= SLACK_HEADER_CHARS
        );
        for b in blocks {
            if let Some(t) = b["text"]["text"].as_str() {
                assert!(t.chars().count() <= SLACK_TEXT_CHARS);
            }
        }
        assert!(m["text"].as_str().expect("text").chars().count() <= SLACK_FALLBACK_CHARS);
    }

    #[test]
    fn a_teams_card_is_an_adaptive_card_in_the_workflow_envelope_with_plain_runs() {
        let m = teams(&envelope(), &items(), 0);
        assert_eq!(m["type"], "message");
        let a = &m["attachments"][0];
        assert_eq!(a["contentType"], "application/vnd.microsoft.card.adaptive");
        assert_eq!(a["content"]["version"], "1.5");
        let body = a["content"]["body"].as_array().expect("body");
        assert!(body.iter().all(|b| b["type"] == "RichTextBlock"));
        assert_eq!(body[2]["inlines"][0]["text"], "Breaking · ");
        assert_eq!(
            a["content"]["actions"][0]["url"],
            "https://docs.example.com/doc/pets/changes/v2"
        );
    }
}

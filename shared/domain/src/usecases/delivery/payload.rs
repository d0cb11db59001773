//! The body of an event's deliveries: Bump.sh's `{api, diff}` and the envelope, bounded to
//! [`MAX_PAYLOAD_BYTES`](super::MAX_PAYLOAD_BYTES) (the whole diff when it fits, else a summary and a link to the
//! rest), computed once per event and recorded.

use serde_json::{Map, Value, json};
use time::OffsetDateTime;

use super::{
    DeliveryService, MAX_PAYLOAD_BYTES, MAX_PAYLOAD_TEXT_BYTES, MAX_SUMMARY_ITEM_BYTES, rfc3339,
};
use crate::error::{DomainError, Result};
use crate::model::{Documentation, Event, Version};
use crate::ports::OperationFacts;
use std::collections::BTreeMap;

impl DeliveryService {
    /// The payload of an event's deliveries: the one recorded by an earlier copy of the event message if there is
    /// one (so the diff is computed once per event, not once per receive), otherwise computed now and recorded
    /// (first writer wins: concurrent copies end up sending the same bytes).
    pub(super) async fn recorded_payload(&self, event: &Event) -> Result<String> {
        if let Some(payload) = self.store.get_event_payload(event.id).await? {
            return Ok(payload);
        }
        let payload = self.event_payload(event).await?;
        self.store
            .record_event_payload(event.id, &payload, OffsetDateTime::now_utc())
            .await
    }

    /// The exact JSON body of an event's deliveries: Bump.sh's `{api, diff}` plus the envelope, at most
    /// [`MAX_PAYLOAD_BYTES`] (see [`bounded_payload`]).
    pub async fn event_payload(&self, event: &Event) -> Result<String> {
        let (body, details) = self.event_parts(event, false).await?;
        bounded_payload(body, details)
    }

    /// The body of an event's deliveries around empty `details`, and the diff's top-level items (their changes with
    /// their acceptances; with `mark`, each item with the `tags` and `ids` of the operations it touches, what filters
    /// on tags and ids match: not in the standard body, where they would only add bytes).
    pub(super) async fn event_parts(
        &self,
        event: &Event,
        mark: bool,
    ) -> Result<(Value, Vec<Value>)> {
        let now = OffsetDateTime::now_utc();
        // Events are written by the deploy's commit with their version; versions and documentations are never
        // deleted. One missing is an inconsistency that handling the message again cannot mend.
        let missing =
            || DomainError::NotFound("event refers to a missing version or documentation".into());
        let version = self
            .store
            .get_version(event.version_id, now)
            .await?
            .ok_or_else(missing)?;
        let doc = self
            .store
            .get_doc(event.org_id, event.doc_id)
            .await?
            .ok_or_else(missing)?;
        let previous = match event.previous_version_id {
            Some(p) => self.store.get_version(p, now).await?,
            None => None,
        };
        let diff = match &previous {
            Some(prev) => {
                let before = self
                    .store
                    .get_bundle(&prev.blob)
                    .await?
                    .ok_or_else(missing)?;
                let after = self
                    .store
                    .get_bundle(&version.blob)
                    .await?
                    .ok_or_else(missing)?;
                Some(self.engine.diff(&before, &after).await?)
            }
            None => None,
        };
        // A first version is all structure; otherwise the diff engine tells structural changes from
        // content-only ones (descriptions, summaries, examples, formatting).
        let structural = match &diff {
            None => true,
            Some(d) => d.structural,
        };
        let base = &self.public_base_url;
        let doc_url = crate::urls::of_doc(base, &doc);
        let public_url = format!("{doc_url}/changes/{}", version.id);
        // `details`, `details_truncated` and `details_summary` are placeholders here, filled by `bounded_payload`
        // (in place: the keys keep this order).
        let diff_json = json!({
            "id": version.id.to_string(),
            "title": clip(&version.analysis.title, MAX_PAYLOAD_TEXT_BYTES),
            "public_url": public_url,
            "details_url": details_url(&public_url),
            "breaking": diff.as_ref().is_some_and(|d| d.breaking),
            "details_truncated": false,
            "details_summary": null,
            "details": [],
            "previous_version_url": previous.as_ref().map(|p| format!("{doc_url}/changes/{}", p.id)),
            "current_version_url": public_url,
        });
        let body = json!({
            "event": event.kind,
            "id": event.id.to_string(),
            "created_at": rfc3339(event.created_at),
            "documentation": doc_json(&doc),
            "branch": event.branch.as_str(),
            "version": version_json(&version),
            "structural": structural,
            "api": api_json(&doc, Some(&version), base),
            "diff": diff_json,
        });
        let (mut details, operations) = match diff {
            Some(d) => (d.details, d.operations),
            None => (Value::Array(Vec::new()), Default::default()),
        };
        crate::usecases::accepted::apply(self.store.as_ref(), &doc, &mut details, now).await?;
        let mut details = match details {
            Value::Array(items) => items,
            Value::Null => Vec::new(),
            _ => return Err(DomainError::unexpected("diff details are not an array")),
        };
        if mark {
            for item in &mut details {
                mark_operations(item, &operations);
            }
        }
        Ok((body, details))
    }
}

/// Adds to a top-level diff item the `tags` and `ids` of the operations it touches (an operation or channel its
/// own, a shared component those of the operations it reaches: its `affected` list), when there are any: what
/// subscription filters match tags and ids on (`notify::Filter`).
fn mark_operations(item: &mut Value, operations: &BTreeMap<String, OperationFacts>) {
    if operations.is_empty() {
        return;
    }
    let Some(object) = item.as_object_mut() else {
        return;
    };
    let name = object.get("name").and_then(Value::as_str).unwrap_or("");
    let mut touched: Vec<String> = match object.get("type").and_then(Value::as_str) {
        Some("endpoint" | "webhook" | "operation" | "channel") => vec![name.to_owned()],
        // `GET /pets callback `x` POST {$url}`: its operation's.
        Some("callback") => vec![name.splitn(3, ' ').take(2).collect::<Vec<_>>().join(" ")],
        _ => Vec::new(),
    };
    touched.extend(
        object
            .get("affected")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned),
    );
    let (mut tags, mut ids): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    for facts in touched.iter().filter_map(|n| operations.get(n)) {
        tags.extend(facts.tags.iter().map(String::as_str));
        ids.extend(facts.ids.iter().map(String::as_str));
    }
    let list = |mut v: Vec<&str>| {
        v.sort_unstable();
        v.dedup();
        Value::Array(v.into_iter().map(|s| Value::String(s.to_owned())).collect())
    };
    let (tags, ids) = (list(tags), list(ids));
    if tags.as_array().is_some_and(|a| !a.is_empty()) {
        object.insert("tags".into(), tags);
    }
    if ids.as_array().is_some_and(|a| !a.is_empty()) {
        object.insert("ids".into(), ids);
    }
}

/// The link to a change's full `DiffItem[]` JSON: its public page with `.json` appended.
pub fn details_url(public_url: &str) -> String {
    format!("{public_url}.json")
}

/// At most `max` bytes of `s`, cut on a char boundary.
fn clip(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Fills the `details`, `details_truncated` and `details_summary` members of `body["diff"]` and serializes the body
/// within [`MAX_PAYLOAD_BYTES`]:
/// - when the full `details` fit, they are sent as they are, with `details_truncated: false`;
/// - otherwise `details` is a summary: top-level items only, each stripped of its `children` (and, if still over
///   [`MAX_SUMMARY_ITEM_BYTES`], of everything but its identity and breaking flags) and marked `truncated: true`
///   when something was dropped; breaking items are chosen first, then the others, as many as fit, listed in the
///   diff's own order; `details_truncated: true`.
///
/// `details_summary` counts the full diff's top-level items, its breaking ones and those included. The result is
/// a pure function of its input, so the same event always gives the same bytes.
pub fn bounded_payload(body: Value, details: Vec<Value>) -> Result<String> {
    let total = details.len();
    let breaking = details.iter().filter(|i| is_breaking(i)).count();
    bounded(body, details, (total, breaking), None)
}

/// [`bounded_payload`] of a subscription's filtered items: `details_summary` counts the whole diff's items
/// (`total_items`, `breaking_items`: `all`), those listed, and `left_out_items`, those the filter left out.
pub fn bounded_filtered_payload(
    body: Value,
    items: Vec<Value>,
    all: &[Value],
    left_out: usize,
) -> Result<String> {
    let counts = (all.len(), all.iter().filter(|i| is_breaking(i)).count());
    bounded(body, items, counts, Some(left_out))
}

fn bounded(
    mut body: Value,
    details: Vec<Value>,
    (total, breaking): (usize, usize),
    left_out: Option<usize>,
) -> Result<String> {
    let fill = |body: &mut Value, items: Vec<Value>, truncated: bool, included: usize| {
        if let Some(diff) = body.get_mut("diff").and_then(Value::as_object_mut) {
            diff.insert("details".into(), Value::Array(items));
            diff.insert("details_truncated".into(), Value::Bool(truncated));
            let mut summary = json!({"total_items": total, "breaking_items": breaking, "included_items": included});
            if let Some(n) = left_out {
                summary["left_out_items"] = json!(n);
            }
            diff.insert("details_summary".into(), summary);
        }
    };
    let to_text = |body: &Value| serde_json::to_string(body).map_err(DomainError::unexpected);
    let listed = details.len();
    fill(&mut body, details, false, listed);
    let full = to_text(&body)?;
    if full.len() <= MAX_PAYLOAD_BYTES {
        return Ok(full);
    }
    drop(full);
    let details = match body.pointer_mut("/diff/details").map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    // The body around an empty list; `included_items` at `total` has at least as many digits as the final count.
    fill(&mut body, Vec::new(), true, total);
    let room = MAX_PAYLOAD_BYTES.saturating_sub(to_text(&body)?.len());
    let chosen = summary_items(&details, room)?;
    let included = chosen.len();
    fill(&mut body, chosen, true, included);
    let text = to_text(&body)?;
    if text.len() > MAX_PAYLOAD_BYTES {
        // The envelope alone is over the bound: its document texts are clipped, so this is a bug.
        return Err(DomainError::unexpected(format!(
            "a webhook payload of {} bytes is over its {MAX_PAYLOAD_BYTES}-byte bound",
            text.len()
        )));
    }
    Ok(text)
}

fn is_breaking(item: &Value) -> bool {
    item.get("breaking") == Some(&Value::Bool(true))
}

/// The summaries of `details` whose serialized list takes at most `room` bytes more than `[]`: breaking items
/// first, then the others, each while it fits; in the diff's order.
fn summary_items(details: &[Value], room: usize) -> Result<Vec<Value>> {
    let mut summaries = Vec::with_capacity(details.len());
    for item in details {
        summaries.push(match summary_item(item) {
            Some(v) => {
                let size = serde_json::to_string(&v)
                    .map_err(DomainError::unexpected)?
                    .len();
                Some((v, size))
            }
            None => None,
        });
    }
    let order = (0..details.len())
        .filter(|&i| is_breaking(&details[i]))
        .chain((0..details.len()).filter(|&i| !is_breaking(&details[i])));
    let mut taken = vec![false; details.len()];
    let (mut used, mut count) = (0usize, 0usize);
    for i in order {
        let Some((_, size)) = &summaries[i] else {
            continue;
        };
        // A comma before every item but the first.
        let cost = size + usize::from(count > 0);
        if used + cost <= room {
            used += cost;
            count += 1;
            taken[i] = true;
        }
    }
    Ok(summaries
        .into_iter()
        .zip(taken)
        .filter_map(|(s, t)| if t { s.map(|(v, _)| v) } else { None })
        .collect())
}

/// Members of a top-level item kept when it must shrink further than dropping its children.
const IDENTITY: [&str; 8] = [
    "id",
    "name",
    "status",
    "type",
    "breaking",
    "level",
    "breaking_details",
    "ref",
];

/// A top-level item without its children (nor the list of operations a shared component affects), at most
/// [`MAX_SUMMARY_ITEM_BYTES`]; `None` when even its identity is larger.
fn summary_item(item: &Value) -> Option<Value> {
    let object = item.as_object()?;
    let non_empty = |k: &str| {
        object
            .get(k)
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    };
    let cut = non_empty("children") || non_empty("affected");
    let mut summary: Map<String, Value> = object
        .iter()
        .filter(|(k, _)| *k != "children" && *k != "affected")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let finish = |mut m: Map<String, Value>, truncated: bool| {
        m.insert("children".into(), Value::Array(Vec::new()));
        if truncated {
            m.insert("truncated".into(), Value::Bool(true));
        }
        let v = Value::Object(m);
        let fits = serde_json::to_string(&v).is_ok_and(|t| t.len() <= MAX_SUMMARY_ITEM_BYTES);
        fits.then_some(v)
    };
    if let Some(v) = finish(summary.clone(), cut) {
        return Some(v);
    }
    summary.retain(|k, _| IDENTITY.contains(&k.as_str()));
    finish(summary, true)
}

pub(super) fn doc_json(doc: &Documentation) -> serde_json::Value {
    json!({ "id": doc.id.to_string(), "slug": doc.slug.as_str(), "name": doc.name })
}

fn version_json(v: &Version) -> serde_json::Value {
    json!({
        "id": v.id.to_string(),
        "previous_version_id": v.previous_version_id.map(|p| p.to_string()),
        "title": clip(&v.analysis.title, MAX_PAYLOAD_TEXT_BYTES),
        "api_version": clip(&v.analysis.api_version, MAX_PAYLOAD_TEXT_BYTES),
        "specification": v.analysis.specification,
        "created_at": rfc3339(v.created_at),
    })
}

/// The Bump.sh `Api` object of a documentation.
pub(super) fn api_json(
    doc: &Documentation,
    version: Option<&Version>,
    base: &str,
) -> serde_json::Value {
    let kind = match version.map(|v| v.analysis.specification.as_str()) {
        Some(s) if s.starts_with("asyncapi") => "AsyncAPI",
        _ => "OpenAPI",
    };
    let doc_url = crate::urls::of_doc(base, doc);
    json!({
        "id": doc.id.to_string(),
        "name": doc.name,
        "description": version.and_then(|v| v.analysis.description.clone()),
        "slug": doc.slug.as_str(),
        "url": doc_url,
        "humanUrl": doc_url,
        "tags": [],
        "version": version.map(|v| clip(&v.analysis.api_version, MAX_PAYLOAD_TEXT_BYTES)),
        "properties": version.map(|v| vec![json!({
            "url": format!("{doc_url}/versions/{}/source", v.id),
            "type": kind,
        })]).unwrap_or_default(),
        "created": doc.created_at.date().to_string(),
        "modified": doc.modified_at.date().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body as `event_payload` builds it, around `details`.
    fn body() -> Value {
        let public_url = "https://docs.example.com/doc/pets/changes/v2";
        json!({
            "event": "documentation.published",
            "id": "e1",
            "diff": {
                "id": "v2",
                "title": "Pets",
                "public_url": public_url,
                "details_url": details_url(public_url),
                "breaking": true,
                "details_truncated": false,
                "details_summary": null,
                "details": [],
            },
        })
    }

    /// A top-level item with `children` leaves of about 200 bytes each.
    fn item(n: usize, breaking: bool, children: usize) -> Value {
        let children: Vec<Value> = (0..children)
            .map(|c| {
                json!({"id": format!("get-path-{n}-property-{c}"), "name": format!("property{c}"),
                       "status": "added", "type": "property", "breaking": false, "level": "info", "children": [],
                       "changes": [{"rule": "response-property-added", "message": "a property was added"}]})
            })
            .collect();
        json!({"id": format!("get-path-{n}"), "name": format!("GET /path/{n}"), "status": "modified",
               "type": "endpoint", "breaking": breaking, "level": if breaking { "breaking" } else { "info" },
               "previous": {"path": format!("/path/{n}"), "verb": "GET", "deprecated": false},
               "current": {"path": format!("/path/{n}"), "verb": "GET", "deprecated": false},
               "children": children})
    }

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).expect("a payload is JSON")
    }

    #[test]
    fn a_small_diff_is_sent_whole_and_marked_complete() {
        // GIVEN a diff whose details fit the bound
        let details = vec![item(1, true, 3), item(2, false, 1)];
        // WHEN the payload is built
        let text = bounded_payload(body(), details.clone()).expect("payload");
        // THEN the details are the diff's own, marked complete, with the counts and the link
        let p = parse(&text);
        assert_eq!(p["diff"]["details"], Value::Array(details));
        assert_eq!(p["diff"]["details_truncated"], json!(false));
        assert_eq!(
            p["diff"]["details_summary"],
            json!({"total_items": 2, "breaking_items": 1, "included_items": 2})
        );
        assert_eq!(
            p["diff"]["details_url"],
            json!("https://docs.example.com/doc/pets/changes/v2.json")
        );
        // and the members keep the envelope's order (details after their summary, before nothing else).
        let keys: Vec<&str> = p["diff"]
            .as_object()
            .expect("diff")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "id",
                "title",
                "public_url",
                "details_url",
                "breaking",
                "details_truncated",
                "details_summary",
                "details"
            ]
        );
    }

    #[test]
    fn a_huge_diff_is_bounded_marked_and_keeps_every_breaking_item_first() {
        // GIVEN 3,000 top-level items, about 4 MB, every twentieth breaking (the first at 19: not a prefix)
        let details: Vec<Value> = (0..3000).map(|n| item(n, n % 20 == 19, 20)).collect();
        assert!(serde_json::to_string(&details).expect("json").len() > 3_000_000);
        // WHEN the payload is built
        let text = bounded_payload(body(), details.clone()).expect("payload");
        // THEN it is within the bound, marked truncated, and counts what it holds
        assert!(text.len() <= MAX_PAYLOAD_BYTES, "{} bytes", text.len());
        assert!(
            text.len() > MAX_PAYLOAD_BYTES - 2 * MAX_SUMMARY_ITEM_BYTES,
            "the budget is used"
        );
        let p = parse(&text);
        let diff = &p["diff"];
        assert_eq!(diff["details_truncated"], json!(true));
        let listed = diff["details"].as_array().expect("details");
        assert_eq!(
            diff["details_summary"],
            json!({"total_items": 3000, "breaking_items": 150, "included_items": listed.len()})
        );
        // every breaking item is listed although they come last, then as many others as fit, in the diff's order
        assert_eq!(listed.iter().filter(|i| is_breaking(i)).count(), 150);
        assert!(listed.len() > 150 && listed.len() < 3000);
        assert!(
            listed.iter().any(|i| i["id"] == json!("get-path-2999")),
            "the last breaking item is listed"
        );
        let ids: Vec<usize> = listed
            .iter()
            .map(|i| {
                i["id"].as_str().expect("id")["get-path-".len()..]
                    .parse()
                    .expect("n")
            })
            .collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "the diff's order");
        // each listed item is its top-level item without children, marked truncated
        for (i, n) in listed.iter().zip(&ids) {
            let mut expected = details[*n].clone();
            expected["children"] = json!([]);
            expected["truncated"] = json!(true);
            assert_eq!(i, &expected);
        }
        // and the same diff always gives the same bytes.
        assert_eq!(bounded_payload(body(), details).expect("payload"), text);
    }

    #[test]
    fn an_item_too_large_even_stripped_is_left_out_but_counted() {
        // GIVEN a huge diff whose first item is breaking with a 5 KB name, and whose second has a 5 KB `current`
        let mut long_name = item(0, true, 1);
        long_name["name"] = json!("x".repeat(5000));
        let mut long_current = item(1, true, 0);
        long_current["current"] = json!({"path": "y".repeat(5000)});
        let mut details = vec![long_name, long_current];
        details.extend((2..2000).map(|n| item(n, false, 20)));
        // WHEN the payload is built
        let p = parse(&bounded_payload(body(), details).expect("payload"));
        // THEN the first is counted as breaking but not listed; the second is listed by its identity alone
        let listed = p["diff"]["details"].as_array().expect("details");
        assert_eq!(p["diff"]["details_summary"]["breaking_items"], json!(2));
        assert!(listed.iter().all(|i| i["id"] != json!("get-path-0")));
        let second = listed
            .iter()
            .find(|i| i["id"] == json!("get-path-1"))
            .expect("listed");
        assert!(second.get("current").is_none() && second.get("previous").is_none());
        assert_eq!(second["truncated"], json!(true));
        assert_eq!(second["breaking"], json!(true));
    }

    #[test]
    fn document_texts_are_clipped_on_a_char_boundary() {
        let title = "é".repeat(MAX_PAYLOAD_TEXT_BYTES);
        let clipped = clip(&title, MAX_PAYLOAD_TEXT_BYTES);
        assert_eq!(clipped.len(), MAX_PAYLOAD_TEXT_BYTES);
        assert_eq!(clip("short", MAX_PAYLOAD_TEXT_BYTES), "short");
        let odd = format!("a{title}");
        assert_eq!(
            clip(&odd, MAX_PAYLOAD_TEXT_BYTES).len(),
            MAX_PAYLOAD_TEXT_BYTES - 1
        );
    }
}

//! Each subscription's body of an event's deliveries, derived from the event's recorded payload (computed once per
//! event): the recorded bytes themselves for a standard subscription without a filter; otherwise its filter's
//! matching items of the diff, written in its format (issue 38). No body when a filter matches no change: the
//! event does not go to that subscription.

use serde_json::Value;

use super::DeliveryService;
use super::formats;
use super::payload::bounded_filtered_payload;
use crate::error::{DomainError, Result};
use crate::model::Event;
use crate::webhooks::{Format, Subscription};

/// The event's recorded payload, and once a subscription needs them, its envelope and the diff's full top-level
/// items.
pub(super) struct Bodies<'a> {
    svc: &'a DeliveryService,
    event: &'a Event,
    recorded: String,
    parts: Option<(Value, Vec<Value>)>,
    /// Whether `parts` holds items marked with their operations' tags and ids.
    marked: bool,
}

impl<'a> Bodies<'a> {
    pub(super) fn new(svc: &'a DeliveryService, event: &'a Event, recorded: String) -> Self {
        Bodies {
            svc,
            event,
            recorded,
            parts: None,
            marked: false,
        }
    }

    /// The envelope (its `diff.details` emptied) and the diff's full top-level items: from the recorded payload,
    /// or the diff again when the recorded details are a truncated summary (a diff over the payload bound) or when
    /// the items must carry their operations' tags and ids (`mark`: a filter on tags or ids).
    pub(super) async fn parts(&mut self, mark: bool) -> Result<&(Value, Vec<Value>)> {
        if self.parts.is_none() || (mark && !self.marked) {
            let mut body: Value =
                serde_json::from_str(&self.recorded).map_err(DomainError::unexpected)?;
            let truncated = body.pointer("/diff/details_truncated") == Some(&Value::Bool(true));
            let parts = if truncated || mark {
                self.marked = true;
                self.svc.event_parts(self.event, true).await?
            } else {
                let details = match body.pointer_mut("/diff/details").map(Value::take) {
                    Some(Value::Array(items)) => items,
                    _ => Vec::new(),
                };
                (body, details)
            };
            self.parts = Some(parts);
        }
        self.parts
            .as_ref()
            .ok_or_else(|| DomainError::unexpected("event parts missing"))
    }

    /// The body of `sub`'s delivery, or `None` when its filter matches no change of the event.
    pub(super) async fn for_subscription(&mut self, sub: &Subscription) -> Result<Option<String>> {
        if sub.filter.is_empty() && sub.format == Format::Standard {
            return Ok(Some(self.recorded.clone()));
        }
        let (envelope, all) = self.parts(sub.filter.needs_operation_facts()).await?;
        let (items, left_out) = if sub.filter.is_empty() {
            (all.clone(), 0)
        } else {
            let selection = sub.filter.select(all);
            if selection.items.is_empty() {
                return Ok(None);
            }
            let mut items = selection.items;
            for item in &mut items {
                // Only for matching: the standard body keeps the diff's own members.
                if let Some(o) = item.as_object_mut() {
                    o.remove("tags");
                    o.remove("ids");
                }
            }
            (items, selection.left_out)
        };
        let body = match sub.format {
            Format::Standard => bounded_filtered_payload(envelope.clone(), items, all, left_out)?,
            Format::Slack => to_text(&formats::slack(envelope, &items, left_out))?,
            Format::Teams => to_text(&formats::teams(envelope, &items, left_out))?,
        };
        Ok(Some(body))
    }
}

fn to_text(v: &Value) -> Result<String> {
    serde_json::to_string(v).map_err(DomainError::unexpected)
}

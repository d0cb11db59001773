//! The default branch a deploy's commit moves
//! ([`Commit::default_from`](specpress_domain::ports::Commit::default_from)): a documentation's first release on a
//! branch other than its default, while the default has none, makes that branch the default in the same
//! transaction.

use aws_sdk_dynamodb::types::{AttributeValue, ConditionCheck, TransactWriteItem, Update};
use specpress_domain::model::{Slug, Version};
use specpress_domain::{ConflictKind, DomainError, Result};

use crate::attr::{s, ts};
use crate::items::{branch_sk, doc_pk, doc_sk, org_pk};

/// The actions, in `table`, that make `v`'s branch the documentation's default in place of `old`: the
/// documentation's update, which holds only while `old` is still its default (and, with `never_subscribed`, while it
/// has still never had a subscription: the deploy's check of that flag, on the same item, one action per item), and
/// the check that `old` still has no published version (absent, or without a head). Either failing is `Stale`.
pub(crate) fn default_move(
    table: &str,
    v: &Version,
    old: &Slug,
    never_subscribed: bool,
) -> Result<[(TransactWriteItem, ConflictKind); 2]> {
    let condition = if never_subscribed {
        "default_branch = :old AND never_subscribed = :t"
    } else {
        "default_branch = :old"
    };
    let mut update = Update::builder()
        .table_name(table)
        .key("pk", s(org_pk(v.org_id)))
        .key("sk", s(doc_sk(v.doc_id)))
        .update_expression("SET default_branch = :new, modified_at = :now")
        .condition_expression(condition)
        .expression_attribute_values(":new", s(v.branch.as_str()))
        .expression_attribute_values(":old", s(old.as_str()))
        .expression_attribute_values(":now", ts(v.created_at));
    if never_subscribed {
        update = update.expression_attribute_values(":t", AttributeValue::Bool(true));
    }
    let update = update.build().map_err(DomainError::unexpected)?;
    let empty = ConditionCheck::builder()
        .table_name(table)
        .key("pk", s(doc_pk(v.doc_id)))
        .key("sk", s(branch_sk(old)))
        .condition_expression("attribute_not_exists(head_version_id)")
        .build()
        .map_err(DomainError::unexpected)?;
    Ok([
        (
            TransactWriteItem::builder().update(update).build(),
            ConflictKind::Stale,
        ),
        (
            TransactWriteItem::builder().condition_check(empty).build(),
            ConflictKind::Stale,
        ),
    ])
}

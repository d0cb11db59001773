//! `PUT` and `GET /docs/{doc}/accepted_changes`: a documentation's accepted changes (see [`crate::accepted`]), and
//! what a version's diff is once they are applied (the `breaking` flag `GET /versions/{id}` answers).
//!
//! Who may: any token that reaches the documentation (its own, its hub's, its organization's), as the other routes
//! under `/docs/{doc}`; a documentation out of reach answers as absent (404).

use time::OffsetDateTime;

use crate::accepted::{self, AcceptedChanges, AcceptedInput, Annotated};
use crate::error::Result;
use crate::model::Documentation;
use crate::ports::Store;
use crate::token::Principal;
use crate::usecases::resolve::resolve_doc;

/// The documentation `key` names (id or slug) and its accepted changes.
pub async fn get_accepted(
    store: &dyn Store,
    p: &Principal,
    key: &str,
) -> Result<(Documentation, AcceptedChanges)> {
    let doc = resolve_doc(store, p, key.trim()).await?;
    let set = store.get_accepted(doc.id).await?;
    Ok((doc, set))
}

/// Replaces the documentation's accepted changes with `input`, validated (422 naming the first problem; nothing is
/// changed then), and answers the set as stored.
pub async fn put_accepted(
    store: &dyn Store,
    p: &Principal,
    key: &str,
    input: Vec<AcceptedInput>,
    now: OffsetDateTime,
) -> Result<(Documentation, AcceptedChanges)> {
    let doc = resolve_doc(store, p, key.trim()).await?;
    let current = store.get_accepted(doc.id).await?;
    let set = accepted::validate(input, &current, now)?;
    store.put_accepted(doc.id, &set, now).await?;
    Ok((doc, set))
}

/// Applies `doc`'s accepted changes to a diff's `DiffItem[]` tree (see [`accepted::annotate`]). A documentation
/// without accepted changes costs one read and leaves the tree as it is.
pub async fn apply(
    store: &dyn Store,
    doc: &Documentation,
    details: &mut serde_json::Value,
    now: OffsetDateTime,
) -> Result<Annotated> {
    let set = store.get_accepted(doc.id).await?;
    Ok(accepted::annotate(details, &set, now))
}

//! Readers following a documentation or a hub by email (issue 38): the follow request (double opt-in), its
//! confirmation, the manage view, unsubscribing, and suspending an address the mail provider reports.
//!
//! Whatever the address, a well-formed follow request gets the same answer ("check your mail"): whether the address
//! was known, already confirmed or over its quota of [`CONFIRMATIONS_PER_DAY`] confirmation mails never shows, so
//! the form cannot probe addresses nor bomb an inbox. Links are `{scope_url}/follow/{confirm|manage|unsubscribe}/
//! {token}` where `scope_url` is the followed page's URL (see [`crate::follow`] for the tokens).

use time::OffsetDateTime;

use crate::error::{DomainError, Result};
use crate::follow::{
    Address, CONFIRMATIONS_PER_DAY, Cadence, FollowKeys, Follower, FollowerId, FollowerState,
    LinkPurpose, MAX_OPERATION_LEN, PENDING_TTL, address_aad, day_of, mask, random_hex,
    token_follower,
};
use crate::model::{DocOrHub, OrgId};
use crate::ports::{Confirmation, FollowLinks, FollowerStore, Mail, MailContent, Mailer};
use crate::webhooks::SecretSealer;

/// What is followed, as the page the form is on knows it.
#[derive(Debug, Clone)]
pub struct FollowTarget {
    /// The organization owning it.
    pub org_id: OrgId,
    /// The documentation or hub.
    pub scope: DocOrHub,
    /// Its title (hostile text: the mail adapter escapes it).
    pub title: String,
    /// Its page's absolute URL, no trailing slash: the base of the follower's links.
    pub scope_url: String,
}

/// The follow form's fields as received.
#[derive(Debug, Clone, Default)]
pub struct FollowForm {
    /// `email` (personal data: never logged; `FollowForm`'s `Debug` is only used in tests).
    pub email: String,
    /// `cadence`: `release`, `daily` or `weekly` (empty: `release`).
    pub cadence: String,
    /// `breaking_only` was `on`.
    pub breaking_only: bool,
    /// `operation` (`METHOD /path`), set by an operation page's form.
    pub operation: Option<String>,
}

/// The link of `purpose` of follower `f` under `scope_url`.
pub fn link(
    keys: &FollowKeys,
    f: &Follower,
    scope_url: &str,
    purpose: LinkPurpose,
) -> Option<String> {
    let token = keys.token(f, purpose)?;
    let what = match purpose {
        LinkPurpose::Confirm => "confirm",
        LinkPurpose::Manage => "manage",
    };
    Some(format!("{scope_url}/follow/{what}/{token}"))
}

/// The manage and unsubscribe links of a confirmed follower.
pub fn follow_links(keys: &FollowKeys, f: &Follower, scope_url: &str) -> Option<FollowLinks> {
    let token = keys.token(f, LinkPurpose::Manage)?;
    Some(FollowLinks {
        manage_url: format!("{scope_url}/follow/manage/{token}"),
        unsubscribe_url: format!("{scope_url}/follow/unsubscribe/{token}"),
    })
}

/// Validates an operation as a follower gives it: an operation pattern of [`crate::notify::OperationPattern`]
/// (`METHOD /path`, or an AsyncAPI operation or channel id), at most [`MAX_OPERATION_LEN`] bytes; `None` for an
/// empty one.
pub fn parse_operation(text: Option<&str>) -> Result<Option<String>> {
    let Some(t) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    if t.len() > MAX_OPERATION_LEN {
        return Err(DomainError::invalid(
            "operation",
            format!("operation must be at most {MAX_OPERATION_LEN} bytes"),
        ));
    }
    // The same patterns as webhook filters (`GET /pets/*`), so a follower's operation matches as a filter's does.
    let pattern = crate::notify::OperationPattern::parse(t)
        .map_err(|m| DomainError::invalid("operation", m))?;
    Ok(Some(pattern.as_str().to_owned()))
}

/// What a follower receives, as one sentence (the confirmation mail and the manage page show it).
pub fn describe(f: &Follower) -> String {
    let what = match (f.breaking_only, &f.operation) {
        (false, None) => "releases".to_owned(),
        (true, None) => "releases with breaking changes".to_owned(),
        (false, Some(op)) => format!("releases that change {op}"),
        (true, Some(op)) => format!("releases with breaking changes to {op}"),
    };
    match f.cadence {
        Cadence::Release => format!("A mail for each of its {what}"),
        Cadence::Daily => format!("A daily digest of its {what}"),
        Cadence::Weekly => format!("A weekly digest of its {what}"),
    }
}

/// A follow request: validates the form, records a pending follower (or finds the same one again) and, within the
/// address's daily quota, sends it one confirmation mail. The answer is the same whatever the address; `Invalid` only
/// for a malformed form. Nothing is sent to a confirmed or suspended follower.
pub async fn follow<S: FollowerStore + ?Sized>(
    store: &S,
    sealer: &SecretSealer,
    mailer: &dyn Mailer,
    target: &FollowTarget,
    form: &FollowForm,
    now: OffsetDateTime,
) -> Result<()> {
    let address = Address::parse(&form.email)?;
    let cadence = match form.cadence.trim() {
        "" => Cadence::Release,
        c => Cadence::parse(c).ok_or_else(|| {
            DomainError::invalid("cadence", "cadence must be release, daily or weekly")
        })?,
    };

    let operation = parse_operation(form.operation.as_deref())?;
    let keys = FollowKeys::new(sealer);
    let hash = keys.address_hash(&address);
    let id = keys.follower_id(&hash, target.scope, operation.as_deref());
    let follower = match store.get_follower(id, now).await? {
        Some(f) if f.state != FollowerState::Pending => return Ok(()),
        Some(mut f) => {
            f.cadence = cadence;
            f.breaking_only = form.breaking_only;
            f.expires_at = Some(now + PENDING_TTL);
            f
        }
        None => Follower {
            id,
            org_id: target.org_id,
            scope: target.scope,
            operation,
            breaking_only: form.breaking_only,
            cadence,
            state: FollowerState::Pending,
            suspended_reason: None,
            address_hash: hash.clone(),
            sealed_address: sealer.seal_bound(&address_aad(id), address.expose().as_bytes())?,
            link_salt: random_hex(),
            confirm_nonce: Some(random_hex()),
            created_at: now,
            expires_at: Some(now + PENDING_TTL),
            confirmed_at: None,
            next_digest_at: None,
        },
    };
    match store.put_pending_follower(&follower, now).await {
        // Confirmed between the read and the write: nothing to send.
        Err(DomainError::Conflict(_)) => return Ok(()),
        other => other?,
    }
    if !store
        .count_confirmation(&hash, &day_of(now), CONFIRMATIONS_PER_DAY)
        .await?
    {
        return Ok(());
    }
    let confirm_url = link(&keys, &follower, &target.scope_url, LinkPurpose::Confirm)
        .ok_or_else(|| DomainError::unexpected("a pending follower has no confirmation value"))?;
    let mail = Mail {
        to: address.expose().to_owned(),
        id: format!("follow-confirm.{}.{}", follower.id.0.simple(), random_hex()),
        content: MailContent::Confirm(Confirmation {
            title: target.title.clone(),
            page_url: target.scope_url.clone(),
            scope: describe(&follower),
            confirm_url,
            expires_in_hours: PENDING_TTL.whole_hours() as u32,
        }),
    };
    mailer.send(&mail).await
}

/// The follower a link token names, when the token is valid for `purpose` at `now` (`None` otherwise: unknown,
/// expired, forged, or a confirmation link already used).
pub async fn check_link<S: FollowerStore + ?Sized>(
    store: &S,
    sealer: &SecretSealer,
    token: &str,
    purpose: LinkPurpose,
    now: OffsetDateTime,
) -> Result<Option<Follower>> {
    let Some(id) = token_follower(token) else {
        return Ok(None);
    };
    let Some(f) = store.get_follower(id, now).await? else {
        return Ok(None);
    };
    Ok(FollowKeys::new(sealer)
        .verify(&f, purpose, token)
        .then_some(f))
}

/// Confirms a follow request through its single-use link: the confirmed follower (its digest period starts now),
/// `None` when the link is not (or no longer) valid.
pub async fn confirm<S: FollowerStore + ?Sized>(
    store: &S,
    sealer: &SecretSealer,
    token: &str,
    now: OffsetDateTime,
) -> Result<Option<Follower>> {
    let Some(f) = check_link(store, sealer, token, LinkPurpose::Confirm, now).await? else {
        return Ok(None);
    };
    let Some(nonce) = f.confirm_nonce.as_deref() else {
        return Ok(None);
    };
    let next = f.cadence.period().map(|p| now + p);
    if !store.confirm_follower(f.id, nonce, now, next).await? {
        return Ok(None);
    }
    store.get_follower(f.id, now).await
}

/// What the manage page shows.
#[derive(Debug, Clone)]
pub struct ManageView {
    /// The follower.
    pub follower: Follower,
    /// Its address, masked (`j***@e***.com`).
    pub masked_address: String,
    /// What it receives, as a sentence.
    pub description: String,
}

/// The manage view of the follower a manage link names (`None` for an invalid link).
pub async fn manage<S: FollowerStore + ?Sized>(
    store: &S,
    sealer: &SecretSealer,
    token: &str,
    now: OffsetDateTime,
) -> Result<Option<ManageView>> {
    let Some(f) = check_link(store, sealer, token, LinkPurpose::Manage, now).await? else {
        return Ok(None);
    };
    let masked_address = mask(&f.address(sealer)?);
    let description = describe(&f);
    Ok(Some(ManageView {
        follower: f,
        masked_address,
        description,
    }))
}

/// Unsubscribes through a manage (or unsubscribe) link: deletes the follower and its sealed address. `true` when it
/// was deleted now, `false` for an invalid link or one already used (the page says the same: not subscribed).
pub async fn unsubscribe<S: FollowerStore + ?Sized>(
    store: &S,
    sealer: &SecretSealer,
    token: &str,
    now: OffsetDateTime,
) -> Result<bool> {
    let Some(f) = check_link(store, sealer, token, LinkPurpose::Manage, now).await? else {
        return Ok(false);
    };
    Ok(store.delete_follower(f.id).await?.is_some())
}

/// Suspends every follower of `address` (the mail provider reported a bounce or a complaint): they receive nothing
/// more until they follow again. Answers how many were suspended; an address nobody follows (or one that does not
/// parse) suspends none. `reason` is kept on each follower (`bounce`, `complaint`); never log the address.
pub async fn suspend_address<S: FollowerStore + ?Sized>(
    store: &S,
    sealer: &SecretSealer,
    address: &str,
    reason: &str,
) -> Result<usize> {
    let Ok(address) = Address::parse(address) else {
        return Ok(0);
    };
    let hash = FollowKeys::new(sealer).address_hash(&address);
    let mut suspended = 0;
    for id in store.followers_of_address(&hash).await? {
        if store
            .set_follower_state(id, FollowerState::Suspended, Some(reason))
            .await?
        {
            suspended += 1;
        }
    }
    Ok(suspended)
}

/// Removes one follower of a documentation or hub (the owner's `DELETE .../subscribers/{id}`): `NotFound` when it is
/// not a follower of that scope in that organization.
pub async fn remove_follower<S: FollowerStore + ?Sized>(
    store: &S,
    org: OrgId,
    scope: DocOrHub,
    id: FollowerId,
    now: OffsetDateTime,
) -> Result<()> {
    match store.get_follower(id, now).await? {
        Some(f) if f.org_id == org && f.scope == scope => {
            store.delete_follower(id).await?;
            Ok(())
        }
        _ => Err(DomainError::NotFound("Not found".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_are_validated_and_their_method_upper_cased() {
        assert_eq!(parse_operation(None).unwrap(), None);
        assert_eq!(parse_operation(Some("  ")).unwrap(), None);
        assert_eq!(
            parse_operation(Some("get /pets/{id}")).unwrap().as_deref(),
            Some("GET /pets/{id}")
        );
        assert_eq!(
            parse_operation(Some("user.signedup")).unwrap().as_deref(),
            Some("user.signedup")
        );
        // Operation patterns as webhook filters read them (notify::OperationPattern).
        for bad in [
            "/pets",
            "G-T /pets",
            "GET /pe*ts",
            "GET /a/**/b",
            "GET /a\u{7}b",
        ] {
            assert!(parse_operation(Some(bad)).is_err(), "{bad}");
        }
        assert_eq!(
            parse_operation(Some("get /pets/*")).unwrap().as_deref(),
            Some("GET /pets/*")
        );
    }
}

//! Public diffs: `POST /diffs`, `GET /diffs/{id}`, `GET /diffs/{id}/previous.json` and `/current.json`
//! (bump-api.md §3.6, §3.7, §5).
//!
//! A diff is computed synchronously when it is created (the engine is fast), so `GET /diffs/{id}` never answers
//! 202. Three parts are stored: the previous and current bundles exactly as received (or as downloaded), and the
//! rendered results (`text`, `markdown`, `html`, `details`). The `DIFF#<id>` record points at them and carries the
//! summary (`title`, `breaking`) and the expiry (TTL, and checked on every read).
//!
//! Who keeps what (issue 18.4): a request with a valid token stores its parts as content-addressed blobs (shared
//! with identical content, kept as long as the diff asks, `"never"` included), as every diff did before. A request
//! without a token is bounded twice ([`AnonymousLimits`]): its expiry is clamped to a ceiling, and every anonymous
//! diff's bytes are its own (stored under the diff, deleted with it) and counted against one quota for all anonymous
//! diffs together, in a slot written before any of its bytes. When the quota is full, expired diffs are removed
//! first, then the oldest: the disk the anonymous public can use is bounded whatever the number of clients.

use serde::Deserialize;
use serde_json::value::RawValue;
use std::sync::Arc;

use futures_channel::oneshot;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, Duration, OffsetDateTime};

use crate::error::{ConflictKind, DomainError, Result};
use crate::model::{
    AnonymousSlot, BlobRef, Bundle, DiffId, DiffPart, DiffRecord, DiffStorage, Reference, Retention,
};
use crate::ports::{Comparison, DiffEngine, DocumentFetcher, Store};

/// Life of a diff when `expires_at` is absent (bump-api.md §3.6: "defaults to 1 day").
pub const DEFAULT_DIFF_TTL: Duration = Duration::days(1);
/// Longest accepted `expires_at` in the future; beyond that, use `"never"`.
pub const MAX_DIFF_TTL: Duration = Duration::days(3660);
/// Default ceiling of an anonymous diff's life (`SPECPRESS_ANONYMOUS_DIFF_MAX_DAYS`).
pub const DEFAULT_ANONYMOUS_MAX_DAYS: u32 = 30;
/// Default quota of bytes all anonymous diffs keep together (`SPECPRESS_ANONYMOUS_DIFF_QUOTA_BYTES`): 1 GiB.
pub const DEFAULT_ANONYMOUS_QUOTA_BYTES: u64 = 1 << 30;
/// How long an anonymous diff being created is protected from eviction: from its slot's reservation to its record,
/// a creation takes at most the request's time (29 s in AWS); past this, its creator is taken for dead and the slot
/// (with whatever it wrote) can be evicted like any other.
pub const ANONYMOUS_LEASE: Duration = Duration::minutes(5);
/// Reservation attempts (each one after making room) before a creation gives up as busy.
const ROOM_ATTEMPTS: u32 = 40;
/// Slots examined per eviction query.
const EVICTION_PAGE: u32 = 32;
/// Expired anonymous diffs each creation removes on its way (so expired diffs leave the count without waiting for
/// the quota to fill).
const SWEEP_PER_CREATION: u32 = 2;

/// What an anonymous client (a request without a token) may keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnonymousLimits {
    /// Longest life: `"never"` and later dates are clamped to it.
    pub max_life: Duration,
    /// Bytes all anonymous diffs keep together; the oldest are evicted to make room.
    pub quota_bytes: u64,
}

impl Default for AnonymousLimits {
    fn default() -> Self {
        AnonymousLimits {
            max_life: Duration::days(i64::from(DEFAULT_ANONYMOUS_MAX_DAYS)),
            quota_bytes: DEFAULT_ANONYMOUS_QUOTA_BYTES,
        }
    }
}

/// Who asks for a diff, which decides what it may keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Creator {
    /// A request carrying a valid token of the installation (any kind): content-addressed blobs, any expiry
    /// (`"never"` included), not counted.
    Authenticated,
    /// A request without a token: expiry clamped, bytes owned by the diff and counted in the quota.
    Anonymous(AnonymousLimits),
}

/// The stored renderings of a diff, read back as raw JSON: `GET /diffs/{id}` copies the requested ones into its
/// answer without rebuilding the `details` tree or re-escaping the strings.
#[derive(Debug, Clone)]
pub struct StoredRendered {
    json: String,
}

/// Borrowed views of the four renderings in a [`StoredRendered`], each a JSON value (the first three are strings).
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct RenderedJson<'a> {
    /// `text`.
    #[serde(borrow)]
    pub text: &'a RawValue,
    /// `markdown`.
    #[serde(borrow)]
    pub markdown: &'a RawValue,
    /// `html`.
    #[serde(borrow)]
    pub html: &'a RawValue,
    /// `details`.
    #[serde(borrow)]
    pub details: &'a RawValue,
}

impl StoredRendered {
    /// The four renderings as raw JSON values; a blob without them is corrupt (500).
    pub fn parts(&self) -> Result<RenderedJson<'_>> {
        serde_json::from_str(&self.json).map_err(DomainError::unexpected)
    }
}

/// A rendering that is a JSON string, unescaped.
pub fn unescape(raw: &RawValue) -> Result<String> {
    serde_json::from_str(raw.get()).map_err(DomainError::unexpected)
}

/// The `POST /diffs` body, as received.
#[derive(Debug, Clone, Default)]
pub struct DiffInput {
    /// Previous definition text.
    pub previous_definition: Option<String>,
    /// Previous definition's external files.
    pub previous_references: Vec<Reference>,
    /// Current definition text.
    pub definition: Option<String>,
    /// Current definition's external files.
    pub references: Vec<Reference>,
    /// URL of the previous definition.
    pub previous_url: Option<String>,
    /// URL of the current definition.
    pub url: Option<String>,
    /// ISO 8601 date-time (or date), or `"never"`; default one day.
    pub expires_at: Option<String>,
}

/// Where the two definitions come from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    Definitions(String, String),
    Urls(String, String),
}

fn present(v: &Option<String>) -> Option<&str> {
    v.as_deref().filter(|s| !s.trim().is_empty())
}

fn pair_error(field: &str, message: String) -> DomainError {
    DomainError::Invalid {
        message: message.clone(),
        field: field.to_owned(),
        messages: vec![message],
    }
}

/// Decides which pair the request uses: exactly one complete pair, else a 422 naming the missing field. The pair's
/// texts are moved out of `input` (definitions can be several MiB each).
fn source(input: &mut DiffInput) -> Result<Source> {
    let urls = pair(input)?;
    let take = |v: &mut Option<String>| v.take().unwrap_or_default();
    Ok(if urls {
        Source::Urls(take(&mut input.previous_url), take(&mut input.url))
    } else {
        Source::Definitions(
            take(&mut input.previous_definition),
            take(&mut input.definition),
        )
    })
}

/// Which complete pair the request gives: `false` for the definitions, `true` for the URLs.
fn pair(input: &DiffInput) -> Result<bool> {
    let (pd, d) = (
        present(&input.previous_definition),
        present(&input.definition),
    );
    let (pu, u) = (present(&input.previous_url), present(&input.url));
    let any_def = pd.is_some() || d.is_some();
    let any_url = pu.is_some() || u.is_some();
    match (any_def, any_url) {
        (false, false) => Err(pair_error(
            "definition",
            "definition and previous_definition are required (or url and previous_url to compare two URLs)".into(),
        )),
        (true, true) => Err(pair_error(
            "url",
            "give either definition and previous_definition, or url and previous_url, not both".into(),
        )),
        (true, false) => match (pd, d) {
            (Some(_), Some(_)) => Ok(false),
            (None, _) => {
                Err(pair_error("previous_definition", "previous_definition is required when definition is given".into()))
            }
            (_, None) => {
                Err(pair_error("definition", "definition is required when previous_definition is given".into()))
            }
        },
        (false, true) => match (pu, u) {
            (Some(_), Some(_)) => Ok(true),
            (None, _) => Err(pair_error("previous_url", "previous_url is required when url is given".into())),
            (_, None) => Err(pair_error("url", "url is required when previous_url is given".into())),
        },
    }
}

/// Parses `expires_at`: absent = now + 1 day; `"never"` = no expiry; an RFC 3339 / ISO 8601 date-time, or a date
/// (midnight UTC). It must lie in the future and at most [`MAX_DIFF_TTL`] ahead.
pub fn parse_expiry(raw: Option<&str>, now: OffsetDateTime) -> Result<Option<OffsetDateTime>> {
    let Some(raw) = raw.map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(Some(now + DEFAULT_DIFF_TTL));
    };
    if raw.eq_ignore_ascii_case("never") {
        return Ok(None);
    }
    let bad = || {
        DomainError::invalid(
            "expires_at",
            "expires_at must be an ISO 8601 date-time such as 2030-01-31T12:00:00Z, a date such as 2030-01-31, or \"never\"",
        )
    };
    if raw.len() > 64 {
        return Err(bad());
    }
    let at = match OffsetDateTime::parse(raw, &Rfc3339) {
        Ok(t) => t,
        Err(_) => {
            let date =
                Date::parse(raw, format_description!("[year]-[month]-[day]")).map_err(|_| bad())?;
            date.midnight().assume_utc()
        }
    };
    if at <= now {
        return Err(DomainError::invalid(
            "expires_at",
            "expires_at must be in the future",
        ));
    }
    if at > now + MAX_DIFF_TTL {
        return Err(DomainError::invalid(
            "expires_at",
            format!(
                "expires_at must be at most {} days ahead; use \"never\" for a diff that does not expire",
                MAX_DIFF_TTL.whole_days()
            ),
        ));
    }
    Ok(Some(at))
}

/// Everything `POST /diffs` needs from the outside world.
pub struct DiffDeps<'a> {
    /// Storage (blobs and diff records).
    pub store: &'a dyn Store,
    /// The engine.
    pub engine: &'a dyn DiffEngine,
    /// The hardened downloader.
    pub fetcher: &'a dyn DocumentFetcher,
}

/// The expiry of an anonymous diff: the one asked for, at most `max_life` from `now` (`"never"` is the ceiling).
pub fn clamp_expiry(
    requested: Option<OffsetDateTime>,
    now: OffsetDateTime,
    max_life: Duration,
) -> OffsetDateTime {
    let ceiling = now + max_life;
    requested.map_or(ceiling, |e| e.min(ceiling))
}

/// Creates a diff: checks the request, downloads URLs if asked, compares, stores the bundles and the results,
/// then the record. Nothing points at a part before the record is written, and the record is written last.
///
/// For an anonymous creator the expiry is clamped ([`clamp_expiry`]) and the parts are the diff's own, counted in
/// the anonymous quota before they are written (see [`DiffStore::reserve_anonymous`]). Errors beyond those of the
/// request: `Invalid` on `definition` when one diff needs more than the whole quota, and `Conflict(Stale)` when
/// the quota stayed full of diffs still being created through every attempt to make room (the caller should
/// answer "busy, retry").
pub async fn create_diff(
    deps: DiffDeps<'_>,
    mut input: DiffInput,
    creator: Creator,
    now: OffsetDateTime,
) -> Result<DiffRecord> {
    let source = source(&mut input)?;
    let requested = parse_expiry(input.expires_at.as_deref(), now)?;
    let (previous, current, from_urls) = match source {
        Source::Definitions(p, c) => (
            Bundle {
                definition: p,
                references: input.previous_references,
            },
            Bundle {
                definition: c,
                references: input.references,
            },
            false,
        ),
        Source::Urls(pu, cu) => {
            let p = deps.fetcher.fetch("previous_url", &pu).await?;
            let c = deps.fetcher.fetch("url", &cu).await?;
            (
                Bundle {
                    definition: p,
                    references: vec![],
                },
                Bundle {
                    definition: c,
                    references: vec![],
                },
                true,
            )
        }
    };
    let (previous, current) = (Arc::new(previous), Arc::new(current));
    match creator {
        Creator::Authenticated => {
            create_shared(deps, previous, current, from_urls, requested, now).await
        }
        Creator::Anonymous(limits) => {
            let expires_at = clamp_expiry(requested, now, limits.max_life);
            create_owned(deps, previous, current, from_urls, expires_at, limits, now).await
        }
    }
}

/// A diff whose parts are content-addressed blobs (a creator with a token).
async fn create_shared(
    deps: DiffDeps<'_>,
    previous: Arc<Bundle>,
    current: Arc<Bundle>,
    from_urls: bool,
    expires_at: Option<OffsetDateTime>,
    now: OffsetDateTime,
) -> Result<DiffRecord> {
    let retention = match expires_at {
        Some(t) => Retention::Until(t),
        None => Retention::Permanent,
    };
    // The two definitions are stored while the engine diffs them: once both have parsed (the parses take both
    // cores; the diff itself runs on one, and hashing and compressing the definitions on the other), and never if
    // either is refused. Until the comparison succeeds they are written to expire within the default life of a diff,
    // so a document refused later never leaves a permanent blob behind.
    let provisional = match retention {
        Retention::Until(t) if t <= now + DEFAULT_DIFF_TTL => retention,
        _ => Retention::Until(now + DEFAULT_DIFF_TTL),
    };
    let (parsed, both_parsed) = oneshot::channel();
    let store_both = || {
        futures_util::future::try_join(
            deps.store.put_bundle(&previous, provisional),
            deps.store.put_bundle(&current, provisional),
        )
    };
    let store_inputs = async {
        match both_parsed.await {
            Ok(()) => store_both().await.map(Some),
            // Not sent: the engine refused a bundle (its error, not this, ends the join), or it finished without
            // saying (then the two are stored after it).
            Err(oneshot::Canceled) => Ok(None),
        }
    };
    let (comparison, stored) = futures_util::future::try_join(
        deps.engine.compare(
            Arc::clone(&previous),
            Arc::clone(&current),
            from_urls,
            parsed,
        ),
        store_inputs,
    )
    .await?;
    let (previous_ref, current_ref) = match stored {
        Some(refs) => refs,
        None => store_both().await?,
    };
    if provisional != retention {
        // A longer life than the default: extend both (a permanent write drops the expiry).
        futures_util::future::try_join(
            deps.store.put_bundle(&previous, retention),
            deps.store.put_bundle(&current, retention),
        )
        .await?;
    }
    let result = rendered_bundle(&comparison)?;
    let result_ref = deps.store.put_bundle(&result, retention).await?;
    let record = DiffRecord {
        id: DiffId::new(),
        title: comparison.title,
        breaking: comparison.breaking,
        previous: previous_ref,
        current: current_ref,
        result: result_ref,
        expires_at,
        created_at: now,
        storage: DiffStorage::Shared,
    };
    deps.store.create_diff(&record).await?;
    Ok(record)
}

/// The renderings as the result part stores them.
fn rendered_bundle(comparison: &Comparison) -> Result<Bundle> {
    Ok(Bundle {
        definition: serde_json::to_string(&comparison.rendered).map_err(DomainError::unexpected)?,
        references: vec![],
    })
}

/// The two inputs of an anonymous diff, counted and written.
struct OwnedInputs {
    slot: AnonymousSlot,
    previous: BlobRef,
    current: BlobRef,
}

/// A diff that owns its parts (an anonymous creator). As for shared diffs, the two inputs are stored while the
/// engine diffs them, once both have parsed; here they are first counted: the slot is reserved with their bytes
/// (making room if the quota is full), then they are written. The renderings grow the slot before they are
/// written, and the record, written last with the end of the slot's lease, makes the diff visible. Any failure
/// after the reservation releases the slot and deletes what was written.
async fn create_owned(
    deps: DiffDeps<'_>,
    previous: Arc<Bundle>,
    current: Arc<Bundle>,
    from_urls: bool,
    expires_at: OffsetDateTime,
    limits: AnonymousLimits,
    now: OffsetDateTime,
) -> Result<DiffRecord> {
    let store = deps.store;
    let slot = AnonymousSlot {
        id: DiffId::new(),
        created_at: now,
        expires_at,
        bytes: 0,
        lease_until: Some(now + ANONYMOUS_LEASE),
    };
    let (parsed, both_parsed) = oneshot::channel();
    let store_inputs = async {
        match both_parsed.await {
            Ok(()) => store_owned_inputs(store, limits, &previous, &current, slot.clone(), now)
                .await
                .map(Some),
            Err(oneshot::Canceled) => Ok(None),
        }
    };
    // Both run to their end (not `try_join`): a slot reserved while the engine refuses a document is released
    // here, never left to count until its lease ends.
    let (comparison, stored) = futures_util::future::join(
        deps.engine.compare(
            Arc::clone(&previous),
            Arc::clone(&current),
            from_urls,
            parsed,
        ),
        store_inputs,
    )
    .await;
    let comparison = match comparison {
        Ok(c) => c,
        Err(e) => {
            if let Ok(Some(inputs)) = stored {
                release(store, &inputs.slot).await;
            }
            return Err(e);
        }
    };
    let mut inputs = match stored? {
        Some(inputs) => inputs,
        None => store_owned_inputs(store, limits, &previous, &current, slot, now).await?,
    };
    match finish_owned(store, limits, &mut inputs, comparison, now).await {
        Ok(record) => Ok(record),
        Err(e) => {
            release(store, &inputs.slot).await;
            Err(e)
        }
    }
}

/// Encodes the two inputs, reserves their bytes, and writes them (releasing the slot if a write fails).
async fn store_owned_inputs(
    store: &dyn Store,
    limits: AnonymousLimits,
    previous: &Bundle,
    current: &Bundle,
    mut slot: AnonymousSlot,
    now: OffsetDateTime,
) -> Result<OwnedInputs> {
    let (p, c) =
        futures_util::future::try_join(store.encode_bundle(previous), store.encode_bundle(current))
            .await?;
    slot.bytes =
        store.anonymous_fixed_bytes() + store.owned_part_bytes(&p) + store.owned_part_bytes(&c);
    sweep_expired(store, now).await?;
    reserve(store, limits, &slot, now).await?;
    let written = futures_util::future::try_join(
        store.put_owned_part(slot.id, DiffPart::Previous, &p, slot.expires_at),
        store.put_owned_part(slot.id, DiffPart::Current, &c, slot.expires_at),
    )
    .await;
    if let Err(e) = written {
        release(store, &slot).await;
        return Err(e);
    }
    Ok(OwnedInputs {
        slot,
        previous: p.blob,
        current: c.blob,
    })
}

/// Counts and writes the renderings, then commits the record.
async fn finish_owned(
    store: &dyn Store,
    limits: AnonymousLimits,
    inputs: &mut OwnedInputs,
    comparison: Comparison,
    now: OffsetDateTime,
) -> Result<DiffRecord> {
    let result = store.encode_bundle(&rendered_bundle(&comparison)?).await?;
    let total = inputs.slot.bytes + store.owned_part_bytes(&result) + comparison.title.len() as u64;
    grow(store, limits, &mut inputs.slot, total, now).await?;
    let slot = &inputs.slot;
    store
        .put_owned_part(slot.id, DiffPart::Result, &result, slot.expires_at)
        .await?;
    let record = DiffRecord {
        id: slot.id,
        title: comparison.title,
        breaking: comparison.breaking,
        previous: inputs.previous.clone(),
        current: inputs.current.clone(),
        result: result.blob,
        expires_at: Some(slot.expires_at),
        created_at: now,
        storage: DiffStorage::Owned { bytes: slot.bytes },
    };
    store.commit_anonymous(&record, slot).await?;
    Ok(record)
}

/// Gives up a slot of a creation that failed (its parts are deleted with it). Best effort: a slot that cannot be
/// released now still counts, and is removed when it expires or, its lease over, when the quota needs room.
async fn release(store: &dyn Store, slot: &AnonymousSlot) {
    if let Err(e) = store.remove_anonymous(slot).await {
        tracing::warn!(diff = %slot.id, error = %e, "an abandoned anonymous diff keeps its slot for now");
    }
}

fn too_big(bytes: u64, limits: AnonymousLimits) -> DomainError {
    DomainError::invalid(
        "definition",
        format!(
            "this diff needs {bytes} bytes of storage, more than all anonymous diffs may keep together \
             ({} bytes, SPECPRESS_ANONYMOUS_DIFF_QUOTA_BYTES); compare smaller documents, or ask the operator \
             to raise the quota",
            limits.quota_bytes
        ),
    )
}

/// The quota stayed full of diffs being created: the caller answers "busy, retry".
fn busy() -> DomainError {
    DomainError::Conflict(ConflictKind::Stale)
}

/// Reserves a new slot, making room as needed.
async fn reserve(
    store: &dyn Store,
    limits: AnonymousLimits,
    slot: &AnonymousSlot,
    now: OffsetDateTime,
) -> Result<()> {
    if slot.bytes > limits.quota_bytes {
        return Err(too_big(slot.bytes, limits));
    }
    for attempt in 0..ROOM_ATTEMPTS {
        if store.reserve_anonymous(slot, limits.quota_bytes).await? {
            return Ok(());
        }
        make_room(store, limits.quota_bytes, slot.bytes, now, attempt).await?;
    }
    Err(busy())
}

/// Grows a reserved slot to `bytes`, making room as needed.
async fn grow(
    store: &dyn Store,
    limits: AnonymousLimits,
    slot: &mut AnonymousSlot,
    bytes: u64,
    now: OffsetDateTime,
) -> Result<()> {
    if bytes > limits.quota_bytes {
        return Err(too_big(bytes, limits));
    }
    let added = bytes.saturating_sub(slot.bytes);
    for attempt in 0..ROOM_ATTEMPTS {
        if store
            .grow_anonymous(slot, bytes, limits.quota_bytes)
            .await?
        {
            slot.bytes = bytes;
            return Ok(());
        }
        make_room(store, limits.quota_bytes, added, now, attempt).await?;
    }
    Err(busy())
}

/// Removes a few expired anonymous diffs (their bytes leave the count).
async fn sweep_expired(store: &dyn Store, now: OffsetDateTime) -> Result<()> {
    for slot in store.expired_anonymous(now, SWEEP_PER_CREATION).await? {
        if slot.evictable(now) {
            store.remove_anonymous(&slot).await?;
        }
    }
    Ok(())
}

/// Frees at least `need` bytes below the quota if it can: expired diffs first (soonest expired first), then the
/// oldest diffs. Diffs still being created are skipped. When nothing could be freed (the quota is full of diffs
/// being created), waits a little before the caller's next attempt.
async fn make_room(
    store: &dyn Store,
    quota: u64,
    need: u64,
    now: OffsetDateTime,
    attempt: u32,
) -> Result<()> {
    let usage = store.anonymous_usage().await?;
    let mut excess = usage.saturating_add(need).saturating_sub(quota);
    if excess == 0 {
        // Room was made meanwhile (by another creation's eviction, or an expiry).
        return Ok(());
    }
    let mut freed = false;
    for slot in store.expired_anonymous(now, EVICTION_PAGE).await? {
        if excess == 0 {
            break;
        }
        if slot.evictable(now) && store.remove_anonymous(&slot).await? {
            excess = excess.saturating_sub(slot.bytes);
            freed = true;
        }
    }
    // Each page is read again from the oldest: slots removed (here or by a concurrent creation) are gone from it.
    for _ in 0..ROOM_ATTEMPTS {
        if excess == 0 {
            break;
        }
        let mut progressed = false;
        for slot in store.oldest_anonymous(EVICTION_PAGE).await? {
            if excess == 0 {
                break;
            }
            if !slot.evictable(now) {
                continue;
            }
            progressed = true;
            if store.remove_anonymous(&slot).await? {
                excess = excess.saturating_sub(slot.bytes);
                freed = true;
            }
        }
        if !progressed {
            break;
        }
    }
    if !freed {
        // Everything evictable is gone or being removed by others: give the diffs being created time to finish.
        let millis = (2u64 << attempt.min(6)).min(100);
        let jitter = rand::random::<u64>() % (millis / 2 + 1);
        tokio::time::sleep(std::time::Duration::from_millis(millis + jitter)).await;
    }
    Ok(())
}

/// A rendering `GET /diffs/{id}` can return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DiffFormat {
    /// `text`.
    Text,
    /// `markdown`.
    Markdown,
    /// `html`.
    Html,
    /// `json` (the `details` tree).
    Json,
}

/// Longest `formats` query value examined.
const MAX_FORMATS_LEN: usize = 200;

/// Parses the `formats` query values (`formats[]=a`, repeated `formats=a`, comma-separated `formats=a,b`);
/// defaults to text + markdown when none is given. Values are read exactly as given, like every query parameter:
/// anything but the four names in lower case (an empty value or part, a space, `TEXT`) is a `BadRequest` naming the
/// parameter and the allowed values.
pub fn parse_formats<'a>(values: impl IntoIterator<Item = &'a str>) -> Result<Vec<DiffFormat>> {
    let mut out: Vec<DiffFormat> = Vec::new();
    let mut seen_any = false;
    for value in values {
        if value.len() > MAX_FORMATS_LEN {
            return Err(DomainError::BadRequest("`formats` is too long".into()));
        }
        for part in value.split(',') {
            seen_any = true;
            let f = match part {
                "text" => DiffFormat::Text,
                "markdown" => DiffFormat::Markdown,
                "html" => DiffFormat::Html,
                "json" => DiffFormat::Json,
                _ => {
                    return Err(DomainError::BadRequest(format!(
                        "`formats` accepts text, markdown, html and json; got `{}`",
                        part.chars().take(40).collect::<String>()
                    )));
                }
            };
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    if !seen_any {
        out = vec![DiffFormat::Text, DiffFormat::Markdown];
    }
    Ok(out)
}

fn diff_not_found() -> DomainError {
    DomainError::NotFound("Diff not found".into())
}

fn missing_blob() -> DomainError {
    DomainError::unexpected("stored diff content missing")
}

/// A diff and its renderings.
#[derive(Debug, Clone)]
pub struct DiffView {
    /// The record.
    pub record: DiffRecord,
    /// The renderings.
    pub rendered: StoredRendered,
}

async fn load(store: &dyn Store, id: &str, now: OffsetDateTime) -> Result<DiffRecord> {
    let id = DiffId::parse(id.trim()).ok_or_else(diff_not_found)?;
    store.get_diff(id, now).await?.ok_or_else(diff_not_found)
}

/// One part of a live diff. An owned part that is missing belongs to a diff being evicted: the diff is gone (404).
/// A missing shared blob is a storage fault (500).
async fn part(store: &dyn Store, record: &DiffRecord, part: DiffPart) -> Result<Bundle> {
    match store.get_diff_part(record, part).await? {
        Some(bundle) => Ok(bundle),
        None => match record.storage {
            DiffStorage::Owned { .. } => Err(diff_not_found()),
            DiffStorage::Shared => Err(missing_blob()),
        },
    }
}

/// Reads a live diff and its renderings (`404 Diff not found` when unknown, expired or evicted).
pub async fn get_diff(store: &dyn Store, id: &str, now: OffsetDateTime) -> Result<DiffView> {
    let record = load(store, id, now).await?;
    let bundle = part(store, &record, DiffPart::Result).await?;
    Ok(DiffView {
        record,
        rendered: StoredRendered {
            json: bundle.definition,
        },
    })
}

/// Which side of a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffSide {
    /// `previous.json`.
    Previous,
    /// `current.json`.
    Current,
}

/// One of the two compared documents, as JSON (`previous.json` / `current.json`).
pub async fn diff_document(
    store: &dyn Store,
    engine: &dyn DiffEngine,
    id: &str,
    side: DiffSide,
    now: OffsetDateTime,
) -> Result<String> {
    let record = load(store, id, now).await?;
    let which = match side {
        DiffSide::Previous => DiffPart::Previous,
        DiffSide::Current => DiffPart::Current,
    };
    let bundle = part(store, &record, which).await?;
    engine.to_json(&bundle).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(pd: Option<&str>, d: Option<&str>, pu: Option<&str>, u: Option<&str>) -> DiffInput {
        DiffInput {
            previous_definition: pd.map(str::to_owned),
            definition: d.map(str::to_owned),
            previous_url: pu.map(str::to_owned),
            url: u.map(str::to_owned),
            ..DiffInput::default()
        }
    }

    fn field_of(r: Result<Source>) -> String {
        match r {
            Err(DomainError::Invalid { field, .. }) => field,
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[test]
    fn exactly_one_complete_pair_is_accepted() {
        assert_eq!(
            source(&mut input(Some("a"), Some("b"), None, None)).ok(),
            Some(Source::Definitions("a".into(), "b".into()))
        );
        assert_eq!(
            source(&mut input(
                None,
                None,
                Some("http://x/a"),
                Some("http://x/b")
            ))
            .ok(),
            Some(Source::Urls("http://x/a".into(), "http://x/b".into()))
        );
    }

    #[test]
    fn half_pairs_name_the_missing_field() {
        assert_eq!(
            field_of(source(&mut input(None, Some("b"), None, None))),
            "previous_definition"
        );
        assert_eq!(
            field_of(source(&mut input(Some("a"), None, None, None))),
            "definition"
        );
        assert_eq!(
            field_of(source(&mut input(Some("a"), Some("  "), None, None))),
            "definition"
        );
        assert_eq!(
            field_of(source(&mut input(None, None, None, Some("u")))),
            "previous_url"
        );
        assert_eq!(
            field_of(source(&mut input(None, None, Some("u"), None))),
            "url"
        );
    }

    #[test]
    fn neither_or_both_pairs_are_refused() {
        assert_eq!(
            field_of(source(&mut input(None, None, None, None))),
            "definition"
        );
        assert_eq!(
            field_of(source(&mut input(
                Some("a"),
                Some("b"),
                Some("u"),
                Some("v")
            ))),
            "url"
        );
        assert_eq!(
            field_of(source(&mut input(Some("a"), None, None, Some("v")))),
            "url"
        );
    }

    #[test]
    fn expiry_defaults_to_one_day_and_accepts_never_dates_and_datetimes() {
        let now = OffsetDateTime::from_unix_timestamp(1_900_000_000).expect("valid");
        assert_eq!(
            parse_expiry(None, now).ok(),
            Some(Some(now + Duration::days(1)))
        );
        assert_eq!(
            parse_expiry(Some(""), now).ok(),
            Some(Some(now + Duration::days(1)))
        );
        assert_eq!(parse_expiry(Some("never"), now).ok(), Some(None));
        let t = parse_expiry(Some("2030-06-01T10:00:00+02:00"), now)
            .ok()
            .flatten()
            .expect("date-time");
        assert_eq!(t.unix_timestamp(), 1_906_502_400 + 8 * 3600);
        let d = parse_expiry(Some("2030-06-01"), now)
            .ok()
            .flatten()
            .expect("date");
        assert_eq!(d.unix_timestamp(), 1_906_502_400);
    }

    #[test]
    fn expiry_in_the_past_or_malformed_is_refused() {
        let now = OffsetDateTime::from_unix_timestamp(1_900_000_000).expect("valid");
        for bad in [
            "2001-01-01T00:00:00Z",
            "yesterday",
            "2030-13-01",
            "3000-01-01",
        ] {
            assert!(
                matches!(parse_expiry(Some(bad), now), Err(DomainError::Invalid { ref field, .. }) if field == "expires_at"),
                "{bad}"
            );
        }
    }

    #[test]
    fn an_anonymous_expiry_is_clamped_to_the_ceiling_and_a_shorter_one_is_kept() {
        let now = OffsetDateTime::from_unix_timestamp(1_900_000_000).expect("valid");
        let max = Duration::days(30);
        assert_eq!(clamp_expiry(None, now, max), now + max, "never");
        assert_eq!(
            clamp_expiry(Some(now + Duration::days(400)), now, max),
            now + max
        );
        assert_eq!(
            clamp_expiry(Some(now + Duration::days(2)), now, max),
            now + Duration::days(2)
        );
    }

    #[test]
    fn a_slot_is_evictable_once_complete_or_once_its_lease_is_over() {
        let now = OffsetDateTime::from_unix_timestamp(1_900_000_000).expect("valid");
        let slot = |lease_until| AnonymousSlot {
            id: DiffId::new(),
            created_at: now,
            expires_at: now + Duration::days(1),
            bytes: 1,
            lease_until,
        };
        assert!(slot(None).evictable(now));
        assert!(!slot(Some(now + Duration::seconds(1))).evictable(now));
        assert!(slot(Some(now)).evictable(now));
    }

    #[test]
    fn formats_accept_arrays_repeats_and_commas() {
        assert_eq!(
            parse_formats([]).ok(),
            Some(vec![DiffFormat::Text, DiffFormat::Markdown])
        );
        assert_eq!(parse_formats(["json"]).ok(), Some(vec![DiffFormat::Json]));
        assert_eq!(
            parse_formats(["html", "text,json", "text"]).ok(),
            Some(vec![DiffFormat::Html, DiffFormat::Text, DiffFormat::Json])
        );
        assert!(
            matches!(parse_formats(["pdf"]), Err(DomainError::BadRequest(m)) if m.contains("formats"))
        );
    }

    #[test]
    fn formats_are_read_exactly_as_given() {
        for bad in ["", "text,", ",text", "text,,html", " text", "TEXT", "Html"] {
            assert!(
                matches!(parse_formats([bad]), Err(DomainError::BadRequest(ref m)) if m.contains("formats")),
                "{bad:?}"
            );
        }
    }
}

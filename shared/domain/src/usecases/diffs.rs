//! Public diffs: `POST /diffs`, `GET /diffs/{id}`, `GET /diffs/{id}/previous.json` and `/current.json`
//! (bump-api.md §3.6, §3.7, §5).
//!
//! A diff is computed synchronously when it is created (the engine is fast), so `GET /diffs/{id}` never answers
//! 202. Three content-addressed blobs are stored: the previous and current bundles exactly as received (or as
//! downloaded), and the rendered results (`text`, `markdown`, `html`, `details`). The `DIFF#<id>` item points at
//! them and carries the summary (`title`, `breaking`) and the expiry (TTL, and checked on every read).

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::fmt;
use std::sync::Arc;

use futures_channel::oneshot;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, Duration, OffsetDateTime};
use uuid::Uuid;

use crate::error::{DomainError, Result};
use crate::model::{BlobRef, Bundle, Reference, Retention};
use crate::ports::Store;

/// Life of a diff when `expires_at` is absent (bump-api.md §3.6: "defaults to 1 day").
pub const DEFAULT_DIFF_TTL: Duration = Duration::days(1);
/// Longest accepted `expires_at` in the future; beyond that, use `"never"`.
pub const MAX_DIFF_TTL: Duration = Duration::days(3660);

/// Diff id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DiffId(pub Uuid);

impl DiffId {
    /// A fresh random id.
    pub fn new() -> Self {
        Self(Uuid::new_v4())
    }
    /// Parses a UUID; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        Uuid::try_parse(s).ok().map(Self)
    }
}

impl Default for DiffId {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for DiffId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.hyphenated().fmt(f)
    }
}

/// A stored public diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffRecord {
    /// Id.
    pub id: DiffId,
    /// `info.title` of the current definition.
    pub title: String,
    /// Any breaking change.
    pub breaking: bool,
    /// The previous bundle.
    pub previous: BlobRef,
    /// The current bundle.
    pub current: BlobRef,
    /// The rendered results ([`Rendered`] as JSON in a bundle's `definition`).
    pub result: BlobRef,
    /// Expiry; `None` for `"never"`.
    pub expires_at: Option<OffsetDateTime>,
    /// Creation time.
    pub created_at: OffsetDateTime,
}

impl DiffRecord {
    /// True once past its expiry (TTL deletion is lazy, so reads must check).
    pub fn is_expired(&self, now: OffsetDateTime) -> bool {
        self.expires_at.is_some_and(|e| e <= now)
    }
}

/// Every rendering of one diff, as the engine produces them and as they are stored (their JSON is the result
/// blob's `definition`). Each is already JSON: the engine serializes them on its rendering threads, and they are
/// stored and served without being parsed or escaped again.
#[derive(Debug, Clone, Serialize)]
pub struct Rendered {
    /// `Modified: GET /x` lines (a JSON string).
    pub text: Box<RawValue>,
    /// Pull-request comment (a JSON string).
    pub markdown: Box<RawValue>,
    /// HTML fragment (a JSON string).
    pub html: Box<RawValue>,
    /// Bump.sh `DiffItem[]` tree.
    pub details: Box<RawValue>,
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

/// What the engine found when comparing two bundles.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// `info.title` of the current definition.
    pub title: String,
    /// Any breaking change.
    pub breaking: bool,
    /// Renderings.
    pub rendered: Rendered,
}

/// The diff engine as the diff use cases need it (implemented over `specpress-spec` + `specpress-diff`, off the
/// async executor).
#[async_trait]
pub trait DiffEngine: Send + Sync {
    /// Parses both bundles and diffs them. An unparseable bundle is `Invalid` with field `previous_definition` or
    /// `definition` (`previous_url`/`url` when `from_urls`) and the engine's located messages. The bundles are shared,
    /// not copied: the engine runs on other threads while the caller stores them. `parsed` is sent once both bundles
    /// have parsed (and dropped unsent if either does not).
    async fn compare(
        &self,
        previous: Arc<Bundle>,
        current: Arc<Bundle>,
        from_urls: bool,
        parsed: oneshot::Sender<()>,
    ) -> Result<Comparison>;
    /// The document as JSON text (references kept as `$ref`s), for `previous.json`/`current.json`.
    async fn to_json(&self, bundle: &Bundle) -> Result<String>;
}

/// Downloads a definition for URL comparisons through the hardened HTTP client.
#[async_trait]
pub trait DocumentFetcher: Send + Sync {
    /// The body of `url`. A refused or failed download is `Invalid` on `field` with a message that says why
    /// without internal detail.
    async fn fetch(&self, field: &str, url: &str) -> Result<String>;
}

/// Storage of diff records.
#[async_trait]
pub trait DiffStore: Send + Sync {
    /// Writes a new diff record (its blobs are written first). `Conflict(AlreadyExists)` on an id collision.
    async fn create_diff(&self, diff: &DiffRecord) -> Result<()>;
    /// Reads a diff; `None` when absent or expired at `now`.
    async fn get_diff(&self, id: DiffId, now: OffsetDateTime) -> Result<Option<DiffRecord>>;
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

/// Creates a diff: checks the request, downloads URLs if asked, compares, stores the bundles and the results,
/// then the record. Nothing points at a blob before the record is written, and the record is written last.
pub async fn create_diff(
    deps: DiffDeps<'_>,
    mut input: DiffInput,
    now: OffsetDateTime,
) -> Result<DiffRecord> {
    let source = source(&mut input)?;
    let expires_at = parse_expiry(input.expires_at.as_deref(), now)?;
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
    let (previous, current) = (Arc::new(previous), Arc::new(current));
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
    let result_text =
        serde_json::to_string(&comparison.rendered).map_err(DomainError::unexpected)?;
    let result = Bundle {
        definition: result_text,
        references: vec![],
    };
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
    };
    deps.store.create_diff(&record).await?;
    Ok(record)
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
/// defaults to text + markdown. Unknown values are a `BadRequest` naming the parameter and the allowed values.
pub fn parse_formats<'a>(values: impl IntoIterator<Item = &'a str>) -> Result<Vec<DiffFormat>> {
    let mut out: Vec<DiffFormat> = Vec::new();
    let mut seen_any = false;
    for value in values {
        if value.len() > MAX_FORMATS_LEN {
            return Err(DomainError::BadRequest("`formats` is too long".into()));
        }
        for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            seen_any = true;
            let f = match part.to_ascii_lowercase().as_str() {
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

/// Reads a live diff and its renderings (`404 Diff not found` when unknown or expired).
pub async fn get_diff(store: &dyn Store, id: &str, now: OffsetDateTime) -> Result<DiffView> {
    let record = load(store, id, now).await?;
    let bundle = store
        .get_bundle(&record.result)
        .await?
        .ok_or_else(missing_blob)?;
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
    let blob = match side {
        DiffSide::Previous => &record.previous,
        DiffSide::Current => &record.current,
    };
    let bundle = store.get_bundle(blob).await?.ok_or_else(missing_blob)?;
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
}

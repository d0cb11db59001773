//! Item conversion of the adapter, hand-written against `serde_dynamo`: `cargo bench -p specpress-store-dynamodb
//! --bench items` (env `BENCH_ITEMS`, conversions per round, default 100,000; `BENCH_ROUNDS`, default 7).
//!
//! The version item is the one every deploy writes and every history, changelog and page read decodes. The bench
//! builds the same item both ways (the serde record declares the layout of docs/storage.md field by field, the
//! derived attributes included), checks the two items are equal, then times each direction, the two ways
//! interleaved round by round, and prints the median nanoseconds per conversion.

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Instant;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};
use specpress_domain::model::*;
use specpress_store_dynamodb::items;
use time::OffsetDateTime;

/// The version item as a serde record: the same attributes, names and types as [`items::version_item`]. Written
/// from borrowed strings (`S = &str`, no copy before the item's own), read into owned ones.
#[derive(Serialize, Deserialize)]
struct VersionRecord<S> {
    pk: String,
    sk: String,
    id: uuid::Uuid,
    org_id: uuid::Uuid,
    doc_id: uuid::Uuid,
    branch: S,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seq: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gsi1pk: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gsi1sk: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    generation: Option<uuid::Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    previous_version_id: Option<uuid::Uuid>,
    blob_sha256: S,
    blob_size: u64,
    specification: S,
    title: S,
    api_version: S,
    fingerprint: S,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<S>,
    temporary: bool,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::serde::rfc3339::option"
    )]
    expires_at: Option<OffsetDateTime>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ttl: Option<i64>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
}

fn record_of(v: &Version, generation: Option<BranchGeneration>) -> VersionRecord<&str> {
    VersionRecord {
        pk: items::version_pk(v.id),
        sk: items::VERSION_SK.to_owned(),
        id: v.id.0,
        org_id: v.org_id.0,
        doc_id: v.doc_id.0,
        branch: v.branch.as_str(),
        seq: v.seq,
        gsi1pk: v
            .seq
            .map(|_| items::history_pk(v.doc_id, &v.branch, generation)),
        gsi1sk: v.seq.map(items::history_sk),
        generation: v.seq.and(generation).map(|g| g.0),
        previous_version_id: v.previous_version_id.map(|p| p.0),
        blob_sha256: &v.blob.sha256,
        blob_size: v.blob.size,
        specification: &v.analysis.specification,
        title: &v.analysis.title,
        api_version: &v.analysis.api_version,
        fingerprint: &v.analysis.fingerprint,
        description: v.analysis.description.as_deref(),
        temporary: v.temporary,
        expires_at: v.expires_at,
        ttl: v.expires_at.map(items::epoch),
        created_at: v.created_at,
    }
}

fn version_of(r: VersionRecord<String>) -> Version {
    Version {
        id: VersionId(r.id),
        org_id: OrgId(r.org_id),
        doc_id: DocId(r.doc_id),
        branch: Slug::parse(&r.branch).expect("stored slug"),
        seq: r.seq,
        previous_version_id: r.previous_version_id.map(VersionId),
        blob: BlobRef {
            sha256: r.blob_sha256,
            size: r.blob_size,
        },
        analysis: Analysis {
            specification: r.specification,
            title: r.title,
            api_version: r.api_version,
            fingerprint: r.fingerprint,
            description: r.description,
        },
        temporary: r.temporary,
        expires_at: r.expires_at,
        created_at: r.created_at,
    }
}

fn sample() -> (Version, Option<BranchGeneration>) {
    let now = OffsetDateTime::from_unix_timestamp(1_795_000_000).expect("time");
    let v = Version {
        id: VersionId(uuid::Uuid::from_u128(1)),
        org_id: OrgId(uuid::Uuid::from_u128(2)),
        doc_id: DocId(uuid::Uuid::from_u128(3)),
        branch: Slug::parse("main").expect("slug"),
        seq: Some(42),
        previous_version_id: Some(VersionId(uuid::Uuid::from_u128(4))),
        blob: BlobRef {
            sha256: "ab".repeat(32),
            size: 13_000_000,
        },
        analysis: Analysis {
            specification: "openapi/v3/json".to_owned(),
            title: "GitHub v3 REST API".to_owned(),
            api_version: "1.1.4".to_owned(),
            fingerprint: "cd".repeat(32),
            description: Some("GitHub's v3 REST API. ".repeat(40)),
        },
        temporary: false,
        expires_at: None,
        created_at: now,
    };
    (v, Some(BranchGeneration(uuid::Uuid::from_u128(5))))
}

fn time_per_op(n: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed().as_nanos() as f64 / n as f64
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let n: usize = std::env::var("BENCH_ITEMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let rounds: usize = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let (v, generation) = sample();
    let by_hand = items::version_item(&v, generation);
    let by_serde: HashMap<String, AttributeValue> =
        serde_dynamo::to_item(record_of(&v, generation)).expect("serializes");
    assert_eq!(
        by_hand, by_serde,
        "the serde record must give the same item"
    );
    let back: VersionRecord<String> =
        serde_dynamo::from_item(by_hand.clone()).expect("deserializes");
    assert_eq!(version_of(back), v);
    assert_eq!(items::version_from(&by_hand).expect("decodes"), v);

    let (mut hand_w, mut serde_w, mut hand_r, mut serde_r, mut clone) =
        (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        hand_w.push(time_per_op(n, || {
            black_box(items::version_item(black_box(&v), generation));
        }));
        serde_w.push(time_per_op(n, || {
            let item: HashMap<String, AttributeValue> =
                serde_dynamo::to_item(record_of(black_box(&v), generation)).expect("serializes");
            black_box(item);
        }));
        hand_r.push(time_per_op(n, || {
            black_box(items::version_from(black_box(&by_hand)).expect("decodes"));
        }));
        serde_r.push(time_per_op(n, || {
            let r: VersionRecord<String> =
                serde_dynamo::from_item(black_box(&by_hand).clone()).expect("deserializes");
            black_box(version_of(r));
        }));
        // serde_dynamo reads an owned item (the SDK hands one over): the clone above is timed alone and taken off.
        clone.push(time_per_op(n, || {
            black_box(black_box(&by_hand).clone());
        }));
    }
    let (hw, sw, hr) = (median(hand_w), median(serde_w), median(hand_r));
    let (sr_total, cl) = (median(serde_r), median(clone));
    let sr = sr_total - cl;
    println!(
        "version item, {n} conversions x {rounds} interleaved rounds, median ns per conversion:"
    );
    println!(
        "  to item:   hand-written {hw:>8.0}   serde_dynamo {sw:>8.0}   ratio {:.2}",
        sw / hw
    );
    println!(
        "  from item: hand-written {hr:>8.0}   serde_dynamo {sr:>8.0}   ratio {:.2}   (serde_dynamo {sr_total:.0} with \
         the owned copy it reads, {cl:.0} for the copy alone)",
        sr / hr
    );
}

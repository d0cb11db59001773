//! Fuzz parse + resolve + validate (and everything a consumer does next: the model, following
//! refs, the fingerprint, the JSON download). Run from `shared/apispec/fuzz`:
//! `cargo +nightly fuzz run parse_resolve_validate -- -max_len=65536`.
//!
//! The input is split at the first `0xFF` byte (never valid UTF-8): before it the definition,
//! after it the content of one reference located at `ref.yaml`, so multi-file resolution is
//! fuzzed too. Budgets are tightened so each run stays fast.
#![no_main]

use libfuzzer_sys::fuzz_target;
use specpress_apispec::{Limits, Location, Reference};

fuzz_target!(|data: &[u8]| {
    let (definition, reference) = match data.iter().position(|&b| b == 0xFF) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let references: Vec<Reference> = reference
        .and_then(|r| std::str::from_utf8(r).ok())
        .map(|content| vec![Reference { location: "ref.yaml".into(), content: content.into(), name: None }])
        .unwrap_or_default();
    let limits = Limits {
        max_bytes: 1 << 20,
        max_nodes: 100_000,
        allow_aliases: definition.first().is_some_and(|b| b & 1 == 1),
        max_aliases: 64,
        ..Limits::default()
    };
    let Ok(doc) = specpress_apispec::parse_bytes(definition, &references, &limits) else { return };
    let diagnostics = doc.validate();
    for d in &diagnostics {
        assert!(!d.message.is_empty());
    }
    let model = doc.model();
    for op in model.operations.values() {
        for p in &op.parameters {
            if let Some(s) = &p.schema {
                let _ = doc.resolve(s);
            }
        }
        for r in op.responses.values() {
            for m in r.content.values() {
                if let Some(s) = &m.schema {
                    let _ = doc.resolve(s);
                }
            }
        }
    }
    for loc in model.schemas.values() {
        let _ = doc.resolve(loc);
    }
    let _ = doc.resolve(&Location::root(specpress_apispec::FileId::ROOT));
    let _ = doc.fingerprint();
    let json = doc.to_json();
    // The JSON download parses back to the same content.
    if let Ok(again) = specpress_apispec::parse(&json, &references, &limits) {
        assert_eq!(again.fingerprint(), doc.fingerprint());
    }
});

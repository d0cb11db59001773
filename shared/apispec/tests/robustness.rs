//! Deterministic mutation smoke test (a cheap stand-in for the cargo-fuzz target in CI): small
//! valid documents of each family are damaged thousands of ways (bytes flipped, cut, repeated,
//! structural characters inserted) and every result must come back as a document or a list of
//! diagnostics, never a panic; when a document comes back, the whole consumer API is exercised.

mod common;

use common::Rng;
use specpress_apispec::{Limits, Reference, parse_bytes};

const SEEDS: [&str; 4] = [
    "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /a/{id}:\n    parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n    get:\n      operationId: g\n      responses:\n        '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/A'}}}}\ncomponents:\n  schemas:\n    A: {type: object, properties: {b: {$ref: '#/components/schemas/A'}}}\n",
    r##"{"swagger":"2.0","info":{"title":"T","version":"1"},"consumes":["application/json"],"paths":{"/p":{"post":{"parameters":[{"name":"body","in":"body","schema":{"$ref":"#/definitions/D"}},{"name":"f","in":"formData","type":"string"}],"responses":{"200":{"description":"ok","schema":{"$ref":"ref.yaml#/X"}}}}}},"definitions":{"D":{"type":"object"}}}"##,
    "asyncapi: 2.6.0\ninfo: {title: T, version: '1'}\nchannels:\n  c/{x}:\n    parameters: {x: {schema: {type: string}}}\n    publish: {message: {payload: {type: string}}}\n    subscribe: {message: {oneOf: [{$ref: '#/components/messages/M'}]}}\ncomponents: {messages: {M: {payload: {type: integer}}}}\n",
    "asyncapi: 3.0.0\ninfo: {title: T, version: '1'}\nchannels:\n  c: {address: 'a/{x}', parameters: {x: {}}, messages: {m: {payload: {type: string}}}}\noperations:\n  o: {action: send, channel: {$ref: '#/channels/c'}, messages: [{$ref: '#/channels/c/messages/m'}]}\n",
];

const INSERTS: [&[u8]; 10] = [
    b"{",
    b"[",
    b"}",
    b"]",
    b":",
    b"&a ",
    b"*a",
    b"\"",
    b"$ref: '#/'",
    b"\n  - ",
];

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(5) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] = rng.next() as u8;
            }
            1 => v.truncate(at),
            2 => {
                let end = (at + rng.below(40)).min(v.len());
                let chunk = v[at.min(end)..end].to_vec();
                for _ in 0..rng.below(8) {
                    v.splice(at..at, chunk.iter().copied());
                }
            }
            3 => {
                let ins = INSERTS[rng.below(INSERTS.len())];
                v.splice(at..at, ins.iter().copied());
            }
            _ => {
                let end = (at + rng.below(20)).min(v.len());
                v.drain(at.min(end)..end);
            }
        }
    }
    v
}

#[test]
fn mutated_documents_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let limits = Limits {
        allow_aliases: true,
        max_aliases: 16,
        max_nodes: 50_000,
        ..Limits::default()
    };
    let reference = [Reference {
        location: "ref.yaml".into(),
        content: "X: {type: string}\n".into(),
        name: None,
    }];
    let (mut ok, mut invalid) = (0usize, 0usize);
    for round in 0..4000 {
        let seed = SEEDS[round % SEEDS.len()].as_bytes();
        let input = mutate(&mut rng, seed);
        match parse_bytes(&input, &reference, &limits) {
            Ok(doc) => {
                ok += 1;
                for d in doc.validate() {
                    assert!(!d.message.is_empty() && !d.code.is_empty());
                }
                for op in doc.model().operations.values() {
                    let _ = doc.resolve(&op.source);
                }
                let _ = doc.fingerprint_hex();
                let _ = doc.to_json();
            }
            Err(e) => {
                invalid += 1;
                assert!(!e.diagnostics.is_empty());
                assert!(e.diagnostics.len() <= limits.max_errors);
                let _ = e.to_string();
            }
        }
    }
    // Both outcomes are exercised.
    assert!(ok > 100 && invalid > 100, "ok={ok} invalid={invalid}");
}

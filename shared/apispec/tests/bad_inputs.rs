//! Hostile and broken inputs: each one gives a clear error (a stable code, a message naming
//! the problem), never a panic, never unbounded time or memory (the budgets stop them).

use specpress_apispec::{
    Arr, Diagnostic, Invalid, Limits, Reference, V, check, parse, parse_bytes,
};

const HEAD_YAML: &str = "openapi: 3.0.3\ninfo:\n  title: T\n  version: '1'\npaths: {}\n";

fn err(r: Result<specpress_apispec::Document, Invalid>) -> Vec<Diagnostic> {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => {
            assert!(!e.diagnostics.is_empty());
            for d in &e.diagnostics {
                assert!(!d.message.is_empty());
            }
            e.diagnostics
        }
    }
}

fn first_code(r: Result<specpress_apispec::Document, Invalid>) -> (&'static str, Diagnostic) {
    let d = err(r).remove(0);
    (d.code, d)
}

fn openapi_json_with(components: &str) -> String {
    format!(
        r#"{{"openapi":"3.0.3","info":{{"title":"T","version":"1"}},"paths":{{}},"components":{{"schemas":{components}}}}}"#
    )
}

fn alias_bomb() -> String {
    let mut s = String::from(
        "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths: {}\nx-bomb:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        let refs = vec![format!("*{}", w[0]); 9].join(",");
        s.push_str(&format!("  {}: &{} [{refs}]\n", w[1], w[1]));
    }
    s
}

#[test]
fn yaml_alias_bomb_is_refused_by_default() {
    let (code, d) = first_code(parse(&alias_bomb(), &[], &Limits::default()));
    assert_eq!(code, "yaml-alias");
    assert!(d.line.is_some() && d.column.is_some());
}

#[test]
fn yaml_alias_bomb_hits_the_node_budget_when_aliases_are_allowed() {
    let limits = Limits {
        allow_aliases: true,
        max_aliases: 1000,
        ..Limits::default()
    };
    let (code, d) = first_code(parse(&alias_bomb(), &[], &limits));
    assert_eq!(code, "too-many-nodes", "{d}");
    // A modest use of aliases is fine when allowed.
    let ok = format!("{HEAD_YAML}x-a: &x {{k: v}}\nx-b: *x\n");
    let doc = parse(&ok, &[], &limits).expect("aliases allowed");
    assert_eq!(doc.root().pointer("/x-b/k").and_then(V::as_str), Some("v"));
}

#[test]
fn yaml_alias_count_is_capped() {
    let limits = Limits {
        allow_aliases: true,
        max_aliases: 2,
        ..Limits::default()
    };
    let text = format!("{HEAD_YAML}x-a: &x 1\nx-b: [*x, *x, *x]\n");
    assert_eq!(first_code(parse(&text, &[], &limits)).0, "too-many-aliases");
}

#[test]
fn nesting_100k_deep_sequences_fails_fast_without_stack_overflow() {
    let yaml = "[".repeat(100_000);
    assert_eq!(
        first_code(parse(&yaml, &[], &Limits::default())).0,
        "too-deep"
    );
    let json = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(
        first_code(parse(&json, &[], &Limits::default())).0,
        "too-deep"
    );
    let block = (0..100_000)
        .map(|i| format!("{}-", " ".repeat(i % 50)))
        .collect::<Vec<_>>()
        .join("\n");
    let _ = parse(&block, &[], &Limits::default()); // any error is fine; no panic
}

#[test]
fn nesting_100k_deep_mappings_fails_fast_without_stack_overflow() {
    let yaml = format!("{}1{}", "{a: ".repeat(100_000), "}".repeat(100_000));
    assert_eq!(
        first_code(parse(&yaml, &[], &Limits::default())).0,
        "too-deep"
    );
    let json = format!("{}1{}", r#"{"a":"#.repeat(100_000), "}".repeat(100_000));
    assert_eq!(
        first_code(parse(&json, &[], &Limits::default())).0,
        "too-deep"
    );
    let block: String = (0..100_000)
        .map(|i| format!("{}a:\n", " ".repeat(i)))
        .take(2000)
        .collect();
    assert_eq!(
        first_code(parse(&block, &[], &Limits::default())).0,
        "too-deep"
    );
}

#[test]
fn ref_self_cycle_is_an_error() {
    let doc = openapi_json_with(r##"{"A":{"$ref":"#/components/schemas/A"}}"##);
    let (code, d) = first_code(parse(&doc, &[], &Limits::default()));
    assert_eq!(code, "ref-cycle", "{d}");
    assert_eq!(d.pointer, "/components/schemas/A/$ref");
    assert!(d.line.is_some());
}

#[test]
fn ref_mutual_cycle_is_an_error() {
    let doc = openapi_json_with(
        r##"{"A":{"$ref":"#/components/schemas/B"},"B":{"$ref":"#/components/schemas/A"}}"##,
    );
    let ds = err(parse(&doc, &[], &Limits::default()));
    assert!(ds.iter().all(|d| d.code == "ref-cycle"), "{ds:?}");
    assert!(ds[0].message.contains("/components/schemas/B"));
}

#[test]
fn a_cycle_through_a_real_schema_is_legal() {
    let doc = openapi_json_with(
        r##"{"Node":{"type":"object","properties":{"next":{"$ref":"#/components/schemas/Node"},"kids":{"type":"array","items":{"$ref":"#/components/schemas/Node"}}}}}"##,
    );
    let d = check(&doc, &[], &Limits::default()).expect("recursive schemas are legal");
    assert!(d.model().schemas.contains_key("Node"));
}

fn chain(n: usize) -> String {
    let mut parts: Vec<String> = (0..n)
        .map(|i| format!(r##""S{i}":{{"$ref":"#/components/schemas/S{}"}}"##, i + 1))
        .collect();
    parts.push(format!(r#""S{n}":{{"type":"string"}}"#));
    openapi_json_with(&format!("{{{}}}", parts.join(",")))
}

#[test]
fn ref_chain_longer_than_64_hops_is_an_error() {
    let (code, d) = first_code(parse(&chain(65), &[], &Limits::default()));
    assert_eq!(code, "ref-chain-too-long", "{d}");
    let doc = parse(&chain(63), &[], &Limits::default()).expect("63 hops are within the budget");
    let (loc, v) = doc
        .resolve(
            &specpress_apispec::Location::root(specpress_apispec::FileId::ROOT)
                .child("components")
                .child("schemas")
                .child("S0"),
        )
        .unwrap();
    assert_eq!(loc.pointer, "/components/schemas/S63");
    assert_eq!(v.get("type").and_then(V::as_str), Some("string"));
}

#[test]
fn ref_fan_out_bomb_is_not_expanded() {
    // Level k holds ten refs to level k-1: fully inlined this would be 10^12 nodes.
    let mut parts = vec![r#""L0":{"type":"string"}"#.to_string()];
    for k in 1..=12 {
        let items =
            vec![format!(r##"{{"$ref":"#/components/schemas/L{}"}}"##, k - 1); 10].join(",");
        parts.push(format!(
            r#""L{k}":{{"type":"array","prefixItems":[{items}],"items":false}}"#
        ));
    }
    let text = openapi_json_with(&format!("{{{}}}", parts.join(","))).replace("3.0.3", "3.1.0");
    let doc =
        check(&text, &[], &Limits::default()).expect("a fan-out of refs is legal and stays refs");
    assert!(doc.to_json().len() < 10_000);
    // The same shape in AsyncAPI 2.x (whose schema validation inlines refs) stays bounded too.
    let mut parts = vec![r#""L0":{"type":"string"}"#.to_string()];
    for k in 1..=12 {
        let items =
            vec![format!(r##"{{"$ref":"#/components/schemas/L{}"}}"##, k - 1); 10].join(",");
        parts.push(format!(r#""L{k}":{{"type":"array","items":[{items}]}}"#));
    }
    let text = format!(
        r#"{{"asyncapi":"2.6.0","info":{{"title":"T","version":"1"}},"channels":{{}},"components":{{"schemas":{{{}}}}}}}"#,
        parts.join(",")
    );
    let doc = parse(&text, &[], &Limits::default()).expect("parses");
    let _ = doc.validate();
}

fn with_ref(r: &str) -> String {
    format!(
        r#"{{"openapi":"3.0.3","info":{{"title":"T","version":"1"}},"paths":{{}},"components":{{"schemas":{{"A":{{"$ref":"{r}"}}}}}}}}"#
    )
}

#[test]
fn ref_to_cloud_metadata_url_is_never_fetched() {
    let (code, d) = first_code(parse(
        &with_ref("http://169.254.169.254/latest/meta-data/"),
        &[],
        &Limits::default(),
    ));
    assert_eq!(code, "unresolved-ref");
    assert!(d.message.contains("never fetches"), "{d}");
    assert_eq!(d.pointer, "/components/schemas/A/$ref");
}

#[test]
fn ref_to_file_url_is_forbidden() {
    let (code, d) = first_code(parse(
        &with_ref("file:///proc/self/environ"),
        &[],
        &Limits::default(),
    ));
    assert_eq!(code, "forbidden-ref");
    assert!(d.message.contains("file:"), "{d}");
}

#[test]
fn ref_to_network_path_is_forbidden() {
    let (code, _) = first_code(parse(
        &with_ref("//evil.example/x.yaml"),
        &[],
        &Limits::default(),
    ));
    assert_eq!(code, "forbidden-ref");
}

#[test]
fn ref_escaping_the_root_or_absolute_is_forbidden() {
    for r in [
        "../../etc/passwd",
        "%2e%2e/x.yaml",
        "/etc/passwd",
        "C:\\\\x.yaml",
    ] {
        let (code, d) = first_code(parse(&with_ref(r), &[], &Limits::default()));
        assert_eq!(code, "forbidden-ref", "{r}: {d}");
    }
}

fn with_reference(location: &str) -> Result<specpress_apispec::Document, Invalid> {
    let refs = [Reference {
        location: location.to_string(),
        content: "type: string\n".to_string(),
        name: None,
    }];
    parse(&with_ref("a.yaml"), &refs, &Limits::default())
}

#[test]
fn reference_location_traversal_is_refused() {
    let (code, d) = first_code(with_reference("../../etc/passwd"));
    assert_eq!(code, "bad-reference-location");
    assert_eq!(d.pointer, "/references/0/location");
    assert!(d.message.contains("climb"), "{d}");
}

#[test]
fn reference_location_percent_encoded_traversal_is_refused() {
    assert_eq!(
        first_code(with_reference("%2e%2e/a.yaml")).0,
        "bad-reference-location"
    );
    assert_eq!(
        first_code(with_reference("..%2fa.yaml")).0,
        "bad-reference-location"
    );
    assert_eq!(
        first_code(with_reference("a\\..\\..\\b")).0,
        "bad-reference-location"
    );
}

#[test]
fn reference_location_absolute_path_is_refused() {
    assert_eq!(
        first_code(with_reference("/abs.yaml")).0,
        "bad-reference-location"
    );
}

#[test]
fn reference_location_windows_drive_is_refused() {
    let (code, d) = first_code(with_reference("C:\\x"));
    assert_eq!(code, "bad-reference-location");
    assert!(d.message.contains("Windows"), "{d}");
}

#[test]
fn reference_location_with_nul_byte_is_refused() {
    let (code, d) = first_code(with_reference("a\0.yaml"));
    assert_eq!(code, "bad-reference-location");
    assert!(d.message.contains("NUL"), "{d}");
}

#[test]
fn reference_location_of_10k_characters_is_refused() {
    let long = format!("{}.yaml", "a".repeat(10_000));
    let (code, d) = first_code(with_reference(&long));
    assert_eq!(code, "bad-reference-location");
    assert!(d.message.len() < 400, "the message stays short");
}

#[test]
fn reference_location_with_backslashes_and_dot_slash_is_accepted() {
    let refs = [Reference {
        location: ".\\schemas\\a.yaml".into(),
        content: "type: string\n".into(),
        name: None,
    }];
    let doc =
        parse(&with_ref("./schemas/a.yaml"), &refs, &Limits::default()).expect("normalized match");
    assert_eq!(doc.file_count(), 2);
}

#[test]
fn invalid_utf8_is_refused_with_a_position() {
    let mut bytes = HEAD_YAML.as_bytes().to_vec();
    bytes.extend_from_slice(b"x-bad: \xff\xfe\n");
    let (code, d) = first_code(parse_bytes(&bytes, &[], &Limits::default()));
    assert_eq!(code, "encoding");
    assert_eq!(d.line, Some(6));
    // UTF-16 with a BOM is not UTF-8 either.
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("{}".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    assert_eq!(
        first_code(parse_bytes(&utf16, &[], &Limits::default())).0,
        "encoding"
    );
}

#[test]
fn lone_surrogate_is_refused() {
    let json = r#"{"openapi":"3.0.3","info":{"title":"\ud800","version":"1"},"paths":{}}"#;
    let (code, d) = first_code(parse(json, &[], &Limits::default()));
    assert_eq!(code, "syntax", "{d}");
    assert!(d.message.contains("surrogate"), "{d}");
    let yaml = "openapi: 3.0.3\ninfo:\n  title: \"\\ud800\"\n  version: '1'\npaths: {}\n";
    let (code, d) = first_code(parse(yaml, &[], &Limits::default()));
    assert_eq!(code, "syntax", "{d}");
}

#[test]
fn duplicate_keys_are_errors_with_location() {
    let json = "{\"openapi\":\"3.0.3\",\n\"info\":{\"title\":\"T\",\"version\":\"1\",\n\"title\":\"U\"},\"paths\":{}}";
    let (code, d) = first_code(parse(json, &[], &Limits::default()));
    assert_eq!(code, "duplicate-key");
    assert_eq!(d.pointer, "/info/title");
    assert_eq!(d.line, Some(3));
    let yaml = "openapi: 3.0.3\ninfo:\n  title: T\n  version: '1'\n  title: U\npaths: {}\n";
    let (code, d) = first_code(parse(yaml, &[], &Limits::default()));
    assert_eq!(code, "duplicate-key");
    assert_eq!(d.pointer, "/info/title");
    assert_eq!((d.line, d.column), (Some(5), Some(3)));
    assert!(d.message.contains("'title'"));
}

#[test]
fn duplicate_keys_in_large_objects_are_errors_with_location() {
    // Objects of more than 32 members are checked through a hash index rather than a scan:
    // the repeat is still the one reported, with its position.
    let mut members: Vec<String> = (0..100).map(|i| format!("\"k{i}\": {i}")).collect();
    members.insert(70, "\"k10\": 0".to_string());
    let json = format!(
        "{{\"openapi\":\"3.0.3\",\"info\":{{\"title\":\"T\",\"version\":\"1\"}},\"paths\":{{}},\n\"x-big\":{{{}}}}}",
        members.join(",\n")
    );
    let (code, d) = first_code(parse(&json, &[], &Limits::default()));
    assert_eq!(code, "duplicate-key", "{d}");
    assert_eq!(d.pointer, "/x-big/k10");
    assert!(d.message.contains("'k10'"), "{d}");

    let mut lines: Vec<String> = (0..100).map(|i| format!("  k{i}: {i}")).collect();
    lines.insert(70, "  k10: 0".to_string());
    let yaml = format!("{HEAD_YAML}x-big:\n{}\n", lines.join("\n"));
    let (code, d) = first_code(parse(&yaml, &[], &Limits::default()));
    assert_eq!(code, "duplicate-key", "{d}");
    assert_eq!(d.pointer, "/x-big/k10");
    // Line 6 is `x-big:`; its 71st entry is on line 77.
    assert_eq!((d.line, d.column), (Some(77), Some(3)));

    // Without the repeat, every member is found.
    lines.remove(70);
    let yaml = format!("{HEAD_YAML}x-big:\n{}\n", lines.join("\n"));
    let doc = parse(&yaml, &[], &Limits::default()).expect("valid");
    for i in 0..100u64 {
        assert_eq!(
            doc.root()
                .pointer(&format!("/x-big/k{i}"))
                .and_then(V::as_u64),
            Some(i)
        );
    }
    assert!(doc.root().pointer("/x-big/k100").is_none());
}

#[test]
fn a_yaml_alias_reads_like_its_anchor_and_counts_against_the_node_budget() {
    let anchored = format!("{HEAD_YAML}x-a: &x {{k: [1, 2, {{d: e}}]}}\nx-b: *x\nx-c: *x\n");
    let allowed = Limits {
        allow_aliases: true,
        max_aliases: 10,
        ..Limits::default()
    };
    let doc = parse(&anchored, &[], &allowed).expect("aliases allowed");
    let (a, b) = (doc.root().get("x-a"), doc.root().get("x-c"));
    assert!(a.is_some() && a == b);
    assert_eq!(
        doc.root().pointer("/x-c/k/2/d").and_then(V::as_str),
        Some("e")
    );
    // The head is 6 nodes and the anchored value 6; each alias counts the 6 again: 24 in all.
    let budget = |max_nodes| Limits {
        max_nodes,
        ..allowed.clone()
    };
    assert!(parse(&anchored, &[], &budget(24)).is_ok());
    let (code, d) = first_code(parse(&anchored, &[], &budget(23)));
    assert_eq!(code, "too-many-nodes", "{d}");
}

#[test]
fn yaml_merge_keys_are_refused() {
    let yaml = format!("{HEAD_YAML}x-base: &b {{a: 1}}\nx-more:\n  <<: *b\n  c: 2\n");
    for limits in [
        Limits::default(),
        Limits {
            allow_aliases: true,
            max_aliases: 10,
            ..Limits::default()
        },
    ] {
        let (code, d) = first_code(parse(&yaml, &[], &limits));
        assert!(code == "yaml-merge-key" || code == "yaml-alias", "{d}");
    }
    let yaml = format!("{HEAD_YAML}x-more:\n  <<: {{a: 1}}\n");
    assert_eq!(
        first_code(parse(&yaml, &[], &Limits::default())).0,
        "yaml-merge-key"
    );
}

#[test]
fn yaml_custom_tags_are_refused() {
    for tag in [
        "!!python/object:os.system",
        "!custom",
        "!<tag:example.com,2000:x>",
    ] {
        let yaml = format!("{HEAD_YAML}x-t: {tag} ls\n");
        let (code, d) = first_code(parse(&yaml, &[], &Limits::default()));
        assert_eq!(code, "yaml-tag", "{tag}: {d}");
        assert_eq!(d.line, Some(6));
    }
    // Core schema tags are fine.
    let ok = format!("{HEAD_YAML}x-t: !!str 123\n");
    assert_eq!(
        parse(&ok, &[], &Limits::default())
            .unwrap()
            .root()
            .get("x-t")
            .and_then(V::as_str),
        Some("123")
    );
}

#[test]
fn huge_exponent_is_refused() {
    let json =
        r#"{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{},"x-n":1e999999}"#;
    let (code, d) = first_code(parse(json, &[], &Limits::default()));
    assert_eq!(code, "syntax");
    assert!(d.message.contains("out of range"), "{d}");
    let yaml = format!("{HEAD_YAML}x-n: 1e999999\n");
    assert_eq!(
        first_code(parse(&yaml, &[], &Limits::default())).0,
        "number-out-of-range"
    );
}

#[test]
fn four_hundred_digit_integer_is_refused() {
    let digits = "9".repeat(400);
    let json = format!(
        r#"{{"openapi":"3.0.3","info":{{"title":"T","version":"1"}},"paths":{{}},"x-n":{digits}}}"#
    );
    assert_eq!(
        first_code(parse(&json, &[], &Limits::default())).0,
        "syntax"
    );
    let yaml = format!("{HEAD_YAML}x-n: {digits}\n");
    let (code, d) = first_code(parse(&yaml, &[], &Limits::default()));
    assert_eq!(code, "number-out-of-range");
    assert!(d.message.len() < 300);
}

#[test]
fn million_element_array_is_bounded_by_the_node_budget() {
    let arr = vec!["0"; 1_000_000].join(",");
    let json = format!(
        r#"{{"openapi":"3.0.3","info":{{"title":"T","version":"1"}},"paths":{{}},"x-a":[{arr}]}}"#
    );
    let doc = parse(&json, &[], &Limits::default()).expect("1M nodes fit the default budget");
    assert_eq!(
        doc.root().get("x-a").and_then(V::as_array).map(Arr::len),
        Some(1_000_000)
    );
    let small = Limits {
        max_nodes: 100_000,
        ..Limits::default()
    };
    assert_eq!(first_code(parse(&json, &[], &small)).0, "too-many-nodes");
    let yaml = format!("{HEAD_YAML}x-a: [{arr}]\n");
    assert_eq!(first_code(parse(&yaml, &[], &small)).0, "too-many-nodes");
}

#[test]
fn oversized_definition_is_refused_before_parsing() {
    let limits = Limits {
        max_bytes: 1000,
        ..Limits::default()
    };
    let text = format!("{HEAD_YAML}x-pad: '{}'\n", "a".repeat(2000));
    let (code, d) = first_code(parse(&text, &[], &limits));
    assert_eq!(code, "too-large");
    assert!(d.message.contains("1000"));
}

#[test]
fn empty_document_is_refused() {
    for text in ["", "   \n\t", "# only a comment\n", "---\n"] {
        let (code, d) = first_code(parse(text, &[], &Limits::default()));
        assert!(
            code == "empty-document" || code == "not-an-api-document",
            "{text:?}: {d}"
        );
    }
}

#[test]
fn bare_string_or_number_document_is_refused() {
    for (text, kind) in [
        ("hello", "a string"),
        ("42", "a number"),
        ("\"s\"", "a string"),
        ("[1]", "an array"),
        ("null", "null"),
    ] {
        let (code, d) = first_code(parse(text, &[], &Limits::default()));
        assert_eq!(code, "not-an-api-document", "{text}");
        assert!(d.message.contains(kind), "{d}");
    }
}

#[test]
fn unknown_or_unsupported_specifications_are_named() {
    let (code, d) = first_code(parse("openapi: 4.0.0\ninfo: {}\n", &[], &Limits::default()));
    assert_eq!(code, "unsupported-version");
    assert!(d.message.contains("4.0.0"));
    let (code, d) = first_code(parse("swagger: 2\n", &[], &Limits::default()));
    assert_eq!(code, "unsupported-version");
    assert!(d.message.contains("quote"), "{d}");
    let (code, d) = first_code(parse("raml: 1\ntitle: x\n", &[], &Limits::default()));
    assert_eq!(code, "unknown-spec");
    assert!(d.message.contains("'raml'"), "{d}");
}

#[test]
fn nul_in_keys_or_strings_is_refused() {
    let json =
        "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"a\\u0000b\",\"version\":\"1\"},\"paths\":{}}";
    assert_eq!(
        first_code(parse(json, &[], &Limits::default())).0,
        "nul-character"
    );
    let json = "{\"openapi\":\"3.0.3\",\"x-\\u0000\":1,\"info\":{\"title\":\"a\",\"version\":\"1\"},\"paths\":{}}";
    assert_eq!(
        first_code(parse(json, &[], &Limits::default())).0,
        "nul-character"
    );
}

#[test]
fn too_many_references_are_refused() {
    let refs: Vec<Reference> = (0..5)
        .map(|i| Reference {
            location: format!("f{i}.yaml"),
            content: "a: 1".into(),
            name: None,
        })
        .collect();
    let limits = Limits {
        max_files: 4,
        ..Limits::default()
    };
    assert_eq!(
        first_code(parse(HEAD_YAML, &refs, &limits)).0,
        "too-many-files"
    );
}

#[test]
fn errors_are_collected_not_stopped_at_the_first() {
    let doc = openapi_json_with(
        r##"{"A":{"$ref":"#/nope/1"},"B":{"$ref":"#/nope/2"},"C":{"$ref":"missing.yaml"}}"##,
    );
    let ds = err(parse(&doc, &[], &Limits::default()));
    assert_eq!(ds.len(), 3, "{ds:?}");
    let capped = Limits {
        max_errors: 2,
        ..Limits::default()
    };
    assert_eq!(err(parse(&doc, &[], &capped)).len(), 2);
}

#[test]
fn nesting_at_the_depth_limit_validates_on_a_2_mib_stack() {
    // Depth just under the budget, in a schema the validator walks: must not overflow a
    // tokio-sized (2 MiB) thread stack anywhere (loader, ref walk, model, validation, drop).
    let mut schema = String::from(r#"{"type":"string"}"#);
    for _ in 0..58 {
        schema = format!(r#"{{"type":"object","properties":{{"a":{schema}}}}}"#);
    }
    let text = openapi_json_with(&format!(r#"{{"Deep":{schema}}}"#));
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let doc = check(&text, &[], &Limits::default()).expect("valid deep document");
            let _ = doc.fingerprint();
            doc.model().schemas.len()
        })
        .expect("spawn");
    assert_eq!(handle.join().expect("no stack overflow"), 1);
}

#[test]
fn depth_limit_is_clamped_to_a_safe_maximum() {
    let limits = Limits {
        max_depth: 1_000_000,
        ..Limits::default()
    };
    let yaml = format!("{}1", "- ".repeat(5000));
    let (code, _) = first_code(parse(&yaml, &[], &limits));
    assert_eq!(code, "too-deep");
}

//! The locator's tests: hand-written YAML and JSON, the fast scans against the full parse, and the corpus.

use super::*;

/// The positions of `pointers` in `text`.
fn find(text: &str, format: SourceFormat, pointers: &[&str]) -> Vec<Option<(u32, u32)>> {
    let mut wanted = Wanted::new();
    let nodes: Vec<u32> = pointers
        .iter()
        .map(|p| wanted.insert(p).expect("valid pointer"))
        .collect();
    scan(text, (format, false), &mut wanted, &nodes)
        .into_iter()
        .map(|p| p.map(|p| (p.line, p.column)))
        .collect()
}

#[test]
fn json_positions_point_at_keys_and_items() {
    let text = "{\n  \"a\": {\"b~/\": [1, {\"c\": 2}]},\n  \"d\": \"x\\\"y\"\n}";
    let f = find(
        text,
        SourceFormat::Json,
        &["", "/a", "/a/b~0~1", "/a/b~0~1/1/c", "/d"],
    );
    assert_eq!(
        f,
        vec![
            Some((1, 1)),
            Some((2, 3)),
            Some((2, 9)),
            Some((2, 21)),
            Some((3, 3))
        ]
    );
}

#[test]
fn yaml_positions_point_at_keys_and_items() {
    let text = "a:\n  b:\n    - 1\n    - c: 2\nd: x\n";
    let f = find(
        text,
        SourceFormat::Yaml,
        &["/a", "/a/b/1/c", "/a/b/0", "/d"],
    );
    assert_eq!(
        f,
        vec![Some((1, 1)), Some((4, 7)), Some((3, 7)), Some((5, 1))]
    );
}

/// Every pointer of `v` (below `at`), depth first.
fn pointers(v: crate::tree::V<'_>, at: &mut String, out: &mut Vec<String>) {
    out.push(at.clone());
    let len = at.len();
    match v.kind() {
        crate::tree::Kind::Object(o) => {
            for (k, child) in o.iter() {
                crate::pointer::push_token(at, k);
                pointers(child, at, out);
                at.truncate(len);
            }
        }
        crate::tree::Kind::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                crate::pointer::push_index(at, i);
                pointers(child, at, out);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

/// The positions of `pointers` in `text` found by the indentation skim (`None` when it
/// gives up) and by the events scan.
fn skim_and_events(
    text: &str,
    pointers: &[String],
) -> (Option<Vec<Option<Position>>>, Vec<Option<Position>>) {
    let mut wanted = Wanted::new();
    let nodes: Vec<u32> = pointers
        .iter()
        .map(|p| wanted.insert(p).expect("valid pointer"))
        .collect();
    let skimmed = skim_yaml(text, &mut wanted).map(|()| {
        let marks: Vec<Option<Mark>> = nodes.iter().map(|&n| wanted.mark(n)).collect();
        resolve(text, &marks)
    });
    wanted.clear();
    scan_yaml(text, &mut wanted);
    let marks: Vec<Option<Mark>> = nodes.iter().map(|&n| wanted.mark(n)).collect();
    (skimmed, resolve(text, &marks))
}

/// Every pointer of a block-read YAML text, and some that name nothing.
fn all_pointers(text: &str) -> Vec<String> {
    let loaded = crate::yaml::load(
        text,
        &crate::yaml::YamlBudget::new(&crate::Limits::default(), 0),
    )
    .expect("loads");
    assert!(loaded.block, "the block reader takes the text");
    let mut out = Vec::new();
    pointers(loaded.value.root(), &mut String::new(), &mut out);
    let missing: Vec<String> = out
        .iter()
        .step_by(7)
        .map(|p| format!("{p}/0/missing"))
        .collect();
    out.extend(missing);
    out
}

#[test]
fn the_indentation_skim_places_every_value_where_the_events_scan_does() {
    let text = "a:\n  b:\n    - 1\n    - c: 2\n      # note\n      d:\n      - x\n      -\n        e: 'it''s'\n    - [p, \"q\", r]\n  f: |\n    g: h\n\n    - i\n  j: folded text\n    over lines\n  \"k l\": {}\nm: n\n";
    let pointers = all_pointers(text);
    let (skimmed, events) = skim_and_events(text, &pointers);
    assert_eq!(skimmed.as_ref(), Some(&events), "{pointers:?}");
    // Only some wanted: an item after one off the trie is still counted.
    let some: Vec<String> = ["/a/b/2/1", "/a/b/1/d/1/e", "/m", "/a/j"]
        .map(String::from)
        .to_vec();
    let (skimmed, events) = skim_and_events(text, &some);
    assert_eq!(skimmed.as_ref(), Some(&events));
    let lines: Vec<u32> = events.iter().map(|p| p.map_or(0, |p| p.line)).collect();
    assert_eq!(lines, [10, 9, 18, 15]);
}

#[test]
fn the_indentation_skim_gives_up_on_what_it_does_not_read() {
    // A quoted key with an escape.
    let text = "a:\n  \"b\\\"c\": 1\n";
    let pointers = all_pointers(text);
    let (skimmed, events) = skim_and_events(text, &pointers);
    assert_eq!(skimmed, None);
    assert_eq!(events[2].map(|p| (p.line, p.column)), Some((2, 3)));
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn the_indentation_skim_agrees_with_the_events_scan_on_the_corpus_yaml() {
    let dir = specpress_testkit::corpus();
    let folders = std::fs::read_dir(&dir).expect("the corpus folder reads");
    let mut checked = 0;
    for folder in folders.flatten() {
        for file in std::fs::read_dir(folder.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = file.path();
            if !matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml")
            ) {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("corpus file is UTF-8");
            let pointers = all_pointers(&text);
            let (skimmed, events) = skim_and_events(&text, &pointers);
            let skimmed = skimmed.unwrap_or_else(|| panic!("skim gave up on {}", path.display()));
            for ((p, s), e) in pointers.iter().zip(&skimmed).zip(&events) {
                assert_eq!(s, e, "{} {p}", path.display());
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "no YAML in {}", dir.display());
}

//! The block-YAML fast reader against saphyr-parser: whenever the fast reader takes a document, it must give exactly
//! the tree saphyr-parser gives (same values, same key order), and it must never take a document saphyr-parser
//! refuses. Checked on the corpus's YAML documents (which it must take: that is its purpose), on hand-written
//! documents for every construct it handles, and on thousands of deterministic mutations of those.

mod common;

use common::{Rng, corpus_dir, files_under};
use specpress_apispec::compare_readers;

/// Fails unless the fast reader's tree, if any, equals saphyr-parser's, and the loader's result (tree or located
/// error) is saphyr-parser's. Returns whether the fast reader took it.
fn agree(text: &str) -> bool {
    let r = compare_readers(text);
    assert_eq!(
        r.load, r.saphyr,
        "the loader and saphyr-parser differ on:\n{text}"
    );
    match (&r.block, &r.saphyr) {
        (None, _) => false,
        (Some(f), Ok(s)) => {
            assert_eq!(
                f, s,
                "the block reader and saphyr-parser disagree on:\n{text}"
            );
            true
        }
        (Some(f), Err(e)) => {
            panic!(
                "the block reader took a document saphyr-parser refuses ({e}); it read {f} from:\n{text}"
            )
        }
    }
}

fn taken(text: &str) {
    assert!(agree(text), "the block reader declined:\n{text}");
}

const TAKEN: &[&str] = &[
    "openapi: 3.0.3\ninfo:\n  title: T\n  version: '1'\npaths: {}\n",
    "a: 1\nb: -2\nc: 1.5\nd: true\ne: null\nf: ~\ng:\nh: 0x1F\ni: 0o17\nj: 1e3\nk: yes\nl: 012\n",
    "key:   spaced value   \nother: x # comment\n# full comment\n\n  # indented comment\nlast: y\n",
    "list:\n  - a\n  - b\n  -\n  - c: 1\n    d: 2\n",
    "list:\n- a\n- b: 1\n  c:\n  - x\n  - y\nafter: z\n",
    "- a\n- b\n",
    "- name: x\n  tags:\n  - a\n  - b\n- name: y\n",
    "s: 'it''s'\nd: \"tab\\tq\\\"uote\\\\ \\u00e9 \\x41 \\U0001F600 \\/\"\ne: ''\nf: \"\"\n",
    "'quoted key': 1\n\"dq key\": 2\n\"a\": x\n",
    "folded: >-\n  one\n  two\n\n  three\n\n\n  four\nnext: 1\n",
    "folded_clip: >\n  one\n  two\nnext: 1\n",
    "folded_more: >\n  a\n  b\n    more\n    indented\n  c\n\n  d\n\n    e\n  f\nnext: 1\n",
    "literal: |\n  line 1\n    indented\n\n  line 3\nnext: 1\n",
    "literal_strip: |-\n  a\n  b\n\n\nnext: 1\n",
    "literal_keep: |+\n  a\n  b\n\n\nnext: 1\n",
    "folded_keep: >+\n  a\n  b\n\n",
    "keep_at_end: |+\n  a\n",
    "empty_keep:\n  - example: |+\n      \n    nullable: true\n  - x: |+\n\n\n    y: >-\n        \n    z: 1\n",
    "escaped: \"multi \\\n  line\\\n\n  and \\\n   more\"\n",
    "spaces_in_literal: |\n  a\n      \n  b\nfolded_spaces: >\n  a\n      \n  b\n",
    "lead: |\n\n  after an empty line\nnext: 1\n",
    "empty_block: |\nnext: 1\n",
    "commented_header: | # note\n  text\n",
    "block_at_end: >-\n  last words\n",
    "in_seq:\n  - |\n    literal item\n  - >-\n    folded item\n",
    "plain: this is\n  a long plain\n  scalar\n\n  with a break\nnext: 1\n",
    "seq_plain:\n  - first line\n    second line\n  - x\n",
    "cont: a\n  `b` [c] {d} - e 'f' \"g\" &h *i !j |k >l %m @n ?o ,p\n  - q\nnext: 1\n",
    "dq: \"a long\n  quoted string\n\n  over lines \"\nsq: 'single\n  folded'\nnext: 1\n",
    "flow: [a, b, 'c', \"d\", 1, true]\nempty: []\nmap: {}\nspaced: [ a , b ]\n",
    "urls: http://example.com/a:b\ntime: 12:30\npath: /pets/{id}\n/pets/{petId}:\n  get: {}\n",
    "unicode: héllo wörld ✓ 😀\n\"ключ\": значение\n",
    "\"200\":\n  description: ok\n404:\n  description: missing\n",
    "deep:\n  a:\n    b:\n      c:\n        d:\n          e: 1\n",
    "nul_free: \"x\"\n",
];

const HOSTILE: &[&str] = &[
    "a: 1\na: 2\n",
    "\"200\": x\n200: y\n",
    "<<: {a: 1}\n",
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "a: !custom 1\n",
    "---\na: 1\n---\nb: 2\n",
    "%YAML 1.2\n---\na: 1\n",
    "a:\tb\n",
    "a: b\r\nc: d\r\n",
    "a: b: c\n",
    "a:\n  b: 1\n c: 2\n",
    "a: [b, [c]]\n",
    "a: {b: 1}\n",
    "a: [b,\n  c]\n",
    "a: \"\\q\"\n",
    "a: \"\\ud800\"\n",
    "a: \"\\0\"\n",
    "a: |2\n   x\n",
    "a: .inf\n",
    "a: 1e999999\n",
    "? complex\n: key\n",
    "a: 'unterminated\n",
    "a: \"unterminated\n",
    "a: |\n  no newline at the end",
    "- a\nb: 1\n",
    "a:\n- x\n  - y\n",
    "just a scalar\n",
    "",
    "# only a comment\n",
    "a: 1\n  b: 2\n",
    "a: x\n  # indented comment after a plain\n",
    "a: \"x\"y\n",
    "a: [x]y\n",
    "a: value #comment-no-space-before? no, this has one\n",
    "a: x\u{85}y\n",
    "a: x\u{2028}y\n",
    "a: \u{feff}x\n",
    "a: x\u{7f}\n",
    "a:\n  - b\n  -c\n",
    "a: -\n",
    "a: - b\n",
    "-foo: 1\n",
    "k: v\n...\n",
    "list:\n  - - nested\n",
    "a: @x\n",
    "a: `x`\n",
    "a:    \n    \n  b: 1\n",
];

#[test]
fn the_block_reader_agrees_with_saphyr_parser_on_every_construct_it_takes() {
    for text in TAKEN {
        taken(text);
    }
}

#[test]
fn hostile_and_unusual_documents_are_declined_or_read_exactly_as_saphyr_parser_reads_them() {
    for text in HOSTILE {
        agree(text);
    }
}

fn corpus_yaml() -> Vec<(String, String)> {
    let dir = corpus_dir();
    files_under(&dir, &["yaml", "yml"])
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("corpus file is UTF-8");
            (p.display().to_string(), text)
        })
        .collect()
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn the_block_reader_takes_every_corpus_yaml_document_and_agrees_with_saphyr_parser() {
    for (name, text) in corpus_yaml() {
        let r = compare_readers(&text);
        let (fast, slow) = (r.block, r.saphyr);
        let slow = slow.unwrap_or_else(|e| panic!("{name}: saphyr-parser refuses it: {e}"));
        let fast = fast.unwrap_or_else(|| panic!("{name}: the block reader declined it"));
        assert!(fast == slow, "{name}: the readers disagree");
    }
}

/// Fragments that move a document across the subset's edges.
const PIECES: &[&str] = &[
    " ", "  ", "\n", "\n  ", "- ", "-", ": ", ":", "#", " #", "'", "''", "\"", "\\", "\\n", "|",
    "|-", ">", ">-", "[", "]", "{", "}", ",", "&a ", "*a", "!", "?", "---", "...", "x", "é", "1",
    "null", "\n\n", "\n- ", "\n  - ",
];

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut s: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(s.len() + 1);
        match rng.below(3) {
            0 => {
                let piece: Vec<char> = PIECES[rng.below(PIECES.len())].chars().collect();
                s.splice(at..at, piece);
            }
            1 if at < s.len() => {
                let len = (1 + rng.below(4)).min(s.len() - at);
                s.drain(at..at + len);
            }
            _ if at < s.len() => {
                let piece: Vec<char> = PIECES[rng.below(PIECES.len())].chars().collect();
                let len = (1 + rng.below(3)).min(s.len() - at);
                s.splice(at..at + len, piece);
            }
            _ => {}
        }
    }
    s.into_iter().collect()
}

#[test]
fn mutated_documents_are_declined_or_read_exactly_as_saphyr_parser_reads_them() {
    // `SPECPRESS_YAML_MUTATIONS=N[:SEED]` runs a longer or different search.
    let (runs, seed) = match std::env::var("SPECPRESS_YAML_MUTATIONS") {
        Ok(v) => {
            let (n, seed) = v.split_once(':').unwrap_or((v.as_str(), "1"));
            (n.parse().unwrap_or(20_000), seed.parse().unwrap_or(1))
        }
        Err(_) => (20_000usize, 0x5eed_b10c_4a31_u64),
    };
    let mut rng = Rng(seed | 1);
    let mut took = 0usize;
    for i in 0..runs {
        let base = TAKEN[i % TAKEN.len()];
        let text = mutate(&mut rng, base);
        if agree(&text) {
            took += 1;
        }
    }
    // The mutations must keep exercising the reader, not only its refusals.
    assert!(
        took > runs / 5,
        "the block reader took only {took} of {runs} mutated documents"
    );
}

#[test]
fn block_nesting_past_the_depth_ceiling_is_refused_without_exhausting_the_stack() {
    // One more level per line, past the highest depth any configuration allows; the test thread has the default 2 MiB
    // stack, like the blocking pool the service parses on.
    let depth = specpress_apispec::MAX_DEPTH_CEILING + 50;
    let yaml: String = (0..depth)
        .map(|i| format!("{}k:\n", " ".repeat(i)))
        .chain(std::iter::once(format!("{}v: 1\n", " ".repeat(depth))))
        .collect();
    let limits = specpress_apispec::Limits {
        max_depth: usize::MAX,
        ..Default::default()
    };
    let err = specpress_apispec::parse(&yaml, &[], &limits).expect_err("too deep");
    assert_eq!(err.diagnostics[0].code, "too-deep", "{err}");
}

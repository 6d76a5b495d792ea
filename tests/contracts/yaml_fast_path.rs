//! The YAML fast path (`src/contract/yaml/fast.rs`) against serde-saphyr:
//! wherever the fast path answers, its tree is serde-saphyr's, node by node,
//! with the same values, lines and byte spans, under both scalar rules (the
//! contract's, where `042` stays a string, and YAML 1.2 core's); and where
//! the parser rejects a text, serde-saphyr rejects it too. Documents: every
//! JSON and YAML document of the fixtures as the schema differential reads
//! them (files, front matter and fenced blocks of the tests, the examples
//! and the docs book), those files whole, a table of scalar spellings, and
//! generated documents.

use super::schema_differential::{document_texts, fixture_files};
use mastermind_hooks::contract::yaml::{self, FastParse, YamlNode};
use proptest::prelude::*;

/// Debug text compares NaN with NaN, which `PartialEq` does not.
fn same(a: &YamlNode, b: &YamlNode) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// Compare both parsers on `text`; true when the fast path answered.
fn agree(text: &str) -> bool {
    let mut answered = false;
    for leading_zero_as_strings in [true, false] {
        let fast = match yaml::parse_fast(text, leading_zero_as_strings) {
            FastParse::Tree(node) => node,
            FastParse::Malformed => {
                assert!(
                    yaml::parse_with_serde(text, leading_zero_as_strings).is_err(),
                    "{text:?}: the parser rejects it, serde-saphyr does not"
                );
                continue;
            }
            FastParse::Declined => continue,
        };
        answered = true;
        match yaml::parse_with_serde(text, leading_zero_as_strings) {
            Ok(reference) => assert!(
                same(&fast, &reference),
                "{text:?} (leading zeros as strings: {leading_zero_as_strings})\nfast: {fast:#?}\nserde-saphyr: {reference:#?}"
            ),
            Err(e) => panic!(
                "{text:?}: the fast path answered where serde-saphyr fails: {}",
                e.message
            ),
        }
    }
    answered
}

#[test]
fn the_fast_path_gives_serde_saphyrs_tree_on_every_corpus_document() {
    let (mut texts, mut answered) = (0usize, 0usize);
    for path in fixture_files() {
        let Ok(content) = std::fs::read_to_string(&path) else {
            continue;
        };
        // The documents the schema differential reads, and every such
        // file whole (a Markdown report is the parser's to reject).
        let documents = document_texts(&path, &content);
        let whole = (!documents.is_empty()).then_some(content);
        for text in documents.into_iter().map(|(text, _)| text).chain(whole) {
            texts += 1;
            if agree(&text) {
                answered += 1;
            }
        }
    }
    // Not vacuous: most of the corpus's YAML is everyday YAML.
    assert!(texts > 200, "{texts} texts");
    assert!(
        answered * 3 > texts,
        "{answered} of {texts} texts took the fast path"
    );
}

#[test]
fn scalar_spellings_resolve_as_serde_saphyr_resolves_them() {
    let spellings = [
        "",
        "~",
        "null",
        "Null",
        "NULL",
        "nULL",
        "true",
        "True",
        "TRUE",
        "tRUE",
        "false",
        "False",
        "FALSE",
        "yes",
        "no",
        "on",
        "off",
        "y",
        "n",
        "Y",
        "0",
        "00",
        "01",
        "042",
        "-042",
        "+042",
        "7",
        "-7",
        "+7",
        "-0",
        "+0",
        "1_000",
        "_1",
        "1__0",
        "0x1F",
        "0X1F",
        "0x1f",
        "-0x1F",
        "+0x1F",
        "0x",
        "0xg",
        "0o17",
        "0O17",
        "0o8",
        "-0o17",
        "0b101",
        "0B101",
        "0b2",
        "-0b1",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "340282366920938463463374607431768211456",
        "1.5",
        "-1.5",
        "+1.5",
        ".5",
        "5.",
        "-.5",
        "1e5",
        "1E5",
        "1e+5",
        "1e-5",
        "1e400",
        "-1e400",
        "+1e400",
        "1e",
        "e5",
        ".e5",
        "1.2.3",
        ".inf",
        ".Inf",
        ".INF",
        "-.inf",
        "+.inf",
        ".iNF",
        "inf",
        "-inf",
        "infinity",
        "Infinity",
        ".nan",
        ".NaN",
        ".NAN",
        "-.nan",
        "+.nan",
        "nan",
        "NaN",
        "0.0",
        "-0.0",
        "00.5",
        "0e0",
        "2026-12-03",
        "12:30",
        "1:2",
        "v1",
        "1.0.0",
        "+",
        "-",
        ".",
        "..",
        "+-1",
        "--1",
        "0x_1",
        "1,000",
        "1 000",
        "0.1_0",
        "0b",
        "0o",
        "a b",
        "<<",
        "=",
        "!",
        "%",
        "@x",
        "`x`",
        "é",
        "1e5e5",
        "0x1p3",
        "1.5e",
        "+.5",
        "-0x8000000000000000",
        "0xFFFFFFFFFFFFFFFF",
        "0x10000000000000000",
        "0o1777777777777777777777",
    ];
    let mut answered = 0;
    for spelling in spellings {
        for text in [
            format!("key: {spelling}\n"),
            format!("- {spelling}\n"),
            format!("[{spelling}]\n"),
            format!("{spelling}\n"),
            format!("key: \"{spelling}\"\n"),
            format!("key: '{spelling}'\n"),
            format!("{spelling}: value\n"),
            format!("\"{spelling}\": value\n"),
        ] {
            if agree(&text) {
                answered += 1;
            }
        }
    }
    assert!(answered > 500, "{answered}");
}

#[test]
fn shapes_and_positions_agree() {
    for text in [
        "a:\n  b:\n    - 1\n    - x: 2\n      y: [3, {z: 4}]\n",
        "a:\nb: 1\n",
        "- \n- a\n-\n",
        "a: |\n  line one\n  line two\nb: >-\n  folded\n  text\n",
        "a: \"esc \\t \\u00e9 \\n\"\nb: 'it''s'\n",
        "# comment\na: 1 # trailing\n\n# end\n",
        "---\na: 1\n",
        "---\na: 1\n...\n",
        "a: 1\n---\nb: 2\n",
        "a: 1\na: 2\n",
        "a: 1\n'a': 2\n",
        "\"a\": 1\n'b': 2\nc: 3\n",
        "{a: 1, b: [x, y], c: {}}\n",
        "[]\n",
        "{}\n",
        "? a\n: 1\n",
        "? [a]\n: 1\n",
        "&x a: 1\nb: *x\n",
        "a: !!str 5\n",
        "a: !custom x\n",
        "%YAML 1.2\n---\na: 1\n",
        "a: [1\n",
        "a: b: c\n",
        "\u{feff}a: 1\n",
        "a:    spaced   \n",
        "a: multi\n  line\n  plain\n",
        "a:\n- 1\n- 2\n",
        "  a: 1\n  b: 2\n",
        "a: 1\r\nb: 2\r\n",
        "a: \t1\n",
        "",
        "# only a comment\n",
        "<<: {a: 1}\n",
        "a: {b: 1, b: 2}\n",
        "[a, b]: 1\n",
        "null: 1\n",
        "1: a\n2: b\n",
        "a: -\n",
        "- - - x\n",
        "a: é\nb: 日本\n",
    ] {
        agree(text);
    }
}

fn plain_scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9_./-]{0,8}",
        "[-+]?[0-9_]{1,6}",
        "[-+]?[0-9]{0,4}\\.[0-9]{0,4}([eE][-+]?[0-9]{1,3})?",
        "[-+]?0[xXoObB][0-9a-fA-F_]{0,6}",
        "[-+]?\\.(inf|Inf|INF|nan|NaN|NAN|iNf)",
        "(true|True|TRUE|false|False|FALSE|null|Null|NULL|~|yes|no|on|off)",
    ]
}

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => plain_scalar(),
        1 => plain_scalar().prop_map(|s| format!("\"{s}\"")),
        1 => plain_scalar().prop_map(|s| format!("'{s}'")),
        1 => Just(String::new()),
    ]
}

/// A block document: nested mappings and sequences over generated scalars,
/// sometimes with flow collections, comments and repeated keys.
fn document() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        6 => "[a-z][a-z0-9_-]{0,6}",
        1 => plain_scalar(),
        1 => "[a-c]",
    ];
    let line = (0usize..4, key, scalar(), 0usize..6);
    prop::collection::vec(line, 1..12).prop_map(|lines| {
        let mut out = String::new();
        let mut depth = 0usize;
        for (step, key, value, shape) in lines {
            depth = match step {
                0 => 0,
                1 => depth,
                _ => (depth + 1).min(3),
            };
            let indent = "  ".repeat(depth);
            match shape {
                0 => out.push_str(&format!("{indent}{key}: [{value}, {value}]\n")),
                1 => out.push_str(&format!("{indent}{key}: {{k: {value}}}\n")),
                2 => out.push_str(&format!("{indent}- {value}\n")),
                3 => out.push_str(&format!("{indent}{key}: {value} # note\n")),
                _ => out.push_str(&format!("{indent}{key}: {value}\n")),
            }
        }
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn generated_documents_agree(text in document()) {
        agree(&text);
    }

    #[test]
    fn generated_scalars_agree(value in plain_scalar()) {
        agree(&format!("k: {value}\n"));
        agree(&format!("{value}: v\n"));
    }
}

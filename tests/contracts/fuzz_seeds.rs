//! The fuzz targets' seeds reach the checks: `fuzz/seeds/<target>/` holds,
//! beside the minimized inputs of earlier campaigns, a valid document of
//! its kind for every example of that kind the repository has (the seeds'
//! worked examples and the contracts corpus in `tests/data`, the CLI
//! fixtures in `tests/cmd`, `examples/`, and the YAML and JSON blocks of
//! the book), so the rules that run only on a parsed document are reached
//! from the first input. Subagent returns come in both forms the target
//! judges: whole, and after the dispatch description that routes them.
//! `fuzz/yaml-markdown.dict` gives libFuzzer the syntax of the documents
//! and every key and enum word of the embedded schemas.
//!
//! The seeds are derived, never written by hand: `UPDATE_SEEDS=1 cargo test
//! --test contracts fuzz_seeds` writes them (`valid-<source>` files) and the
//! dictionary. Without it, this test fails when a seed is no longer a valid
//! document of its target's kind (a contract changed) or a target lacks
//! them; a new example elsewhere in the repository is picked up at the next
//! update, not demanded at once.

use mastermind_hooks::artifact::{self, Kind};
use mastermind_hooks::config::Config;
use mastermind_hooks::contract::subagent::dispatch::{self, DispatchRoute};
use mastermind_hooks::contract::yaml::{self, FastParse};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Where candidate documents come from (relative to the repository).
const SOURCES: &[&str] = &["tests/data", "tests/cmd", "examples"];

/// The book's chapters whose fenced blocks are candidates too.
const BOOK: &str = "docs/src";

/// What a seed of a target must be to count as valid.
#[derive(Clone, Copy)]
enum Valid {
    /// No error of this kind's contract.
    Kind(Kind),
    /// The gate's configuration parses.
    Config,
    /// Strict YAML parses it.
    StrictYaml,
    /// The fast path builds a tree (so the differential compares trees).
    FastYaml,
}

/// The targets whose seeds are derived, and what their valid seeds are.
/// (`stat_reuse` takes edit sequences, not documents.)
const TARGETS: &[(&str, Valid)] = &[
    ("executor_report", Valid::Kind(Kind::ExecutorReport)),
    ("spec", Valid::Kind(Kind::Spec)),
    ("audit_tail", Valid::Kind(Kind::AuditTail)),
    ("receipt", Valid::Kind(Kind::Receipt)),
    ("strict_yaml", Valid::StrictYaml),
    ("yaml_fast_path", Valid::FastYaml),
    ("config", Valid::Config),
    ("plastic_report", Valid::Kind(Kind::PlasticReport)),
    ("plastic_intent", Valid::Kind(Kind::PlasticIntent)),
    ("plastic_savepoints", Valid::Kind(Kind::PlasticSavepoints)),
    ("subagent_return", Valid::Kind(Kind::SubagentReturn)),
    ("findings_ledger", Valid::Kind(Kind::FindingsLedger)),
    ("finding_blocks", Valid::Kind(Kind::FindingBlocks)),
];

/// Kinds whose empty document is valid: an empty candidate says nothing.
fn is_valid(valid: Valid, bytes: &[u8]) -> bool {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return false;
    }
    match valid {
        Valid::Kind(kind) => !artifact::check(kind, bytes)
            .diagnostics
            .iter()
            .any(|d| d.is_error()),
        Valid::Config => Config::parse(bytes, "seed").is_ok(),
        Valid::StrictYaml => std::str::from_utf8(bytes)
            .is_ok_and(|text| yaml::parse_strict(text).is_ok() && !looks_like_prose(text)),
        Valid::FastYaml => std::str::from_utf8(bytes).is_ok_and(|text| {
            matches!(yaml::parse_fast(text, true), FastParse::Tree(_)) && !looks_like_prose(text)
        }),
    }
}

/// A Markdown page reads as one YAML string; as a YAML seed it teaches
/// nothing a document does not.
fn looks_like_prose(text: &str) -> bool {
    yaml::parse_strict(text).is_ok_and(|(_, value)| value.is_string())
}

/// Every regular file under `dir`, sorted.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            files(&entry.path(), out);
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
}

/// A seed's file name for a source: `valid-` and the path, `/` as `--`.
fn seed_name(source: &str) -> String {
    let name: String = source
        .chars()
        .map(|c| match c {
            '/' => "--".to_string(),
            c if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') => c.to_string(),
            _ => "-".to_string(),
        })
        .collect();
    format!("valid-{}", name.trim_start_matches('.'))
}

/// The candidates: (name, bytes) of every repository file of the sources
/// and every fenced block of the book.
fn candidates() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(ROOT);
    let mut out = Vec::new();
    for source in SOURCES {
        let mut found = Vec::new();
        files(&root.join(source), &mut found);
        for path in found {
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .to_string();
            let bytes = std::fs::read(&path).unwrap();
            if bytes.len() <= 64 * 1024 {
                out.push((relative, bytes));
            }
        }
    }
    let mut chapters = Vec::new();
    files(&root.join(BOOK), &mut chapters);
    for chapter in chapters {
        let text = std::fs::read_to_string(&chapter).unwrap();
        let name = chapter.file_stem().unwrap().to_string_lossy().to_string();
        let mut block: Option<(String, String)> = None;
        let mut n = 0;
        for line in text.lines() {
            match &mut block {
                None => {
                    if let Some(info) = line.trim_start().strip_prefix("```")
                        && !info.is_empty()
                    {
                        block = Some((info.trim().to_string(), String::new()));
                    }
                }
                Some((info, body)) => {
                    if line.trim_start().starts_with("```") {
                        if matches!(info.as_str(), "yaml" | "yml" | "json" | "markdown" | "md") {
                            n += 1;
                            out.push((
                                format!("docs/{name}-{n}.{info}"),
                                body.clone().into_bytes(),
                            ));
                        }
                        block = None;
                    } else {
                        body.push_str(line);
                        body.push('\n');
                    }
                }
            }
        }
    }
    out
}

/// Subagent returns the corpus routes by a dispatch description: the
/// description on the first line, the return after it, as the target reads
/// them.
fn dispatched() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(ROOT).join("tests/data/contracts-corpus");
    let manifest = std::fs::read_to_string(dir.join("subagent.tsv")).unwrap();
    let mut out = Vec::new();
    for line in manifest.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (Some(file), Some(judge), Some(verdict)) = (cols.first(), cols.get(1), cols.get(2))
        else {
            continue;
        };
        let Some(description) = judge.strip_prefix("dispatch=") else {
            continue;
        };
        if *verdict != "accept" {
            continue;
        }
        let body = std::fs::read(dir.join("subagent").join(file)).unwrap();
        let outcome = dispatch::check_dispatched(&body, description);
        if matches!(outcome.route, DispatchRoute::Schema(_))
            && !outcome.diagnostics.iter().any(|d| d.is_error())
        {
            let mut seed = format!("{description}\n").into_bytes();
            seed.extend_from_slice(&body);
            out.push((format!("dispatched/{file}"), seed));
        }
    }
    out
}

/// Kinds for which almost any text is a valid (legacy or empty) document:
/// only a file the gate would take for one is a seed of it.
fn taken_for(valid: Valid, path: &str, bytes: &[u8]) -> bool {
    match valid {
        Valid::Kind(kind @ (Kind::Spec | Kind::PlasticIntent | Kind::PlasticSavepoints)) => {
            Kind::infer(path) == Some(kind)
                || (kind == Kind::Spec && path.starts_with("docs/") && bytes.starts_with(b"---\n"))
        }
        _ => true,
    }
}

/// The other shapes of a valid document: edits that turn one shape into
/// another (a complete report into a partial one with its defect, a held
/// audit into a drift with its discrepancy), each kept only where the
/// result is still valid.
const SHAPES: &[(&str, &[(&str, &str)])] = &[
    (
        "executor_report",
        &[
            ("status: complete", "status: partial"),
            (
                "defects: []",
                "defects:\n  - kind: implementation_defect\n    phase: plan-1\n    details: the export is still slow on large files\n    remediation_hint: stream the rows\n",
            ),
        ],
    ),
    (
        "executor_report",
        &[
            ("status: complete", "status: failed"),
            (
                "defects: []",
                "defects:\n  - kind: environment\n    details: the database is unreachable\n",
            ),
        ],
    ),
    (
        "executor_report",
        &[(
            "claims: []",
            "claims:\n  - kind: function_added\n    symbol: value\n    file: src/lib.py\n    signature: \"def value()\"\n",
        )],
    ),
    ("executor_report", &[("```yaml", "```yml")]),
    (
        "audit_tail",
        &[
            ("verdict: held", "verdict: drift"),
            ("scope_match: true", "scope_match: false"),
            (
                "discrepancies: []",
                "discrepancies:\n  - kind: scope_creep\n    file: src/x.rs\n    evidence: \"changed outside the declared scope\"\n",
            ),
        ],
    ),
    (
        "audit_tail",
        &[
            ("verdict: held", "verdict: BROKEN"),
            (
                "discrepancies: []",
                "discrepancies:\n  - kind: missing_file\n    file: src/y.rs\n    severity: high\n",
            ),
        ],
    ),
    ("audit_tail", &[("```yaml", "```yml")]),
    ("receipt", &[("\"attempt\": 1", "\"attempt\": 2")]),
    ("receipt", &[("\"iteration\": 1", "\"iteration\": 3")]),
];

/// The valid seeds each target should have, by file name.
fn expected() -> BTreeMap<&'static str, BTreeMap<String, Vec<u8>>> {
    let candidates = candidates();
    let mut out = BTreeMap::new();
    for (target, valid) in TARGETS {
        let mut seeds = BTreeMap::new();
        let mut seen = BTreeSet::new();
        for (name, bytes) in &candidates {
            if taken_for(*valid, name, bytes)
                && is_valid(*valid, bytes)
                && seen.insert(bytes.clone())
            {
                seeds.insert(seed_name(name), bytes.clone());
            }
        }
        let bases: Vec<(String, Vec<u8>)> =
            seeds.iter().map(|(n, b)| (n.clone(), b.clone())).collect();
        for (n, (_, edits)) in SHAPES.iter().enumerate().filter(|(_, (t, _))| t == target) {
            for (name, bytes) in &bases {
                let Ok(text) = std::str::from_utf8(bytes) else {
                    continue;
                };
                if !edits.iter().all(|(from, _)| text.contains(from)) {
                    continue;
                }
                let shaped = edits
                    .iter()
                    .fold(text.to_string(), |text, (from, to)| {
                        text.replacen(from, to, 1)
                    })
                    .into_bytes();
                if is_valid(*valid, &shaped) && seen.insert(shaped.clone()) {
                    seeds.insert(format!("{name}.shape{n}"), shaped);
                }
            }
        }
        if *target == "subagent_return" {
            for (name, bytes) in dispatched() {
                if seen.insert(bytes.clone()) {
                    seeds.insert(seed_name(&name), bytes);
                }
            }
        }
        out.insert(*target, seeds);
    }
    out
}

/// The `valid-*` seeds a target's directory holds.
fn present(target: &str) -> BTreeMap<String, Vec<u8>> {
    let dir = Path::new(ROOT).join("fuzz/seeds").join(target);
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with("valid-") {
            out.insert(name, std::fs::read(entry.path()).unwrap());
        }
    }
    out
}

// ---- the dictionary ---------------------------------------------------------

const DICTIONARY: &str = "fuzz/yaml-markdown.dict";

/// YAML and Markdown syntax, and the markers and shapes of the contracts.
const SYNTAX: &[&str] = &[
    "---\n",
    "...\n",
    ": ",
    "- ",
    "? ",
    "&a ",
    "*a",
    "<<: ",
    "!!str ",
    "!!int ",
    "!custom ",
    "|\n",
    ">-\n",
    "|+\n",
    "\"",
    "'",
    " #",
    "{",
    "}",
    "[",
    "]",
    ", ",
    "\t",
    "\r\n",
    "~",
    "null",
    "true",
    "false",
    ".inf",
    ".nan",
    "0x1F",
    "0o17",
    "1e400",
    "-0",
    "042",
    "1_000",
    "%YAML 1.2\n",
    "\u{feff}",
    "```yaml\n",
    "```yml\n",
    "```json\n",
    "```\n",
    "## ",
    "### ",
    "#### ",
    "**",
    "- **",
    "> ",
    "    ",
    "<!-- ",
    " -->",
    "<!-- mastermind:report-begin -->",
    "<!-- mastermind:report-end -->",
    "<!-- mastermind:audit-begin -->",
    "<!-- mastermind:audit-end -->",
    "VERIFY: ",
    "**VERIFY**: ",
    "[must-fix]",
    "[critical]",
    "[high]",
    "[medium]",
    "[low]",
    "[info]",
    " \u{2014} ",
    "j-login-4-01",
    "j-login-4-1-R-01",
    "pv-2-01",
    "ai-x-01",
    "Role: ",
    "Status: ",
    "# dispatch: ",
    "composer-j-login: ",
    "reviewer-j-login: ",
    "probe-j-cart: ",
    "phase-validator-2: ",
];

/// Every property name and every string of an `enum` or `const` in a schema.
fn schema_words(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                match key.as_str() {
                    "properties" | "patternProperties" => {
                        if let Value::Object(props) = inner {
                            out.extend(props.keys().filter(|k| !k.starts_with('^')).cloned());
                        }
                    }
                    "enum" => {
                        for item in inner.as_array().into_iter().flatten() {
                            if let Some(word) = item.as_str() {
                                out.insert(word.to_string());
                            }
                        }
                    }
                    "const" => {
                        if let Some(word) = inner.as_str() {
                            out.insert(word.to_string());
                        }
                    }
                    _ => {}
                }
                schema_words(inner, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| schema_words(item, out)),
        _ => {}
    }
}

/// A libFuzzer dictionary entry: the value in double quotes, `\` and `"`
/// escaped, anything outside printable ASCII as `\xNN`.
fn entry(value: &str) -> String {
    let mut out = String::from("\"");
    for byte in value.bytes() {
        match byte {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            0x20..=0x7e => out.push(byte as char),
            _ => out.push_str(&format!("\\x{byte:02X}")),
        }
    }
    out.push('"');
    out
}

fn dictionary() -> String {
    let mut words = BTreeSet::new();
    let mut schemas = Vec::new();
    files(&Path::new(ROOT).join("schemas"), &mut schemas);
    for schema in schemas
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
    {
        let value: Value = serde_json::from_slice(&std::fs::read(schema).unwrap()).unwrap();
        schema_words(&value, &mut words);
    }
    let mut out = String::from(
        "# libFuzzer dictionary for the document targets (-dict=yaml-markdown.dict).\n\
         # Generated by `UPDATE_SEEDS=1 cargo test --test contracts fuzz_seeds`: YAML and\n\
         # Markdown syntax, the contracts' markers, and every key and enum word of schemas/.\n\n",
    );
    for token in SYNTAX {
        out.push_str(&entry(token));
        out.push('\n');
    }
    out.push('\n');
    for word in &words {
        out.push_str(&entry(word));
        out.push('\n');
        out.push_str(&entry(&format!("{word}: ")));
        out.push('\n');
    }
    out
}

/// Parse a dictionary line as libFuzzer does: `"value"` or `name="value"`,
/// with `\\`, `\"` and `\xNN` escapes; comments and blank lines are none.
fn parse_entry(line: &str) -> Option<Result<Vec<u8>, String>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let quoted = match line.find('"') {
        Some(at) if line.ends_with('"') && line.len() > at + 1 => &line[at + 1..line.len() - 1],
        _ => return Some(Err(format!("not a quoted entry: {line}"))),
    };
    let mut out = Vec::new();
    let mut bytes = quoted.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'\\' => match bytes.next() {
                Some(b'\\') => out.push(b'\\'),
                Some(b'"') => out.push(b'"'),
                Some(b'x') => {
                    let hex: Vec<u8> = bytes.by_ref().take(2).collect();
                    let hex = std::str::from_utf8(&hex).unwrap_or("");
                    match u8::from_str_radix(hex, 16) {
                        Ok(v) => out.push(v),
                        Err(_) => return Some(Err(format!("bad \\x escape: {line}"))),
                    }
                }
                _ => return Some(Err(format!("bad escape: {line}"))),
            },
            b'"' => return Some(Err(format!("unescaped quote: {line}"))),
            0x20..=0x7e => out.push(b),
            _ => return Some(Err(format!("raw non-printable byte: {line}"))),
        }
    }
    Some(Ok(out))
}

fn update() -> bool {
    std::env::var_os("UPDATE_SEEDS").is_some()
}

#[test]
fn every_target_has_valid_seeds_of_every_shape_the_repository_has() {
    if update() {
        for (target, seeds) in &expected() {
            let dir = Path::new(ROOT).join("fuzz/seeds").join(target);
            for name in present(target).keys() {
                std::fs::remove_file(dir.join(name)).unwrap();
            }
            for (name, bytes) in seeds {
                std::fs::write(dir.join(name), bytes).unwrap();
            }
        }
    }
    let expected: BTreeMap<&str, BTreeMap<String, Vec<u8>>> = TARGETS
        .iter()
        .map(|(target, _)| (*target, present(target)))
        .collect();
    let mut invalid = Vec::new();
    for (target, valid) in TARGETS {
        for (name, bytes) in &expected[target] {
            let still_valid = if name.starts_with("valid-dispatched--") {
                // The description on the first line, the return after it.
                let at = bytes
                    .iter()
                    .position(|&b| b == b'\n')
                    .unwrap_or(bytes.len());
                let description = String::from_utf8_lossy(&bytes[..at]);
                let outcome =
                    dispatch::check_dispatched(&bytes[(at + 1).min(bytes.len())..], &description);
                matches!(outcome.route, DispatchRoute::Schema(_))
                    && !outcome.diagnostics.iter().any(|d| d.is_error())
            } else {
                is_valid(*valid, bytes)
            };
            if !still_valid {
                invalid.push(format!("{target}/{name}"));
            }
        }
    }
    assert!(
        invalid.is_empty(),
        "no longer valid documents of their target's kind: {invalid:?}; UPDATE_SEEDS=1 cargo test --test contracts fuzz_seeds"
    );
    // Every target gets documents to work on, and the kinds with roles get
    // every role the repository has an example of.
    for (target, seeds) in &expected {
        assert!(seeds.len() >= 2, "{target}: {} valid seeds", seeds.len());
    }
    let roles = |target: &str, pointer: &str| -> BTreeSet<String> {
        expected[target]
            .values()
            .filter_map(|bytes| {
                let text = std::str::from_utf8(bytes).ok()?;
                let body = text
                    .split_once('\n')
                    .filter(|(first, _)| !first.starts_with('{') && first.contains(": "))
                    .map_or(text, |(_, rest)| rest);
                let (_, value) = yaml::parse_core_keeping_nulls(body).ok()?;
                value.pointer(pointer)?.as_str().map(str::to_string)
            })
            .collect()
    };
    let returned = roles("subagent_return", "/handover/role");
    for prefix in ["composer", "reviewer", "probe", "phase-validator"] {
        assert!(
            returned.iter().any(|r| r.starts_with(prefix)),
            "a valid {prefix} return among the seeds: {returned:?}"
        );
    }
    let plastic: BTreeSet<String> = expected["plastic_report"]
        .values()
        .filter_map(|bytes| {
            let text = String::from_utf8_lossy(bytes);
            ["brainstorming", "spec", "planner", "executor", "reviewer"]
                .into_iter()
                .find(|role| {
                    text.lines().any(|l| {
                        l.to_ascii_lowercase().contains("role")
                            && l.to_ascii_lowercase().contains(role)
                    })
                })
                .map(str::to_string)
        })
        .collect();
    assert!(
        plastic.len() >= 4,
        "plastic roles among the seeds: {plastic:?}"
    );
}

#[test]
fn the_dictionary_is_libfuzzer_syntax_and_up_to_date() {
    let path = Path::new(ROOT).join(DICTIONARY);
    let generated = dictionary();
    if update() {
        std::fs::write(&path, &generated).unwrap();
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    for token in SYNTAX {
        assert!(
            written.contains(&entry(token)),
            "{DICTIONARY} lacks {token:?}: UPDATE_SEEDS=1 cargo test --test contracts fuzz_seeds"
        );
    }
    let mut entries = 0;
    for line in written.lines() {
        match parse_entry(line) {
            None => {}
            Some(Ok(value)) => {
                assert!(!value.is_empty(), "an empty entry");
                entries += 1;
            }
            Some(Err(why)) => panic!("{why}"),
        }
    }
    assert!(entries > 200, "{entries} entries");
    for key in [
        "schema_version",
        "files_modified",
        "next-action",
        "timeout_secs",
        "verdict",
    ] {
        assert!(written.contains(&entry(key)), "{key}");
    }
    // The parser is not vacuous.
    assert!(parse_entry("\"a\\q\"").unwrap().is_err());
    assert_eq!(parse_entry("kw=\"\\x41b\"").unwrap().unwrap(), b"Ab");
}

//! The verdicts and messages of the embedded schemas, held as recorded:
//! `tests/data/schema-verdicts.jsonl` holds documents, each with the errors
//! [`schema::validate`] reports for it under one or every embedded schema
//! (instance pointer, keyword, message, in the reported order), and the
//! test validates every document again and compares.
//!
//! The recorded data is what the project's own validator of the embedded
//! schemas reported (issue 25 to issue 50), held there by a differential
//! test against the `jsonschema` crate, which now validates them
//! (`src/schema/mod.rs`): over the whole corpus below both reported the same
//! errors, messages and order, so the switch changed no verdict and no
//! message. The documents, as that test built them: every JSON / YAML
//! document among the test and example fixtures (files, Markdown front
//! matter and fenced blocks) under every schema; the generated
//! subagent-return documents of `subagent_schema_equivalence`; documents
//! synthesized from each schema (one per choice of enum value, `oneOf` /
//! `anyOf` branch and type) and their systematic mutations (every value
//! dropped or replaced by a palette of types and edge values and the
//! schema's own enum values, unknown and known keys added at every level).
//! The file keeps every fixture document and an evenly spaced sample of the
//! others, so it does not change when a fixture is added elsewhere.
//!
//! A schema change that changes a recorded verdict fails here with the
//! document; when the change is meant, record again with
//! `UPDATE_SCHEMA_VERDICTS=1 cargo test --test contracts -- --ignored --exact
//! schema_differential::record_schema_verdicts` and review the file's diff.

use super::subagent_schema_equivalence as generated;
use mastermind_hooks::contract::yaml;
use mastermind_hooks::schema::{self, Keyword, SchemaId};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const RECORDED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/schema-verdicts.jsonl"
);

/// At most this many synthesized or generated documents are kept per schema.
const SAMPLE: usize = 60;

/// What `schema::validate` reports for `instance`: one `[pointer, keyword,
/// message]` per error, in order.
fn transcript(id: SchemaId, instance: &Value) -> Value {
    let errors = schema::validate(id, instance).expect("embedded schema compiles");
    Value::Array(
        errors
            .into_iter()
            .map(|error| {
                let keyword = match error.keyword {
                    Keyword::Unexpected(_) => "additionalProperties",
                    Keyword::MinLength => "minLength",
                    Keyword::Const => "const",
                    Keyword::Other => "other",
                };
                json!([error.pointer, keyword, error.message])
            })
            .collect(),
    )
}

// ---- documents from the fixtures -------------------------------------------

fn parse_document(text: &str, json: bool) -> Option<Value> {
    if json && let Ok(value) = serde_json::from_str(text) {
        return Some(value);
    }
    yaml::parse_strict(text).ok().map(|(_, value)| value)
}

/// Front matter and fenced `yaml` / `json` blocks of a Markdown text, each
/// with whether it is JSON.
fn markdown_texts(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    if lines.first().is_some_and(|l| l.trim_end() == "---")
        && let Some(end) = lines.iter().skip(1).position(|l| l.trim_end() == "---")
    {
        out.push((lines[1..=end].join("\n"), false));
    }
    let mut i = 0;
    while i < lines.len() {
        let fence = lines[i].trim_start();
        let kind = fence.strip_prefix("```").map(str::trim);
        if let Some(kind @ ("yaml" | "yml" | "json")) = kind
            && let Some(len) = lines[i + 1..]
                .iter()
                .position(|l| l.trim_start().starts_with("```"))
        {
            out.push((lines[i + 1..i + 1 + len].join("\n"), kind == "json"));
            i += len + 1;
        }
        i += 1;
    }
    out
}

/// The JSON and YAML documents of the fixture file `path` (`text`), each
/// with whether it is JSON: the file itself (`.json`, `.yaml`, `.yml`), or
/// its front matter and fenced blocks (`.md`); none for a platform's schema,
/// a document rather than an instance of ours.
pub(crate) fn document_texts(path: &Path, text: &str) -> Vec<(String, bool)> {
    if path.to_string_lossy().ends_with(".schema.json") {
        return Vec::new();
    }
    match path.extension().and_then(|e| e.to_str()) {
        Some("json") => vec![(text.to_string(), true)],
        Some("yaml" | "yml") => vec![(text.to_string(), false)],
        Some("md") => markdown_texts(text),
        _ => Vec::new(),
    }
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Every file of the fixture directories (the tests, the examples, the
/// docs book), each directory's entries in name order, depth first.
pub(crate) fn fixture_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in ["tests", "examples", "docs/src"] {
        files_under(&root.join(dir), &mut out);
    }
    out
}

fn fixture_documents() -> Vec<Value> {
    let mut out = Vec::new();
    for path in fixture_files() {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (text, json) in document_texts(&path, &text) {
            out.extend(parse_document(&text, json));
        }
    }
    out
}

// ---- documents synthesized from a schema ------------------------------------

fn schema_of(id: SchemaId) -> Value {
    serde_json::from_str(id.source()).expect("schema parses")
}

/// The subschema a `$ref` names: a pointer into `root` or the handover
/// envelope.
fn resolve<'a>(
    root: &'a Value,
    handover: &'a Value,
    reference: &str,
) -> Option<(&'a Value, &'a Value)> {
    let (document, pointer) = match reference.split_once('#') {
        Some(("", pointer)) => (root, pointer),
        Some((_, pointer)) => (handover, pointer),
        None => (handover, ""),
    };
    document.pointer(pointer).map(|s| (document, s))
}

/// An instance of `schema` (hopefully valid), `choice` selecting among enum
/// values, branches and types.
fn synthesize(
    root: &Value,
    handover: &Value,
    schema: &Value,
    choice: usize,
    depth: usize,
) -> Value {
    let Some(map) = schema.as_object() else {
        return json!({});
    };
    if depth > 12 {
        return Value::Null;
    }
    if let Some(value) = map.get("const") {
        return value.clone();
    }
    if let Some(Value::Array(options)) = map.get("enum")
        && !options.is_empty()
    {
        return options[choice % options.len()].clone();
    }
    let mut parts: Vec<Value> = Vec::new();
    if let Some(Value::String(reference)) = map.get("$ref")
        && let Some((document, target)) = resolve(root, handover, reference)
    {
        parts.push(synthesize(document, handover, target, choice, depth + 1));
    }
    for key in ["allOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            for branch in branches {
                parts.push(synthesize(root, handover, branch, choice, depth + 1));
            }
        }
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = map.get(key)
            && !branches.is_empty()
        {
            let branch = &branches[choice % branches.len()];
            parts.push(synthesize(root, handover, branch, choice / 2, depth + 1));
        }
    }
    if let Some(then) = map.get("then")
        && choice.is_multiple_of(2)
    {
        parts.push(synthesize(root, handover, then, choice, depth + 1));
    }
    let ty = match map.get("type") {
        Some(Value::String(ty)) => Some(ty.as_str()),
        Some(Value::Array(types)) if !types.is_empty() => types[choice % types.len()].as_str(),
        // Untyped: what the keywords imply.
        _ if map.contains_key("properties") || map.contains_key("required") => Some("object"),
        _ if map.contains_key("items") || map.contains_key("prefixItems") => Some("array"),
        _ if map.contains_key("minLength") || map.contains_key("pattern") => Some("string"),
        _ if map.contains_key("minimum") || map.contains_key("maximum") => Some("integer"),
        _ => None,
    };
    let own = match ty {
        Some("object") => {
            let mut object = Map::new();
            if let Some(Value::Object(properties)) = map.get("properties") {
                for (i, (key, subschema)) in properties.iter().enumerate() {
                    object.insert(
                        key.clone(),
                        synthesize(root, handover, subschema, choice + i, depth + 1),
                    );
                }
            }
            Some(Value::Object(object))
        }
        Some("array") => {
            let mut items = Vec::new();
            if let Some(Value::Array(prefix)) = map.get("prefixItems") {
                for item in prefix {
                    items.push(synthesize(root, handover, item, choice, depth + 1));
                }
            }
            if let Some(item) = map.get("items") {
                items.push(synthesize(root, handover, item, choice, depth + 1));
            }
            Some(Value::Array(items))
        }
        Some("string") => Some(json!("x")),
        Some("integer") => Some(map.get("minimum").cloned().unwrap_or(json!(1))),
        Some("number") => Some(json!(1.5)),
        Some("boolean") => Some(json!(choice.is_multiple_of(2))),
        Some("null") => Some(Value::Null),
        _ => None,
    };
    parts.extend(own);
    // Merge the parts: objects key by key, otherwise the last one.
    let mut merged: Option<Value> = None;
    for part in parts {
        merged = Some(match (merged, part) {
            (Some(Value::Object(mut a)), Value::Object(b)) => {
                for (key, value) in b {
                    a.entry(key).or_insert(value);
                }
                Value::Object(a)
            }
            (Some(Value::Object(a)), _) => Value::Object(a),
            (_, part) => part,
        });
    }
    merged.unwrap_or(json!({}))
}

/// Every string an `enum` or `const` names, and every property name.
fn schema_words(schema: &Value, strings: &mut BTreeSet<String>, keys: &mut BTreeSet<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("enum", Value::Array(options)) => {
                        strings
                            .extend(options.iter().filter_map(Value::as_str).map(str::to_string));
                    }
                    ("const", Value::String(s)) => {
                        strings.insert(s.clone());
                    }
                    ("properties", Value::Object(properties)) => {
                        keys.extend(properties.keys().cloned());
                    }
                    _ => {}
                }
                schema_words(value, strings, keys);
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|item| schema_words(item, strings, keys)),
        _ => {}
    }
}

fn seeds(id: SchemaId) -> Vec<Value> {
    let root = schema_of(id);
    let handover = schema_of(SchemaId::SubagentHandover);
    let mut seeds: Vec<Value> = Vec::new();
    for choice in 0..6 {
        let seed = synthesize(&root, &handover, &root, choice, 0);
        if !seeds.contains(&seed) {
            seeds.push(seed);
        }
    }
    seeds
}

/// The seeds, and every fixture document valid under the schema.
fn synthesized_documents(id: SchemaId, fixtures: &[Value]) -> Vec<Value> {
    let (mut strings, mut keys) = (BTreeSet::new(), BTreeSet::new());
    schema_words(&schema_of(id), &mut strings, &mut keys);
    schema_words(
        &schema_of(SchemaId::SubagentHandover),
        &mut strings,
        &mut keys,
    );
    let vocabulary: Vec<Value> = strings
        .into_iter()
        .chain(["Held", "j-X", "5x", "phase9"].map(str::to_string))
        .map(Value::String)
        .chain([
            json!(-2147483649_i64),
            json!(2147483648_i64),
            json!(4294967296_u64),
            json!(18446744073709551615_u64),
            json!(-9223372036854775808_i64),
            json!(1e300),
            json!(-0.5),
            json!(86401),
            json!(101),
            json!(["", 1]),
            json!([[]]),
            json!(["a", "b", "c", "d", "e", "f", "g", "h", "i"]),
            json!({"a": {"b": []}}),
            json!("é"),
        ])
        .collect();
    // Adding every known key at every level would multiply the corpus; a
    // spread of them does.
    let added: Vec<&str> = keys
        .iter()
        .map(String::as_str)
        .step_by(7)
        .chain(["undeclared-key", "Severity", "~/odd"])
        .collect();
    let mut out = Vec::new();
    let valid_fixtures = fixtures
        .iter()
        .filter(|document| schema::validate(id, document).is_ok_and(|errors| errors.is_empty()))
        .cloned();
    for seed in seeds(id).into_iter().chain(valid_fixtures) {
        out.extend(generated::mutations(&seed, &vocabulary, &added));
    }
    out
}

// ---- the recorded verdicts ------------------------------------------------

/// One recorded document: the document, and by schema name the errors.
struct Case {
    document: Value,
    verdicts: Map<String, Value>,
}

fn recorded() -> Vec<Case> {
    let text = std::fs::read_to_string(RECORDED).expect("tests/data/schema-verdicts.jsonl");
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let mut value: Value = serde_json::from_str(line).expect("a JSON line");
            let document = value["document"].take();
            let Value::Object(verdicts) = value["verdicts"].take() else {
                panic!("a line without verdicts: {line}");
            };
            Case { document, verdicts }
        })
        .collect()
}

fn id_named(name: &str) -> SchemaId {
    SchemaId::from_name(name).unwrap_or_else(|| panic!("no embedded schema {name}"))
}

#[test]
fn every_recorded_document_gets_its_recorded_errors() {
    let cases = recorded();
    let mut differences = Vec::new();
    let (mut valid, mut invalid) = (
        std::collections::BTreeMap::<&str, usize>::new(),
        std::collections::BTreeMap::<&str, usize>::new(),
    );
    for case in &cases {
        for (name, expected) in &case.verdicts {
            let id = id_named(name);
            let actual = transcript(id, &case.document);
            if expected.as_array().is_some_and(Vec::is_empty) {
                *valid.entry(id.name()).or_default() += 1;
            } else {
                *invalid.entry(id.name()).or_default() += 1;
            }
            if actual != *expected {
                differences.push(format!(
                    "{name}: {}\n recorded: {expected:#}\n now:      {actual:#}",
                    case.document
                ));
            }
        }
    }
    // Every schema has recorded documents it accepts and many it rejects.
    for &id in SchemaId::ALL {
        let (v, i) = (valid.get(id.name()), invalid.get(id.name()));
        assert!(
            v.is_some_and(|v| *v >= 1) && i.is_some_and(|i| *i >= 100),
            "{}: {v:?} valid and {i:?} invalid recorded documents",
            id.name()
        );
    }
    assert!(
        differences.is_empty(),
        "{} of {} recorded documents changed verdict or message (record again only if meant: \
         see the top of tests/contracts/schema_differential.rs); the first:\n{}",
        differences.len(),
        cases.len(),
        differences
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

/// The validators the build generates (`src/schema/generated.rs`), which
/// decide that a document is valid, against the one `jsonschema` compiles
/// from the same schema text at run time, which reports a rejected one's
/// errors: the same verdict for every document of the corpus the recorded
/// verdicts were sampled from, unsampled (every fixture document under
/// every schema, every synthesized and mutated document under its own),
/// and every recorded one.
#[test]
fn generated_validators_give_the_run_time_verdict() {
    let mut differences = Vec::new();
    let (mut compared, mut rejected) = (0usize, 0usize);
    let mut compare = |id: SchemaId, document: &Value| {
        let oracle = id
            .run_time_validator()
            .unwrap_or_else(|e| panic!("{} does not compile at run time: {e}", id.name()));
        let expected = oracle.is_valid(document);
        compared += 1;
        rejected += usize::from(!expected);
        if schema::is_valid(id, document) != expected && differences.len() < 3 {
            differences.push(format!(
                "{}: {document}\n run time says valid: {expected}",
                id.name()
            ));
        }
    };
    let fixtures = fixture_documents();
    for &id in SchemaId::ALL {
        for document in &fixtures {
            compare(id, document);
        }
        let mut documents = synthesized_documents(id, &fixtures);
        for (name, paired) in generated::PAIRS {
            if *paired == id {
                documents.extend(generated::documents(name));
            }
        }
        for document in &documents {
            compare(id, document);
        }
    }
    for case in recorded() {
        for name in case.verdicts.keys() {
            compare(id_named(name), &case.document);
        }
    }
    assert!(
        compared > 10_000 && rejected > compared / 2 && rejected < compared,
        "{compared} documents compared, {rejected} of them rejected"
    );
    assert!(
        differences.is_empty(),
        "generated and run-time validators disagree; the first:\n{}",
        differences.join("\n\n")
    );
    eprintln!("{compared} documents compared, {rejected} rejected");
}

/// Strings at the edges of the schemas' patterns (case-insensitive
/// alternatives, optional groups, counted repetitions, anchors): put in
/// place of every string of every document some schema accepts, each
/// document judged by the generated and the run-time validator alike.
#[test]
fn pattern_edges_get_the_run_time_verdict() {
    const EDGES: &[&str] = &[
        "held",
        "HELD",
        "Held",
        "hElD",
        "held ",
        " held",
        "heldx",
        "xheld",
        "drift",
        "BROKEN",
        "",
        "1m",
        "1m2s",
        "2s",
        "m",
        "1h",
        "1m2",
        "j-a",
        "j-",
        "J-a",
        "j-a-1-2-R-03",
        "j-a-1-2-R-3",
        "perf-reviewer-phase7",
        "perf-reviewer-phase8",
        "perf-reviewer-pass-soak",
        "workflow-reviewer-cycle5",
        "workflow-reviewer-cycle6",
        "plumber-x",
        "plumber-",
        "abc_1",
        "ABC",
        "a-b",
        "0123456789abcdef0123456789abcdef01234567",
        "é",
        "\n",
    ];
    fn strings(value: &Value, at: String, out: &mut Vec<String>) {
        match value {
            Value::String(_) => out.push(at),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    strings(item, format!("{at}/{i}"), out);
                }
            }
            Value::Object(map) => {
                for (key, item) in map {
                    let key = key.replace('~', "~0").replace('/', "~1");
                    strings(item, format!("{at}/{key}"), out);
                }
            }
            _ => {}
        }
    }
    let fixtures = fixture_documents();
    let (mut compared, mut accepted) = (0usize, 0usize);
    for &id in SchemaId::ALL {
        let oracle = id.run_time_validator().expect("compiles at run time");
        for document in fixtures.iter().filter(|d| oracle.is_valid(d)) {
            let mut pointers = Vec::new();
            strings(document, String::new(), &mut pointers);
            for pointer in &pointers {
                for edge in EDGES {
                    let mut changed = document.clone();
                    if let Some(slot) = changed.pointer_mut(pointer) {
                        *slot = Value::String((*edge).to_string());
                    }
                    let expected = oracle.is_valid(&changed);
                    compared += 1;
                    accepted += usize::from(expected);
                    assert_eq!(
                        schema::is_valid(id, &changed),
                        expected,
                        "{}: {pointer} = {edge:?} in {document}",
                        id.name()
                    );
                }
            }
        }
    }
    assert!(
        compared > 5_000 && accepted > 500 && accepted < compared,
        "{compared} compared, {accepted} accepted"
    );
    eprintln!("{compared} pattern edges compared, {accepted} accepted");
}

/// Every `step`-th of `documents`, at most [`SAMPLE`].
fn sample(documents: Vec<Value>) -> Vec<Value> {
    let step = documents.len().div_ceil(SAMPLE).max(1);
    documents.into_iter().step_by(step).collect()
}

/// Record the verdicts again from the corpus the tree builds today (see the
/// top of the file).
#[test]
#[ignore = "rewrites tests/data/schema-verdicts.jsonl; needs UPDATE_SCHEMA_VERDICTS=1"]
fn record_schema_verdicts() {
    assert!(
        std::env::var_os("UPDATE_SCHEMA_VERDICTS").is_some(),
        "set UPDATE_SCHEMA_VERDICTS=1 to record the verdicts again"
    );
    let mut lines = Vec::new();
    let mut line = |document: &Value, ids: &[SchemaId]| {
        let verdicts: Map<String, Value> = ids
            .iter()
            .map(|id| (id.name().to_string(), transcript(*id, document)))
            .collect();
        lines.push(json!({"document": document, "verdicts": verdicts}).to_string());
    };
    let fixtures = fixture_documents();
    for document in &fixtures {
        line(document, SchemaId::ALL);
    }
    for &id in SchemaId::ALL {
        let mut documents = synthesized_documents(id, &fixtures);
        for (name, paired) in generated::PAIRS {
            if *paired == id {
                documents.extend(generated::documents(name));
            }
        }
        for document in sample(documents) {
            line(&document, &[id]);
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    std::fs::write(RECORDED, text).expect("write tests/data/schema-verdicts.jsonl");
}

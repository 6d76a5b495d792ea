//! The in-house validator of the embedded schemas (`src/schema/validator.rs`)
//! against the `jsonschema` crate as the oracle: for every embedded schema
//! and every document of a corpus, both report the same errors — the same
//! (instance pointer, schema keyword path, message, kind) — in the same
//! order.
//!
//! The corpus, per schema: every JSON / YAML document among the test and
//! example fixtures (files, Markdown front matter and fenced blocks),
//! validated against every schema; the generated subagent-return documents
//! of `subagent_schema_equivalence`; documents synthesized from each schema
//! (one per choice of enum value, `oneOf` / `anyOf` branch and type) and
//! their systematic mutations (every value dropped or replaced by a palette
//! of types and edge values and the schema's own enum values, unknown and
//! known keys added at every level); and proptest chains of random
//! mutations of those.
//!
//! No known difference in order or wording remains; a new one fails here
//! with the document that shows it. `SCHEMA_DIFFERENTIAL_STATS=1` (with
//! `--nocapture`) prints, per schema, how many documents were compared, how
//! many are valid and the errors by keyword.

use super::subagent_schema_equivalence as generated;
use mastermind_hooks::contract::yaml;
use mastermind_hooks::schema::{self, SchemaId, validator::ErrorKind};
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// (instance pointer, schema keyword path, message, kind).
type Reported = (String, String, String, String);

fn oracle(id: SchemaId) -> &'static jsonschema::Validator {
    static ORACLES: OnceLock<Vec<jsonschema::Validator>> = OnceLock::new();
    let all = ORACLES.get_or_init(|| {
        let handover: Value =
            serde_json::from_str(SchemaId::SubagentHandover.source()).expect("handover parses");
        let uri = handover["$id"]
            .as_str()
            .expect("handover has $id")
            .to_string();
        let registry = jsonschema::Registry::new()
            .add(uri, handover)
            .and_then(|builder| builder.prepare())
            .expect("registry");
        SchemaId::ALL
            .iter()
            .map(|id| {
                let schema: Value = serde_json::from_str(id.source()).expect("schema parses");
                jsonschema::draft202012::options()
                    .with_registry(&registry)
                    .build(&schema)
                    .expect("the oracle compiles the schema")
            })
            .collect()
    });
    let position = SchemaId::ALL
        .iter()
        .position(|other| *other == id)
        .expect("listed");
    &all[position]
}

fn theirs(id: SchemaId, instance: &Value) -> Vec<Reported> {
    use jsonschema::error::ValidationErrorKind;
    oracle(id)
        .iter_errors(instance)
        .map(|error| {
            let kind = match error.kind() {
                ValidationErrorKind::AdditionalProperties { unexpected } => {
                    format!("additionalProperties {unexpected:?}")
                }
                ValidationErrorKind::MinLength { .. } => "minLength".to_string(),
                ValidationErrorKind::Constant { .. } => "const".to_string(),
                _ => "other".to_string(),
            };
            (
                error.instance_path().as_str().to_string(),
                error.schema_path().as_str().to_string(),
                error.to_string(),
                kind,
            )
        })
        .collect()
}

fn ours(id: SchemaId, instance: &Value) -> Vec<Reported> {
    schema::validation_errors(id, instance)
        .expect("embedded schema compiles")
        .into_iter()
        .map(|error| {
            let kind = match error.kind {
                ErrorKind::AdditionalProperties { unexpected } => {
                    format!("additionalProperties {unexpected:?}")
                }
                ErrorKind::MinLength => "minLength".to_string(),
                ErrorKind::Const => "const".to_string(),
                ErrorKind::Other => "other".to_string(),
            };
            (error.instance_path, error.schema_path, error.message, kind)
        })
        .collect()
}

/// Compare both validators on one document; the difference, if any.
fn differs(id: SchemaId, instance: &Value) -> Option<String> {
    let (ours, theirs) = (ours(id, instance), theirs(id, instance));
    (ours != theirs).then(|| {
        format!(
            "{}: {}\n ours:   {ours:#?}\n theirs: {theirs:#?}",
            id.name(),
            serde_json::to_string(instance).unwrap_or_default()
        )
    })
}

/// Compare on every document; panics naming the first few differences.
fn assert_same(id: SchemaId, documents: &[Value]) -> usize {
    if std::env::var_os("SCHEMA_DIFFERENTIAL_STATS").is_some() {
        let mut kinds = std::collections::BTreeMap::<String, usize>::new();
        let mut valid = 0;
        for document in documents {
            let errors = ours(id, document);
            valid += usize::from(errors.is_empty());
            for (_, path, _, _) in errors {
                let keyword = path.rsplit('/').next().unwrap_or_default().to_string();
                *kinds.entry(keyword).or_default() += 1;
            }
        }
        eprintln!(
            "{}: {} documents, {valid} valid, errors by keyword {kinds:?}",
            id.name(),
            documents.len()
        );
    }
    let differences: Vec<String> = documents
        .iter()
        .filter_map(|document| differs(id, document))
        .take(3)
        .collect();
    assert!(
        differences.is_empty(),
        "{} differences, the first:\n{}",
        differences.len(),
        differences.join("\n\n")
    );
    documents.len()
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
        .filter(|document| ours(id, document).is_empty())
        .cloned();
    for seed in seeds(id).into_iter().chain(valid_fixtures) {
        out.extend(generated::mutations(&seed, &vocabulary, &added));
    }
    out
}

// ---- the tests ---------------------------------------------------------------

#[test]
fn every_fixture_document_gets_the_oracles_errors_from_every_schema() {
    let documents = fixture_documents();
    assert!(
        documents.len() > 50,
        "only {} fixture documents",
        documents.len()
    );
    let mut compared = 0;
    for &id in SchemaId::ALL {
        compared += assert_same(id, &documents);
    }
    eprintln!(
        "fixture documents: {} ({compared} comparisons)",
        documents.len()
    );
}

#[test]
fn generated_subagent_returns_get_the_oracles_errors() {
    let mut compared = 0;
    for (name, id) in generated::PAIRS {
        compared += assert_same(*id, &generated::documents(name));
    }
    eprintln!("generated subagent returns: {compared} comparisons");
}

#[test]
fn synthesized_documents_and_their_mutations_get_the_oracles_errors() {
    let fixtures = fixture_documents();
    let mut compared = 0;
    for &id in SchemaId::ALL {
        let documents = synthesized_documents(id, &fixtures);
        // The seeds reach deep: most of each schema is exercised.
        assert!(documents.len() > 100, "{}: {}", id.name(), documents.len());
        compared += assert_same(id, &documents);
    }
    eprintln!("synthesized documents: {compared} comparisons");
}

#[derive(Clone, Debug)]
enum Mutation {
    Remove(usize),
    Replace(usize, usize),
    Add(usize, usize, usize),
    Wrap(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Remove),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Replace(a, b)),
        (any::<usize>(), any::<usize>(), any::<usize>())
            .prop_map(|(a, b, c)| Mutation::Add(a, b, c)),
        any::<usize>().prop_map(Mutation::Wrap),
    ]
}

fn apply(document: Value, mutation: &Mutation, words: &[Value], keys: &[String]) -> Value {
    let pointers = generated::pointers(&document);
    let palette: Vec<Value> = generated::palette()
        .into_iter()
        .chain(words.iter().cloned())
        .collect();
    let at = |i: usize| pointers[i % pointers.len()].clone();
    match mutation {
        Mutation::Remove(i) => generated::with_removed(&document, &at(*i)).unwrap_or(document),
        Mutation::Replace(i, v) => {
            generated::with_replaced(&document, &at(*i), palette[v % palette.len()].clone())
        }
        Mutation::Add(i, k, v) => {
            let key = keys
                .get(k % keys.len().max(1))
                .map_or("undeclared-key", String::as_str);
            generated::with_added(&document, &at(*i), key, palette[v % palette.len()].clone())
                .unwrap_or(document)
        }
        Mutation::Wrap(i) => {
            let pointer = at(*i);
            let inner = document.pointer(&pointer).cloned().unwrap_or(Value::Null);
            generated::with_replaced(&document, &pointer, json!([inner, {"x": [inner]}]))
        }
    }
}

/// What the embedded schemas do not use today but the validator supports
/// (a `false` subschema, `additionalProperties: false` without
/// `properties`, `oneOf` with several passing branches, a one-name `type`
/// array), on ad hoc schemas.
#[test]
fn ad_hoc_schemas_get_the_oracles_errors() {
    use mastermind_hooks::schema::validator::{Document, Validator};
    let cases = [
        (
            json!({"properties": {"a": false}}),
            vec![json!({"a": 1}), json!({"b": 1})],
        ),
        (
            json!({"additionalProperties": false}),
            vec![json!({}), json!({"b": 1, "a": [2]})],
        ),
        (
            json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]}),
            vec![json!(1), json!(-1), json!(-1.5), json!("x")],
        ),
        (
            json!({"type": ["string"], "minLength": 1}),
            vec![json!(1), json!(""), json!("é")],
        ),
        (
            json!({"items": false, "type": "array"}),
            vec![json!([]), json!([1, 2])],
        ),
        (
            json!({"if": {"type": "string"}, "else": false, "then": {"maxItems": 0}}),
            vec![json!(1), json!("x")],
        ),
        (
            json!({"enum": ["a", "b", "c", "d", 1], "const": 1.0}),
            vec![json!(1), json!("a"), json!(2)],
        ),
        (
            json!({"properties": {"a": {"type": "string"}, "b": {}}, "additionalProperties": {"type": "integer"}, "required": ["b", "z"]}),
            vec![json!({"a": 1, "c": "x", "0": "y"}), json!([])],
        ),
        (
            json!({"properties": {"a/b~c": {"type": "string"}}, "additionalProperties": false, "required": ["q"]}),
            vec![json!({"a/b~c": 1, "x/y": 2, "~": 3})],
        ),
    ];
    for (schema, instances) in cases {
        let ours = Validator::compile(&[Document {
            id: "",
            contents: &schema,
        }])
        .expect("compiles");
        let theirs = jsonschema::draft202012::new(&schema).expect("the oracle compiles it");
        for instance in instances {
            let ours: Vec<(String, String, String)> = ours
                .errors(&instance)
                .into_iter()
                .map(|e| (e.instance_path, e.schema_path, e.message))
                .collect();
            let theirs: Vec<(String, String, String)> = theirs
                .iter_errors(&instance)
                .map(|e| {
                    (
                        e.instance_path().as_str().to_string(),
                        e.schema_path().as_str().to_string(),
                        e.to_string(),
                    )
                })
                .collect();
            assert_eq!(ours, theirs, "{schema} on {instance}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn chains_of_random_mutations_get_the_oracles_errors(
        schema in 0..SchemaId::ALL.len(),
        seed in any::<usize>(),
        chain in proptest::collection::vec(mutation(), 1..6),
    ) {
        let id = SchemaId::ALL[schema];
        let seeds = seeds(id);
        let (mut strings, mut keys) = (BTreeSet::new(), BTreeSet::new());
        schema_words(&schema_of(id), &mut strings, &mut keys);
        let words: Vec<Value> = strings.into_iter().map(Value::String).collect();
        let keys: Vec<String> = keys.into_iter().collect();
        let mut document = seeds[seed % seeds.len()].clone();
        for mutation in &chain {
            document = apply(document, mutation, &words, &keys);
        }
        prop_assert!(differs(id, &document).is_none(), "{}", differs(id, &document).unwrap_or_default());
    }
}

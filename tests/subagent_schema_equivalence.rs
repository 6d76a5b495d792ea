//! This project's subagent-return schemas (`schemas/subagent-returns/`) are
//! equivalent to the reference schemas (`../shared/contracts/reference-schemas/`,
//! read at test time, never vendored): both are run over the same generated
//! documents and must give the same accept/reject verdict on every one.
//!
//! The documents: valid returns for every status of every role; systematic
//! mutations of each (every key dropped, every value replaced by a palette of
//! types and edge values, off-enum and cross-role enum values, extra and
//! known keys added at every level, the envelope removed, non-object roots);
//! and proptest-driven chains of random mutations and arbitrary JSON.

use mastermind_hooks::schema::{self, SchemaId};
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::LazyLock;

const REFERENCE_BASE: &str =
    "https://civitas-cerebrum.github.io/element-interactions/schemas/subagent-returns/";

fn reference_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/contracts/reference-schemas")
}

fn read_reference(name: &str) -> Value {
    let path = reference_dir().join(format!("{name}.schema.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "reference schema {} is missing ({e}); the tests need ../shared beside the clone",
            path.display()
        )
    });
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every reference schema, each paired with this project's schema.
const PAIRS: &[(&str, SchemaId)] = &[
    ("handover", SchemaId::SubagentHandover),
    ("composer", SchemaId::SubagentComposer),
    ("reviewer-inloop", SchemaId::SubagentReviewerInloop),
    ("probe", SchemaId::SubagentProbe),
    ("phase-validator", SchemaId::SubagentPhaseValidator),
    ("section-agent", SchemaId::SubagentSectionAgent),
    (
        "phase4-prioritise-author",
        SchemaId::SubagentPhase4PrioritiseAuthor,
    ),
    ("workflow-reviewer", SchemaId::SubagentWorkflowReviewer),
    ("perf-reviewer", SchemaId::SubagentPerfReviewer),
    ("repair-worker", SchemaId::SubagentRepairWorker),
    ("plumber", SchemaId::SubagentPlumber),
];

struct Reference {
    validators: Vec<(String, jsonschema::Validator)>,
}

static REFERENCE: LazyLock<Reference> = LazyLock::new(|| {
    let handover = read_reference("handover");
    let registry = jsonschema::Registry::new()
        .add(format!("{REFERENCE_BASE}handover.schema.json"), handover)
        .and_then(|b| b.prepare())
        .expect("reference registry");
    let validators = PAIRS
        .iter()
        .map(|(name, _)| {
            let schema = read_reference(name);
            let validator = jsonschema::draft202012::options()
                .with_registry(&registry)
                .build(&schema)
                .unwrap_or_else(|e| panic!("reference {name} does not compile: {e}"));
            (name.to_string(), validator)
        })
        .collect();
    Reference { validators }
});

fn reference_valid(name: &str, document: &Value) -> bool {
    REFERENCE
        .validators
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.is_valid(document))
        .expect("known reference")
}

fn ours_valid(id: SchemaId, document: &Value) -> bool {
    schema::validate(id, document)
        .expect("embedded schema compiles")
        .is_empty()
}

/// Compare both verdicts on `document`; return the verdict.
fn same_verdict(name: &str, id: SchemaId, document: &Value) -> Result<bool, String> {
    let reference = reference_valid(name, document);
    let ours = ours_valid(id, document);
    if reference == ours {
        Ok(ours)
    } else {
        Err(format!(
            "{name}: reference says {}, ours says {} for {document}",
            verdict(reference),
            verdict(ours)
        ))
    }
}

fn verdict(valid: bool) -> &'static str {
    if valid { "valid" } else { "invalid" }
}

fn handover(role: &str, status: &str) -> Value {
    json!({"role": role, "cycle": 1, "status": status, "next-action": "advance"})
}

/// Valid seed documents: every status of every role, with optional fields.
fn seeds(name: &str) -> Vec<Value> {
    match name {
        "handover" => vec![
            handover("composer-j-x", "anything"),
            json!({"role": "r", "status": "", "next-action": "n", "cycle": "1",
                   "dispatch-mode": "per-journey", "parallel-wave-size": 2, "extra": true}),
        ],
        "composer" => vec![
            json!({"handover": handover("composer-j-x", "new-tests-landed"), "journey": "j-x",
                   "pass": 1, "tests-added": 2, "run-time": "4m30s", "summary": "s",
                   "spill": "p", "cleanup": "done"}),
            json!({"handover": handover("composer-j-x", "covered-exhaustively"), "spill": "p"}),
            json!({"handover": handover("composer-j-x", "blocked"), "blocked-reason": "r"}),
            json!({"handover": handover("composer-j-x", "skipped"), "skip-authorisation": "user"}),
        ],
        "reviewer-inloop" => {
            let finding = json!({"id": "j-x-1-2-R-01", "priority": "must-fix", "title": "t",
                                 "scope": "s", "expected": "e", "observed": "o", "coverage": "none"});
            vec![
                json!({"handover": handover("reviewer-j-x", "greenlight"), "journey": "j-x",
                       "pass": 1, "cycle": 1, "summary": "s"}),
                json!({"handover": handover("reviewer-j-x", "improvements-needed"),
                       "missing-scenarios": [finding.clone()], "craft-issues": [finding.clone()],
                       "verification-misses": [finding]}),
                json!({"handover": handover("reviewer-batch-pass-1-x", "batch-complete")}),
            ]
        }
        "probe" => vec![
            json!({"handover": handover("probe-j-x", "findings-emitted"), "journey": "j-x",
                   "findings-emitted": 2, "finding-ids": ["j-x-4-01", "j-x-4-02"],
                   "tests-added": 0, "summary": "s", "spill": "p"}),
            json!({"handover": handover("probe-j-x", "clean")}),
            json!({"handover": handover("probe-j-x", "blocked"), "blocked-reason": "r"}),
        ],
        "phase-validator" => vec![
            json!({"handover": handover("phase-validator", "greenlight"), "phase": 2,
                   "sub-skill": "s", "exit-criteria-checked": [{"criterion": "c"}],
                   "findings": [], "summary": "s"}),
            json!({"handover": handover("phase-validator", "improvements-needed"), "phase": 8,
                   "findings": [{"id": "pv-2-01"}], "summary": "s"}),
        ],
        "section-agent" => vec![
            json!({"handover": handover("phase4-cycle-1", "section-complete"), "section": "s",
                   "spill": "p", "cycle": 1, "kind": "section", "routes-driven": ["/a"],
                   "routes-suggested": ["/b"], "flows-identified": 1,
                   "state-variations-recorded": 0,
                   "new-sections-discovered": [{"id": "n", "rationale": "r"}],
                   "gated-deferred-to-coverage-expansion": [{"section": "g", "reason": "r"}],
                   "summary": "s"}),
            json!({"handover": handover("phase4-cycle-1", "section-deferred"), "kind": "edge-probe",
                   "edge-findings": [{"id": "e", "summary": "s"}]}),
            // Without `kind`, the edge-probe condition holds vacuously and
            // demands edge-findings: `kind` is in effect required.
            json!({"handover": handover("phase4-cycle-1", "blocked"), "kind": "section"}),
        ],
        "phase4-prioritise-author" => vec![
            json!({"handover": handover("phase4-prioritise-author", "journey-map-authored"),
                   "journey-map": {"path": "p", "pages-discovered": 1, "flows-identified": 2,
                                   "priority-breakdown": {"P0": 1, "P1": 0, "P2": 0, "P3": 1}},
                   "cycles-consumed": 1, "convergence-status": "converged",
                   "gated-areas-not-mapped": 0, "mapping-completeness-note": "n", "summary": "s"}),
            json!({"handover": handover("phase4-prioritise-author", "blocked"), "blocked-reason": "r"}),
        ],
        "workflow-reviewer" | "perf-reviewer" => {
            let role = if name == "workflow-reviewer" {
                "workflow-reviewer-phase2"
            } else {
                "perf-reviewer-pass-load"
            };
            let finding = json!({"checklist-item": "c", "what-missing": "w", "fix-instruction": "f",
                                 "methodology-ref": "m"});
            vec![
                json!({"handover": handover(role, "approved"), "verdict": "approve", "phase": 2,
                       "attestation": "a", "authorizer": "u", "reviewerCycle": 1, "summary": "s",
                       "checklist": [{"item": "i", "satisfied": true, "evidence": "e",
                                      "methodology-ref": "m"}], "findings": []}),
                json!({"handover": handover(role, "rejected"), "verdict": "reject", "phase": null,
                       "pass": null, "findings": [finding.clone()]}),
                json!({"handover": handover(role, "escalated-to-user"), "verdict": "escalate",
                       "findings": [finding], "checklist": [{"item": "i", "satisfied": false}]}),
            ]
        }
        "repair-worker" => vec![
            json!({"handover": handover("repair-worker-x", "completed"), "file": "f.spec.ts",
                   "tests": [
                       {"title": "a", "outcome": "healed", "fix": "f", "baseline-pattern": "green",
                        "stability-runs": {"passed": 3, "total": 3}, "root-cause": "r",
                        "understanding": "u", "notes": "n"},
                       {"title": "b", "outcome": "app-bug",
                        "bug-report": {"summary": "s", "expected-behaviour": "e",
                                       "actual-behaviour": "a", "confidence": "high",
                                       "evidence": ["x.png"]}},
                       {"title": "c", "outcome": "known-defect"}],
                   "stage-log": [{"stage": "reproduce", "test": "a", "detail": "d"}],
                   "observations": ["o"], "summary": "s"}),
            json!({"handover": handover("repair-worker-x", "blocked"), "file": "f",
                   "tests": [{"title": "a", "outcome": "unresolved"}]}),
        ],
        "plumber" => vec![
            json!({"handover": handover("plumber-hooks", "repaired"), "approval": "a",
                   "diagnosis": "d", "changes": [{"target": "t", "action": "edited", "why": "w"}],
                   "verification": "v", "ledgerRow": {"k": 1}, "followUps": ["f"]}),
            json!({"handover": handover("plumber-hooks", "no-change-needed"), "approval": "a",
                   "diagnosis": "d", "changes": [], "verification": "v", "ledgerRow": null}),
        ],
        other => panic!("no seeds for {other}"),
    }
}

/// Values every position is tried with.
fn palette() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(false),
        json!(0),
        json!(-1),
        json!(1),
        json!(2),
        json!(3),
        json!(4),
        json!(5),
        json!(6),
        json!(7),
        json!(8),
        json!(9),
        json!(1.5),
        json!(1.0),
        json!(""),
        json!("x"),
        json!("1"),
        json!("4m"),
        json!("12s"),
        json!("4m30s"),
        json!("j-x"),
        json!("J-x"),
        json!("j-x-1-2-R-01"),
        json!("j-x-1-2-R-1"),
        json!("must-fix"),
        json!([]),
        json!(["x"]),
        json!([1]),
        json!([{}]),
        json!({}),
        json!({"x": 1}),
    ]
}

/// Every string that appears as an enum or const value in any schema, and
/// role strings for the role patterns.
fn vocabulary() -> Vec<Value> {
    let mut words = BTreeSet::new();
    fn collect(value: &Value, words: &mut BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                for (key, item) in map {
                    if key == "enum" || key == "const" {
                        match item {
                            Value::Array(items) => {
                                for i in items {
                                    if let Value::String(s) = i {
                                        words.insert(s.clone());
                                    }
                                }
                            }
                            Value::String(s) => {
                                words.insert(s.clone());
                            }
                            _ => {}
                        }
                    }
                    collect(item, words);
                }
            }
            Value::Array(items) => items.iter().for_each(|i| collect(i, words)),
            _ => {}
        }
    }
    for (name, _) in PAIRS {
        collect(&read_reference(name), &mut words);
    }
    for extra in [
        "bogus",
        "workflow-reviewer-phase8",
        "workflow-reviewer-phase9",
        "workflow-reviewer-pass5",
        "workflow-reviewer-cycle6",
        "perf-reviewer-phase7",
        "perf-reviewer-phase8",
        "perf-reviewer-pass-soak",
        "perf-reviewer-pass-burst",
        "plumber-fix-hooks",
        "plumber-Fix",
        "plumber-",
        "no-new-tests",
    ] {
        words.insert(extra.to_string());
    }
    words.into_iter().map(Value::String).collect()
}

/// Every property name any schema declares, plus one nobody declares.
fn known_keys() -> Vec<String> {
    let mut keys = BTreeSet::new();
    fn collect(value: &Value, keys: &mut BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                for (key, item) in map {
                    if key == "properties"
                        && let Value::Object(props) = item
                    {
                        keys.extend(props.keys().cloned());
                    }
                    if key == "required"
                        && let Value::Array(names) = item
                    {
                        keys.extend(names.iter().filter_map(|n| n.as_str().map(String::from)));
                    }
                    collect(item, keys);
                }
            }
            Value::Array(items) => items.iter().for_each(|i| collect(i, keys)),
            _ => {}
        }
    }
    for (name, _) in PAIRS {
        collect(&read_reference(name), &mut keys);
    }
    keys.insert("undeclared-key".to_string());
    keys.into_iter().collect()
}

/// Every JSON pointer in `value`, parents first.
fn pointers(value: &Value) -> Vec<String> {
    fn walk(value: &Value, pointer: String, out: &mut Vec<String>) {
        out.push(pointer.clone());
        match value {
            Value::Object(map) => {
                for (key, item) in map {
                    walk(
                        item,
                        format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1")),
                        out,
                    );
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    walk(item, format!("{pointer}/{index}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, String::new(), &mut out);
    out
}

fn split_last(pointer: &str) -> Option<(&str, String)> {
    let (parent, last) = pointer.rsplit_once('/')?;
    Some((parent, last.replace("~1", "/").replace("~0", "~")))
}

fn with_replaced(document: &Value, pointer: &str, value: Value) -> Value {
    let mut copy = document.clone();
    if pointer.is_empty() {
        return value;
    }
    if let Some(slot) = copy.pointer_mut(pointer) {
        *slot = value;
    }
    copy
}

fn with_removed(document: &Value, pointer: &str) -> Option<Value> {
    let (parent, key) = split_last(pointer)?;
    let mut copy = document.clone();
    match copy.pointer_mut(parent)? {
        Value::Object(map) => {
            map.remove(&key)?;
        }
        Value::Array(items) => {
            let index: usize = key.parse().ok()?;
            if index < items.len() {
                items.remove(index);
            }
        }
        _ => return None,
    }
    Some(copy)
}

fn with_added(document: &Value, pointer: &str, key: &str, value: Value) -> Option<Value> {
    let mut copy = document.clone();
    match copy.pointer_mut(pointer)? {
        Value::Object(map) => {
            map.insert(key.to_string(), value);
            Some(copy)
        }
        _ => None,
    }
}

/// The systematic mutations of one seed.
fn mutations(seed: &Value, vocabulary: &[Value], keys: &[String]) -> Vec<Value> {
    let palette = palette();
    let mut out = vec![seed.clone()];
    for pointer in pointers(seed) {
        if let Some(removed) = with_removed(seed, &pointer) {
            out.push(removed);
        }
        for value in palette.iter().chain(vocabulary) {
            out.push(with_replaced(seed, &pointer, value.clone()));
        }
        if seed.pointer(&pointer).is_some_and(Value::is_object) {
            for key in keys {
                for value in [
                    json!("x"),
                    json!(1),
                    json!([]),
                    json!({}),
                    Value::Null,
                    json!(true),
                ] {
                    if let Some(added) = with_added(seed, &pointer, key, value) {
                        out.push(added);
                    }
                }
            }
        }
    }
    // Whole-document variants: no envelope, an envelope of every kind, roots
    // that are not objects.
    if let Some(map) = seed.as_object() {
        let mut without: Map<String, Value> = map.clone();
        without.remove("handover");
        out.push(Value::Object(without.clone()));
        if seed.get("handover").is_some_and(Value::is_object) {
            for status in vocabulary {
                out.push(with_replaced(seed, "/handover/status", status.clone()));
                out.push(with_replaced(seed, "/handover/role", status.clone()));
            }
            if let Some(without_status) = with_removed(seed, "/handover/status") {
                out.push(without_status);
            }
        }
    }
    out.extend(palette);
    out
}

#[test]
fn every_reference_schema_is_present_and_paired() {
    let mut on_disk: Vec<String> = std::fs::read_dir(reference_dir())
        .expect("../shared/contracts/reference-schemas")
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().map(String::from))
        .filter_map(|n| n.strip_suffix(".schema.json").map(String::from))
        .collect();
    on_disk.sort();
    let mut paired: Vec<String> = PAIRS.iter().map(|(n, _)| n.to_string()).collect();
    paired.sort();
    assert_eq!(
        on_disk, paired,
        "every reference schema needs a counterpart"
    );
}

#[test]
fn systematic_mutations_get_the_same_verdict() {
    let vocabulary = vocabulary();
    let keys = known_keys();
    let mut failures = Vec::new();
    for (name, id) in PAIRS {
        let (mut valid, mut invalid) = (0usize, 0usize);
        for seed in seeds(name) {
            assert!(
                reference_valid(name, &seed),
                "{name} seed is not valid: {seed}"
            );
            for document in mutations(&seed, &vocabulary, &keys) {
                match same_verdict(name, *id, &document) {
                    Ok(true) => valid += 1,
                    Ok(false) => invalid += 1,
                    Err(message) => failures.push(message),
                }
            }
        }
        // Both verdicts are exercised, many times, for every schema.
        assert!(
            valid >= 100,
            "{name}: only {valid} valid documents generated"
        );
        assert!(
            invalid >= 100,
            "{name}: only {invalid} invalid documents generated"
        );
        eprintln!("{name}: {valid} valid, {invalid} invalid documents agree");
    }
    assert!(
        failures.is_empty(),
        "{} disagreement(s), first: {}",
        failures.len(),
        failures.first().map(String::as_str).unwrap_or_default()
    );
}

/// Arbitrary JSON values, small.
fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..12).prop_map(|n| json!(n)),
        prop_oneof![Just(0.5f64), Just(2.0), Just(-1.5)].prop_map(|f| json!(f)),
        "[a-z0-9-]{0,8}".prop_map(Value::String),
        prop::sample::select(vocabulary()),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(known_keys()), inner), 0..4)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Chains of random edits of a valid seed, for a random role.
    #[test]
    fn random_mutation_chains_get_the_same_verdict(
        pair in 0usize..PAIRS.len(),
        seed_index in 0usize..8,
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, arbitrary_json(), prop::sample::select(known_keys())), 1..5),
    ) {
        let (name, id) = PAIRS[pair];
        let seeds = seeds(name);
        let mut document = seeds[seed_index % seeds.len()].clone();
        for (at, op, value, key) in edits {
            let all = pointers(&document);
            let pointer = at.get(&all).clone();
            document = match op {
                0 => with_replaced(&document, &pointer, value),
                1 => with_removed(&document, &pointer).unwrap_or(document),
                _ => with_added(&document, &pointer, &key, value).unwrap_or(document),
            };
        }
        prop_assert!(same_verdict(name, id, &document).is_ok(), "{}", same_verdict(name, id, &document).unwrap_err());
    }

    /// Whole arbitrary documents, with and without a plausible envelope.
    #[test]
    fn arbitrary_documents_get_the_same_verdict(
        pair in 0usize..PAIRS.len(),
        body in arbitrary_json(),
        status in prop::sample::select(vocabulary()),
    ) {
        let (name, id) = PAIRS[pair];
        prop_assert!(same_verdict(name, id, &body).is_ok(), "{}", same_verdict(name, id, &body).unwrap_err());
        if let Value::Object(mut map) = body {
            map.insert("handover".into(), json!({"role": "r", "status": status, "next-action": "n"}));
            let document = Value::Object(map);
            prop_assert!(same_verdict(name, id, &document).is_ok(), "{}", same_verdict(name, id, &document).unwrap_err());
        }
    }
}

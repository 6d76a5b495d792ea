//! This project's subagent-return schemas (`schemas/subagent-returns/`) are
//! equivalent to the reference schemas (the `schemas/subagent-returns/` of
//! the reference agent systems): both give the same accept/reject verdict on
//! every one of a fixed set of generated documents.
//!
//! The reference schemas are not in this repository, and no test reads
//! anything outside it. Their verdicts were recorded once, as data:
//! `tests/data/subagent-schema-verdicts.txt` holds, per schema, the number
//! of documents, the sha256 of the documents and one bit per document (1 =
//! valid). The test regenerates the same documents, checks the count and the
//! digest (so the table always describes these documents), and compares this
//! project's verdict with the recorded one on every document. To record the
//! table again (after changing the generator), run the ignored
//! `regenerate_reference_verdicts` with `REFERENCE_SCHEMAS` naming a directory
//! of the reference `*.schema.json` files (docs/src/development.md).
//!
//! The documents: valid returns for every status of every role; systematic
//! mutations of each (every key dropped, every value replaced by a palette of
//! types and edge values, off-enum and cross-role enum values, extra and
//! known keys added at every level, the envelope removed, non-object roots);
//! and seeded pseudo-random chains of mutations and arbitrary documents.

use mastermind_hooks::schema::{self, SchemaId};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt::Write as _;

const TABLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/subagent-schema-verdicts.txt"
);

/// The reference schemas' `$id` base, under which they refer to the
/// handover envelope.
const REFERENCE_BASE: &str =
    "https://civitas-cerebrum.github.io/element-interactions/schemas/subagent-returns/";

/// Every reference schema, each paired with this project's schema.
pub(super) const PAIRS: &[(&str, SchemaId)] = &[
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

/// Every string that is an `enum` or `const` value in the reference
/// schemas, and role strings for the role patterns.
const VOCABULARY: &[&str] = &[
    "already-green",
    "app-bug",
    "approve",
    "approved",
    "batch-complete",
    "blocked",
    "clean",
    "command",
    "completed",
    "context-probe",
    "converged",
    "covered-exhaustively",
    "deleted",
    "deterministic-fail",
    "done",
    "edge-probe",
    "edited",
    "escalate",
    "escalated-to-user",
    "evidence-analysis",
    "experiment",
    "findings-emitted",
    "fix",
    "flaky-chaotic",
    "flaky-consistent",
    "green",
    "greenlight",
    "grouped",
    "hard-cap-reached",
    "healed",
    "high",
    "improvements-needed",
    "journey-map-authored",
    "known-defect",
    "known-defect-passed",
    "load",
    "low",
    "medium",
    "must-fix",
    "new-tests-landed",
    "no-change-needed",
    "not-needed",
    "operator-pending",
    "partially-repaired",
    "per-journey",
    "per-section",
    "quarantined",
    "re-sanctioned",
    "reinstalled",
    "reject",
    "rejected",
    "repaired",
    "reproduce",
    "rewritten",
    "section",
    "section-complete",
    "section-deferred",
    "single-agent-collapsed",
    "skipped",
    "soak",
    "spike",
    "stress",
    "understand",
    "unresolved",
    "verify",
    // Role strings for the role patterns, and a banned status.
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
];

/// Every property name the reference schemas declare or require, plus one
/// nobody declares.
pub(super) const KNOWN_KEYS: &[&str] = &[
    "P0",
    "P1",
    "P2",
    "P3",
    "action",
    "actual-behaviour",
    "approval",
    "attestation",
    "authorizer",
    "baseline-pattern",
    "blocked-reason",
    "bug-report",
    "changes",
    "checklist",
    "checklist-item",
    "cleanup",
    "confidence",
    "convergence-status",
    "coverage",
    "craft-issues",
    "cycle",
    "cycles-consumed",
    "detail",
    "diagnosis",
    "dispatch-mode",
    "edge-findings",
    "evidence",
    "exit-criteria-checked",
    "expected",
    "expected-behaviour",
    "file",
    "finding-ids",
    "findings",
    "findings-emitted",
    "fix",
    "fix-instruction",
    "flows-identified",
    "followUps",
    "gated-areas-not-mapped",
    "gated-deferred-to-coverage-expansion",
    "handover",
    "id",
    "item",
    "journey",
    "journey-map",
    "kind",
    "ledgerRow",
    "mapping-completeness-note",
    "methodology-ref",
    "missing-scenarios",
    "new-sections-discovered",
    "next-action",
    "notes",
    "observations",
    "observed",
    "outcome",
    "pages-discovered",
    "parallel-wave-size",
    "pass",
    "passed",
    "path",
    "phase",
    "priority",
    "priority-breakdown",
    "rationale",
    "reason",
    "reviewerCycle",
    "role",
    "root-cause",
    "routes-driven",
    "routes-suggested",
    "run-time",
    "satisfied",
    "scope",
    "section",
    "skip-authorisation",
    "spill",
    "stability-runs",
    "stage",
    "stage-log",
    "state-variations-recorded",
    "status",
    "sub-skill",
    "summary",
    "target",
    "test",
    "tests",
    "tests-added",
    "title",
    "total",
    "understanding",
    "verdict",
    "verification",
    "verification-misses",
    "what-missing",
    "why",
    "undeclared-key",
];

pub(super) fn vocabulary() -> Vec<Value> {
    VOCABULARY
        .iter()
        .map(|w| Value::String(w.to_string()))
        .collect()
}

fn ours_valid(id: SchemaId, document: &Value) -> bool {
    schema::validate(id, document)
        .expect("embedded schema compiles")
        .is_empty()
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
pub(super) fn palette() -> Vec<Value> {
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

/// Every JSON pointer in `value`, parents first.
pub(super) fn pointers(value: &Value) -> Vec<String> {
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

pub(super) fn with_replaced(document: &Value, pointer: &str, value: Value) -> Value {
    let mut copy = document.clone();
    if pointer.is_empty() {
        return value;
    }
    if let Some(slot) = copy.pointer_mut(pointer) {
        *slot = value;
    }
    copy
}

pub(super) fn with_removed(document: &Value, pointer: &str) -> Option<Value> {
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

pub(super) fn with_added(
    document: &Value,
    pointer: &str,
    key: &str,
    value: Value,
) -> Option<Value> {
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
pub(super) fn mutations(seed: &Value, vocabulary: &[Value], keys: &[&str]) -> Vec<Value> {
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

/// A small deterministic generator (SplitMix64): the same documents on
/// every machine and every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// An arbitrary small JSON value.
fn arbitrary_json(rng: &mut Rng, depth: usize) -> Value {
    let leaf = depth == 0 || rng.below(3) > 0;
    if leaf {
        return match rng.below(6) {
            0 => Value::Null,
            1 => Value::Bool(rng.below(2) == 1),
            2 => json!(rng.below(15) as i64 - 3),
            3 => json!(*rng.pick(&[0.5f64, 2.0, -1.5])),
            4 => {
                let len = rng.below(9);
                let alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789-";
                Value::String((0..len).map(|_| *rng.pick(alphabet) as char).collect())
            }
            _ => Value::String(rng.pick(VOCABULARY).to_string()),
        };
    }
    if rng.below(2) == 0 {
        let len = rng.below(4);
        Value::Array((0..len).map(|_| arbitrary_json(rng, depth - 1)).collect())
    } else {
        let len = rng.below(4);
        let mut map = Map::new();
        for _ in 0..len {
            let key = rng.pick(KNOWN_KEYS).to_string();
            map.insert(key, arbitrary_json(rng, depth - 1));
        }
        Value::Object(map)
    }
}

/// Seeded chains of random edits of the valid seeds, and arbitrary
/// documents with and without a plausible envelope.
fn random_documents(name: &str, seeds: &[Value]) -> Vec<Value> {
    let salt = name
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    let mut rng = Rng(0x5eed_0000_0000_0000 ^ salt);
    let mut out = Vec::new();
    for _ in 0..200 {
        let mut document = rng.pick(seeds).clone();
        for _ in 0..1 + rng.below(4) {
            let all = pointers(&document);
            let pointer = rng.pick(&all).clone();
            let value = arbitrary_json(&mut rng, 3);
            let key = *rng.pick(KNOWN_KEYS);
            document = match rng.below(3) {
                0 => with_replaced(&document, &pointer, value),
                1 => with_removed(&document, &pointer).unwrap_or(document),
                _ => with_added(&document, &pointer, key, value).unwrap_or(document),
            };
        }
        out.push(document);
    }
    for _ in 0..100 {
        let body = arbitrary_json(&mut rng, 3);
        out.push(body.clone());
        if let Value::Object(mut map) = body {
            let status = rng.pick(VOCABULARY).to_string();
            map.insert(
                "handover".into(),
                json!({"role": "r", "status": status, "next-action": "n"}),
            );
            out.push(Value::Object(map));
        }
    }
    out
}

/// Every document generated for one schema, in a fixed order.
pub(super) fn documents(name: &str) -> Vec<Value> {
    let vocabulary = vocabulary();
    let seeds = seeds(name);
    let mut out = Vec::new();
    for seed in &seeds {
        out.extend(mutations(seed, &vocabulary, KNOWN_KEYS));
    }
    out.extend(random_documents(name, &seeds));
    out
}

/// The sha256 of a document list: each document's JSON text, one per line.
fn digest(documents: &[Value]) -> String {
    let mut hasher = Sha256::new();
    for document in documents {
        hasher.update(document.to_string().as_bytes());
        hasher.update(b"\n");
    }
    hex::encode(hasher.finalize())
}

/// One schema's recorded verdicts.
struct Recorded {
    count: usize,
    digest: String,
    valid: Vec<bool>,
}

fn pack(valid: &[bool]) -> String {
    let bytes: Vec<u8> = valid
        .chunks(8)
        .map(|chunk| {
            chunk
                .iter()
                .enumerate()
                .fold(0u8, |byte, (i, v)| byte | (u8::from(*v) << i))
        })
        .collect();
    hex::encode(bytes)
}

fn unpack(hex_text: &str, count: usize) -> Vec<bool> {
    let bytes = hex::decode(hex_text).expect("verdict bits are hex");
    (0..count)
        .map(|i| bytes[i / 8] >> (i % 8) & 1 == 1)
        .collect()
}

/// The verdict table, by schema name.
fn recorded() -> BTreeMap<String, Recorded> {
    let text = std::fs::read_to_string(TABLE).expect("tests/data/subagent-schema-verdicts.txt");
    let mut out = BTreeMap::new();
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    while let Some(head) = lines.next() {
        let fields: Vec<&str> = head.split_whitespace().collect();
        let [_, name, _, count, _, digest] = fields[..] else {
            panic!("malformed table line: {head}");
        };
        let count: usize = count.parse().expect("count");
        let mut bits = String::new();
        for line in lines.by_ref() {
            if line == "end" {
                break;
            }
            bits.push_str(line.trim());
        }
        out.insert(
            name.to_string(),
            Recorded {
                count,
                digest: digest.to_string(),
                valid: unpack(&bits, count),
            },
        );
    }
    out
}

#[test]
fn every_schema_has_recorded_verdicts_for_these_documents() {
    let table = recorded();
    let names: Vec<&str> = PAIRS.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        table.keys().map(String::as_str).collect::<Vec<_>>(),
        {
            let mut sorted = names.clone();
            sorted.sort_unstable();
            sorted
        },
        "every reference schema has a row, and no other"
    );
    for (name, _) in PAIRS {
        let documents = documents(name);
        let row = &table[*name];
        assert_eq!(
            (row.count, row.digest.as_str()),
            (documents.len(), digest(&documents).as_str()),
            "{name}: the generated documents changed; record the verdicts again (docs/src/development.md)"
        );
        for seed in seeds(name) {
            let index = documents
                .iter()
                .position(|d| *d == seed)
                .expect("seeds are generated");
            assert!(
                row.valid[index],
                "{name}: the reference rejects a seed: {seed}"
            );
        }
    }
}

#[test]
fn our_schemas_give_the_reference_verdicts() {
    let table = recorded();
    let mut failures = Vec::new();
    for (name, id) in PAIRS {
        let documents = documents(name);
        let row = &table[*name];
        assert_eq!(
            row.count,
            documents.len(),
            "{name}: record the verdicts again"
        );
        let (mut valid, mut invalid) = (0usize, 0usize);
        for (document, &reference) in documents.iter().zip(&row.valid) {
            let ours = ours_valid(*id, document);
            if ours != reference {
                failures.push(format!(
                    "{name}: the reference says {}, ours says {} for {document}",
                    if reference { "valid" } else { "invalid" },
                    if ours { "valid" } else { "invalid" }
                ));
            }
            if reference {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
        // Both verdicts are exercised, many times, for every schema.
        assert!(valid >= 100, "{name}: only {valid} valid documents");
        assert!(invalid >= 100, "{name}: only {invalid} invalid documents");
        eprintln!("{name}: {valid} valid, {invalid} invalid documents agree");
    }
    assert!(
        failures.is_empty(),
        "{} disagreement(s), first: {}",
        failures.len(),
        failures.first().map(String::as_str).unwrap_or_default()
    );
}

/// Record the reference verdicts: `REFERENCE_SCHEMAS=<dir> cargo test
/// --test contracts -- --ignored --exact
/// subagent_schema_equivalence::regenerate_reference_verdicts`. The directory holds the reference
/// `<name>.schema.json` files; nothing of them is kept but their verdicts.
#[test]
#[ignore = "needs REFERENCE_SCHEMAS, a directory of the reference schemas"]
fn regenerate_reference_verdicts() {
    let dir = std::env::var("REFERENCE_SCHEMAS")
        .expect("REFERENCE_SCHEMAS names a directory of the reference *.schema.json files");
    let read = |name: &str| -> Value {
        let path = format!("{dir}/{name}.schema.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let registry = jsonschema::Registry::new()
        .add(
            format!("{REFERENCE_BASE}handover.schema.json"),
            read("handover"),
        )
        .and_then(|b| b.prepare())
        .expect("reference registry");
    let mut out = String::from(
        "# The reference subagent-return schemas' verdicts on the documents\n\
         # tests/contracts/subagent_schema_equivalence.rs generates, one block per schema:\n\
         # `schema <name> documents <count> sha256 <digest of the documents>`, then\n\
         # one bit per document in generation order (1 = valid), hex, then `end`.\n\
         # Regenerate: docs/src/development.md (REFERENCE_SCHEMAS=<dir> cargo test\n\
         # --test contracts -- --ignored --exact\n\
         # subagent_schema_equivalence::regenerate_reference_verdicts).\n",
    );
    for (name, _) in PAIRS {
        let validator = jsonschema::draft202012::options()
            .with_registry(&registry)
            .build(&read(name))
            .unwrap_or_else(|e| panic!("reference {name} does not compile: {e}"));
        let documents = documents(name);
        let valid: Vec<bool> = documents.iter().map(|d| validator.is_valid(d)).collect();
        let _ = writeln!(
            out,
            "schema {name} documents {} sha256 {}",
            documents.len(),
            digest(&documents)
        );
        let bits = pack(&valid);
        for chunk in bits.as_bytes().chunks(96) {
            out.push_str(std::str::from_utf8(chunk).expect("hex is ASCII"));
            out.push('\n');
        }
        out.push_str("end\n");
    }
    std::fs::write(TABLE, out).expect("write the verdict table");
}

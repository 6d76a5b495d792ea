//! The embedded schemas as validators generated at build time by
//! `jsonschema`'s `validator` attribute macro: each file under `schemas/` is
//! turned into Rust code when the crate is built, so deciding that a
//! document is valid never parses or compiles a schema, nor checks one
//! against the draft 2020-12 meta-schema (two thirds of the compiling;
//! issue 53). A schema the macro cannot compile is a build error.
//!
//! Only `is_valid` is generated: the errors of a rejected document come
//! from the run-time validator (`super::SchemaId::run_time_validator`),
//! whose order and messages are the recorded ones.
//! `tests/contracts/schema_differential.rs` holds the two to the same
//! verdict over the whole corpus.

use super::SchemaId;
use serde_json::Value;

#[jsonschema::validator(
    path = "schemas/executor-report-v1.schema.json",
    draft = Draft202012,
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct ExecutorReportV1;

#[jsonschema::validator(
    path = "schemas/audit-tail-v1.schema.json",
    draft = Draft202012,
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct AuditTailV1;

#[jsonschema::validator(
    path = "schemas/spec-frontmatter-v1.schema.json",
    draft = Draft202012,
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct SpecFrontmatterV1;

#[jsonschema::validator(
    path = "schemas/receipt-v1.schema.json",
    draft = Draft202012,
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct ReceiptV1;

#[jsonschema::validator(
    path = "schemas/hooks-config-v1.schema.json",
    draft = Draft202012,
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct HooksConfigV1;

#[jsonschema::validator(
    path = "schemas/tree-receipt-v1.schema.json",
    draft = Draft202012,
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct TreeReceiptV1;

#[jsonschema::validator(
    path = "schemas/tree-receipt-v2.schema.json",
    draft = Draft202012,
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct TreeReceiptV2;

#[jsonschema::validator(
    path = "schemas/subagent-returns/handover.schema.json",
    draft = Draft202012,
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct SubagentHandover;

// Every role schema `$ref`s the handover envelope by a URI relative to its
// own `$id`; the envelope is handed to the macro from its file, so nothing
// is ever fetched.
#[jsonschema::validator(
    path = "schemas/subagent-returns/composer.schema.json",
    draft = Draft202012,
    resources = {
        "https://mastermind-hooks.dev/schemas/subagent-returns/handover.schema.json" => {
            path = "schemas/subagent-returns/handover.schema.json"
        }
    },
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct SubagentComposer;

#[jsonschema::validator(
    path = "schemas/subagent-returns/reviewer-inloop.schema.json",
    draft = Draft202012,
    resources = {
        "https://mastermind-hooks.dev/schemas/subagent-returns/handover.schema.json" => {
            path = "schemas/subagent-returns/handover.schema.json"
        }
    },
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct SubagentReviewerInloop;

#[jsonschema::validator(
    path = "schemas/subagent-returns/probe.schema.json",
    draft = Draft202012,
    resources = {
        "https://mastermind-hooks.dev/schemas/subagent-returns/handover.schema.json" => {
            path = "schemas/subagent-returns/handover.schema.json"
        }
    },
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct SubagentProbe;

#[jsonschema::validator(
    path = "schemas/subagent-returns/phase-validator.schema.json",
    draft = Draft202012,
    resources = {
        "https://mastermind-hooks.dev/schemas/subagent-returns/handover.schema.json" => {
            path = "schemas/subagent-returns/handover.schema.json"
        }
    },
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct SubagentPhaseValidator;

#[jsonschema::validator(
    path = "schemas/subagent-returns/section-agent.schema.json",
    draft = Draft202012,
    resources = {
        "https://mastermind-hooks.dev/schemas/subagent-returns/handover.schema.json" => {
            path = "schemas/subagent-returns/handover.schema.json"
        }
    },
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct SubagentSectionAgent;

#[jsonschema::validator(
    path = "schemas/subagent-returns/phase4-prioritise-author.schema.json",
    draft = Draft202012,
    resources = {
        "https://mastermind-hooks.dev/schemas/subagent-returns/handover.schema.json" => {
            path = "schemas/subagent-returns/handover.schema.json"
        }
    },
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct SubagentPhase4PrioritiseAuthor;

#[jsonschema::validator(
    path = "schemas/subagent-returns/workflow-reviewer.schema.json",
    draft = Draft202012,
    resources = {
        "https://mastermind-hooks.dev/schemas/subagent-returns/handover.schema.json" => {
            path = "schemas/subagent-returns/handover.schema.json"
        }
    },
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct SubagentWorkflowReviewer;

#[jsonschema::validator(
    path = "schemas/subagent-returns/perf-reviewer.schema.json",
    draft = Draft202012,
    resources = {
        "https://mastermind-hooks.dev/schemas/subagent-returns/handover.schema.json" => {
            path = "schemas/subagent-returns/handover.schema.json"
        }
    },
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct SubagentPerfReviewer;

#[jsonschema::validator(
    path = "schemas/subagent-returns/repair-worker.schema.json",
    draft = Draft202012,
    resources = {
        "https://mastermind-hooks.dev/schemas/subagent-returns/handover.schema.json" => {
            path = "schemas/subagent-returns/handover.schema.json"
        }
    },
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct SubagentRepairWorker;

#[jsonschema::validator(
    path = "schemas/subagent-returns/plumber.schema.json",
    draft = Draft202012,
    resources = {
        "https://mastermind-hooks.dev/schemas/subagent-returns/handover.schema.json" => {
            path = "schemas/subagent-returns/handover.schema.json"
        }
    },
    methods = { is_valid = true, validate = false, iter_errors = false }
)]
struct SubagentPlumber;

/// Whether `instance` is valid under `id`.
pub(super) fn is_valid(id: SchemaId, instance: &Value) -> bool {
    match id {
        SchemaId::ExecutorReportV1 => ExecutorReportV1::is_valid(instance),
        SchemaId::AuditTailV1 => AuditTailV1::is_valid(instance),
        SchemaId::SpecFrontmatterV1 => SpecFrontmatterV1::is_valid(instance),
        SchemaId::ReceiptV1 => ReceiptV1::is_valid(instance),
        SchemaId::HooksConfigV1 => HooksConfigV1::is_valid(instance),
        SchemaId::TreeReceiptV1 => TreeReceiptV1::is_valid(instance),
        SchemaId::TreeReceiptV2 => TreeReceiptV2::is_valid(instance),
        SchemaId::SubagentHandover => SubagentHandover::is_valid(instance),
        SchemaId::SubagentComposer => SubagentComposer::is_valid(instance),
        SchemaId::SubagentReviewerInloop => SubagentReviewerInloop::is_valid(instance),
        SchemaId::SubagentProbe => SubagentProbe::is_valid(instance),
        SchemaId::SubagentPhaseValidator => SubagentPhaseValidator::is_valid(instance),
        SchemaId::SubagentSectionAgent => SubagentSectionAgent::is_valid(instance),
        SchemaId::SubagentPhase4PrioritiseAuthor => {
            SubagentPhase4PrioritiseAuthor::is_valid(instance)
        }
        SchemaId::SubagentWorkflowReviewer => SubagentWorkflowReviewer::is_valid(instance),
        SchemaId::SubagentPerfReviewer => SubagentPerfReviewer::is_valid(instance),
        SchemaId::SubagentRepairWorker => SubagentRepairWorker::is_valid(instance),
        SchemaId::SubagentPlumber => SubagentPlumber::is_valid(instance),
    }
}

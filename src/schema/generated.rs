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

/// A validator struct `$name` generated from the schema file `$path`
/// (relative to the crate's root), with only `is_valid`. A subagent role
/// (`role`) `$ref`s the handover envelope by a URI relative to its own
/// `$id`: the envelope is handed to the macro from its file, so nothing is
/// ever fetched. (`tt`, not `literal`: the attribute must see the string
/// itself.)
macro_rules! generated {
    ($name:ident, $path:tt) => {
        #[jsonschema::validator(
            path = $path,
            draft = Draft202012,
            methods = { is_valid = true, validate = false, iter_errors = false }
        )]
        struct $name;
    };
    ($name:ident, $path:tt, role) => {
        #[jsonschema::validator(
            path = $path,
            draft = Draft202012,
            resources = {
                "https://mastermind-hooks.dev/schemas/subagent-returns/handover.schema.json" => {
                    path = "schemas/subagent-returns/handover.schema.json"
                }
            },
            methods = { is_valid = true, validate = false, iter_errors = false }
        )]
        struct $name;
    };
}

generated!(ExecutorReportV1, "schemas/executor-report-v1.schema.json");
generated!(AuditTailV1, "schemas/audit-tail-v1.schema.json");
generated!(SpecFrontmatterV1, "schemas/spec-frontmatter-v1.schema.json");
generated!(ReceiptV1, "schemas/receipt-v1.schema.json");
generated!(HooksConfigV1, "schemas/hooks-config-v1.schema.json");
generated!(TreeReceiptV1, "schemas/tree-receipt-v1.schema.json");
generated!(TreeReceiptV2, "schemas/tree-receipt-v2.schema.json");
generated!(
    SubagentHandover,
    "schemas/subagent-returns/handover.schema.json"
);
generated!(
    SubagentComposer,
    "schemas/subagent-returns/composer.schema.json",
    role
);
generated!(
    SubagentReviewerInloop,
    "schemas/subagent-returns/reviewer-inloop.schema.json",
    role
);
generated!(
    SubagentProbe,
    "schemas/subagent-returns/probe.schema.json",
    role
);
generated!(
    SubagentPhaseValidator,
    "schemas/subagent-returns/phase-validator.schema.json",
    role
);
generated!(
    SubagentSectionAgent,
    "schemas/subagent-returns/section-agent.schema.json",
    role
);
generated!(
    SubagentPhase4PrioritiseAuthor,
    "schemas/subagent-returns/phase4-prioritise-author.schema.json",
    role
);
generated!(
    SubagentWorkflowReviewer,
    "schemas/subagent-returns/workflow-reviewer.schema.json",
    role
);
generated!(
    SubagentPerfReviewer,
    "schemas/subagent-returns/perf-reviewer.schema.json",
    role
);
generated!(
    SubagentRepairWorker,
    "schemas/subagent-returns/repair-worker.schema.json",
    role
);
generated!(
    SubagentPlumber,
    "schemas/subagent-returns/plumber.schema.json",
    role
);

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

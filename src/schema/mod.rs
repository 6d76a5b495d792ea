//! The project's own JSON Schemas (Draft 2020-12), embedded at build time,
//! and what a violation becomes for the callers ([`SchemaError`]: pointer,
//! message, keyword).
//!
//! A document is validated in two steps. The validators `jsonschema`'s
//! `validator` macro generates from the schema files when the crate is
//! built ([`generated`]) answer whether it is valid, with nothing compiled
//! at run time: that is every honest document, and the hooks' hot path
//! (compiling three schemas cost three times `git diff --cached`; issue
//! 53). Only a document they reject is validated again by the validator
//! `jsonschema` compiles from the same text at run time, once per process,
//! which reports the errors in the order and words every release so far
//! has (`tests/data/schema-verdicts.jsonl`). The two are held to the same
//! verdict by `tests/contracts/schema_differential.rs`.

mod generated;

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;
use std::sync::OnceLock;

/// One embedded schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemaId {
    ExecutorReportV1,
    AuditTailV1,
    SpecFrontmatterV1,
    ReceiptV1,
    HooksConfigV1,
    TreeReceiptV1,
    TreeReceiptV2,
    // Subagent returns (contract B): the envelope and one schema per role.
    SubagentHandover,
    SubagentComposer,
    SubagentReviewerInloop,
    SubagentProbe,
    SubagentPhaseValidator,
    SubagentSectionAgent,
    SubagentPhase4PrioritiseAuthor,
    SubagentWorkflowReviewer,
    SubagentPerfReviewer,
    SubagentRepairWorker,
    SubagentPlumber,
}

impl SchemaId {
    pub const ALL: &'static [SchemaId] = &[
        SchemaId::ExecutorReportV1,
        SchemaId::AuditTailV1,
        SchemaId::SpecFrontmatterV1,
        SchemaId::ReceiptV1,
        SchemaId::HooksConfigV1,
        SchemaId::TreeReceiptV1,
        SchemaId::TreeReceiptV2,
        SchemaId::SubagentHandover,
        SchemaId::SubagentComposer,
        SchemaId::SubagentReviewerInloop,
        SchemaId::SubagentProbe,
        SchemaId::SubagentPhaseValidator,
        SchemaId::SubagentSectionAgent,
        SchemaId::SubagentPhase4PrioritiseAuthor,
        SchemaId::SubagentWorkflowReviewer,
        SchemaId::SubagentPerfReviewer,
        SchemaId::SubagentRepairWorker,
        SchemaId::SubagentPlumber,
    ];

    /// The name used by `mastermind-hooks schema NAME`.
    pub fn name(self) -> &'static str {
        match self {
            SchemaId::ExecutorReportV1 => "executor-report-v1",
            SchemaId::AuditTailV1 => "audit-tail-v1",
            SchemaId::SpecFrontmatterV1 => "spec-frontmatter-v1",
            SchemaId::ReceiptV1 => "receipt-v1",
            SchemaId::HooksConfigV1 => "hooks-config-v1",
            SchemaId::TreeReceiptV1 => "tree-receipt-v1",
            SchemaId::TreeReceiptV2 => "tree-receipt-v2",
            SchemaId::SubagentHandover => "subagent-handover",
            SchemaId::SubagentComposer => "subagent-composer",
            SchemaId::SubagentReviewerInloop => "subagent-reviewer-inloop",
            SchemaId::SubagentProbe => "subagent-probe",
            SchemaId::SubagentPhaseValidator => "subagent-phase-validator",
            SchemaId::SubagentSectionAgent => "subagent-section-agent",
            SchemaId::SubagentPhase4PrioritiseAuthor => "subagent-phase4-prioritise-author",
            SchemaId::SubagentWorkflowReviewer => "subagent-workflow-reviewer",
            SchemaId::SubagentPerfReviewer => "subagent-perf-reviewer",
            SchemaId::SubagentRepairWorker => "subagent-repair-worker",
            SchemaId::SubagentPlumber => "subagent-plumber",
        }
    }

    pub fn from_name(name: &str) -> Option<SchemaId> {
        let name = name.strip_suffix(".schema.json").unwrap_or(name);
        SchemaId::ALL.iter().copied().find(|id| id.name() == name)
    }

    /// The schema text exactly as shipped in `schemas/`.
    pub fn source(self) -> &'static str {
        match self {
            SchemaId::ExecutorReportV1 => {
                include_str!("../../schemas/executor-report-v1.schema.json")
            }
            SchemaId::AuditTailV1 => include_str!("../../schemas/audit-tail-v1.schema.json"),
            SchemaId::SpecFrontmatterV1 => {
                include_str!("../../schemas/spec-frontmatter-v1.schema.json")
            }
            SchemaId::ReceiptV1 => include_str!("../../schemas/receipt-v1.schema.json"),
            SchemaId::HooksConfigV1 => include_str!("../../schemas/hooks-config-v1.schema.json"),
            SchemaId::TreeReceiptV1 => include_str!("../../schemas/tree-receipt-v1.schema.json"),
            SchemaId::TreeReceiptV2 => include_str!("../../schemas/tree-receipt-v2.schema.json"),
            SchemaId::SubagentHandover => {
                include_str!("../../schemas/subagent-returns/handover.schema.json")
            }
            SchemaId::SubagentComposer => {
                include_str!("../../schemas/subagent-returns/composer.schema.json")
            }
            SchemaId::SubagentReviewerInloop => {
                include_str!("../../schemas/subagent-returns/reviewer-inloop.schema.json")
            }
            SchemaId::SubagentProbe => {
                include_str!("../../schemas/subagent-returns/probe.schema.json")
            }
            SchemaId::SubagentPhaseValidator => {
                include_str!("../../schemas/subagent-returns/phase-validator.schema.json")
            }
            SchemaId::SubagentSectionAgent => {
                include_str!("../../schemas/subagent-returns/section-agent.schema.json")
            }
            SchemaId::SubagentPhase4PrioritiseAuthor => {
                include_str!("../../schemas/subagent-returns/phase4-prioritise-author.schema.json")
            }
            SchemaId::SubagentWorkflowReviewer => {
                include_str!("../../schemas/subagent-returns/workflow-reviewer.schema.json")
            }
            SchemaId::SubagentPerfReviewer => {
                include_str!("../../schemas/subagent-returns/perf-reviewer.schema.json")
            }
            SchemaId::SubagentRepairWorker => {
                include_str!("../../schemas/subagent-returns/repair-worker.schema.json")
            }
            SchemaId::SubagentPlumber => {
                include_str!("../../schemas/subagent-returns/plumber.schema.json")
            }
        }
    }

    /// The schema this one references by URI, if any: every subagent role
    /// schema `$ref`s the handover envelope.
    fn sibling(self) -> Option<SchemaId> {
        match self {
            SchemaId::SubagentComposer
            | SchemaId::SubagentReviewerInloop
            | SchemaId::SubagentProbe
            | SchemaId::SubagentPhaseValidator
            | SchemaId::SubagentSectionAgent
            | SchemaId::SubagentPhase4PrioritiseAuthor
            | SchemaId::SubagentWorkflowReviewer
            | SchemaId::SubagentPerfReviewer
            | SchemaId::SubagentRepairWorker
            | SchemaId::SubagentPlumber => Some(SchemaId::SubagentHandover),
            _ => None,
        }
    }

    fn slot(self) -> &'static OnceLock<Result<jsonschema::Validator, SchemaUnavailable>> {
        static SLOTS: [OnceLock<Result<jsonschema::Validator, SchemaUnavailable>>;
            SchemaId::ALL.len()] = [const { OnceLock::new() }; SchemaId::ALL.len()];
        &SLOTS[self as usize]
    }

    /// The validator `jsonschema` compiles from this schema's text at run
    /// time (once per process): the reporter of a rejected document's
    /// errors, and the oracle the generated validators are held to.
    pub fn run_time_validator(self) -> Result<&'static jsonschema::Validator, SchemaUnavailable> {
        let unusable = |message: String| SchemaUnavailable {
            schema: self.name(),
            message,
        };
        let failed = |e: &dyn std::fmt::Display| unusable(e.to_string());
        self.slot()
            .get_or_init(|| {
                let schema: Value = serde_json::from_str(self.source()).map_err(|e| failed(&e))?;
                match self.sibling() {
                    None => jsonschema::draft202012::new(&schema).map_err(|e| failed(&e)),
                    Some(sibling) => {
                        // A subagent role schema `$ref`s its envelope by a
                        // relative URI; resolve it from the embedded copy,
                        // never from the network (the crate is built
                        // without its HTTP and file retrievers).
                        let contents: Value =
                            serde_json::from_str(sibling.source()).map_err(|e| failed(&e))?;
                        let uri = contents
                            .get("$id")
                            .and_then(Value::as_str)
                            .ok_or_else(|| unusable(format!("{} has no $id", sibling.name())))?
                            .to_string();
                        let registry = jsonschema::Registry::new()
                            .add(uri, contents)
                            .and_then(|builder| builder.prepare())
                            .map_err(|e| failed(&e))?;
                        jsonschema::draft202012::options()
                            .with_registry(&registry)
                            .build(&schema)
                            .map_err(|e| failed(&e))
                    }
                }
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl SchemaId {
    /// The keys the object schema that owns the `additionalProperties`
    /// keyword at `keyword_path` allows (its `properties`), for "did you
    /// mean". Empty when the path leads through another document.
    fn allowed_keys(self, keyword_path: &str) -> Vec<String> {
        let Some(owner) = keyword_path.strip_suffix("/additionalProperties") else {
            return Vec::new();
        };
        serde_json::from_str::<Value>(self.source())
            .ok()
            .and_then(|schema| {
                schema
                    .pointer(owner)
                    .and_then(|owner| owner.get("properties"))
                    .and_then(Value::as_object)
                    .map(|properties| properties.keys().cloned().collect())
            })
            .unwrap_or_default()
    }
}

/// An embedded schema failed to compile: a bug in this build, never a pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaUnavailable {
    pub schema: &'static str,
    pub message: String,
}

impl std::fmt::Display for SchemaUnavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "embedded schema {} is unusable: {}",
            self.schema, self.message
        )
    }
}

impl std::error::Error for SchemaUnavailable {}

impl SchemaUnavailable {
    /// The finding that stops a validation the schema cannot run.
    pub fn to_diagnostic(&self) -> crate::diagnostic::Diagnostic {
        crate::diagnostic::Diagnostic::new(crate::codes::Code::internal_error, self.to_string())
    }
}

/// Which keyword a schema error came from, as far as callers care.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Keyword {
    /// `additionalProperties`: the listed keys are not allowed.
    Unexpected(Vec<String>),
    /// `minLength` on a string.
    MinLength,
    /// `const`.
    Const,
    Other,
}

/// One schema violation at one place in the instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    /// RFC 6901 pointer to the offending value ("" for the root).
    pub pointer: String,
    pub message: String,
    pub keyword: Keyword,
}

impl SchemaError {
    /// The pointer that best locates the problem: for unexpected keys, the
    /// first unexpected key itself.
    pub fn focus_pointer(&self) -> String {
        match &self.keyword {
            Keyword::Unexpected(keys) if !keys.is_empty() => format!(
                "{}/{}",
                self.pointer,
                keys[0].replace('~', "~0").replace('/', "~1")
            ),
            _ => self.pointer.clone(),
        }
    }
}

/// Whether `instance` is valid under one embedded schema, by the validator
/// generated at build time: nothing is compiled.
pub fn is_valid(id: SchemaId, instance: &Value) -> bool {
    generated::is_valid(id, instance)
}

/// Validate `instance` against one embedded schema. Errors come back in
/// jsonschema's order, which follows the schema's keyword order; messages
/// are jsonschema's, except for unknown keys, which name the keys and
/// suggest the nearest known one.
pub fn validate(id: SchemaId, instance: &Value) -> Result<Vec<SchemaError>, SchemaUnavailable> {
    if is_valid(id, instance) {
        return Ok(Vec::new());
    }
    Ok(id
        .run_time_validator()?
        .iter_errors(instance)
        .map(|error| {
            let keyword = match error.kind() {
                ValidationErrorKind::AdditionalProperties { unexpected } => {
                    Keyword::Unexpected(unexpected.clone())
                }
                ValidationErrorKind::MinLength { .. } => Keyword::MinLength,
                ValidationErrorKind::Constant { .. } => Keyword::Const,
                _ => Keyword::Other,
            };
            let message = match &keyword {
                Keyword::Unexpected(keys) => format!(
                    "unknown field{} {}{}",
                    if keys.len() == 1 { "" } else { "s" },
                    keys.iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    keys.first()
                        .map(|key| {
                            let allowed = id.allowed_keys(error.schema_path().as_str());
                            crate::suggest::did_you_mean(key, allowed.iter().map(String::as_str))
                        })
                        .unwrap_or_default()
                ),
                _ => error.to_string(),
            };
            SchemaError {
                pointer: error.instance_path().as_str().to_string(),
                message,
                keyword,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_schema_compiles_and_round_trips_its_name() {
        for &id in SchemaId::ALL {
            assert!(
                id.run_time_validator().is_ok(),
                "{} does not compile",
                id.name()
            );
            assert_eq!(SchemaId::from_name(id.name()), Some(id));
        }
    }

    #[test]
    fn unknown_fields_are_named_and_focused() {
        let errors = validate(
            SchemaId::AuditTailV1,
            &serde_json::json!({"spec": "s", "verdict": "held", "scope_match": true,
                                "discrepancies": [], "surprise": 1}),
        )
        .unwrap();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].message, "unknown field `surprise`");
        assert_eq!(errors[0].focus_pointer(), "/surprise");
    }

    #[test]
    fn an_unknown_key_near_a_known_one_gets_a_suggestion() {
        let errors = validate(
            SchemaId::HooksConfigV1,
            &serde_json::json!({"reciepts": {"freshnes": "head"}}),
        )
        .unwrap();
        assert_eq!(
            errors[0].message,
            "unknown field `reciepts` (did you mean `receipts`?)"
        );
        let errors = validate(
            SchemaId::HooksConfigV1,
            &serde_json::json!({"receipts": {"freshnes": "head"}}),
        )
        .unwrap();
        assert_eq!(
            errors[0].message,
            "unknown field `freshnes` (did you mean `freshness`?)"
        );
    }
}

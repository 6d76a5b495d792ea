//! Which contract a subagent return answers to, from its role or dispatch
//! description (`resolve_schema_role`, contract B.8).
//!
//! Order of decision: a value that is exactly a schema's name (`probe`,
//! `phase-validator`, `plumber`, ...) routes to that schema (this covers
//! `handover.role` values, which are often the bare role); otherwise the
//! reference's prefix table applies, first match wins, anchored at the
//! start; the no-schema prefixes get envelope sanity only; anything else is
//! unknown. `plumber-*` has a schema but no prefix route, as in the
//! reference: pass `--role plumber`.

use crate::schema::SchemaId;

/// A role with its own return schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReturnRole {
    Composer,
    ReviewerInloop,
    Probe,
    PhaseValidator,
    SectionAgent,
    Phase4PrioritiseAuthor,
    WorkflowReviewer,
    PerfReviewer,
    RepairWorker,
    Plumber,
}

impl ReturnRole {
    pub const ALL: &'static [ReturnRole] = &[
        ReturnRole::Composer,
        ReturnRole::ReviewerInloop,
        ReturnRole::Probe,
        ReturnRole::PhaseValidator,
        ReturnRole::SectionAgent,
        ReturnRole::Phase4PrioritiseAuthor,
        ReturnRole::WorkflowReviewer,
        ReturnRole::PerfReviewer,
        ReturnRole::RepairWorker,
        ReturnRole::Plumber,
    ];

    /// The schema's name (`reviewer-inloop`).
    pub fn name(self) -> &'static str {
        match self {
            ReturnRole::Composer => "composer",
            ReturnRole::ReviewerInloop => "reviewer-inloop",
            ReturnRole::Probe => "probe",
            ReturnRole::PhaseValidator => "phase-validator",
            ReturnRole::SectionAgent => "section-agent",
            ReturnRole::Phase4PrioritiseAuthor => "phase4-prioritise-author",
            ReturnRole::WorkflowReviewer => "workflow-reviewer",
            ReturnRole::PerfReviewer => "perf-reviewer",
            ReturnRole::RepairWorker => "repair-worker",
            ReturnRole::Plumber => "plumber",
        }
    }

    /// The embedded schema this role's returns are validated against.
    pub fn schema(self) -> SchemaId {
        match self {
            ReturnRole::Composer => SchemaId::SubagentComposer,
            ReturnRole::ReviewerInloop => SchemaId::SubagentReviewerInloop,
            ReturnRole::Probe => SchemaId::SubagentProbe,
            ReturnRole::PhaseValidator => SchemaId::SubagentPhaseValidator,
            ReturnRole::SectionAgent => SchemaId::SubagentSectionAgent,
            ReturnRole::Phase4PrioritiseAuthor => SchemaId::SubagentPhase4PrioritiseAuthor,
            ReturnRole::WorkflowReviewer => SchemaId::SubagentWorkflowReviewer,
            ReturnRole::PerfReviewer => SchemaId::SubagentPerfReviewer,
            ReturnRole::RepairWorker => SchemaId::SubagentRepairWorker,
            ReturnRole::Plumber => SchemaId::SubagentPlumber,
        }
    }

    /// The `handover.status` values the role's schema allows.
    pub fn statuses(self) -> &'static [&'static str] {
        match self {
            ReturnRole::Composer => &[
                "blocked",
                "skipped",
                "new-tests-landed",
                "covered-exhaustively",
            ],
            ReturnRole::ReviewerInloop => &["greenlight", "improvements-needed", "batch-complete"],
            ReturnRole::Probe => &["clean", "findings-emitted", "blocked"],
            ReturnRole::PhaseValidator => &["greenlight", "improvements-needed"],
            ReturnRole::SectionAgent => &["section-complete", "section-deferred", "blocked"],
            ReturnRole::Phase4PrioritiseAuthor => &["journey-map-authored", "blocked"],
            ReturnRole::WorkflowReviewer | ReturnRole::PerfReviewer => {
                &["approved", "rejected", "escalated-to-user"]
            }
            ReturnRole::RepairWorker => &["completed", "blocked"],
            ReturnRole::Plumber => &[
                "repaired",
                "partially-repaired",
                "blocked",
                "no-change-needed",
            ],
        }
    }
}

/// Where a role or description routes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Schema layer and contract layer.
    Schema(ReturnRole),
    /// No schema: the envelope sanity check only.
    EnvelopeOnly,
    /// No contract is known for it.
    Unknown,
}

/// The reference's prefix table, in order; `None` is the no-schema set.
const PREFIXES: &[(&str, Option<ReturnRole>)] = &[
    ("perf-reviewer-", Some(ReturnRole::PerfReviewer)),
    ("workflow-reviewer-", Some(ReturnRole::WorkflowReviewer)),
    ("secrets-sweep-", Some(ReturnRole::Composer)),
    ("test-composer-", Some(ReturnRole::Composer)),
    ("composer-", Some(ReturnRole::Composer)),
    ("reviewer-", Some(ReturnRole::ReviewerInloop)),
    ("composition-judge-", Some(ReturnRole::ReviewerInloop)),
    ("probe-", Some(ReturnRole::Probe)),
    ("repair-worker-", Some(ReturnRole::RepairWorker)),
    ("phase-validator-", Some(ReturnRole::PhaseValidator)),
    (
        "phase4-prioritise-author",
        Some(ReturnRole::Phase4PrioritiseAuthor),
    ),
    ("phase4-cycle-", Some(ReturnRole::SectionAgent)),
    ("process-validator-", None),
    ("phase1-", None),
    ("stage2-", None),
    ("cleanup-", None),
    ("companion-", None),
    ("fd-", None),
];

/// Route a role name or dispatch description.
pub fn route(role_or_description: &str) -> Route {
    let text = role_or_description.trim();
    if let Some(role) = ReturnRole::ALL.iter().find(|r| r.name() == text) {
        return Route::Schema(*role);
    }
    PREFIXES
        .iter()
        .find(|(prefix, _)| text.starts_with(prefix))
        .map_or(Route::Unknown, |(_, role)| match role {
            Some(role) => Route::Schema(*role),
            None => Route::EnvelopeOnly,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_follow_the_reference_order() {
        for (text, expected) in [
            (
                "perf-reviewer-phase3: review",
                Route::Schema(ReturnRole::PerfReviewer),
            ),
            (
                "workflow-reviewer-pass2: gate",
                Route::Schema(ReturnRole::WorkflowReviewer),
            ),
            (
                "reviewer-j-login: cycle 1",
                Route::Schema(ReturnRole::ReviewerInloop),
            ),
            ("reviewer-inloop", Route::Schema(ReturnRole::ReviewerInloop)),
            ("secrets-sweep-repo", Route::Schema(ReturnRole::Composer)),
            ("test-composer-j-cart", Route::Schema(ReturnRole::Composer)),
            ("composer-j-login-flow", Route::Schema(ReturnRole::Composer)),
            (
                "composition-judge-x",
                Route::Schema(ReturnRole::ReviewerInloop),
            ),
            ("probe-j-cart", Route::Schema(ReturnRole::Probe)),
            ("probe", Route::Schema(ReturnRole::Probe)),
            (
                "repair-worker-login-spec",
                Route::Schema(ReturnRole::RepairWorker),
            ),
            (
                "phase-validator-2: exit",
                Route::Schema(ReturnRole::PhaseValidator),
            ),
            ("phase-validator", Route::Schema(ReturnRole::PhaseValidator)),
            (
                "phase4-prioritise-author",
                Route::Schema(ReturnRole::Phase4PrioritiseAuthor),
            ),
            (
                "phase4-prioritise-author-2",
                Route::Schema(ReturnRole::Phase4PrioritiseAuthor),
            ),
            ("phase4-cycle-3: x", Route::Schema(ReturnRole::SectionAgent)),
            ("section-agent", Route::Schema(ReturnRole::SectionAgent)),
            ("plumber", Route::Schema(ReturnRole::Plumber)),
            ("plumber-hooks", Route::Unknown),
            ("process-validator-1", Route::EnvelopeOnly),
            ("phase1-scan", Route::EnvelopeOnly),
            ("stage2-x", Route::EnvelopeOnly),
            ("cleanup-ledger", Route::EnvelopeOnly),
            ("companion-y", Route::EnvelopeOnly),
            ("fd-z", Route::EnvelopeOnly),
            ("j-login", Route::Unknown),
            ("sj-login", Route::Unknown),
            ("selector-development-form", Route::Unknown),
            ("Composer-j-x", Route::Unknown),
            ("", Route::Unknown),
        ] {
            assert_eq!(route(text), expected, "{text}");
        }
    }

    #[test]
    fn every_role_names_its_schema() {
        for &role in ReturnRole::ALL {
            assert_eq!(route(role.name()), Route::Schema(role));
            assert!(role.schema().name().ends_with(role.name()));
            assert!(!role.statuses().is_empty());
        }
    }
}

//! Work in progress (DESIGN.md sections 5 and 7): on a branch that is not
//! protected, unfinished work may be committed and pushed, anyone's.
//!
//! The landing modules say which branch a landing lands on
//! ([`super::landing::Landing::destination`]): the branch pre-commit
//! commits to, the branch pre-push and pre-receive update, a pull
//! request's target, the branch a CI push pipeline builds. The protected
//! configuration says which branches are protected (the default branch and
//! `protected_branches`, [`super::landing::destination`]). On any other
//! branch, with `work_in_progress: allow` (the default), the findings that
//! only say "not finished yet" ([`INCOMPLETE`]) are warnings, with one
//! `work_in_progress` finding per task that says the work will be refused
//! where it lands and which commands finish it; a change no task covers
//! that the untasked policy denies (`task_required`) is a warning too
//! ([`apply_run`]): a teammate's branch is never a rejected push; and so is
//! a planning act the planning policy refuses ([`super::planning::ACTS`]:
//! a task planned, copied, widened or reopened, a control file changed),
//! since a plan pushed to such a branch is not landing yet: it is refused
//! where it lands on a protected branch unless a planner plans it there.
//! Everything else stays as it is: a malformed report or spec, scope
//! violations, contradictions in the report, receipts that are not the
//! runner's, the trust rules (`spec_changed_with_work`, `spec_loosened`).
//! What lands on a protected branch (a commit on it, a push to it, a pull
//! request into it) is judged strictly, so the same landing gets the same
//! verdict in every mode: CI of a pull request and pre-receive of its
//! merge judge the same steps, planning steps included.

use super::Gate;
use super::planning::ACTS;
use crate::codes::Code;
use crate::config::WorkInProgress;
use crate::diagnostic::{Diagnostic, Severity};
use crate::report::TaskResult;
use std::collections::BTreeSet;

/// The findings that say a task is not finished yet (as opposed to wrong):
/// no report, the skeleton `task new` wrote, or one that is not `complete`, a changed file the report does
/// not list yet, a declared command without its passing row, a declared
/// creation not made yet, and every observed check without a passing,
/// current receipt (missing, pending, failed or stale).
pub const INCOMPLETE: &[Code] = &[
    Code::executor_report_missing,
    Code::executor_report_unfilled,
    Code::executor_report_rejected,
    Code::executor_report_missing_changed_file,
    Code::verification_requirement_unmet,
    Code::creation_not_added,
    Code::receipt_missing,
    Code::receipt_pending,
    Code::receipt_failed,
    Code::receipt_timeout,
    Code::receipt_interrupted,
    Code::receipt_output_limit,
    Code::receipt_spawn_failed,
    Code::receipt_io_failed,
    Code::receipt_inputs_changed,
    Code::receipt_snapshot_changed,
    Code::receipt_spec_changed,
    Code::receipt_executable_changed,
    Code::acceptance_criterion_unmet,
];

/// Why the gate's landing is work in progress: it lands on a branch that
/// is not protected, and the protected configuration allows work in
/// progress. `None`: judged strictly.
pub fn reason(gate: &Gate<'_>) -> Option<String> {
    if gate.config.work_in_progress == WorkInProgress::Deny {
        return None;
    }
    gate.landing
        .destination
        .as_ref()?
        .unprotected(&gate.config.protected_branches)
}

/// Make a task's incomplete-work errors warnings where the landing is work
/// in progress ([`reason`]), and say so in one finding. Runs after the
/// configuration's severities, so an override to `error` of a code is as
/// much an error as before only where the landing is strict.
pub fn apply(gate: &Gate<'_>, result: &mut TaskResult) {
    let Some(reason) = reason(gate) else {
        return;
    };
    let dir = result.task.clone();
    let mut downgraded: BTreeSet<&'static str> = BTreeSet::new();
    let mut checks: BTreeSet<String> = BTreeSet::new();
    let mut report = false;
    for check in &mut result.checks {
        for d in &mut check.diagnostics {
            if d.severity == Severity::Error && ACTS.contains(&d.code) {
                unlanded_plan(d, &reason);
                continue;
            }
            if d.severity != Severity::Error || !INCOMPLETE.contains(&d.code) {
                continue;
            }
            d.severity = Severity::Warning;
            downgraded.insert(d.code.as_str());
            match d.code {
                Code::executor_report_missing
                | Code::executor_report_unfilled
                | Code::executor_report_rejected
                | Code::executor_report_missing_changed_file
                | Code::verification_requirement_unmet => report = true,
                _ => {}
            }
            if let Some(id) = d.path.as_deref().and_then(|p| receipt_id(&dir, p)) {
                checks.insert(id);
            }
        }
        check.ok = !check.diagnostics.iter().any(Diagnostic::is_error);
    }
    if downgraded.is_empty() {
        return;
    }
    let spec = format!("{dir}/spec.md");
    let mut steps = Vec::new();
    match checks.len() {
        0 => {}
        1 => steps.push(format!(
            "`mastermind-hooks verification run {spec} --id {}`",
            checks.iter().next().map(String::as_str).unwrap_or_default()
        )),
        _ => steps.push(format!("`mastermind-hooks verification run {spec} --all`")),
    }
    if report {
        steps.push(format!(
            "set `status: complete` in {dir}/executor-report.md (every changed file in files_modified, a passing row per declared command)"
        ));
    }
    steps.push(format!(
        "commit the task (`git add {dir}` and `git commit`)"
    ));
    let codes: Vec<&str> = downgraded.into_iter().collect();
    let finding = Diagnostic::new(
        Code::work_in_progress,
        format!(
            "task {dir} is unfinished ({}) and {reason}, so these findings are warnings: the work may be committed and pushed, but it is refused where it lands on a protected branch (a pull request's CI, pre-receive or a push to that branch) until it is finished",
            codes.join(", ")
        ),
    )
    .with_path(spec.clone())
    .with_task(dir.clone())
    .with_hint(format!("finish it: {}", steps.join("; then ")));
    result.checks.push(crate::report::CheckOutcome::new(
        "work_in_progress",
        vec![gate.config.apply(finding)],
    ));
}

/// Make the untasked policy's refusals (`task_required`) and the planning
/// policy's refusals of control-file changes (`control_file_changed`)
/// warnings where the landing is work in progress ([`reason`]), each saying
/// so: they are refused where they land on a protected branch, not on the
/// way there. Runs after the configuration's severities, as [`apply`].
pub fn apply_run(gate: &Gate<'_>, diagnostics: &mut [Diagnostic]) {
    let Some(reason) = reason(gate) else {
        return;
    };
    for d in diagnostics {
        if d.severity != Severity::Error {
            continue;
        }
        if ACTS.contains(&d.code) {
            unlanded_plan(d, &reason);
            continue;
        }
        if d.code != Code::task_required {
            continue;
        }
        d.severity = Severity::Warning;
        d.message = format!(
            "{}; {reason}, so this is work in progress and a warning here: it is refused where it lands on a protected branch unless a task covers it or a rule there allows it",
            d.message
        );
    }
}

/// A refused planning act on a branch that is not protected: a warning
/// that says where it is refused.
fn unlanded_plan(d: &mut Diagnostic, reason: &str) {
    d.severity = Severity::Warning;
    d.message = format!(
        "{}; {reason}, so this plan is not landing yet and a warning here: it is refused where it lands on a protected branch unless a planner the planning rules there allow plans it",
        d.message
    );
}

/// The check id of a receipt path of the task (`<dir>/verification/<id>.tree.json`
/// or `<id>.json`).
fn receipt_id(dir: &str, path: &str) -> Option<String> {
    let name = path.strip_prefix(dir)?.strip_prefix("/verification/")?;
    let id = name
        .strip_suffix(".tree.json")
        .or_else(|| name.strip_suffix(".json"))?;
    (!id.is_empty() && !id.contains('/')).then(|| id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receipt_ids_come_from_the_task_verification_paths_only() {
        let dir = ".mastermind/tasks/t";
        assert_eq!(
            receipt_id(dir, ".mastermind/tasks/t/verification/unit.tree.json").as_deref(),
            Some("unit")
        );
        assert_eq!(
            receipt_id(dir, ".mastermind/tasks/t/verification/unit.json").as_deref(),
            Some("unit")
        );
        assert_eq!(receipt_id(dir, ".mastermind/tasks/t/spec.md"), None);
        assert_eq!(
            receipt_id(dir, ".mastermind/tasks/other/verification/u.json"),
            None
        );
    }

    #[test]
    fn only_unfinished_work_is_downgraded() {
        for code in [
            Code::unexpected_file,
            Code::executor_report_unchanged_file,
            Code::receipt_outcome_invalid,
            Code::receipt_invalid,
            Code::receipt_binding_mismatch,
            Code::executor_report_schema_violation,
            Code::executor_report_incomplete_without_defect,
            Code::spec_changed_with_work,
            Code::spec_loosened,
            Code::observed_exit_code_nonzero,
        ] {
            assert!(!INCOMPLETE.contains(&code), "{code:?}");
        }
        for code in INCOMPLETE {
            assert_eq!(code.default_severity(), Severity::Error, "{code:?}");
        }
    }
}

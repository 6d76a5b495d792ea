//! A passing re-run is evidence (`check --ci --rerun`): a check that CI ran
//! again on exactly what lands and that passed there turns its receipt's
//! staleness into a note, and an acceptance criterion whose every check is
//! then current or passed again is met. A receipt that is stale asks "run
//! it again on what lands"; the re-run answers. What a re-run does not
//! answer stays as it is: a missing receipt, one that is not a receipt at
//! all, an owner's run that failed, and every check whose re-run failed or
//! could not be judged.

use crate::codes::Code;
use crate::contract::mastermind::spec;
use crate::diagnostic::{Diagnostic, Severity};
use crate::report::TaskResult;
use std::collections::BTreeSet;

/// The findings a passing re-run clears: the receipt does not describe what
/// lands (its content, its spec, its declaration or platform, its
/// executable).
pub const CLEARED_BY_RERUN: [Code; 4] = [
    Code::receipt_snapshot_changed,
    Code::receipt_spec_changed,
    Code::receipt_binding_mismatch,
    Code::receipt_executable_changed,
];

/// The check id a receipt finding is about, from its path
/// (`<task>/verification/<id>.tree.json` or `<id>.json`).
fn check_of<'d>(task: &str, diagnostic: &'d Diagnostic) -> Option<&'d str> {
    let path = diagnostic.path.as_deref()?;
    let name = path.strip_prefix(task)?.strip_prefix("/verification/")?;
    name.strip_suffix(".tree.json")
        .or_else(|| name.strip_suffix(".json"))
}

/// Turn what the passing re-runs of `passed` (check ids) answer into notes
/// in `result` (the task's `receipts` and `acceptance` checks), given the
/// spec the gate judged. Returns how many findings were cleared.
pub fn clear(result: &mut TaskResult, spec: &[u8], passed: &BTreeSet<String>) -> usize {
    let task = result.task.clone();
    let mut cleared = 0;
    // Checks with a receipt finding the re-run does not answer.
    let mut blocked: BTreeSet<String> = BTreeSet::new();
    for check in result.checks.iter_mut().filter(|c| c.name == "receipts") {
        for diagnostic in &mut check.diagnostics {
            let Some(id) = check_of(&task, diagnostic) else {
                continue;
            };
            let answered = passed.contains(id) && CLEARED_BY_RERUN.contains(&diagnostic.code);
            if answered && diagnostic.severity != Severity::Note {
                diagnostic.severity = Severity::Note;
                diagnostic.message.push_str(
                    "; CI's re-run of the check passed on exactly what lands (rerun_passed), which clears it",
                );
                diagnostic.hint = Some(match diagnostic.hint.take() {
                    Some(hint) => format!(
                        "nothing to do for this landing (the re-run is the evidence); for the local hooks: {hint}"
                    ),
                    None => {
                        "nothing to do for this landing (the re-run is the evidence)".to_string()
                    }
                });
                cleared += 1;
            } else if diagnostic.is_error() {
                blocked.insert(id.to_string());
            }
        }
    }
    let (parsed, _) = spec::check(spec);
    let criteria = parsed
        .frontmatter
        .as_ref()
        .and_then(|f| f.acceptance.as_ref());
    for check in result.checks.iter_mut().filter(|c| c.name == "acceptance") {
        for diagnostic in &mut check.diagnostics {
            let index = diagnostic
                .json_pointer
                .as_deref()
                .and_then(|p| p.strip_prefix("/acceptance/"))
                .and_then(|p| p.strip_suffix("/checks"))
                .and_then(|i| i.parse::<usize>().ok());
            let Some(criterion) = index.and_then(|i| criteria.and_then(|c| c.get(i))) else {
                continue;
            };
            let met = criterion
                .checks
                .iter()
                .all(|id| passed.contains(id) && !blocked.contains(id));
            if met
                && diagnostic.code == Code::acceptance_criterion_unmet
                && diagnostic.severity != Severity::Note
            {
                diagnostic.severity = Severity::Note;
                diagnostic.message.push_str(
                    "; CI's re-run of each of its checks passed on exactly what lands, which meets it",
                );
                cleared += 1;
            }
        }
    }
    for check in &mut result.checks {
        check.ok = !check.diagnostics.iter().any(Diagnostic::is_error);
    }
    result.ok = result.checks.iter().all(|c| c.ok);
    cleared
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::CheckOutcome;

    const TASK: &str = ".mastermind/tasks/001-a";
    const SPEC: &str = "---\nmode: verified\ntouches:\n  - file: a.py\nverify:\n  - cmd: grep -q a a.py\n    run:\n      id: unit\n      argv: [grep, -q, a, a.py]\n      cwd: .\n      timeout_secs: 60\n  - cmd: grep -q b a.py\n    run:\n      id: lint\n      argv: [grep, -q, b, a.py]\n      cwd: .\n      timeout_secs: 60\nacceptance:\n  - id: works\n    statement: It works.\n    checks: [unit]\n  - id: clean\n    statement: It is clean.\n    checks: [unit, lint]\n---\n# Task\n";

    fn finding(code: Code, id: &str) -> Diagnostic {
        Diagnostic::new(code, format!("about {id}"))
            .with_path(format!("{TASK}/verification/{id}.tree.json"))
    }

    fn unmet(index: usize) -> Diagnostic {
        Diagnostic::new(Code::acceptance_criterion_unmet, "unmet")
            .with_pointer(format!("/acceptance/{index}/checks"))
    }

    fn result(receipts: Vec<Diagnostic>, acceptance: Vec<Diagnostic>) -> TaskResult {
        TaskResult::new(
            TASK,
            vec![
                CheckOutcome::new("receipts", receipts),
                CheckOutcome::new("acceptance", acceptance),
            ],
        )
    }

    #[test]
    fn a_passing_rerun_turns_staleness_into_a_note_and_meets_its_criteria() {
        let mut task = result(
            vec![
                finding(Code::receipt_snapshot_changed, "unit"),
                finding(Code::receipt_missing, "lint"),
            ],
            vec![unmet(0), unmet(1)],
        );
        let passed = BTreeSet::from(["unit".to_string(), "lint".to_string()]);
        assert_eq!(clear(&mut task, SPEC.as_bytes(), &passed), 2);
        let receipts = &task.checks[0].diagnostics;
        assert_eq!(receipts[0].severity, Severity::Note);
        assert!(receipts[0].message.contains("re-run of the check passed"));
        assert_eq!(
            receipts[1].severity,
            Severity::Error,
            "a missing receipt stays what it is"
        );
        let acceptance = &task.checks[1].diagnostics;
        assert_eq!(acceptance[0].severity, Severity::Note, "unit is answered");
        assert_eq!(
            acceptance[1].severity,
            Severity::Error,
            "lint still has no receipt"
        );
        assert!(!task.ok);
    }

    #[test]
    fn only_a_passing_rerun_of_that_check_clears_it() {
        let mut task = result(
            vec![finding(Code::receipt_snapshot_changed, "unit")],
            vec![unmet(0)],
        );
        let other = BTreeSet::from(["lint".to_string()]);
        assert_eq!(clear(&mut task, SPEC.as_bytes(), &other), 0);
        assert!(!task.ok);
        let mut failed = result(vec![finding(Code::receipt_failed, "unit")], vec![]);
        let unit = BTreeSet::from(["unit".to_string()]);
        assert_eq!(
            clear(&mut failed, SPEC.as_bytes(), &unit),
            0,
            "an owner's failed run"
        );
        let mut stale = result(
            vec![finding(Code::receipt_snapshot_changed, "unit")],
            vec![unmet(0)],
        );
        assert_eq!(clear(&mut stale, SPEC.as_bytes(), &unit), 2);
        assert!(stale.ok);
    }
}

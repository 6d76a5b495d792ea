//! Acceptance in the gate: every declared acceptance criterion needs all
//! its checks to count (current, or an unverifiable v1 receipt that
//! configuration accepts). A check the spec does not observe is
//! unavailable.

use super::CheckResult;
use crate::codes::Code;
use crate::contract::mastermind::spec::ParsedSpec;
use crate::diagnostic::Diagnostic;
use std::collections::HashMap;

/// Criteria whose checks are not all current.
pub fn unmet(parsed: &ParsedSpec, results: &[CheckResult]) -> Option<Vec<Diagnostic>> {
    let criteria = parsed.frontmatter.as_ref()?.acceptance.as_ref()?;
    let by_id: HashMap<&str, &CheckResult> = results.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut out = Vec::new();
    for (index, criterion) in criteria.iter().enumerate() {
        let unmet: Vec<String> = criterion
            .checks
            .iter()
            .filter(|c| !by_id.get(c.as_str()).is_some_and(|r| r.counts()))
            .map(|c| match by_id.get(c.as_str()) {
                Some(r) => format!(
                    "`{c}` is {}{}",
                    r.state.as_str(),
                    r.reason
                        .map(|code| format!(" ({})", code.as_str()))
                        .unwrap_or_default()
                ),
                None => format!("`{c}` is unavailable (verification_unavailable)"),
            })
            .collect();
        if !unmet.is_empty() {
            out.push(
                Diagnostic::new(
                    Code::acceptance_criterion_unmet,
                    format!(
                        "acceptance_criterion_unmet: criterion `{}`: {}",
                        criterion.id,
                        unmet.join(", ")
                    ),
                )
                .with_pointer(format!("/acceptance/{index}/checks")),
            );
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::mastermind::receipt::CheckState;
    use crate::contract::mastermind::spec;

    const SPEC: &str = "---
mode: verified
touches:
  - file: src/lib.py
verify:
  - cmd: python -m pytest tests
    run:
      id: unit
      argv: [python, -m, pytest, tests]
      cwd: .
      timeout_secs: 300
  - cmd: ruff check src
    run:
      id: lint
      argv: [ruff, check, src]
      cwd: .
      timeout_secs: 60
acceptance:
  - id: tested
    statement: The tests pass.
    checks: [unit]
  - id: clean
    statement: Tests and lint pass.
    checks: [unit, lint]
---
# Change

## Goals
Change.

## Scope
Only `src/lib.py`.

## Acceptance Criteria
tested, clean.

## Tests Plan
Run them.

## Final Verification
Both pass.
";

    fn result(id: &str, state: CheckState, reason: Option<Code>) -> CheckResult {
        CheckResult {
            id: id.into(),
            state,
            reason,
            receipt_revision: None,
            run_id: None,
            accepted_unverifiable: false,
            diagnostics: Vec::new(),
        }
    }

    fn parsed() -> ParsedSpec {
        let (parsed, diagnostics) = spec::check(SPEC.as_bytes());
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        parsed
    }

    #[test]
    fn criteria_whose_checks_all_count_are_met() {
        let current = [
            result("unit", CheckState::Current, None),
            result("lint", CheckState::Current, None),
        ];
        assert_eq!(unmet(&parsed(), &current), Some(Vec::new()));
        let mut accepted = result(
            "lint",
            CheckState::Unavailable,
            Some(Code::receipt_unverifiable),
        );
        accepted.accepted_unverifiable = true;
        let results = [result("unit", CheckState::Current, None), accepted];
        assert_eq!(unmet(&parsed(), &results), Some(Vec::new()));
    }

    #[test]
    fn each_unmet_criterion_names_its_checks_states_and_reasons() {
        let results = [
            result("unit", CheckState::Current, None),
            result(
                "lint",
                CheckState::Stale,
                Some(Code::receipt_snapshot_changed),
            ),
        ];
        let found = unmet(&parsed(), &results).unwrap();
        assert_eq!(found.len(), 1, "`tested` is met");
        assert_eq!(found[0].code, Code::acceptance_criterion_unmet);
        assert_eq!(
            found[0].json_pointer.as_deref(),
            Some("/acceptance/1/checks")
        );
        assert_eq!(
            found[0].message,
            "acceptance_criterion_unmet: criterion `clean`: `lint` is stale (receipt_snapshot_changed)"
        );
        let missing = unmet(&parsed(), &[result("lint", CheckState::Missing, None)]).unwrap();
        assert_eq!(missing.len(), 2);
        assert_eq!(
            missing[1].message,
            "acceptance_criterion_unmet: criterion `clean`: `unit` is unavailable (verification_unavailable), `lint` is missing"
        );
    }

    #[test]
    fn a_spec_without_acceptance_has_nothing_to_map() {
        let legacy = SPEC.replace(
            "acceptance:\n  - id: tested\n    statement: The tests pass.\n    checks: [unit]\n  - id: clean\n    statement: Tests and lint pass.\n    checks: [unit, lint]\n",
            "",
        );
        let (parsed, _) = spec::check(legacy.as_bytes());
        assert!(parsed.frontmatter.is_some());
        assert_eq!(unmet(&parsed, &[]), None);
    }
}

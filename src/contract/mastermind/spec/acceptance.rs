//! Acceptance criteria (`acceptance[]`, contracts `mastermind.md` section
//! 6.2): count, ids, statements and the observed checks each criterion needs.

use super::declarations::is_identifier;
use super::model::{Criterion, Frontmatter};
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use std::collections::BTreeSet;

pub const MAX_CRITERIA: usize = 64;
pub const MAX_STATEMENT_BYTES: usize = 2048;
pub const MAX_CHECKS: usize = 32;

/// Why a statement is rejected, if it is.
fn statement_problem(statement: &str) -> Option<&'static str> {
    let trimmed = statement.trim();
    if trimmed.is_empty() {
        Some("the statement is blank")
    } else if statement.len() > MAX_STATEMENT_BYTES {
        Some("the statement is longer than 2048 bytes")
    } else if statement.chars().any(char::is_control) {
        Some("the statement contains a control character (tabs and line breaks included)")
    } else if trimmed.starts_with('<') && trimmed.ends_with('>') {
        Some("the statement is a `<placeholder>`")
    } else {
        None
    }
}

/// Validate declared criteria against the spec's observed checks.
pub fn validate(fm: &Frontmatter, criteria: &[Criterion]) -> Vec<Diagnostic> {
    if criteria.is_empty() || criteria.len() > MAX_CRITERIA {
        return vec![
            Diagnostic::new(
                Code::acceptance_requires_1_to_64_criteria,
                format!(
                    "acceptance_requires_1_to_64_criteria: {} criteria declared",
                    criteria.len()
                ),
            )
            .with_pointer("/acceptance"),
        ];
    }
    let observed: BTreeSet<&str> = fm.observed().map(|(_, run)| run.id.as_str()).collect();
    let mut ids = BTreeSet::new();
    let mut out = Vec::new();
    for (index, criterion) in criteria.iter().enumerate() {
        let at = |field: &str| format!("/acceptance/{index}/{field}");
        if !is_identifier(&criterion.id) || !ids.insert(criterion.id.as_str()) {
            out.push(
                Diagnostic::new(
                    Code::acceptance_ids_must_be_unique_ascii_identifiers,
                    format!(
                        "acceptance_ids_must_be_unique_ascii_identifiers: `{}`",
                        criterion.id
                    ),
                )
                .with_pointer(at("id")),
            );
        }
        if let Some(problem) = statement_problem(&criterion.statement) {
            out.push(
                Diagnostic::new(
                    Code::acceptance_statement_invalid_or_placeholder,
                    format!(
                        "{}: acceptance_statement_invalid_or_placeholder: {problem}",
                        criterion.id
                    ),
                )
                .with_pointer(at("statement")),
            );
        }
        let mut seen = BTreeSet::new();
        let check_problem = if criterion.checks.is_empty() {
            Some("no checks listed".to_string())
        } else if criterion.checks.len() > MAX_CHECKS {
            Some(format!(
                "{} checks listed (at most {MAX_CHECKS})",
                criterion.checks.len()
            ))
        } else if let Some(dup) = criterion.checks.iter().find(|c| !seen.insert(c.as_str())) {
            Some(format!("check `{dup}` is listed twice"))
        } else {
            criterion
                .checks
                .iter()
                .find(|c| !observed.contains(c.as_str()))
                .map(|c| format!("`{c}` is not the id of an observed check (`verify[].run.id`)"))
        };
        if let Some(problem) = check_problem {
            out.push(
                Diagnostic::new(
                    Code::acceptance_requires_unique_observed_check_ids,
                    format!(
                        "{}: acceptance_requires_unique_observed_check_ids: {problem}",
                        criterion.id
                    ),
                )
                .with_pointer(at("checks")),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::codes::Code;
    use crate::contract::mastermind::spec::tests::{VALID_SPEC, codes};

    fn replace(from: &str, to: &str) -> String {
        assert!(VALID_SPEC.contains(from), "{from}");
        VALID_SPEC.replacen(from, to, 1)
    }

    #[test]
    fn criteria_count() {
        let empty = replace(
            "acceptance:\n  - id: value-is-two\n    statement: value() returns 2.\n    checks: [unit]\n",
            "acceptance: []\n",
        );
        assert_eq!(codes(&empty), [Code::acceptance_requires_1_to_64_criteria]);
        let criterion =
            |i: usize| format!("  - id: c{i}\n    statement: s{i}.\n    checks: [unit]\n");
        let many = |n: usize| {
            replace(
                "acceptance:\n  - id: value-is-two\n    statement: value() returns 2.\n    checks: [unit]\n",
                &format!("acceptance:\n{}", (0..n).map(criterion).collect::<String>()),
            )
        };
        assert!(codes(&many(64)).is_empty());
        assert_eq!(
            codes(&many(65)),
            [Code::acceptance_requires_1_to_64_criteria]
        );
        let absent = replace(
            "acceptance:\n  - id: value-is-two\n    statement: value() returns 2.\n    checks: [unit]\n",
            "",
        );
        assert!(
            codes(&absent).is_empty(),
            "absent acceptance is legacy, not an error"
        );
    }

    #[test]
    fn criterion_rules() {
        for (from, to, code) in [
            (
                "id: value-is-two",
                "id: 'two words'",
                Code::acceptance_ids_must_be_unique_ascii_identifiers,
            ),
            (
                "id: value-is-two",
                "id: ''",
                Code::acceptance_ids_must_be_unique_ascii_identifiers,
            ),
            (
                "statement: value() returns 2.",
                "statement: '<what must hold>'",
                Code::acceptance_statement_invalid_or_placeholder,
            ),
            (
                "statement: value() returns 2.",
                "statement: '  '",
                Code::acceptance_statement_invalid_or_placeholder,
            ),
            (
                "statement: value() returns 2.",
                "statement: \"a\\tb\"",
                Code::acceptance_statement_invalid_or_placeholder,
            ),
            (
                "checks: [unit]",
                "checks: []",
                Code::acceptance_requires_unique_observed_check_ids,
            ),
            (
                "checks: [unit]",
                "checks: [unit, unit]",
                Code::acceptance_requires_unique_observed_check_ids,
            ),
            (
                "checks: [unit]",
                "checks: [lint]",
                Code::acceptance_requires_unique_observed_check_ids,
            ),
        ] {
            assert_eq!(codes(&replace(from, to)), [code], "{to}");
        }
        let long = format!("statement: '{}'", "x".repeat(2049));
        assert_eq!(
            codes(&replace("statement: value() returns 2.", &long)),
            [Code::acceptance_statement_invalid_or_placeholder]
        );
        let just_fits = format!("statement: '{}'", "x".repeat(2048));
        assert!(codes(&replace("statement: value() returns 2.", &just_fits)).is_empty());
        // `<` inside prose is fine; only a whole `<...>` is a placeholder.
        assert!(
            codes(&replace(
                "statement: value() returns 2.",
                "statement: 'a < b > c'"
            ))
            .is_empty()
        );
    }

    #[test]
    fn report_only_commands_do_not_count_as_checks() {
        let text = replace("verify:\n", "verify:\n  - cmd: make lint\n  - lint\n")
            .replace("checks: [unit]", "checks: [unit, lint]");
        assert_eq!(
            codes(&text),
            [Code::acceptance_requires_unique_observed_check_ids]
        );
    }
}

//! Declared commands against the report's verification rows (DESIGN.md
//! section 5 item 5, contracts `mastermind.md` section 7.3): every declared
//! `cmd` needs a passing row, and a passing row must not contradict itself.

use crate::codes::Code;
use crate::contract::mastermind::executor_report::{
    ExecutorReport, Verification, VerificationResult,
};
use crate::diagnostic::Diagnostic;
use std::collections::BTreeMap;

/// True when the command runs a test suite whose zero count is meaningful
/// (cargo, go, pytest and the usual JavaScript runners).
pub fn is_test_runner(command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    let first = words.first().map(|w| w.rsplit('/').next().unwrap_or(w));
    let second = words.get(1).copied();
    let third = words.get(2).copied();
    matches!(
        (first, second, third),
        (Some("cargo"), Some("test" | "nextest"), _)
            | (Some("go"), Some("test"), _)
            | (
                Some("pytest" | "py.test" | "jest" | "vitest" | "mocha"),
                _,
                _
            )
            | (Some("python" | "python3"), Some("-m"), Some("pytest"))
            | (
                Some("uv" | "poetry" | "pipenv"),
                Some("run"),
                Some("pytest")
            )
            | (Some("npm" | "yarn" | "pnpm" | "bun"), Some("test"), _)
            | (
                Some("npm" | "yarn" | "pnpm" | "bun"),
                Some("run"),
                Some("test")
            )
            | (Some("npx"), Some("jest" | "vitest" | "mocha"), _)
    )
}

/// A contradiction in a row that claims a pass, if any.
fn contradiction(row: &Verification, index: usize) -> Option<Diagnostic> {
    if row.result != VerificationResult::Pass {
        return None;
    }
    let observed = row.observed.as_ref()?;
    let cmd = row.cmd.trim();
    if let Some(code) = observed.exit_code.filter(|&c| c != 0) {
        return Some(
            Diagnostic::new(
                Code::observed_exit_code_nonzero,
                format!("`{cmd}` is reported as a pass but exited {code}"),
            )
            .with_pointer(format!("/verifications/{index}/observed/exit_code")),
        );
    }
    if observed.tests_run == Some(0) && is_test_runner(cmd) {
        return Some(
            Diagnostic::new(
                Code::observed_zero_tests,
                format!("`{cmd}` is reported as a pass but ran zero tests"),
            )
            .with_pointer(format!("/verifications/{index}/observed/tests_run")),
        );
    }
    None
}

/// Check every declared command against the report.
pub fn check(declared: &[&str], report: &ExecutorReport) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut rows: BTreeMap<&str, Vec<(usize, bool)>> = BTreeMap::new();
    for (index, row) in report.verifications.iter().enumerate() {
        let contradicted = contradiction(row, index);
        let passed = row.result == VerificationResult::Pass && contradicted.is_none();
        out.extend(contradicted);
        rows.entry(row.cmd.trim())
            .or_default()
            .push((index, passed));
    }
    for cmd in declared {
        let reason = match rows.get(cmd) {
            None => Some("missing_result"),
            Some(rows) if rows.iter().all(|(_, passed)| !passed) => Some("not_passed"),
            Some(rows) if rows.iter().any(|(_, passed)| !passed) => Some("conflicting_results"),
            Some(_) => None,
        };
        if let Some(reason) = reason {
            let detail = match reason {
                "missing_result" => "the report has no row for it",
                "not_passed" => "no row records a clean pass",
                _ => "rows record both a pass and a failure",
            };
            out.push(
                Diagnostic::new(
                    Code::verification_requirement_unmet,
                    format!("declared command `{cmd}`: {reason}: {detail}"),
                )
                .with_pointer("/verifications"),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::mastermind::executor_report::parse;

    fn report(rows: &str) -> ExecutorReport {
        let text = format!(
            "schema_version: 1\nspec: s\nstatus: partial\nphases: []\nfiles_modified: []\nclaims: []\ndefects:\n  - {{kind: k, phase: p, details: d, remediation_hint: r}}\nverifications:\n{rows}"
        );
        parse(text.as_bytes()).unwrap().0
    }

    fn codes(declared: &[&str], rows: &str) -> Vec<(Code, String)> {
        check(declared, &report(rows))
            .into_iter()
            .map(|d| (d.code, d.message))
            .collect()
    }

    #[test]
    fn reasons() {
        let pass = "  - {cmd: cargo test, result: pass, observed: {exit_code: 0, tests_run: 4}}\n";
        let fail = "  - {cmd: cargo test, result: fail}\n";
        assert!(codes(&["cargo test"], pass).is_empty());
        let got = codes(&["cargo test"], "  []\n");
        assert!(got[0].1.contains("missing_result"), "{got:?}");
        let got = codes(&["cargo test"], fail);
        assert!(got[0].1.contains("not_passed"), "{got:?}");
        let got = codes(&["cargo test"], &format!("{pass}{fail}"));
        assert!(got[0].1.contains("conflicting_results"), "{got:?}");
        // Rows are matched on the trimmed command.
        assert!(codes(&["cargo test"], "  - {cmd: ' cargo test ', result: pass}\n").is_empty());
    }

    #[test]
    fn contradictions() {
        let got = codes(
            &["make check"],
            "  - {cmd: make check, result: pass, observed: {exit_code: 2}}\n",
        );
        assert_eq!(got[0].0, Code::observed_exit_code_nonzero);
        assert!(got[1].1.contains("not_passed"));
        let got = codes(
            &["cargo test"],
            "  - {cmd: cargo test, result: pass, observed: {tests_run: 0}}\n",
        );
        assert_eq!(got[0].0, Code::observed_zero_tests);
        // Zero tests from a non-test command is no contradiction.
        assert!(
            codes(
                &["make lint"],
                "  - {cmd: make lint, result: pass, observed: {tests_run: 0}}\n"
            )
            .is_empty()
        );
    }

    #[test]
    fn test_runner_recognition() {
        for cmd in [
            "cargo test --locked",
            "go test ./...",
            "pytest -q",
            "python -m pytest",
            "npm test",
            "npx vitest run",
            "/usr/bin/cargo nextest run",
            "yarn run test",
        ] {
            assert!(is_test_runner(cmd), "{cmd}");
        }
        for cmd in ["cargo build", "make test", "echo pytest", "npm run lint"] {
            assert!(!is_test_runner(cmd), "{cmd}");
        }
    }
}

//! JUnit XML output (written with quick-junit, which escapes and strips what
//! XML cannot hold): for the gate one `<testsuite>` per task with one
//! `<testcase>` per check; for `validate` one `<testcase>` per file; findings
//! about the run itself as a testcase of their own.
//!
//! A check that fails is a `<failure>`; one that could not be carried out
//! (a code whose outcome is "could not check", exit 2) is an `<error>`.
//!
//! The document validates against the junit-10.xsd that Jenkins' xUnit
//! plugin publishes (the schema GitLab and most CI readers accept): it
//! allows no `skipped` attribute on `<testsuites>`, which quick-junit
//! writes, so it is taken out (this tool never skips a testcase).

use crate::diagnostic::{Diagnostic, ExitStatus};
use crate::render::findings::plain_block;
use crate::report::Report;
use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

/// Name of the `<testsuites>` element and of the suite that holds run-level
/// findings and `validate`'s files.
pub const NAME: &str = "mastermind-hooks";

/// The testcase holding findings about the run itself.
pub const RUN_CASE: &str = "run";

/// A testcase for one unit (a check, a file, the run) and its diagnostics.
fn case(name: &str, classname: &str, diagnostics: &[Diagnostic]) -> TestCase {
    let status = match ExitStatus::of(diagnostics) {
        ExitStatus::Pass => TestCaseStatus::success(),
        failed => {
            let kind = if failed == ExitStatus::CannotCheck {
                NonSuccessKind::Error
            } else {
                NonSuccessKind::Failure
            };
            let errors: Vec<&Diagnostic> = diagnostics.iter().filter(|d| d.is_error()).collect();
            let mut status = TestCaseStatus::non_success(kind);
            if let Some(first) = errors.first() {
                let mut message = format!("{}: {}", first.code.as_str(), first.message);
                if errors.len() > 1 {
                    message.push_str(&format!(" (and {} more)", errors.len() - 1));
                }
                status.set_message(message.replace(['\r', '\n'], " "));
                status.set_type(first.code.as_str());
            }
            status.set_description(diagnostics.iter().map(plain_block).collect::<String>());
            status
        }
    };
    let mut case = TestCase::new(name, status);
    case.set_classname(classname);
    // Warnings and notes of a passing unit are kept as its output.
    if ExitStatus::of(diagnostics) == ExitStatus::Pass && !diagnostics.is_empty() {
        case.set_system_out(diagnostics.iter().map(plain_block).collect::<String>());
    }
    case
}

pub fn render(report: &Report) -> String {
    let mut junit = quick_junit::Report::new(NAME);
    for task in &report.tasks {
        let mut suite = TestSuite::new(task.task.as_str());
        for check in &task.checks {
            suite.add_test_case(case(&check.name, &task.task, &check.diagnostics));
        }
        junit.add_test_suite(suite);
    }
    let mut own = TestSuite::new(NAME);
    for file in &report.files {
        own.add_test_case(case(
            &file.path,
            file.kind.unwrap_or("unknown"),
            &file.diagnostics,
        ));
    }
    // The run is a testcase when it has findings, and when nothing else is
    // (a gate that touched no task still reports that it ran).
    if !report.diagnostics.is_empty() || (report.tasks.is_empty() && report.files.is_empty()) {
        own.add_test_case(case(RUN_CASE, NAME, &report.diagnostics));
    }
    if !own.test_cases.is_empty() {
        junit.add_test_suite(own);
    }
    match junit.to_string() {
        Ok(text) => without_testsuites_skipped(text),
        Err(error) => format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{NAME}\" tests=\"1\" failures=\"0\" errors=\"1\"><testsuite name=\"{NAME}\" tests=\"1\" failures=\"0\" errors=\"1\"><testcase name=\"render\"><error message=\"cannot write the JUnit report: {}\" type=\"internal_error\"/></testcase></testsuite></testsuites>\n",
            xml_attribute(&error.to_string())
        ),
    }
}

/// Drop the `skipped` attribute of the root `<testsuites>` start tag, which
/// junit-10.xsd does not allow. Only that tag is touched, and it holds no
/// data from the report before the attribute (its name is [`NAME`]).
fn without_testsuites_skipped(text: String) -> String {
    let Some(start) = text.find("<testsuites ") else {
        return text;
    };
    let Some(len) = text[start..].find('>') else {
        return text;
    };
    let tag = &text[start..start + len];
    let Some(at) = tag.find(" skipped=\"") else {
        return text;
    };
    let Some(value_len) = tag[at + 10..].find('"') else {
        return text;
    };
    let cut = start + at..start + at + 10 + value_len + 1;
    let mut out = text;
    out.replace_range(cut, "");
    out
}

/// Escape text for an XML attribute value (only used on the fallback path).
fn xml_attribute(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Code;
    use crate::report::{CheckOutcome, FileResult, TaskResult};

    #[test]
    fn gate_report_has_a_suite_per_task_and_a_case_per_check() {
        let report = Report::assemble(
            vec![],
            vec![TaskResult::new(
                ".mastermind/tasks/t",
                vec![
                    CheckOutcome::new("spec", vec![]),
                    CheckOutcome::new(
                        "scope",
                        vec![Diagnostic::new(Code::yaml_tag, "a <b> & \"c\"").with_path("x")],
                    ),
                    CheckOutcome::new(
                        "receipts",
                        vec![Diagnostic::new(Code::input_unreadable, "gone")],
                    ),
                ],
            )],
            vec![],
        );
        let xml = render(&report);
        let parsed = quick_junit::Report::deserialize_from_str(&xml).unwrap();
        assert_eq!(parsed.tests, 3);
        assert_eq!(parsed.failures, 1);
        assert_eq!(parsed.errors, 1);
        assert_eq!(parsed.test_suites.len(), 1);
        assert_eq!(parsed.test_suites[0].name.as_str(), ".mastermind/tasks/t");
        assert!(xml.contains("a &lt;b&gt; &amp; &quot;c&quot;"), "{xml}");
    }

    #[test]
    fn the_root_has_no_skipped_attribute() {
        let xml = render(&Report::assemble(vec![], vec![], vec![]));
        let root = xml.lines().find(|l| l.starts_with("<testsuites")).unwrap();
        assert_eq!(
            root,
            "<testsuites name=\"mastermind-hooks\" tests=\"1\" failures=\"0\" errors=\"0\">"
        );
        assert!(xml.contains("<testsuite name=\"mastermind-hooks\" tests=\"1\" skipped=\"0\""));
    }

    #[test]
    fn empty_gate_report_still_has_the_run_case() {
        let xml = render(&Report::assemble(vec![], vec![], vec![]));
        let parsed = quick_junit::Report::deserialize_from_str(&xml).unwrap();
        assert_eq!(parsed.tests, 1);
        assert_eq!(parsed.failures + parsed.errors, 0);
    }

    #[test]
    fn validate_report_has_a_case_per_file() {
        let report = Report::new(vec![
            FileResult::new("a.md".into(), Some("spec"), None, vec![]),
            FileResult::new(
                "b.md".into(),
                Some("spec"),
                None,
                vec![Diagnostic::new(Code::executor_report_incomplete, "partial")],
            ),
        ]);
        let xml = render(&report);
        let parsed = quick_junit::Report::deserialize_from_str(&xml).unwrap();
        assert_eq!(parsed.tests, 2);
        assert_eq!(parsed.failures, 0);
        assert!(
            xml.contains("<system-out>warning[executor_report_incomplete]: partial"),
            "{xml}"
        );
    }
}

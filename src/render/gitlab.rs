//! GitLab Code Quality report: a JSON array with one issue per finding
//! (`description`, `check_name`, `fingerprint`, `severity`, `location`), shown
//! in the merge request widget when saved as `artifacts:reports:codequality`.

use crate::codes::Outcome;
use crate::diagnostic::{Diagnostic, Severity};
use crate::render::findings;
use crate::report::Report;
use serde::Serialize;

/// Where GitLab shows a finding that has no file of its own (a run-level
/// finding: configuration, git): the repository root.
pub const RUN_PATH: &str = ".";

#[derive(Serialize)]
struct Issue {
    description: String,
    check_name: &'static str,
    fingerprint: String,
    severity: &'static str,
    location: Location,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: u32,
}

/// Code Quality severity: an error that means "could not check" blocks,
/// other errors are major, warnings minor, notes info.
pub fn severity(d: &Diagnostic) -> &'static str {
    match (d.severity, d.code.outcome()) {
        (Severity::Error, Outcome::CannotCheck) => "blocker",
        (Severity::Error, Outcome::Violation) => "major",
        (Severity::Warning, _) => "minor",
        (Severity::Note, _) => "info",
    }
}

pub fn render(report: &Report) -> String {
    let findings = findings::all(report);
    let fingerprints = findings::fingerprints(&findings);
    let issues: Vec<Issue> = findings
        .iter()
        .zip(fingerprints)
        .map(|(finding, fingerprint)| {
            let d = finding.diagnostic;
            let mut description = finding.message_with_hint().replace('\n', " ");
            if let Some(task) = finding.task {
                description = format!("[{task}] {description}");
            }
            Issue {
                description,
                check_name: d.code.as_str(),
                fingerprint,
                severity: severity(d),
                location: Location {
                    path: finding.anchor().unwrap_or_else(|| RUN_PATH.to_string()),
                    lines: Lines {
                        // GitLab requires a line; a finding about a whole file is on its first.
                        begin: d.line.filter(|_| d.path.is_some()).unwrap_or(1),
                    },
                },
            }
        })
        .collect();
    // Only strings and integers: serialization cannot fail.
    let mut text = serde_json::to_string_pretty(&issues).unwrap_or_else(|_| "[]".to_string());
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Code;
    use crate::report::{CheckOutcome, FileResult, TaskResult};
    use serde_json::Value;

    #[test]
    fn issues_have_every_required_field() {
        let report = Report::assemble(
            vec![FileResult::new(
                "a/spec.md".into(),
                Some("spec"),
                None,
                vec![Diagnostic::new(Code::yaml_tag, "tag").with_line(Some(4))],
            )],
            vec![TaskResult::new(
                ".mastermind/tasks/t",
                vec![CheckOutcome::new(
                    "report",
                    vec![Diagnostic::new(Code::executor_report_incomplete, "partial")],
                )],
            )],
            vec![Diagnostic::new(Code::internal_error, "boom")],
        );
        let issues: Value = serde_json::from_str(&render(&report)).unwrap();
        let issues = issues.as_array().unwrap();
        assert_eq!(issues.len(), 3);
        assert_eq!(issues[0]["check_name"], "yaml_tag");
        assert_eq!(issues[0]["severity"], "major");
        assert_eq!(issues[0]["location"]["path"], "a/spec.md");
        assert_eq!(issues[0]["location"]["lines"]["begin"], 4);
        assert_eq!(
            issues[0]["description"],
            "tag help: Remove the tag; write the plain value."
        );
        assert_eq!(issues[1]["severity"], "minor");
        assert_eq!(issues[1]["location"]["path"], ".mastermind/tasks/t/spec.md");
        assert_eq!(issues[1]["location"]["lines"]["begin"], 1);
        assert!(
            issues[1]["description"]
                .as_str()
                .unwrap()
                .starts_with("[.mastermind/tasks/t] partial")
        );
        assert_eq!(issues[2]["severity"], "blocker");
        assert_eq!(issues[2]["location"]["path"], ".");
        for issue in issues {
            let fp = issue["fingerprint"].as_str().unwrap();
            assert_eq!(fp.len(), 64);
            assert!(fp.bytes().all(|b| b.is_ascii_hexdigit()));
        }
    }

    #[test]
    fn notes_are_info_and_an_empty_report_is_an_empty_array() {
        let note = Diagnostic::new(Code::receipt_intrinsically_current, "n");
        assert_eq!(severity(&note), "info");
        assert_eq!(render(&Report::new(vec![])), "[]\n");
    }
}

//! GitLab: the Code Quality report, a JSON array with one issue per finding
//! (`description`, `check_name`, `fingerprint`, `severity`, `location`), shown
//! in the merge request widget when saved as `artifacts:reports:codequality`;
//! and the lines a server hook prints for GitLab's web interface
//! ([`hook_errors`]).

use crate::codes::Outcome;
use crate::diagnostic::{Diagnostic, ExitStatus, Severity};
use crate::render::{escape, findings};
use crate::report::Report;
use serde::Serialize;
use std::fmt::Write;

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

/// The prefix GitLab looks for in a server hook's output: such lines are
/// shown in the web interface (a merge or an edit the hook refused), the
/// rest only in the logs (GitLab, "Git server hooks", custom error messages;
/// nothing may come before the prefix on its line).
pub const HOOK_ERROR_PREFIX: &str = "GL-HOOK-ERR: ";

/// At most this many tasks are named in the web interface's message.
pub const HOOK_ERROR_TASKS: usize = 5;

/// What GitLab's web interface shows when the gate refuses a push there: a
/// line that says so and what to do, then one line per failed task (its
/// first error, and how many more) or per run-level error. Nothing for a
/// push that passes. Every line is one line of plain text.
pub fn hook_errors(report: &Report) -> String {
    let status = report.exit_status();
    if status == ExitStatus::Pass {
        return String::new();
    }
    let line = |text: &str| {
        format!(
            "{HOOK_ERROR_PREFIX}{}\n",
            escape::control(text.trim_end_matches('\n'))
        )
    };
    let mut out = String::new();
    let headline = if status == ExitStatus::CannotCheck {
        "mastermind-hooks could not check this push, so it is refused; the push output (git push in a terminal) has the details"
    } else {
        "mastermind-hooks refused this push; fix what is listed and push again (git push in a terminal shows every finding and its fix)"
    };
    out.push_str(&line(headline));
    let mut named = 0;
    for task in report.tasks.iter().filter(|t| !t.ok) {
        if named == HOOK_ERROR_TASKS {
            break;
        }
        let errors: Vec<&Diagnostic> = task
            .checks
            .iter()
            .flat_map(|c| &c.diagnostics)
            .filter(|d| d.is_error())
            .collect();
        let mut text = format!("task {}", task.task);
        if let Some(view) = &task.view {
            let _ = write!(text, " in {view}");
        }
        if let Some(first) = errors.first() {
            let _ = write!(text, ": {}: {}", first.code.as_str(), first.message);
            if errors.len() > 1 {
                let _ = write!(text, " (and {} more)", errors.len() - 1);
            }
        }
        out.push_str(&line(&text.replace(['\r', '\n'], " ")));
        named += 1;
    }
    for d in report.diagnostics.iter().filter(|d| d.is_error()) {
        if named == HOOK_ERROR_TASKS {
            break;
        }
        let mut text = format!("{}: {}", d.code.as_str(), d.message);
        if let Some(hint) = d.hint.as_deref().filter(|h| !h.is_empty()) {
            let _ = write!(text, " ({hint})");
        }
        out.push_str(&line(&text.replace(['\r', '\n'], " ")));
        named += 1;
    }
    let failed = report.tasks.iter().filter(|t| !t.ok).count()
        + report.diagnostics.iter().filter(|d| d.is_error()).count();
    if failed > named {
        out.push_str(&line(&format!("and {} more", failed - named)));
    }
    out
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
    fn hook_errors_are_prefixed_single_lines_and_only_for_a_refusal() {
        assert_eq!(hook_errors(&Report::assemble(vec![], vec![], vec![])), "");
        let task = |name: &str, n: usize| {
            TaskResult::new(
                name,
                vec![CheckOutcome::new(
                    "scope",
                    (0..n)
                        .map(|i| {
                            Diagnostic::new(
                                Code::unexpected_file,
                                format!("src/{i}\n::x was modified"),
                            )
                            .with_path(format!("src/{i}"))
                        })
                        .collect(),
                )],
            )
        };
        let mut tasks: Vec<TaskResult> = (0..6).map(|i| task(&format!("t{i}"), 1)).collect();
        tasks[0] = task("t0\u{1b}[2J", 3);
        let text = hook_errors(&Report::assemble(vec![], tasks, vec![]));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + HOOK_ERROR_TASKS + 1, "{text}");
        assert!(
            lines.iter().all(|l| l.starts_with(HOOK_ERROR_PREFIX)),
            "{text}"
        );
        assert!(lines[0].contains("refused this push"));
        assert_eq!(
            lines[1],
            "GL-HOOK-ERR: task t0\\u{1b}[2J: unexpected_file: src/0 ::x was modified (and 2 more)"
        );
        assert_eq!(lines[6], "GL-HOOK-ERR: and 1 more");
        let cannot = hook_errors(&Report::assemble(
            vec![],
            vec![],
            vec![Diagnostic::new(Code::internal_error, "boom")],
        ));
        assert!(
            cannot.starts_with("GL-HOOK-ERR: mastermind-hooks could not check"),
            "{cannot}"
        );
        assert!(
            cannot.contains("\nGL-HOOK-ERR: internal_error: boom"),
            "{cannot}"
        );
    }

    #[test]
    fn notes_are_info_and_an_empty_report_is_an_empty_array() {
        let note = Diagnostic::new(Code::receipt_intrinsically_current, "n");
        assert_eq!(severity(&note), "info");
        assert_eq!(render(&Report::new(vec![])), "[]\n");
    }
}

//! JUnit XML output, written here: for the gate one `<testsuite>` per task
//! with one `<testcase>` per check; for `validate` one `<testcase>` per
//! file; findings about the run itself as a testcase of their own.
//!
//! A check that fails is a `<failure>`; one that could not be carried out
//! (a code whose outcome is "could not check", exit 2) is an `<error>`.
//!
//! The document validates against the junit-10.xsd that Jenkins' xUnit
//! plugin publishes (the schema GitLab and most CI readers accept). Text
//! from the report is data: markup is escaped, and a line break, carriage
//! return or tab in a name or message is written as a character reference
//! (`&#10;`), so no file name can start a line of its own in a log that
//! prints the report; other control characters, which XML 1.0 cannot hold,
//! are written as visible escapes (`\u{1b}`).

use crate::diagnostic::{Diagnostic, ExitStatus};
use crate::render::escape;
use crate::render::findings::plain_block_with;
use crate::report::Report;
use std::fmt::Write;

/// Name of the `<testsuites>` element and of the suite that holds run-level
/// findings and `validate`'s files.
pub const NAME: &str = "mastermind-hooks";

/// The testcase holding findings about the run itself.
pub const RUN_CASE: &str = "run";

/// Report text as XML character data or an attribute value (always quoted
/// with `"`).
pub fn xml_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if c.is_control() => out.push_str(&escape::control(&c.to_string())),
            c => out.push(c),
        }
    }
    out
}

/// How a testcase ended when it did not pass.
struct Outcome {
    /// `failure` or `error`.
    element: &'static str,
    message: String,
    kind: &'static str,
    body: String,
}

struct Case {
    name: String,
    classname: String,
    outcome: Option<Outcome>,
    system_out: Option<String>,
}

struct Suite {
    name: String,
    cases: Vec<Case>,
}

impl Suite {
    fn count(&self, element: &str) -> usize {
        self.cases
            .iter()
            .filter(|c| c.outcome.as_ref().is_some_and(|o| o.element == element))
            .count()
    }
}

/// The diagnostics as text blocks, escaped for XML.
fn blocks(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|d| plain_block_with(d, &xml_data))
        .collect()
}

/// A testcase for one unit (a check, a file, the run) and its diagnostics.
fn case(name: &str, classname: &str, diagnostics: &[Diagnostic]) -> Case {
    let status = ExitStatus::of(diagnostics);
    let outcome = (status != ExitStatus::Pass).then(|| {
        let errors: Vec<&Diagnostic> = diagnostics.iter().filter(|d| d.is_error()).collect();
        let (message, kind) = match errors.first() {
            Some(first) => {
                let mut message = format!("{}: {}", first.code.as_str(), first.message);
                if errors.len() > 1 {
                    let _ = write!(message, " (and {} more)", errors.len() - 1);
                }
                (message.replace(['\r', '\n'], " "), first.code.as_str())
            }
            None => (String::new(), "internal_error"),
        };
        Outcome {
            element: if status == ExitStatus::CannotCheck {
                "error"
            } else {
                "failure"
            },
            message,
            kind,
            body: blocks(diagnostics),
        }
    });
    // Warnings and notes of a passing unit are kept as its output.
    let system_out =
        (status == ExitStatus::Pass && !diagnostics.is_empty()).then(|| blocks(diagnostics));
    Case {
        name: name.to_string(),
        classname: classname.to_string(),
        outcome,
        system_out,
    }
}

pub fn render(report: &Report) -> String {
    let mut suites = Vec::new();
    for task in &report.tasks {
        suites.push(Suite {
            name: task.task.clone(),
            cases: task
                .checks
                .iter()
                .map(|check| case(&check.name, &task.task, &check.diagnostics))
                .collect(),
        });
    }
    let mut own = Suite {
        name: NAME.to_string(),
        cases: Vec::new(),
    };
    for file in &report.files {
        own.cases.push(case(
            &file.path,
            file.kind.unwrap_or("unknown"),
            &file.diagnostics,
        ));
    }
    // The run is a testcase when it has findings, and when nothing else is
    // (a gate that touched no task still reports that it ran).
    if !report.diagnostics.is_empty() || (report.tasks.is_empty() && report.files.is_empty()) {
        own.cases.push(case(RUN_CASE, NAME, &report.diagnostics));
    }
    if !own.cases.is_empty() {
        suites.push(own);
    }

    let total = |f: &dyn Fn(&Suite) -> usize| suites.iter().map(f).sum::<usize>();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"{NAME}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">",
        total(&|s| s.cases.len()),
        total(&|s| s.count("failure")),
        total(&|s| s.count("error")),
    );
    for suite in &suites {
        let _ = writeln!(
            out,
            "    <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">",
            xml_data(&suite.name),
            suite.cases.len(),
            suite.count("failure"),
            suite.count("error"),
        );
        for case in &suite.cases {
            let _ = write!(
                out,
                "        <testcase name=\"{}\" classname=\"{}\"",
                xml_data(&case.name),
                xml_data(&case.classname)
            );
            if case.outcome.is_none() && case.system_out.is_none() {
                out.push_str("/>\n");
                continue;
            }
            out.push_str(">\n");
            if let Some(outcome) = &case.outcome {
                let _ = writeln!(
                    out,
                    "            <{element} message=\"{}\" type=\"{}\">{}</{element}>",
                    xml_data(&outcome.message),
                    xml_data(outcome.kind),
                    outcome.body,
                    element = outcome.element,
                );
            }
            if let Some(text) = &case.system_out {
                let _ = writeln!(out, "            <system-out>{text}</system-out>");
            }
            out.push_str("        </testcase>\n");
        }
        out.push_str("    </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Code;
    use crate::report::{CheckOutcome, FileResult, TaskResult};

    /// (tests, failures, errors) of the root, and of each suite.
    fn counts(xml: &str) -> Vec<(String, usize, usize, usize)> {
        xml.lines()
            .filter(|l| l.trim_start().starts_with("<testsuite"))
            .map(|l| {
                let attr = |name: &str| {
                    let start = l.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
                    l[start..start + l[start..].find('"').unwrap()].to_string()
                };
                let n = |name: &str| attr(name).parse().unwrap();
                (attr("name"), n("tests"), n("failures"), n("errors"))
            })
            .collect()
    }

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
        assert_eq!(
            counts(&xml),
            [
                ("mastermind-hooks".to_string(), 3, 1, 1),
                (".mastermind/tasks/t".to_string(), 3, 1, 1)
            ]
        );
        assert!(xml.contains("a &lt;b&gt; &amp; &quot;c&quot;"), "{xml}");
        assert!(
            xml.contains("<error message=\"input_unreadable: gone\""),
            "{xml}"
        );
    }

    #[test]
    fn an_empty_gate_report_still_has_the_run_case() {
        let xml = render(&Report::assemble(vec![], vec![], vec![]));
        assert_eq!(
            xml,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <testsuites name=\"mastermind-hooks\" tests=\"1\" failures=\"0\" errors=\"0\">\n    \
             <testsuite name=\"mastermind-hooks\" tests=\"1\" failures=\"0\" errors=\"0\">\n        \
             <testcase name=\"run\" classname=\"mastermind-hooks\"/>\n    \
             </testsuite>\n</testsuites>\n"
        );
    }

    #[test]
    fn validate_report_has_a_case_per_file_and_keeps_warnings_as_output() {
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
        assert_eq!(counts(&xml)[0], ("mastermind-hooks".to_string(), 2, 0, 0));
        assert!(
            xml.contains("<system-out>warning[executor_report_incomplete]: partial"),
            "{xml}"
        );
    }

    #[test]
    fn names_and_messages_never_break_a_line() {
        let name = "src/x\n::error::pwned\r\u{1b}[31m\tx.py";
        let report = Report::assemble(
            vec![],
            vec![TaskResult::new(
                name,
                vec![CheckOutcome::new(
                    "scope",
                    vec![
                        Diagnostic::new(Code::unexpected_file, format!("{name} changed"))
                            .with_path(name),
                    ],
                )],
            )],
            vec![],
        );
        let xml = render(&report);
        for line in xml.lines() {
            assert!(
                !line.trim_start().starts_with("::")
                    && !line.contains('\u{1b}')
                    && !line.contains('\r'),
                "{line:?}"
            );
        }
        assert!(
            xml.contains("src/x&#10;::error::pwned&#13;\\u{1b}[31m&#9;x.py"),
            "{xml}"
        );
        assert_eq!(xml_data("a\u{7f}b\u{85}"), "a\\u{7f}b\\u{85}");
    }
}

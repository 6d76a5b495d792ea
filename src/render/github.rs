//! GitHub Actions output: workflow commands that become annotations
//! (`::error file=..,line=..,title=..::message`), capped so the findings that
//! matter are the ones shown, and a Markdown job summary for
//! `$GITHUB_STEP_SUMMARY`.

use crate::diagnostic::Severity;
use crate::render::findings::{self, Finding};
use crate::report::Report;
use std::fmt::Write;

/// Annotations emitted by default. GitHub displays only a limited number per
/// step and job; the job summary lists everything.
pub const DEFAULT_MAX_ANNOTATIONS: usize = 50;

/// Rows of the job summary's findings table before it is cut short (the
/// summary file of a step is limited to 1 MiB).
pub const MAX_SUMMARY_ROWS: usize = 200;

/// Escape the message part of a workflow command (`%`, CR, LF).
pub fn escape_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// Escape a property value of a workflow command (`%`, CR, LF, `:`, `,`).
pub fn escape_property(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' => out.push_str("%3A"),
            ',' => out.push_str("%2C"),
            c => out.push(c),
        }
    }
    out
}

fn command_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    }
}

/// One finding as one workflow command line.
pub fn annotation(finding: &Finding<'_>) -> String {
    let d = finding.diagnostic;
    let mut properties = Vec::new();
    if let Some(file) = finding.anchor() {
        properties.push(format!("file={}", escape_property(&file)));
        if let Some(line) = d.line.filter(|_| d.path.is_some()) {
            properties.push(format!("line={line}"));
        }
    }
    let title = match finding.task {
        Some(task) => format!("{} [{task}]", d.code.as_str()),
        None => d.code.as_str().to_string(),
    };
    properties.push(format!("title={}", escape_property(&title)));
    format!(
        "::{} {}::{}",
        command_name(d.severity),
        properties.join(","),
        escape_data(&finding.message_with_hint())
    )
}

/// Workflow commands for every finding (errors first) up to `max`, a notice
/// when more exist, then a plain summary line.
pub fn render(report: &Report, max: usize) -> String {
    let findings = findings::by_severity(report);
    let mut out = String::new();
    for finding in findings.iter().take(max) {
        out.push_str(&annotation(finding));
        out.push('\n');
    }
    if findings.len() > max {
        let hidden = findings.len() - max;
        let text = format!(
            "{hidden} more finding{} not shown as annotations (limit {max}, see --max-annotations); the job summary and --format human list every finding",
            if hidden == 1 { " is" } else { "s are" }
        );
        let _ = writeln!(
            out,
            "::notice title={}::{}",
            escape_property("mastermind-hooks"),
            escape_data(&text)
        );
    }
    let _ = writeln!(out, "mastermind-hooks: {}", summary_sentence(report));
    out
}

/// One sentence with the outcome and the totals.
fn summary_sentence(report: &Report) -> String {
    let s = &report.summary;
    let verdict = if report.ok { "passed" } else { "failed" };
    let scope = if !report.files.is_empty() {
        format!(
            "{} file{} checked, {} invalid, {} unreadable",
            s.files,
            plural(s.files),
            s.invalid,
            s.unreadable
        )
    } else {
        format!(
            "{} task{} checked, {} failed",
            s.tasks,
            plural(s.tasks),
            s.tasks_failed
        )
    };
    format!(
        "{verdict}: {scope} ({} error{}, {} warning{}, {} note{})",
        s.errors,
        plural(s.errors),
        s.warnings,
        plural(s.warnings),
        s.notes,
        plural(s.notes)
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Escape text for a Markdown table cell: no HTML, no table breaks, no
/// emphasis or links by accident; newlines become `<br>`.
pub fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\r' => {}
            '\n' => out.push_str("<br>"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A code span that survives any content (backticks inside are replaced).
fn code_span(text: &str) -> String {
    format!("`{}`", text.replace('`', "'").replace('|', "\\|"))
}

/// The Markdown job summary: verdict, a table of tasks (gate) or files
/// (`validate`), then a table of findings.
pub fn step_summary(report: &Report) -> String {
    let mut out = String::new();
    let icon = if report.ok { "✅" } else { "❌" };
    let _ = writeln!(out, "## {icon} mastermind-hooks {}\n", {
        if report.ok { "passed" } else { "failed" }
    });
    let _ = writeln!(out, "{}\n", escape_markdown(&summary_sentence(report)));

    if !report.tasks.is_empty() {
        out.push_str("| task | result | checks | errors | warnings |\n|---|---|---|---|---|\n");
        for task in &report.tasks {
            let count = |severity: Severity| {
                task.checks
                    .iter()
                    .flat_map(|c| &c.diagnostics)
                    .filter(|d| d.severity == severity)
                    .count()
            };
            let failed: Vec<&str> = task
                .checks
                .iter()
                .filter(|c| !c.ok)
                .map(|c| c.name.as_str())
                .collect();
            let checks = if failed.is_empty() {
                format!("{} passed", task.checks.len())
            } else {
                format!("failed: {}", escape_markdown(&failed.join(", ")))
            };
            let _ = writeln!(
                out,
                "| {} | {} | {checks} | {} | {} |",
                code_span(&task.task),
                if task.ok { "✅ pass" } else { "❌ fail" },
                count(Severity::Error),
                count(Severity::Warning),
            );
        }
        out.push('\n');
    }
    if !report.files.is_empty() {
        out.push_str("| file | kind | result | errors | warnings |\n|---|---|---|---|---|\n");
        for file in &report.files {
            let count = |severity: Severity| {
                file.diagnostics
                    .iter()
                    .filter(|d| d.severity == severity)
                    .count()
            };
            let result = if file.unreadable() {
                "⛔ unreadable"
            } else if file.ok {
                "✅ valid"
            } else {
                "❌ invalid"
            };
            let _ = writeln!(
                out,
                "| {} | {} | {result} | {} | {} |",
                code_span(&file.path),
                escape_markdown(file.kind.unwrap_or("unknown")),
                count(Severity::Error),
                count(Severity::Warning),
            );
        }
        out.push('\n');
    }
    if report.tasks.is_empty() && report.files.is_empty() {
        out.push_str("No task was checked.\n\n");
    }

    let findings = findings::by_severity(report);
    if !findings.is_empty() {
        out.push_str(
            "### Findings\n\n| severity | rule | where | message | fix |\n|---|---|---|---|---|\n",
        );
        for finding in findings.iter().take(MAX_SUMMARY_ROWS) {
            let d = finding.diagnostic;
            let mut place = finding.anchor().unwrap_or_else(|| "(run)".to_string());
            if let Some(line) = d.line.filter(|_| d.path.is_some()) {
                let _ = write!(place, ":{line}");
            }
            let mut message = d.message.clone();
            if let Some(pointer) = d.json_pointer.as_deref().filter(|p| !p.is_empty()) {
                let _ = write!(message, " (at {pointer})");
            }
            let mut rule = code_span(d.code.as_str());
            if let Some(check) = finding.check {
                let _ = write!(rule, " ({})", escape_markdown(check));
            }
            let _ = writeln!(
                out,
                "| {} | {rule} | {} | {} | {} |",
                d.severity.as_str(),
                code_span(&place),
                escape_markdown(&message),
                escape_markdown(d.hint.as_deref().unwrap_or("")),
            );
        }
        if findings.len() > MAX_SUMMARY_ROWS {
            let _ = writeln!(
                out,
                "\n{} more findings are not listed; run `mastermind-hooks` with `--format human` to see them all.",
                findings.len() - MAX_SUMMARY_ROWS
            );
        }
    }
    // A blank line ends the last table, so what the next step appends stays apart.
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Code;
    use crate::diagnostic::Diagnostic;
    use crate::report::{CheckOutcome, FileResult, TaskResult};

    #[test]
    fn property_escaping_covers_percent_cr_lf_colon_comma() {
        assert_eq!(escape_property("a%b\rc\nd:e,f"), "a%25b%0Dc%0Ad%3Ae%2Cf");
        assert_eq!(escape_property("plain/path.md"), "plain/path.md");
    }

    #[test]
    fn data_escaping_keeps_colons_and_commas() {
        assert_eq!(escape_data("50% a:b,c\r\nnext"), "50%25 a:b,c%0D%0Anext");
        // `%` first: an already escaped text is escaped again, never decoded.
        assert_eq!(escape_data("%0A"), "%250A");
    }

    #[test]
    fn annotation_has_file_line_title_and_escaped_message() {
        let d = Diagnostic::new(Code::yaml_tag, "bad: tag, 100%\nsecond line")
            .with_path("dir,x/a:b.md")
            .with_line(Some(7));
        let finding = Finding {
            diagnostic: &d,
            task: None,
            check: None,
        };
        assert_eq!(
            annotation(&finding),
            "::error file=dir%2Cx/a%3Ab.md,line=7,title=yaml_tag::bad: tag, 100%25%0Asecond line%0Ahelp: Remove the tag; write the plain value."
        );
    }

    #[test]
    fn severities_map_to_commands_and_pathless_findings_have_no_file() {
        let mut d = Diagnostic::new(Code::internal_error, "x");
        d.hint = None;
        let f = |d: &Diagnostic| {
            annotation(&Finding {
                diagnostic: d,
                task: None,
                check: None,
            })
        };
        assert_eq!(f(&d), "::error title=internal_error::x");
        d.severity = Severity::Warning;
        assert!(f(&d).starts_with("::warning title="));
        d.severity = Severity::Note;
        assert!(f(&d).starts_with("::notice title="));
    }

    #[test]
    fn task_findings_without_path_point_at_the_task_spec() {
        let mut d = Diagnostic::new(Code::internal_error, "x").with_line(Some(3));
        d.hint = None;
        let line = annotation(&Finding {
            diagnostic: &d,
            task: Some(".mastermind/tasks/t"),
            check: Some("scope"),
        });
        // The line belongs to no file we know, so it is dropped.
        assert_eq!(
            line,
            "::error file=.mastermind/tasks/t/spec.md,title=internal_error [.mastermind/tasks/t]::x"
        );
    }

    fn many(n: usize) -> Report {
        let diagnostics = (0..n)
            .map(|i| {
                let code = if i % 2 == 0 {
                    Code::executor_report_incomplete
                } else {
                    Code::yaml_tag
                };
                Diagnostic::new(code, format!("finding {i}")).with_line(Some(i as u32 + 1))
            })
            .collect();
        Report::new(vec![FileResult::new(
            "f.md".into(),
            None,
            None,
            diagnostics,
        )])
    }

    #[test]
    fn annotations_are_capped_errors_first_with_a_notice() {
        let text = render(&many(7), 3);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        assert!(lines[..3].iter().all(|l| l.starts_with("::error ")));
        assert!(
            lines[3].starts_with("::notice title=mastermind-hooks::4 more findings are not shown")
        );
        assert_eq!(
            lines[4],
            "mastermind-hooks: failed: 1 file checked, 1 invalid, 0 unreadable (3 errors, 4 warnings, 0 notes)"
        );
        let uncapped = render(&many(7), 50);
        assert_eq!(uncapped.lines().filter(|l| l.starts_with("::")).count(), 7);
        assert!(!uncapped.contains("::notice"));
    }

    #[test]
    fn markdown_escaping_defuses_html_tables_and_emphasis() {
        assert_eq!(
            escape_markdown("<b>|x|</b> *a* _b_ [l](u) `c`\nnext"),
            "&lt;b&gt;\\|x\\|&lt;/b&gt; \\*a\\* \\_b\\_ \\[l\\](u) \\`c\\`<br>next"
        );
    }

    #[test]
    fn step_summary_lists_tasks_and_findings() {
        let task_ok = TaskResult::new(
            ".mastermind/tasks/a",
            vec![CheckOutcome::new("spec", vec![])],
        );
        let task_bad = TaskResult::new(
            ".mastermind/tasks/b",
            vec![
                CheckOutcome::new("spec", vec![]),
                CheckOutcome::new(
                    "scope",
                    vec![
                        Diagnostic::new(Code::yaml_tag, "a|b")
                            .with_path("src/x.rs")
                            .with_line(Some(4)),
                    ],
                ),
            ],
        );
        let report = Report::assemble(vec![], vec![task_ok, task_bad], vec![]);
        let md = step_summary(&report);
        assert!(md.starts_with("## ❌ mastermind-hooks failed\n"), "{md}");
        assert!(
            md.contains("| `.mastermind/tasks/a` | ✅ pass | 1 passed | 0 | 0 |"),
            "{md}"
        );
        assert!(
            md.contains("| `.mastermind/tasks/b` | ❌ fail | failed: scope | 1 | 0 |"),
            "{md}"
        );
        assert!(md.contains("| error | `yaml_tag` (scope) | `src/x.rs:4` | a\\|b | Remove the tag; write the plain value. |"), "{md}");
        assert!(!md.contains("| file |"));
    }

    #[test]
    fn step_summary_for_validate_lists_files() {
        let report = Report::new(vec![
            FileResult::new("good.md".into(), Some("spec"), None, vec![]),
            FileResult::new(
                "gone.md".into(),
                Some("spec"),
                None,
                vec![Diagnostic::new(Code::input_unreadable, "cannot read")],
            ),
        ]);
        let md = step_summary(&report);
        assert!(
            md.contains("| `good.md` | spec | ✅ valid | 0 | 0 |"),
            "{md}"
        );
        assert!(
            md.contains("| `gone.md` | spec | ⛔ unreadable | 1 | 0 |"),
            "{md}"
        );
        assert!(!md.contains("| task |"));
    }

    #[test]
    fn step_summary_rows_are_capped() {
        let md = step_summary(&many(MAX_SUMMARY_ROWS + 5));
        assert!(md.contains("5 more findings are not listed"));
        let rows = md
            .lines()
            .filter(|l| l.starts_with("| error |") || l.starts_with("| warning |"));
        assert_eq!(rows.count(), MAX_SUMMARY_ROWS);
    }
}

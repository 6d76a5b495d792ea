//! Human output: one line per valid file or passing task, a block per
//! finding with rule, place and fix (grouped under its task for the gate),
//! then a summary line.
//!
//! Paths, task names and messages are data: control characters (CR, LF
//! inside a path, ANSI escapes) are printed escaped, and no line of a
//! message can read as a CI platform's command ([`escape`]).

use crate::diagnostic::{Diagnostic, Severity};
use crate::render::escape;
use crate::render::style::{Style, paint};
use crate::report::{FileResult, Report, TaskResult};
use std::fmt::Write;

fn severity_label(severity: Severity) -> String {
    let label = severity.as_str();
    match severity {
        Severity::Error => paint(label, Style::Red),
        Severity::Warning => paint(label, Style::Yellow),
        Severity::Note => paint(label, Style::Cyan),
    }
}

/// Render one diagnostic as a block.
pub fn diagnostic(out: &mut String, d: &Diagnostic) {
    let mut lines = escape::lines(&d.message).into_iter();
    let _ = writeln!(
        out,
        "{}[{}]: {}",
        severity_label(d.severity),
        paint(d.code.as_str(), Style::Bold),
        lines.next().unwrap_or_default()
    );
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
    let mut place = d.path.as_deref().map(escape::control).unwrap_or_default();
    if let Some(line) = d.line {
        let _ = write!(place, ":{line}");
    }
    if let Some(pointer) = d.json_pointer.as_ref().filter(|p| !p.is_empty()) {
        let _ = write!(place, " ({})", escape::control(pointer));
    }
    if let Some(task) = &d.task {
        let _ = write!(place, " [task {}]", escape::control(task));
    }
    if !place.is_empty() {
        let _ = writeln!(out, "  --> {place}");
    }
    if let Some(hint) = &d.hint {
        let _ = writeln!(out, "  = help: {}", escape::control(hint));
    }
}

/// Render one diagnostic of a task, indented under it: the rule and the
/// gate check, the place, every further line of the message (expected vs
/// actual, diffs), and the fix.
pub fn task_diagnostic(out: &mut String, task: &TaskResult, check: &str, d: &Diagnostic) {
    let mut lines = escape::lines(d.message.trim_end_matches('\n')).into_iter();
    let _ = writeln!(
        out,
        "  {}[{}] ({}): {}",
        severity_label(d.severity),
        paint(d.code.as_str(), Style::Bold),
        escape::control(check),
        lines.next().unwrap_or_default()
    );
    let mut place = d.path.as_deref().map(escape::control).unwrap_or_default();
    if let Some(line) = d.line {
        let _ = write!(place, ":{line}");
    }
    if let Some(pointer) = d.json_pointer.as_ref().filter(|p| !p.is_empty()) {
        let _ = write!(place, " ({})", escape::control(pointer));
    }
    if let Some(other) = d.task.as_ref().filter(|t| **t != task.task) {
        let _ = write!(place, " [task {}]", escape::control(other));
    }
    if !place.is_empty() {
        let _ = writeln!(out, "    --> {}", place.trim_start());
    }
    for line in lines {
        let _ = writeln!(out, "    {line}");
    }
    if let Some(hint) = &d.hint {
        let _ = writeln!(out, "    = help: {}", escape::control(hint));
    }
}

/// One task: a line when it passed, a headed block of findings when not.
/// The view is named when a run checks several (`--push`: the pushed ref).
fn task(out: &mut String, task: &TaskResult) {
    let checks = task.checks.len();
    let view = task
        .view
        .as_deref()
        .map(|v| format!(" in {}", escape::control(v)))
        .unwrap_or_default();
    let name = escape::control(&task.task);
    if task.ok {
        let _ = writeln!(
            out,
            "{}: task {}{view} ({checks} check{} passed)",
            paint("ok", Style::Green),
            name,
            if checks == 1 { "" } else { "s" }
        );
    } else {
        let failed: Vec<&str> = task
            .checks
            .iter()
            .filter(|c| !c.ok)
            .map(|c| c.name.as_str())
            .collect();
        let _ = writeln!(
            out,
            "{}: task {}{view} ({} of {checks} check{} failed: {})",
            paint("FAILED", Style::Red),
            paint(&name, Style::Bold),
            failed.len(),
            if checks == 1 { "" } else { "s" },
            escape::control(&failed.join(", "))
        );
    }
    for check in &task.checks {
        for d in &check.diagnostics {
            task_diagnostic(out, task, &check.name, d);
        }
    }
}

/// A gate run that touched no task and found nothing else says so in one
/// line (a hook on every commit that belongs to no task must not be
/// noisy): that no task changed, or the local hooks' warning that the
/// change belongs to no task.
fn nothing_to_check(report: &Report) -> Option<String> {
    use crate::codes::Code;
    let untasked_warning =
        |d: &Diagnostic| d.code == Code::untasked_change && d.severity == Severity::Warning;
    let quiet = report.files.is_empty()
        && report.tasks.is_empty()
        && !report.diagnostics.is_empty()
        && (report
            .diagnostics
            .iter()
            .all(|d| d.code == Code::no_task_changed)
            || report.diagnostics.iter().all(untasked_warning));
    if !quiet {
        return None;
    }
    let more = report.diagnostics.len() - 1;
    let first = &report.diagnostics[0];
    let level = if untasked_warning(first) {
        "warning: "
    } else {
        ""
    };
    Some(format!(
        "mastermind-hooks: {level}{}{}\n",
        escape::line(&first.message),
        if more > 0 {
            format!(
                " (and {more} more ref{} alike)",
                if more == 1 { "" } else { "s" }
            )
        } else {
            String::new()
        }
    ))
}

pub fn render(report: &Report) -> String {
    if let Some(line) = nothing_to_check(report) {
        return line;
    }
    let mut out = String::new();
    for file in &report.files {
        let kind = file.kind.unwrap_or("unknown kind");
        let what = match file.state {
            Some(state) => format!("{kind}, {}", state.as_str()),
            None => kind.to_string(),
        };
        if file.skipped() {
            skipped_line(&mut out, file);
            continue;
        }
        if file.ok {
            let _ = writeln!(
                out,
                "{}: {} ({what})",
                paint("ok", Style::Green),
                escape::control(&file.path)
            );
        }
        for d in &file.diagnostics {
            diagnostic(&mut out, d);
        }
    }
    for t in &report.tasks {
        task(&mut out, t);
    }
    for d in &report.diagnostics {
        diagnostic(&mut out, d);
    }
    summary(&mut out, report);
    out
}

/// What `--quiet` prints when nothing is wrong but files were skipped: the
/// skipped files and the summary line, so a CI step that validates a
/// directory never passes silently over files it did not judge.
pub fn skipped_only(report: &Report) -> String {
    let mut out = String::new();
    for file in report.files.iter().filter(|f| f.skipped()) {
        skipped_line(&mut out, file);
    }
    summary(&mut out, report);
    out
}

/// The line of a skipped file: why it was skipped (its first diagnostic),
/// or its path when nothing says why.
fn skipped_line(out: &mut String, file: &FileResult) {
    let why = file.diagnostics.first().map(|d| d.message.as_str());
    let _ = writeln!(
        out,
        "{}: {}",
        paint("skipped", Style::Cyan),
        escape::control(why.unwrap_or(&file.path))
    );
}

/// The closing line: what was checked and what was found.
fn summary(out: &mut String, report: &Report) {
    let s = &report.summary;
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    if !report.files.is_empty() {
        let _ = writeln!(
            out,
            "{} file{} checked: {} valid, {} invalid, {} unreadable{} ({} error{}, {} warning{})",
            s.files,
            plural(s.files),
            s.valid,
            s.invalid,
            s.unreadable,
            if s.skipped > 0 {
                format!(
                    ", {} skipped and not judged: --kind judges them, --strict fails on them",
                    s.skipped
                )
            } else {
                String::new()
            },
            s.errors,
            plural(s.errors),
            s.warnings,
            plural(s.warnings),
        );
    } else {
        let _ = writeln!(
            out,
            "{} task{} checked: {} passed, {} failed ({} error{}, {} warning{})",
            s.tasks,
            plural(s.tasks),
            s.tasks.saturating_sub(s.tasks_failed),
            s.tasks_failed,
            s.errors,
            plural(s.errors),
            s.warnings,
            plural(s.warnings),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Code;
    use crate::report::CheckOutcome;

    fn gate() -> Report {
        let passing = TaskResult::new(
            ".mastermind/tasks/a",
            vec![
                CheckOutcome::new("spec", vec![]),
                CheckOutcome::new("scope", vec![]),
            ],
        );
        let failing = TaskResult::new(
            ".mastermind/tasks/b",
            vec![
                CheckOutcome::new("spec", vec![]),
                CheckOutcome::new(
                    "scope",
                    vec![
                        Diagnostic::new(
                            Code::yaml_tag,
                            "src/x.rs changed but is not declared\nexpected: src/lib.rs\nactual:   src/lib.rs, src/x.rs",
                        )
                        .with_path("src/x.rs")
                        .with_line(Some(3))
                        .with_task(".mastermind/tasks/b"),
                    ],
                ),
            ],
        );
        let run = Diagnostic::new(Code::internal_error, "config unreadable");
        Report::assemble(vec![], vec![passing, failing], vec![run])
    }

    #[test]
    fn gate_output_has_a_line_per_passing_task_and_a_block_per_failure() {
        assert_eq!(
            render(&gate()),
            "\
ok: task .mastermind/tasks/a (2 checks passed)
FAILED: task .mastermind/tasks/b (1 of 2 checks failed: scope)
  error[yaml_tag] (scope): src/x.rs changed but is not declared
    --> src/x.rs:3
    expected: src/lib.rs
    actual:   src/lib.rs, src/x.rs
    = help: Remove the tag; write the plain value.
error[internal_error]: config unreadable
  = help: Report this as a bug with the command and input that triggered it.
2 tasks checked: 1 passed, 1 failed (2 errors, 0 warnings)
"
        );
    }

    #[test]
    fn an_empty_gate_report_says_so() {
        assert_eq!(
            render(&Report::assemble(vec![], vec![], vec![])),
            "0 tasks checked: 0 passed, 0 failed (0 errors, 0 warnings)\n"
        );
    }

    #[test]
    fn hostile_paths_and_messages_print_as_inert_text() {
        let name = "src/a\n::error::pwned\r\u{1b}[31m.rs";
        let d = Diagnostic::new(
            Code::unexpected_file,
            format!("{name} was modified\n::stop-commands::token\n##[group]x"),
        )
        .with_path(name)
        .with_task(".mastermind/tasks/t\n::warning::x");
        let task = TaskResult::new(
            ".mastermind/tasks/\u{1b}]8;;x\u{7}t",
            vec![CheckOutcome::new("scope", vec![d.clone()])],
        );
        let report = Report::assemble(vec![], vec![task], vec![d]);
        let text = render(&report);
        for line in text.lines() {
            assert!(!escape::reads_as_command(line), "{line:?} in\n{text}");
            assert!(!line.contains('\u{1b}') && !line.contains('\r'), "{line:?}");
        }
        assert!(
            text.contains("src/a\\n::error::pwned\\r\\u{1b}[31m.rs"),
            "{text}"
        );
        assert!(text.contains("\\::stop-commands::token"), "{text}");
    }
}

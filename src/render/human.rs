//! Human output: one line per valid file, a block per finding with rule,
//! place and fix, then a summary line.

use crate::diagnostic::{Diagnostic, Severity};
use crate::report::Report;
use owo_colors::{OwoColorize, Stream};
use std::fmt::Write;

fn severity_label(severity: Severity) -> String {
    let label = severity.as_str();
    match severity {
        Severity::Error => label
            .if_supports_color(Stream::Stdout, |t| t.red())
            .to_string(),
        Severity::Warning => label
            .if_supports_color(Stream::Stdout, |t| t.yellow())
            .to_string(),
        Severity::Note => label
            .if_supports_color(Stream::Stdout, |t| t.cyan())
            .to_string(),
    }
}

/// Render one diagnostic as a block.
pub fn diagnostic(out: &mut String, d: &Diagnostic) {
    let _ = writeln!(
        out,
        "{}[{}]: {}",
        severity_label(d.severity),
        d.code
            .as_str()
            .if_supports_color(Stream::Stdout, |t| t.bold()),
        d.message
    );
    let mut place = d.path.clone().unwrap_or_default();
    if let Some(line) = d.line {
        let _ = write!(place, ":{line}");
    }
    if let Some(pointer) = d.json_pointer.as_ref().filter(|p| !p.is_empty()) {
        let _ = write!(place, " ({pointer})");
    }
    if let Some(task) = &d.task {
        let _ = write!(place, " [task {task}]");
    }
    if !place.is_empty() {
        let _ = writeln!(out, "  --> {place}");
    }
    if let Some(hint) = &d.hint {
        let _ = writeln!(out, "  = help: {hint}");
    }
}

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for file in &report.files {
        let kind = file.kind.unwrap_or("unknown kind");
        let what = match file.state {
            Some(state) => format!("{kind}, {}", state.as_str()),
            None => kind.to_string(),
        };
        if file.ok {
            let _ = writeln!(
                out,
                "{}: {} ({what})",
                "ok".if_supports_color(Stream::Stdout, |t| t.green()),
                file.path
            );
        }
        for d in &file.diagnostics {
            diagnostic(&mut out, d);
        }
    }
    for task in &report.tasks {
        let view = task
            .view
            .as_deref()
            .map(|v| format!(" ({v})"))
            .unwrap_or_default();
        if task.ok {
            let _ = writeln!(
                out,
                "{}: task {}{view}",
                "ok".if_supports_color(Stream::Stdout, |t| t.green()),
                task.task
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
                "{}: task {}{view} ({})",
                "FAILED".if_supports_color(Stream::Stdout, |t| t.red()),
                task.task,
                failed.join(", ")
            );
        }
        for check in &task.checks {
            for d in &check.diagnostics {
                diagnostic(&mut out, d);
            }
        }
    }
    for d in &report.diagnostics {
        diagnostic(&mut out, d);
    }
    let s = &report.summary;
    if report.files.is_empty() && !report.tasks.is_empty()
        || report.files.is_empty() && !report.diagnostics.is_empty()
    {
        let _ = writeln!(
            out,
            "{} task{} checked: {} passed, {} failed ({} error{}, {} warning{})",
            s.tasks,
            if s.tasks == 1 { "" } else { "s" },
            s.tasks - s.tasks_failed,
            s.tasks_failed,
            s.errors,
            if s.errors == 1 { "" } else { "s" },
            s.warnings,
            if s.warnings == 1 { "" } else { "s" },
        );
        return out;
    }
    let _ = writeln!(
        out,
        "{} file{} checked: {} valid, {} invalid, {} unreadable ({} error{}, {} warning{})",
        s.files,
        if s.files == 1 { "" } else { "s" },
        s.valid,
        s.invalid,
        s.unreadable,
        s.errors,
        if s.errors == 1 { "" } else { "s" },
        s.warnings,
        if s.warnings == 1 { "" } else { "s" },
    );
    out
}

//! GitHub Actions output: workflow commands that become annotations
//! (`::error file=..,line=..,title=..::message`), capped the way GitHub caps
//! them so the findings that matter are the ones shown and the rest are
//! counted exactly, and a Markdown job summary for `$GITHUB_STEP_SUMMARY`.
//!
//! GitHub keeps at most 10 error, 10 warning and 10 notice annotations per
//! step (and 50 per job); the rest are dropped silently. See "Limitations"
//! in the actions/toolkit problem-matchers document and the workflow
//! commands reference (docs.github.com, "Workflow commands for GitHub
//! Actions"). Data never becomes a command: messages and properties are
//! escaped as that reference says (`%`, CR, LF; `:` and `,` in properties)
//! and other control characters are printed as visible escapes.

use crate::diagnostic::{ExitStatus, Severity};
use crate::render::escape;
use crate::render::findings::{self, Finding, Problem};
use crate::report::Report;
use std::fmt::Write;

/// Annotations of each kind (error, warning, notice) shown by default:
/// GitHub's per-step limit.
pub const DEFAULT_MAX_ANNOTATIONS: usize = 10;

/// Rows of the job summary's findings table before it is cut short (the
/// summary file of a step is limited to 1 MiB).
pub const MAX_SUMMARY_ROWS: usize = 200;

/// Escape the message part of a workflow command (`%`, CR, LF), and show
/// any other control character as a visible escape.
pub fn escape_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if c.is_control() => out.push_str(&escape::control(&c.to_string())),
            c => out.push(c),
        }
    }
    out
}

/// Escape a property value of a workflow command (`%`, CR, LF, `:`, `,`),
/// other control characters shown as visible escapes.
pub fn escape_property(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' => out.push_str("%3A"),
            ',' => out.push_str("%2C"),
            c if c.is_control() => out.push_str(&escape::control(&c.to_string())),
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
    problem_annotation(&Problem {
        primary: *finding,
        also: Vec::new(),
    })
}

/// One problem as one workflow command line: on its first finding's file
/// and line, titled with every rule it breaks and its task, at its worst
/// severity; the other findings' messages follow the first's.
pub fn problem_annotation(problem: &Problem<'_>) -> String {
    let first = &problem.primary;
    let d = first.diagnostic;
    let mut properties = Vec::new();
    if let Some(file) = first.anchor() {
        properties.push(format!("file={}", escape_property(&file)));
        if let Some(line) = d.line.filter(|_| d.path.is_some()) {
            properties.push(format!("line={line}"));
        }
    }
    let mut codes = vec![d.code.as_str()];
    for other in &problem.also {
        if !codes.contains(&other.diagnostic.code.as_str()) {
            codes.push(other.diagnostic.code.as_str());
        }
    }
    let codes = codes.join(", ");
    let title = match first.task {
        Some(task) => format!("{codes} [{task}]"),
        None => codes,
    };
    properties.push(format!("title={}", escape_property(&title)));
    let mut message = first.message_with_hint();
    for other in &problem.also {
        let od = other.diagnostic;
        if od.code == d.code && od.message == d.message {
            continue;
        }
        message.push_str(&format!("\nalso {}: ", od.code.as_str()));
        message.push_str(&other.message_with_hint());
    }
    format!(
        "::{} {}::{}",
        command_name(problem.severity()),
        properties.join(","),
        escape_data(&message)
    )
}

fn slot(severity: Severity) -> usize {
    match severity {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Note => 2,
    }
}

/// Which problems become annotations: at most `max` of each kind, errors
/// first, and within a kind spread over the tasks (the first problem of
/// every task, then the second of every task, ...), so the first tasks
/// cannot use up the kind. When any problem is left out, one notice slot is
/// kept for the notice that counts them, so that notice is never the one
/// GitHub drops. Returns the shown problems and how many were left out.
pub fn select<'a>(problems: &[Problem<'a>], max: usize) -> (Vec<Problem<'a>>, usize) {
    let count = |s: Severity| problems.iter().filter(|p| p.severity() == s).count();
    let shown_without_notice = count(Severity::Error).min(max)
        + count(Severity::Warning).min(max)
        + count(Severity::Note).min(max);
    let note_cap = if shown_without_notice < problems.len() {
        max.saturating_sub(1)
    } else {
        max
    };
    let mut shown = Vec::new();
    for (severity, cap) in [
        (Severity::Error, max),
        (Severity::Warning, max),
        (Severity::Note, note_cap),
    ] {
        // The problems of this kind by task, tasks in order of appearance.
        let mut groups: Vec<(Option<&str>, Vec<&Problem<'a>>)> = Vec::new();
        for problem in problems.iter().filter(|p| p.severity() == severity) {
            let task = problem.primary.task;
            match groups.iter_mut().find(|(t, _)| *t == task) {
                Some((_, group)) => group.push(problem),
                None => groups.push((task, vec![problem])),
            }
        }
        let mut taken = 0;
        let mut round = 0;
        while taken < cap && groups.iter().any(|(_, g)| g.len() > round) {
            for (_, group) in &groups {
                if taken == cap {
                    break;
                }
                if let Some(problem) = group.get(round) {
                    shown.push((*problem).clone());
                    taken += 1;
                }
            }
            round += 1;
        }
    }
    let hidden = problems.len() - shown.len();
    (shown, hidden)
}

/// The sentence that counts the problems not shown as annotations.
fn hidden_sentence(problems: &[Problem<'_>], shown: &[Problem<'_>], max: usize) -> String {
    let mut hidden_by = [0usize; 3];
    for p in problems {
        hidden_by[slot(p.severity())] += 1;
    }
    for p in shown {
        hidden_by[slot(p.severity())] -= 1;
    }
    let parts: Vec<String> = [(0, "error"), (1, "warning"), (2, "note")]
        .iter()
        .filter_map(|&(i, name)| {
            let n = hidden_by[i];
            (n > 0).then(|| format!("{n} {name}{}", plural(n)))
        })
        .collect();
    let hidden = problems.len() - shown.len();
    format!(
        "{hidden} more problem{} not shown as annotations ({}; at most {max} of each kind per step, see --max-annotations); the job summary and --format human list every finding",
        if hidden == 1 { " is" } else { "s are" },
        parts.join(", ")
    )
}

/// Workflow commands for the problems [`select`] keeps (errors first, spread
/// over the tasks), a notice with the exact count of the rest, then a plain
/// summary line.
pub fn render(report: &Report, max: usize) -> String {
    let findings = findings::all(report);
    let problems = findings::problems(&findings);
    let (shown, hidden) = select(&problems, max);
    let mut out = String::new();
    for problem in &shown {
        out.push_str(&problem_annotation(problem));
        out.push('\n');
    }
    if hidden > 0 {
        let _ = writeln!(
            out,
            "::notice title={}::{}",
            escape_property("mastermind-hooks"),
            escape_data(&hidden_sentence(&problems, &shown, max))
        );
    }
    let _ = writeln!(out, "mastermind-hooks: {}", summary_sentence(report));
    out
}

/// The verdict word of a report: passed, failed (exit 1) or could not check (exit 2).
pub fn verdict(report: &Report) -> &'static str {
    match report.exit_status() {
        ExitStatus::Pass => "passed",
        ExitStatus::Violations => "failed",
        ExitStatus::CannotCheck => "could not check",
    }
}

/// One sentence with the outcome and the totals.
fn summary_sentence(report: &Report) -> String {
    let s = &report.summary;
    let verdict = verdict(report);
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
/// emphasis or links by accident; newlines become `<br>`, CR and other
/// control characters visible escapes, so no cell can end its row or start
/// a heading of its own.
pub fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' => out.push_str("<br>"),
            c if c.is_control() => out.push_str(&escape::control(&c.to_string())),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A code span that survives any content: backticks inside are replaced,
/// pipes escaped, and CR, LF and other control characters shown as
/// visible escapes (a code span cannot hold a line break).
fn code_span(text: &str) -> String {
    format!(
        "`{}`",
        escape::control(text).replace('`', "'").replace('|', "\\|")
    )
}

/// Where a finding is shown: its file and line, else the run.
fn place(finding: &Finding<'_>) -> String {
    let d = finding.diagnostic;
    let mut place = finding.anchor().unwrap_or_else(|| "(run)".to_string());
    if let Some(line) = d.line.filter(|_| d.path.is_some()) {
        let _ = write!(place, ":{line}");
    }
    place
}

/// The local command when the CI context does not name the branch.
pub const LOCAL_COMMAND_UNKNOWN: &str =
    "mastermind-hooks check --ci --base origin/<the branch it lands on>";

/// The command that judges a change locally as CI does: the merge of the
/// checked-out branch (`HEAD`) into `base` (`origin/main`, or the old tip of
/// a push).
pub fn local_command(base: &str) -> String {
    format!("mastermind-hooks check --ci --base {base}")
}

/// Who planned each task and what its plan grants (the gate's planning
/// findings say how the planning rules judged it).
fn plans(out: &mut String, report: &Report) {
    let rows: Vec<(&str, &crate::report::TaskContract, &crate::report::Plan)> = report
        .tasks
        .iter()
        .filter_map(|t| {
            let contract = t.contract.as_ref()?;
            Some((t.task.as_str(), contract, contract.plan.as_ref()?))
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    out.push_str("| task | plan | planned by | grants |\n|---|---|---|---|\n");
    for (task, contract, plan) in rows {
        let origin = match plan.origin.as_str() {
            "landed" => "on the protected branch before this change".to_string(),
            "earlier" => "in an earlier change of its branch".to_string(),
            other => match &plan.decision {
                Some(decision) => format!("{other} in this change: {decision}"),
                None => format!("{other} in this change"),
            },
        };
        let mut grants: Vec<String> = Vec::new();
        for (key, items) in [
            ("touches", &contract.touches),
            ("creates", &contract.creates),
            ("expected_docs", &contract.expected_docs),
            ("checks", &contract.checks),
        ] {
            if !items.is_empty() {
                grants.push(format!("{key}: {}", items.join(", ")));
            }
        }
        if grants.is_empty() {
            grants.push("nothing".to_string());
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            code_span(task),
            escape_markdown(&origin),
            escape_markdown(plan.by.as_deref().unwrap_or("-")),
            escape_markdown(&grants.join("; ")),
        );
    }
    out.push('\n');
}

/// [`step_summary_with`] without a local command.
pub fn step_summary(report: &Report) -> String {
    step_summary_with(report, None)
}

/// The Markdown job summary: the verdict, a table of tasks (gate) or files
/// (`validate`), then the findings grouped by task, each group with what to
/// do and `local`, the command that checks the change again on the
/// developer's machine ([`local_command`]).
pub fn step_summary_with(report: &Report, local: Option<&str>) -> String {
    let mut out = String::new();
    let icon = match report.exit_status() {
        ExitStatus::Pass => "✅",
        ExitStatus::Violations => "❌",
        ExitStatus::CannotCheck => "⛔",
    };
    let _ = writeln!(out, "## {icon} mastermind-hooks {}\n", verdict(report));
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
        plans(&mut out, report);
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
            } else if file.skipped() {
                "⏭ skipped"
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

    // The findings, grouped by task (the run's own and validate's files
    // last), each group with what to do and the command that checks again.
    let all = findings::all(report);
    let mut groups: Vec<(Option<&str>, Vec<Finding<'_>>)> = Vec::new();
    for finding in &all {
        match groups.iter_mut().find(|(t, _)| *t == finding.task) {
            Some((_, group)) => group.push(*finding),
            None => groups.push((finding.task, vec![*finding])),
        }
    }
    groups.sort_by_key(|(task, _)| task.is_none());
    let mut rows = 0usize;
    for (task, mut group) in groups {
        group.sort_by_key(|f| slot(f.diagnostic.severity));
        let worst = group
            .first()
            .map_or(Severity::Note, |f| f.diagnostic.severity);
        let icon = match worst {
            Severity::Error => "❌",
            Severity::Warning => "⚠️",
            Severity::Note => "ℹ️",
        };
        match task {
            Some(task) => {
                let _ = writeln!(out, "### {icon} {}\n", code_span(task));
            }
            None if !report.files.is_empty() => {
                let _ = writeln!(out, "### {icon} Findings\n");
            }
            None => {
                let _ = writeln!(out, "### {icon} The run\n");
            }
        }
        out.push_str("| severity | rule | where | message |\n|---|---|---|---|\n");
        let mut listed = 0;
        for finding in group.iter().take(MAX_SUMMARY_ROWS.saturating_sub(rows)) {
            let d = finding.diagnostic;
            let mut rule = code_span(d.code.as_str());
            if let Some(check) = finding.check {
                let _ = write!(rule, " ({})", escape_markdown(check));
            }
            let mut message = d.message.clone();
            if let Some(pointer) = d.json_pointer.as_deref().filter(|p| !p.is_empty()) {
                let _ = write!(message, " (at {pointer})");
            }
            let _ = writeln!(
                out,
                "| {} | {rule} | {} | {} |",
                d.severity.as_str(),
                code_span(&place(finding)),
                escape_markdown(&message),
            );
            listed += 1;
        }
        rows += listed;
        if listed < group.len() {
            let _ = writeln!(
                out,
                "\n{} more findings are not listed; run `mastermind-hooks` with `--format human` to see them all.",
                group.len() - listed
            );
        }
        // What to do: each distinct fix once, with where it applies.
        let mut fixes: Vec<(String, Vec<String>)> = Vec::new();
        for finding in group
            .iter()
            .filter(|f| f.diagnostic.severity != Severity::Note)
        {
            let Some(hint) = finding.diagnostic.hint.as_deref().filter(|h| !h.is_empty()) else {
                continue;
            };
            let at = place(finding);
            match fixes.iter_mut().find(|(h, _)| h == hint) {
                Some((_, places)) if !places.contains(&at) => places.push(at),
                Some(_) => {}
                None => fixes.push((hint.to_string(), vec![at])),
            }
        }
        if !fixes.is_empty() {
            out.push_str("\n**What to do**\n\n");
            for (hint, places) in &fixes {
                let places: Vec<String> = places.iter().map(|p| code_span(p)).collect();
                let _ = writeln!(out, "- {}: {}", places.join(", "), escape_markdown(hint));
            }
        }
        if task.is_some() && worst != Severity::Note {
            let _ = writeln!(
                out,
                "\n**Check it again locally:** {}",
                code_span(local.unwrap_or(LOCAL_COMMAND_UNKNOWN))
            );
        }
        out.push('\n');
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
    fn annotations_are_capped_per_kind_errors_first_with_an_exact_count() {
        // 3 errors (odd i) and 4 warnings (even i).
        let text = render(&many(7), 3);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 8, "{text}");
        assert!(lines[..3].iter().all(|l| l.starts_with("::error ")));
        assert!(lines[3..6].iter().all(|l| l.starts_with("::warning ")));
        assert_eq!(
            lines[6],
            "::notice title=mastermind-hooks::1 more problem is not shown as annotations (1 warning; at most 3 of each kind per step, see --max-annotations); the job summary and --format human list every finding"
        );
        assert_eq!(
            lines[7],
            "mastermind-hooks: failed: 1 file checked, 1 invalid, 0 unreadable (3 errors, 4 warnings, 0 notes)"
        );
        let uncapped = render(&many(7), 10);
        assert_eq!(uncapped.lines().filter(|l| l.starts_with("::")).count(), 7);
        assert!(!uncapped.contains("::notice"));
    }

    #[test]
    fn the_counting_notice_keeps_a_notice_slot_of_its_own() {
        let notes: Vec<Diagnostic> = (0..12)
            .map(|i| Diagnostic::new(Code::scope_diff, format!("note {i}")).with_path("f.md"))
            .collect();
        let report = Report::new(vec![FileResult::new("f.md".into(), None, None, notes)]);
        let text = render(&report, 10);
        let notices: Vec<&str> = text.lines().filter(|l| l.starts_with("::notice")).collect();
        assert_eq!(notices.len(), 10, "GitHub keeps 10 notices: {text}");
        assert!(notices[9].contains("3 more problems are not shown as annotations (3 notes;"));
    }

    #[test]
    fn a_run_that_could_not_check_says_so() {
        let report = Report::assemble(
            vec![],
            vec![],
            vec![Diagnostic::new(Code::git_shallow_history, "shallow")],
        );
        assert!(step_summary(&report).starts_with("## ⛔ mastermind-hooks could not check\n"));
        assert!(render(&report, 10).ends_with("mastermind-hooks: could not check: 0 tasks checked, 0 failed (1 error, 0 warnings, 0 notes)\n"));
    }

    #[test]
    fn hostile_names_never_become_commands_or_break_the_summary() {
        let name = "x\n::error::fake\r\n## ✅ mastermind-hooks passed\u{1b}[2J|y";
        let d = Diagnostic::new(
            Code::unexpected_file,
            format!("{name} changed\n::stop-commands::t"),
        )
        .with_path(name);
        let task = TaskResult::new(name, vec![CheckOutcome::new("scope", vec![d])]);
        let report = Report::assemble(vec![], vec![task], vec![]);
        let text = render(&report, 10);
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(!text.contains('\u{1b}') && !text.contains('\r'));
        let md = step_summary(&report);
        assert_eq!(md.matches("\n## ").count(), 0, "{md}");
        assert!(!md.contains('\u{1b}') && !md.contains('\r'));
        for line in md.lines().filter(|l| l.starts_with('|')) {
            assert!(line.ends_with('|'), "a row is one line: {line:?}");
        }
    }

    #[test]
    fn markdown_escaping_defuses_html_tables_and_emphasis() {
        assert_eq!(
            escape_markdown("<b>|x|</b> *a* _b_ [l](u) `c`\nnext"),
            "&lt;b&gt;\\|x\\|&lt;/b&gt; \\*a\\* \\_b\\_ \\[l\\](u) \\`c\\`<br>next"
        );
    }

    #[test]
    fn step_summary_groups_findings_by_task_with_the_fix_and_the_local_command() {
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
                        Diagnostic::new(Code::yaml_tag, "c").with_path("src/y.rs"),
                    ],
                ),
            ],
        );
        let report = Report::assemble(vec![], vec![task_ok, task_bad], vec![]);
        let md = step_summary_with(
            &report,
            Some("mastermind-hooks check --ci --base origin/main"),
        );
        assert!(md.starts_with("## ❌ mastermind-hooks failed\n"), "{md}");
        assert!(
            md.contains("| `.mastermind/tasks/a` | ✅ pass | 1 passed | 0 | 0 |"),
            "{md}"
        );
        assert!(
            md.contains("| `.mastermind/tasks/b` | ❌ fail | failed: scope | 2 | 0 |"),
            "{md}"
        );
        let section = &md[md.find("### ❌ `.mastermind/tasks/b`").expect(&md)..];
        assert!(
            section.contains("| error | `yaml_tag` (scope) | `src/x.rs:4` | a\\|b |"),
            "{md}"
        );
        assert!(
            section.contains(
                "**What to do**\n\n- `src/x.rs:4`, `src/y.rs`: Remove the tag; write the plain value.\n"
            ),
            "one line per distinct fix: {md}"
        );
        assert!(
            section.contains(
                "**Check it again locally:** `mastermind-hooks check --ci --base origin/main`"
            ),
            "{md}"
        );
        assert!(
            !md.contains("### ✅"),
            "a task without findings has no section"
        );
        assert!(!md.contains("| file |"));
        assert!(step_summary(&report).contains(LOCAL_COMMAND_UNKNOWN));
    }

    /// Forty findings over five tasks, and a stray file that is two findings.
    fn five_tasks() -> Report {
        let tasks = (0..5)
            .map(|t| {
                let name = format!(".mastermind/tasks/t{t}");
                let mut scope: Vec<Diagnostic> = (0..8)
                    .map(|i| {
                        Diagnostic::new(Code::unexpected_file, format!("src/{t}/{i}.rs was modified"))
                            .with_path(format!("src/{t}/{i}.rs"))
                    })
                    .collect();
                scope.truncate(if t == 0 { 1 } else { 8 });
                let mut checks = vec![CheckOutcome::new("scope", scope)];
                if t == 0 {
                    checks.push(CheckOutcome::new(
                        "files_modified",
                        vec![
                            Diagnostic::new(
                                Code::executor_report_missing_changed_file,
                                "src/0/0.rs was modified (last by commit 1a2b3c4 (\"x\")) but files_modified does not list it",
                            )
                            .with_path(format!("{name}/executor-report.md")),
                        ],
                    ));
                }
                TaskResult::new(&name, checks)
            })
            .collect();
        Report::assemble(vec![], tasks, vec![])
    }

    #[test]
    fn annotations_spread_over_tasks_one_per_problem() {
        let report = five_tasks();
        let text = render(&report, 10);
        let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("::error ")).collect();
        assert_eq!(errors.len(), 10, "{text}");
        for t in 0..5 {
            let task = format!("[.mastermind/tasks/t{t}]");
            assert!(
                errors.iter().any(|l| l.contains(&task)),
                "every task gets an annotation: {text}"
            );
        }
        // The stray file of t0 is one annotation naming both rules.
        let stray: Vec<&&str> = errors.iter().filter(|l| l.contains("src/0/0.rs")).collect();
        assert_eq!(stray.len(), 1, "{text}");
        assert!(
            stray[0].contains(
                "title=unexpected_file%2C executor_report_missing_changed_file [.mastermind/tasks/t0]"
            ),
            "{}",
            stray[0]
        );
        assert!(stray[0].contains("%0Aalso executor_report_missing_changed_file: "));
        // 1 + 4 x 8 problems, 10 shown.
        assert!(
            text.contains("23 more problems are not shown as annotations (23 errors;"),
            "{text}"
        );
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

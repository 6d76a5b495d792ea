//! The result of a checking command, independent of how it is rendered.
//!
//! `validate` fills `files` (one entry per file). `check` fills `tasks` (one
//! entry per checked task, its findings grouped by the gate check that made
//! them) and `diagnostics` (findings about the run itself: configuration,
//! git, views). Renderers read [`Report::all_diagnostics`] or walk the groups.

use crate::contract::mastermind::receipt::CheckState;
use crate::diagnostic::{Diagnostic, ExitStatus, Severity};
use serde::Serialize;

/// One checked file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileResult {
    pub path: String,
    /// The artifact kind, when known.
    pub kind: Option<&'static str>,
    pub ok: bool,
    /// Receipt inspection state, for receipts.
    pub state: Option<CheckState>,
    pub diagnostics: Vec<Diagnostic>,
}

impl FileResult {
    pub fn new(
        path: String,
        kind: Option<&'static str>,
        state: Option<CheckState>,
        diagnostics: Vec<Diagnostic>,
    ) -> Self {
        let diagnostics: Vec<Diagnostic> = diagnostics
            .into_iter()
            .map(|d| {
                if d.path.is_none() {
                    d.with_path(path.clone())
                } else {
                    d
                }
            })
            .collect();
        let ok = !diagnostics.iter().any(Diagnostic::is_error);
        FileResult {
            path,
            kind,
            ok,
            state,
            diagnostics,
        }
    }

    /// A file listed but not judged (`file_skipped`).
    pub fn skipped(&self) -> bool {
        !self.diagnostics.is_empty()
            && self
                .diagnostics
                .iter()
                .all(|d| d.code == crate::codes::Code::file_skipped)
    }

    pub fn unreadable(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.is_error() && d.cannot_check())
    }
}

/// One gate check of one task (`spec`, `executor_report`, `scope`, ...).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckOutcome {
    pub name: String,
    pub ok: bool,
    pub diagnostics: Vec<Diagnostic>,
}

impl CheckOutcome {
    pub fn new(name: impl Into<String>, diagnostics: Vec<Diagnostic>) -> Self {
        let ok = !diagnostics.iter().any(Diagnostic::is_error);
        CheckOutcome {
            name: name.into(),
            ok,
            diagnostics,
        }
    }
}

/// One checked task (`.mastermind/tasks/<dir>`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskResult {
    /// Repository-relative task directory.
    pub task: String,
    /// Which view the task was checked in, when a run checks several
    /// (for example the pushed ref).
    pub view: Option<String>,
    pub ok: bool,
    pub checks: Vec<CheckOutcome>,
    /// The task's contract next to what it changed, for reviewers.
    pub contract: Option<TaskContract>,
    /// What the gate judged the task by, kept for `check --ci --rerun`
    /// (never rendered).
    #[serde(skip)]
    pub judged: Option<Judged>,
}

/// What the gate judged a task by: the spec's bytes and each observed
/// check's tree receipt as the gate read them (a re-run executes exactly
/// these declarations, archived tasks included).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Judged {
    /// Repository-relative path of the spec.
    pub spec_path: String,
    pub spec: Vec<u8>,
    /// Per observed check id, its `<id>.tree.json` bytes (`None`: absent or
    /// unreadable).
    pub receipts: Vec<(String, Option<Vec<u8>>)>,
}

/// What a task declared and what it really changed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TaskContract {
    /// Where the task was judged (`commit abc1234 ("subject")`).
    pub judged_at: String,
    /// The commits of the task, oldest first.
    pub commits: Vec<String>,
    pub touches: Vec<String>,
    pub creates: Vec<String>,
    pub expected_docs: Vec<String>,
    /// Observed checks (`verify[].run.id`).
    pub checks: Vec<String>,
    /// `path (added|modified|deleted)`, sorted.
    pub changed: Vec<String>,
    /// Who planned the task: the scope above is what the plan grants.
    pub plan: Option<Plan>,
}

/// Who planned a task, as the gate judged it (`crate::gate::planning`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// `landed`: the spec was on the protected branch before this change,
    /// which leaves it as it was; `new`, `copied`, `widened`, `reopened`:
    /// this change plans it; `earlier`: its spec is not on the protected
    /// branch yet, and an earlier change of its branch brought it.
    pub origin: String,
    /// Who made the plan, as the platform or a key vouches for it (`None`
    /// where this change did not plan the task).
    pub by: Option<String>,
    /// The steps of this change that made the plan.
    pub steps: Vec<String>,
    /// The planning policy's decision (`allow (planning.rules[0])`), where
    /// the planning policy decided.
    pub decision: Option<String>,
}

impl TaskResult {
    pub fn new(task: impl Into<String>, checks: Vec<CheckOutcome>) -> Self {
        let ok = checks.iter().all(|c| c.ok);
        TaskResult {
            task: task.into(),
            view: None,
            ok,
            checks,
            contract: None,
            judged: None,
        }
    }
}

/// Totals over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub files: usize,
    pub valid: usize,
    pub invalid: usize,
    pub unreadable: usize,
    /// Files listed but not judged (`validate`: a kind it cannot tell).
    pub skipped: usize,
    pub tasks: usize,
    pub tasks_failed: usize,
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
}

/// Everything a renderer needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub version: u32,
    pub ok: bool,
    pub files: Vec<FileResult>,
    pub tasks: Vec<TaskResult>,
    /// Findings about the run itself rather than a file or task.
    pub diagnostics: Vec<Diagnostic>,
    pub summary: Summary,
}

impl Report {
    /// A `validate` report: files only.
    pub fn new(files: Vec<FileResult>) -> Self {
        Report::assemble(files, Vec::new(), Vec::new())
    }

    /// Build a report and its summary from its parts.
    pub fn assemble(
        files: Vec<FileResult>,
        tasks: Vec<TaskResult>,
        diagnostics: Vec<Diagnostic>,
    ) -> Self {
        let mut summary = Summary {
            files: files.len(),
            tasks: tasks.len(),
            tasks_failed: tasks.iter().filter(|t| !t.ok).count(),
            ..Summary::default()
        };
        for file in &files {
            if file.unreadable() {
                summary.unreadable += 1;
            } else if file.skipped() {
                summary.skipped += 1;
            } else if file.ok {
                summary.valid += 1;
            } else {
                summary.invalid += 1;
            }
        }
        let mut report = Report {
            version: 1,
            ok: true,
            files,
            tasks,
            diagnostics,
            summary,
        };
        for d in report.all_diagnostics() {
            match d.severity {
                Severity::Error => summary.errors += 1,
                Severity::Warning => summary.warnings += 1,
                Severity::Note => summary.notes += 1,
            }
        }
        summary.files = report.files.len();
        report.ok = summary.errors == 0;
        report.summary = summary;
        report
    }

    /// Every diagnostic of the report: files, then tasks, then the run.
    pub fn all_diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.files
            .iter()
            .flat_map(|f| f.diagnostics.iter())
            .chain(
                self.tasks
                    .iter()
                    .flat_map(|t| t.checks.iter().flat_map(|c| c.diagnostics.iter())),
            )
            .chain(self.diagnostics.iter())
    }

    pub fn exit_status(&self) -> ExitStatus {
        ExitStatus::of(self.all_diagnostics())
    }
}

//! `mastermind-hooks task new NAME [--touches PATH]... [--check CMD]...`:
//! write a task's `spec.md` and an `executor-report.md` skeleton under
//! `.mastermind/tasks/NAME/`. Refuses (exit 2, nothing written) when the
//! folder exists or an argument cannot go into a valid spec.

use crate::artifact::{Kind, check};
use crate::commands::emit;
use crate::diagnostic::ExitStatus;
use crate::scaffold::files::{worktree_top, write_task};
use crate::scaffold::task::TaskDraft;
use std::fmt::Write;

fn refuse(message: &str) -> ExitStatus {
    eprintln!("error[usage_invalid]: {message}");
    ExitStatus::CannotCheck
}

pub fn new(name: &str, touches: &[String], checks: &[String]) -> ExitStatus {
    let draft = match TaskDraft::new(name, touches, checks) {
        Ok(draft) => draft,
        Err(message) => return refuse(&format!("{message}; nothing was written")),
    };
    let spec = draft.spec();
    // Fail closed: never write a spec the gate would reject.
    let problems = check(Kind::Spec, spec.as_bytes()).diagnostics;
    if let Some(first) = problems.first() {
        return refuse(&format!(
            "the spec for these arguments would not pass its contract ({}: {}); nothing was written",
            first.code.as_str(),
            first.message
        ));
    }
    let top = match worktree_top() {
        Ok(top) => top,
        Err(e) => return refuse(&e.to_string()),
    };
    let dir = top.join(draft.dir());
    if std::fs::symlink_metadata(&dir).is_ok() {
        return refuse(&format!(
            "{} already exists; pick another name, or edit the files there",
            draft.dir()
        ));
    }
    if let Err(e) = write_task(&top, &draft, &spec) {
        return refuse(&format!("{e}; nothing was written"));
    }
    let mut out = String::new();
    let _ = writeln!(out, "created {}/spec.md", draft.dir());
    let _ = writeln!(
        out,
        "created {}/executor-report.md (a skeleton: fill in every <...>)",
        draft.dir()
    );
    let _ = writeln!(out, "next:");
    let _ = writeln!(
        out,
        "  1. make the change{}",
        if draft.touches.is_empty() {
            " (declare the files it touches under `touches:` in the spec)".to_string()
        } else {
            format!(" ({})", draft.touches.join(", "))
        }
    );
    for check in &draft.checks {
        let _ = writeln!(
            out,
            "  2. mastermind-hooks verification run {} --id {}",
            draft.spec_path(),
            check.id
        );
    }
    let _ = writeln!(
        out,
        "  3. fill in the report, then `git add -A && git commit`: the pre-commit gate checks the task"
    );
    match emit(&out) {
        Ok(()) => ExitStatus::Pass,
        Err(_) => ExitStatus::CannotCheck,
    }
}

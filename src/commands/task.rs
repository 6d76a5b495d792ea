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

/// The paths given, relative to the repository's top (an absolute path
/// inside it is made relative; anything else is passed on for the
/// declared-path rule to refuse).
fn relative_to_top(top: &std::path::Path, path: &str) -> String {
    let p = std::path::Path::new(path);
    if p.is_absolute() {
        let canonical_top = std::fs::canonicalize(top).unwrap_or_else(|_| top.to_path_buf());
        for base in [top, canonical_top.as_path()] {
            if let Ok(rel) = p.strip_prefix(base) {
                return rel.to_string_lossy().into_owned();
            }
        }
    }
    path.to_string()
}

/// `mastermind-hooks task widen NAME [--touches PATH]... [--creates PATH]...`.
pub fn widen(name: &str, touches: &[String], creates: &[String]) -> ExitStatus {
    use crate::scaffold::widen::{self, List};
    if let Err(e) = crate::scaffold::task::validate_name(name) {
        return refuse(&format!("{e}; nothing was written"));
    }
    if touches.is_empty() && creates.is_empty() {
        return refuse(
            "name at least one path: --touches PATH (a file the task changes) or --creates PATH (a file it adds)",
        );
    }
    let top = match worktree_top() {
        Ok(top) => top,
        Err(e) => return refuse(&e.to_string()),
    };
    let rel = format!("{}{name}/spec.md", crate::bookkeeping::TASKS_DIR);
    let path = top.join(&rel);
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_file() => {}
        Ok(_) => return refuse(&format!("{rel} is not a regular file; nothing was written")),
        Err(_) => {
            return refuse(&format!(
                "{rel} does not exist; `mastermind-hooks task new {name}` starts a task"
            ));
        }
    }
    let bytes = match crate::input::read_bounded_no_follow(
        &path,
        crate::contract::mastermind::spec::MAX_SPEC_BYTES,
    ) {
        Ok(bytes) => bytes,
        Err(d) => return refuse(&d.message),
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return refuse(&format!("{rel} is not UTF-8; nothing was written"));
    };
    let paths: Vec<(List, String)> = touches
        .iter()
        .map(|p| (List::Touches, relative_to_top(&top, p)))
        .chain(
            creates
                .iter()
                .map(|p| (List::Creates, relative_to_top(&top, p))),
        )
        .collect();
    let widened = match widen::widen(&text, &paths) {
        Ok(w) => w,
        Err(e) => return refuse(&format!("{rel}: {e}; nothing was written")),
    };
    let mut out = String::new();
    if widened.added.is_empty() {
        let _ = writeln!(
            out,
            "nothing to do: {rel} already declares every path given"
        );
        return match emit(&out) {
            Ok(()) => ExitStatus::Pass,
            Err(_) => ExitStatus::CannotCheck,
        };
    }
    if let Err(e) = replace_file(&path, &widened.text) {
        return refuse(&format!("cannot write {rel}: {e}; nothing was written"));
    }
    for added in &widened.added {
        let _ = writeln!(out, "declared {added} in {rel}");
    }
    // Every tree receipt binds the spec's sha256: after this edit each
    // existing receipt of the task is stale and its check must run again.
    let (parsed, _) = crate::contract::mastermind::spec::parse_text(&widened.text);
    let ids: Vec<String> = parsed
        .frontmatter
        .iter()
        .flat_map(|fm| {
            fm.observed()
                .map(|(_, run)| run.id.clone())
                .collect::<Vec<_>>()
        })
        .collect();
    let task_dir = top.join(format!("{}{name}", crate::bookkeeping::TASKS_DIR));
    let mut stale = Vec::new();
    for id in &ids {
        let receipt = ["tree.json", "json"]
            .iter()
            .any(|ext| task_dir.join(format!("verification/{id}.{ext}")).exists());
        if receipt {
            stale.push(id.clone());
        }
    }
    if stale.is_empty() {
        let _ = writeln!(out, "receipts: none yet, so none is made stale");
    } else {
        let _ = writeln!(
            out,
            "stale now (a receipt binds the spec it ran under): {}",
            stale.join(", ")
        );
    }
    let _ = writeln!(out, "next:");
    let _ = writeln!(out, "  1. make the change");
    for id in &ids {
        let _ = writeln!(
            out,
            "  2. mastermind-hooks verification run {rel} --id {id}"
        );
    }
    let _ = writeln!(
        out,
        "  3. list the new files under files_modified in the report, then `git add -A && git commit`"
    );
    let _ = writeln!(
        out,
        "a spec that has not landed on the default branch is the task's own: it is committed with the work (where it lands, a new task's spec is a planner's to make, unless planning.new_tasks is anyone). One that has landed changes only in a planning change, a planner's: land it alone first (git add {rel} && git commit -m \"{name}: declare {}\", pushed or merged on its own by a planner the planning rules allow, or signed by one), then the work.",
        widened.added.join(", ")
    );
    match emit(&out) {
        Ok(()) => ExitStatus::Pass,
        Err(_) => ExitStatus::CannotCheck,
    }
}

/// Replace `path`'s content atomically (a temporary file beside it, renamed
/// over it), keeping its mode; the file is not a link (checked before).
fn replace_file(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    let permissions = std::fs::metadata(path)?.permissions();
    let mut temp = tempfile::Builder::new().prefix(".spec-").tempfile_in(dir)?;
    temp.write_all(text.as_bytes())?;
    temp.as_file().sync_all()?;
    std::fs::set_permissions(temp.path(), permissions)?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

//! Scope (DESIGN.md section 5 items 3 and 4): the content paths a task
//! changed over its whole history (see `gate::prepare`) against what its spec declares and what its report lists, with a
//! diff of declared versus real when they disagree.

use super::change::Bookkeeping;
use super::{Attributed, TaskContext};
use crate::bookkeeping::PathClass;
use crate::codes::Code;
use crate::config::Config;
use crate::contract::mastermind::executor_report::ExecutorReport;
use crate::contract::mastermind::spec::declared_paths::{Target, normalize};
use crate::diagnostic::Diagnostic;
use crate::repo::Result;
use crate::repo::changes::ChangeKind;
use std::collections::{BTreeMap, BTreeSet};

/// The task's changed paths that scope applies to: every content path it
/// changed, except those the configuration excludes.
pub fn real_changes<'a>(
    paths: &'a BTreeMap<String, Attributed>,
    config: &Config,
) -> BTreeMap<String, &'a Attributed> {
    paths
        .iter()
        .filter(|(path, _)| !config.exclude.is_match(path))
        .map(|(path, attributed)| (path.clone(), attributed))
        .collect()
}

/// A unified diff of two path lists (declared first, real second).
pub fn path_diff(
    declared: &BTreeSet<&str>,
    real: &BTreeSet<&str>,
    left: &str,
    right: &str,
) -> String {
    crate::diff::sorted_sets(declared, real, left, right)
}

/// The fix of an undeclared path: the command that declares it, or the
/// revert.
fn widen_hint(dir: &str, path: &str, kind: ChangeKind) -> String {
    let task = dir.rsplit('/').next().unwrap_or(dir);
    let list = if kind == ChangeKind::Added {
        "--creates"
    } else {
        "--touches"
    };
    format!(
        "Declare the path in the spec's front matter: `mastermind-hooks task widen {task} {list} {path}` (commit the widened spec on its own, then re-run the checks it names), or revert the change."
    )
}

/// Compare the task's real changes with the declared targets.
pub fn check_scope(
    targets: &BTreeMap<String, Target>,
    real: &BTreeMap<String, &Attributed>,
    ctx: &TaskContext<'_>,
) -> Result<Vec<Diagnostic>> {
    let config = ctx.gate.config;
    let bookkeeping = &ctx.gate.bookkeeping;
    let mut out = Vec::new();
    let mut mismatch = false;
    let receipts = format!("{}/verification/", ctx.dir);
    for path in real.keys().filter(|p| p.starts_with(&receipts)) {
        out.push(
            Diagnostic::new(
                Code::verification_file_not_receipt,
                format!(
                    "{path} is under the task's verification/ but is none of the files the runners write for the checks its spec declares (`<id>.tree.json`; the reference's `<id>.json` only where no `<id>.tree.json` lands; an empty `run.lock`): receipts' digests leave that folder out, so nothing there may be anything else"
                ),
            )
            .with_path(path.clone()),
        );
    }
    for (path, attributed) in real {
        if !targets.contains_key(path) {
            mismatch = true;
            out.push(
                Diagnostic::new(
                    Code::unexpected_file,
                    format!(
                        "{path} was {} (last by {}) but the spec does not declare it (touches, creates, expected_docs)",
                        attributed.kind.as_str(),
                        attributed.by
                    ),
                )
                .with_path(path.clone())
                .with_hint(widen_hint(&ctx.dir, path, attributed.kind)),
            );
        }
    }
    for (path, target) in targets {
        if bookkeeping.class_of_path(path) != PathClass::Ordinary || config.exclude.is_match(path) {
            continue;
        }
        let change = real.get(path).map(|a| a.kind);
        if target.created {
            if ctx.baseline.get(ctx.gate.repo, path)?.is_some() {
                out.push(
                    Diagnostic::new(
                        Code::creation_exists_in_baseline,
                        format!(
                            "{} is declared in creates but already exists at {}",
                            target.display, ctx.baseline_label
                        ),
                    )
                    .with_path(path.clone()),
                );
            } else if change != Some(ChangeKind::Added) {
                out.push(
                    Diagnostic::new(
                        Code::creation_not_added,
                        format!(
                            "{} is declared in creates but was not added",
                            target.display
                        ),
                    )
                    .with_path(path.clone()),
                );
            }
            continue;
        }
        if target.document && change == Some(ChangeKind::Deleted) {
            out.push(
                Diagnostic::new(
                    Code::expected_doc_deleted,
                    format!("{} is an expected doc but was deleted", target.display),
                )
                .with_path(path.clone()),
            );
            continue;
        }
        if change.is_none() {
            mismatch = true;
            out.push(
                Diagnostic::new(
                    Code::missing_expected_file,
                    format!("{} is declared but did not change", target.display),
                )
                .with_path(path.clone()),
            );
        }
    }
    if mismatch {
        let declared: BTreeSet<&str> = targets
            .keys()
            .map(String::as_str)
            .filter(|p| bookkeeping.class_of_path(p) == PathClass::Ordinary)
            .collect();
        let changed: BTreeSet<&str> = real.keys().map(String::as_str).collect();
        out.push(Diagnostic::new(
            Code::scope_diff,
            format!(
                "declared scope versus changed paths:\n{}",
                path_diff(&declared, &changed, "declared", "changed")
            ),
        ));
    }
    Ok(out)
}

/// Compare the report's files_modified with the real changes.
pub fn check_files_modified(
    report: &ExecutorReport,
    real: &BTreeMap<String, &Attributed>,
    config: &Config,
    bookkeeping: &Bookkeeping<'_>,
) -> Vec<Diagnostic> {
    let mut listed: BTreeMap<String, usize> = BTreeMap::new();
    for (index, raw) in report.files_modified.iter().enumerate() {
        let path = normalize(raw).unwrap_or_else(|_| raw.trim().to_string());
        if bookkeeping.class_of_path(&path) != PathClass::Ordinary || config.exclude.is_match(&path)
        {
            continue;
        }
        listed.entry(path).or_insert(index);
    }
    let mut out = Vec::new();
    for (path, attributed) in real {
        if !listed.contains_key(path) {
            out.push(
                Diagnostic::new(
                    Code::executor_report_missing_changed_file,
                    format!(
                        "{path} was {} (last by {}) but files_modified does not list it",
                        attributed.kind.as_str(),
                        attributed.by
                    ),
                )
                .with_pointer("/files_modified"),
            );
        }
    }
    for (path, index) in &listed {
        if !real.contains_key(path) {
            out.push(
                Diagnostic::new(
                    Code::executor_report_unchanged_file,
                    format!("files_modified lists {path}, which did not change"),
                )
                .with_pointer(format!("/files_modified/{index}")),
            );
        }
    }
    if !out.is_empty() {
        let claimed: BTreeSet<&str> = listed.keys().map(String::as_str).collect();
        let changed: BTreeSet<&str> = real.keys().map(String::as_str).collect();
        out.push(Diagnostic::new(
            Code::scope_diff,
            format!(
                "files_modified versus changed paths:\n{}",
                path_diff(&claimed, &changed, "files_modified", "changed")
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_marks_declared_and_real_sides() {
        let declared: BTreeSet<&str> = ["src/a.rs", "src/b.rs"].into();
        let real: BTreeSet<&str> = ["src/a.rs", "src/c.rs"].into();
        let diff = path_diff(&declared, &real, "declared", "changed");
        assert!(diff.contains("-src/b.rs"), "{diff}");
        assert!(diff.contains("+src/c.rs"), "{diff}");
        assert!(diff.contains(" src/a.rs"), "{diff}");
    }
}

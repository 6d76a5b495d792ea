//! Scope (DESIGN.md section 5 items 3 and 4): the real changed paths of a
//! task against what its spec declares and what its report lists, with a
//! diff of declared versus real when they disagree.

use crate::codes::Code;
use crate::config::Config;
use crate::contract::declared_paths::{Target, normalize};
use crate::contract::executor_report::ExecutorReport;
use crate::diagnostic::Diagnostic;
use crate::gate::MASTERMIND_DIR;
use crate::repo::changes::{ChangeKind, ChangeSet};
use crate::repo::tree::View;
use gix::bstr::ByteSlice;
use similar::TextDiff;
use std::collections::{BTreeMap, BTreeSet};

/// Changed paths that scope applies to: outside `.mastermind/` and not
/// excluded by configuration. Non-UTF-8 paths are findings of their own.
pub fn real_changes(
    changes: &ChangeSet,
    config: &Config,
) -> (BTreeMap<String, ChangeKind>, Vec<Diagnostic>) {
    let mut real = BTreeMap::new();
    let mut problems = Vec::new();
    for (path, kind) in changes.iter() {
        if path.starts_with(MASTERMIND_DIR.as_bytes()) {
            continue;
        }
        match path.to_str() {
            Ok(path) => {
                if !config.exclude.is_match(path) {
                    real.insert(path.to_string(), kind);
                }
            }
            Err(_) => problems.push(
                Diagnostic::new(
                    Code::path_not_utf8,
                    format!(
                        "changed path `{}` ({}) is not UTF-8",
                        path.to_str_lossy(),
                        kind.as_str()
                    ),
                )
                .with_path(path.to_str_lossy().into_owned()),
            ),
        }
    }
    (real, problems)
}

/// A unified diff of two path lists (declared first, real second).
pub fn path_diff(
    declared: &BTreeSet<&str>,
    real: &BTreeSet<&str>,
    left: &str,
    right: &str,
) -> String {
    let old: String = declared.iter().map(|p| format!("{p}\n")).collect();
    let new: String = real.iter().map(|p| format!("{p}\n")).collect();
    TextDiff::from_lines(&old, &new)
        .unified_diff()
        .context_radius(usize::MAX / 4)
        .header(left, right)
        .to_string()
}

/// Compare real changes with the declared targets.
pub fn check_scope(
    targets: &BTreeMap<String, Target>,
    real: &BTreeMap<String, ChangeKind>,
    task_base: &View,
    config: &Config,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut mismatch = false;
    for (path, kind) in real {
        if !targets.contains_key(path) {
            mismatch = true;
            out.push(
                Diagnostic::new(
                    Code::unexpected_file,
                    format!(
                        "{path} was {} but the spec does not declare it (touches, creates, expected_docs)",
                        kind.as_str()
                    ),
                )
                .with_path(path.clone()),
            );
        }
    }
    for (path, target) in targets {
        if path.starts_with(MASTERMIND_DIR) || config.exclude.is_match(path) {
            continue;
        }
        let change = real.get(path).copied();
        if target.created {
            if task_base.get(path).is_some() {
                out.push(
                    Diagnostic::new(
                        Code::creation_exists_in_baseline,
                        format!(
                            "{} is declared in creates but already exists at {}",
                            target.display, task_base.label
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
            .filter(|p| !p.starts_with(MASTERMIND_DIR))
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
    out
}

/// Compare the report's files_modified with the real changes.
pub fn check_files_modified(
    report: &ExecutorReport,
    real: &BTreeMap<String, ChangeKind>,
    config: &Config,
) -> Vec<Diagnostic> {
    let mut listed: BTreeMap<String, usize> = BTreeMap::new();
    for (index, raw) in report.files_modified.iter().enumerate() {
        let path = normalize(raw).unwrap_or_else(|_| raw.trim().to_string());
        if path.starts_with(MASTERMIND_DIR) || config.exclude.is_match(&path) {
            continue;
        }
        listed.entry(path).or_insert(index);
    }
    let mut out = Vec::new();
    for (path, kind) in real {
        if !listed.contains_key(path) {
            out.push(
                Diagnostic::new(
                    Code::executor_report_missing_changed_file,
                    format!(
                        "{path} was {} but files_modified does not list it",
                        kind.as_str()
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

//! Checks only a range has, over every step of a change: a pushed ref with
//! no history in common with the default branch (unless configured), paths
//! that are not UTF-8, symlinks under `.mastermind/` (code run from there
//! must be content the gate sees, never a link it cannot judge), and
//! changes of CI definitions (a change that edits the pipeline judging it
//! deserves a reviewer's eye).

use super::Gate;
use crate::bookkeeping::MASTERMIND_DIR;
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::repo::Result;
use crate::repo::tree::{EntryMode, short};
use gix::bstr::ByteSlice;
use std::collections::BTreeSet;

/// Paths of CI definitions: GitHub workflows and local actions, GitLab's
/// pipeline file and the files it conventionally includes.
pub fn is_ci_definition(path: &str) -> bool {
    path == ".gitlab-ci.yml"
        || path.starts_with(".github/workflows/")
        || path.starts_with(".github/actions/")
        || (path.starts_with(".gitlab/") && (path.ends_with(".yml") || path.ends_with(".yaml")))
}

pub fn check(gate: &Gate<'_>) -> Result<Vec<Diagnostic>> {
    let mut out = Vec::new();
    if let Some(default) = gate.landing.unrelated_to
        && !gate.config.allow_unrelated_histories
    {
        out.push(
            Diagnostic::new(
                Code::ref_history_unrelated,
                format!(
                    "{} shares no history with the default branch (at {}): no landed history vouches for what it brings",
                    gate.landing.label.as_deref().unwrap_or(&gate.landing.tip_label),
                    short(default)
                ),
            )
            .with_hint(
                "base the ref on the default branch (`git rebase`), or allow such refs on the default branch with `refs: {allow_unrelated_histories: true}`",
            ),
        );
    }
    let mut reported: BTreeSet<(Code, String)> = BTreeSet::new();
    for step in &gate.landing.steps {
        for change in &step.changes {
            let Ok(path) = change.path.to_str() else {
                let lossy = change.path.to_str_lossy().into_owned();
                if reported.insert((Code::path_not_utf8, lossy.clone())) {
                    out.push(
                        Diagnostic::new(
                            Code::path_not_utf8,
                            format!(
                                "{} changed a path that is not UTF-8 (`{lossy}`); rename it",
                                step.label
                            ),
                        )
                        .with_path(lossy),
                    );
                }
                continue;
            };
            let linked = change.new.is_some_and(|e| e.mode == EntryMode::Symlink);
            let under_mastermind =
                path.starts_with(MASTERMIND_DIR) || path == MASTERMIND_DIR.trim_end_matches('/');
            if linked
                && under_mastermind
                && reported.insert((Code::mastermind_symlink, path.to_string()))
            {
                out.push(
                    Diagnostic::new(
                        Code::mastermind_symlink,
                        format!(
                            "{} makes {path} a symlink; nothing under .mastermind/ may be a link (the gate judges content, not where a link points)",
                            step.label
                        ),
                    )
                    .with_path(path.to_string()),
                );
            }
            if is_ci_definition(path)
                && reported.insert((Code::ci_definition_changed, path.to_string()))
            {
                out.push(
                    Diagnostic::new(
                        Code::ci_definition_changed,
                        format!(
                            "{} {} {path}, a CI definition: the pipeline that judges this change is part of it",
                            step.label,
                            change.kind.as_str()
                        ),
                    )
                    .with_path(path.to_string()),
                );
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::is_ci_definition;

    #[test]
    fn ci_definitions() {
        assert!(is_ci_definition(".github/workflows/ci.yml"));
        assert!(is_ci_definition(".github/actions/setup/action.yml"));
        assert!(is_ci_definition(".gitlab-ci.yml"));
        assert!(is_ci_definition(".gitlab/ci/test.yml"));
        assert!(!is_ci_definition(".github/CODEOWNERS"));
        assert!(!is_ci_definition("src/.gitlab-ci.yml"));
    }
}

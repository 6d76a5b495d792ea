//! Submodule checkouts at run time. The tree-v1 digest takes a submodule's
//! recorded commit, not its files, so a check run on a checkout that is at
//! another commit, or has modified or untracked files, would be recorded as
//! passing on content it never saw. Such a checkout is refused before
//! anything runs; a submodule that was never initialized (no `.git` in its
//! directory) is an empty directory, as in a fresh clone, and is fine.

use super::RunError;
use crate::process_env::clear_inherited_git_vars;
use gix::ObjectId;
use std::path::Path;

/// What a submodule's directory holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// No repository there: nothing can influence a check.
    NotInitialized,
    /// A clean checkout of the recorded commit.
    Clean,
}

/// Inspect the checkout at `dir` whose recorded commit is `recorded`;
/// `Err` says why it cannot be used.
pub fn inspect(dir: &Path, recorded: ObjectId) -> Result<State, RunError> {
    match std::fs::symlink_metadata(dir.join(".git")) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(State::NotInitialized),
        Err(source) => {
            return Err(RunError::SubmoduleInspect {
                dir: dir.to_path_buf(),
                source,
            });
        }
        Ok(_) => {}
    }
    let mut git = std::process::Command::new("git");
    git.args([
        "--no-optional-locks",
        "status",
        "--porcelain=v2",
        "--branch",
        "-z",
        "--untracked-files=all",
        "--ignore-submodules=none",
    ])
    .current_dir(dir)
    .stdin(std::process::Stdio::null());
    // The hook's GIT_DIR would make this the superproject's status.
    clear_inherited_git_vars(&mut git);
    let output = git.output().map_err(|source| RunError::SubmoduleGit {
        dir: dir.to_path_buf(),
        source,
    })?;
    if !output.status.success() {
        return Err(RunError::SubmoduleStatus {
            dir: dir.to_path_buf(),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    parse(&output.stdout, recorded)
}

/// Judge `git status --porcelain=v2 --branch -z` output.
fn parse(status: &[u8], recorded: ObjectId) -> Result<State, RunError> {
    let mut head = None;
    let mut dirty = 0usize;
    let mut records = status.split(|&b| b == 0).filter(|r| !r.is_empty());
    while let Some(record) = records.next() {
        if let Some(oid) = record.strip_prefix(b"# branch.oid ") {
            head = Some(String::from_utf8_lossy(oid).into_owned());
        } else if record.starts_with(b"# ") {
            continue;
        } else {
            dirty += 1;
            // A rename record carries its original path as a second field.
            if record.starts_with(b"2 ") {
                records.next();
            }
        }
    }
    let recorded = recorded.to_hex().to_string();
    match head {
        Some(head) if head != recorded => Err(RunError::SubmoduleMoved { head, recorded }),
        None => Err(RunError::SubmoduleUnborn { recorded }),
        Some(_) if dirty > 0 => Err(RunError::SubmoduleDirty { paths: dirty }),
        Some(_) => Ok(State::Clean),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_output_is_judged() {
        let id = ObjectId::from_hex(b"0123456789012345678901234567890123456789").unwrap();
        let clean = b"# branch.oid 0123456789012345678901234567890123456789\0# branch.head main\0";
        assert_eq!(parse(clean, id).ok(), Some(State::Clean));
        let other = b"# branch.oid 1123456789012345678901234567890123456789\0";
        assert!(
            parse(other, id)
                .unwrap_err()
                .to_string()
                .contains("checked out at 1123")
        );
        let dirty = b"# branch.oid 0123456789012345678901234567890123456789\0? new.txt\x002 R. N... 100644 100644 100644 a a R100 b\0c\0";
        assert!(
            parse(dirty, id)
                .unwrap_err()
                .to_string()
                .contains("2 modified or untracked paths")
        );
        assert!(parse(b"# branch.oid (initial)\0", id).is_err());
    }
}

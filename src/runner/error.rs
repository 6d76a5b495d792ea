//! [`RunError`]: why a declared check cannot start or be recorded as
//! compared (its cwd, its executable, a submodule checkout, a snapshot of
//! the tree). Each variant keeps the facts (the path, the I/O error as its
//! [`source`](std::error::Error::source)); its text is the `reason` a
//! receipt records and the message a user reads.

use crate::repo::RepoError;
use crate::safe_fs;
use std::fmt;
use std::path::PathBuf;

/// Why a check's inputs could not be prepared or compared.
#[derive(Debug)]
pub enum RunError {
    /// argv[0] is a bare name and `PATH` is unset.
    PathUnset { argv0: String },
    /// argv[0] is a bare name no absolute `PATH` entry holds.
    NotInPath { argv0: String },
    /// The executable could not be opened as a regular file.
    Open {
        path: PathBuf,
        source: safe_fs::Error,
    },
    /// Reading the executable failed.
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The executable is larger than `limit` bytes.
    TooLarge { path: PathBuf, limit: u64 },
    /// The executable's path could not be canonicalized.
    Resolve {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The resolved executable could not be stat'ed.
    Stat {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The resolved executable is not a regular file.
    NotRegular { path: PathBuf },
    /// The resolved executable has no execute bit.
    NotExecutable { path: PathBuf },
    /// The declared cwd is no existing directory inside the root.
    CwdUnavailable { cwd: String },
    /// argv[0] cannot be resolved or hashed.
    ExecutableUnavailable(Box<RunError>),
    /// The tree's snapshot could not be taken.
    SnapshotUnavailable(RepoError),
    /// A submodule's `.git` could not be inspected.
    SubmoduleInspect {
        dir: PathBuf,
        source: std::io::Error,
    },
    /// `git status` could not be started in a submodule.
    SubmoduleGit {
        dir: PathBuf,
        source: std::io::Error,
    },
    /// `git status` failed in a submodule (its stderr).
    SubmoduleStatus { dir: PathBuf, stderr: String },
    /// The submodule is checked out at another commit than the tree records.
    SubmoduleMoved { head: String, recorded: String },
    /// The submodule has no commit checked out.
    SubmoduleUnborn { recorded: String },
    /// The submodule has `paths` modified or untracked paths.
    SubmoduleDirty { paths: usize },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::PathUnset { argv0 } => {
                write!(f, "`{argv0}` is a bare name and PATH is not set")
            }
            RunError::NotInPath { argv0 } => {
                write!(f, "`{argv0}` was not found in PATH (absolute entries only)")
            }
            RunError::Open { path, source } => {
                write!(f, "cannot read {}: it {source}", path.display())
            }
            RunError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            RunError::TooLarge { path, limit } => {
                write!(f, "{} is larger than {limit} bytes", path.display())
            }
            RunError::Resolve { path, source } => {
                write!(f, "cannot resolve {}: {source}", path.display())
            }
            RunError::Stat { path, source } => {
                write!(f, "cannot stat {}: {source}", path.display())
            }
            RunError::NotRegular { path } => write!(f, "{} is not a regular file", path.display()),
            RunError::NotExecutable { path } => write!(f, "{} has no execute bit", path.display()),
            RunError::CwdUnavailable { cwd } => write!(
                f,
                "cwd_unavailable: `{cwd}` is not an existing directory inside the repository"
            ),
            RunError::ExecutableUnavailable(why) => write!(f, "executable_unavailable: {why}"),
            RunError::SnapshotUnavailable(e) => write!(f, "snapshot_unavailable: {}", e.message),
            RunError::SubmoduleInspect { dir, source } => {
                write!(f, "cannot inspect {}: {source}", dir.display())
            }
            RunError::SubmoduleGit { dir, source } => {
                write!(f, "cannot run git status in {}: {source}", dir.display())
            }
            RunError::SubmoduleStatus { dir, stderr } => {
                write!(f, "git status failed in {}: {stderr}", dir.display())
            }
            RunError::SubmoduleMoved { head, recorded } => write!(
                f,
                "is checked out at {head}, but the tree records {recorded}; run `git submodule update` (or commit the new submodule commit)"
            ),
            RunError::SubmoduleUnborn { recorded } => write!(
                f,
                "has no commit checked out, but the tree records {recorded}; run `git submodule update`"
            ),
            RunError::SubmoduleDirty { paths } => write!(
                f,
                "has {paths} modified or untracked path{}; commit, stash or remove them in the submodule",
                if *paths == 1 { "" } else { "s" }
            ),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Open { source, .. } => Some(source),
            RunError::Read { source, .. }
            | RunError::Resolve { source, .. }
            | RunError::Stat { source, .. }
            | RunError::SubmoduleInspect { source, .. }
            | RunError::SubmoduleGit { source, .. } => Some(source),
            RunError::ExecutableUnavailable(why) => Some(why.as_ref()),
            RunError::SnapshotUnavailable(e) => Some(e),
            _ => None,
        }
    }
}

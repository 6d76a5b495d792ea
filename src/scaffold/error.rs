//! [`ScaffoldError`]: why `init` or `task new` wrote nothing: an argument
//! that cannot go into a valid spec, or a directory or file that could not
//! be made safely. Each variant keeps the facts (the argument, the path, the
//! I/O error as its [`source`](std::error::Error::source)) and renders the
//! message the user reads.

use super::task::MAX_NAME;
use crate::codes::Code;
use crate::repo::RepoError;
use std::fmt;
use std::path::PathBuf;

/// Why a scaffold could not be written.
#[derive(Debug)]
pub enum ScaffoldError {
    /// A task name outside `[A-Za-z0-9._-]{1,MAX_NAME}` (or starting with
    /// `.` or `-`).
    Name { name: String },
    /// A `--touches` path no spec can declare (the declared-path rule's
    /// code).
    Touches { path: String, code: Code },
    /// A `--touches` path inside `.mastermind/`.
    TouchesBookkeeping { path: String },
    /// A `--check` line with unbalanced quotes or a trailing backslash.
    CheckQuotes { line: String },
    /// A `--check` line without a command.
    CheckEmpty { line: String },
    /// A `--check` line with a bare shell operator (`&&`, `||`, `;`, `|`):
    /// no shell runs a check, so the command after it would never run.
    /// `shell` is the declared-shell command line that means it.
    CheckShellOperator {
        line: String,
        operator: &'static str,
        shell: String,
    },
    /// The same `--check` command twice.
    CheckTwice { line: String },
    /// The current directory is unknown.
    NoCurrentDir(std::io::Error),
    /// No repository around the current directory.
    Repo(RepoError),
    /// The repository has no working tree.
    Bare,
    /// A component on the way is a symbolic link.
    Symlink { path: PathBuf },
    /// A component on the way exists and is not a directory.
    NotDirectory { path: PathBuf },
    /// A directory could not be created.
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A directory on the way could not be opened.
    Inspect {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A new file could not be created (it exists, or the directory refuses).
    CreateFile {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Writing a new file's content failed.
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl fmt::Display for ScaffoldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScaffoldError::Name { name } => write!(
                f,
                "task name `{name}`: use 1 to {MAX_NAME} letters, digits, `.`, `_` or `-`, not starting with `.` or `-` (for example `fix-login`)"
            ),
            ScaffoldError::Touches { path, code } => write!(
                f,
                "--touches `{path}` is not a path a spec can declare ({}): give a relative path inside the repository, without `.` or `..` components",
                code.as_str()
            ),
            ScaffoldError::TouchesBookkeeping { path } => write!(
                f,
                "--touches `{path}`: the task's own folder and .mastermind/ are bookkeeping, not scope; declare the files the task changes"
            ),
            ScaffoldError::CheckQuotes { line } => write!(
                f,
                "--check `{line}`: unbalanced quotes or a trailing backslash"
            ),
            ScaffoldError::CheckEmpty { line } => {
                write!(f, "--check `{line}`: give the command to run")
            }
            ScaffoldError::CheckShellOperator {
                line,
                operator,
                shell,
            } => write!(
                f,
                "--check `{line}` holds the shell operator `{operator}`, but a check runs without a shell: its program would get `{operator}` as an argument and the command after it would never run; declare the shell: --check \"{shell}\" (or give each command its own --check)"
            ),
            ScaffoldError::CheckTwice { line } => write!(f, "--check `{line}` is given twice"),
            ScaffoldError::NoCurrentDir(e) => write!(f, "no current directory: {e}"),
            ScaffoldError::Repo(e) => f.write_str(&e.message),
            ScaffoldError::Bare => {
                f.write_str("this is a bare repository: scaffold a task in a working tree")
            }
            ScaffoldError::Symlink { path } => write!(
                f,
                "{} is a symlink; refusing to write through it",
                path.display()
            ),
            ScaffoldError::NotDirectory { path } => {
                write!(f, "{} exists and is not a directory", path.display())
            }
            ScaffoldError::CreateDir { path, source }
            | ScaffoldError::CreateFile { path, source } => {
                write!(f, "cannot create {}: {source}", path.display())
            }
            ScaffoldError::Inspect { path, source } => {
                write!(f, "cannot inspect {}: {source}", path.display())
            }
            ScaffoldError::Write { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for ScaffoldError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ScaffoldError::NoCurrentDir(source)
            | ScaffoldError::CreateDir { source, .. }
            | ScaffoldError::Inspect { source, .. }
            | ScaffoldError::CreateFile { source, .. }
            | ScaffoldError::Write { source, .. } => Some(source),
            ScaffoldError::Repo(e) => Some(e),
            _ => None,
        }
    }
}

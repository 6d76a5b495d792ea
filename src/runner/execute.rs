//! Starting one declared check below a directory (the working tree or an
//! isolated checkout): its cwd must be an existing directory inside that
//! root, argv[0] is resolved and hashed ([`super::executable`]), and argv
//! runs directly under the supervisor with the repository-local git
//! variables removed (and, for code a change brings into CI, the CI
//! platform's credentials and command files too, with `CI` and `NO_COLOR`
//! set unless the job set them: [`CI_DEFAULTS`]).

use super::{RunError, echo, executable, supervise};
use crate::contract::mastermind::argv_display::RunDeclaration;
use crate::digest::file_memo::FileMemo;
use crate::process_env::clear_inherited_git_vars;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

pub use super::secrets::CI_SECRETS;

/// A check ready to start.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub work_dir: PathBuf,
    pub resolved: executable::Resolved,
}

/// The check's working directory and executable below `root`, or the
/// reason it cannot start (`cwd_unavailable: ...`, `executable_unavailable:
/// ...`).
pub fn prepare(
    root: &Path,
    run: &RunDeclaration,
    memo: &mut FileMemo<'_>,
) -> Result<Prepared, RunError> {
    let work_dir = match std::fs::canonicalize(root.join(&run.cwd)) {
        Ok(dir) if dir.is_dir() && dir.starts_with(root) => dir,
        _ => {
            return Err(RunError::CwdUnavailable {
                cwd: run.cwd.clone(),
            });
        }
    };
    let path_env = std::env::var_os("PATH");
    let resolved =
        executable::resolve_remembered(&run.argv[0], &work_dir, path_env.as_deref(), memo)
            .map_err(|e| RunError::ExecutableUnavailable(Box::new(e)))?;
    Ok(Prepared { work_dir, resolved })
}

/// Resolve and hash argv[0] again after the run.
pub fn executable_now(
    prepared: &Prepared,
    run: &RunDeclaration,
    memo: &mut FileMemo<'_>,
) -> Option<String> {
    let path_env = std::env::var_os("PATH");
    executable::resolve_remembered(&run.argv[0], &prepared.work_dir, path_env.as_deref(), memo)
        .ok()
        .map(|r| r.sha256)
}

/// What a check CI re-runs sees unless the job sets it itself: `CI=true`,
/// which test runners read to run once rather than watch and to skip
/// interactive prompts, and `NO_COLOR=1` (no-color.org), so its output
/// reaches the log as text. A variable the job sets, to any value, is
/// left as the job set it.
pub const CI_DEFAULTS: &[(&str, &str)] = &[("CI", "true"), ("NO_COLOR", "1")];

/// How the child's environment is trimmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Environment {
    /// The runner's environment minus repository-local git variables.
    Local,
    /// Also without CI credentials and command files, with git unable to
    /// find a repository above the checkout, and with [`CI_DEFAULTS`].
    Untrusted,
}

/// Run the prepared check under the supervisor.
pub fn start(
    prepared: &Prepared,
    run: &RunDeclaration,
    timeout: Duration,
    interrupt: &AtomicBool,
    echo: Option<echo::Sender>,
    environment: Environment,
    ceiling: Option<&Path>,
) -> std::io::Result<supervise::Supervised> {
    let mut command = std::process::Command::new(&prepared.resolved.invocation_path);
    {
        use std::os::unix::process::CommandExt;
        command.arg0(&run.argv[0]);
    }
    command.args(&run.argv[1..]).current_dir(&prepared.work_dir);
    // Never leak the hook's repository-local git variables into the check.
    clear_inherited_git_vars(&mut command);
    if environment == Environment::Untrusted {
        for name in CI_SECRETS {
            command.env_remove(name);
        }
        for (name, value) in CI_DEFAULTS {
            if std::env::var_os(name).is_none() {
                command.env(name, value);
            }
        }
    }
    // A checkout in a temporary directory is no repository; git in the
    // check must not find one above it either.
    if let Some(ceiling) = ceiling {
        command.env("GIT_CEILING_DIRECTORIES", ceiling);
    }
    supervise::run(command, timeout, interrupt, echo)
}

//! The directory git runs hooks from, and why: git's own answer (see the
//! module documentation of [`crate::install`] for why git is asked).
//!
//! The decision logic is pure over git's outputs ([`resolve_with`]); only
//! [`resolve`] spawns `git`.

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Where git runs hooks for the repository at hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HooksDir {
    /// The directory git runs hooks from (absolute).
    pub path: PathBuf,
    pub reason: Reason,
    /// The working tree's top directory.
    pub worktree: PathBuf,
    pub git_dir: PathBuf,
    pub common_dir: PathBuf,
    /// `<common dir>/hooks`: where git looks when core.hooksPath is unset.
    pub default_path: PathBuf,
}

/// Why git runs hooks from that directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// `core.hooksPath` is set.
    HooksPath(HooksPathSetting),
    /// The repository's git directory.
    GitDir,
    /// A linked worktree: hooks are shared in the common git directory.
    CommonDir,
    /// A submodule: its own git directory (usually under the superproject's
    /// `.git/modules`).
    SubmoduleGitDir { superproject: PathBuf },
}

/// Where a `core.hooksPath` value comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HooksPathSetting {
    pub scope: Scope,
    /// git's `--show-origin`, such as `file:.git/config`.
    pub origin: String,
    pub value: String,
}

/// A git configuration scope (`git config --show-scope`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    System,
    Global,
    Local,
    Worktree,
    Command,
    #[serde(untagged)]
    Other(String),
}

impl Scope {
    fn parse(text: &str) -> Scope {
        match text {
            "system" => Scope::System,
            "global" => Scope::Global,
            "local" => Scope::Local,
            "worktree" => Scope::Worktree,
            "command" => Scope::Command,
            other => Scope::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Scope::System => "system",
            Scope::Global => "global",
            Scope::Local => "local",
            Scope::Worktree => "worktree",
            Scope::Command => "command",
            Scope::Other(other) => other,
        }
    }
}

impl Reason {
    /// A stable name for JSON output.
    pub fn name(&self) -> &'static str {
        match self {
            Reason::HooksPath(_) => "core.hooksPath",
            Reason::GitDir => "git_dir",
            Reason::CommonDir => "common_dir",
            Reason::SubmoduleGitDir { .. } => "submodule_git_dir",
        }
    }

    /// One phrase for people.
    pub fn describe(&self) -> String {
        match self {
            Reason::HooksPath(setting) => format!(
                "core.hooksPath = {} ({} config, {})",
                setting.value,
                setting.scope.as_str(),
                setting.origin
            ),
            Reason::GitDir => "the repository's git directory (core.hooksPath is not set)".into(),
            Reason::CommonDir => {
                "the common git directory, shared by every worktree (this is a linked worktree; core.hooksPath is not set)".into()
            }
            Reason::SubmoduleGitDir { superproject } => format!(
                "the submodule's own git directory (superproject {}; core.hooksPath is not set)",
                superproject.display()
            ),
        }
    }
}

impl HooksDir {
    /// May this command write to the hooks directory? A `core.hooksPath`
    /// from global or system config is shared by other repositories (needs
    /// `--force`); one from the command line (`git -c`, `GIT_CONFIG_*`)
    /// lasts one git invocation, so later commits would not run the hooks.
    pub fn check_writable(&self, force: bool, command: &str) -> Result<(), Diagnostic> {
        let Reason::HooksPath(setting) = &self.reason else {
            return Ok(());
        };
        let place = format!(
            "core.hooksPath = {} from {} config ({})",
            setting.value,
            setting.scope.as_str(),
            setting.origin
        );
        let refusal = match &setting.scope {
            Scope::Local | Scope::Worktree => return Ok(()),
            Scope::Global | Scope::System | Scope::Other(_) if force => return Ok(()),
            Scope::Global | Scope::System | Scope::Other(_) => format!(
                "{place}: {command} would change the hooks of every repository that uses this setting, not just this one ({}); pass --force if that is what you want",
                self.path.display()
            ),
            Scope::Command => format!(
                "{place}: that setting lasts for one git command only, so git would not run hooks written to {} on later commits",
                self.path.display()
            ),
        };
        Err(Diagnostic::new(Code::hook_path_not_local, refusal).with_path(path_text(&self.path)))
    }
}

pub fn path_text(path: &Path) -> String {
    path.display().to_string()
}

/// What one git invocation returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GitRun {
    Exited {
        code: Option<i32>,
        stdout: Vec<u8>,
        stderr: Vec<u8>,
    },
    /// git could not be started.
    SpawnFailed(String),
}

const PROBE: &[&str] = &["rev-parse", "--is-bare-repository", "--is-inside-work-tree"];
const PATHS: &[&str] = &[
    "rev-parse",
    "--path-format=absolute",
    "--show-toplevel",
    "--git-dir",
    "--git-common-dir",
    "--git-path",
    "hooks",
    "--show-superproject-working-tree",
];
const HOOKS_PATH: &[&str] = &[
    "config",
    "--show-scope",
    "--show-origin",
    "-z",
    "--get",
    "core.hooksPath",
];

fn unavailable(message: String) -> Diagnostic {
    Diagnostic::new(Code::hook_git_unavailable, message)
}

fn stderr_text(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim();
    if text.is_empty() {
        "no message".into()
    } else {
        text.replace('\n', "; ")
    }
}

/// Why a git command that had to succeed did not.
fn failure(args: &[&str], run: &GitRun) -> Diagnostic {
    match run {
        GitRun::Exited { code, stderr, .. } => unavailable(format!(
            "`git {}` failed ({}): {}",
            args.join(" "),
            code.map_or("killed by a signal".into(), |c| format!("exit {c}")),
            stderr_text(stderr)
        )),
        GitRun::SpawnFailed(error) => unavailable(format!("cannot run git: {error}")),
    }
}

/// Run `args` and demand success.
fn succeed(run: &mut dyn FnMut(&[&str]) -> GitRun, args: &[&str]) -> Result<Vec<u8>, Diagnostic> {
    match run(args) {
        GitRun::Exited {
            code: Some(0),
            stdout,
            ..
        } => Ok(stdout),
        other => Err(failure(args, &other)),
    }
}

fn lines(stdout: &[u8]) -> Vec<&[u8]> {
    let stdout = stdout.strip_suffix(b"\n").unwrap_or(stdout);
    if stdout.is_empty() {
        return Vec::new();
    }
    stdout.split(|&b| b == b'\n').collect()
}

/// Resolve the hooks directory from git's answers; `run` executes one git
/// command in the repository's context.
pub fn resolve_with(run: &mut dyn FnMut(&[&str]) -> GitRun) -> Result<HooksDir, Diagnostic> {
    // 1. Is this a repository, bare, inside its working tree?
    let probe = match run(PROBE) {
        GitRun::Exited {
            code: Some(0),
            stdout,
            ..
        } => stdout,
        GitRun::Exited { stderr, .. } => {
            return Err(Diagnostic::new(
                Code::git_repository_unavailable,
                format!("git found no repository here: {}", stderr_text(&stderr)),
            ));
        }
        GitRun::SpawnFailed(error) => {
            return Err(unavailable(format!(
                "cannot run git ({error}); hooks run only where git runs them, so install git first"
            )));
        }
    };
    match lines(&probe)[..] {
        [b"true", _] => {
            return Err(Diagnostic::new(
                Code::hook_bare_repository,
                "this is a bare repository: nobody commits in it, so git never runs its pre-commit or pre-push hooks",
            ));
        }
        [b"false", b"false"] => {
            return Err(Diagnostic::new(
                Code::hook_outside_worktree,
                "the current directory is inside the git directory, not the working tree",
            ));
        }
        [b"false", b"true"] => {}
        _ => {
            return Err(unavailable(format!(
                "unexpected answer from `git {}`: {:?}",
                PROBE.join(" "),
                String::from_utf8_lossy(&probe)
            )));
        }
    }

    // 2. The paths, absolute (git >= 2.31).
    let paths = succeed(run, PATHS)?;
    let paths: Vec<PathBuf> = lines(&paths)
        .into_iter()
        .map(super::shim::bytes_path)
        .collect();
    if !(4..=5).contains(&paths.len()) || paths.iter().any(|p| !p.is_absolute()) {
        return Err(unavailable(format!(
            "`git {}` did not print absolute paths; git 2.31 or newer is needed ({} line(s): {:?})",
            PATHS.join(" "),
            paths.len(),
            paths
        )));
    }
    let mut paths = paths.into_iter();
    let (Some(worktree), Some(git_dir), Some(common_dir), Some(path)) =
        (paths.next(), paths.next(), paths.next(), paths.next())
    else {
        return Err(unavailable("git printed too few paths".into()));
    };
    let superproject = paths.next();

    // 3. Is core.hooksPath set, and by which configuration?
    let setting = match run(HOOKS_PATH) {
        GitRun::Exited {
            code: Some(0),
            stdout,
            ..
        } => Some(parse_setting(&stdout).ok_or_else(|| {
            unavailable(format!(
                "unexpected answer from `git {}`: {:?}",
                HOOKS_PATH.join(" "),
                String::from_utf8_lossy(&stdout)
            ))
        })?),
        GitRun::Exited {
            code: Some(1),
            stdout,
            ..
        } if stdout.is_empty() => None,
        other => return Err(failure(HOOKS_PATH, &other)),
    };

    let reason = match (setting, superproject) {
        (Some(setting), _) => Reason::HooksPath(setting),
        (None, _) if git_dir != common_dir => Reason::CommonDir,
        (None, Some(superproject)) => Reason::SubmoduleGitDir { superproject },
        (None, None) => Reason::GitDir,
    };
    let default_path = common_dir.join("hooks");
    Ok(HooksDir {
        path,
        reason,
        worktree,
        git_dir,
        common_dir,
        default_path,
    })
}

/// `scope NUL origin NUL value NUL`.
fn parse_setting(stdout: &[u8]) -> Option<HooksPathSetting> {
    let text = std::str::from_utf8(stdout).ok()?;
    let mut fields = text.strip_suffix('\0')?.split('\0');
    let (scope, origin, value) = (fields.next()?, fields.next()?, fields.next()?);
    if fields.next().is_some() {
        return None;
    }
    Some(HooksPathSetting {
        scope: Scope::parse(scope),
        origin: origin.to_string(),
        value: value.to_string(),
    })
}

/// Does git track files under the hooks directory (a `core.hooksPath`
/// committed to the repository, such as `.githooks/`)? Shims written there
/// would be committed, so they must not name a path on this machine.
pub fn is_tracked(dir: &HooksDir) -> Result<bool, Diagnostic> {
    let Ok(relative) = dir.path.strip_prefix(&dir.worktree) else {
        return Ok(false);
    };
    if relative.as_os_str().is_empty() {
        return Ok(false);
    }
    let relative = super::shim::path_bytes(relative);
    let relative = String::from_utf8_lossy(&relative).into_owned();
    let args = ["ls-files", "-z", "--", relative.as_str()];
    let output = std::process::Command::new("git")
        .args(args)
        .current_dir(&dir.worktree)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| unavailable(format!("cannot run git: {e}")))?;
    if !output.status.success() {
        return Err(failure(
            &args,
            &GitRun::Exited {
                code: output.status.code(),
                stdout: output.stdout,
                stderr: output.stderr,
            },
        ));
    }
    Ok(!output.stdout.is_empty())
}

/// The edge: ask the `git` on PATH, from `cwd`, with this process's
/// environment (so `GIT_DIR` and friends are honoured as git honours them).
pub fn resolve(cwd: &Path) -> Result<HooksDir, Diagnostic> {
    resolve_with(&mut |args| match std::process::Command::new("git")
        .args(args)
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .output()
    {
        Ok(output) => GitRun::Exited {
            code: output.status.code(),
            stdout: output.stdout,
            stderr: output.stderr,
        },
        Err(e) => GitRun::SpawnFailed(e.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(stdout: &str) -> GitRun {
        GitRun::Exited {
            code: Some(0),
            stdout: stdout.as_bytes().to_vec(),
            stderr: Vec::new(),
        }
    }

    fn exit(code: i32, stderr: &str) -> GitRun {
        GitRun::Exited {
            code: Some(code),
            stdout: Vec::new(),
            stderr: stderr.as_bytes().to_vec(),
        }
    }

    fn fake(answers: Vec<GitRun>) -> impl FnMut(&[&str]) -> GitRun {
        let mut answers = answers.into_iter();
        move |_| answers.next().expect("an answer per git call")
    }

    fn resolve_fake(answers: Vec<GitRun>) -> Result<HooksDir, Diagnostic> {
        resolve_with(&mut fake(answers))
    }

    #[test]
    fn a_plain_repository_uses_its_git_dir() {
        let dir = resolve_fake(vec![
            ok("false\ntrue\n"),
            ok("/r\n/r/.git\n/r/.git\n/r/.git/hooks\n"),
            exit(1, ""),
        ])
        .unwrap();
        assert_eq!(dir.path, PathBuf::from("/r/.git/hooks"));
        assert_eq!(dir.reason, Reason::GitDir);
        assert_eq!(dir.default_path, PathBuf::from("/r/.git/hooks"));
    }

    #[test]
    fn linked_worktrees_and_submodules_are_named() {
        let dir = resolve_fake(vec![
            ok("false\ntrue\n"),
            ok("/wt\n/r/.git/worktrees/wt\n/r/.git\n/r/.git/hooks\n"),
            exit(1, ""),
        ])
        .unwrap();
        assert_eq!(dir.reason, Reason::CommonDir);
        let dir = resolve_fake(vec![
            ok("false\ntrue\n"),
            ok("/r/sub\n/r/.git/modules/sub\n/r/.git/modules/sub\n/r/.git/modules/sub/hooks\n/r\n"),
            exit(1, ""),
        ])
        .unwrap();
        assert_eq!(
            dir.reason,
            Reason::SubmoduleGitDir {
                superproject: PathBuf::from("/r")
            }
        );
    }

    #[test]
    fn core_hooks_path_scope_decides_whether_writing_is_allowed() {
        let with_scope = |scope: &str| {
            resolve_fake(vec![
                ok("false\ntrue\n"),
                ok("/r\n/r/.git\n/r/.git\n/r/.githooks\n"),
                ok(&format!("{scope}\0file:somewhere\0.githooks\0")),
            ])
            .unwrap()
        };
        let local = with_scope("local");
        assert_eq!(local.path, PathBuf::from("/r/.githooks"));
        assert!(
            matches!(&local.reason, Reason::HooksPath(s) if s.value == ".githooks" && s.scope == Scope::Local)
        );
        assert!(local.check_writable(false, "install").is_ok());
        assert!(
            with_scope("worktree")
                .check_writable(false, "install")
                .is_ok()
        );
        for shared in ["global", "system"] {
            let dir = with_scope(shared);
            let refusal = dir.check_writable(false, "install").unwrap_err();
            assert_eq!(refusal.code, Code::hook_path_not_local);
            assert!(refusal.message.contains("--force"), "{}", refusal.message);
            assert!(dir.check_writable(true, "install").is_ok());
        }
        let command = with_scope("command");
        assert!(command.check_writable(false, "install").is_err());
        assert!(command.check_writable(true, "install").is_err());
    }

    #[test]
    fn bare_repositories_git_dirs_and_missing_repositories_are_refused() {
        let code = |answers| resolve_fake(answers).unwrap_err().code;
        assert_eq!(code(vec![ok("true\nfalse\n")]), Code::hook_bare_repository);
        assert_eq!(
            code(vec![ok("false\nfalse\n")]),
            Code::hook_outside_worktree
        );
        assert_eq!(
            code(vec![exit(128, "fatal: not a git repository")]),
            Code::git_repository_unavailable
        );
        assert_eq!(
            code(vec![GitRun::SpawnFailed("No such file".into())]),
            Code::hook_git_unavailable
        );
    }

    #[test]
    fn old_git_and_broken_config_are_could_not_check() {
        // git < 2.31 echoes the unknown option instead of honouring it.
        let old = resolve_fake(vec![
            ok("false\ntrue\n"),
            ok("--path-format=absolute\n/r\n.git\n.git\n.git/hooks\n"),
        ])
        .unwrap_err();
        assert_eq!(old.code, Code::hook_git_unavailable);
        assert!(old.message.contains("2.31"), "{}", old.message);
        let broken = resolve_fake(vec![
            ok("false\ntrue\n"),
            ok("/r\n/r/.git\n/r/.git\n/r/.git/hooks\n"),
            exit(128, "fatal: bad config line 3"),
        ])
        .unwrap_err();
        assert_eq!(broken.code, Code::hook_git_unavailable);
        assert!(broken.message.contains("bad config line 3"));
    }
}

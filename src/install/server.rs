//! `install --server`: the pre-receive hook of a bare repository, a POSIX
//! `sh` shim that runs `mastermind-hooks check --receive` with git's ref
//! lines on stdin. Unlike the client shims it has no skip switch
//! (`MASTERMIND_HOOKS_SKIP` is ignored server-side) and runs no `.legacy`
//! hook: a foreign pre-receive is refused, never wrapped, since the server's
//! owner must decide how the two combine.
//!
//! The hooks directory is git's own answer (`git rev-parse --git-path
//! hooks`, which applies `core.hooksPath`); the shim is written atomically
//! (a temporary file in the same directory, then a rename). Where the
//! server's own `pre-receive` runs every file of `pre-receive.d/` (Gitea and
//! Forgejo write such a dispatcher into every repository, next to their own
//! `pre-receive.d/gitea`), the shim goes there, as
//! `pre-receive.d/mastermind-hooks`, and the server's hook stays.
//!
//! The gate runs git at run time (merges through `git merge-tree
//! --write-tree`, git 2.38), so [`hook_git`] finds the git the hook will
//! run and checks its version before anything is written: git puts its own
//! exec-path first on the PATH of every program it starts, hooks included,
//! so that is the `git` there, else the first one on PATH.

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::install::binary::{find_on_path, is_executable_file};
use crate::install::shim::sh_quote;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The marker line that makes a pre-receive hook ours.
pub const MARKER: &str = "# mastermind-hooks server shim v1";

/// The pre-receive shim running the binary at `binary` (absolute path bytes).
pub fn render(binary: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(
        format!(
            "#!/bin/sh\n{MARKER}\n\
             # Written by `mastermind-hooks install --server`: git runs this file before it\n\
             # accepts a push, with one `<old> <new> <ref>` line per pushed ref on stdin.\n\
             # `mastermind-hooks check --receive` judges every ref update with the\n\
             # configuration of the ref's old tip, reads the pushed objects from git's\n\
             # quarantine, writes nothing, and prints its findings to the pusher.\n\
             # There is no skip switch. Do not edit: install --server rewrites this file.\n\
             exec "
        )
        .as_bytes(),
    );
    out.extend_from_slice(&sh_quote(binary));
    out.extend_from_slice(b" check --receive\n");
    out
}

/// What is at the hook path now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Existing {
    Nothing,
    /// Our shim, byte for byte what would be written.
    Current,
    /// Our shim, another binary path or version.
    Ours,
    /// Somebody else's hook, or not a regular file.
    Foreign,
}

/// Classify what is at the hook path, without following a symlink there.
pub fn observe(path: &Path, wanted: &[u8]) -> std::io::Result<Existing> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Existing::Nothing),
        Err(e) => Err(e),
        Ok(meta) if !meta.is_file() => Ok(Existing::Foreign),
        Ok(_) => {
            let file = crate::safe_fs::open_read(path, crate::safe_fs::Follow::NoLinks)?;
            let bytes = crate::safe_fs::read_all(file)?;
            if bytes == wanted {
                Ok(Existing::Current)
            } else if bytes
                .split(|b| *b == b'\n')
                .take(4)
                .any(|line| line == MARKER.as_bytes())
            {
                Ok(Existing::Ours)
            } else {
                Ok(Existing::Foreign)
            }
        }
    }
}

fn git(cwd: &Path, args: &[&str]) -> Result<String, Diagnostic> {
    let output = Command::new("git")
        .current_dir(cwd)
        .args(args)
        .output()
        .map_err(|e| {
            Diagnostic::new(
                Code::hook_git_unavailable,
                format!("cannot run git {}: {e}", args.join(" ")),
            )
        })?;
    if !output.status.success() {
        return Err(Diagnostic::new(
            Code::hook_git_unavailable,
            format!(
                "git {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr).trim()
            ),
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .trim_end_matches('\n')
        .to_string())
}

/// The hooks directory of the bare repository at `cwd`; refused for a
/// repository with a working tree (its pushes are received elsewhere).
pub fn hooks_dir(cwd: &Path) -> Result<PathBuf, Diagnostic> {
    if git(cwd, &["rev-parse", "--is-bare-repository"])? != "true" {
        return Err(Diagnostic::new(
            Code::usage_invalid,
            "install --server needs a bare repository (the one pushes go to); run it there, or `git --git-dir=PATH` style: `cd PATH && mastermind-hooks install --server`",
        ));
    }
    Ok(PathBuf::from(git(
        cwd,
        &["rev-parse", "--path-format=absolute", "--git-path", "hooks"],
    )?))
}

/// The git a pre-receive hook run by this repository's git finds, and the
/// version it states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookGit {
    pub path: PathBuf,
    pub version: String,
}

/// `(major, minor)` of a `git version X.Y.Z...` line.
pub fn parse_git_version(line: &str) -> Option<(u32, u32)> {
    let version = line.trim().strip_prefix("git version ")?;
    let mut parts = version.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// The oldest git the gate works with at run time, as `(major, minor)`.
fn oldest_git() -> (u32, u32) {
    parse_git_version(&format!(
        "git version {}",
        crate::repo::merge::MERGE_TREE_GIT
    ))
    .unwrap_or((2, 38))
}

/// The git the hook will run (the one in git's exec-path, which git puts
/// first on a hook's PATH, else the first on this PATH) and its version;
/// refused when there is none or it is older than the gate needs.
pub fn hook_git(cwd: &Path) -> Result<HookGit, Diagnostic> {
    let exec_path = PathBuf::from(git(cwd, &["--exec-path"])?);
    let in_exec_path = exec_path.join("git");
    let path = if is_executable_file(&in_exec_path) {
        in_exec_path
    } else {
        std::env::var_os("PATH")
            .and_then(|path_var| find_on_path(Path::new("git"), &path_var))
            .ok_or_else(|| {
                Diagnostic::new(
                    Code::git_not_found,
                    format!(
                        "neither git's exec-path ({}) nor PATH has a `git` program for the hook to run",
                        exec_path.display()
                    ),
                )
            })?
    };
    let output = Command::new(&path)
        .arg("--version")
        .current_dir(cwd)
        .output()
        .map_err(|e| {
            Diagnostic::new(
                Code::hook_git_unavailable,
                format!("cannot run {} --version: {e}", path.display()),
            )
        })?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_string();
    let wanted = oldest_git();
    match parse_git_version(&version) {
        Some(found) if found >= wanted => Ok(HookGit { path, version }),
        _ => Err(Diagnostic::new(
            Code::git_version_unsupported,
            format!(
                "the hook would run {} ({}), and the gate needs git {}.{} or newer on the server (merges are computed with `git merge-tree --write-tree`): nothing was installed",
                path.display(),
                if version.is_empty() {
                    "no version"
                } else {
                    &version
                },
                wanted.0,
                wanted.1
            ),
        )),
    }
}

/// The name of the shim in a `pre-receive.d/` directory.
pub const DISPATCHED_NAME: &str = "mastermind-hooks";

/// True when the hook at `path` is a dispatcher that runs every file of
/// `pre-receive.d/` next to it (Gitea's and Forgejo's generated hook loops
/// over `${hookname}.d/*`), and that directory is there.
pub fn dispatches(path: &Path) -> bool {
    let Some(dir) = path.parent() else {
        return false;
    };
    let is_dir = std::fs::symlink_metadata(dir.join("pre-receive.d")).is_ok_and(|m| m.is_dir());
    if !is_dir {
        return false;
    }
    let Ok(file) = crate::safe_fs::open_read(path, crate::safe_fs::Follow::NoLinks) else {
        return false;
    };
    let Ok(bytes) = crate::safe_fs::read_all(file) else {
        return false;
    };
    let text = String::from_utf8_lossy(&bytes);
    ["pre-receive.d/", "${hookname}.d/", "$hookname.d/"]
        .iter()
        .any(|pattern| text.contains(pattern))
}

/// Write the shim to `dir/pre-receive`, or to
/// `dir/pre-receive.d/mastermind-hooks` where the hook there runs that
/// directory ([`dispatches`]). A foreign hook is refused (nothing changes);
/// our own is replaced; a current one is left alone. Returns the hook's path
/// and whether it was written.
pub fn install(dir: &Path, shim: &[u8]) -> Result<(PathBuf, bool), Diagnostic> {
    let main = dir.join("pre-receive");
    let (dir, path) = if dispatches(&main) {
        let d = dir.join("pre-receive.d");
        let p = d.join(DISPATCHED_NAME);
        (d, p)
    } else {
        (dir.to_path_buf(), main)
    };
    let dir = dir.as_path();
    let failed = |what: &str, e: std::io::Error| {
        Diagnostic::new(
            Code::hook_write_failed,
            format!("cannot {what} {}: {e}", path.display()),
        )
        .with_path(path.display().to_string())
    };
    match observe(&path, shim).map_err(|e| failed("inspect", e))? {
        Existing::Current => return Ok((path, false)),
        Existing::Foreign => {
            return Err(Diagnostic::new(
                Code::hook_file_unusable,
                format!(
                    "{} is another pre-receive hook; mastermind-hooks does not wrap server hooks. Run `{}` from it (feeding it the same stdin), make it run every file of a pre-receive.d/ directory next to it (as Gitea's does), or move it away and install again",
                    path.display(),
                    "mastermind-hooks check --receive"
                ),
            )
            .with_path(path.display().to_string()));
        }
        Existing::Nothing | Existing::Ours => {}
    }
    crate::safe_fs::create_dirs(dir, 0o777)
        .map_err(|e| failed("create the directory of", e.into()))?;
    let mut file = tempfile::Builder::new()
        .prefix(".pre-receive.")
        .tempfile_in(dir)
        .map_err(|e| failed("write", e))?;
    file.write_all(shim).map_err(|e| failed("write", e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o755))
            .map_err(|e| failed("make executable", e))?;
    }
    file.persist(&path).map_err(|e| failed("write", e.error))?;
    Ok((path, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shim_execs_check_receive_and_has_no_skip() {
        let shim = String::from_utf8(render(b"/opt/bin/mastermind-hooks")).unwrap();
        assert!(shim.starts_with("#!/bin/sh\n# mastermind-hooks server shim v1\n"));
        assert!(
            shim.ends_with("exec '/opt/bin/mastermind-hooks' check --receive\n"),
            "{shim}"
        );
        assert!(!shim.contains("MASTERMIND_HOOKS_SKIP"));
    }

    #[test]
    fn git_versions_are_read_from_what_git_prints() {
        assert_eq!(parse_git_version("git version 2.47.3\n"), Some((2, 47)));
        assert_eq!(
            parse_git_version("git version 2.39.5 (Apple Git-154)"),
            Some((2, 39))
        );
        assert_eq!(
            parse_git_version("git version 2.38.0.windows.1"),
            Some((2, 38))
        );
        assert_eq!(parse_git_version("git version 3.0"), Some((3, 0)));
        assert_eq!(parse_git_version("hub version 2.14"), None);
        assert_eq!(parse_git_version(""), None);
        assert!((2, 37) < oldest_git() && oldest_git() <= (2, 38));
    }

    #[test]
    fn foreign_hooks_are_refused_ours_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let shim = render(b"/a/mastermind-hooks");
        let (path, written) = install(dir.path(), &shim).unwrap();
        assert!(written);
        assert_eq!(std::fs::read(&path).unwrap(), shim);
        assert!(
            !install(dir.path(), &shim).unwrap().1,
            "re-running is a no-op"
        );
        let newer = render(b"/b/mastermind-hooks");
        assert!(
            install(dir.path(), &newer).unwrap().1,
            "our own shim is replaced"
        );
        std::fs::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
        let refused = install(dir.path(), &shim).unwrap_err();
        assert_eq!(refused.code, Code::hook_file_unusable);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "#!/bin/sh\nexit 0\n"
        );
    }

    /// A pre-receive hook that runs every file of `pre-receive.d/`, the way
    /// the hook Gitea and Forgejo generate does (its loop is over
    /// `${hookname}.d/*`).
    const DISPATCHER: &str = "#!/bin/sh\nhookname=$(basename \"$0\")\nstdin=$(cat)\nstatus=0\nfor hook in \"$(dirname \"$0\")/${hookname}.d/\"*; do\n  [ -f \"$hook\" ] && [ -x \"$hook\" ] || continue\n  printf '%s\\n' \"$stdin\" | \"$hook\" || status=$?\ndone\nexit $status\n";

    #[test]
    fn a_dispatching_hook_gets_the_shim_in_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("pre-receive.d")).unwrap();
        std::fs::write(dir.path().join("pre-receive.d/gitea"), "#!/bin/sh\n").unwrap();
        std::fs::write(dir.path().join("pre-receive"), DISPATCHER).unwrap();
        let shim = render(b"/a/mastermind-hooks");
        let (path, written) = install(dir.path(), &shim).unwrap();
        assert!(written);
        assert_eq!(path, dir.path().join("pre-receive.d/mastermind-hooks"));
        assert_eq!(std::fs::read(&path).unwrap(), shim);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("pre-receive")).unwrap(),
            DISPATCHER,
            "the server's hook stays"
        );
        assert!(!install(dir.path(), &shim).unwrap().1, "idempotent");
        // A pre-receive.d/ that nothing runs is no place for the gate.
        let plain = tempfile::tempdir().unwrap();
        std::fs::create_dir(plain.path().join("pre-receive.d")).unwrap();
        let (path, _) = install(plain.path(), &shim).unwrap();
        assert_eq!(path, plain.path().join("pre-receive"));
    }
}

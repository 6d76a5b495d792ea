//! The absolute path a shim should run: the path the user invoked this binary
//! by, when it leads to the running executable, else the executable's own
//! resolved path.
//!
//! The invoked path is preferred because it is the stable one: a package
//! manager's `bin/mastermind-hooks` symlink survives an upgrade, while the
//! versioned file it points at (what the OS reports as the current
//! executable) is deleted by the next upgrade.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

/// Pure choice of the path. `same_file` tells whether a candidate leads to
/// the running executable; `is_executable_file` whether a PATH entry holds
/// an executable file.
pub fn choose(
    argv0: Option<&OsStr>,
    path_var: Option<&OsStr>,
    cwd: Option<&Path>,
    current_exe: Option<&Path>,
    same_file: &dyn Fn(&Path, &Path) -> bool,
    is_executable_file: &dyn Fn(&Path) -> bool,
) -> Option<PathBuf> {
    let invoked = argv0.and_then(|argv0| invoked_path(argv0, path_var, cwd, is_executable_file));
    match (invoked, current_exe) {
        (Some(invoked), Some(exe)) if same_file(&invoked, exe) => Some(invoked),
        (_, Some(exe)) if exe.is_absolute() => Some(exe.to_path_buf()),
        _ => None,
    }
}

/// The absolute path `argv0` names: joined to `cwd` when it contains a
/// slash, else looked up in PATH (absolute entries only).
fn invoked_path(
    argv0: &OsStr,
    path_var: Option<&OsStr>,
    cwd: Option<&Path>,
    is_executable_file: &dyn Fn(&Path) -> bool,
) -> Option<PathBuf> {
    let argv0 = Path::new(argv0);
    if argv0.as_os_str().is_empty() {
        return None;
    }
    if argv0.components().count() > 1 || argv0.is_absolute() {
        let joined = if argv0.is_absolute() {
            argv0.to_path_buf()
        } else {
            cwd?.join(argv0)
        };
        return Some(without_cur_dirs(&joined));
    }
    std::env::split_paths(path_var?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(argv0))
        .find(|candidate| is_executable_file(candidate))
}

/// Drop `.` components (`/a/./b` is `/a/b`); `..` stays, as it may cross a
/// symlink.
fn without_cur_dirs(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// True when the path can go into a shim: absolute, without line breaks or
/// NUL (the shim is read line by line).
pub fn embeddable(path: &Path) -> bool {
    let bytes = super::shim::path_bytes(path);
    path.is_absolute() && !bytes.iter().any(|b| matches!(b, b'\n' | b'\r' | 0))
}

/// The edge: this process's argv[0], PATH, working directory and executable.
pub fn locate() -> Option<PathBuf> {
    let argv0 = std::env::args_os().next();
    let path_var = std::env::var_os("PATH");
    let cwd = std::env::current_dir().ok();
    let exe = std::env::current_exe().ok();
    choose(
        argv0.as_deref(),
        path_var.as_deref(),
        cwd.as_deref(),
        exe.as_deref(),
        &same_file,
        &is_executable_file,
    )
}

#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The first `name` in a directory of the search path `path_var` that is
/// an executable file, as a shell finds a command.
pub fn find_on_path(name: &Path, path_var: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path_var)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable_file(candidate))
}

/// A regular file (symlinks followed) with an execute bit.
pub fn is_executable_file(path: &Path) -> bool {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => is_executable_mode(&meta),
        _ => false,
    }
}

#[cfg(unix)]
pub fn is_executable_mode(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
pub fn is_executable_mode(_meta: &std::fs::Metadata) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(
        argv0: &str,
        path_var: &str,
        exe: &str,
        same: &[(&str, &str)],
        executables: &[&str],
    ) -> Option<PathBuf> {
        let same: Vec<(PathBuf, PathBuf)> = same
            .iter()
            .map(|(a, b)| (PathBuf::from(a), PathBuf::from(b)))
            .collect();
        let executables: Vec<PathBuf> = executables.iter().map(PathBuf::from).collect();
        choose(
            Some(OsStr::new(argv0)),
            Some(OsStr::new(path_var)),
            Some(Path::new("/work/repo")),
            Some(Path::new(exe)),
            &|a, b| same.iter().any(|(x, y)| x == a && y == b),
            &|p| executables.iter().any(|e| e == p),
        )
    }

    #[test]
    fn the_invoked_symlink_wins_when_it_leads_to_the_running_binary() {
        let exe = "/opt/cellar/mh/0.1.0/bin/mastermind-hooks";
        assert_eq!(
            pick(
                "mastermind-hooks",
                "relative/bin:/usr/local/bin:/usr/bin",
                exe,
                &[("/usr/local/bin/mastermind-hooks", exe)],
                &[
                    "/usr/local/bin/mastermind-hooks",
                    "/usr/bin/mastermind-hooks"
                ],
            ),
            Some(PathBuf::from("/usr/local/bin/mastermind-hooks"))
        );
        // Relative argv0 with a slash is joined to the working directory.
        assert_eq!(
            pick(
                "./target/debug/mastermind-hooks",
                "",
                exe,
                &[("/work/repo/target/debug/mastermind-hooks", exe)],
                &[],
            ),
            Some(PathBuf::from("/work/repo/target/debug/mastermind-hooks"))
        );
    }

    #[test]
    fn otherwise_the_running_executable_is_used() {
        let exe = "/home/u/.cargo/bin/mastermind-hooks";
        // A wrapper script found in PATH is not the running binary.
        assert_eq!(
            pick(
                "mastermind-hooks",
                "/home/u/.asdf/shims",
                exe,
                &[],
                &["/home/u/.asdf/shims/mastermind-hooks"],
            ),
            Some(PathBuf::from(exe))
        );
        // Relative PATH entries are never used.
        assert_eq!(
            pick(
                "mastermind-hooks",
                "bin",
                exe,
                &[("bin/mastermind-hooks", exe)],
                &["bin/mastermind-hooks"]
            ),
            Some(PathBuf::from(exe))
        );
        assert_eq!(pick("", "", exe, &[], &[]), Some(PathBuf::from(exe)));
        assert_eq!(pick("x", "", "relative/exe", &[], &[]), None);
    }

    #[test]
    fn paths_with_line_breaks_cannot_be_embedded() {
        assert!(embeddable(Path::new("/usr/bin/mastermind-hooks")));
        assert!(embeddable(Path::new("/it's fine/mastermind hooks")));
        assert!(!embeddable(Path::new("/bad\npath")));
        assert!(!embeddable(Path::new("relative")));
    }
}

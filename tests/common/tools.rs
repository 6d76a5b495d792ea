//! External programs some tests need beyond `git` and a POSIX shell: the
//! other hook managers, `python3`, `curl`, `npm` and `sha256sum`, `ssh-keygen`, an
//! XSD validator.
//! A test asks for one with [`require_tool`] (or reports one it could not use
//! with [`tool_missing`]). Under CI (the environment variable `CI` set to any
//! non-empty value) a missing tool fails the test, naming the tool and how to
//! install it: CI never reports `ok` for a test that did not run. Elsewhere
//! the test skips, with a line written straight to stderr so that `cargo
//! test` shows it (the harness captures only `println!`/`eprintln!`).
//! `.ci/run` installs every tool listed here, or fails.

use std::io::Write as _;
use std::path::PathBuf;

/// Each tool a test may need and how to install it. The versions are the
/// ones `.ci/run` pins; the `hooks` test
/// `managers::ci_installs_every_tool_a_test_asks_for_at_the_pinned_version`
/// keeps the two in step.
pub const INSTALL: &[(&str, &str)] = &[
    ("pre-commit", "`pip install pre-commit==4.7.0`"),
    ("prek", "`pip install prek==0.5.10`"),
    (
        "lefthook",
        "`npm install lefthook@2.2.1`, with `node_modules/.bin` on PATH",
    ),
    (
        "husky",
        "`npm install husky@9.1.7`, with `node_modules/.bin` on PATH",
    ),
    (
        "python3",
        "`apt-get install python3` (or your system's package)",
    ),
    ("curl", "`apt-get install curl`"),
    ("npm", "`apt-get install npm`"),
    ("sha256sum", "`apt-get install coreutils`"),
    (
        "ssh-keygen",
        "`apt-get install openssh-client` (it signs and verifies the SSH-signed commits)",
    ),
    (
        "xmlschema",
        "`pip install xmlschema==4.3.2` for `python3`, or `apt-get install libxml2-utils` for xmllint",
    ),
];

/// Whether this run is CI's: `CI` set to a non-empty value.
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|value| !value.is_empty())
}

/// The executable `tool` on PATH, or `None` after [`tool_missing`] (which
/// fails the test under CI). Use as
/// `let Some(program) = require_tool("prek") else { return };`.
#[track_caller]
pub fn require_tool(tool: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(tool))
            .find(|candidate| is_executable(candidate))
    });
    if found.is_none() {
        tool_missing(tool);
    }
    found
}

/// `tool`, which the running test needs, is not installed: under CI a
/// failure naming the tool and its install command; elsewhere a visible
/// line saying what the test skipped. The caller returns (or skips the part
/// that needs the tool) afterwards.
#[track_caller]
pub fn tool_missing(tool: &str) {
    let install = INSTALL
        .iter()
        .find(|(name, _)| *name == tool)
        .map(|(_, how)| *how)
        .unwrap_or_else(|| panic!("tests/common/tools.rs: no install command for `{tool}`"));
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    if in_ci() {
        panic!(
            "{test} needs `{tool}`, which is not on PATH, and CI is set, so it may not skip: \
             install it with {install} (`bash .ci/run` installs every tool the tests need)"
        );
    }
    let _ = writeln!(
        std::io::stderr().lock(),
        "SKIPPED (in {test}): what needs `{tool}`, which is not on PATH; install it with \
         {install}. With CI set this is a failure."
    );
}

fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// A PATH of the test's own: the host's PATH with every program named in
/// `hide` taken out. A directory that holds one of them is replaced by a
/// directory of links to everything else in it, so `sh`, `git` and the
/// other tools stay reachable while an installed `mastermind-hooks` (or a
/// real `cargo`, where a test brings a fake one) does not. No test may
/// depend on what the machine it runs on has installed.
pub fn path_without(hide: &[&str]) -> std::ffi::OsString {
    use std::sync::{Mutex, OnceLock};
    type Shadow = (Vec<String>, std::ffi::OsString);
    static SHADOWS: OnceLock<Mutex<Vec<Shadow>>> = OnceLock::new();
    let key: Vec<String> = hide.iter().map(|s| s.to_string()).collect();
    let shadows = SHADOWS.get_or_init(|| Mutex::new(Vec::new()));
    let mut known = shadows.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, path)) = known.iter().find(|(k, _)| *k == key) {
        return path.clone();
    }
    // Kept for the whole test process, under cargo's directory for test
    // scratch files.
    let root = tempfile::Builder::new()
        .prefix("clean-path-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("scratch directory for a clean PATH")
        .keep();
    let host = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = Vec::new();
    for (i, dir) in std::env::split_paths(&host).enumerate() {
        if !hide.iter().any(|name| dir.join(name).exists()) {
            dirs.push(dir);
            continue;
        }
        let shadow = root.join(i.to_string());
        std::fs::create_dir_all(&shadow).expect("shadow directory");
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = entry.file_name();
            if hide.iter().any(|h| std::ffi::OsStr::new(h) == name) {
                continue;
            }
            let _ = std::os::unix::fs::symlink(entry.path(), shadow.join(&name));
        }
        dirs.push(shadow);
    }
    let path = std::env::join_paths(dirs).expect("PATH entries without ':'");
    known.push((key, path.clone()));
    path
}

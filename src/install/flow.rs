//! The flows of `install`, `uninstall` and `status` (git hooks, the
//! pre-receive hook, the agent-harness settings), from a working directory
//! to an [`Outcome`]: resolve the hooks directory through git, observe the
//! hook files, plan purely, and only then touch the disk. A plan with any
//! refusal changes nothing at all. The commands only print the outcome.

use super::files::{self, HookFiles};
use super::hooks_dir::{self, HooksDir};
use super::status::{self, Probe, StatusReport};
use super::{Hook, apply, binary, plan, shim};
use crate::codes::Code;
use crate::diagnostic::{Diagnostic, ExitStatus};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// What a flow did: the text for stdout, the text for stderr (refusals and
/// warnings), and the exit status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub status: ExitStatus,
}

impl Outcome {
    /// Done: `stdout` says what.
    pub fn done(stdout: String) -> Outcome {
        Outcome {
            stdout,
            stderr: String::new(),
            status: ExitStatus::Pass,
        }
    }

    /// Refused or failed after printing `stdout`: the findings go to stderr.
    pub fn refused(stdout: String, diagnostics: &[Diagnostic]) -> Outcome {
        let mut stderr = String::new();
        for d in diagnostics {
            crate::render::human::diagnostic(&mut stderr, d);
        }
        Outcome {
            stdout,
            stderr,
            status: ExitStatus::CannotCheck,
        }
    }

    /// A report with its own exit status.
    pub fn report(stdout: String, status: ExitStatus) -> Outcome {
        Outcome {
            stdout,
            stderr: String::new(),
            status,
        }
    }

    fn warn(mut self, warning: Option<String>) -> Outcome {
        if let Some(w) = warning {
            self.stderr.insert_str(0, &w);
        }
        self
    }
}

/// Output formats of `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StatusFormat {
    Human,
    /// `{"version":1,"ok":..,"hooks_dir":{..},"hooks":[..],"diagnostics":[..]}`.
    Json,
}

fn observe_all(dir: &Path, hooks: &[Hook]) -> Result<Vec<HookFiles>, Diagnostic> {
    hooks
        .iter()
        .map(|&hook| {
            files::observe(dir, hook).map_err(|e| {
                Diagnostic::new(
                    Code::hook_write_failed,
                    format!("cannot inspect the {hook} hook in {}: {e}", dir.display()),
                )
                .with_path(dir.join(hook.name()).display().to_string())
            })
        })
        .collect()
}

fn header(dir: &HooksDir) -> String {
    format!(
        "hooks directory: {}\n  why: {}\n",
        dir.path.display(),
        dir.reason.describe()
    )
}

/// The binary path shims embed.
fn shim_binary() -> Result<Vec<u8>, Diagnostic> {
    match binary::locate() {
        Some(path) if binary::embeddable(&path) => Ok(shim::path_bytes(&path)),
        Some(path) => Err(Diagnostic::new(
            Code::hook_binary_unavailable,
            format!(
                "the binary's path {:?} contains a line break; a shim cannot name it",
                path
            ),
        )),
        None => Err(Diagnostic::new(
            Code::hook_binary_unavailable,
            "cannot find the absolute path of the running mastermind-hooks",
        )),
    }
}

/// A hooks directory the repository tracks is rewritten only with
/// `--force`, and then with a warning. `Ok((true, warning))`: tracked, go
/// ahead.
fn tracked_refusal(
    dir: &HooksDir,
    force: bool,
    command: &str,
) -> Result<(bool, Option<String>), Diagnostic> {
    if !hooks_dir::is_tracked(dir)? {
        return Ok((false, None));
    }
    let path = dir.path.display();
    if !force {
        return Err(Diagnostic::new(
            Code::hook_path_tracked,
            format!(
                "git runs hooks from {path} ({}), a directory tracked in this repository: {command} would change committed files, so nothing was changed",
                dir.reason.describe()
            ),
        )
        .with_path(path.to_string())
        .with_hint(format!(
            "Run `mastermind-hooks {command} --force` to do it anyway{}, or add `mastermind-hooks check --staged` (pre-commit) and `mastermind-hooks check --push \"$@\"` (pre-push) to the hooks there yourself.",
            if command == "install" {
                " (the shims written there run mastermind-hooks from PATH, so they can be committed)"
            } else {
                ""
            }
        )));
    }
    Ok((
        true,
        Some(format!(
            "warning[hook_path_tracked]: {path} is tracked in this repository; {command} --force changes committed files there: review and commit them\n"
        )),
    ))
}

/// `install --server`: the pre-receive shim in the bare repository at `cwd`.
pub fn install_server(cwd: &Path) -> Outcome {
    use super::server;
    let result = server::hooks_dir(cwd).and_then(|dir| {
        let binary = shim_binary()?;
        server::install(&dir, &server::render(&binary))
    });
    match result {
        Ok((path, true)) => Outcome::done(format!("installed pre-receive: {}\n", path.display())),
        Ok((path, false)) => Outcome::done(format!(
            "pre-receive is already current: {}\n",
            path.display()
        )),
        Err(d) => Outcome::refused(String::new(), &[d]),
    }
}

/// `install [--hook H]... [--force]` in the repository at `cwd`.
pub fn install(cwd: &Path, named: &[Hook], force: bool) -> Outcome {
    let hooks = Hook::selection(named);
    let dir = match hooks_dir::resolve(cwd) {
        Ok(dir) => dir,
        Err(d) => return Outcome::refused(String::new(), &[d]),
    };
    if let Err(d) = dir.check_writable(force, "install") {
        return Outcome::refused(String::new(), &[d]);
    }
    let (tracked, warning) = match tracked_refusal(&dir, force, "install") {
        Ok(found) => found,
        Err(d) => return Outcome::refused(String::new(), &[d]),
    };
    // A committed hooks directory gets portable shims: they run
    // mastermind-hooks from PATH, never a path on this machine.
    let binary = if tracked {
        Vec::new()
    } else {
        match shim_binary() {
            Ok(binary) => binary,
            Err(d) => return Outcome::refused(String::new(), &[d]).warn(warning),
        }
    };
    let observed = match observe_all(&dir.path, &hooks) {
        Ok(observed) => observed,
        Err(d) => return Outcome::refused(String::new(), &[d]).warn(warning),
    };
    let mut steps = Vec::new();
    let mut refusals = Vec::new();
    for files in &observed {
        let shim = shim::render(files.hook, &binary);
        match plan::install(files, &shim, force) {
            Ok(step) => steps.push((files, step, shim)),
            Err(d) => refusals.push(d),
        }
    }
    if !refusals.is_empty() {
        let mut outcome = Outcome::refused(String::new(), &refusals).warn(warning);
        outcome.stderr.insert_str(0, &header(&dir));
        return outcome;
    }
    let mut out = header(&dir);
    if steps.iter().any(|(_, step, _)| step.changes_anything())
        && let Err(d) = apply::ensure_dir(&dir.path)
    {
        return Outcome::refused(out, &[d]).warn(warning);
    }
    for (files, step, shim) in &steps {
        if let Err(d) = apply::install(files, step, shim) {
            return Outcome::refused(out, &[d]).warn(warning);
        }
        let _ = writeln!(out, "{}: {}", files.hook, step.describe(files));
    }
    if binary.is_empty() {
        let _ = writeln!(
            out,
            "binary: mastermind-hooks from PATH (the shims are portable: commit them)"
        );
    } else {
        let _ = writeln!(out, "binary: {}", shim::bytes_path(&binary).display());
    }
    if steps.iter().any(|(_, step, _)| step.changes_anything()) {
        let _ = writeln!(
            out,
            "done: git runs {}; `mastermind-hooks uninstall` undoes this",
            steps
                .iter()
                .map(|(files, _, _)| format!(
                    "`{}` {}",
                    files.hook.gate_command(),
                    when(files.hook)
                ))
                .collect::<Vec<_>>()
                .join(" and ")
        );
    } else {
        let _ = writeln!(out, "nothing to do: the hooks are installed and current");
    }
    Outcome::done(out).warn(warning)
}

fn when(hook: Hook) -> &'static str {
    match hook {
        Hook::PreCommit => "before each commit",
        Hook::PrePush => "before each push",
        Hook::PreMergeCommit => "before each merge commit",
    }
}

/// `uninstall [--hook H]... [--force]` in the repository at `cwd`.
pub fn uninstall(cwd: &Path, named: &[Hook], force: bool) -> Outcome {
    let hooks = Hook::selection(named);
    let dir = match hooks_dir::resolve(cwd) {
        Ok(dir) => dir,
        Err(d) => return Outcome::refused(String::new(), &[d]),
    };
    if let Err(d) = dir.check_writable(force, "uninstall") {
        return Outcome::refused(String::new(), &[d]);
    }
    let warning = match tracked_refusal(&dir, force, "uninstall") {
        Ok((_, warning)) => warning,
        Err(d) => return Outcome::refused(String::new(), &[d]),
    };
    let observed = match observe_all(&dir.path, &hooks) {
        Ok(observed) => observed,
        Err(d) => return Outcome::refused(String::new(), &[d]).warn(warning),
    };
    let mut out = header(&dir);
    let mut changed = false;
    for files in &observed {
        let step = plan::uninstall(files);
        if let Err(d) = apply::uninstall(files, step) {
            return Outcome::refused(out, &[d]).warn(warning);
        }
        changed |= step.changes_anything();
        let _ = writeln!(out, "{}: {}", files.hook, step.describe(files));
    }
    let _ = writeln!(
        out,
        "{}",
        if changed {
            "done: the gate no longer runs in git hooks here"
        } else {
            "nothing to do: no mastermind-hooks shim was installed"
        }
    );
    Outcome::done(out).warn(warning)
}

/// The executable `mastermind-hooks` on PATH, if any.
pub fn on_path() -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("mastermind-hooks"))
            .find(|candidate| binary::is_executable_file(candidate))
    })
}

fn probe(path: &Path) -> Probe {
    // A portable shim names no path: it runs mastermind-hooks from PATH.
    if path.as_os_str().is_empty() {
        return on_path().map_or(
            Probe {
                exists: false,
                executable: false,
            },
            |found| probe(&found),
        );
    }
    match std::fs::metadata(path) {
        Ok(meta) => Probe {
            exists: true,
            executable: meta.is_file() && binary::is_executable_mode(&meta),
        },
        Err(_) => Probe {
            exists: false,
            executable: false,
        },
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(a), Ok(b)) if a == b
        )
}

/// The status of the git hooks of the repository at `cwd`.
pub fn status_report(cwd: &Path, hooks: &[Hook]) -> StatusReport {
    let dir = match hooks_dir::resolve(cwd) {
        Ok(dir) => dir,
        Err(d) => return status::unavailable(d),
    };
    let observed = match observe_all(&dir.path, hooks) {
        Ok(observed) => observed,
        Err(d) => return status::unavailable(d),
    };
    // Shims left where git no longer looks (core.hooksPath set later).
    let elsewhere = if same_dir(&dir.path, &dir.default_path) {
        Vec::new()
    } else {
        observe_all(&dir.default_path, hooks).unwrap_or_default()
    };
    let managers = |manager, hook| manager_verdict(&dir.worktree, manager, hook);
    let mut report = status::evaluate(&dir, &observed, &elsewhere, &probe, &managers);
    suggest_what_works(&mut report, &dir, &observed);
    report
}

/// Read what a hook manager's configuration runs for `hook`.
fn manager_verdict(
    top: &Path,
    manager: super::managers::Manager,
    hook: Hook,
) -> super::manager_config::Verdict {
    use super::manager_config::{self, ConfigFile};
    let files: Vec<ConfigFile> = manager_config::candidates(manager, hook)
        .into_iter()
        .filter_map(|path| {
            let bytes = crate::input::read_bounded_no_follow(&top.join(&path), 1024 * 1024).ok()?;
            Some(ConfigFile {
                path,
                text: String::from_utf8_lossy(&bytes).into_owned(),
            })
        })
        .collect();
    manager_config::judge(manager, hook, &files)
}

/// Make each fix hint the command that really works here: plain `install`
/// refuses a global core.hooksPath or a tracked hooks directory without
/// `--force`, and never wraps another hook manager's script.
fn suggest_what_works(report: &mut StatusReport, dir: &HooksDir, observed: &[HookFiles]) {
    let force = if dir.check_writable(false, "install").is_err() {
        Some("core.hooksPath comes from outside this repository")
    } else if hooks_dir::is_tracked(dir).unwrap_or(false) {
        Some(
            "the hooks directory is tracked in this repository; the shims will run mastermind-hooks from PATH",
        )
    } else {
        None
    };
    for (hook, files) in report.hooks.iter_mut().zip(observed) {
        let manager = files
            .current
            .file()
            .filter(|file| file.shim().is_none())
            .and_then(|file| super::managers::Manager::detect(&file.bytes));
        for d in &mut hook.diagnostics {
            let fixable_by_install = matches!(
                d.code,
                Code::hook_not_installed
                    | Code::hook_shim_outdated
                    | Code::hook_shim_modified
                    | Code::hook_shim_not_executable
                    | Code::hook_binary_missing
            );
            if !fixable_by_install {
                continue;
            }
            if let Some(manager) = manager {
                d.hint = Some(format!(
                    "{} runs this hook: add `mastermind-hooks {}` to its configuration (recipe: {}).",
                    manager.name(),
                    files.hook.gate_command(),
                    manager.recipe_anchor()
                ));
            } else if let Some(why) = force {
                d.hint = Some(format!("Run `mastermind-hooks install --force` ({why})."));
            }
        }
    }
}

/// A status report as pretty JSON (a status holds only strings, numbers,
/// booleans and lists, so the fallback never shows in practice).
pub fn status_json(report: &impl serde::Serialize) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_else(|e| {
        format!("{{\"version\":1,\"ok\":false,\"error\":\"cannot serialize: {e}\"}}")
    });
    text.push('\n');
    text
}

/// `status [--hook H]... [--format F]` in the repository at `cwd`, with
/// `notes` about the configuration (rules the local hooks cannot apply).
pub fn status(cwd: &Path, named: &[Hook], format: StatusFormat, notes: Vec<Diagnostic>) -> Outcome {
    let mut report = status_report(cwd, &Hook::selection(named));
    report.diagnostics.extend(notes);
    // Plain `status` (no --hook) covers the agent hooks too.
    if named.is_empty()
        && report.hooks_dir.is_some()
        && let Ok(root) = worktree_root(cwd)
    {
        report.agents = crate::agent::Harness::ALL
            .into_iter()
            .map(|harness| super::agent::status(harness, &root))
            .collect();
        report.settle();
    }
    let text = match format {
        StatusFormat::Human => status::render_human(&report),
        StatusFormat::Json => status_json(&report),
    };
    Outcome::report(text, report.exit_status())
}

/// The working tree root, for the agent hook settings.
pub fn worktree_root(cwd: &Path) -> Result<PathBuf, Diagnostic> {
    worktree_and_common_dir(cwd).map(|(root, _)| root)
}

/// The working tree root and git's common directory (where `info/exclude`
/// is).
fn worktree_and_common_dir(cwd: &Path) -> Result<(PathBuf, PathBuf), Diagnostic> {
    let repo = crate::repo::Repo::discover(cwd).map_err(|e| e.to_diagnostic())?;
    let common = repo.gix().common_dir().to_path_buf();
    let root = repo.workdir().map(Path::to_path_buf).ok_or_else(|| {
        Diagnostic::new(
            Code::hook_bare_repository,
            "a bare repository has no working tree, so no agent works in it",
        )
    })?;
    Ok((root, common))
}

/// `install --agent HARNESS` in the repository at `cwd`.
pub fn install_agent(cwd: &Path, harness: crate::agent::Harness) -> Outcome {
    let (root, common) = match worktree_and_common_dir(cwd) {
        Ok(found) => found,
        Err(d) => return Outcome::refused(String::new(), &[d]),
    };
    match super::agent::install(harness, &root, Some(&common)) {
        Ok(text) => Outcome::done(text),
        Err(ds) => Outcome::refused(String::new(), &ds),
    }
}

/// `uninstall --agent HARNESS` in the repository at `cwd`.
pub fn uninstall_agent(cwd: &Path, harness: crate::agent::Harness) -> Outcome {
    let (root, common) = match worktree_and_common_dir(cwd) {
        Ok(found) => found,
        Err(d) => return Outcome::refused(String::new(), &[d]),
    };
    match super::agent::uninstall(harness, &root, Some(&common)) {
        Ok(text) => Outcome::done(text),
        Err(ds) => Outcome::refused(String::new(), &ds),
    }
}

/// `status --agent HARNESS` in the repository at `cwd`.
pub fn agent_status(cwd: &Path, harness: crate::agent::Harness, format: StatusFormat) -> Outcome {
    let root = match worktree_root(cwd) {
        Ok(root) => root,
        Err(d) => return Outcome::refused(String::new(), &[d]),
    };
    let report = super::agent::status(harness, &root);
    let text = match format {
        StatusFormat::Human => super::agent::render_status(&report),
        StatusFormat::Json => status_json(&report),
    };
    Outcome::report(text, report.exit_status())
}

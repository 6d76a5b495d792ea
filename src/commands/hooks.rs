//! `install`, `uninstall` and `status`: the edge around [`crate::install`].
//! Each resolves the hooks directory through git, observes the hook files,
//! plans purely, and only then touches the disk. A plan with any refusal
//! changes nothing at all.

use crate::codes::Code;
use crate::commands::emit;
use crate::diagnostic::{Diagnostic, ExitStatus};
use crate::install::files::{self, HookFiles};
use crate::install::hooks_dir::{self, HooksDir};
use crate::install::status::{self, Probe, StatusReport};
use crate::install::{Hook, apply, binary, plan, shim};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Output formats of `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StatusFormat {
    Human,
    /// `{"version":1,"ok":..,"hooks_dir":{..},"hooks":[..],"diagnostics":[..]}`.
    Json,
}

fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// Print refusals to stderr; the command could not do its job.
fn refuse(diagnostics: &[Diagnostic]) -> ExitStatus {
    let mut out = String::new();
    for d in diagnostics {
        crate::render::human::diagnostic(&mut out, d);
    }
    eprint!("{out}");
    ExitStatus::CannotCheck
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

fn finish(text: &str, status: ExitStatus) -> ExitStatus {
    match emit(text) {
        Ok(()) => status,
        Err(_) => ExitStatus::CannotCheck,
    }
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
/// `--force`, and then with a warning. `Ok(true)`: tracked, go ahead.
fn tracked_refusal(dir: &HooksDir, force: bool, command: &str) -> Result<bool, Diagnostic> {
    if !hooks_dir::is_tracked(dir)? {
        return Ok(false);
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
    eprintln!(
        "warning[hook_path_tracked]: {path} is tracked in this repository; {command} --force changes committed files there: review and commit them"
    );
    Ok(true)
}

/// `install --server`: the pre-receive shim in the bare repository here.
pub fn install_server() -> ExitStatus {
    use crate::install::server;
    let result = server::hooks_dir(&current_dir()).and_then(|dir| {
        let binary = shim_binary()?;
        server::install(&dir, &server::render(&binary))
    });
    match result {
        Ok((path, true)) => finish(
            &format!("installed pre-receive: {}\n", path.display()),
            ExitStatus::Pass,
        ),
        Ok((path, false)) => finish(
            &format!("pre-receive is already current: {}\n", path.display()),
            ExitStatus::Pass,
        ),
        Err(d) => refuse(&[d]),
    }
}

pub fn install(named: &[Hook], force: bool) -> ExitStatus {
    let hooks = Hook::selection(named);
    let dir = match hooks_dir::resolve(&current_dir()) {
        Ok(dir) => dir,
        Err(d) => return refuse(&[d]),
    };
    if let Err(d) = dir.check_writable(force, "install") {
        return refuse(&[d]);
    }
    let tracked = match tracked_refusal(&dir, force, "install") {
        Ok(tracked) => tracked,
        Err(d) => return refuse(&[d]),
    };
    // A committed hooks directory gets portable shims: they run
    // mastermind-hooks from PATH, never a path on this machine.
    let binary = if tracked {
        Vec::new()
    } else {
        match shim_binary() {
            Ok(binary) => binary,
            Err(d) => return refuse(&[d]),
        }
    };
    let observed = match observe_all(&dir.path, &hooks) {
        Ok(observed) => observed,
        Err(d) => return refuse(&[d]),
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
        eprint!("{}", header(&dir));
        return refuse(&refusals);
    }
    let mut out = header(&dir);
    if steps.iter().any(|(_, step, _)| step.changes_anything())
        && let Err(d) = apply::ensure_dir(&dir.path)
    {
        let _ = emit(&out);
        return refuse(&[d]);
    }
    for (files, step, shim) in &steps {
        if let Err(d) = apply::install(files, step, shim) {
            let _ = emit(&out);
            return refuse(&[d]);
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
    finish(&out, ExitStatus::Pass)
}

fn when(hook: Hook) -> &'static str {
    match hook {
        Hook::PreCommit => "before each commit",
        Hook::PrePush => "before each push",
        Hook::PreMergeCommit => "before each merge commit",
    }
}

pub fn uninstall(named: &[Hook], force: bool) -> ExitStatus {
    let hooks = Hook::selection(named);
    let dir = match hooks_dir::resolve(&current_dir()) {
        Ok(dir) => dir,
        Err(d) => return refuse(&[d]),
    };
    if let Err(d) = dir.check_writable(force, "uninstall") {
        return refuse(&[d]);
    }
    if let Err(d) = tracked_refusal(&dir, force, "uninstall") {
        return refuse(&[d]);
    }
    let observed = match observe_all(&dir.path, &hooks) {
        Ok(observed) => observed,
        Err(d) => return refuse(&[d]),
    };
    let mut out = header(&dir);
    let mut changed = false;
    for files in &observed {
        let step = plan::uninstall(files);
        if let Err(d) = apply::uninstall(files, step) {
            let _ = emit(&out);
            return refuse(&[d]);
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
    finish(&out, ExitStatus::Pass)
}

fn probe(path: &Path) -> Probe {
    // A portable shim names no path: it runs mastermind-hooks from PATH.
    if path.as_os_str().is_empty() {
        return std::env::var_os("PATH")
            .and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|dir| dir.join("mastermind-hooks"))
                    .find(|candidate| binary::is_executable_file(candidate))
            })
            .map_or(
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

fn status_report(hooks: &[Hook]) -> StatusReport {
    let dir = match hooks_dir::resolve(&current_dir()) {
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
    let mut report = status::evaluate(&dir, &observed, &elsewhere, &probe);
    suggest_what_works(&mut report, &dir, &observed);
    report.diagnostics.extend(identity_notes());
    report
}

/// Rules of HEAD's configuration that the local hooks cannot apply (they
/// key on who the platform or a key vouches for); nothing when there is no
/// readable configuration (the gate reports that itself).
fn identity_notes() -> Vec<crate::diagnostic::Diagnostic> {
    let Ok(repo) = crate::repo::Repo::discover(&current_dir()) else {
        return Vec::new();
    };
    let config = repo
        .head_commit()
        .ok()
        .flatten()
        .and_then(|head| repo.commit_tree(head).ok())
        .and_then(|tree| {
            crate::repo::snapshot::Snapshot::Tree(tree)
                .read(
                    &repo,
                    crate::config::CONFIG_PATH,
                    crate::config::MAX_CONFIG_BYTES,
                )
                .ok()
                .flatten()
        });
    match config {
        Some(crate::repo::tree::Content::Bytes(bytes)) => {
            crate::config::Config::parse(&bytes, crate::config::CONFIG_PATH)
                .map(|config| crate::gate::identity::local_notes(&config))
                .unwrap_or_default()
        }
        _ => Vec::new(),
    }
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
            .and_then(|file| crate::install::managers::Manager::detect(&file.bytes));
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
fn status_json(report: &impl serde::Serialize) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_else(|e| {
        format!("{{\"version\":1,\"ok\":false,\"error\":\"cannot serialize: {e}\"}}")
    });
    text.push('\n');
    text
}

pub fn status(named: &[Hook], format: StatusFormat) -> ExitStatus {
    let report = status_report(&Hook::selection(named));
    let text = match format {
        StatusFormat::Human => status::render_human(&report),
        StatusFormat::Json => status_json(&report),
    };
    finish(&text, report.exit_status())
}

/// The working tree root, for the agent hook settings.
fn worktree_root() -> Result<PathBuf, Diagnostic> {
    let repo = crate::repo::Repo::discover(&current_dir()).map_err(|e| e.to_diagnostic())?;
    repo.workdir().map(Path::to_path_buf).ok_or_else(|| {
        Diagnostic::new(
            Code::hook_bare_repository,
            "a bare repository has no working tree, so no agent works in it",
        )
    })
}

/// `install --agent HARNESS`.
pub fn install_agent(harness: crate::agent::Harness) -> ExitStatus {
    let root = match worktree_root() {
        Ok(root) => root,
        Err(d) => return refuse(&[d]),
    };
    let binary = match binary::locate() {
        Some(path) => path,
        None => {
            return refuse(&[Diagnostic::new(
                Code::hook_binary_unavailable,
                "cannot find the absolute path of the running mastermind-hooks",
            )]);
        }
    };
    match crate::install::agent::install(harness, &root, &binary) {
        Ok(text) => finish(&text, ExitStatus::Pass),
        Err(ds) => refuse(&ds),
    }
}

/// `uninstall --agent HARNESS`.
pub fn uninstall_agent(harness: crate::agent::Harness) -> ExitStatus {
    let root = match worktree_root() {
        Ok(root) => root,
        Err(d) => return refuse(&[d]),
    };
    match crate::install::agent::uninstall(harness, &root) {
        Ok(text) => finish(&text, ExitStatus::Pass),
        Err(ds) => refuse(&ds),
    }
}

/// `status --agent HARNESS`.
pub fn agent_status(harness: crate::agent::Harness, format: StatusFormat) -> ExitStatus {
    let root = match worktree_root() {
        Ok(root) => root,
        Err(d) => return refuse(&[d]),
    };
    let report = crate::install::agent::status(harness, &root, binary::locate().as_deref());
    let text = match format {
        StatusFormat::Human => crate::install::agent::render_status(&report),
        StatusFormat::Json => status_json(&report),
    };
    finish(&text, report.exit_status())
}

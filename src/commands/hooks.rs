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
    let binary = match shim_binary() {
        Ok(binary) => binary,
        Err(d) => return refuse(&[d]),
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
    let _ = writeln!(out, "binary: {}", shim::bytes_path(&binary).display());
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
    status::evaluate(&dir, &observed, &elsewhere, &probe)
}

pub fn status(named: &[Hook], format: StatusFormat) -> ExitStatus {
    let report = status_report(&Hook::selection(named));
    let text = match format {
        StatusFormat::Human => status::render_human(&report),
        StatusFormat::Json => {
            let mut text = serde_json::to_string_pretty(&report).unwrap_or_else(|e| {
                format!("{{\"version\":1,\"ok\":false,\"error\":\"cannot serialize: {e}\"}}")
            });
            text.push('\n');
            text
        }
    };
    finish(&text, report.exit_status())
}

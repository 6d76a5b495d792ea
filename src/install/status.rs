//! `status`: what git will run for each hook, judged from the observed files
//! (pure), and its human rendering. The JSON form is the serialized
//! [`StatusReport`].

use super::Hook;
use super::files::{Entry, HookFiles};
use super::hooks_dir::{HooksDir, HooksPathSetting, Reason};
use super::manager_config::Verdict;
use super::managers::Manager;
use super::shim::{self, SHIM_VERSION};
use crate::codes::Code;
use crate::diagnostic::{Diagnostic, ExitStatus};
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

/// Whether a binary path leads to something that can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Probe {
    pub exists: bool,
    pub executable: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatusReport {
    pub version: u32,
    /// Every selected hook runs a current shim whose binary can run.
    pub ok: bool,
    /// Absent when git could not say where hooks run.
    pub hooks_dir: Option<DirStatus>,
    pub hooks: Vec<HookStatus>,
    /// Findings about the repository rather than one hook.
    pub diagnostics: Vec<Diagnostic>,
    /// The agent-harness hooks, per harness (plain `status` only). A
    /// harness none of whose entries is installed is listed with its
    /// findings left out: the agent hooks are optional.
    pub agents: Vec<super::agent::AgentStatus>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DirStatus {
    pub path: String,
    /// `core.hooksPath`, `git_dir`, `common_dir` or `submodule_git_dir`.
    pub reason: &'static str,
    pub description: String,
    pub core_hooks_path: Option<HooksPathSetting>,
    pub worktree: String,
    pub git_dir: String,
    pub common_dir: String,
}

/// What is at a hook's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Found {
    /// A mastermind-hooks shim.
    Shim,
    /// Someone else's hook.
    Foreign,
    /// Nothing.
    None,
    /// A directory or special file.
    Unusable,
}

/// How an installed shim compares with what this binary writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ShimState {
    Current,
    Outdated,
    Newer,
    Modified,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HookStatus {
    pub name: Hook,
    pub path: String,
    pub found: Found,
    /// Git will execute the file at `path` (it exists and is executable).
    pub git_runs_it: bool,
    pub shim_version: Option<u32>,
    pub shim_state: Option<ShimState>,
    /// The binary the shim runs.
    pub binary: Option<BinaryStatus>,
    /// The kept hook, when `<hook>.legacy` exists.
    pub legacy: Option<LegacyStatus>,
    /// The hook manager whose script git runs, and whether its
    /// configuration runs the gate.
    pub manager: Option<ManagerStatus>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ManagerStatus {
    pub name: &'static str,
    /// `runs_gate`, `does_not_run`, `no_config` or `unreadable`.
    pub state: &'static str,
    /// The configuration file that decided.
    pub config: Option<String>,
    /// The command there that runs the gate.
    pub command: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BinaryStatus {
    pub path: String,
    pub exists: bool,
    pub executable: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LegacyStatus {
    pub path: String,
    pub executable: bool,
    /// Our shim runs it before the gate.
    pub chained: bool,
}

impl StatusReport {
    pub fn exit_status(&self) -> ExitStatus {
        ExitStatus::of(
            self.hooks
                .iter()
                .flat_map(|h| &h.diagnostics)
                .chain(&self.diagnostics)
                .chain(
                    self.agents
                        .iter()
                        .filter(|a| a.any_installed())
                        .flat_map(|a| &a.diagnostics),
                ),
        )
    }

    /// Recompute `ok` after a change.
    pub fn settle(&mut self) {
        self.ok = self.exit_status() == ExitStatus::Pass;
    }
}

fn text(path: &Path) -> String {
    path.display().to_string()
}

/// What a hook manager's configuration says about a hook.
pub type ManagerProbe<'a> = &'a dyn Fn(Manager, Hook) -> Verdict;

/// Judge what git will run. `hooks` are the observed files in the hooks
/// directory; `elsewhere` those in the default directory when core.hooksPath
/// points away from it; `probe` looks at a binary path (the empty path:
/// `mastermind-hooks` on PATH); `managers` reads a hook manager's
/// configuration.
pub fn evaluate(
    dir: &HooksDir,
    hooks: &[HookFiles],
    elsewhere: &[HookFiles],
    probe: &dyn Fn(&Path) -> Probe,
    managers: ManagerProbe<'_>,
) -> StatusReport {
    let hooks: Vec<HookStatus> = hooks
        .iter()
        .map(|files| hook_status(files, probe, managers))
        .collect();
    let diagnostics = elsewhere
        .iter()
        .filter(|files| files.current.shim().is_some())
        .map(|files| {
            Diagnostic::new(
                Code::hook_shim_stray,
                format!(
                    "a mastermind-hooks {} shim sits in {}, but git runs hooks from {}",
                    files.hook,
                    text(files.path.parent().unwrap_or(&files.path)),
                    text(&dir.path)
                ),
            )
            .with_path(text(&files.path))
        })
        .collect();
    let mut report = StatusReport {
        version: 1,
        ok: false,
        hooks_dir: Some(DirStatus {
            path: text(&dir.path),
            reason: dir.reason.name(),
            description: dir.reason.describe(),
            core_hooks_path: match &dir.reason {
                Reason::HooksPath(setting) => Some(setting.clone()),
                _ => None,
            },
            worktree: text(&dir.worktree),
            git_dir: text(&dir.git_dir),
            common_dir: text(&dir.common_dir),
        }),
        hooks,
        diagnostics,
        agents: Vec::new(),
    };
    report.ok = report.exit_status() == ExitStatus::Pass;
    report
}

/// The report when the hooks directory could not be found.
pub fn unavailable(diagnostic: Diagnostic) -> StatusReport {
    StatusReport {
        version: 1,
        ok: false,
        hooks_dir: None,
        hooks: Vec::new(),
        diagnostics: vec![diagnostic],
        agents: Vec::new(),
    }
}

fn hook_status(
    files: &HookFiles,
    probe: &dyn Fn(&Path) -> Probe,
    managers: ManagerProbe<'_>,
) -> HookStatus {
    let hook = files.hook;
    let path = text(&files.path);
    let problem =
        |code: Code, message: String| Diagnostic::new(code, message).with_path(path.clone());
    let mut status = HookStatus {
        name: hook,
        path: path.clone(),
        found: Found::None,
        git_runs_it: false,
        shim_version: None,
        shim_state: None,
        binary: None,
        legacy: None,
        manager: None,
        diagnostics: Vec::new(),
    };
    let shim = files.current.shim();
    if let Entry::File(legacy) = &files.legacy {
        status.legacy = Some(LegacyStatus {
            path: text(&files.legacy_path),
            executable: legacy.executable,
            chained: shim.is_some() && legacy.executable,
        });
    }
    match (&files.current, shim) {
        (Entry::Absent, _) => {
            status.diagnostics.push(problem(
                Code::hook_not_installed,
                format!(
                    "git runs no {hook} hook, so the gate does not run before {}",
                    moment(hook)
                ),
            ));
            if files.legacy.exists() {
                status.diagnostics.push(
                    Diagnostic::new(
                        Code::hook_legacy_orphan,
                        format!("{} exists but nothing runs it", hook.legacy_name()),
                    )
                    .with_path(text(&files.legacy_path)),
                );
            }
        }
        (Entry::Other { kind }, _) => {
            status.found = Found::Unusable;
            status.diagnostics.push(problem(
                Code::hook_not_installed,
                format!("the {hook} hook path is {kind}; git runs nothing there"),
            ));
        }
        (Entry::File(file), None) if file.executable && Manager::detect(&file.bytes).is_some() => {
            status.found = Found::Foreign;
            status.git_runs_it = true;
            let manager = Manager::detect(&file.bytes).unwrap_or(Manager::PreCommit);
            let verdict = managers(manager, hook);
            let gate = format!("mastermind-hooks {}", hook.gate_command());
            let (state, config, command) = match &verdict {
                Verdict::RunsGate { config, command } => {
                    ("runs_gate", Some(config.clone()), Some(command.clone()))
                }
                Verdict::DoesNotRun { config } => ("does_not_run", Some(config.clone()), None),
                Verdict::NoConfig => ("no_config", None, None),
                Verdict::Unreadable { config, .. } => ("unreadable", Some(config.clone()), None),
            };
            match verdict {
                Verdict::RunsGate { .. } => {
                    // The manager runs `mastermind-hooks` from PATH.
                    let found = probe(Path::new(""));
                    status.binary = Some(BinaryStatus {
                        path: "mastermind-hooks on PATH".into(),
                        exists: found.exists,
                        executable: found.executable,
                    });
                    if !(found.exists && found.executable) {
                        status.diagnostics.push(problem(
                            Code::hook_binary_missing,
                            format!(
                                "{} runs `{gate}` before {}, but no mastermind-hooks is on PATH here, so the hook fails",
                                manager.name(),
                                moment(hook)
                            ),
                        ));
                    }
                }
                Verdict::DoesNotRun { config } => status.diagnostics.push(problem(
                    Code::hook_not_installed,
                    format!(
                        "git runs {}'s {hook} hook, and {config} runs no `{gate}` for it, so the gate does not run before {}",
                        manager.name(),
                        moment(hook)
                    ),
                )),
                Verdict::NoConfig => status.diagnostics.push(problem(
                    Code::hook_not_installed,
                    format!(
                        "git runs {}'s {hook} hook, and none of its configuration files exists, so the gate does not run before {}",
                        manager.name(),
                        moment(hook)
                    ),
                )),
                Verdict::Unreadable { config, why } => status.diagnostics.push(
                    Diagnostic::new(
                        Code::hook_manager_config_unreadable,
                        format!(
                            "git runs {}'s {hook} hook, and {config} cannot be read as {} reads it ({why}), so whether the gate runs cannot be told",
                            manager.name(),
                            manager.name()
                        ),
                    )
                    .with_path(config),
                ),
            }
            status.manager = Some(ManagerStatus {
                name: manager.name(),
                state,
                config,
                command,
            });
        }
        (Entry::File(file), None) => {
            status.found = Found::Foreign;
            status.git_runs_it = file.executable;
            let runs = if file.executable {
                format!("git runs a foreign {hook} hook, not the gate")
            } else {
                format!(
                    "the {hook} hook is a foreign file without the execute bit (git ignores it); the gate does not run"
                )
            };
            status
                .diagnostics
                .push(problem(Code::hook_not_installed, runs));
        }
        (Entry::File(file), Some(info)) => {
            status.found = Found::Shim;
            status.git_runs_it = file.executable;
            status.shim_version = Some(info.version);
            let state = if info.version < SHIM_VERSION {
                ShimState::Outdated
            } else if info.version > SHIM_VERSION {
                ShimState::Newer
            } else if info.is_pristine(&file.bytes) && info.hook == Some(hook) {
                ShimState::Current
            } else {
                ShimState::Modified
            };
            status.shim_state = Some(state);
            match state {
                ShimState::Current => {}
                ShimState::Outdated => status.diagnostics.push(problem(
                    Code::hook_shim_outdated,
                    format!("the {hook} shim is v{}; this mastermind-hooks writes v{SHIM_VERSION}", info.version),
                )),
                ShimState::Newer => status.diagnostics.push(problem(
                    Code::hook_shim_newer,
                    format!("the {hook} shim is v{}, newer than this mastermind-hooks (v{SHIM_VERSION}) understands", info.version),
                )),
                ShimState::Modified => status.diagnostics.push(problem(
                    Code::hook_shim_modified,
                    format!("the {hook} shim differs from what `mastermind-hooks install` writes"),
                )),
            }
            if !file.executable {
                status.diagnostics.push(problem(
                    Code::hook_shim_not_executable,
                    format!("the {hook} shim is not executable, so git ignores it"),
                ));
            }
            if let Some(binary) = &info.binary {
                let binary_path = shim::bytes_path(binary);
                let found = probe(&binary_path);
                if !(found.exists && found.executable) {
                    status.diagnostics.push(
                        problem(
                            Code::hook_binary_missing,
                            format!(
                                "the {hook} shim runs {}, which {}; the hook falls back to mastermind-hooks on PATH, or fails",
                                if binary.is_empty() { "mastermind-hooks from PATH".to_string() } else { binary_path.display().to_string() },
                                if found.exists { "is not executable" } else { "does not exist" }
                            ),
                        ),
                    );
                }
                status.binary = Some(BinaryStatus {
                    path: if binary.is_empty() {
                        "mastermind-hooks on PATH".to_string()
                    } else {
                        text(&binary_path)
                    },
                    exists: found.exists,
                    executable: found.executable,
                });
            }
        }
    }
    status
}

fn moment(hook: Hook) -> &'static str {
    match hook {
        Hook::PreCommit => "commits",
        Hook::PrePush => "pushes",
        Hook::PreMergeCommit => "merge commits",
    }
}

/// The human rendering.
pub fn render_human(report: &StatusReport) -> String {
    let mut out = String::new();
    if let Some(dir) = &report.hooks_dir {
        let _ = writeln!(out, "hooks directory: {}", dir.path);
        let _ = writeln!(out, "  why: {}", dir.description);
    }
    for hook in &report.hooks {
        let what = match (hook.found, hook.shim_state) {
            (Found::Shim, Some(state)) => {
                let version = hook.shim_version.unwrap_or_default();
                let state = match state {
                    ShimState::Current => "current".to_string(),
                    ShimState::Outdated => format!("outdated, this binary writes v{SHIM_VERSION}"),
                    ShimState::Newer => format!("newer than this binary's v{SHIM_VERSION}"),
                    ShimState::Modified => "modified".to_string(),
                };
                if hook.git_runs_it {
                    format!("git runs the mastermind-hooks shim v{version} ({state})")
                } else {
                    format!(
                        "mastermind-hooks shim v{version} ({state}), not executable: git ignores it"
                    )
                }
            }
            (Found::Foreign, _) if hook.manager.is_some() => {
                let m = hook
                    .manager
                    .as_ref()
                    .map_or(("", "", None), |m| (m.name, m.state, m.command.as_deref()));
                match (m.1, m.2) {
                    ("runs_gate", Some(command)) => {
                        format!("git runs {}, which runs `{command}`", m.0)
                    }
                    _ => format!("git runs {}, which does not run the gate", m.0),
                }
            }
            (Found::Foreign, _) if hook.git_runs_it => "git runs a foreign hook".into(),
            (Found::Foreign, _) => "a foreign hook without the execute bit: git ignores it".into(),
            (Found::Unusable, _) => "not a file: git runs nothing".into(),
            _ => "git runs nothing (no hook)".into(),
        };
        let _ = writeln!(out, "{}: {what}", hook.name);
        if let Some(binary) = &hook.binary {
            let state = match (binary.exists, binary.executable) {
                (true, true) => "exists, executable",
                (true, false) => "exists, NOT executable",
                _ => "MISSING",
            };
            let _ = writeln!(out, "  binary: {} ({state})", binary.path);
        }
        if let Some(legacy) = &hook.legacy {
            let name = hook.name.legacy_name();
            let line = match (legacy.chained, legacy.executable, hook.found) {
                (true, _, _) => format!("{name} (the hook install kept) runs first"),
                (false, false, Found::Shim) => {
                    format!("{name} is not executable, so the shim skips it (as git would)")
                }
                _ => format!("{name} exists; nothing runs it"),
            };
            let _ = writeln!(out, "  legacy: {line}");
        }
    }
    let mut problems: Vec<&Diagnostic> = report
        .hooks
        .iter()
        .flat_map(|h| &h.diagnostics)
        .chain(&report.diagnostics)
        .collect();
    for d in &problems {
        crate::render::human::diagnostic(&mut out, d);
    }
    for agent in &report.agents {
        if agent.any_installed() {
            out.push_str(&super::agent::render_status(agent));
            problems.extend(&agent.diagnostics);
        } else {
            let _ = writeln!(
                out,
                "agent hooks ({}): not installed; `mastermind-hooks install --agent {}` adds them",
                agent.harness, agent.harness
            );
        }
    }
    let errors = problems.iter().filter(|d| d.is_error()).count();
    if report.hooks_dir.is_none() {
        let _ = writeln!(out, "status: could not check");
    } else if errors == 0 {
        let _ = writeln!(
            out,
            "status: ok, git runs the gate{}",
            if report.agents.iter().any(|a| a.any_installed()) {
                " and the agent hooks are current"
            } else {
                ""
            }
        );
    } else {
        let _ = writeln!(
            out,
            "status: {errors} problem{}",
            if errors == 1 { "" } else { "s" }
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::files::FileEntry;
    use crate::install::shim::render;
    use std::path::PathBuf;

    fn dir() -> HooksDir {
        HooksDir {
            path: PathBuf::from("/r/.git/hooks"),
            reason: Reason::GitDir,
            worktree: PathBuf::from("/r"),
            git_dir: PathBuf::from("/r/.git"),
            common_dir: PathBuf::from("/r/.git"),
            default_path: PathBuf::from("/r/.git/hooks"),
        }
    }

    fn file(bytes: &[u8], executable: bool) -> Entry {
        Entry::File(FileEntry {
            bytes: bytes.to_vec(),
            complete: true,
            executable,
            symlink_target: None,
        })
    }

    fn hook(hook: Hook, current: Entry, legacy: Entry) -> HookFiles {
        HookFiles {
            hook,
            path: PathBuf::from(format!("/r/.git/hooks/{hook}")),
            legacy_path: PathBuf::from(format!("/r/.git/hooks/{hook}.legacy")),
            current,
            legacy,
        }
    }

    fn no_manager(_: Manager, _: Hook) -> Verdict {
        Verdict::NoConfig
    }

    fn present(_: &Path) -> Probe {
        Probe {
            exists: true,
            executable: true,
        }
    }

    fn codes(report: &StatusReport) -> Vec<Code> {
        report
            .hooks
            .iter()
            .flat_map(|h| &h.diagnostics)
            .chain(&report.diagnostics)
            .map(|d| d.code)
            .collect()
    }

    #[test]
    fn installed_current_shims_are_ok() {
        let hooks = [
            hook(
                Hook::PreCommit,
                file(&render(Hook::PreCommit, b"/bin/mh"), true),
                file(b"#!/bin/sh\n", true),
            ),
            hook(
                Hook::PrePush,
                file(&render(Hook::PrePush, b"/bin/mh"), true),
                Entry::Absent,
            ),
        ];
        let report = evaluate(&dir(), &hooks, &[], &present, &no_manager);
        assert!(report.ok, "{:?}", codes(&report));
        assert_eq!(report.exit_status(), ExitStatus::Pass);
        assert_eq!(
            report.hooks[0].legacy.as_ref().map(|l| l.chained),
            Some(true)
        );
        assert_eq!(
            report.hooks[1].binary.as_ref().map(|b| b.path.as_str()),
            Some("/bin/mh")
        );
        let human = render_human(&report);
        assert!(
            human.contains("pre-commit.legacy (the hook install kept) runs first"),
            "{human}"
        );
        assert!(
            human.ends_with("status: ok, git runs the gate\n"),
            "{human}"
        );
    }

    #[test]
    fn every_kind_of_problem_is_named() {
        let pre_push = |current| hook(Hook::PrePush, current, Entry::Absent);
        let judge = |current, probe: &dyn Fn(&Path) -> Probe| {
            let report = evaluate(&dir(), &[pre_push(current)], &[], probe, &no_manager);
            (codes(&report), report.exit_status())
        };
        let current = render(Hook::PrePush, b"/bin/mh");
        let missing = |_: &Path| Probe {
            exists: false,
            executable: false,
        };
        assert_eq!(
            judge(Entry::Absent, &present),
            (vec![Code::hook_not_installed], ExitStatus::Violations)
        );
        assert_eq!(
            judge(file(b"#!/bin/sh\n", true), &present).0,
            vec![Code::hook_not_installed]
        );
        assert_eq!(
            judge(file(&current, true), &missing).0,
            vec![Code::hook_binary_missing]
        );
        assert_eq!(
            judge(file(&current, false), &present).0,
            vec![Code::hook_shim_not_executable]
        );
        assert_eq!(
            judge(
                file(b"#!/bin/sh\n# mastermind-hooks shim v0\n", true),
                &present
            )
            .0,
            vec![Code::hook_shim_outdated]
        );
        let mut edited = current.clone();
        edited.extend_from_slice(b"exit 0\n");
        assert_eq!(
            judge(file(&edited, true), &present).0,
            vec![Code::hook_shim_modified]
        );
        // A pre-commit shim at the pre-push path runs the wrong check.
        assert_eq!(
            judge(file(&render(Hook::PreCommit, b"/bin/mh"), true), &present).0,
            vec![Code::hook_shim_modified]
        );
        let newer = judge(
            file(b"#!/bin/sh\n# mastermind-hooks shim v7\n", true),
            &present,
        );
        assert_eq!(
            newer,
            (vec![Code::hook_shim_newer], ExitStatus::CannotCheck)
        );
    }

    #[test]
    fn orphaned_legacy_hooks_and_stray_shims_are_reported() {
        let orphan = hook(Hook::PreCommit, Entry::Absent, file(b"#!/bin/sh\n", true));
        let stray = hook(
            Hook::PreCommit,
            file(&render(Hook::PreCommit, b"/bin/mh"), true),
            Entry::Absent,
        );
        let report = evaluate(&dir(), &[orphan], &[stray], &present, &no_manager);
        assert_eq!(
            codes(&report),
            vec![
                Code::hook_not_installed,
                Code::hook_legacy_orphan,
                Code::hook_shim_stray
            ]
        );
    }
}

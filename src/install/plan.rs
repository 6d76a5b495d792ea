//! Pure decisions: given what is at a hook's paths, what install and
//! uninstall do there. Nothing here touches the disk; [`apply`](super::apply)
//! carries a plan out.
//!
//! Rules: a file is ours only when it carries our marker (and is a regular
//! file); a foreign hook is never deleted or overwritten, only kept as
//! `<hook>.legacy` (never clobbering one) and run first by the shim; a shim
//! from a newer shim version is not downgraded without `--force`.

use super::files::{Entry, HookFiles};
use super::managers::Manager;
use super::shim::SHIM_VERSION;
use crate::codes::Code;
use crate::diagnostic::Diagnostic;

/// What install does at one hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstallStep {
    /// The shim is there, byte for byte and executable: touch nothing.
    Unchanged,
    /// The shim is there byte for byte but lacks the execute bit.
    MakeExecutable,
    /// Nothing is there: write the shim. `legacy_waiting` when a
    /// `<hook>.legacy` is already present (the shim will run it first).
    Create { legacy_waiting: bool },
    /// One of our shims is there but differs: rewrite it.
    Replace { from_version: u32 },
    /// A foreign hook is there: keep it as `<hook>.legacy`, write the shim.
    KeepForeign { symlink: bool },
}

impl InstallStep {
    pub fn changes_anything(&self) -> bool {
        !matches!(self, InstallStep::Unchanged)
    }

    /// One line for people, after `<hook>: `.
    pub fn describe(&self, files: &HookFiles) -> String {
        let legacy = files.hook.legacy_name();
        match self {
            InstallStep::Unchanged => {
                format!("already installed (shim v{SHIM_VERSION}), nothing changed")
            }
            InstallStep::MakeExecutable => {
                format!(
                    "shim v{SHIM_VERSION} was not executable (git ignored it); made it executable"
                )
            }
            InstallStep::Create {
                legacy_waiting: false,
            } => format!("installed shim v{SHIM_VERSION}"),
            InstallStep::Create {
                legacy_waiting: true,
            } => format!(
                "installed shim v{SHIM_VERSION}; the {legacy} that was already there runs first"
            ),
            InstallStep::Replace { from_version } if *from_version < SHIM_VERSION => {
                format!("upgraded shim v{from_version} to v{SHIM_VERSION}")
            }
            InstallStep::Replace { from_version } if *from_version > SHIM_VERSION => {
                format!("replaced the newer shim v{from_version} with v{SHIM_VERSION} (--force)")
            }
            InstallStep::Replace { .. } => {
                format!("rewrote shim v{SHIM_VERSION} (it ran another binary or was edited)")
            }
            InstallStep::KeepForeign { symlink } => format!(
                "installed shim v{SHIM_VERSION}; the existing {}hook was kept as {legacy} and runs first",
                if *symlink { "symlinked " } else { "" }
            ),
        }
    }
}

/// Decide install at one hook. `shim` is the rendered shim.
pub fn install(files: &HookFiles, shim: &[u8], force: bool) -> Result<InstallStep, Diagnostic> {
    let hook = files.hook;
    let path = files.path.display().to_string();
    match &files.current {
        Entry::Absent => Ok(InstallStep::Create {
            legacy_waiting: files.legacy.exists(),
        }),
        Entry::Other { kind } => Err(Diagnostic::new(
            Code::hook_file_unusable,
            format!("{path} is {kind}, not a hook file; nothing was installed"),
        )
        .with_path(path)),
        Entry::File(file) => match file.shim() {
            Some(info) if info.version > SHIM_VERSION && !force => Err(Diagnostic::new(
                Code::hook_shim_newer,
                format!(
                    "{hook} runs shim v{} from a newer mastermind-hooks; this one writes v{SHIM_VERSION}",
                    info.version
                ),
            )
            .with_path(path)),
            Some(_) if file.bytes == shim && file.executable => Ok(InstallStep::Unchanged),
            Some(_) if file.bytes == shim => Ok(InstallStep::MakeExecutable),
            Some(info) => Ok(InstallStep::Replace {
                from_version: info.version,
            }),
            None => {
                if let Some(manager) = Manager::detect(&file.bytes) {
                    return Err(Diagnostic::new(
                        Code::hook_manager_present,
                        format!(
                            "{hook} is {}'s hook script; wrapping it would break {}, so nothing was installed. Add the gate to {}'s configuration instead:\n{}",
                            manager.name(),
                            manager.name(),
                            manager.name(),
                            manager.recipe().trim_end()
                        ),
                    )
                    .with_path(path)
                    .with_hint(format!(
                        "Add the lines above to {}'s configuration (recipe: {}); `mastermind-hooks install` is for repositories without a hook manager.",
                        manager.name(),
                        manager.recipe_anchor()
                    )));
                }
                if files.legacy.exists() {
                    return Err(Diagnostic::new(
                        Code::hook_legacy_conflict,
                        format!(
                            "{hook} is a foreign hook and {} already exists, so it cannot be kept there; nothing was installed",
                            files.legacy_path.display()
                        ),
                    )
                    .with_path(path));
                }
                if chains_itself(&file.bytes, &hook.legacy_name()) {
                    return Err(Diagnostic::new(
                        Code::hook_legacy_conflict,
                        format!(
                            "{hook} is a hook that itself runs {} (another hook manager's migration mode?); kept under that name it would run itself, so nothing was installed",
                            hook.legacy_name()
                        ),
                    )
                    .with_path(path)
                    .with_hint(format!(
                        "Run `mastermind-hooks {}` from that hook manager's configuration instead, or remove it and install again.",
                        hook.gate_command()
                    )));
                }
                Ok(InstallStep::KeepForeign {
                    symlink: file.symlink_target.is_some(),
                })
            }
        },
    }
}

/// Does the hook's text name `<hook>.legacy`? Such a hook (the pre-commit
/// framework in migration mode, for one) looks for its own predecessor
/// there, so renaming it to that name makes it run itself.
fn chains_itself(bytes: &[u8], legacy_name: &str) -> bool {
    let needle = legacy_name.as_bytes();
    bytes.windows(needle.len()).any(|window| window == needle)
}

/// What uninstall does at one hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UninstallStep {
    /// Neither our shim nor a kept hook: nothing to do.
    NothingInstalled,
    /// A foreign hook: not ours, left alone.
    LeaveForeign,
    /// Our shim, nothing kept: delete it.
    Remove,
    /// Our shim and a kept hook: move `<hook>.legacy` back over the shim.
    RestoreLegacy,
    /// No shim of ours, but a `<hook>.legacy`: left alone (it may belong to
    /// another tool), with a warning.
    LeaveOrphanLegacy,
}

impl UninstallStep {
    pub fn changes_anything(self) -> bool {
        matches!(self, UninstallStep::Remove | UninstallStep::RestoreLegacy)
    }

    pub fn describe(self, files: &HookFiles) -> String {
        let legacy = files.hook.legacy_name();
        match self {
            UninstallStep::NothingInstalled => "not installed, nothing to do".into(),
            UninstallStep::LeaveForeign => "not a mastermind-hooks shim, left alone".into(),
            UninstallStep::Remove => "removed the shim".into(),
            UninstallStep::RestoreLegacy => {
                format!("removed the shim and put the hook kept as {legacy} back")
            }
            UninstallStep::LeaveOrphanLegacy => format!(
                "no shim installed; {legacy} left in place (rename it to {} if it is yours)",
                files.hook.name()
            ),
        }
    }
}

/// Decide uninstall at one hook.
pub fn uninstall(files: &HookFiles) -> UninstallStep {
    let ours = files.current.shim().is_some();
    match (&files.current, ours, &files.legacy) {
        (_, true, Entry::File(_)) => UninstallStep::RestoreLegacy,
        (_, true, _) => UninstallStep::Remove,
        (Entry::Absent, false, Entry::Absent) => UninstallStep::NothingInstalled,
        (Entry::Absent, false, _) => UninstallStep::LeaveOrphanLegacy,
        (_, false, _) => UninstallStep::LeaveForeign,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::Hook;
    use crate::install::files::FileEntry;
    use crate::install::shim::render;
    use std::path::PathBuf;

    fn file(bytes: &[u8], executable: bool) -> Entry {
        Entry::File(FileEntry {
            bytes: bytes.to_vec(),
            complete: true,
            executable,
            symlink_target: None,
        })
    }

    fn files(current: Entry, legacy: Entry) -> HookFiles {
        HookFiles {
            hook: Hook::PreCommit,
            path: PathBuf::from("/r/.git/hooks/pre-commit"),
            legacy_path: PathBuf::from("/r/.git/hooks/pre-commit.legacy"),
            current,
            legacy,
        }
    }

    const FOREIGN: &[u8] = b"#!/bin/sh\nmake lint\n";

    #[test]
    fn install_decisions() {
        let shim = render(Hook::PreCommit, b"/bin/mh");
        let step = |current, legacy| install(&files(current, legacy), &shim, false);
        assert_eq!(
            step(Entry::Absent, Entry::Absent),
            Ok(InstallStep::Create {
                legacy_waiting: false
            })
        );
        assert_eq!(
            step(Entry::Absent, file(FOREIGN, true)),
            Ok(InstallStep::Create {
                legacy_waiting: true
            })
        );
        assert_eq!(
            step(file(&shim, true), Entry::Absent),
            Ok(InstallStep::Unchanged)
        );
        assert_eq!(
            step(file(&shim, false), Entry::Absent),
            Ok(InstallStep::MakeExecutable)
        );
        let elsewhere = render(Hook::PreCommit, b"/old/mh");
        assert_eq!(
            step(file(&elsewhere, true), Entry::Absent),
            Ok(InstallStep::Replace {
                from_version: SHIM_VERSION
            })
        );
        let old = b"#!/bin/sh\n# mastermind-hooks shim v0\nexec mh\n";
        assert_eq!(
            step(file(old, true), file(FOREIGN, true)),
            Ok(InstallStep::Replace { from_version: 0 })
        );
        assert_eq!(
            step(file(FOREIGN, true), Entry::Absent),
            Ok(InstallStep::KeepForeign { symlink: false })
        );
        // Non-executable foreign hooks are kept too (git ignores them; so
        // does the shim, which only runs an executable .legacy).
        assert_eq!(
            step(file(FOREIGN, false), Entry::Absent),
            Ok(InstallStep::KeepForeign { symlink: false })
        );
    }

    #[test]
    fn install_refuses_what_it_cannot_do_safely() {
        let shim = render(Hook::PreCommit, b"/bin/mh");
        let code = |current, legacy, force| {
            install(&files(current, legacy), &shim, force)
                .unwrap_err()
                .code
        };
        assert_eq!(
            code(file(FOREIGN, true), file(b"x", true), true),
            Code::hook_legacy_conflict
        );
        let framework = b"#!/usr/bin/env bash\n# legacy: .git/hooks/pre-commit.legacy\n";
        assert_eq!(
            code(file(framework, true), Entry::Absent, true),
            Code::hook_legacy_conflict
        );
        // A hook manager's script is never wrapped, even with --force.
        let lefthook = b"#!/bin/sh\ncall_lefthook()\n{\n  lefthook \"$@\"\n}\n";
        assert_eq!(
            code(file(lefthook, true), Entry::Absent, true),
            Code::hook_manager_present
        );
        assert_eq!(
            code(
                Entry::Other {
                    kind: "a directory"
                },
                Entry::Absent,
                true
            ),
            Code::hook_file_unusable
        );
        let newer = b"#!/bin/sh\n# mastermind-hooks shim v9\n";
        assert_eq!(
            code(file(newer, true), Entry::Absent, false),
            Code::hook_shim_newer
        );
        assert_eq!(
            install(&files(file(newer, true), Entry::Absent), &shim, true),
            Ok(InstallStep::Replace { from_version: 9 })
        );
    }

    #[test]
    fn a_symlinked_hook_is_never_ours() {
        let shim = render(Hook::PreCommit, b"/bin/mh");
        let link = |bytes: &[u8]| {
            Entry::File(FileEntry {
                bytes: bytes.to_vec(),
                complete: true,
                executable: true,
                symlink_target: Some(PathBuf::from("../../shared/pre-commit")),
            })
        };
        assert_eq!(
            install(&files(link(FOREIGN), Entry::Absent), &shim, false),
            Ok(InstallStep::KeepForeign { symlink: true })
        );
        // A link to a shim is not ours to rewrite or delete; and as the shim
        // names pre-commit.legacy, keeping it there is refused too.
        assert_eq!(
            install(&files(link(&shim), Entry::Absent), &shim, false)
                .unwrap_err()
                .code,
            Code::hook_legacy_conflict
        );
        assert_eq!(
            uninstall(&files(link(&shim), Entry::Absent)),
            UninstallStep::LeaveForeign
        );
    }

    #[test]
    fn uninstall_decisions() {
        let shim = render(Hook::PreCommit, b"/bin/mh");
        let step = |current, legacy| uninstall(&files(current, legacy));
        assert_eq!(
            step(Entry::Absent, Entry::Absent),
            UninstallStep::NothingInstalled
        );
        assert_eq!(
            step(file(&shim, true), Entry::Absent),
            UninstallStep::Remove
        );
        assert_eq!(
            step(file(&shim, false), file(FOREIGN, true)),
            UninstallStep::RestoreLegacy
        );
        assert_eq!(
            step(file(FOREIGN, true), Entry::Absent),
            UninstallStep::LeaveForeign
        );
        assert_eq!(
            step(file(FOREIGN, true), file(FOREIGN, true)),
            UninstallStep::LeaveForeign
        );
        assert_eq!(
            step(Entry::Absent, file(FOREIGN, true)),
            UninstallStep::LeaveOrphanLegacy
        );
        assert_eq!(
            step(
                file(&shim, true),
                Entry::Other {
                    kind: "a directory"
                }
            ),
            UninstallStep::Remove
        );
    }
}

//! The filesystem effects of a plan, each atomic where the filesystem allows:
//!
//! * a shim is written to a temporary file in the hooks directory, given its
//!   mode (0755), synced, then renamed over the hook path, so git sees the
//!   old file or the new one, never half of one;
//! * a foreign hook is kept by hard-linking it to `<hook>.legacy` (which
//!   fails if that name exists, so nothing is clobbered) before the shim is
//!   renamed over it: at no moment is the hook path empty. Where hard links
//!   are not possible (and for symlinks) it is renamed after checking the
//!   name is free. Either way the kept hook is the same inode or link:
//!   bytes, mode and mtime unchanged. If writing the shim then fails, the
//!   hook is put back;
//! * uninstall renames `<hook>.legacy` back over the shim in one step.

use super::files::HookFiles;
use super::plan::{InstallStep, UninstallStep};
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use std::io::Write;
use std::path::Path;

fn failed(path: &Path, what: &str, error: &std::io::Error) -> Diagnostic {
    Diagnostic::new(
        Code::hook_write_failed,
        format!("cannot {what} {}: {error}", path.display()),
    )
    .with_path(path.display().to_string())
}

/// Create the hooks directory when git would look for hooks there but it
/// does not exist yet (`git init --template=`, a fresh core.hooksPath):
/// what exists of git's path is taken as it is, what is missing is made
/// without following a link ([`crate::safe_fs::create_dirs`]).
pub fn ensure_dir(dir: &Path) -> Result<(), Diagnostic> {
    crate::safe_fs::create_dirs(dir, 0o777)
        .map(drop)
        .map_err(|e| failed(dir, "create the hooks directory", &e.into()))
}

/// Carry out an install step.
pub fn install(files: &HookFiles, step: &InstallStep, shim: &[u8]) -> Result<(), Diagnostic> {
    match step {
        InstallStep::Unchanged => Ok(()),
        InstallStep::MakeExecutable => {
            make_executable(&files.path).map_err(|e| failed(&files.path, "make executable", &e))
        }
        InstallStep::Create { .. } | InstallStep::Replace { .. } => write_shim(&files.path, shim),
        InstallStep::KeepForeign { symlink } => {
            let kept = keep(&files.path, &files.legacy_path, *symlink)?;
            write_shim(&files.path, shim)
                .inspect_err(|_| kept.undo(&files.path, &files.legacy_path))
        }
    }
}

/// Carry out an uninstall step.
pub fn uninstall(files: &HookFiles, step: UninstallStep) -> Result<(), Diagnostic> {
    match step {
        UninstallStep::Remove => std::fs::remove_file(&files.path)
            .map_err(|e| failed(&files.path, "remove the shim", &e)),
        UninstallStep::RestoreLegacy => std::fs::rename(&files.legacy_path, &files.path)
            .map_err(|e| failed(&files.legacy_path, "move back", &e)),
        UninstallStep::NothingInstalled
        | UninstallStep::LeaveForeign
        | UninstallStep::LeaveOrphanLegacy => Ok(()),
    }
}

/// How a foreign hook was kept, so a failure can undo it.
enum Kept {
    Linked,
    Renamed,
}

impl Kept {
    fn undo(&self, path: &Path, legacy: &Path) {
        // Best effort: the error that made us undo is the one reported.
        let _ = match self {
            Kept::Linked => std::fs::remove_file(legacy),
            Kept::Renamed => std::fs::rename(legacy, path),
        };
    }
}

fn conflict(legacy: &Path) -> Diagnostic {
    Diagnostic::new(
        Code::hook_legacy_conflict,
        format!(
            "{} appeared while installing; the existing hook was left where it was",
            legacy.display()
        ),
    )
    .with_path(legacy.display().to_string())
}

fn keep(path: &Path, legacy: &Path, symlink: bool) -> Result<Kept, Diagnostic> {
    if !symlink {
        match std::fs::hard_link(path, legacy) {
            Ok(()) => return Ok(Kept::Linked),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(conflict(legacy));
            }
            // No hard links here (some network or FUSE filesystems): rename.
            Err(_) => {}
        }
    }
    match std::fs::symlink_metadata(legacy) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Ok(_) => return Err(conflict(legacy)),
        Err(e) => return Err(failed(legacy, "inspect", &e)),
    }
    std::fs::rename(path, legacy)
        .map(|()| Kept::Renamed)
        .map_err(|e| failed(path, "keep the existing hook as", &e))
}

/// Write `bytes` to `path` atomically, executable.
fn write_shim(path: &Path, bytes: &[u8]) -> Result<(), Diagnostic> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".mastermind-hooks.tmp")
        .tempfile_in(dir)
        .map_err(|e| failed(dir, "create a temporary file in", &e))?;
    temp.write_all(bytes)
        .and_then(|()| set_shim_mode(temp.as_file()))
        .and_then(|()| temp.as_file().sync_all())
        .map_err(|e| failed(temp.path(), "write", &e))?;
    temp.persist(path)
        .map_err(|e| failed(path, "rename the new shim to", &e.error))?;
    Ok(())
}

#[cfg(unix)]
fn set_shim_mode(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn set_shim_mode(_file: &std::fs::File) -> std::io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn make_executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> std::io::Result<()> {
    Ok(())
}

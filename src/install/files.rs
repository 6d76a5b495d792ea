//! What is on disk at a hook's path and at its `.legacy` path: the only
//! input [`plan`](super::plan) and [`status`](super::status) decide from.

use super::Hook;
use super::shim::{self, ShimInfo};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Hook files larger than this are foreign: a shim is a few KiB.
pub const MAX_HOOK_BYTES: u64 = 1024 * 1024;

/// One path in the hooks directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Absent,
    /// A regular file, or a symlink (git follows it when running hooks).
    File(FileEntry),
    /// A directory, FIFO, socket or device: nothing git could run.
    Other {
        kind: &'static str,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEntry {
    /// The content (through a symlink), empty when unreadable or larger
    /// than [`MAX_HOOK_BYTES`] (`complete` is then false).
    pub bytes: Vec<u8>,
    pub complete: bool,
    /// Git would run it: it leads to a regular file with an execute bit.
    pub executable: bool,
    /// For a symlink, where it points.
    pub symlink_target: Option<PathBuf>,
}

impl FileEntry {
    /// Our shim, when this is one: a regular file with our marker.
    pub fn shim(&self) -> Option<ShimInfo> {
        if self.symlink_target.is_some() || !self.complete {
            return None;
        }
        shim::parse(&self.bytes)
    }
}

impl Entry {
    pub fn exists(&self) -> bool {
        !matches!(self, Entry::Absent)
    }

    pub fn file(&self) -> Option<&FileEntry> {
        match self {
            Entry::File(file) => Some(file),
            _ => None,
        }
    }

    /// Our shim at this path, if that is what is there.
    pub fn shim(&self) -> Option<ShimInfo> {
        self.file().and_then(FileEntry::shim)
    }
}

/// A hook's two paths and what is at each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookFiles {
    pub hook: Hook,
    pub path: PathBuf,
    pub legacy_path: PathBuf,
    pub current: Entry,
    pub legacy: Entry,
}

/// Look at a hook's files in `dir` (a missing directory holds nothing).
pub fn observe(dir: &Path, hook: Hook) -> std::io::Result<HookFiles> {
    let path = dir.join(hook.name());
    let legacy_path = dir.join(hook.legacy_name());
    Ok(HookFiles {
        hook,
        current: entry(&path)?,
        legacy: entry(&legacy_path)?,
        path,
        legacy_path,
    })
}

fn entry(path: &Path) -> std::io::Result<Entry> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Entry::Absent),
        Err(e) => return Err(e),
    };
    let file_type = meta.file_type();
    let symlink_target = if file_type.is_symlink() {
        Some(std::fs::read_link(path)?)
    } else if file_type.is_file() {
        None
    } else {
        return Ok(Entry::Other {
            kind: if file_type.is_dir() {
                "a directory"
            } else {
                "not a regular file"
            },
        });
    };
    // Through a symlink: what git would run. A dangling link runs nothing.
    let target = match std::fs::metadata(path) {
        Ok(target) if target.is_file() => Some(target),
        _ => None,
    };
    let executable = target
        .as_ref()
        .is_some_and(super::binary::is_executable_mode);
    let (bytes, complete) = match &target {
        Some(target) if target.len() <= MAX_HOOK_BYTES => read_capped(path)?,
        _ => (Vec::new(), false),
    };
    Ok(Entry::File(FileEntry {
        bytes,
        complete,
        executable,
        symlink_target,
    }))
}

fn read_capped(path: &Path) -> std::io::Result<(Vec<u8>, bool)> {
    let file = match crate::safe_fs::open_read(path, crate::safe_fs::Follow::Links) {
        Ok(file) => file,
        // Unreadable (mode 0), or swapped for a FIFO since it was looked
        // at: certainly not a shim we wrote.
        Err(crate::safe_fs::Error::Io(e)) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            return Ok((Vec::new(), false));
        }
        Err(crate::safe_fs::Error::NotRegular(_)) => return Ok((Vec::new(), false)),
        Err(e) => return Err(e.into()),
    };
    let mut bytes = Vec::new();
    file.take(MAX_HOOK_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_HOOK_BYTES {
        return Ok((Vec::new(), false));
    }
    Ok((bytes, true))
}

//! An isolated checkout: exactly the files of one view (the index, a
//! commit, the merge CI judges) written from their blobs into a fresh
//! private temporary directory outside the repository, so ignored,
//! untracked and local-only files cannot take part in a check. Nothing is
//! written to the repository: blobs are read from its object store and
//! materialised here (no index, no objects, no refs).
//!
//! * Paths come from git trees, which a hostile change can craft: every
//!   component must be plain (not empty, `.`, `..` or `.git` in any case),
//!   and every file and directory is created relative to an open directory
//!   with `O_NOFOLLOW`/`O_EXCL`, so a symlink in the tree can never redirect
//!   a write outside the checkout.
//! * Files keep git's modes (0644, 0755), symlinks their target text.
//! * A submodule is written from its own repository at the recorded commit
//!   when its checkout is initialized, else left an empty directory, as in a
//!   fresh clone. Callers refuse a dirty or unrecorded submodule checkout
//!   first ([`super::snapshot::check_submodules`]), outside the deferred
//!   section this runs in, since `git status` can block.
//! * Every file written is remembered with its sha256, so after a check
//!   [`Checkout::verify`] can say which inputs it changed or removed.

use super::snapshot::Changes;
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::repo::Repo;
use crate::repo::tree::{EntryMode, View};
use crate::safe_fs::Dir;
use gix::bstr::{BString, ByteSlice};
use sha2::{Digest, Sha256};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// How deep submodules may nest.
const MAX_SUBMODULE_DEPTH: usize = 8;

/// One file written into the checkout.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Input {
    path: BString,
    mode: EntryMode,
    sha256: [u8; 32],
}

/// Why a checkout could not be made.
#[derive(Debug)]
pub enum Failure {
    /// SIGINT or SIGTERM arrived.
    Interrupted,
    /// A diagnostic saying what was refused or failed.
    Refused(Diagnostic),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Interrupted => f.write_str("interrupted by SIGINT or SIGTERM"),
            Failure::Refused(d) => write!(f, "{} ({})", d.message, d.code.as_str()),
        }
    }
}

impl std::error::Error for Failure {}

fn refused(code: Code, message: String) -> Failure {
    Failure::Refused(Diagnostic::new(code, message))
}

/// A temporary checkout; removed when dropped.
#[derive(Debug)]
pub struct Checkout {
    dir: tempfile::TempDir,
    root: PathBuf,
    inputs: Vec<Input>,
}

/// True when one component may be written.
fn plain_component(name: &[u8]) -> bool {
    !name.is_empty()
        && name != b"."
        && name != b".."
        && !name.eq_ignore_ascii_case(b".git")
        && !name.contains(&0)
}

/// The temporary directory, outside the repository at `avoid`.
fn temporary(avoid: Option<&Path>) -> Result<(tempfile::TempDir, PathBuf), Failure> {
    let failed = |e: std::io::Error| {
        refused(
            Code::verification_isolation_failed,
            format!("cannot create a temporary directory for the isolated checkout: {e}"),
        )
    };
    let dir = tempfile::Builder::new()
        .prefix("mastermind-hooks-checkout-")
        .tempdir()
        .map_err(failed)?;
    let root = std::fs::canonicalize(dir.path()).map_err(failed)?;
    if let Some(avoid) = avoid.and_then(|a| std::fs::canonicalize(a).ok())
        && root.starts_with(&avoid)
    {
        return Err(refused(
            Code::verification_isolation_failed,
            format!(
                "the temporary directory {} is inside the repository {}; point TMPDIR outside it",
                root.display(),
                avoid.display()
            ),
        ));
    }
    Ok((dir, root))
}

/// Writes one view (and its submodules) below an open directory.
struct Writer<'a> {
    interrupt: &'a AtomicBool,
    inputs: Vec<Input>,
}

impl Writer<'_> {
    fn write_view(
        &mut self,
        repo: &Repo,
        view: &View,
        into: Dir,
        prefix: &[u8],
        worktree: Option<&Path>,
        depth: usize,
    ) -> Result<(), Failure> {
        let unsafe_path = |path: &[u8], why: String| {
            refused(
                Code::verification_isolation_failed,
                format!(
                    "cannot write `{}` into the isolated checkout: {why}",
                    super::echo::escape(path)
                ),
            )
        };
        // The open directories of the current path, root first; sorted
        // paths keep every directory's entries together.
        let mut stack: Vec<(Vec<u8>, Dir)> = vec![(Vec::new(), into)];
        for (count, (path, entry)) in view.entries().enumerate() {
            if count % 256 == 0 && self.interrupt.load(Ordering::SeqCst) {
                return Err(Failure::Interrupted);
            }
            let components: Vec<&[u8]> = path.split(|&b| b == b'/').collect();
            if components.iter().any(|c| !plain_component(c)) {
                return Err(unsafe_path(
                    path,
                    "a path component is empty, `.`, `..` or `.git`".into(),
                ));
            }
            let (name, dirs) = components
                .split_last()
                .ok_or_else(|| unsafe_path(path, "the path is empty".into()))?;
            let keep = stack
                .iter()
                .skip(1)
                .zip(dirs.iter())
                .take_while(|((open, _), wanted)| open.as_slice() == **wanted)
                .count();
            stack.truncate(keep + 1);
            for dir in &dirs[keep..] {
                let parent = &stack[stack.len() - 1].1;
                let child = parent
                    .child_dir(OsStr::from_bytes(dir), true)
                    .map_err(|e| unsafe_path(path, format!("a directory on the way {e}")))?;
                stack.push((dir.to_vec(), child));
            }
            let parent = &stack[stack.len() - 1].1;
            let name = OsStr::from_bytes(name);
            let mut full = prefix.to_vec();
            full.extend_from_slice(path);
            match entry.mode {
                EntryMode::Submodule => {
                    let dir = parent
                        .child_dir(name, true)
                        .map_err(|e| unsafe_path(path, format!("it {e}")))?;
                    let on_disk = worktree.map(|w| w.join(OsStr::from_bytes(path)));
                    self.submodule(&full, entry.oid, dir, on_disk.as_deref(), depth)?;
                }
                mode => {
                    let blob = repo.gix().find_blob(entry.oid).map_err(|e| {
                        refused(
                            Code::git_object_unavailable,
                            format!(
                                "cannot read blob {} of `{}`: {e}",
                                entry.oid,
                                super::echo::escape(path)
                            ),
                        )
                    })?;
                    let written = if mode == EntryMode::Symlink {
                        parent.create_symlink(name, &blob.data)
                    } else {
                        let permissions = if mode == EntryMode::Executable {
                            0o755
                        } else {
                            0o644
                        };
                        parent.create_file(name, &blob.data, permissions).map(drop)
                    };
                    written.map_err(|e| unsafe_path(path, format!("it {e}")))?;
                    self.inputs.push(Input {
                        path: full.into(),
                        mode,
                        sha256: Sha256::digest(&blob.data).into(),
                    });
                }
            }
        }
        Ok(())
    }

    fn submodule(
        &mut self,
        path: &[u8],
        recorded: gix::ObjectId,
        into: Dir,
        on_disk: Option<&Path>,
        depth: usize,
    ) -> Result<(), Failure> {
        let shown = super::echo::escape(path);
        let Some(on_disk) = on_disk else {
            return Ok(());
        };
        let unusable = |why: String| {
            refused(
                Code::verification_submodule_unusable,
                format!("submodule `{shown}` {why}"),
            )
        };
        // Whether the checkout is clean and at the recorded commit was
        // settled before the checkout began (snapshot::check_submodules);
        // here only: initialized or not.
        match std::fs::symlink_metadata(on_disk.join(".git")) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(unusable(format!("cannot be inspected: {e}"))),
            Ok(_) => {}
        }
        if depth >= MAX_SUBMODULE_DEPTH {
            return Err(unusable(format!(
                "nests submodules more than {MAX_SUBMODULE_DEPTH} deep"
            )));
        }
        let sub = Repo::open(on_disk).map_err(|e| unusable(e.message))?;
        let view = View::from_commit(&sub, recorded).map_err(|e| unusable(e.message))?;
        let mut prefix = path.to_vec();
        prefix.push(b'/');
        self.write_view(&sub, &view, into, &prefix, Some(on_disk), depth + 1)
    }
}

impl Checkout {
    /// Write every file of `view` into a new temporary directory outside
    /// `worktree` (where the view's submodule checkouts are looked for).
    pub fn materialize(
        repo: &Repo,
        view: &View,
        worktree: Option<&Path>,
        interrupt: &AtomicBool,
    ) -> Result<Checkout, Failure> {
        // Interrupted, the checkout is removed before the runner ends.
        let _finish_first = super::signals::defer();
        let (dir, root) = temporary(worktree)?;
        let top = Dir::open(&root).map_err(|e| {
            refused(
                Code::verification_isolation_failed,
                format!("cannot open {}: it {e}", root.display()),
            )
        })?;
        let mut writer = Writer {
            interrupt,
            inputs: Vec::with_capacity(view.len()),
        };
        writer.write_view(repo, view, top, b"", worktree, 0)?;
        Ok(Checkout {
            dir,
            root,
            inputs: writer.inputs,
        })
    }

    /// The checkout's root directory (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Files written (submodule contents included).
    pub fn len(&self) -> usize {
        self.inputs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    /// Which written files a check changed (content, mode, kind) or
    /// removed. Files it added are not inputs and do not count.
    pub fn verify(&self) -> Changes {
        let mut changes = Changes::default();
        let mut parent: Option<(Vec<u8>, Option<Dir>)> = None;
        for input in &self.inputs {
            let (dir_part, name) = match input.path.rfind_byte(b'/') {
                Some(at) => (&input.path[..at], &input.path[at + 1..]),
                None => (&b""[..], &input.path[..]),
            };
            if parent
                .as_ref()
                .is_none_or(|(p, _)| p.as_slice() != dir_part)
            {
                parent = Some((dir_part.to_vec(), open_below(&self.root, dir_part)));
            }
            let shown = super::echo::escape(&input.path);
            let Some((_, Some(dir))) = &parent else {
                changes.vanished.push(shown);
                continue;
            };
            match hash_entry(dir, OsStr::from_bytes(name)) {
                None => changes.vanished.push(shown),
                Some((mode, sha)) if mode != input.mode || sha != input.sha256 => {
                    changes.changed.push(shown);
                }
                Some(_) => {}
            }
        }
        changes
    }

    /// Remove the checkout now (it is removed on drop anyway).
    pub fn remove(self) {
        let _ = self.dir.close();
    }
}

/// Open a directory below `root` without following links.
fn open_below(root: &Path, relative: &[u8]) -> Option<Dir> {
    let mut dir = Dir::open(root).ok()?;
    for component in relative.split(|&b| b == b'/').filter(|c| !c.is_empty()) {
        dir = dir.child_dir(OsStr::from_bytes(component), false).ok()?;
    }
    Some(dir)
}

/// The mode and sha256 of one entry, never following a link; `None` when
/// it is gone or is neither a file nor a link.
fn hash_entry(dir: &Dir, name: &OsStr) -> Option<(EntryMode, [u8; 32])> {
    let stat = rustix::fs::statat(dir.fd(), name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()?;
    let kind = rustix::fs::FileType::from_raw_mode(stat.st_mode);
    if kind == rustix::fs::FileType::Symlink {
        let target = rustix::fs::readlinkat(dir.fd(), name, Vec::new()).ok()?;
        return Some((EntryMode::Symlink, Sha256::digest(target.as_bytes()).into()));
    }
    let file = dir.open_file(name).ok()?;
    let executable = file
        .metadata()
        .map(|m| {
            use std::os::unix::fs::PermissionsExt;
            m.permissions().mode() & 0o100 != 0
        })
        .ok()?;
    let mode = if executable {
        EntryMode::Executable
    } else {
        EntryMode::Regular
    };
    let mut hasher = Sha256::new();
    let mut reader = file;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        match std::io::Read::read(&mut reader, &mut buffer) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some((mode, hasher.finalize().into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_components_are_written() {
        for bad in [&b""[..], b".", b"..", b".git", b".GIT", b".Git", b"a\0b"] {
            assert!(!plain_component(bad), "{bad:?}");
        }
        for good in [&b"a"[..], b".gitignore", b".github", b"...", b"git"] {
            assert!(plain_component(good), "{good:?}");
        }
    }
}

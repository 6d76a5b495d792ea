//! A task's `verification/` directory as the runner writes it: created and
//! opened without following links (a symlinked `verification/` or
//! `run.lock` is refused, so nothing is ever created outside the
//! repository), the lock taken without blocking (a FIFO planted as
//! `run.lock` is refused, never waited on), and receipts replaced
//! atomically relative to the open directory.
//!
//! An isolated run keeps its attempts [`Aside`], under the git directory
//! (`<git-dir>/mastermind-hooks/isolated/<task>/<id>.tree.json`), so a run
//! in a clean worktree that fails never destroys the record of an earlier
//! run; only a pass replaces the task's receipt.

use crate::codes::Code;
use crate::contract::mastermind::tree_receipt::{MAX_TREE_RECEIPT_BYTES, TreeReceipt};
use crate::diagnostic::Diagnostic;
use crate::safe_fs::{self, Dir, Durability};
use std::fs::File;
use std::path::Path;

/// The open `verification/` directory of one task, its lock held.
#[derive(Debug)]
pub struct Records {
    dir: Dir,
    /// Repository-relative path of the directory.
    relative: String,
    /// Held for as long as this value lives.
    lock: File,
    /// True when this run created `run.lock`: it then removes it when done,
    /// so the lock never lingers to be committed (a lock the reference
    /// runner keeps is left alone).
    created_lock: bool,
}

impl Drop for Records {
    fn drop(&mut self) {
        // Still holding the lock: a runner that opened the file meanwhile
        // finds it no longer named and takes a fresh one.
        if self.created_lock && self.dir.still_names("run.lock", &self.lock) {
            let _ = self.dir.remove_file("run.lock");
        }
    }
}

fn unsafe_path(relative: &str, error: &safe_fs::Error) -> Diagnostic {
    Diagnostic::new(
        Code::verification_path_unsafe,
        format!(
            "verification_path_unsafe: {} {error}; the runner never writes through links or special files",
            super::echo::escape(relative.as_bytes())
        ),
    )
    .with_path(relative.to_string())
    .with_hint(format!(
        "Remove it (`rm -- {}`) so the runner can create it as a plain file or directory, then run again.",
        super::echo::escape(
            crate::contract::mastermind::argv_display::display_command(&[relative.to_string()]).as_bytes()
        )
    ))
}

impl Records {
    /// Open (creating) `<task>/verification/` below the task directory
    /// `task` (repository-relative `task_rel`) and take its `run.lock`.
    pub fn open(task: &Dir, task_rel: &str, rerun_hint: &str) -> Result<Records, Diagnostic> {
        let relative = if task_rel.is_empty() {
            "verification".to_string()
        } else {
            format!("{task_rel}/verification")
        };
        let dir = task
            .child_dir("verification", true)
            .map_err(|e| unsafe_path(&relative, &e))?;
        let lock_rel = super::echo::escape(format!("{relative}/run.lock").as_bytes());
        // A lock file another runner removed between our open and our lock
        // guards nothing: take it again (a few times at most).
        let mut attempt = 0;
        let (lock, created_lock) = loop {
            attempt += 1;
            let (lock, created) = dir.open_lock_created("run.lock").map_err(|e| match e {
                safe_fs::Error::Symlink | safe_fs::Error::NotRegular(_) => {
                    unsafe_path(&lock_rel, &e)
                }
                other => Diagnostic::new(
                    Code::verification_io_failed,
                    format!("cannot open {lock_rel}: {other}"),
                ),
            })?;
            match lock.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(Diagnostic::new(
                        Code::verification_busy,
                        format!("verification_busy: another runner holds {lock_rel}"),
                    )
                    .with_path(lock_rel)
                    .with_hint(format!(
                        "Wait for the other run to finish, then run again: `{rerun_hint}`"
                    )));
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(Diagnostic::new(
                        Code::verification_io_failed,
                        format!("cannot lock {lock_rel}: {e}"),
                    ));
                }
            }
            if dir.still_names("run.lock", &lock) {
                break (lock, created);
            }
            if attempt >= 3 {
                return Err(Diagnostic::new(
                    Code::verification_busy,
                    format!("verification_busy: {lock_rel} keeps changing under this runner"),
                )
                .with_path(lock_rel)
                .with_hint(format!("Run again: `{rerun_hint}`")));
            }
        };
        Ok(Records {
            dir,
            relative,
            lock,
            created_lock,
        })
    }

    /// The repository-relative path of a check's tree receipt.
    pub fn receipt_path(&self, id: &str) -> String {
        format!("{}/{id}.tree.json", self.relative)
    }

    /// The absolute path of a check's tree receipt (for messages).
    pub fn receipt_file(&self, id: &str) -> std::path::PathBuf {
        self.dir.join(format!("{id}.tree.json"))
    }

    /// The `attempt` of the check's current receipt (0 when there is none
    /// or it cannot be read).
    pub fn previous_attempt(&self, id: &str) -> u64 {
        self.dir
            .read_bounded(format!("{id}.tree.json"), MAX_TREE_RECEIPT_BYTES)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .and_then(|v| v.get("attempt").and_then(serde_json::Value::as_u64))
            .unwrap_or(0)
    }

    /// Replace the check's receipt atomically (mode 0600), flushed to disk.
    pub fn write(&self, receipt: &TreeReceipt) -> Result<(), Diagnostic> {
        self.replace(receipt, Durability::Synced)
    }

    /// Replace the check's receipt with a `pending` one, atomically but not
    /// flushed: it must replace an older result for every reader at once
    /// (and so it does, across the runner's death), while a power loss that
    /// brought the older result back would bring back its tree digest too,
    /// which the gate compares with what lands. The final receipt is
    /// flushed ([`Records::write`]).
    pub fn write_pending(&self, receipt: &TreeReceipt) -> Result<(), Diagnostic> {
        self.replace(receipt, Durability::Atomic)
    }

    fn replace(&self, receipt: &TreeReceipt, durability: Durability) -> Result<(), Diagnostic> {
        let path = self.receipt_path(&receipt.check_id);
        replace_receipt(&self.dir, receipt, durability, |e| {
            Diagnostic::new(
                Code::verification_io_failed,
                format!("cannot write {}: {e}", super::echo::escape(path.as_bytes())),
            )
            .with_path(path.clone())
        })
    }

    /// The directory, for messages.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Put `receipt` in `dir` as `<check id>.tree.json`, replacing what was
/// there at once (mode 0600) with the `durability` asked for; a signal
/// meanwhile waits until it is done. `failed` words an error.
fn replace_receipt(
    dir: &Dir,
    receipt: &TreeReceipt,
    durability: Durability,
    failed: impl Fn(String) -> Diagnostic,
) -> Result<(), Diagnostic> {
    let _finish_first = super::signals::defer();
    let mut bytes = serde_json::to_vec_pretty(receipt).map_err(|e| failed(e.to_string()))?;
    bytes.push(b'\n');
    dir.replace(
        format!("{}.tree.json", receipt.check_id),
        &bytes,
        durability,
    )
    .map_err(|e| failed(e.to_string()))
}

/// Where an isolated run keeps its attempts: a private directory under the
/// git directory, never part of a tree.
#[derive(Debug)]
pub struct Aside {
    dir: Dir,
}

impl Aside {
    /// Open (creating, mode 0700) the aside directory of the task
    /// `task_rel` under `git_dir`.
    pub fn open(git_dir: &Path, task_rel: &str) -> Result<Aside, Diagnostic> {
        let mut path = git_dir.join("mastermind-hooks").join("isolated");
        for part in task_rel.split('/').filter(|p| !p.is_empty()) {
            path.push(part);
        }
        let dir = safe_fs::create_dirs(&path, 0o700).map_err(|e| {
            Diagnostic::new(
                Code::verification_io_failed,
                format!("cannot open {}: {e}", path.display()),
            )
        })?;
        Ok(Aside { dir })
    }

    /// Where the check's attempt is kept.
    pub fn path(&self, id: &str) -> std::path::PathBuf {
        self.dir.join(format!("{id}.tree.json"))
    }

    /// Replace the check's kept attempt atomically (mode 0600), flushed to
    /// disk.
    pub fn write(&self, receipt: &TreeReceipt) -> Result<(), Diagnostic> {
        self.replace(receipt, Durability::Synced)
    }

    /// Replace the check's kept attempt with a `pending` one, atomically but
    /// not flushed (as [`Records::write_pending`]).
    pub fn write_pending(&self, receipt: &TreeReceipt) -> Result<(), Diagnostic> {
        self.replace(receipt, Durability::Atomic)
    }

    fn replace(&self, receipt: &TreeReceipt, durability: Durability) -> Result<(), Diagnostic> {
        replace_receipt(&self.dir, receipt, durability, |e| {
            Diagnostic::new(
                Code::verification_io_failed,
                format!(
                    "cannot write {}: {e}",
                    self.path(&receipt.check_id).display()
                ),
            )
        })
    }

    /// Forget the check's kept attempt (it passed and took the receipt's
    /// place).
    pub fn remove(&self, id: &str) {
        let _ = self.dir.remove_file(format!("{id}.tree.json"));
    }
}

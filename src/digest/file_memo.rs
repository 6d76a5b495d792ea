//! The sha256 of large local files (a check's executable: `node` is 95 MiB,
//! rustup's `cargo` 20 MiB) remembered by the identity of the file, so a
//! hook compares an executable with its receipt without reading it again.
//!
//! **The identity.** A file's version on this machine is named by its
//! canonical path and the stat fields any change of its content moves:
//! device, inode, size, mode, owner, and the modification and status-change
//! times to the nanosecond ([`Identity`]). Writing into the file moves its
//! mtime and ctime; replacing it makes a new inode, whose ctime is the time
//! of the replacement, and no unprivileged process can set a ctime. This is
//! the trust git places in its index's stat data for the working tree.
//!
//! **Racy files are never remembered.** A file whose mtime or ctime is less
//! than [`RACY_SECONDS`] before the moment it was hashed could be written
//! again within the same timestamp (coarse clocks, FAT's two seconds) and
//! keep its identity: it is hashed every time until it is older. A file is
//! hashed through one descriptor whose stat is taken before and after the
//! read; if the two differ, it changed while being read and is not
//! remembered either.
//!
//! **The table.** Rows live in the authenticated layout of
//! [`crate::digest::cache`] (table `executables`, a tag per row under the
//! per-user key), keyed by the first bytes of the identity's SHA-256 so
//! that they have the width of the repository's object ids. A row planted
//! without the key never verifies. Only the local modes open it:
//! `check --ci`, pre-receive and a CI re-run hash every executable.
//!
//! Files below [`MEMO_MIN_BYTES`] are hashed outright: reading the table
//! costs more than hashing them.

use super::cache::{LazyTable, Sha256Cache};
use crate::repo::Repo;
use gix::ObjectId;
use sha2::{Digest, Sha256};
use std::path::Path;
use std::time::{Duration, SystemTime};

/// The stem of the table (see [`Sha256Cache::open_named`]).
pub const EXECUTABLES_STEM: &str = "executables";

/// Files smaller than this are not looked up: hashing 256 KiB takes about
/// as long as opening the table.
pub const MEMO_MIN_BYTES: u64 = 256 * 1024;

/// How long ago a file's last change must be for its identity to be
/// trusted: more than the coarsest timestamp git's platforms keep (FAT's
/// two seconds).
pub const RACY_SECONDS: u64 = 3;

/// One version of one file on this machine (see the module's doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity([u8; 32]);

impl Identity {
    /// The identity of the file `path` whose stat is `metadata`, as of
    /// `now`; `None` when the file changed less than [`RACY_SECONDS`]
    /// before `now` (or claims a time after it), and on platforms without
    /// inode numbers and change times.
    #[cfg(unix)]
    pub fn of(path: &Path, metadata: &std::fs::Metadata, now: SystemTime) -> Option<Identity> {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::MetadataExt;
        let settled = now.checked_sub(Duration::from_secs(RACY_SECONDS))?;
        let since_epoch = |secs: i64, nanos: i64| -> Option<SystemTime> {
            let secs = u64::try_from(secs).ok()?;
            let nanos = u32::try_from(nanos).ok()?;
            SystemTime::UNIX_EPOCH.checked_add(Duration::new(secs, nanos))
        };
        for (secs, nanos) in [
            (metadata.mtime(), metadata.mtime_nsec()),
            (metadata.ctime(), metadata.ctime_nsec()),
        ] {
            if since_epoch(secs, nanos)? > settled {
                return None;
            }
        }
        let mut hasher = Sha256::new();
        hasher.update(b"mmh-file-identity v1\0");
        let path = path.as_os_str().as_bytes();
        hasher.update((path.len() as u64).to_le_bytes());
        hasher.update(path);
        for field in [
            metadata.dev(),
            metadata.ino(),
            metadata.size(),
            u64::from(metadata.mode()),
            u64::from(metadata.uid()),
        ] {
            hasher.update(field.to_le_bytes());
        }
        for field in [
            metadata.mtime(),
            metadata.mtime_nsec(),
            metadata.ctime(),
            metadata.ctime_nsec(),
        ] {
            hasher.update(field.to_le_bytes());
        }
        Some(Identity(hasher.finalize().into()))
    }

    /// No identity where the platform has no inode numbers or change times.
    #[cfg(not(unix))]
    pub fn of(_: &Path, _: &std::fs::Metadata, _: SystemTime) -> Option<Identity> {
        None
    }

    /// The row id in a table whose ids are `len` bytes wide.
    fn row_id(&self, len: usize) -> Option<ObjectId> {
        ObjectId::try_from(self.0.get(..len)?).ok()
    }
}

/// The table of remembered file digests for one run, opened on first need
/// and saved when dropped.
pub struct FileMemo<'r> {
    table: LazyTable<'r>,
}

impl<'r> FileMemo<'r> {
    /// The memo of `repo`'s local table; `allowed` false (CI, pre-receive)
    /// gives [`FileMemo::none`].
    pub fn new(repo: &'r Repo, allowed: bool) -> FileMemo<'r> {
        FileMemo {
            table: LazyTable::new(allowed.then_some(repo), EXECUTABLES_STEM),
        }
    }

    /// A memo that remembers nothing: every file is hashed.
    pub fn none() -> FileMemo<'static> {
        FileMemo {
            table: LazyTable::new(None, EXECUTABLES_STEM),
        }
    }

    /// A memo over an explicitly opened table (tests and benchmarks).
    pub fn with_table(table: Sha256Cache) -> FileMemo<'static> {
        FileMemo {
            table: LazyTable::opened(table),
        }
    }

    /// Whether a file of `len` bytes is worth looking up.
    pub fn wanted(&self, len: u64) -> bool {
        len >= MEMO_MIN_BYTES && self.table.available()
    }

    /// The remembered sha256 of the file version `identity`.
    pub fn get(&mut self, identity: &Identity) -> Option<[u8; 32]> {
        let table = self.table.get()?;
        let id = identity.row_id(table.format().id_len())?;
        table.get(&id)
    }

    /// Remember `sha256`, computed from the bytes of the file version
    /// `identity`.
    pub fn insert(&mut self, identity: &Identity, sha256: [u8; 32]) {
        if let Some(table) = self.table.get()
            && let Some(id) = identity.row_id(table.format().id_len())
        {
            table.insert(&id, sha256);
        }
    }

    /// Rows learned by this run and not yet saved.
    pub fn fresh_len(&self) -> usize {
        self.table.if_opened().map_or(0, Sha256Cache::fresh_len)
    }

    /// Write what was learned (also done when the memo is dropped).
    pub fn save(&mut self) {
        self.table.save();
    }
}

impl Drop for FileMemo<'_> {
    fn drop(&mut self) {
        self.save();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identity_needs_a_settled_file_and_names_its_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tool");
        std::fs::write(&path, b"one").unwrap();
        let first = std::fs::metadata(&path).unwrap();
        let now = SystemTime::now();
        assert_eq!(Identity::of(&path, &first, now), None, "changed just now");
        let later = now + Duration::from_secs(RACY_SECONDS + 1);
        let id = Identity::of(&path, &first, later).unwrap();
        assert_eq!(Identity::of(&path, &first, later), Some(id));
        assert_ne!(
            Identity::of(&dir.path().join("other"), &first, later),
            Some(id),
            "the path is part of the identity"
        );
        std::thread::sleep(Duration::from_millis(30));
        std::fs::write(&path, b"two").unwrap();
        let second = std::fs::metadata(&path).unwrap();
        assert_ne!(Identity::of(&path, &second, later), Some(id));
    }

    #[test]
    fn a_memo_that_may_not_read_the_table_holds_nothing() {
        let mut memo = FileMemo::none();
        assert!(!memo.wanted(u64::MAX));
        let identity = Identity([1; 32]);
        memo.insert(&identity, [2; 32]);
        assert_eq!(memo.get(&identity), None);
        assert_eq!(memo.fresh_len(), 0);
    }
}

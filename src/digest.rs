//! Snapshot digests: what a verification receipt says its check ran on.
//!
//! * **tree-v2** (this project's, any view, written by the runner since
//!   version 2 of the tree receipt): a Merkle hash over directories that
//!   covers everything but the agents' bookkeeping, in [`merkle`], with
//!   [`TreeDigester`] the entry point for every view and commit tree.
//! * **tree-v1** (the first version, still checked for receipts that
//!   recorded it; everything outside `.mastermind/`): the assembly below is pure, an
//!   iterator of `(path, mode, sha256(content))` in, a hex digest out. The
//!   edges that read a view's blobs or the working tree's files are in
//!   [`view`]; the sha256-by-blob-id cache is in [`cache`], and the
//!   sha256 of large local files (executables) by their stat identity in
//!   [`file_memo`].
//! * **Mastermind snapshot v1** (the reference's, working tree only): in
//!   [`snapshot_v1`].
//!
//! tree-v1 byte layout (SHA-256 over the concatenation, lowercase hex out):
//!
//! ```text
//! "mastermind-hooks-tree-v1" 0x00
//! for every file of the view whose path does not start with ".mastermind/",
//! in ascending order of the path's bytes:
//!     path bytes                      (git's path, `/`-separated, never NUL)
//!     0x00
//!     mode as octal ASCII             ("100644", "100755", "120000" or "160000")
//!     0x00
//!     sha256(content), 32 raw bytes
//! ```
//!
//! `content` is the blob's bytes for a file; the link target's bytes for a
//! symlink (never followed); for a submodule (gitlink) the recorded commit
//! id as lowercase hex ASCII (40 characters for SHA-1). Because the path and
//! mode cannot contain NUL and the hash has a fixed width, the encoding is
//! unambiguous. An empty view hashes the domain tag alone.

pub mod cache;
pub mod file_memo;
pub mod merkle;
pub mod snapshot_v1;
pub mod view;

pub use merkle::TreeDigester;

use crate::repo::tree::EntryMode;
use sha2::{Digest, Sha256};

/// The domain tag every tree-v1 digest starts with.
pub const TREE_V1_DOMAIN: &[u8] = b"mastermind-hooks-tree-v1\0";
/// The `tree_digest_version` the runner writes (tree-v2).
pub const TREE_DIGEST_VERSION: u32 = 2;
pub use crate::contract::mastermind::tree_receipt::TREE_DIGEST_VERSIONS;
/// Paths under this prefix are the agents' bookkeeping (reports, specs,
/// receipts) and never part of a snapshot.
pub const EXCLUDED_PREFIX: &[u8] = b".mastermind/";

/// True when a path is covered by snapshots (not under `.mastermind/`).
pub fn is_covered(path: &[u8]) -> bool {
    !path.starts_with(EXCLUDED_PREFIX)
}

/// The sha256 that stands for a submodule: its commit id as hex ASCII.
pub fn submodule_sha256(commit_hex: &str) -> [u8; 32] {
    Sha256::digest(commit_hex.as_bytes()).into()
}

/// Why entries could not be assembled (a bug in the caller's edge, or a
/// path git itself would refuse).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssemblyError {
    /// Paths must be strictly ascending by bytes (sorted, no duplicates).
    NotAscending { path: Vec<u8> },
    /// A path is empty or contains NUL.
    InvalidPath { path: Vec<u8> },
}

impl std::fmt::Display for AssemblyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AssemblyError::NotAscending { path } => write!(
                f,
                "path `{}` is out of order or repeated",
                String::from_utf8_lossy(path)
            ),
            AssemblyError::InvalidPath { path } => write!(
                f,
                "path `{}` is empty or contains NUL",
                String::from_utf8_lossy(path)
            ),
        }
    }
}

impl std::error::Error for AssemblyError {}

/// Incremental tree-v1 assembly.
pub struct TreeV1 {
    hasher: Sha256,
    last: Option<Vec<u8>>,
    files: usize,
}

impl Default for TreeV1 {
    fn default() -> Self {
        TreeV1::new()
    }
}

impl TreeV1 {
    pub fn new() -> TreeV1 {
        let mut hasher = Sha256::new();
        hasher.update(TREE_V1_DOMAIN);
        TreeV1 {
            hasher,
            last: None,
            files: 0,
        }
    }

    /// Add one file. Paths under `.mastermind/` are skipped; every path
    /// (skipped or not) must come in strictly ascending byte order.
    pub fn push(
        &mut self,
        path: &[u8],
        mode: EntryMode,
        sha256: &[u8; 32],
    ) -> Result<(), AssemblyError> {
        if path.is_empty() || path.contains(&0) {
            return Err(AssemblyError::InvalidPath {
                path: path.to_vec(),
            });
        }
        match &mut self.last {
            Some(last) if last.as_slice() >= path => {
                return Err(AssemblyError::NotAscending {
                    path: path.to_vec(),
                });
            }
            // Reuse the buffer: one allocation per digest, not per path.
            Some(last) => {
                last.clear();
                last.extend_from_slice(path);
            }
            None => self.last = Some(path.to_vec()),
        }
        if !is_covered(path) {
            return Ok(());
        }
        self.hasher.update(path);
        self.hasher.update([0]);
        self.hasher.update(mode.octal().as_bytes());
        self.hasher.update([0]);
        self.hasher.update(sha256);
        self.files += 1;
        Ok(())
    }

    /// Files hashed so far (covered paths only).
    pub fn files(&self) -> usize {
        self.files
    }

    /// The digest, lowercase hex.
    pub fn finish(self) -> String {
        hex::encode(self.hasher.finalize())
    }
}

/// The tree-v1 digest of `(path, mode, sha256(content))` entries.
pub fn tree_v1<'a>(
    entries: impl IntoIterator<Item = (&'a [u8], EntryMode, [u8; 32])>,
) -> Result<String, AssemblyError> {
    let mut tree = TreeV1::new();
    for (path, mode, sha) in entries {
        tree.push(path, mode, &sha)?;
    }
    Ok(tree.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(data: &[u8]) -> [u8; 32] {
        Sha256::digest(data).into()
    }

    #[test]
    fn layout_is_exactly_the_documented_bytes() {
        let a = sha(b"hello\n");
        let link = sha(b"target/file");
        let sub = submodule_sha256("0123456789abcdef0123456789abcdef01234567");
        let got = tree_v1([
            (
                &b".mastermind/tasks/x/spec.md"[..],
                EntryMode::Regular,
                sha(b"ignored"),
            ),
            (&b"a.txt"[..], EntryMode::Regular, a),
            (&b"bin/run"[..], EntryMode::Executable, a),
            (&b"link"[..], EntryMode::Symlink, link),
            (&b"vendor/lib"[..], EntryMode::Submodule, sub),
        ])
        .unwrap();
        let mut expected = Vec::new();
        expected.extend_from_slice(b"mastermind-hooks-tree-v1\0");
        for (path, mode, digest) in [
            ("a.txt", "100644", a),
            ("bin/run", "100755", a),
            ("link", "120000", link),
            ("vendor/lib", "160000", sub),
        ] {
            expected.extend_from_slice(path.as_bytes());
            expected.push(0);
            expected.extend_from_slice(mode.as_bytes());
            expected.push(0);
            expected.extend_from_slice(&digest);
        }
        assert_eq!(got, hex::encode(Sha256::digest(&expected)));
        assert_eq!(
            tree_v1([]).unwrap(),
            hex::encode(Sha256::digest(b"mastermind-hooks-tree-v1\0"))
        );
    }

    #[test]
    fn mode_content_and_path_each_change_the_digest() {
        let base = tree_v1([(&b"a"[..], EntryMode::Regular, sha(b"1"))]).unwrap();
        for other in [
            tree_v1([(&b"a"[..], EntryMode::Executable, sha(b"1"))]).unwrap(),
            tree_v1([(&b"a"[..], EntryMode::Regular, sha(b"2"))]).unwrap(),
            tree_v1([(&b"b"[..], EntryMode::Regular, sha(b"1"))]).unwrap(),
            tree_v1([
                (&b"a"[..], EntryMode::Regular, sha(b"1")),
                (&b"c"[..], EntryMode::Regular, sha(b"")),
            ])
            .unwrap(),
        ] {
            assert_ne!(base, other);
        }
        // Only .mastermind/ is excluded, not `.mastermindx` or a nested one.
        let with_bookkeeping = tree_v1([
            (&b".mastermind/x"[..], EntryMode::Regular, sha(b"9")),
            (&b"a"[..], EntryMode::Regular, sha(b"1")),
        ])
        .unwrap();
        assert_eq!(base, with_bookkeeping);
        assert!(is_covered(b".mastermindx/a") && is_covered(b"sub/.mastermind/a"));
    }

    #[test]
    fn order_and_paths_are_enforced() {
        let one = sha(b"1");
        assert!(matches!(
            tree_v1([
                (&b"b"[..], EntryMode::Regular, one),
                (&b"a"[..], EntryMode::Regular, one)
            ]),
            Err(AssemblyError::NotAscending { .. })
        ));
        assert!(matches!(
            tree_v1([
                (&b"a"[..], EntryMode::Regular, one),
                (&b"a"[..], EntryMode::Regular, one)
            ]),
            Err(AssemblyError::NotAscending { .. })
        ));
        assert!(matches!(
            tree_v1([(&b"a\0b"[..], EntryMode::Regular, one)]),
            Err(AssemblyError::InvalidPath { .. })
        ));
        // Byte order, not locale order: "a/b" (0x2f) sorts before "a0" (0x30)
        // and after "a-" (0x2d).
        assert!(
            tree_v1([
                (&b"a-"[..], EntryMode::Regular, one),
                (&b"a/b"[..], EntryMode::Regular, one),
                (&b"a0"[..], EntryMode::Regular, one),
            ])
            .is_ok()
        );
    }
}

//! Resolving and hashing a check's top-level executable, as the reference
//! runner does: an absolute argv[0] is used as is; one containing a `/` is
//! joined to the check's cwd; a bare name is looked up in `PATH` (absolute
//! entries only, first regular file wins). The result is canonicalized,
//! must be a regular file with an execute bit, at most 128 MiB, and is
//! hashed with SHA-256. Only argv[0] is pinned, not scripts it loads.

use super::RunError;
#[cfg(test)]
use crate::digest::file_memo::MEMO_MIN_BYTES;
use crate::digest::file_memo::{FileMemo, Identity};
use sha2::{Digest, Sha256};
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub const MAX_EXECUTABLE_BYTES: u64 = 128 * 1024 * 1024;

/// A resolved executable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The path before canonicalization (what is executed).
    pub invocation_path: PathBuf,
    pub resolved_path: PathBuf,
    pub sha256: String,
}

/// Where argv[0] points, before canonicalization.
pub fn locate(argv0: &str, cwd: &Path, path_env: Option<&OsStr>) -> Result<PathBuf, RunError> {
    let program = Path::new(argv0);
    if program.is_absolute() {
        return Ok(program.to_path_buf());
    }
    if argv0.contains('/') {
        return Ok(cwd.join(program));
    }
    let search = path_env.ok_or_else(|| RunError::PathUnset {
        argv0: argv0.to_string(),
    })?;
    std::env::split_paths(search)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(argv0))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| RunError::NotInPath {
            argv0: argv0.to_string(),
        })
}

/// SHA-256 of a file, refusing more than `limit` bytes, through `memo`: a
/// large file whose identity (see [`crate::digest::file_memo`]) the memo
/// knows is not read again, and one it does not know is remembered when its
/// identity held while it was read.
pub fn sha256_file_remembered(
    path: &Path,
    limit: u64,
    memo: &mut FileMemo<'_>,
) -> Result<String, RunError> {
    sha256_file_as_of(path, limit, memo, SystemTime::now())
}

/// [`sha256_file_remembered`] with the racy window measured from `now`.
fn sha256_file_as_of(
    path: &Path,
    limit: u64,
    memo: &mut FileMemo<'_>,
    now: SystemTime,
) -> Result<String, RunError> {
    let file =
        crate::safe_fs::open_read(path, crate::safe_fs::Follow::Links).map_err(|source| {
            RunError::Open {
                path: path.to_path_buf(),
                source,
            }
        })?;
    let read_error = |source| RunError::Read {
        path: path.to_path_buf(),
        source,
    };
    let before = file.metadata().map_err(read_error)?;
    if !memo.wanted(before.len()) {
        return hash_limited(file, path, limit, before.len()).map(hex::encode);
    }
    let identity = Identity::of(path, &before, now);
    if let Some(found) = identity.as_ref().and_then(|id| memo.get(id)) {
        return Ok(hex::encode(found));
    }
    let sha256 = hash_limited(&file, path, limit, before.len())?;
    let after = file.metadata().map_err(read_error)?;
    if let Some(identity) = identity
        && Identity::of(path, &after, now) == Some(identity)
    {
        memo.insert(&identity, sha256);
    }
    Ok(hex::encode(sha256))
}

/// The most and the least a hash reads at once.
const HASH_BUFFER_BYTES: usize = 256 * 1024;
const HASH_BUFFER_MIN_BYTES: usize = 8 * 1024;

/// SHA-256 of what `reader` yields, refusing more than `limit` bytes. The
/// buffer fits `expected` bytes (the file's size when opened) and one
/// more, from [`HASH_BUFFER_MIN_BYTES`] (a file that grows after its size
/// was taken is still read in useful pieces) up to [`HASH_BUFFER_BYTES`]:
/// a 35 KB `/usr/bin/true` is read in one call, without mapping and
/// unmapping a 256 KB buffer for it (a hook's receipt check resolves such
/// an executable on every run).
fn hash_limited(
    reader: impl Read,
    path: &Path,
    limit: u64,
    expected: u64,
) -> Result<[u8; 32], RunError> {
    let mut hasher = Sha256::new();
    let mut reader = reader.take(limit + 1);
    let size = usize::try_from(expected.saturating_add(1))
        .unwrap_or(HASH_BUFFER_BYTES)
        .clamp(HASH_BUFFER_MIN_BYTES, HASH_BUFFER_BYTES);
    let mut buffer = vec![0u8; size];
    let mut total = 0u64;
    loop {
        let n = reader.read(&mut buffer).map_err(|source| RunError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > limit {
            return Err(RunError::TooLarge {
                path: path.to_path_buf(),
                limit,
            });
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hasher.finalize().into())
}

/// Resolve and hash argv[0].
pub fn resolve(argv0: &str, cwd: &Path, path_env: Option<&OsStr>) -> Result<Resolved, RunError> {
    resolve_remembered(argv0, cwd, path_env, &mut FileMemo::none())
}

/// [`resolve`], hashing through `memo` ([`sha256_file_remembered`]).
pub fn resolve_remembered(
    argv0: &str,
    cwd: &Path,
    path_env: Option<&OsStr>,
    memo: &mut FileMemo<'_>,
) -> Result<Resolved, RunError> {
    let invocation_path = locate(argv0, cwd, path_env)?;
    let resolved_path =
        std::fs::canonicalize(&invocation_path).map_err(|source| RunError::Resolve {
            path: invocation_path.clone(),
            source,
        })?;
    let metadata = std::fs::metadata(&resolved_path).map_err(|source| RunError::Stat {
        path: resolved_path.clone(),
        source,
    })?;
    if !metadata.is_file() {
        return Err(RunError::NotRegular {
            path: resolved_path,
        });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if metadata.permissions().mode() & 0o111 == 0 {
            return Err(RunError::NotExecutable {
                path: resolved_path,
            });
        }
    }
    if metadata.len() > MAX_EXECUTABLE_BYTES {
        return Err(RunError::TooLarge {
            path: resolved_path,
            limit: MAX_EXECUTABLE_BYTES,
        });
    }
    let sha256 = sha256_file_remembered(&resolved_path, MAX_EXECUTABLE_BYTES, memo)?;
    Ok(Resolved {
        invocation_path,
        resolved_path,
        sha256,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::cache::{Format, Sha256Cache};
    use std::time::Duration;

    fn memo_in(dir: &Path) -> FileMemo<'static> {
        FileMemo::with_table(Sha256Cache::at_named(
            dir.join("executables-sha1"),
            "executables",
            [9; 32],
            Format::Sha1,
        ))
    }

    #[test]
    fn a_hash_reads_past_the_size_it_expected_and_still_refuses_too_much() {
        let path = Path::new("grown");
        let grown = vec![7u8; 300 * 1024];
        let want: [u8; 32] = Sha256::digest(&grown).into();
        assert_eq!(
            hash_limited(&grown[..], path, 1 << 30, 10).unwrap(),
            want,
            "a file larger than its size when opened is hashed whole"
        );
        assert_eq!(
            hash_limited(&grown[..], path, 1 << 30, 1 << 40).unwrap(),
            want
        );
        assert!(matches!(
            hash_limited(&grown[..], path, 1000, 10),
            Err(RunError::TooLarge { limit: 1000, .. })
        ));
        let empty: [u8; 32] = Sha256::digest(b"").into();
        assert_eq!(hash_limited(&b""[..], path, 0, 0).unwrap(), empty);
    }

    fn later() -> SystemTime {
        SystemTime::now() + Duration::from_secs(60)
    }

    #[test]
    fn a_large_file_is_remembered_by_identity_and_a_rewrite_is_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("tool");
        let bytes = vec![b'a'; MEMO_MIN_BYTES as usize];
        std::fs::write(&tool, &bytes).unwrap();
        let real = hex::encode(Sha256::digest(&bytes));
        let mut memo = memo_in(dir.path());
        assert_eq!(
            sha256_file_as_of(&tool, 1 << 30, &mut memo, later()).unwrap(),
            real
        );
        memo.save();
        drop(memo);

        // What the memo answers is what it holds: plant another value for
        // the same identity and it is served without reading the file.
        let planted = [0x5a; 32];
        let identity = Identity::of(&tool, &std::fs::metadata(&tool).unwrap(), later()).unwrap();
        let mut memo = memo_in(dir.path());
        assert_eq!(memo.get(&identity), Some(Sha256::digest(&bytes).into()));
        let mut planting = memo_in(&dir.path().join("planted"));
        std::fs::create_dir(dir.path().join("planted")).unwrap();
        planting.insert(&identity, planted);
        planting.save();
        let mut memo_planted = memo_in(&dir.path().join("planted"));
        assert_eq!(
            sha256_file_as_of(&tool, 1 << 30, &mut memo_planted, later()).unwrap(),
            hex::encode(planted)
        );

        // A rewrite of the same size moves the change time: read again.
        std::thread::sleep(Duration::from_millis(30));
        let mut other = bytes.clone();
        other[0] = b'b';
        std::fs::write(&tool, &other).unwrap();
        assert_eq!(
            sha256_file_as_of(&tool, 1 << 30, &mut memo_planted, later()).unwrap(),
            hex::encode(Sha256::digest(&other))
        );
        assert_eq!(
            sha256_file_as_of(&tool, 1 << 30, &mut memo, later()).unwrap(),
            hex::encode(Sha256::digest(&other))
        );
    }

    #[test]
    fn racy_and_small_files_are_never_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big");
        std::fs::write(&big, vec![1u8; MEMO_MIN_BYTES as usize]).unwrap();
        let mut memo = memo_in(dir.path());
        // Hashed now: changed less than RACY_SECONDS ago.
        sha256_file_as_of(&big, 1 << 30, &mut memo, SystemTime::now()).unwrap();
        assert_eq!(memo.fresh_len(), 0);
        let small = dir.path().join("small");
        std::fs::write(&small, b"#!/bin/sh\n").unwrap();
        sha256_file_as_of(&small, 1 << 30, &mut memo, later()).unwrap();
        assert_eq!(memo.fresh_len(), 0);
        sha256_file_as_of(&big, 1 << 30, &mut memo, later()).unwrap();
        assert_eq!(memo.fresh_len(), 1);
        // The limit holds whether or not the memo is asked.
        assert!(matches!(
            sha256_file_as_of(&big, 10, &mut memo_in(dir.path()), later()),
            Err(RunError::TooLarge { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn resolution_rules() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let tool = bin.join("tool");
        std::fs::write(&tool, b"#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = std::env::join_paths(["relative/bin".as_ref(), bin.as_path()]).unwrap();
        let found = resolve("tool", Path::new("/"), Some(&path)).unwrap();
        assert_eq!(found.invocation_path, tool);
        assert_eq!(found.sha256, hex::encode(Sha256::digest(b"#!/bin/sh\n")));
        // A separator joins to cwd; absolute stays.
        assert_eq!(
            resolve("bin/tool", dir.path(), None).unwrap().sha256,
            found.sha256
        );
        assert_eq!(
            resolve(tool.to_str().unwrap(), Path::new("/nowhere"), None)
                .unwrap()
                .sha256,
            found.sha256
        );
        // Relative PATH entries are never searched; no execute bit fails.
        let only_relative = std::env::join_paths(["bin"]).unwrap();
        assert!(resolve("tool", dir.path(), Some(&only_relative)).is_err());
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(
            resolve("bin/tool", dir.path(), None)
                .unwrap_err()
                .to_string()
                .contains("execute bit")
        );
        assert!(resolve("missing", dir.path(), Some(&path)).is_err());
    }
}

//! Resolving and hashing a check's top-level executable, as the reference
//! runner does: an absolute argv[0] is used as is; one containing a `/` is
//! joined to the check's cwd; a bare name is looked up in `PATH` (absolute
//! entries only, first regular file wins). The result is canonicalized,
//! must be a regular file with an execute bit, at most 128 MiB, and is
//! hashed with SHA-256. Only argv[0] is pinned, not scripts it loads.

use super::RunError;
use sha2::{Digest, Sha256};
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};

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

/// SHA-256 of a file, refusing more than `limit` bytes.
pub fn sha256_file(path: &Path, limit: u64) -> Result<String, RunError> {
    let file =
        crate::safe_fs::open_read(path, crate::safe_fs::Follow::Links).map_err(|source| {
            RunError::Open {
                path: path.to_path_buf(),
                source,
            }
        })?;
    let mut hasher = Sha256::new();
    let mut reader = file.take(limit + 1);
    let mut buffer = vec![0u8; 256 * 1024];
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
    Ok(hex::encode(hasher.finalize()))
}

/// Resolve and hash argv[0].
pub fn resolve(argv0: &str, cwd: &Path, path_env: Option<&OsStr>) -> Result<Resolved, RunError> {
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
    let sha256 = sha256_file(&resolved_path, MAX_EXECUTABLE_BYTES)?;
    Ok(Resolved {
        invocation_path,
        resolved_path,
        sha256,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
